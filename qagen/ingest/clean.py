"""Text clean-up shared by every format: ligatures, odd spaces, hyphenation, whitespace."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Soft hyphen: marks a line-end hyphenation until the document's own vocabulary decides it.
HYPHEN_MARK = "\u00ad"

_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_SPACES = dict.fromkeys(
    map(ord, "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t"), " "
)
# Zero-width (non-)joiners stay: they spell Persian and Indic words and join emoji sequences.
_DROP = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff\ufffe"), None)
_TABLE = {**{ord(k): v for k, v in _LIGATURES.items()}, **_SPACES, **_DROP}
# TeX draws some accents as separate glyphs; which neighbour they belong to depends on the accent.
_COMBINING = {"¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c", "˚": "\u030a", "¸": "\u0327", "´": "\u0301"}
_VOWELS = "aeiouyAEIOUYı"  # "ı": TeX puts accents on a dotless i ("T´ıtulo", "cos`ı")
_TAKES = {"¨": _VOWELS, "ˆ": _VOWELS, "´": _VOWELS, "˚": "aAuU", "˜": "nNaAoO", "ˇ": "cCsSzZrRnNeEdDtT", "¸": "cCsStT"}
_ACCENTED = re.compile(r"(\w?)([¨ˆ˜ˇ˚¸´])(\w?)")
# TeX's grave accent comes out as a backtick beside its vowel, before or after it ("pu`o", "piu`"):
# composed in PDF text only, and only on a word's last vowel (Italian, Portuguese, French write
# it there), so code in backticks ("`echo`", "`uname`") stays as it is.
_GRAVE_BEFORE = re.compile(r"`([aeiouAEIOUı])(?![^\W\d_])")
_GRAVE_AFTER = re.compile(r"(?<=[^\W\d_])([aeiouAEIOUı])`(?![^\W\d_])")
_CID = re.compile(r"\(cid:\d+\)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_MULTISPACE = re.compile(r"[ ]{2,}")
_HYPHENATED = re.compile(r"(\w+)" + HYPHEN_MARK + r"(\w+)")
_LINE_END_HYPHEN = re.compile(r"[^\W\d_]-$")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def normalize_chars(text: str, grave: bool = False) -> str:
    """Expand ligatures, turn odd spaces into spaces, drop invisible and control characters.

    TeX's separately drawn accents ("Lu¨ck") are composed onto their letter ("Lück"); with
    ``grave`` (text from a PDF) the grave accent too, which comes out as a backtick ("pu`o" ->
    "può", "piu`" -> "più", "`e" -> "è").
    """
    text = _CID.sub("", text.translate(_TABLE))
    if _ACCENTED.search(text):
        text = unicodedata.normalize("NFC", _ACCENTED.sub(_compose, text))
    if grave and "`" in text:
        text = _GRAVE_BEFORE.sub(lambda m: _dotted(m.group(1)) + "\u0300", text)
        text = unicodedata.normalize("NFC", _GRAVE_AFTER.sub(_grave_after, text))
    if "\u27e9" in text:  # "⟨index ⟩": the gap italic text leaves before a TeX angle bracket
        text = _BEFORE_CLOSING.sub("\u27e9", text)
    return _CONTROL.sub("", text)


_BEFORE_CLOSING = re.compile(r"(?<=\w) +\u27e9")


def _grave_after(match: re.Match[str]) -> str:
    """Compose "piu`" into "più", unless the backtick closes a code span ("Run `apt update` first")."""
    before = match.string[: match.start()]
    opening = before.rfind("`")
    if opening >= 0 and (opening == 0 or not before[opening - 1].isalpha()) and "\n" not in before[opening:]:
        return match.group(0)
    return _dotted(match.group(1)) + "\u0300"


def _compose(match: re.Match[str]) -> str:
    before, accent, after = match.groups()
    if after and after in _TAKES[accent]:
        return before + _dotted(after) + _COMBINING[accent]
    if before and before in _TAKES[accent]:
        return _dotted(before) + _COMBINING[accent] + after
    return match.group(0)


def _dotted(letter: str) -> str:
    """The letter an accent goes on: TeX's dotless i ("ı") takes the accent as "i" ("í", "ì")."""
    return "i" if letter == "ı" else letter


def collapse_spaces(text: str) -> str:
    """Collapse runs of spaces inside a line and strip the ends."""
    return _MULTISPACE.sub(" ", text).strip()


def join_lines(lines: Iterable[str]) -> str:
    """Join the lines of one paragraph; a line-end hyphen before a lowercase letter is marked.

    The mark is resolved later by :func:`resolve_hyphens`, once the whole document is known.
    """
    parts: list[str] = []  # joined once at the end: a long paragraph is not copied per line
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not parts:
            parts.append(line)
        elif _LINE_END_HYPHEN.search(parts[-1][-2:]) and line[0].islower():
            parts[-1] = parts[-1][:-1] + HYPHEN_MARK
            parts.append(line)
        else:
            parts.append(" " + line)
    return "".join(parts)


def resolve_hyphens(texts: list[str]) -> list[str]:
    """Decide each marked line-end hyphen from the document's vocabulary.

    ``exam-`` + ``ple`` becomes ``example``; ``well-`` + ``known`` stays ``well-known`` when
    the document spells it with a hyphen elsewhere and never without.
    """
    if not any(HYPHEN_MARK in t for t in texts):
        return texts
    words: set[str] = set()
    for t in texts:
        found = _WORD.findall(t.replace(HYPHEN_MARK, " ").lower())
        words.update(found)
        for w in found:
            if "-" in w:
                words.update(w.split("-"))

    def fix(match: re.Match[str]) -> str:
        a, b = match.group(1), match.group(2)
        hyphenated = f"{a}-{b}".lower()
        if hyphenated in words and (a + b).lower() not in words:
            return f"{a}-{b}"
        return a + b

    return [_HYPHENATED.sub(fix, t).replace(HYPHEN_MARK, "-") for t in texts]
