"""Typed records written to and read from the output folder.

Every record is a frozen dataclass. ``schemas/*.schema.json`` are generated from these
types (``python -m qagen.schemas``) and a test fails when the files drift from the code.
Field names are a contract with other tools: add fields freely, rename none without
bumping :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

SCHEMA_VERSION = "1.0"

ItemType = Literal["long_form", "factoid", "mcq"]
# item types as the console names them in tables and summaries
TYPE_SHORT_NAMES: dict[str, str] = {"long_form": "long-form", "factoid": "factoid", "mcq": "MCQ"}
Split = Literal["validation", "test"]
Bloom = Literal["B1", "B2", "B3", "B4"]
# S1-S3 are generated (one fact, several facts of one document, facts of several documents); S4,
# "the answer is not in the corpus", is what a multiple-choice question is where it is asked as
# unanswerable (qagen.splits marks it)
Scenario = Literal["S1", "S2", "S3", "S4"]
Formulation = Literal["natural", "search", "noisy", "verbose"]
Premise = Literal["true", "false"]
SectionKind = Literal["prose", "code", "table", "toc", "index", "references", "garbled"]


@dataclass(frozen=True)
class Document:
    """One input file and what became of it."""

    id: str
    path: str
    sha256: str
    format: str
    status: Literal["ok", "failed"]
    n_pages: int = 0
    n_sections: int = 0
    title: str | None = None
    error: str | None = None
    encoding: str | None = None  # text and HTML files: the encoding and how it was found ("utf-8", "utf-16-le (BOM)")


@dataclass(frozen=True)
class Section:
    """A heading and its body text, with where it came from in its document."""

    id: str
    doc_id: str
    doc_path: str
    heading: str
    text: str
    page_start: int
    page_end: int
    order: int
    char_start: int = 0
    char_end: int = 0
    kind: SectionKind = "prose"


@dataclass(frozen=True)
class Page:
    """An emulated page: consecutive sections of one document grouped up to a target size."""

    id: str
    doc_id: str
    section_ids: tuple[str, ...]
    text: str
    n_tokens: int
    order: int = 0
    page_start: int = 0
    page_end: int = 0


@dataclass(frozen=True)
class Topic:
    """A BERTopic topic: its size, keywords, label and centroid in the reduced space."""

    id: int
    size: int
    keywords: tuple[str, ...]
    label: str
    centroid: tuple[float, ...]
    n_documents: int = 0


@dataclass(frozen=True)
class FoldAssignment:
    """Where one section ended up in the folds.

    ``status`` is ``kept`` (in ``fold``/``split``), ``outlier`` (topic -1) or ``conflict``
    (its unit holds sections of both folds, so it was removed).
    """

    section_id: str
    topic_id: int
    unit_id: str
    status: Literal["kept", "outlier", "conflict"]
    fold: int | None = None
    split: Split | None = None
    sampled: bool = False


@dataclass(frozen=True)
class Source:
    """Provenance of an item: where its answer is."""

    doc_id: str
    section_ids: tuple[str, ...]
    page_ids: tuple[str, ...] = ()
    topic_id: int = -1
    doc_path: str = ""
    pdf_pages: tuple[int, ...] = ()


@dataclass(frozen=True)
class GeneratorInfo:
    """Which backend, model and prompt made an item."""

    backend: str
    model: str = ""
    prompt_hash: str = ""
    persona: str | None = None
    rule: str | None = None  # the offline generator's phrase rule that wrote the item (qagen.generate.offline.rules)


@dataclass(frozen=True, kw_only=True)
class Item:
    """A question with its reference answer and provenance."""

    id: str
    type: ItemType
    question: str
    answer: str
    source: Source
    fold: int
    split: Split
    generator: GeneratorInfo
    options: tuple[str, ...] | None = None
    answer_index: int | None = None
    bloom: Bloom | None = None
    scenario: Scenario | None = None
    labels_asked: str | None = None  # "B4/S2": the level and scenario requested, when the item's evidence relabelled it
    entity: str | None = None
    entity_kind: str | None = None
    rationale: str | None = None
    score: float | None = None
    language: str = "en"
    formulation: Formulation = "natural"  # how the question is put: a sentence, a search query, or with typos
    variant_of: str | None = None  # a search, noisy or false-premise variant: the id of the item it was made from
    premise: Premise = "true"  # false: the question asserts a value its source contradicts (qagen.generate.premises)
    premise_claim: str | None = None  # the wrong value a false-premise question asserts
    # multi: the answer needs two sections of one topic; comparison: two documents compared (source.section_ids)
    hops: Literal["single", "multi", "comparison"] = "single"


@dataclass(frozen=True, kw_only=True)
class Rejection(Item):
    """A candidate item a filter rejected, with the filter's name, reason and measured value."""

    filter: str
    reason: str
    value: float | str | None = None


@dataclass(frozen=True)
class ParseProblem:
    """A document that could not be used, and why."""

    path: str
    reason: str
    detail: str = ""


RECORD_TYPES: dict[str, type] = {
    "document": Document,
    "section": Section,
    "page": Page,
    "topic": Topic,
    "fold_assignment": FoldAssignment,
    "item": Item,
    "rejection": Rejection,
}

T = TypeVar("T")


def section_text(section: Section) -> str:
    """The text a section is embedded and clustered by: heading plus body (one definition, so vectors are cached)."""
    return f"{section.heading}\n{section.text}".strip()


def to_dict(record: Any) -> dict[str, Any]:
    """A record as plain JSON-ready data (tuples become lists)."""
    return dataclasses.asdict(record)


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build a record (nested records included) from plain data, validating types."""
    from pydantic import TypeAdapter

    return _adapter(cls, TypeAdapter).validate_python(data)


_ADAPTERS: dict[type, Any] = {}


def _adapter(cls: type, factory: Any) -> Any:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = factory(cls)
    return _ADAPTERS[cls]


def replace(record: T, **changes: Any) -> T:
    """A copy of a frozen record with some fields changed."""
    return dataclasses.replace(record, **changes)  # type: ignore[type-var]


__all__ = [
    "RECORD_TYPES",
    "SCHEMA_VERSION",
    "Document",
    "FoldAssignment",
    "GeneratorInfo",
    "Item",
    "Page",
    "ParseProblem",
    "Rejection",
    "Section",
    "Source",
    "Topic",
    "from_dict",
    "replace",
    "to_dict",
]
