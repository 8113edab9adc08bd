"""Reading review files back: validate every row of every file first, then merge, or change nothing.

A review file is the CSV that ``qagen review export`` wrote (or the HTML form saved), edited
in any spreadsheet. Per row it reads ``item_id``, ``reviewer`` (or a default), exactly one
marked label column (``x``, ``1``, ``yes``...; empty, ``0`` or ``no`` is unmarked) or a
``label`` column, the optional ``natural`` and ``answerable`` checks (yes/no, y/n, 1/0,
true/false, ja/nee in any case; empty is not judged; files without these columns import as
before), ``comment`` and ``item_hash``. A row with no label, no check and no comment is not
reviewed yet and is skipped. Anything else that is off (an unknown item id, a label nobody
knows, two labels, a check that is not yes or no, a comment or check without a label, an
item changed since the export, the same item twice for one reviewer) is a problem; all
problems of all files are reported together and nothing is imported.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from qagen.review.labels import (
    CHECKS,
    LABELS,
    ReviewError,
    Verdict,
    check_reviewer,
    normalize_key,
    parse_label,
    parse_yes_no,
)

MARKED = frozenset({"x", "1", "yes", "y", "true", "v", "\u2713", "\u2714", "\u2715", "\u2717", "\u2718"})
UNMARKED = frozenset({"", "0", "no", "n", "false", "-"})
MAX_PROBLEMS_SHOWN = 20


class ReviewImportError(ReviewError):
    """Review files with problems; ``problems`` lists them all (the message shows the first ones)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = "\n  ".join(self.problems[:MAX_PROBLEMS_SHOWN])
        more = len(self.problems) - MAX_PROBLEMS_SHOWN
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(
            f"{len(self.problems)} problem(s) in the review files; nothing was imported "
            f"(fix them and run the import again):\n  {shown}{tail}"
        )


@dataclass
class ParsedFile:
    """What one review file holds: verdicts with their row numbers, and rows not labelled yet."""

    name: str
    verdicts: list[tuple[int, Verdict]] = field(default_factory=list)
    rows: int = 0
    unlabelled: int = 0


@dataclass(frozen=True)
class MergeResult:
    verdicts: list[Verdict]
    added: int
    replaced: int
    changed: int


def decode_review_bytes(data: bytes, name: str) -> str:
    """The text of a review file (UTF-8, with or without BOM); raises for any other encoding."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReviewImportError(
            [f"{name}: is not UTF-8 text (byte {exc.start}); in Excel use 'Save as' > 'CSV UTF-8 (comma delimited)'"]
        ) from None


def parse_review_csv(
    text: str, name: str, known: Mapping[str, str], default_reviewer: str | None = None
) -> tuple[ParsedFile, list[str]]:
    """Parse one review file against the current items.

    Args:
        text: The file's text.
        name: Its name, used in messages and recorded as each verdict's ``source_file``.
        known: Current item id -> :func:`~qagen.review.labels.item_hash`.
        default_reviewer: Reviewer of rows whose ``reviewer`` cell is empty.

    Returns:
        The parsed file and the problems found (empty when the file is clean).
    """
    import csv
    import io

    parsed = ParsedFile(name)
    # newline="": line breaks inside quoted cells stay in the cell, as the csv module requires.
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))  # a long comment is a cell of the file, however long
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text)))
    except csv.Error as exc:
        return parsed, [f"{name}: cannot be read as CSV ({exc}); export the review file again"]
    finally:
        csv.field_size_limit(limit)
    if not records or not any(c.strip() for c in records[0]):
        return parsed, [f"{name}: is empty; expected the header row of a qagen review file"]
    columns, problems = _columns(records[0], name)
    if problems:
        return parsed, problems
    for number, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        parsed.rows += 1
        cells = {key: (record[i] if i < len(record) else "") for key, i in columns.items()}
        verdict, row_problems = _verdict(cells, f"{name} row {number}", known, default_reviewer, name)
        problems += row_problems
        if verdict is None and not row_problems:
            parsed.unlabelled += 1
        elif verdict is not None:
            parsed.verdicts.append((number, verdict))
    return parsed, problems


def _delimiter(text: str) -> str:
    """Comma, or the semicolon / tab a spreadsheet in another locale saved, judged on the header."""
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _columns(header: Sequence[str], name: str) -> tuple[dict[str, int], list[str]]:
    """Normalised column name -> index (label columns under their code), and header problems."""
    columns: dict[str, int] = {}
    problems = []
    for i, raw in enumerate(header):
        key = normalize_key(raw.lstrip("\ufeff"))
        key = parse_label(key) or key
        if not key:
            continue
        if key in columns:
            problems.append(f"{name}: column {raw.strip()!r} appears twice in the header; keep one")
        columns[key] = i
    if "item_id" not in columns:
        problems.append(f"{name}: has no item_id column; is it a review file exported by 'qagen review export'?")
    missing = [lab for lab in LABELS if lab not in columns]
    if "label" not in columns and missing:
        problems.append(f"{name}: label column(s) {', '.join(missing)} are missing; keep every label column")
    return columns, problems


def _verdict(
    cells: Mapping[str, str], where: str, known: Mapping[str, str], default_reviewer: str | None, source: str
) -> tuple[Verdict | None, list[str]]:
    item_id = _unquote(cells["item_id"])
    if not item_id:
        return None, [f"{where}: item_id is empty; keep the item_id of every row"]
    if item_id not in known:
        return None, [f"{where}: item {item_id!r} is not in items.jsonl (was the file exported from another build?)"]
    label, problems = _label(cells, where)
    checks, check_problems = _checks(cells, where)
    problems += check_problems
    comment = cells.get("comment", "").replace("\r\n", "\n").strip()
    if label is None:
        answered = [c for c, value in checks.items() if value is not None]
        if comment and not problems:
            problems.append(f"{where}: item {item_id} has a comment but no label; mark one label column")
        elif answered and not problems:
            problems.append(
                f"{where}: item {item_id} has {' and '.join(answered)} filled in but no label; mark one label column"
            )
        return None, problems
    reviewer = cells.get("reviewer", "").strip() or (default_reviewer or "")
    if not reviewer:
        problems.append(f"{where}: reviewer is empty; fill the reviewer column or pass --reviewer NAME")
    else:
        try:
            reviewer = check_reviewer(reviewer, f"{where}: reviewer")
        except ReviewError as exc:
            problems.append(str(exc))
    exported_hash = _unquote(cells.get("item_hash", ""))
    if exported_hash and exported_hash != known[item_id]:
        problems.append(
            f"{where}: item {item_id} changed since the file was exported (its question or answer differ); "
            "export it again and review the new version"
        )
    if problems:
        return None, problems
    natural, answerable = checks["natural"], checks["answerable"]
    return Verdict(item_id, reviewer, label, comment, known[item_id], source, natural, answerable), []


def _unquote(value: str) -> str:
    """An id as exported: the apostrophe that kept a spreadsheet from reading it as a number removed."""
    value = value.strip()
    return value[1:] if value.startswith("'") else value


def _label(cells: Mapping[str, str], where: str) -> tuple[str | None, list[str]]:
    """The row's label from its marked label column and/or its ``label`` cell."""
    marked, problems = [], []
    for lab in LABELS:
        if lab not in cells:
            continue
        value = cells[lab].strip().lower()
        if value in MARKED:
            marked.append(lab)
        elif value not in UNMARKED:
            shown = cells[lab].strip()
            problems.append(f"{where}: column {lab!r} holds {shown!r}; mark one label with x, leave the others empty")
    named = cells.get("label", "").strip()
    if named:
        code = parse_label(named)
        if code is None:
            problems.append(f"{where}: unknown label {named!r}; use one of {', '.join(LABELS)}")
        elif marked and marked != [code]:
            problems.append(f"{where}: label {named!r} disagrees with the marked column(s) {', '.join(marked)}")
        else:
            marked = [code]
    if len(marked) > 1:
        problems.append(f"{where}: {len(marked)} labels marked ({', '.join(marked)}); mark exactly one")
    if problems:
        return None, problems
    return (marked[0] if marked else None), []


