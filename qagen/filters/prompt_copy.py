"""Copied from the prompt: an item that repeats qagen's own instructions or few-shot examples.

A model that cannot do the task copies what it was shown, and not only from the section: an
instruction line ("Write 3 different questions that a curious customer would ask about the
section above") or a sentence of a few-shot example ("Never put ice directly on the skin.")
came back as answers and passed a ROUGE-recall grounding check on a few common words.

:func:`prompt_reference_texts` reads the prompt templates (placeholders removed), the texts
qagen fills in for every request (Bloom levels, scenarios, question tasks) and the few-shot
examples, as sentences; the stage puts them in ``FilterContext.prompt_texts``. The
``copied_from_prompt`` filter rejects an item whose answer, correct option, rationale or
question holds, and its source sections do not:

- a run of ``COPY_NGRAM`` (6) consecutive words of one of those sentences;
- a sentence that covers at least 80 % (ROUGE-L recall) of one of those sentences of 5 words
  or more, and is mostly made of it (at least half of its own words): a copy with the
  placeholders filled in ("... a curious customer would ask ...") is still a copy;
- or, whole, a short phrase of the prompt ("Until 20:00", the example's correct option).

A question is held to the last two rules only, with its sentence at least 80 % the prompt's:
"What do I have to do if the display shows Filter?" shares six words with a few-shot
question without being a copy of it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.filters.grounding import is_span, normalized, rouge_recall, words
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig

COPY_NGRAM = 6
SENTENCE_MIN_WORDS = 5
SENTENCE_RECALL = 0.8
SENTENCE_OWN_SHARE = 0.5
QUESTION_OWN_SHARE = 0.8
_PLACEHOLDER = re.compile(r"\$(?:\$|\{\w+\}|\w+)")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def prompt_reference_texts(
    prompts_dir: Path | str | None = None, few_shot_file: Path | str | None = None
) -> tuple[str, ...]:
    """The sentences of qagen's prompts, without placeholders, and of the few-shot examples.

    Args:
        prompts_dir: The prompts folder a build uses (``generate.prompts_dir``); None = the
            bundled ``prompts/``. Missing prompt files are skipped.
        few_shot_file: The few-shot JSON (``generate.few_shot_file``); None = the prompts
            folder's ``few_shot_long_form.json`` and its ``few_shot_long_form.<code>.json``
            files in other languages, when there are any.

    Returns:
        Distinct sentences and quoted phrases of two words or more, in file order.
    """
    from qagen.generate.mix import BLOOM_DESCRIPTIONS, BLOOM_LEVELS, SCENARIO_DESCRIPTIONS, SCENARIOS, question_task
    from qagen.generate.prompts import (
        DEFAULT_FEW_SHOT,
        PROMPT_NAMES,
        default_prompts_dir,
        language_few_shots,
        load_prompt,
    )

    folder = Path(prompts_dir) if prompts_dir else default_prompts_dir()
    texts: list[str] = []
    for name in PROMPT_NAMES:
        if (folder / f"{name}.md").is_file():
            prompt = load_prompt(folder, name)
            texts += _template_sentences(prompt.system) + _template_sentences(prompt.user)
    texts += list(BLOOM_DESCRIPTIONS.values()) + list(SCENARIO_DESCRIPTIONS.values())
    texts += [question_task(b, s) for b in BLOOM_LEVELS for s in SCENARIOS]
    shots = [Path(few_shot_file)] if few_shot_file else [folder / DEFAULT_FEW_SHOT]
    shots += [] if few_shot_file else list(language_few_shots(folder).values())
    for shot in (p for p in shots if p.is_file()):
        try:
            examples = json.loads(shot.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            examples = []
        for ex in examples if isinstance(examples, list) else []:
            if isinstance(ex, dict):
                for key in ("section", "question", "answer"):
                    if isinstance(ex.get(key), str):
                        texts += _sentences(ex[key])
    out = [t for t in dict.fromkeys(" ".join(t.split()) for t in texts) if len(words(t)) >= 2]
    return tuple(out)


def _template_sentences(template: str) -> list[str]:
    """Sentences of a template with its placeholders removed, plus its quoted phrases."""
    text = _PLACEHOLDER.sub(lambda m: "$" if m.group(0) == "$$" else " ", template)
    text = text.replace('"""', "\n")
    quoted = [q for q in _QUOTED.findall(text) if len(q.split()) >= 2 or re.search(r"\d", q)]
    return _sentences(text) + [s for q in quoted for s in _sentences(q)]


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*\t") for s in _SENTENCE_END.split(text) if s.strip(" -*\t")]


