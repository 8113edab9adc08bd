"""The artifact files of an output folder and how each is written and read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qagen.io import read_json, read_jsonl, read_npy, write_json, write_jsonl, write_npy, write_text
from qagen.records import Document, FoldAssignment, Item, Page, Rejection, Section
from qagen.review.labels import Verdict


@dataclass(frozen=True)
class Artifact:
    """How one artifact file is written and read.

    ``write(path, value)`` writes the artifact atomically; a writer that also writes other
    files (beside ``path``) returns a list of their paths relative to ``path.parent`` (the
    output folder), and the runner records their hashes with the artifact's own. Any other
    return value (None, a line count) means no other files.
    """

    name: str
    write: Callable[[Path, Any], Any]
    read: Callable[[Path], Any]


def _jsonl(name: str, cls: type) -> Artifact:
    return Artifact(name, write_jsonl, lambda p: read_jsonl(p, cls))


def _json(name: str) -> Artifact:
    return Artifact(name, write_json, read_json)


def _read_scores(path: Path) -> Any:
    from qagen.score import read_scores

    return read_scores(path)


def _npy(name: str) -> Artifact:
    return Artifact(name, write_npy, read_npy)


def _write_splits(path: Path, result: Any) -> list[str]:
    """Write ``splits/`` and ``crosseval.json``; return the ``splits/`` files written (relative paths).

    ``crosseval.json`` names every file of the layout, so the list comes from it: the runner
    hashes them with ``crosseval.json``, and a deleted or edited split file reruns the stage.
    """
    from qagen.splits import write_splits

    crosseval = write_splits(result, path.parent)
    write_json(path, crosseval)
    return split_files(crosseval)


def split_files(crosseval: dict[str, Any]) -> list[str]:
    """The files under ``splits/`` that a ``crosseval.json`` names, in a stable order."""
    roles = ("corpus", "answerable", "unanswerable", "questions")
    files = [it[role] for it in crosseval.get("iterations", []) for role in roles if role in it]
    report = crosseval.get("leakage", {}).get("report")
    return list(dict.fromkeys([*files, *([report] if report else [])]))


ARTIFACTS: dict[str, Artifact] = {
    a.name: a
    for a in (
        _jsonl("documents.jsonl", Document),
        _jsonl("sections.jsonl", Section),
        _jsonl("pages.jsonl", Page),
        _npy("embeddings.npy"),
        _json("embedding_ids.json"),
        _json("topics.json"),
        _npy("reduced.npy"),
        _json("folds.json"),
        _jsonl("assignments.jsonl", FoldAssignment),
        _jsonl("candidates.jsonl", Item),
        _jsonl("generation_failures.jsonl", Rejection),
        _jsonl("items.jsonl", Item),
        _jsonl("rejected.jsonl", Rejection),
        _json("funnel.json"),
        Artifact("crosseval.json", _write_splits, read_json),
        _jsonl("reviews.jsonl", Verdict),
        Artifact("scores.json", write_json, _read_scores),  # written by `qagen score`; the report stage shows it
        Artifact("report.html", write_text, lambda p: p.read_text(encoding="utf-8")),
    )
}

# Which record type each JSONL artifact holds (for schema validation and `qagen inspect`).
JSONL_RECORDS: dict[str, type] = {
    "documents.jsonl": Document,
    "sections.jsonl": Section,
    "pages.jsonl": Page,
    "assignments.jsonl": FoldAssignment,
    "candidates.jsonl": Item,
    "generation_failures.jsonl": Rejection,
    "items.jsonl": Item,
    "rejected.jsonl": Rejection,
}