def _checks(cells: Mapping[str, str], where: str) -> tuple[dict[str, bool | None], list[str]]:
    """The row's yes/no checks (None: not judged, or the column is absent) and their problems."""
    out: dict[str, bool | None] = {}
    problems = []
    for check in CHECKS:
        raw = cells.get(check, "")
        try:
            out[check] = parse_yes_no(raw)
        except ValueError:
            out[check] = None
            problems.append(
                f"{where}: column {check!r} holds {raw.strip()!r}; write yes or no "
                "(or y/n, 1/0, true/false, ja/nee), or leave it empty"
            )
    return out, problems


def duplicate_problems(files: Sequence[ParsedFile]) -> list[str]:
    """Problems for every (item, reviewer) labelled more than once across the files."""
    seen: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in files:
        for number, v in f.verdicts:
            seen[(v.item_id, v.reviewer)].append(f"{f.name} row {number}")
    return [
        f"item {item_id} is labelled {len(where)} times by {reviewer} ({', '.join(where)}); keep one row"
        for (item_id, reviewer), where in seen.items()
        if len(where) > 1
    ]


def merge_verdicts(existing: Sequence[Verdict], new: Sequence[Verdict]) -> MergeResult:
    """Existing verdicts with the new ones added; a new verdict replaces the same reviewer's old one."""
    merged = {(v.item_id, v.reviewer): v for v in existing}
    added = replaced = changed = 0
    for v in new:
        old = merged.get((v.item_id, v.reviewer))
        if old is None:
            added += 1
        else:
            replaced += 1
            changed += old.label != v.label
        merged[(v.item_id, v.reviewer)] = v
    return MergeResult([merged[k] for k in sorted(merged)], added, replaced, changed)


def parse_review_files(
    files: Sequence[tuple[str, str]], known: Mapping[str, str], default_reviewer: str | None = None
) -> list[ParsedFile]:
    """Parse ``(name, text)`` review files; raises :class:`ReviewImportError` listing every problem.

    Raises:
        ReviewImportError: When any file has a problem, or the files hold no label at all.
    """
    parsed, problems = [], []
    for name, text in files:
        pf, file_problems = parse_review_csv(text, name, known, default_reviewer)
        parsed.append(pf)
        problems += file_problems
    problems += duplicate_problems(parsed)
    if problems:
        raise ReviewImportError(problems)
    if not any(pf.verdicts for pf in parsed):
        rows = sum(pf.rows for pf in parsed)
        raise ReviewImportError(
            [f"no row of the {rows} rows in {len(parsed)} file(s) has a label; mark one label column per reviewed row"]
        )
    return parsed


def summary_counts(parsed: Sequence[ParsedFile]) -> dict[str, Any]:
    return {
        "files": len(parsed),
        "rows": sum(pf.rows for pf in parsed),
        "verdicts": sum(len(pf.verdicts) for pf in parsed),
        "unlabelled_rows": sum(pf.unlabelled for pf in parsed),
    }
