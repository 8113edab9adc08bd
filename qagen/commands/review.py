"""``qagen review export`` and ``qagen review import``: file I/O around the review logic of :mod:`qagen.review`.

Example:
    >>> from qagen.commands.review import export_review, import_review
    >>> export_review("out", "review.csv", sample=100, per="topic", reviewers="ann,bob", overlap=20)  # doctest: +SKIP
    >>> import_review("out", ["review-ann.csv", "review-bob.csv"])  # doctest: +SKIP
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qagen.io import display_name
from qagen.output import OutputFolder
from qagen.records import Item, Section
from qagen.review.labels import (
    CHECK_HELP,
    CHECKS,
    LABEL_NAMES,
    LABELS,
    REVIEWS_FILE,
    ReviewError,
    check_reviewer,
    item_hash,
    load_reviews,
)
from qagen.review.sample import Allocation, Per

FORMATS = {".csv": "csv", ".html": "html", ".htm": "html"}
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ExportResult:
    """The files written, rows per reviewer, and the sample's size."""

    files: dict[str, Path]
    rows: dict[str, int]
    sampled: int
    overlap: int
    overlap_raters: int
    fmt: str
    available: int


@dataclass(frozen=True)
class ImportResult:
    """What an import did and the review status after it (see :func:`~qagen.review.review_summary`)."""

    path: Path
    counts: dict[str, Any]
    summary: dict[str, Any]


def parse_reviewers(spec: str | Sequence[str] | int | None) -> list[str]:
    """Reviewer names from ``"ann,bob"``, a count (``3`` -> r1, r2, r3), a list, or None (one: r1)."""
    if spec is None or spec == "":
        return ["r1"]
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        n = int(spec)
        if n < 1:
            raise ReviewError(f"reviewers must be a count >= 1 or comma-separated names; got {spec!r}")
        return [f"r{i}" for i in range(1, n + 1)]
    names = [s for s in (spec.split(",") if isinstance(spec, str) else spec)]
    out = [check_reviewer(n, "reviewers") for n in names]
    if len(set(out)) != len(out):
        raise ReviewError(f"reviewers must be distinct; got {out}")
    return out


def load_items(out_dir: PathLike) -> list[Item]:
    folder = OutputFolder(out_dir)
    if not folder.has("items.jsonl"):
        raise ReviewError(f"{out_dir} has no items.jsonl; run 'qagen build DOCS -o {out_dir}' first")
    return folder.read("items.jsonl")


def review_files(dest: PathLike, reviewers: Sequence[str]) -> dict[str, Path]:
    """One file per reviewer: ``dest`` itself for one, ``stem-NAME.suffix`` beside it for several."""
    dest = Path(dest)
    if dest.suffix.lower() not in FORMATS:
        raise ReviewError(f"--to must end in .csv or .html; got {str(dest)!r}")
    if len(reviewers) == 1:
        return {reviewers[0]: dest}
    return {r: dest.with_name(f"{dest.stem}-{r}{dest.suffix}") for r in reviewers}


