"""What the report is made from: the artifacts of an output folder, loaded or handed over."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qagen.records import Document, FoldAssignment, Item, Page, Rejection, Section

# Artifact file -> ReportData field. Every one is optional: a partial build (``--until``) still reports.
ARTIFACT_FIELDS: dict[str, str] = {
    "documents.jsonl": "documents",
    "sections.jsonl": "sections",
    "pages.jsonl": "pages",
    "topics.json": "topics",
    "reduced.npy": "reduced",
    "folds.json": "folds",
    "assignments.jsonl": "assignments",
    "items.jsonl": "items",
    "rejected.jsonl": "rejected",
    "funnel.json": "funnel",
    "crosseval.json": "crosseval",
}
REPORT_INPUTS: tuple[str, ...] = tuple(ARTIFACT_FIELDS)


@dataclass(frozen=True)
class ReportData:
    """The loaded artifacts of one build; ``None`` / empty where a stage has not run.

    Attributes:
        documents, sections, pages, assignments, items, rejected: the JSONL records.
        topics: ``topics.json`` (params, metrics, topics, section_topics).
        reduced: ``reduced.npy``, one row per section in ``sections`` order.
        folds: ``folds.json`` (chosen, metrics, candidates, topic_folds).
        funnel: ``funnel.json`` (funnel rows, stats).
        crosseval: ``crosseval.json``.
        manifest: ``manifest.json`` (per stage: seconds, counts, errors, llm stats).
        title: shown at the top of the page (the output folder's name by default).
        scores: ``scores.json`` (written by ``qagen score``), or None.
        reviews: ``reviews.jsonl`` verdicts (written by ``qagen review import``), or None when
            absent; with ``items`` they make the "Expert review" block current without a rebuild.
    """

    documents: list[Document] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    topics: dict[str, Any] | None = None
    reduced: Any = None
    folds: dict[str, Any] | None = None
    assignments: list[FoldAssignment] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    funnel: dict[str, Any] | None = None
    crosseval: dict[str, Any] | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    title: str = "qagen build"
    scores: dict[str, Any] | None = None
    reviews: list[Any] | None = None


def report_data_from_inputs(
    inputs: Mapping[str, Any], manifest: Mapping[str, Any] | None = None, title: str = "qagen build"
) -> ReportData:
    """Make :class:`ReportData` from artifacts loaded by the runner (keyed by file name).

    Args:
        inputs: Artifact values by file name, as a stage's ``ctx.inputs`` holds them;
            missing names are treated as not built.
        manifest: The build's ``manifest.json`` content (read only).
        title: Page title.
    """
    values = {fname: inputs[fname] for fname in ARTIFACT_FIELDS if fname in inputs and inputs[fname] is not None}
    return ReportData(
        **{ARTIFACT_FIELDS[k]: v for k, v in values.items()},
        manifest=dict(manifest or {}),
        title=title,
        scores=inputs.get("scores.json"),
        reviews=inputs.get("reviews.jsonl"),
    )


def load_report_data(out_dir: str | Path) -> ReportData:
    """Read the artifacts of an output folder (those present) into :class:`ReportData`.

    Raises:
        FileNotFoundError: ``out_dir`` holds no ``manifest.json`` (not a qagen output folder).
    """
    from qagen.artifacts import ARTIFACTS
    from qagen.io import read_json
    from qagen.output import MANIFEST

    out = Path(out_dir)
    manifest_path = out / MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{out} has no {MANIFEST}; run 'qagen build DOCS -o {out}' first")
    # written by `qagen score` and `qagen review import`, not by a build stage
    names = (*ARTIFACT_FIELDS, "scores.json", "reviews.jsonl")
    inputs = {name: ARTIFACTS[name].read(out / name) for name in names if (out / name).is_file()}
    return report_data_from_inputs(inputs, read_json(manifest_path), title=out.resolve().name)