@dataclass(frozen=True)
class PromptIndex:
    """The reference sentences as tokens, their n-grams and their normalised forms."""

    sentences: tuple[tuple[str, ...], ...]
    texts: tuple[str, ...]
    ngrams: dict[tuple[str, ...], int]
    whole: dict[str, int]
    counts: tuple[Counter[str], ...]

    @classmethod
    def build(cls, texts: tuple[str, ...]) -> PromptIndex:
        sentences = tuple(tuple(words(t)) for t in texts)
        ngrams: dict[tuple[str, ...], int] = {}
        for i in sorted(range(len(sentences)), key=lambda k: len(sentences[k])):  # shortest sentence reported
            toks = sentences[i]
            for j in range(len(toks) - COPY_NGRAM + 1):
                ngrams.setdefault(toks[j : j + COPY_NGRAM], i)
        # whole-phrase matches only for phrases of three words or with a number ("Until 20:00"),
        # not for the two-word phrases the instructions quote ("the passage", "the text")
        whole = {normalized(t): i for i, t in enumerate(texts) if len(sentences[i]) >= 3 or any(c.isdigit() for c in t)}
        return cls(sentences, texts, ngrams, whole, tuple(Counter(s) for s in sentences))


def find_copy(text: str, index: PromptIndex, source: str, *, own_share: float = SENTENCE_OWN_SHARE) -> str | None:
    """The prompt text that ``text`` copies and ``source`` does not hold, or None.

    ``own_share`` is the least share of a sentence of ``text`` the copied prompt sentence must
    make up; at 0.8 or more (questions) the run-of-words rule is off: a question may well say
    "what do I have to do" as a few-shot question does, but not be one."""
    toks = words(text)
    if not toks:
        return None
    source_ngrams: set[tuple[str, ...]] | None = None
    for j in range(len(toks) - COPY_NGRAM + 1 if own_share < QUESTION_OWN_SHARE else 0):
        gram = tuple(toks[j : j + COPY_NGRAM])
        if gram in index.ngrams:
            if source_ngrams is None:
                src = words(source)
                source_ngrams = {tuple(src[k : k + COPY_NGRAM]) for k in range(len(src) - COPY_NGRAM + 1)}
            if gram not in source_ngrams:
                return index.texts[index.ngrams[gram]]
    from rapidfuzz.distance import LCSseq

    for sentence in _sentences(text):
        own = words(sentence)
        if len(own) < 2:
            continue
        hit = index.whole.get(normalized(sentence))
        if hit is not None and not is_span(sentence, source):
            return index.texts[hit]
        counts = Counter(own)
        for i, ref in enumerate(index.sentences):
            if len(ref) < SENTENCE_MIN_WORDS:
                continue
            bound = sum(min(n, counts[t]) for t, n in index.counts[i].items())
            if bound < SENTENCE_RECALL * len(ref) or bound < own_share * len(own):
                continue
            common = LCSseq.similarity(own, list(ref))
            copied = common >= SENTENCE_RECALL * len(ref) and common >= own_share * len(own)
            if copied and rouge_recall(sentence, source) < SENTENCE_RECALL:
                return index.texts[i]
    return None


def check_copied_from_prompt(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Answer, correct option, rationale or question copied from the prompt, not from the source."""
    if not ctx.prompt_texts:
        return None
    index: PromptIndex = ctx.cached("prompt_copy.index", lambda: PromptIndex.build(ctx.prompt_texts))
    source = ctx.source_text(item)
    fields = [("answer", item.answer)]
    if (
        item.type == "mcq"
        and item.options
        and item.answer_index is not None
        and 0 <= item.answer_index < len(item.options)
    ):
        option = item.options[item.answer_index]
        if normalized(option) != normalized(item.answer):
            fields.append(("correct option", option))
    fields += [("rationale", item.rationale or ""), ("question", item.question)]
    for name, text in fields:
        share = QUESTION_OWN_SHARE if name == "question" else SENTENCE_OWN_SHARE
        copied = find_copy(text, index, source, own_share=share) if text.strip() else None
        if copied is not None:
            return Reject(f"{name} copied from the prompt", copied[:160])
    return None


COPIED_FROM_PROMPT = ItemFilter("copied_from_prompt", check_copied_from_prompt)
