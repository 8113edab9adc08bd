"""What generation needs to know about the corpus, in one frozen value.

:class:`GenerationContext` holds the sections, where each section sits (emulated pages,
PDF pages), its topic, the fold and split of every kept section, the sampled section ids
in order, the seed, the ``[generate]`` config and the generation languages (one per document,
and the corpus majority). Build it with :meth:`GenerationContext.build` from the records the
earlier stages wrote.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from qagen.config import GenerateConfig
from qagen.generate.lang import every, fallback, part
from qagen.generate.subjects import clean_title, document_subject, is_byline
from qagen.generate.text import last_heading
from qagen.io import sha256_text
from qagen.language import QUESTION_LANGUAGES, function_words, identify
from qagen.records import Document, FoldAssignment, Page, Section, Source, Split

TITLE_OVERLAP = 0.6  # share of their words a heading and the title have in common (Jaccard) to be one


@dataclass(frozen=True)
class SectionPlace:
    """Where a section is: the emulated pages holding it and its PDF page numbers (1-based)."""

    page_ids: tuple[str, ...] = ()
    pdf_pages: tuple[int, ...] = ()


SECTION_LANGUAGE_CHARS = 200  # letters a section needs before its own language counts
SECTION_LANGUAGE_CONFIDENCE = 0.95


def own_language(
    text: str,
    document: str,
    corpus: frozenset[str],
    min_letters: int = SECTION_LANGUAGE_CHARS,
    confidence: float = SECTION_LANGUAGE_CONFIDENCE,
    max_chars: int = 4000,
) -> str:
    """``text``'s language when it has ``min_letters`` letters, is sure (``confidence``) and is one of the
    corpus's, else ``document``."""
    from qagen.language import identify

    head = text[:max_chars]
    if sum(c.isalpha() for c in head) < min_letters:
        return document
    found = identify(head)
    if found is None or found[0] == document or found[0] not in corpus or found[1] < confidence:
        return document
    return found[0]


