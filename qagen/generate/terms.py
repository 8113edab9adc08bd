"""Salient terms for cloze questions (amounts, times, durations, quantities) and their distractors.

A term is a span a reader could be asked to recall: "€2.50", "24 hours", "8:30",
"15 bar". Distractors are terms of the same kind from other sections (same topic first),
and only when those run out, the same term with its number changed ("48 hours").
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
}
_NUM = r"(?:\d+(?:[.,]\d+)?|" + "|".join(_NUMBER_WORDS) + r")"
_UNIT_TIME = r"(?:seconds?|minutes?|hours?|(?:working |calendar )?days?|weeks?|months?|years?)"
_UNITS = r"(?:ml|litres?|liters?|kg|g|cm|mm|km|metres?|meters?|V|W|Hz|GHz|MHz|bar|°C|characters|devices|cups|km/h)"

KINDS: dict[str, re.Pattern[str]] = {
    "money": re.compile(r"(?<![\w.])(?:[€$£]\s?\d[\d.,]*\d|[€$£]\s?\d|\d[\d.,]*\s?(?:euros?|EUR|USD|dollars))(?![\w])"),
    "percent": re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?%"),
    # not a pair inside a MAC address or a longer colon-separated run ("52:54:00:12:34:10")
    "time": re.compile(r"(?<![\w.:])(?:\d{1,2}:\d{2}(?![:\w])(?:\s?(?:a\.m\.|p\.m\.))?|\d{1,2}\s?(?:a\.m\.|p\.m\.))"),
    "duration": re.compile(rf"(?<![\w.])(?:{_NUM}\s(?:to|or|and)\s)?{_NUM}(?:\s|-){_UNIT_TIME}(?![\w])", re.IGNORECASE),
    "quantity": re.compile(rf"(?<![\w.])\d+(?:[.,]\d+)?\s?{_UNITS}(?![\w/])"),
    # a TeX-style command named in a sentence ("The \columnbreak command forces ...")
    # (internal macros with @ are left out: a reader never types them, and they give themselves away)
    "command": re.compile(r"(?<![\w\\@])\\[A-Za-z]{3,}\*?(?![\w@])"),
}
MAX_POOL = 400  # distractor candidates considered per pool

KIND_WORDS = {
    "money": "amount",
    "percent": "percentage",
    "time": "time",
    "duration": "period",
    "quantity": "value",
    "command": "command",
}


@dataclass(frozen=True)
class Term:
    """A salient span of a section: its kind, text and position in the text it came from."""

    kind: str
    text: str
    start: int
    end: int


# Commands every TeX document uses: a gap for one tests nothing about the package at hand.
GENERIC_COMMANDS = frozenset(
    f"\\{name}"
    for name in [
        "begin",
        "end",
        "usepackage",
        "documentclass",
        "item",
        "label",
        "ref",
        "input",
        "include",
        "newcommand",
        "renewcommand",
        "providecommand",
        "section",
        "subsection",
        "chapter",
        "par",
        "the",
        "def",
        "let",
        "relax",
        "makeatletter",
        "makeatother",
        "RequirePackage",
        "ProvidesPackage",
        "NeedsTeXFormat",
        "textbf",
        "emph",
        "textit",
        "ldots",
        "dots",
        "cite",
        "footnote",
        "caption",
        "hline",
        "noindent",
    ]
)
# Greek letters: a formula's symbols, not a package's commands
GENERIC_COMMANDS |= frozenset(
    f"\\{name}"
    for name in re.findall(
        r"\w+",
        "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi "
        "rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
        "Upsilon Phi Psi Omega",
    )
)


def find_terms(text: str) -> list[Term]:
    """Non-overlapping salient terms in ``text``, in order; earlier kinds in :data:`KINDS` win."""
    found: list[Term] = []
    for kind, pattern in KINDS.items():
        for m in pattern.finditer(text):
            if kind == "command" and m.group(0).rstrip("*") in GENERIC_COMMANDS:
                continue
            if not any(m.start() < t.end and t.start < m.end() for t in found):
                found.append(Term(kind, m.group(0).strip(), m.start(), m.end()))
    return sorted(found, key=lambda t: t.start)


_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")


@functools.lru_cache(maxsize=65536)
def term_key(text: str) -> str:
    """A comparison key: case and spacing ignored, number words as digits."""
    key = _NUMBER_WORD_RE.sub(lambda m: str(_NUMBER_WORDS[m.group(1)]), text.lower())
    return re.sub(r"[\s-]+", "", key)


def _unit(term: str) -> str:
    m = re.search(r"(?:(?:working|calendar) )?[a-z°%€$£]+\.?$", term.lower())
    return (m.group(0) if m else "").rstrip("s.")


def _supported(option: str, context_tokens: list[str]) -> bool:
    """Every token of ``option`` occurs in ``context`` in order (ROUGE-L recall 1): it may be right."""
    it = iter(context_tokens)
    return all(tok in it for tok in re.findall(r"\w+", option.lower()))


def perturb(term: Term, rng: random.Random) -> list[str]:
    """Variants of a numeric term with a different number: "24 hours" -> "48 hours", "12 hours".

    Only for the kinds in :data:`KINDS`; entities (phone numbers, addresses) are never made up.
    """
    if term.kind not in KINDS:
        return []
    if term.kind == "time":
        return _perturb_time(term.text, rng)
    number = re.compile(r"\d+(?:[.,]\d+)?|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
    if not number.search(term.text):
        return []

    def scaled(factor: float) -> str:
        def one(m: re.Match[str]) -> str:
            raw = m.group(0)
            if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw):  # thousands separators: "1,000"
                return f"{round(int(raw.replace(',', '')) * factor):,}"
            words = raw.lower() in _NUMBER_WORDS
            value = float(_NUMBER_WORDS[raw.lower()]) if words else float(raw.replace(",", "."))
            return _format_number(value * factor, raw, words)

        return number.sub(one, term.text)  # every number: "24 or 48 hours" -> "48 or 96 hours"

    out = [_agree(scaled(f)) for f in (2, 0.5, 3, 1.5, 4, 0.25)]
    return [o for o in dict.fromkeys(out) if term_key(o) != term_key(term.text) and not re.search(r"\b0(?:\.0+)?\b", o)]


_TIME_UNIT = r"(second|minute|hour|day|week|month|year)"


def _agree(text: str) -> str:
    """Number agreement after a change: "one weeks" -> "one week", "2 week" -> "2 weeks"."""
    text = re.sub(rf"\b(1|one) {_TIME_UNIT}s\b", r"\1 \2", text, flags=re.IGNORECASE)
    return re.sub(rf"\b((?!1\b|one\b)(?:[\d.,]+|[a-z]+)) {_TIME_UNIT}\b(?!s)", r"\1 \2s", text)


def _format_number(value: float, original: str, words: bool) -> str:
    if words and value.is_integer():
        back = {v: k for k, v in _NUMBER_WORDS.items()}
        if int(value) in back:
            return back[int(value)]
    decimals = len(re.split(r"[.,]", original)[1]) if re.search(r"[.,]\d+$", original) else 0
    sep = "," if "," in original and decimals else "."
    text = f"{value:.{decimals}f}" if decimals else str(round(value))
    return text.replace(".", sep)


def _perturb_time(text: str, rng: random.Random) -> list[str]:
    m = re.match(r"(\d{1,2}):(\d{2})(.*)$", text)
    if not m:
        return []
    hour, minute, rest = int(m.group(1)), m.group(2), m.group(3)
    shifts = [-2, -1, 1, 2, -3, 3]
    rng.shuffle(shifts)
    return [f"{(hour + s) % 24}:{minute}{rest}" for s in shifts if 0 <= hour + s < 24]


def signature(kind: str, text: str) -> str:
    """The shape of a term, so that distractors look alike: unit, range or not, currency, country code."""
    low = text.lower()
    if kind == "phone":
        m = re.match(r"\+\d{1,3}", low)
        return m.group(0) if m else "national"
    if kind == "email":
        return low.rsplit("@", 1)[-1]
    if kind == "url":
        return re.sub(r"^(?:https?://)?(?:www\.)?", "", low).split("/", 1)[0]
    if kind == "money":
        return re.sub(r"[\d.,\s]", "", low)
    if kind == "command":
        return "star" if text.endswith("*") else "command"
    ranged = bool(re.search(r"\s(?:to|or|and)\s", low))
    return f"{_unit(text)}|{ranged}|{'-' in low}"


def pick_distractors(
    term: Term,
    pools: Iterable[Iterable[str]],
    exclude: set[str],
    rng: random.Random,
    n: int = 3,
    context: str = "",
    region: str | None = None,
) -> tuple[list[str], str]:
    """``n`` distractors for ``term``, most alike first.

    Candidates come in tiers: terms of the same shape (:func:`signature`) from each pool in
    order (the same topic, then the corpus), then the term with its number changed, then
    terms of another shape. Terms in ``exclude`` or whose words occur in order in
    ``context`` (the source text: such a distractor could be right) are never chosen. Returns the
    distractors and the lowest tier used ("same0", "same1", "perturbed", "other0",
    "other1"); fewer than ``n`` when nothing more exists.

    For an entity (phone number, e-mail address, URL) only whole, valid entities of the same
    kind are chosen, never a part or an extension of the answer or of another option, nor
    one equal to them after normalisation (:func:`qagen.generate.entities.usable_distractor`;
    ``region`` is the region of phone numbers written without country code). Entities are
    never made up.
    """
    from qagen.generate.entities import ENTITY_KINDS, entity_key, usable_distractor

    entity = term.kind in ENTITY_KINDS
    pools = [sorted(set(pool)) for pool in pools]
    pools = [rng.sample(pool, MAX_POOL) if len(pool) > MAX_POOL else pool for pool in pools]
    shape = signature(term.kind, term.text)
    tiers: list[tuple[str, list[str]]] = []
    for i, pool in enumerate(pools):
        tiers.append((f"same{i}", [p for p in pool if signature(term.kind, p) == shape]))
    tiers.append(("perturbed", perturb(term, rng)))
    for i, pool in enumerate(pools):
        tiers.append((f"other{i}", [p for p in pool if signature(term.kind, p) != shape]))
    chosen: list[str] = []
    seen = {term_key(term.text)} | {term_key(x) for x in exclude}
    if entity:
        seen |= {key for x in [term.text, *exclude] if (key := entity_key(term.kind, x, region))}
    origin = ""
    tokens = re.findall(r"\w+", context.lower())

    def fits(option: str) -> bool:
        if not entity:
            return True
        return all(usable_distractor(other, option, term.kind, region) for other in [term.text, *chosen])

    for name, options in tiers:
        options = [o for o in options if term_key(o) not in seen and not _supported(o, tokens)]
        if name != "perturbed":
            rng.shuffle(options)
        for option in options:
            if len(chosen) == n:
                return chosen, origin
            key = entity_key(term.kind, option, region) if entity else None
            if term_key(option) in seen or key in seen or not fits(option):
                continue
            chosen.append(option)
            seen.add(term_key(option))
            if key:
                seen.add(key)
            origin = name
    return chosen, origin
