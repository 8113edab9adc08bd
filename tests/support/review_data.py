"""A synthetic build for the review tests: records written straight into an output folder, and a reviewer's edits."""

from __future__ import annotations

import csv
import io
import zlib
from pathlib import Path

import numpy as np

from qagen.io import write_json, write_jsonl
from qagen.records import FoldAssignment, GeneratorInfo, Item, Page, Section, Source

# section: (fold, split); each section is its own page.
LAYOUT = {
    "s1": (1, "validation"), "s2": (1, "validation"), "s3": (2, "validation"), "s4": (2, "validation"),
    "s5": (1, "test"), "s6": (2, "test"), "s7": (1, "validation"), "s8": (2, "validation"),
}  # fmt: skip
TYPES = ("long_form", "factoid", "mcq")


def _item(sid: str, k: int, fold: int, split: str) -> Item:
    kind = TYPES[k]
    extra = {}
    if kind == "mcq":
        extra = {"options": ("red", "green", "blue, or teal", "grey"), "answer_index": 2, "bloom": "B1"}
    question = f"What does {sid} say about topic {k}?"
    if sid == "s2" and kind == "long_form":
        question = '=HYPERLINK("http://evil.example") what now?'  # spreadsheets would run this
    return Item(
        id=f"{sid}-{kind}",
        type=kind,  # type: ignore[arg-type]
        question=question,
        answer="blue, or teal" if kind == "mcq" else f'Answer of {sid}: "quoted", multi\nline, é ü 中文.',
        source=Source(f"d{sid}", (sid,), (f"p{sid}",), topic_id=int(sid[1:]) % 3, doc_path=f"doc_{sid}.pdf",
                      pdf_pages=(int(sid[1:]), int(sid[1:]) + 1)),
        fold=fold,
        split=split,  # type: ignore[arg-type]
        generator=GeneratorInfo("extractive"),
        score=1.0,
        **extra,  # type: ignore[arg-type]
    )  # fmt: skip


def make_build(out: Path) -> Path:
    """An output folder with sections, pages, assignments, topics and 24 items (3 per section)."""
    sections = [
        Section(
            sid, f"d{sid}", f"doc_{sid}.pdf", f"Heading {sid}", f"Body of {sid}.\nSecond line, with comma.", 1, 2, i
        )
        for i, sid in enumerate(LAYOUT)
    ]
    pages = [Page(f"p{s.id}", s.doc_id, (s.id,), s.text, 20) for s in sections]
    assignments = [FoldAssignment(sid, int(sid[1:]) % 3, f"p{sid}", "kept", f, sp) for sid, (f, sp) in LAYOUT.items()]  # type: ignore[arg-type]
    items = [_item(sid, k, f, sp) for sid, (f, sp) in LAYOUT.items() for k in range(3)]
    topics = {"topics": [{"id": t, "label": f"topic {t} words"} for t in range(3)]}
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "sections.jsonl", sections)
    write_jsonl(out / "pages.jsonl", pages)
    write_jsonl(out / "assignments.jsonl", assignments)
    write_jsonl(out / "items.jsonl", items)
    write_json(out / "topics.json", topics)
    return out


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        text = fh.read()
    delimiter = ";" if ";" in text.split("\n", 1)[0] else ","
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    return list(reader.fieldnames or []), list(reader)


def write_rows(path: Path, header: list[str], rows: list[dict[str, str]], delimiter: str = ",", bom: bool = True):
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def review_as(path: Path, decide, delimiter: str = ",", bom: bool = True) -> None:
    """Edit an exported file as a reviewer would: one mark per decided row, some comments."""
    header, rows = read_rows(path)
    for row in rows:
        label = decide(row["item_id"], row["reviewer"])
        if label:
            row[label] = "x"
            row["comment"] = f'{row["reviewer"]} says: fine, "mostly"\nsecond line é'
    write_rows(path, header, rows, delimiter, bom)


def planned_label(item_id: str, reviewer: str) -> str | None:
    """The verdicts of the round trip: who approves what."""
    if item_id.startswith("s8"):
        return None  # not reviewed yet
    if item_id.endswith("mcq"):
        return "correct" if reviewer == "ann" else "wrong"  # overlap disagreements land here
    if item_id.startswith(("s3", "s6")):
        return "incomplete"
    return "correct"


class WordEmbedder:
    """Bag of hashed words (crc32, so the same vectors in every process)."""

    id = "test-words"

    def embed(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.encode()) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def run_splits(out: Path, *sets: str) -> str:
    """Run only the pipeline's splits stage on ``out``; returns ran/skipped."""
    from qagen.artifacts import ARTIFACTS
    from qagen.config import load_config
    from qagen.runner import BuildInputs, Runner
    from qagen.stages.splits import STAGE

    config = load_config(None, ["splits.leakage_embeddings=false", *sets])
    return Runner([STAGE], ARTIFACTS, out, config, build=BuildInputs(embedder=WordEmbedder())).run()[0].status
