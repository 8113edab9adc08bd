"""Per-language data of the offline generator, one folder a language (``lang/<code>/``).

Each folder holds three JSON files:

- ``frames.json``: the question frames (``how_do_i`` with ``{task}``, ``what_is`` with
  ``{term}``, ``what_does_do`` with ``{thing}``, ``in_product`` with ``{product}``, ``thing``
  with ``{article} {noun} {name}``, the MCQ stems) and the language's ``question_mark``;
- ``tasks.json``: the forms a task heading takes (``patterns``: regular expressions with the
  named groups ``verb`` and ``rest``, matched case-insensitively against the heading), a list of
  task ``verbs`` for forms that need one (English imperatives), ``verb_lemmas`` ("lemminflect": verb
  forms reduced to their base by lemminflect), separable ``particles`` (German), ``coordinated_gerunds``
  (gerunds by their ``suffix`` after one of the ``conjunctions``: "cancelling or changing" -> "cancel or
  change") and ``verb_lowercase`` (a final infinitive is written in lower case),
  and ``object_pronouns`` (the reader's "your" said as the asker's "my");
- ``words.json``: ``question_openers``, ``pointers`` (words that point back: "this", "above"),
  ``generic_nouns`` ("filter", "tool": a thing named by the heading above), ``demonstratives``
  (the definite article each one becomes), ``definition_copulas`` and ``definition_articles``
  ("X is a ..."), ``skip_headings``, ``description_headings`` and ``activation_headings``,
  ``plural_endings`` (stripped to compare menu words) and ``fallback`` (true for the language used where a
  text's language is unknown).

Beside them, a folder may hold the tables of the rest of the generator, each a JSON object:

- ``headings.json``: ``boilerplate`` (headings no question is asked about: introduction, licence),
  ``not_a_topic`` and ``not_a_name`` (patterns of headings that are sentence fragments or name nothing),
  ``changelog`` (how a changelog entry's heading opens), ``frame`` (the default question around a heading:
  ``{heading}``, ``{subject}``) and ``noun_headings``;
- ``contacts.json``: the contact factoids (:mod:`qagen.generate.factoids`): ``questions`` (a question per
  entity kind and label mode, ``"phone:role"``, with ``{label}``, ``{topic}``, ``{subject}``: a language
  with them reads what an entity belongs to from its line, verb or place), else ``topic_questions`` (a
  question per entity kind about the section's topic: ``{topic}``) and ``topic_words`` (replacements in the
  topic); the words and patterns of labels, contact and author headings, licences and credits;
- ``subjects.json``: how a question names its subject (:mod:`qagen.generate.subjects`): ``lead``,
  ``opening_mark`` (an inverted question mark that stays in front), ``trailing_subject`` (the prepositions
  of a subject put at the end of a one-sentence question), ``kinds`` (an English "X package" said in the
  language: ``{name}``), ``contractions`` (preposition + article pairs the language joins), articles and
  the words and patterns of titles;
- ``premises.json``: false premises (:mod:`qagen.generate.premises`): ``wording`` (``cloze``,
  ``cloze_answer``, ``told``, ``told_answer``), ``cloze`` (the fill-in-the-blank questions per kind:
  ``{about}``, ``{blanked}``) or ``cloze_patterns``, and the factoid frames a premise is asserted of;
- ``variants.json``: ``verbose`` (a long-winded user's wrappers: ``{question}``) and
  ``search_stop_words`` (words a search query leaves out; ``search_stop_words_only``: instead of
  stopwords-iso's);
- ``text.json``: abbreviations that end no sentence and the other words of :mod:`qagen.generate.text`.

Words and patterns are lists; a pattern the code builds as an alternation of a list's entries is a list
of regular-expression fragments ("e-?mail"). A table the code applies to a text whatever its language (a
heading, a title, a contact line) is read with :func:`every`: every language's entries together, so a
language adds to it by listing its own; its questions are worded with its own data
(:meth:`LanguageData.part`). A language is loaded once (:func:`load`) with all its parts. (The
``forms/<code>.json`` files of earlier versions are parts of these: ``heading`` is ``headings.frame``,
``factoid`` ``contacts.topic_questions``, ``kinds`` and ``contractions`` are in ``subjects``, ``cloze`` and
``premise`` (``wording``) in ``premises``.)

Function words come from stopwords-iso (:func:`qagen.language.function_words`). Adding a
language is adding a folder: nothing in code names a language.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

PARTS = ("frames", "tasks", "words", "headings", "contacts", "subjects", "premises", "variants", "text")


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
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)
    _folded: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def folded(self, name: str) -> frozenset[str]:
        """A word list of ``words.json`` (a list, or a mapping's keys) folded (:func:`fold`), made once."""
        if name not in self._folded:
            self._folded[name] = frozenset(fold(str(w)) for w in self.words.get(name, ()))
        return self._folded[name]

    def part(self, name: str) -> dict[str, Any]:
        """One of the language's tables (``words``, ``contacts``, ``subjects``, ...), {} when it has none."""
        if name in ("frames", "tasks", "words"):
            return getattr(self, name) or {}
        return self.parts.get(name) or {}

    def frame(self, name: str) -> str | None:
        value = self.frames.get(name)
        return str(value) if value else None


_EXTRA_FOLDERS: list[Path] = []


def add_language_folder(folder: str | Path) -> None:
    """Also look for languages in ``folder`` (a folder of ``<code>/`` data folders), before the bundled ones."""
    path = Path(folder)
    if path not in _EXTRA_FOLDERS:
        _EXTRA_FOLDERS.insert(0, path)
    _clear()


def remove_language_folder(folder: str | Path) -> None:
    """Stop looking for languages in ``folder`` (added by :func:`add_language_folder`)."""
    if Path(folder) in _EXTRA_FOLDERS:
        _EXTRA_FOLDERS.remove(Path(folder))
    _clear()


_DEPENDENT: list[Any] = []  # caches of other modules that read language data (see language_cached)


def language_cached(maxsize: int) -> Any:
    """``functools.lru_cache`` for a function that reads language data: cleared with this module's caches
    when a language folder is added or removed, so a toy language's data is read, not a stale table."""

    def wrap(fn: Any) -> Any:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        _DEPENDENT.append(cached)
        return cached

    return wrap


def _clear() -> None:
    for cached in (load, available, every, compiled, patterns, fallback, *_DEPENDENT):
        cached.cache_clear()


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
    others = {part: parts[part] for part in PARTS[3:]}
    return LanguageData(code=code, frames=parts["frames"], tasks=parts["tasks"], words=parts["words"], parts=others)


@functools.lru_cache(maxsize=1)
def available() -> tuple[str, ...]:
    """Codes of every language with a data folder."""
    codes = {p.name for p in resources.files(__name__).iterdir() if (p / "frames.json").is_file()}
    for extra in _EXTRA_FOLDERS:
        if extra.is_dir():
            codes |= {p.name for p in extra.iterdir() if (p / "frames.json").is_file()}
    return tuple(sorted(codes))


def part(language: str, name: str) -> dict[str, Any]:
    """Table ``name`` of ``language`` ({} for a language without a folder or without that table)."""
    data = load(language)
    return data.part(name) if data is not None else {}


@functools.lru_cache(maxsize=512)
def every(name: str, key: str) -> tuple[Any, ...]:
    """Entry ``key`` of table ``name`` of every language (in :func:`available` order): list entries
    together without repeats; a single value (a string) counts as a list of one."""
    out: list[Any] = []
    for code in available():
        value = part(code, name).get(key)
        for entry in [value] if isinstance(value, str) else value or ():
            if entry not in out:
                out.append(entry)
    return tuple(out)


def first(name: str, key: str) -> Any:
    """The single value ``key`` of table ``name``: the first language's that has one (None if none has)."""
    found = every(name, key)
    return found[0] if found else None


@functools.lru_cache(maxsize=512)
def compiled(name: str, key: str, frame: str = "{}", flags: int = 0) -> re.Pattern[str]:
    """:func:`every` entry of ``key`` as one pattern: its fragments as an alternation put in ``frame`` at
    ``{}`` (a pattern that matches nothing when no language lists any)."""
    fragments = every(name, key)
    if not fragments:
        return re.compile(r"(?!)")
    return re.compile(frame.replace("{}", "|".join(fragments)), flags)


@functools.lru_cache(maxsize=512)
def patterns(name: str, key: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    """:func:`every` entry of ``key``, each a whole pattern of its own."""
    return tuple(re.compile(p, flags) for p in every(name, key))


@functools.lru_cache(maxsize=1)
def fallback() -> str:
    """The language used where a text's language is unknown (``"fallback": true`` in its ``words.json``)."""
    return next((c for c in available() if (load(c) or LanguageData(c, {}, {})).words.get("fallback")), "")