@dataclass(frozen=True)
class GenerationContext:
    """Everything the generators read, keyed by section id.

    Attributes:
        sections: Every section by id (not only the sampled ones: distractors and S3
            partners come from the whole corpus).
        pages: Emulated page ids and PDF pages per section id.
        topics: Topic id per section id (-1 for outliers).
        folds: ``(fold, split)`` for every kept section id.
        sampled: The sampled section ids, in sampling order: the anchors of generation.
        seed: The root seed.
        config: The ``[generate]`` config section.
        language: ISO 639 code of the corpus language: the forced ``generate.language``, or
            the majority of the detected document languages (for anything corpus-wide).
        doc_titles: A human title per document id (used to phrase questions).
        title_headings: The recorded title a package name replaced in ``doc_titles``, per document id
            ("My humble additions to (La)TEX mathematics" for "The yhmath package"): a heading that
            repeats it is the title page's, not a topic.
        doc_languages: ISO 639 code per document id, detected when ``generate.language`` is
            "auto"; empty when a language is forced. Read it through :meth:`language_of`.
    """

    sections: Mapping[str, Section]
    pages: Mapping[str, SectionPlace]
    topics: Mapping[str, int]
    folds: Mapping[str, tuple[int, Split]]
    sampled: tuple[str, ...]
    seed: int
    config: GenerateConfig
    language: str = "en"
    doc_titles: Mapping[str, str] = field(default_factory=dict)
    doc_languages: Mapping[str, str] = field(default_factory=dict)
    title_headings: Mapping[str, str] = field(default_factory=dict)
    detect_sections: bool = False  # languages were detected: a section may be in another than its document's

    def __post_init__(self) -> None:
        missing = [s for s in self.sampled if s not in self.sections or s not in self.folds]
        if missing:
            raise ValueError(f"sampled sections must have a section record and a fold; missing for {missing[:3]}")

    @classmethod
    def build(
        cls,
        sections: Iterable[Section],
        pages: Iterable[Page],
        assignments: Iterable[FoldAssignment],
        *,
        seed: int,
        config: GenerateConfig,
        documents: Iterable[Document] = (),
        language: str | None = None,
    ) -> GenerationContext:
        """Assemble the context from the records of the parse, pages and folds stages.

        Args:
            sections: All parsed sections.
            pages: All emulated pages.
            assignments: Fold assignments; ``status == "kept"`` ones give folds, ``sampled``
                ones (in the given order) are the anchors.
            seed: Root seed.
            config: The ``[generate]`` config section.
            documents: Document records, for titles (optional).
            language: Force a language code; default ``config.language`` ("auto" detects the
                language of each document from its first few thousand characters).
        """
        from qagen.language import resolve_languages

        by_id = {s.id: s for s in sections}
        page_of: dict[str, list[str]] = {}
        for page in pages:
            for sid in page.section_ids:
                page_of.setdefault(sid, []).append(page.id)
        place_of = {
            sid: SectionPlace(tuple(page_of.get(sid, ())), tuple(range(s.page_start, s.page_end + 1)))
            for sid, s in by_id.items()
        }
        topics: dict[str, int] = {}
        folds: dict[str, tuple[int, Split]] = {}
        sampled: list[str] = []
        for a in assignments:
            topics[a.section_id] = a.topic_id
            if a.status == "kept" and a.fold is not None and a.split is not None:
                folds[a.section_id] = (a.fold, a.split)
                if a.sampled:
                    sampled.append(a.section_id)
        asked = language or config.language
        doc_languages, lang = resolve_languages(asked, by_id.values())
        replaced: dict[str, str] = {}
        return cls(
            sections=by_id,
            pages=place_of,
            topics=topics,
            folds=folds,
            sampled=tuple(sampled),
            seed=seed,
            config=config,
            language=lang,
            doc_titles=document_titles(by_id.values(), documents, replaced),
            doc_languages=doc_languages,
            title_headings=replaced,
            detect_sections=asked == "auto",
        )

    def topic(self, section_id: str) -> int:
        return self.topics.get(section_id, -1)

    def title(self, doc_id: str) -> str:
        return self.doc_titles.get(doc_id, "")

    @functools.cached_property
    def subject(self) -> str | None:
        """The product or organisation questions name: ``generate.subject``, else the name most documents
        share (their titles and text: "GIMP" over its help pages), else None."""
        if self.config.subject:
            return self.config.subject
        from qagen.generate.offline.reading import corpus_subject

        return corpus_subject(self.sections.values(), dict(self.doc_titles))

    def subject_of(self, doc_id: str) -> str | None:
        """The subject a document's questions name: ``generate.subject``; else the corpus's subject when the
        document itself names it (its title or text), so that a manual of another product in the folder is not
        asked about the others' product; else None."""
        if self.config.subject:
            return self.config.subject
        subject = self.subject
        if not subject:
            return None
        return subject if doc_id in self._naming_subject else None

    @functools.cached_property
    def _naming_subject(self) -> frozenset[str]:
        """The documents whose title or text names the corpus's subject (as a word, any case)."""
        subject = self.subject or ""
        pattern = re.compile(rf"(?<!\w){re.escape(subject)}(?!\w)", re.IGNORECASE)
        texts: dict[str, list[str]] = {}
        for section in self.sections.values():
            texts.setdefault(section.doc_id, []).append(f"{section.heading} {section.text}")
        return frozenset(
            d for d, parts in texts.items() if pattern.search(self.title(d)) or pattern.search(" ".join(parts))
        )

    @functools.cached_property
    def _by_place(self) -> dict[tuple[str, int], Section]:
        return {(s.doc_id, s.order): s for s in self.sections.values()}

    def next_section(self, section: Section) -> Section | None:
        """The section after ``section`` in its document, if there is one."""
        return self._by_place.get((section.doc_id, section.order + 1))

    def heading_is_title(self, section: Section) -> bool:
        """Whether the section's own heading is its document's title (as recorded or as used).

        At the start of a document, a heading that shares most of its words with the title is the
        title too ("Extending METAPOST to 3D and 4D" over a document titled "Extending MP to 3D and
        4D": its section is the title page, its contents and abstract).
        """
        heading = clean_title(last_heading(section.heading)).casefold()
        titles = {
            clean_title(t).casefold() for t in (self.title(section.doc_id), self.title_headings.get(section.doc_id, ""))
        }
        if not heading:
            return False
        if heading in titles:
            return True
        words = set(re.findall(r"\w+", heading))
        return section.order <= 1 and any(
            len(words & (other := set(re.findall(r"\w+", t)))) >= TITLE_OVERLAP * len(words | other)
            for t in titles
            if t
        )

    def language_of(self, section_id: str) -> str:
        """The language to write in for a section: its document's, else the corpus language.

        With detected languages, a long section plainly in another language of the corpus is
        asked in that one: itnumpar's Italian sections under its English introduction and
        implementation ("What should I know about the quarta sezione ...?" was English).
        """
        section = self.sections.get(section_id)
        if section is None:
            return self.language
        document = self.doc_languages.get(section.doc_id, self.language)
        if not self.detect_sections:
            return document
        if section_id not in self._section_languages:
            self._section_languages[section_id] = own_language(section.text, document, self.corpus_languages)
        return self._section_languages[section_id]

    @functools.cached_property
    def _section_languages(self) -> dict[str, str]:
        return {}

    @functools.cached_property
    def corpus_languages(self) -> frozenset[str]:
        """The detected languages of the corpus's documents (none when ``generate.language`` is forced)."""
        return frozenset(self.doc_languages.values())

    def source(self, section_ids: Iterable[str]) -> Source:
        """Provenance of an item built from ``section_ids`` (the first one is the anchor)."""
        ids = tuple(dict.fromkeys(section_ids))
        anchor = self.sections[ids[0]]
        page_ids: list[str] = []
        pdf_pages: set[int] = set()
        for sid in ids:
            place = self.pages.get(sid, SectionPlace())
            page_ids += [p for p in place.page_ids if p not in page_ids]
            pdf_pages.update(place.pdf_pages)
        return Source(
            doc_id=anchor.doc_id,
            section_ids=ids,
            page_ids=tuple(page_ids),
            topic_id=self.topic(ids[0]),
            doc_path=anchor.doc_path,
            pdf_pages=tuple(sorted(pdf_pages)),
        )