def export_review(
    out_dir: PathLike,
    dest: PathLike,
    *,
    sample: int | None = None,
    per: Per | None = None,
    reviewers: str | Sequence[str] | int | None = None,
    overlap: int = 0,
    overlap_raters: int = 2,
    seed: int = 0,
    unreviewed: bool = False,
    force: bool = False,
    allocation: Allocation = "proportional",
) -> ExportResult:
    """Write review files (CSV or offline HTML form, by ``dest``'s suffix) for a build's items.

    Args:
        out_dir: The build's output folder.
        dest: ``review.csv`` or ``review.html``; with several reviewers each gets ``review-NAME.csv``.
        sample: Review this many items (stratified by ``per``); None for all.
        per: ``topic`` or ``type``: keep each one's share in the sample.
        reviewers: ``"ann,bob"``, a count, or None for one reviewer (``r1``).
        overlap: Items labelled by ``overlap_raters`` reviewers each, for the agreement statistics.
        overlap_raters: Reviewers per overlap item.
        seed: Random seed of the sample.
        unreviewed: Leave out items that already have a current verdict.
        force: Overwrite existing review files (they may hold a reviewer's work).
        allocation: With ``per``: ``proportional`` keeps each stratum's share, ``equal`` takes as many
            from each (per-type measures on equal footing; the overall shares are then not the build's).

    Raises:
        ReviewError: For a bad request or when a file exists (without ``force``).
    """
    from qagen.io import check_output_file, write_text
    from qagen.review.approved import current_verdicts
    from qagen.review.export import csv_text, review_row
    from qagen.review.form import render_form
    from qagen.review.sample import plan_review

    out = Path(out_dir)
    names = parse_reviewers(reviewers)
    paths = review_files(dest, names)
    for path in paths.values():
        check_output_file(path, "review file")
    existing = [str(p) for p in paths.values() if p.exists()]
    if existing and not force:
        raise ReviewError(f"{', '.join(existing)} exist(s) and may hold reviews; use --force to overwrite")
    items = load_items(out)
    if unreviewed:
        done = current_verdicts(items, load_reviews(out))
        items = [it for it in items if it.id not in done]
    plan = plan_review(
        items,
        names,
        sample=sample,
        per=per,
        overlap=overlap,
        overlap_raters=overlap_raters,
        seed=seed,
        allocation=allocation,
    )
    idle = [name for name in names if not plan.assignments[name]]
    if idle:
        sampled = len({it.id for rows in plan.assignments.values() for it in rows})
        raise ReviewError(
            f"{len(names)} reviewers for {sampled} item(s): {len(idle)} would get an empty file; "
            f"name at most {sampled} reviewers (or review more items)"
        )
    sections, topic_labels = _sources(out)
    fmt = FORMATS[Path(dest).suffix.lower()]
    for name, path in paths.items():
        rows = [review_row(it, name, sections, topic_labels) for it in plan.assignments[name]]
        if fmt == "csv":
            write_text(path, csv_text(rows))
        else:
            write_text(path, render_form(rows, name, path.with_suffix(".csv").name, title=out.resolve().name))
    counts = {name: len(plan.assignments[name]) for name in names}
    return ExportResult(paths, counts, plan.sampled, len(plan.overlap_ids), overlap_raters, fmt, len(items))


def _sources(out: Path) -> tuple[dict[str, Section], dict[int, str]]:
    folder = OutputFolder(out)
    sections = {s.id: s for s in folder.read_if_present("sections.jsonl", [])}
    topics = folder.read_if_present("topics.json", {})
    labels = {int(t["id"]): str(t.get("label", "")) for t in topics.get("topics", [])}
    return sections, labels


def import_review(out_dir: PathLike, files: Sequence[PathLike], *, reviewer: str | None = None) -> ImportResult:
    """Validate review files against the build's items, then merge them into ``OUT/reviews.jsonl``.

    Every file is checked before anything is written; with any problem nothing changes.
    A new verdict replaces the same reviewer's earlier verdict on that item.

    Args:
        out_dir: The build's output folder.
        files: Review CSV files (exported, or saved by the HTML form).
        reviewer: Reviewer of rows whose reviewer cell is empty.

    Raises:
        ReviewImportError: Listing every problem found (nothing imported).
        ReviewError: When the build has no items, or a build holds the folder's lock.
    """
    from qagen.io import remove_stale_temp_files, write_jsonl
    from qagen.review.approved import review_summary
    from qagen.review.importer import merge_verdicts, parse_review_files, summary_counts

    out = Path(out_dir)
    default = check_reviewer(reviewer, "--reviewer") if reviewer else None
    items = load_items(out)
    known = {it.id: item_hash(it) for it in items}
    parsed = parse_review_files(_read_files(files), known, default)
    folder = OutputFolder(out)
    with folder.lock(_busy):
        merged = merge_verdicts(load_reviews(out), [v for pf in parsed for _, v in pf.verdicts])
        path = folder.file(REVIEWS_FILE)
        remove_stale_temp_files(out, [REVIEWS_FILE])  # an earlier import killed mid-write
        write_jsonl(path, merged.verdicts)
    counts = {**summary_counts(parsed), "added": merged.added, "replaced": merged.replaced,
              "changed_label": merged.changed, "total_verdicts": len(merged.verdicts)}  # fmt: skip
    return ImportResult(path, counts, review_summary(items, merged.verdicts, "all"))


