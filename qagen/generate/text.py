"""Small text helpers for the extractive generator: lines, sentences, bullets, word counts."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from qagen.generate.lang import compiled, every


def word_set(words: str) -> frozenset[str]:
    """A word list written as one string ("the a an") as a set."""
    return frozenset(words.split())


_BULLET = re.compile(r"^\s*(?:[-•*▪◦‣–·]|\d{1,2}[.)])\s+")


def _abbreviation() -> re.Pattern[str]:
    """A text ending in an abbreviation that ends no sentence (every language's ``abbreviations`` in its
    text.json: "e.g.", "approx.") or an initial ("based on M. Covington's macros")."""
    return compiled("text", "abbreviations", r"\b(?:{})\.$|(?<![\w.])(?-i:[A-Z])\.$", re.IGNORECASE)


# A sentence may start with a command name: "\kMassElectron is the mass of an electron."
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9€$£]|\\[A-Za-z])")
_WORD = re.compile(r"\w+(?:[-'’.]\w+)*", re.UNICODE)


@dataclass(frozen=True)
class Unit:
    """A sentence or a bullet item of a section body, with its position."""

    text: str
    bullet: bool
    index: int


def last_heading(heading: str) -> str:
    """The own heading of a section whose heading is a breadcrumb ("Manual › Descaling" -> "Descaling")."""
    return re.split(r"\s+[›»>]\s+", heading.strip())[-1].strip()


# (a capitalised label of up to four words: "E-mail:", "Website:", "Appointments desk:")
_FIELD_LABEL = re.compile(r"(?:^|(?<=[\w)])\s+(?:[-–•·]\s+)?)((?:[A-Z][\w'’-]*(?: [A-Za-z][\w'’-]*){0,3}):\s)")


def fields(line: str) -> list[str]:
    """A line of several "Label: value" fields (a contact list joined into one line), split apart."""
    starts = sorted({0, *(m.start(1) for m in _FIELD_LABEL.finditer(line))})
    parts = [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    return [p.strip().rstrip("-–•· ").strip() for p in parts if p.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def n_words(text: str) -> int:
    return len(words(text))


def clean_line(line: str) -> str:
    """A line without its bullet marker and surrounding whitespace."""
    return _BULLET.sub("", line).strip()


def is_bullet(line: str) -> bool:
    return bool(_BULLET.match(line))


def join_wrapped(text: str) -> list[str]:
    """Logical lines: PDF line wraps inside a paragraph or bullet are joined again."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            out.append("")
            continue
        prev = out[-1] if out else ""
        continues = (
            prev
            and not is_bullet(line)
            and not re.search(r"[.!?:;]$", prev)
            and (line[0].islower() or re.match(r"^[\d(€$£]", line) is not None)
        )
        if continues:
            out[-1] = f"{prev} {line}"
        else:
            out.append(line)
    return [ln for ln in out if ln]


def split_sentences(paragraph: str) -> list[str]:
    """Sentences of one paragraph; common abbreviations do not end a sentence."""
    parts: list[str] = []
    buf = ""
    for piece in _SENTENCE_END.split(paragraph.strip()):
        buf = f"{buf} {piece}".strip() if buf else piece.strip()
        if not _abbreviation().search(buf):
            parts.append(buf)
            buf = ""
    if buf:
        parts.append(buf)
    return [p for p in parts if p]


def units(text: str) -> list[Unit]:
    """The body as sentences and bullet items, in reading order."""
    out: list[Unit] = []
    for line in join_wrapped(text):
        if is_bullet(line):
            out.append(Unit(clean_line(line), True, len(out)))
        else:
            out += [Unit(s, False, len(out) + i) for i, s in enumerate(split_sentences(line))]
    return out


def whole_body(body: list[Unit]) -> str:
    """A section body as an answer: every unit, less a leading fragment that continues text before it.

    A section that starts in the middle of a sentence ("preceding paragraph. The left margin ...",
    a page break or a misplaced heading) loses the fragment.
    """
    start = 0
    # ... or a flattened table's tail ("| horizontal \\ | whiteunder ...")
    while start < len(body) and not body[start].bullet and re.match(r"[a-z,;.)\]|]", body[start].text):
        start += 1
    return render_units(body[start:])


def render_units(chosen: list[Unit]) -> str:
    """Units back to text: sentences run on, bullets on their own lines."""
    out = ""
    prev: Unit | None = None
    for unit in chosen:
        if unit.bullet:
            out += f"\n- {unit.text}"
        elif prev is not None and (prev.bullet or prev.text.endswith(":")):
            out += f"\n{unit.text}"
        else:
            out += f" {unit.text}"
        prev = unit
    return out.strip()


def shorten(text: str, max_chars: int) -> str:
    """Cut at a word boundary, marking the cut with an ellipsis."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


@functools.lru_cache(maxsize=16384)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's lemmas of an English word by part of speech ({} for a word it does not know)."""
    import lemminflect

    return dict(lemminflect.getAllLemmas(word))


def subjectless(sentence: str) -> bool:
    """An English sentence that opens with a verb in the third person and has no subject.

    A description list's entry read as a sentence ("Redefines ____ and related commands.",
    "Defaults to ____.", "Lists the options."): what redefines, the asker never saw. A plural
    noun opening a sentence is followed by its verb ("Lists are printed.") and is kept.
    """
    words = re.findall(r"[A-Za-z]+", sentence[:60])
    if len(words) < 2 or not words[0][:1].isupper() or not words[0].endswith("s"):
        return False
    first = words[0].lower()
    verbs = lemmas(first).get("VERB", ())
    # after_plural_subject: auxiliaries and verbs that follow a plural noun opening a sentence ("Lists are
    # ...", "Results show ..."), and words of a noun phrase going on ("Results of a Holter recording ...")
    return bool(verbs) and first not in verbs and words[1].lower() not in every("text", "after_plural_subject")