def item_id(kind: str, section_ids: Iterable[str], question: str) -> str:
    """Stable item id: the first 16 hex digits of sha256 over (type, section ids, question)."""
    return sha256_text(json.dumps([kind, list(section_ids), question], ensure_ascii=False))[:16]


def document_titles(
    sections: Iterable[Section], documents: Iterable[Document] = (), replaced: dict[str, str] | None = None
) -> dict[str, str]:
    """A title per document: its recorded title, else its first heading, else its file name.

    A recorded title that is an author byline (PDF metadata and title pages mix them up) is not used.
    A title that names nothing gives way to the package the file and text name ("The yhmath package"
    for "My humble additions to (La)TEX mathematics"); ``replaced`` then receives the title it replaced.
    """
    titles = {d.id: d.title.strip() for d in documents if d.title and _usable_title(d.title)}
    first: dict[str, Section] = {}
    texts: dict[str, list[str]] = {}
    read: dict[str, int] = {}  # characters collected per document
    for s in sections:
        if s.doc_id not in first or s.order < first[s.doc_id].order:
            first[s.doc_id] = s
        if read.get(s.doc_id, 0) < _NAME_SEARCH_CHARS:
            texts.setdefault(s.doc_id, []).append(s.text)
            read[s.doc_id] = read.get(s.doc_id, 0) + len(s.text)
    for doc_id, s in first.items():
        if doc_id not in titles:
            heading = s.heading.strip()
            usable = 0 < len(heading) <= 100 and _usable_title(re.split(r"\s+[›»>]\s+", heading)[0])
            titles[doc_id] = heading if usable else _humanize(s.doc_path)
        named = _file_named_package(s.doc_path, titles[doc_id], "\n".join(texts.get(doc_id, ())))
        if named:
            if replaced is not None:
                replaced[doc_id] = titles[doc_id]
            titles[doc_id] = named
    return titles


_NAME_SEARCH_CHARS = 200_000