def refresh_report(out_dir: PathLike) -> Path | None:
    """Re-render ``OUT/report.html`` so its "Expert review" block shows the verdicts just imported.

    Only a folder that has a report already gets one. A build holding the folder's lock writes
    its own report, and a report that cannot be rendered (an unreadable artifact) is left as it
    is with a warning: the verdicts are imported either way.

    Returns:
        The report's path, or None when it was not re-rendered.
    """
    import warnings

    from qagen.commands.report import rerender_report
    from qagen.report import REPORT_FILE

    out = Path(out_dir)
    if not OutputFolder(out).has(REPORT_FILE):
        return None
    try:
        return rerender_report(out)  # None while a build holds the folder: it renders the report itself
    except (OSError, ValueError, KeyError) as exc:
        warnings.warn(
            f"verdicts imported, but {out / REPORT_FILE} was not updated ({type(exc).__name__}: {exc}); "
            f"run 'qagen report {out}'",
            stacklevel=2,
        )
        return None


MAX_REVIEW_BYTES = 1 << 30  # 1 GiB: far beyond a review spreadsheet


def _read_files(files: Sequence[PathLike]) -> list[tuple[str, str]]:
    from qagen.errors import DamagedFileError
    from qagen.io import read_bounded
    from qagen.review.importer import ReviewImportError, decode_review_bytes

    if not files:
        raise ReviewError("name at least one review file (e.g. review-*.csv)")
    unique = list(dict.fromkeys(Path(f).resolve() for f in files))
    out, problems = [], []
    for path in unique:
        try:
            out.append((path.name, decode_review_bytes(read_bounded(path, MAX_REVIEW_BYTES, "review file"), path.name)))
        except ReviewImportError as exc:
            problems += exc.problems
        except DamagedFileError as exc:  # an endless "file" such as /dev/zero
            problems.append(str(exc))
        except OSError as exc:
            problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
    if problems:
        raise ReviewImportError(problems)
    return out


def _busy(folder: Path) -> ReviewError:
    return ReviewError(f"a qagen build is writing {folder}; run the import when it has finished")


def format_export(result: ExportResult, out_dir: PathLike) -> str:
    """What ``qagen review export`` prints."""
    n = len(result.files)
    head = f"wrote {n} review file(s): {result.sampled} of {result.available} items"
    if result.overlap:
        head += f", {result.overlap} of them labelled by {result.overlap_raters} reviewers each (agreement set)"
    lines = [head] + [f"  {path}  ({result.rows[name]} items, reviewer {name})" for name, path in result.files.items()]
    if result.fmt == "csv":
        lines.append(f"Reviewers mark one label column per row ({', '.join(LABELS)}) and may add a comment.")
        lines.append("They may also answer two checks with yes or no (blank: not judged):")
        lines += [f"  {check}: {CHECK_HELP[check]}" for check in CHECKS]
        pattern = " ".join(shlex.quote(display_name(p)) for p in result.files.values())
    else:
        lines.append("Reviewers open their .html file in a browser (works offline), label, and press Save CSV.")
        pattern = " ".join(shlex.quote(display_name(p.with_suffix(".csv").name)) for p in result.files.values())
    lines.append(f"Then: qagen review import {shlex.quote(display_name(out_dir))} {pattern}")
    return "\n".join(lines)


