"""Question forms of the offline generator per language, as data: ``forms/<code>.json``.

Each file may hold ``heading`` (a question about a section heading: ``{heading}``,
``{subject}``; ``"noun_headings": false`` keeps it from noun headings, leaving tasks and question
headings), ``kinds`` (an English "X package" / "X class" subject said in the language:
``{name}``), ``cloze`` (a fill-in-the-blank question per term kind: ``{about}``,
``{blanked}``; a list of wordings is taken one per sentence), ``factoid`` (a question per entity
kind: ``{topic}``), ``premise`` (a false premise asked back: ``cloze`` with ``{about}``, ``{wrong}``;
``cloze_answer`` with ``{true}``, ``{false}``, ``{right}``; ``told`` after a factoid question with
``{question}``, ``{false}``; ``told_answer``) and ``contractions``
(preposition + article pairs the language joins: "su il" -> "sul"). English is written in
code (its rules rephrase headings and sentences); any other language gets what its file has.
Adding a language is adding a file.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any


@functools.lru_cache(maxsize=32)
def forms(language: str) -> dict[str, Any]:
    """The question forms of ``language`` (an ISO 639-1 code; a region suffix is ignored), or {}."""
    code = language.split("-")[0].lower()
    path = resources.files(__name__) / f"{code}.json"
    if not code.isalpha() or not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")))


def contract(text: str, language: str) -> str:
    """Preposition + article as the language writes them ("su il pacchetto" -> "sul pacchetto",
    "em o pacote" -> "no pacote"), from the ``contractions`` of its forms file; case of the first
    letter kept."""
    pairs = forms(language).get("contractions") or {}
    for loose, joined in pairs.items():
        pattern = re.compile(r"(?<![\w'’])" + re.escape(loose), re.IGNORECASE)
        text = pattern.sub(lambda m, j=joined: (j[:1].upper() + j[1:]) if m.group(0)[:1].isupper() else j, text)
    return text


def subject_in(subject: str, language: str) -> str:
    """An English subject said in ``language``: "the itnumpar package" -> "il pacchetto itnumpar" (the
    forms file's ``kinds``), any other subject without its English article ("the Debian FAQ" -> "Debian
    FAQ"); quoted titles and names are kept as they are."""
    named = re.fullmatch(r"(?:the\s+)?([\w@.+-]+)\s+(package|class|bundle)", subject.strip(), re.IGNORECASE)
    kinds = forms(language).get("kinds") or {}
    if named and named.group(2).lower() in kinds:
        return str(kinds[named.group(2).lower()]).format(name=named.group(1))
    return re.sub(r"^the\s+", "", subject)


def languages() -> list[str]:
    """Languages with a forms file."""
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".json"))
