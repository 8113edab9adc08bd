"""Wrong language: an item not written in the language of its source document.

A model asked to "write in German" may answer in English, and nothing else in the filters
notices: grounding compares words, and an English answer to a German section shares names and
numbers with it. ``wrong_language`` identifies the language of the question, the answer and the
rationale (py3langid, offline) and rejects the item when one of them is confidently another
language than the item's (its document's, set by the generator).

What is identified is the prose: quoted spans (a cloze sentence, a heading in quotes), code
tokens (``\\command``, ``{...}``), web and e-mail addresses and numbers are left out first, and a
text with fewer than :data:`MIN_WORDS` words left is not judged. Languages py3langid confuses
on short texts (Dutch and Afrikaans, Danish and Norwegian, Spanish, Catalan and Galician, ...)
count as the same.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.language import QUESTION_LANGUAGES, function_words
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig

MIN_WORDS = 4
CONFIDENCE = 0.9  # normalised probability above which another language is taken as certain
# Languages a short text cannot tell apart reliably: each maps to a group name.
_GROUPS = {
    "nl": "nl", "af": "nl", "fy": "nl", "li": "nl",
    "da": "no", "no": "no", "nb": "no", "nn": "no", "sv": "sv",
    "es": "es", "ca": "es", "gl": "es", "an": "es", "ast": "es", "oc": "es",
    "pt": "pt",
    "it": "it", "vec": "it", "lij": "it", "la": "it", "co": "it", "sc": "it",
    "de": "de", "lb": "de", "als": "de",
    "fr": "fr", "wa": "fr",
    "hr": "sh", "sr": "sh", "bs": "sh",
    "ms": "ms", "id": "ms",
}  # fmt: skip
# Galician sits between Spanish and Portuguese: it never makes a Portuguese item "wrong" either.
_ALSO = {("pt", "gl")}
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|‘[^’]*’|'[^']{3,}'")
_NOISE = re.compile(
    r"\\[A-Za-z@]+|[{}\[\]<>|_^$#%&~=]+|https?://\S+|www\.\S+|\S+@\S+|\S*\d\S*|\b[A-Z]{2,}\b",
)
_WORD = re.compile(r"[^\W\d_]{2,}")


def prose(text: str) -> str:
    """The natural-language part of ``text``: without quotes, code, addresses, numbers and acronyms."""
    return " ".join(_WORD.findall(_NOISE.sub(" ", _QUOTED.sub(" ", text))))


def other_language(text: str, expected: str) -> str | None:
    """The language ``text`` is confidently written in when that is not ``expected``; else None."""
    from qagen.language import identify

    words = prose(text)
    found = identify(words) if len(words.split()) >= MIN_WORDS else None
    if found is None or found[1] < CONFIDENCE:
        return None
    code, want = found[0], expected.split("-")[0].lower()
    if _GROUPS.get(code, code) == _GROUPS.get(want, want) or (want, code) in _ALSO:
        return None
    return str(code)


FRAME_WORDS = 3  # the opening words of a question whose function words tell its language


def opens_in(text: str, expected: str) -> str | None:
    """The language a question's opening is written in when that is not ``expected`` (it has none of
    its function words), else None.

    "What should I know about uso de spanish para babel?" is half Spanish by its words, so the
    identifier is not confident, but a reader sees an English question: its first words ("what",
    "should", "I") are English function words and not Spanish ones. Two of the first three
    words of the prose must be another language's function words and none the expected one's.
    """
    want = expected.split("-")[0].lower()
    if want not in QUESTION_LANGUAGES:
        return None
    opening = [unicodedata.normalize("NFKC", w).casefold() for w in prose(text).split()[:FRAME_WORDS]]
    if len(opening) < FRAME_WORDS or any(w in function_words((want,)) for w in opening):
        return None
    for code in QUESTION_LANGUAGES:
        if code != want and sum(w in function_words((code,)) for w in opening) >= 2:
            return code
    return None


def check_language(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    if not item.language or item.language in ("und", "zxx"):
        return None
    fields = [("question", item.question)]
    if item.generator.backend != "extractive" and not _quotes_its_source(item, ctx):
        # offline answers are quotes of the section, and so is a rationale quoted from a section written partly
        # in another language (a German help page that keeps an English paragraph): only the item's own words count
        fields.append(("rationale", item.rationale or ""))
        if item.type != "mcq":  # an option may be a name or a value in any language
            fields.insert(1, ("answer", item.answer))
    for name, text in fields:
        found = other_language(text, item.language)
        if found:
            return Reject("wrong_language", f"{name}: {found}, not {item.language}")
        opening = opens_in(text, item.language) if name == "question" else None
        if opening:  # a mixed question the identifier is unsure of
            return Reject("wrong_language", f"question: opens in {opening}, not {item.language}")
    return None


def _quotes_its_source(item: Item, ctx: FilterContext) -> bool:
    from qagen.filters.grounding import QUOTE_MIN_RATIO, quoted

    if ctx is None or not item.rationale:
        return False
    text = "\n".join(ctx.sections[s].text for s in item.source.section_ids if s in ctx.sections)
    return bool(item.rationale and text) and quoted(item.rationale, text) >= QUOTE_MIN_RATIO


WRONG_LANGUAGE = ItemFilter("language", check_language)