def format_import(result: ImportResult, out_dir: PathLike) -> str:
    """What ``qagen review import`` prints: counts, the label distribution, approval and agreement."""
    c, s = result.counts, result.summary
    lines = [
        f"imported {c['verdicts']} verdict(s) from {c['files']} file(s) into {result.path} "
        f"({c['added']} new, {c['replaced']} replaced, {c['changed_label']} with another label; "
        f"{c['unlabelled_rows']} row(s) not labelled yet)",
        f"labels of the {s['verdicts']} current verdict(s):",
    ]
    total = max(s["verdicts"], 1)
    for lab, n in s["labels"].items():
        share = n / total
        lines.append(f"  {LABEL_NAMES[lab]:<32}{n:>6}  {share:6.1%}  {'#' * round(share * 40)}")
    by_rule = s["approved_by_rule"]
    lines.append(
        f"items: {s['items']}; reviewed {s['reviewed']}; approved {by_rule['all']} (every verdict correct), "
        f"{by_rule['majority']} (majority correct); not reviewed {s['not_reviewed']}"
        + (f"; {s['stale_verdicts']} stale verdict(s) ignored" if s["stale_verdicts"] else "")
    )
    lines.append(agreement_line(s["agreement"]))
    lines += checks_lines(s.get("checks"))
    lines.append(f"next: qagen build DOCS -o {out_dir} --approved-only   (splits and exports from approved items)")
    return "\n".join(lines)


def agreement_line(a: dict[str, Any]) -> str:
    """One line on inter-rater agreement."""
    if not a["method"]:
        return f"agreement: {a['note']}"
    name = "Cohen's kappa" if a["method"] == "cohen" else "Fleiss' kappa"
    labels, approved = a["labels"], a["approved"]
    return (
        f"agreement on {a['overlap_items']} item(s) labelled by {len(a['raters'])} reviewers "
        f"({', '.join(a['raters'])}): {name} {_k(labels['kappa'])} ({labels['interpretation'] or 'undefined'}) "
        f"on the 5 labels, {_k(approved['kappa'])} on approved or not; raw agreement "
        f"{labels['observed_agreement']:.0%}" + (f"; {a['note']}" if a["method"] == "fleiss" else "")
    )


def checks_lines(checks: dict[str, Any] | None) -> list[str]:
    """Lines on the natural / answerable checks and the correct share, overall, per item type and per rule."""
    if not checks:
        return []
    overall = checks["overall"]
    if not overall["judged"]:
        return [f"checks: no current verdict answers {' or '.join(CHECKS)} (optional yes/no columns)"]
    lines = [
        f"checks of the {overall['verdicts']} current verdict(s), {overall['judged']} with "
        f"{' or '.join(CHECKS)} answered (yes / judged; blank: not judged; correct: label correct, of all verdicts):",
        *_check_table("type", [("all", overall), *checks["by_type"].items()], 12),
    ]
    by_rule = checks.get("by_rule") or {}
    if by_rule:  # which rule wrote the items that read badly (switch it off: generate.offline_rules_off)
        lines += _check_table("rule", list(by_rule.items()), max(12, *(len(r) + 2 for r in by_rule)))
    return lines


def _check_table(head: str, groups: list[tuple[str, dict[str, Any]]], width: int) -> list[str]:
    """A header and one row per group: verdicts, judged and a share cell per measure."""
    from qagen.review.checks import MEASURES

    rows = [f"  {head:<{width}}{'verdicts':>8}{'judged':>8}" + "".join(f"{m:>16}" for m in MEASURES)]
    for name, group in groups:
        cells = "".join(f"{_share_cell(group[m]):>16}" for m in MEASURES)
        rows.append(f"  {name:<{width}}{group['verdicts']:>8}{group['judged']:>8}{cells}")
    return rows


def _share_cell(stats: dict[str, Any]) -> str:
    if not stats["judged"]:
        return "-"
    return f"{stats['yes']}/{stats['judged']} {stats['share']:6.1%}"


def _k(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"
