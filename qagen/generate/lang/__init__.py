"""Per-language data of the offline generator, one folder a language (``lang/<code>/``).

Each folder holds three JSON files:

- ``frames.json``: the question frames (``how_do_i`` with ``{task}``, ``what_is`` with
  ``{term}``, ``what_does_do`` with ``{thing}``, ``in_product`` with ``{product}``, ``thing``
  with ``{article} {noun} {name}``, the MCQ stems) and the language's ``question_mark``;
- ``tasks.json``: the forms a task heading takes (``patterns``: regular expressions with the
  named groups ``verb`` and ``rest``, matched case-insensitively against the heading), a list of
  task ``verbs`` for forms that need one (English imperatives), ``verb_lemmas`` ("lemminflect": verb
  forms reduced to their base by lemminflect), separable ``particles`` (German), ``coordinated_gerunds``
  and ``verb_lowercase`` (a final infinitive is written in lower case),
  and ``object_pronouns`` (the reader's "your" said as the asker's "my");
- ``words.json``: ``question_openers``, ``pointers`` (words that point back: "this", "above"),
  ``generic_nouns`` ("filter", "tool": a thing named by the heading above), ``demonstratives``
  (the definite article each one becomes), ``definition_copulas`` and ``definition_articles``
  ("X is a ..."), ``skip_headings``, ``description_headings`` and ``activation_headings``.

Function words come from stopwords-iso (:func:`qagen.language.function_words`). Adding a
language is adding a folder: nothing in code names a language.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

PARTS = ("frames", "tasks", "words")


def fold(text: str) -> str:
    """Lower case without accents, for comparing words."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class LanguageData:
    """One language's frames, task forms and word lists."""

    code: str
    frames: dict[str, str]
    tasks: dict[str, Any]
    words: dict[str, Any] = field(default_factory=dict)
    _folded: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def folded(self, name: str) -> frozenset[str]:
        """A word list of ``words.json`` (a list, or a mapping's keys) folded (:func:`fold`), made once."""
        if name not in self._folded:
            self._folded[name] = frozenset(fold(str(w)) for w in self.words.get(name, ()))
        return self._folded[name]

    def frame(self, name: str) -> str | None:
        value = self.frames.get(name)
        return str(value) if value else None


_EXTRA_FOLDERS: list[Path] = []


def add_language_folder(folder: str | Path) -> None:
    """Also look for languages in ``folder`` (a folder of ``<code>/`` data folders), before the bundled ones."""
    path = Path(folder)
    if path not in _EXTRA_FOLDERS:
        _EXTRA_FOLDERS.insert(0, path)
    load.cache_clear()
    available.cache_clear()


def _folder(code: str) -> Any | None:
    for extra in _EXTRA_FOLDERS:
        if (extra / code / "frames.json").is_file():
            return extra / code
    bundled = resources.files(__name__) / code
    return bundled if (bundled / "frames.json").is_file() else None


@functools.lru_cache(maxsize=64)
def load(language: str) -> LanguageData | None:
    """The data of ``language`` (an ISO 639-1 code; a region suffix is ignored), or None."""
    code = language.split("-")[0].lower()
    if not code.isalpha():
        return None
    folder = _folder(code)
    if folder is None:
        return None
    parts: dict[str, Any] = {}
    for part in PARTS:
        path = folder / f"{part}.json"
        parts[part] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return LanguageData(code=code, frames=parts["frames"], tasks=parts["tasks"], words=parts["words"])


@functools.lru_cache(maxsize=1)
def available() -> tuple[str, ...]:
    """Codes of every language with a data folder."""
    codes = {p.name for p in resources.files(__name__).iterdir() if (p / "frames.json").is_file()}
    for extra in _EXTRA_FOLDERS:
        if extra.is_dir():
            codes |= {p.name for p in extra.iterdir() if (p / "frames.json").is_file()}
    return tuple(sorted(codes))
