"""Review rows and the review CSV: one row per (item, reviewer), columns for the labels, two checks and a comment.

The CSV opens in Excel and LibreOffice as it is: UTF-8 with a byte-order mark, CRLF line
ends, fields with commas, quotes or line breaks quoted. Reviewers mark exactly one label
column per row (``x``), may answer the ``natural`` and ``answerable`` checks with yes or no
(see :data:`~qagen.review.labels.CHECK_HELP`) and may write a comment; ``qagen review import``
reads back only ``item_id``, ``reviewer``, the label columns (or a ``label`` column), the
check columns, ``comment`` and ``item_hash``, so the other columns can be edited, hidden or
reordered freely. Cells that a spreadsheet would run as a formula (starting with ``=``,
``+``, ``-``, ``@``) get a leading apostrophe in the display columns, and so do ids a
spreadsheet would turn into a number (``1234567890123456``, ``12e4...``); the import strips
it again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from qagen.io import safe_cell
from qagen.records import Item, Section
from qagen.review.labels import CHECKS, LABELS, item_hash

DISPLAY_COLUMNS: tuple[str, ...] = ("type", "question", "answer", "options")
SOURCE_COLUMNS: tuple[str, ...] = ("passage", "document", "pages", "section", "topic", "fold", "split")
COLUMNS: tuple[str, ...] = (
    "item_id",
    "reviewer",
    *DISPLAY_COLUMNS,
    *LABELS,
    *CHECKS,
    "comment",
    *SOURCE_COLUMNS,
    "item_hash",
)
# Columns whose text comes from the documents or the generator (guarded against formula injection).
ESCAPED_COLUMNS: tuple[str, ...] = (*DISPLAY_COLUMNS, *SOURCE_COLUMNS)
# Hex ids a spreadsheet would read as a number and round (or write as 1.2E+15) unless kept as text.
ID_COLUMNS: tuple[str, ...] = ("item_id", "item_hash")
MAX_CELL_CHARS = 30000  # Excel keeps at most 32,767 characters per cell


def option_letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else str(i + 1)


def review_row(
    item: Item,
    reviewer: str,
    sections: Mapping[str, Section],
    topic_labels: Mapping[int, str] | None = None,
) -> dict[str, str]:
    """The CSV row of one item for one reviewer (every value a string; label and check columns empty)."""
    row = dict.fromkeys(COLUMNS, "")
    found = [sections[sid] for sid in item.source.section_ids if sid in sections]
    passage = "\n\n".join(f"{s.heading}\n{s.text}".strip() for s in found)
    pages = sorted(set(item.source.pdf_pages)) or sorted({p for s in found for p in (s.page_start, s.page_end)})
    topic = item.source.topic_id
    label = (topic_labels or {}).get(topic, "")
    row.update(
        item_id=item.id,
        reviewer=reviewer,
        type=item.type,
        question=item.question,
        answer=_answer(item),
        options=_options(item),
        passage=_clip(passage),
        document=item.source.doc_path or (found[0].doc_path if found else item.source.doc_id),
        pages=_pages(pages),
        section=" | ".join(s.heading for s in found),
        topic=f"{topic}: {label}" if label else str(topic),
        fold=str(item.fold),
        split=item.split,
        item_hash=item_hash(item),
    )
    return row


def _answer(item: Item) -> str:
    if item.type == "mcq" and item.options and item.answer_index is not None:
        return f"{option_letter(item.answer_index)}) {item.answer}"
    return item.answer


def _options(item: Item) -> str:
    if not item.options:
        return ""
    return "\n".join(f"{option_letter(i)}) {opt}" for i, opt in enumerate(item.options))


def _pages(pages: Sequence[int]) -> str:
    if not pages:
        return ""
    if pages == list(range(pages[0], pages[-1] + 1)) and len(pages) > 1:
        return f"{pages[0]}-{pages[-1]}"
    return ", ".join(map(str, pages))


def _clip(text: str) -> str:
    if len(text) <= MAX_CELL_CHARS:
        return text
    return text[: MAX_CELL_CHARS - 40].rstrip() + " [... passage shortened for spreadsheets]"


def safe_id(value: str) -> str:
    """The id with a leading apostrophe when a spreadsheet would read it as a number."""
    try:
        float(value)
    except ValueError:
        return value
    return "'" + value


def _guard(column: str, value: str) -> str:
    if column in ESCAPED_COLUMNS:
        return safe_cell(value)
    return safe_id(value) if column in ID_COLUMNS else value


def csv_text(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] = COLUMNS) -> str:
    """Rows as Excel-friendly CSV text: BOM, header, CRLF, minimal quoting; display cells guarded."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        cells = [str(row.get(c, "") if row.get(c) is not None else "") for c in columns]
        writer.writerow([_guard(c, v) for c, v in zip(columns, cells, strict=True)])
    return "\ufeff" + buf.getvalue()
