"""A fake-server responder that answers Ragas's, DeepEval's and qagen's prompts like a careful model.

The fake OpenAI-compatible server (``tests/support/llm_server.py``) answers a schema it finds in
``response_format`` or in a ``JSON schema:`` prompt line. Ragas 0.4 writes its output schema
into the prompt in its own words ("... as specified in JSON Schema:\\n{...}Do not use single
quotes ..."), and DeepEval's prompt-JSON mode describes the keys in prose, so the default
responder echoes and both tools fail to parse. This responder recognises each of their prompts
and replies with a valid instance built from the prompt's own text: headlines that occur in
the document (Ragas splits on them), summaries and answers made of its sentences, quality
scores that pass every filter (so no critique/rewrite loop runs: the peers' request counts
are lower bounds), as many inputs as DeepEval asks for. Anything else, qagen's prompts
included, goes to ``tests/support/grounded.py``'s ``grounded_responder``.

It also serves: ``python benchmarks/peers_responder.py --latency 0.05 [--fault-rate 0.1]``
starts a :class:`LoggingServer` (the fake server plus per-request token counts and end
times in ``GET /_fake/stats``), prints its URL and serves until standard input closes.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.support

from tests.support.grounded import grounded_responder  # noqa: E402
from tests.support.llm_server import FakeOpenAIServer, default_responder  # noqa: E402

RAGAS_SCHEMA = "as specified in JSON Schema:\n"
RAGAS_SCHEMA_END = "Do not use single quotes in your response"
_STOP = frozenset(
    re.findall(
        r"\w+",
        "the a an and or of to in for on with by from as at is are be this that these those it its can "
        "will which when where what how not you your use used using may also into than then there their "
        "more most such each any all other some one two new see page section file files",
    )
)


# ------------------------------------------------------------------ text helpers


def sentences(text: str, limit: int = 6) -> list[str]:
    """Sentences of at least 30 characters (whitespace collapsed), or the text itself."""
    flat = re.sub(r"\s+", " ", text).strip()
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", flat) if len(p.strip()) >= 30]
    return (parts or [flat[:300] or "The document describes this."])[:limit]


def keywords(text: str, limit: int = 6) -> list[str]:
    """The most frequent content words (ties broken by first occurrence), capitalised."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z\-]{3,}", text) if w.lower() not in _STOP]
    counts = Counter(w.lower() for w in words)
    first: dict[str, str] = {}
    for w in words:
        first.setdefault(w.lower(), w)
    ranked = sorted(counts, key=lambda k: (-counts[k], list(first).index(k)))
    return [first[k][0].upper() + first[k][1:] for k in ranked[:limit]] or ["Document"]


def entities(text: str, limit: int = 8) -> list[str]:
    """Capitalised or mixed-case tokens (names, packages, commands), most frequent first."""
    found = re.findall(r"(?<![\w\\])(?:[A-Z][a-z]*[A-Z][A-Za-z]*|[A-Z][a-z]{2,}|\\[a-zA-Z]{3,})", text)
    counts = Counter(t for t in found if t.lower() not in _STOP)
    return [t for t, _ in counts.most_common(limit)] or keywords(text, limit)


def headlines(text: str, limit: int) -> list[str]:
    """Short title-like lines that occur verbatim in ``text``, spread over the document."""
    lines = [ln.strip() for ln in text.splitlines()]
    candidates = [
        ln
        for ln in lines
        if 3 <= len(ln) <= 60
        and ln[0].isalnum()
        and not ln.endswith((".", ",", ";", ":"))
        and len(ln.split()) <= 8
        and sum(c.isalpha() for c in ln) >= 0.6 * len(ln)
    ]
    unique = list(dict.fromkeys(candidates))
    if len(unique) <= limit:
        return unique or [lines[0] if lines else text[:40]]
    step = len(unique) / limit
    return [unique[int(i * step)] for i in range(limit)]


# ------------------------------------------------------------------ Ragas