def _file_named_package(path: str, title: str, text: str) -> str | None:
    """ "The yhmath package" for yhmath.pdf titled "My humble additions to (La)TEX mathematics".

    A title that reads as a sentence, or in its author's voice, names nothing a user would type; the
    file's name does when the document's own text uses it as a package or class name
    (\\usepackage{yhmath}, yhmath.sty, "the yhmath package"). None when the title already holds the
    name, or no part of the file's name is used so.
    """
    stem_parts = [seg for seg in re.split(r"__|\.", PurePath(path).stem) if seg]
    # whole parts only: a word of "latex2e-first-aid-for-external-files" ("first") is no name
    tokens = [seg.strip("_- ") for seg in reversed(stem_parts)]
    folded_title = title.casefold()
    file_words = every("subjects", "file_words")
    for token in dict.fromkeys(t for t in tokens if len(t) >= 3 and not t.isdigit()):
        if token.casefold() in file_words:  # "hyperref-doc.pdf", "R-lang.pdf", "chemnum_en.pdf": no package
            continue
        in_title = re.search(rf"(?<![\w-]){re.escape(token.casefold())}(?![\w-])", folded_title)
        if in_title and not document_subject(title).startswith("“"):
            return None  # "The multicol package", "ulqda: A LATEX package ...": the title names it
        name = re.escape(token)
        kind = None
        if re.search(rf"\b{name}\.cls\b|\\documentclass(?:\[[^\]]*\])?\{{{name}\}}|\b{name} class\b", text):
            kind = "class"
        elif re.search(
            rf"\b{name}\.sty\b|\\usepackage(?:\[[^\]]*\])?\{{[^}}]*\b{name}\b|\b{name} package\b"
            rf"|\bpackage \(?{name}\b",
            text,
        ) or (
            # "make yhmath compatible with ...", "loading this package (yhmath)": a package's documentation
            # using the name as a word
            # (not a file name: "substances_en.tex" in a listing's header names the manual's source)
            len(re.findall(rf"(?<![\w\\-]){name}(?![\w-]|\.[a-z])", text)) >= 3
            and re.search(r"\b(?:this|the) package\b", text, re.IGNORECASE)
        ):
            kind = "package"
        if kind:
            # in a language that words such a title (file_named_title: "The layaureo package" would stand in
            # an Italian question); the language is asked only here, of the few documents to rename
            found = identify(text[:20_000])
            named = part(found[0] if found else fallback(), "subjects").get("file_named_title")
            return named.format(name=token, kind=kind) if named else None
    return None


def _usable_title(title: str) -> bool:
    """Not empty, not an author byline, with a word in it (not a page counter "(1/75)" or a date), and
    not the tail of a title set on several lines ("para el sistema babel." of "Estilo spanish para el
    sistema babel": it opens with a lower-case function word)."""
    title = title.strip()
    if not title or is_byline(title) or re.search(r"[^\W\d_]{3}", title) is None:
        return False
    first = title.split()[0]
    return not (first.islower() and first.isalpha() and first.casefold() in function_words())


def _humanize(path: str) -> str:
    """A title made of a file's name: words apart, a language-code segment and repeated words dropped.

    "es__babel-spanish__spanish.pdf" -> "Babel spanish"; "faq__basic-defs.nl.html" -> "Faq basic defs".
    Only a whole segment (between "__" or "." marks) counts as a code: "it-security.pdf" keeps "it".
    """
    segments = [seg for seg in re.split(r"__|\.", PurePath(path).stem) if seg.strip(" _-")]
    while len(segments) > 1 and segments[0].lower() in _LANGUAGE_CODES:
        segments = segments[1:]
    while len(segments) > 1 and segments[-1].lower() in _LANGUAGE_CODES:
        segments = segments[:-1]
    kept: list[str] = []
    for word in (w for seg in segments for w in re.split(r"[_\-\s]+", seg) if w):
        if word.lower() not in {k.lower() for k in kept}:
            kept.append(word)
    return " ".join(kept).capitalize()


# language codes a file name may carry as a segment of its own ("nl__manual.pdf", "faq.de.html")
_LANGUAGE_CODES = frozenset(QUESTION_LANGUAGES)
