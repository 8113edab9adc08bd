"""A responder for the fake OpenAI server that answers like a careful model would.

Questions about the section it was shown, answers copied from that section, the requested
entity in factoid answers, MCQ options with the correct one taken from the passages. Used by
the build tests and the benchmarks (``python -m tests.support.llm_server --responder grounded``).
"""

from __future__ import annotations

import re

_QUOTED = re.compile(r'"""\n(.*?)\n"""', re.S)


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", text) if len(p.strip()) > 25]
    return parts or [text.strip()[:200] or "See the section."]


def _max_items(body: dict, field: str, default: int) -> int:
    """The ``maxItems`` of ``field`` in the request's JSON schema (``response_format``), else ``default``."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
    return int(((schema.get("properties") or {}).get(field) or {}).get("maxItems", default))


def grounded_responder(body: dict) -> dict:
    """Replies built from the passages in the prompt, in the shape each prompt asks for."""
    # the first user message holds the task; a repair request appends the invalid reply and
    # the validation error after it, and gets the same kind of answer
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    blocks = _QUOTED.findall(prompt) or [prompt]
    sents = _sentences(blocks[0])
    # the section's own heading: the last "Section:" line (few-shot examples come first)
    headings = re.findall(r"^Section: (.*)$", prompt, re.M)
    topic = headings[-1].strip() if headings else "this service"
    # questions name what they are about: the document's title (the last "Document:" line)
    titles = re.findall(r"^Document: (.*)$", prompt, re.M) or re.findall(r'\(document: "([^"]*)"', prompt)
    doc = titles[-1].strip() if titles else "the service"
    if '"answerable"' in prompt:  # the answerability judge: these pages do not answer it
        return {"answerable": "no", "evidence": ""}
    if '{"labels"' in prompt:  # the label judge: each question asks for the one sentence it quotes
        count = len(re.findall(r"^Question \d+:", prompt, re.M))
        return {"labels": [{"question": k, "bloom": "B1", "scenario": "S1", "reason": "one fact"} for k in
                           range(1, count + 1)]}  # fmt: skip
    if '{"candidates"' in prompt:
        most = _max_items(body, "candidates", 3)  # a model that follows the schema writes no more than it allows
        return {
            "candidates": [
                {
                    "question": f"What should I know about {topic.lower()} at {doc} ({i + 1})?",
                    "answer": s,
                    "score": 5 - i % 3,
                }
                for i, s in enumerate(sents[:most])
            ]
        }
    if "correct_answer" in prompt:
        others = [s for b in blocks[1:] for s in _sentences(b)] + sents[1:]
        correct = " ".join(sents[0].split()[:8])
        # as long as the correct option (the option-length filter), and supported by no passage
        distractors = [f"Only on weekends, by written appointment {k}." for k in range(3)]
        return {
            "question": f"Which statement about {topic.lower()} at {doc} is correct?",
            "correct_answer": correct,
            "distractors": distractors,
            "rationale": f"The passage says: {sents[0][:120]} {len(others)}",
        }
    entity = re.search(r"answer is the [\w -]+? (\S+@\S+|\+?[\d()][\d ()\-.]{5,}\d|https?://\S+|www\.\S+)\.?\n", prompt)
    value = entity.group(1).rstrip(".") if entity else sents[0]
    return {"question": f"How can I contact {topic.lower()} at {doc}?", "answer": f"You can use {value}."}