def _ragas_parts(prompt: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(output schema, input data, instruction) of a Ragas PydanticPrompt."""
    start = prompt.index(RAGAS_SCHEMA) + len(RAGAS_SCHEMA)
    end = prompt.index(RAGAS_SCHEMA_END, start)
    schema = json.loads(prompt[start:end])
    data: dict[str, Any] = {}
    at = prompt.rfind("\ninput: ")
    if at != -1:
        raw = prompt[at + len("\ninput: ") :]
        raw = raw[: raw.rfind("\nOutput:")] if "\nOutput:" in raw else raw
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            data = {"text": raw}
    return schema, data, prompt[: prompt.index(RAGAS_SCHEMA)]


def ragas_reply(prompt: str) -> Any:
    """A valid, filter-passing reply to one Ragas prompt, built from its input."""
    schema, data, instruction = _ragas_parts(prompt)
    title = schema.get("title", "")
    text = str(data.get("text") or data.get("node_content") or data.get("context") or "")
    limit = int(data.get("max_num", 10))
    if title == "StringIO":
        if instruction.startswith("Extract the title"):
            return {"text": headlines(text, 1)[0]}
        return {"text": " ".join(sentences(text, 3))[:700]}
    if title == "Headlines":
        return {"headlines": headlines(text, limit)}
    if title == "NEROutput":
        return {"entities": entities(text, limit)}
    if title == "ThemesAndConcepts":
        return {"output": keywords(text, min(limit, 6))}
    if title == "Keyphrases":
        return {"keyphrases": keywords(text, min(limit, 5))}
    if title == "QuestionPotentialOutput":
        return {"score": 4}
    if title == "Persona":
        topic = keywords(text, 1)[0]
        return {"name": f"{topic} Specialist", "role_description": f"Uses {topic.lower()} in daily work."}
    if title == "PersonaThemesMapping":
        themes = list(data.get("themes", []))
        return {"mapping": {p["name"]: themes for p in data.get("personas", [])}}
    if title == "ConceptCombinations":
        lists = [lst for lst in data.get("lists_of_concepts", []) if lst]
        pairs = [[a, b] for a in lists[0] for b in lists[1]] if len(lists) >= 2 else [lists[0][:2]] if lists else []
        return {"combinations": pairs[: int(data.get("max_combinations", 5))] or [["Document", "Topic"]]}
    if title == "GeneratedQueryAnswer":
        return _ragas_query(data)
    return fill(schema, text or prompt)


def _ragas_query(data: dict[str, Any]) -> dict[str, str]:
    context = data.get("context", "")
    context = " ".join(context) if isinstance(context, list) else str(context)
    context = re.sub(r"<\d+-hop>", "", context)
    term = data.get("term") or ", ".join(data.get("themes", [])[:2]) or keywords(context, 1)[0]
    facts = sentences(context, 2)
    return {"query": f"What does the documentation say about {term}?", "answer": " ".join(facts)[:600]}


# ------------------------------------------------------------------ DeepEval


def _after(prompt: str, label: str) -> str:
    """The text after the last ``label`` line of a DeepEval prompt, up to the next label."""
    at = prompt.rfind(label)
    if at == -1:
        return ""
    rest = prompt[at + len(label) :]
    return re.split(r"\n\s*(?:Input|Rewritten Input|Generated Response|JSON|Context):", rest)[0].strip()


def deepeval_reply(prompt: str) -> Any | None:
    """A valid, filter-passing reply to one DeepEval synthesizer prompt, or None if not one."""
    if "assign a numerical score between 0 (Low) and 1 (High)" in prompt:
        return {"clarity": 0.9, "depth": 0.8, "structure": 0.9, "relevance": 0.9}
    if "please generate a list of JSON objects with a `input` key" in prompt:
        count = re.search(r"Max Goldens Per Context:\s*(\d+)", prompt)
        facts = sentences(_after(prompt, "\n        Context:"), 8)
        n = int(count.group(1)) if count else 2
        inputs = [f"What does the documentation say about this: {facts[i % len(facts)][:120]}" for i in range(n)]
        inputs[-1] = f"Explain the following: {facts[(n - 1) % len(facts)][:120]}"  # one statement, as asked
        return {"data": [{"input": q} for q in inputs]}
    if "Evaluate the provided synthetic query" in prompt:
        return {"feedback": "The query is clear, self-contained and answerable.", "score": 0.9}
    if "Rewritten Input:" in prompt[-200:]:
        original = _after(prompt, "\n            Input:")
        return f"{original.rstrip('?.')[:90]}, and why?"
    if "Generated Response:" in prompt[-200:]:
        return " ".join(sentences(_after(prompt, "Context:"), 2))[:500]
    if "`rewritten_input`" in prompt or "rewritten_input" in prompt[-400:]:
        return {"rewritten_input": _after(prompt, "Query:") or "What does the documentation describe?"}
    return None


# ------------------------------------------------------------------ qagen, careful

_QUOTED = re.compile(r'"""\n(.*?)\n"""', re.S)
_FALSE_CLAIMS = (
    "It must be loaded before every other package in the preamble",
    "It only works with the plain TeX format and not with LaTeX",
    "It needs a separate licence for each printed copy of a document",
    "It was withdrawn and its commands now print an error message",
)


def _words(text: str, n: int) -> str:
    """The first ``n`` words of ``text``, without trailing punctuation."""
    return " ".join(text.split()[:n]).rstrip(".,;:")


def careful_qagen_responder(body: dict[str, Any]) -> Any:
    """``grounded_responder`` with the questions a careful model writes: each names its own subject.

    tests/support/grounded.py takes the first ``Section:`` line of the prompt, which in the few-shot
    long-form prompt is an example's, so every long-form question is the same and the
    near-duplicate filter keeps one; its MCQ distractors are a fifth of the correct option's
    length, so the option-length filter rejects most MCQs. This variant names the section's
    own heading and a phrase of the answer in each question, answers MCQs in a few words and
    writes distractors of similar length that the passage does not support.
    """
    reply = grounded_responder(body)
    prompt = _prompt(body)
    headings = re.findall(r'^Section: (.*)$|section: "([^"]*)"', prompt, re.M)
    topic = next((a or b for a, b in reversed(headings) if a or b), "this section").strip()
    blocks = _QUOTED.findall(prompt) or [prompt]
    if isinstance(reply, dict) and "candidates" in reply:
        facts = sentences(blocks[-1], 3)
        reply["candidates"] = [
            {"question": f"In {topic}, what is meant by '{_words(f, 6)}'?", "answer": f[:600], "score": 5 - i}
            for i, f in enumerate(facts)
        ]
    elif isinstance(reply, dict) and "correct_answer" in reply:
        fact = sentences(blocks[0], 1)[0]
        subject = keywords(fact, 2)
        reply["question"] = f"What does the documentation state about {' and '.join(subject).lower()} in {topic}?"
        reply["correct_answer"] = _words(fact, 9)
        reply["distractors"] = list(_FALSE_CLAIMS[:3])
        reply["rationale"] = fact[:400]
    elif isinstance(reply, dict) and "question" in reply:
        reply["question"] = f"Which contact does {topic} give for this?"
    return reply


# ------------------------------------------------------------------ dispatch


def fill(schema: dict[str, Any], text: str, root: dict[str, Any] | None = None) -> Any:
    """A valid instance of ``schema`` whose strings are sentences of ``text``."""
    root = root or schema
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return fill(target, text, root)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return fill(options[0], text, root)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        return {k: fill(v, text, root) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        n = max(2, int(schema.get("minItems", 1)))
        return [fill(schema.get("items", {"type": "string"}), text, root) for _ in range(n)]
    if kind == "string":
        return sentences(text, 1)[0][:200]
    if kind in ("integer", "number"):
        return schema.get("maximum", 4)
    return True if kind == "boolean" else None


def _prompt(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content") or ""
            if isinstance(content, list):  # content parts
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content)
    return ""


QAGEN_RESPONDERS = {"grounded": grounded_responder, "careful": careful_qagen_responder}


def peers_responder(body: dict[str, Any], qagen: str = "grounded") -> Any:
    """Ragas, DeepEval or qagen reply (``qagen``: grounded or careful), chosen by the prompt's wording."""
    prompt = _prompt(body)
    if RAGAS_SCHEMA in prompt and RAGAS_SCHEMA_END in prompt:
        return ragas_reply(prompt)
    reply = deepeval_reply(prompt)
    if reply is not None:
        return reply
    if '"""' in prompt:  # qagen's prompts quote their passages
        return QAGEN_RESPONDERS[qagen](body)
    return default_responder(body)


def request_kind(prompt: str) -> str:
    """Which tool's which prompt a chat request is (for request counts by kind)."""
    if RAGAS_SCHEMA in prompt and RAGAS_SCHEMA_END in prompt:
        title = _ragas_parts(prompt)[0].get("title", "?")
        return f"ragas {'title' if prompt.startswith('Extract the title') else title}".replace("StringIO", "summary")
    for marker, kind in (
        ("assign a numerical score between 0 (Low) and 1 (High)", "context score"),
        ("please generate a list of JSON objects with a `input` key", "inputs"),
        ("Evaluate the provided synthetic query", "input critic"),
        ("Rewritten Input:", "evolution"),
        ("Generated Response:", "expected output"),
    ):
        if marker in prompt:
            return f"deepeval {kind}"
    if '{"candidates"' in prompt:
        return "qagen long-form"
    if "correct_answer" in prompt:
        return "qagen mcq"
    return "qagen factoid" if '"""' in prompt else "other"


# ------------------------------------------------------------------ server with token accounting


class LoggingServer(FakeOpenAIServer):
    """The fake server answering with :func:`peers_responder`, recording usage and end times.

    ``POST /_fake/qagen/<grounded|careful>`` picks the responder for qagen's prompts.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(lambda body: peers_responder(body, self.qagen), **kwargs)
        self.qagen = "grounded"
        self._local = threading.local()

    def _handle(self, handler: Any, path: str, body: Any) -> None:
        if path.startswith("/_fake/qagen/"):
            mode = path.rsplit("/", 1)[1]
            if mode in QAGEN_RESPONDERS:
                self.qagen = mode
            handler._send_json(200 if mode in QAGEN_RESPONDERS else 404, {"qagen": self.qagen})
            return
        super()._handle(handler, path, body)

    def _play(self, handler: Any, record: Any, body: Any, action: Any) -> None:
        self._local.record = record
        super()._play(handler, record, body, action)

    def _chat_reply(self, body: dict[str, Any], action: Any) -> dict[str, Any]:
        reply = super()._chat_reply(body, action)
        self._local.record.usage = reply.get("usage")
        return reply

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._embeddings(body)
        self._local.record.usage = reply.get("usage")
        return reply

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        with self._lock:
            out["records"] = [
                {
                    "path": r.path,
                    "status": r.status,
                    "t_start": r.t_start,
                    "t_end": r.t_end,
                    "prompt_tokens": (getattr(r, "usage", None) or {}).get("prompt_tokens", 0),
                    "completion_tokens": (getattr(r, "usage", None) or {}).get("completion_tokens", 0),
                }
                for r in self.requests
            ]
        return out


def main(argv: list[str] | None = None) -> None:
    """Serve until standard input closes (same options as ``tests/support/llm_server.py``)."""
    import argparse

    parser = argparse.ArgumentParser(description="The fake server answering Ragas, DeepEval and qagen prompts.")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-consecutive-faults", type=int, default=None)
    parser.add_argument("--embedding-dim", type=int, default=8)
    args = parser.parse_args(argv)
    server = LoggingServer(
        latency=args.latency,
        fault_rate=args.fault_rate,
        seed=args.seed,
        max_consecutive_faults=args.max_consecutive_faults,
        embedding_dim=args.embedding_dim,
    )
    with server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
