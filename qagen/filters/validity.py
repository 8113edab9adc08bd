"""Validity: the item matches its schema and its text is usable.

Checks, first failure wins: the record schema (the pydantic validation of
:class:`~qagen.records.Item` that ``schemas/item.schema.json`` is generated from; the
jsonschema validator took ~10 ms an item, this ~0.1 ms), the fields each type needs, known source sections,
empty / too short / overlong text, a question that ends as a question, and for MCQs four
distinct options (after normalisation), the answer among them at ``answer_index``, and
no "all/none of the above" option. Whether the question stands on its own (no section
number, not about "this section", naming its subject) is the next filter's,
:mod:`qagen.filters.self_contained`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject, reject
from qagen.generate.reply_models import is_code_option
from qagen.records import Item, Rejection, from_dict, to_dict

if TYPE_CHECKING:
    from qagen.config import FilterConfig

MCQ_OPTIONS = 4
# Question marks of the scripts we expect; Greek uses ";" (checked only for language "el").
QUESTION_MARKS = ("?", "？", "؟", "⸮", "՞", "፧", "꘏")
_CLOSERS = "\"'”’»)]」』 \t\n"
_ABOVE = re.compile(
    r"\b(?:all|none|both|neither) of (?:the )?(?:above|these|those|them|the options)\b"
    r"|\ball (?:the )?above\b|\bboth (?:a|b|c|1|2) and (?:b|c|d|2|3)\b"
    r"|\b(?:alle|geen van de|geen van) (?:bovenstaande|antwoorden|opties)\b"
    r"|\b(?:alle|keine der) (?:obigen|genannten)\b"
    r"|\b(?:toutes|aucune) (?:les réponses|des réponses|de ces réponses)\b",
    re.IGNORECASE,
)


def normalize_text(text: str) -> str:
    """Text for comparing options: NFKC, case-folded, punctuation dropped, spaces collapsed; punctuation inside
    a word stays ("acme_sync" and "acme.sync" are two file names, "Paris." and "paris" one answer)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for i, ch in enumerate(text):
        inside = 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        kept.append(ch if unicodedata.category(ch)[0] not in "PZS" or (inside and not ch.isspace()) else " ")
    return " ".join("".join(kept).split())


def _written(text: str) -> str:
    """An option as written, its spaces and the sentence punctuation at its end left out: options of a notation
    or an operator differ in their symbols or in where they stand ("x := 1" and "x <- 1"; "(+ 3 5)" and
    "(3 + 5)"), "Paris." and "paris" do not. Code keeps its case and where it has a space (runs of spaces count as
    one): LaTeX's ``\\Hat`` and ``\\hat`` are two commands, and ``\\mfpic[ ][2]`` is not ``\\mfpic[][2]`` (a manual
    that says empty brackets must hold no space asks exactly that)."""
    text = unicodedata.normalize("NFKC", text)
    code = is_code_option(text)
    text = text if code else text.casefold()
    text = text.strip().rstrip(".!?;:,…").strip("\"'«»“”„‘’‹›")
    return " ".join(text.split()) if code else "".join(ch for ch in text if not ch.isspace())


def check_schema(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """The record schema, the fields the item's type needs, and known source sections."""
    from pydantic import ValidationError

    try:
        from_dict(Item, to_dict(item))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(str(p) for p in first["loc"]) or "item"
        return Reject("schema: invalid field", f"{where}: {first['msg'][:120]}")
    if item.type == "mcq" and (item.options is None or item.answer_index is None):
        return Reject("schema: mcq needs options and answer_index")
    if item.type == "factoid" and not (item.entity and item.entity_kind):
        return Reject("schema: factoid needs entity and entity_kind")
    if not item.source.section_ids:
        return Reject("schema: no source section")
    unknown = [s for s in item.source.section_ids if s not in ctx.sections]
    if unknown:
        return Reject("schema: unknown source section", unknown[0])
    return None


def check_text(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Empty, too short or overlong question or answer; a question that does not end as one."""
    question, answer = item.question.strip(), item.answer.strip()
    if not question:
        return Reject("empty question")
    if not answer:
        return Reject("empty answer")
    if len(question) < config.min_question_chars:
        return Reject("question too short", float(len(question)))
    if len(question) > config.max_question_chars:
        return Reject("question too long", float(len(question)))
    if len(answer) > config.max_answer_chars:
        return Reject("answer too long", float(len(answer)))
    if not ends_as_question(question, item.language):
        return Reject("not a question: no question mark at the end", question[-20:])
    return None


def ends_as_question(text: str, language: str = "en") -> bool:
    """True when ``text`` ends with a question mark (closing quotes and brackets ignored)."""
    tail = text.rstrip(_CLOSERS)
    marks = (*QUESTION_MARKS, ";") if language == "el" else QUESTION_MARKS
    return tail.endswith(marks)


def check_mcq(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Four distinct non-empty options, the answer (normalised) equal to the option at
    ``answer_index``, no "all of the above"."""
    if item.type != "mcq":
        return None
    options = list(item.options or ())
    if len(options) != MCQ_OPTIONS:
        return Reject("mcq: needs exactly 4 options", float(len(options)))
    normalized = [normalize_text(o) for o in options]
    if any(not n for n in normalized):
        return Reject("mcq: empty option")
    told = [(n, _written(o)) for n, o in zip(normalized, options, strict=True)]  # "S ::= a | aS" is no "S -> a ; aS"
    if len(set(told)) < MCQ_OPTIONS:
        duplicate = next(o for i, o in enumerate(options) if told[i] in told[:i])
        return Reject("mcq: options not distinct", duplicate[:80])
    index = item.answer_index
    if index is None or not 0 <= index < MCQ_OPTIONS:
        return Reject("mcq: answer_index out of range", None if index is None else float(index))
    answer = normalize_text(item.answer)
    if answer != normalized[index]:
        matches = [i for i, n in enumerate(normalized) if n == answer]
        detail = f"answer is option {matches[0]}" if matches else "answer is not an option"
        return Reject("mcq: answer does not match the option at answer_index", detail)
    for option in options:
        if _ABOVE.search(option):
            return Reject("mcq: 'all/none of the above' option", option[:80])
    return None


def check_validity(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """Every validity check in order; the first failure is the verdict."""
    for check in (check_schema, check_text, check_mcq):
        verdict = check(item, ctx, config)
        if verdict is not None:
            return verdict
    return None


@dataclass(frozen=True)
class ValidityFilter:
    """The ``validity`` filter: a repeated id (same type, section and question) is rejected
    after its first occurrence, then :func:`check_validity` judges each item."""

    name: str = "validity"

    def apply(self, items: list[Item], ctx: FilterContext, config: FilterConfig) -> tuple[list[Item], list[Rejection]]:
        seen: set[str] = set()
        unique: list[Item] = []
        repeated: list[Rejection] = []
        for item in items:
            if item.id in seen:
                repeated.append(reject(item, self.name, "repeated id: same type, section and question"))
            else:
                seen.add(item.id)
                unique.append(item)
        kept, rejected = ItemFilter(self.name, check_validity).apply(unique, ctx, config)
        return kept, repeated + rejected


VALIDITY = ValidityFilter()
