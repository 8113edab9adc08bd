"""Question forms of the offline generator per language, as data: ``forms/<code>.json``.

Each file may hold ``heading`` (a question about a section heading: ``{heading}``,
``{subject}``), ``cloze`` (a fill-in-the-blank question per term kind: ``{about}``,
``{blanked}``) and ``factoid`` (a question per entity kind: ``{topic}``). English is written in
code (its rules rephrase headings and sentences); any other language gets what its file has.
Adding a language is adding a file.
"""

from __future__ import annotations

import functools
import json
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


def languages() -> list[str]:
    """Languages with a forms file."""
    return sorted(p.name[:-5] for p in resources.files(__name__).iterdir() if p.name.endswith(".json"))
