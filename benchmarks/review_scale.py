"""Review export (CSV and HTML form) and import at scale: 10,000 items, 5 reviewers, 2,000 overlap.

    python benchmarks/review_scale.py [--items 10000] [--reviewers 5] [--overlap 2000] [--repeat 3]
        [--source DIR] [--work DIR] [--results benchmarks/results/review_scale.md]

The build folder is synthetic but made of real items: the items, sections and topics of an
offline example build (``--source``; default ``benchmarks/.work/baseline/out``, built from
``examples/docs`` when absent) cloned round by round until there are ``--items`` items, each
clone with a new 16-hex id and its own copy of its sections (so every review row carries its
real passage). ``tests/test_review*.py`` have no large-set helper (their build holds 24 items).

Each step runs in a fresh child process that calls the API the CLI calls (``export_review``,
``import_review``) and measures itself around that one call with ``resource``: wall, CPU
(user+sys) and peak RSS (``ru_maxrss``; the RSS before the call is reported beside it). The
call includes its lazy imports (numpy, scikit-learn, statsmodels...), as a CLI run would. The
parent, a small process, reaps each child with ``os.wait4`` for the whole process (interpreter
start and imports included). Steps, each ``--repeat`` times (median reported, min beside it):

- export CSV: one file per reviewer, 12,000 rows in all (every item once, the overlap items twice);
- export HTML: the offline form, one file per reviewer;
- import: all reviewers' files, every row labelled (12,000 verdicts), into an empty ``reviews.jsonl``;
- re-import: the same files again (every verdict replaces itself).

The labelled files are written once by a reviewer simulation (``fill``, not timed): labels drawn
per item (70 % correct), the second rater of an overlap item disagreeing 20 % of the time, a
comment with quotes, a line break and accents on every tenth row.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from measure import machine, measure_call, run_child

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work" / "review_scale"
SOURCE = ROOT / "benchmarks" / ".work" / "baseline" / "out"
RESULTS = ROOT / "benchmarks" / "results" / "review_scale.md"
TIMED = ("export_csv", "export_html", "import", "reimport")
LABEL_WEIGHTS = {"correct": 70, "incomplete": 10, "wrong": 8, "too_specific": 7, "irrelevant": 5}


# --- steps (run in the child) --------------------------------------------------------------------


def synthesize(source: Path, build: Path, n_items: int) -> dict[str, Any]:
    """Clone ``source``'s items (and their sections) with new ids until there are ``n_items``."""
    from qagen.io import read_json, read_jsonl, stable_hash, write_json, write_jsonl
    from qagen.records import Item, Section, replace

    items, sections = read_jsonl(source / "items.jsonl", Item), read_jsonl(source / "sections.jsonl", Section)
    new_items: list[Item] = []
    new_sections: list[Section] = []
    rounds = 0
    while len(new_items) < n_items:
        suffix = f"-c{rounds:03d}"
        new_sections += [replace(s, id=s.id + suffix) for s in sections]
        for it in items[: n_items - len(new_items)]:
            src = replace(it.source, section_ids=tuple(s + suffix for s in it.source.section_ids))
            new_items.append(replace(it, id=stable_hash([it.id, rounds])[:16], source=src))
        rounds += 1
    build.mkdir(parents=True, exist_ok=True)
    for stale in ("reviews.jsonl",):
        (build / stale).unlink(missing_ok=True)
    write_jsonl(build / "items.jsonl", new_items)
    write_jsonl(build / "sections.jsonl", new_sections)
    write_json(build / "topics.json", read_json(source / "topics.json"))
    return {"items": len(new_items), "sections": len(new_sections), "rounds": rounds, "source_items": len(items)}


def export(build: Path, dest: Path, reviewers: int, overlap: int) -> dict[str, Any]:
    from qagen.commands.review import export_review

    dest.parent.mkdir(parents=True, exist_ok=True)
    result = export_review(build, dest, reviewers=reviewers, overlap=overlap, force=True)
    return {
        "rows": sum(result.rows.values()),
        "rows_per_reviewer": result.rows,
        "bytes": {name: p.stat().st_size for name, p in result.files.items()},
        "overlap": result.overlap,
    }


def fill(csv_dir: Path, filled_dir: Path) -> dict[str, Any]:
    """Label every row of every exported CSV as a reviewer would, into ``filled_dir``."""
    import csv
    import io
    import random

    filled_dir.mkdir(parents=True, exist_ok=True)
    first_rater: dict[str, str] = {}
    rows_done = 0
    for path in sorted(csv_dir.glob("review-*.csv")):
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline=""))
        header, rows = list(reader.fieldnames or []), list(reader)
        for n, row in enumerate(rows):
            rng = random.Random(f"{row['item_id']}:{row['reviewer']}")
            label = rng.choices(list(LABEL_WEIGHTS), weights=list(LABEL_WEIGHTS.values()))[0]
            if row["item_id"] in first_rater and rng.random() >= 0.2:
                label = first_rater[row["item_id"]]  # the second rater agrees 80 % of the time
            first_rater.setdefault(row["item_id"], label)
            row[label] = "x"
            if n % 10 == 0:
                row["comment"] = f'{row["reviewer"]}: "mostly" fine,\nsee page 2 — é ü'
        with open(filled_dir / path.name, "w", encoding="utf-8-sig", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=header)
            writer.writeheader()
            writer.writerows(rows)
        rows_done += len(rows)
    return {"rows": rows_done, "files": len(list(filled_dir.glob("*.csv")))}


def do_import(build: Path, filled_dir: Path, fresh: bool) -> dict[str, Any]:
    from qagen.commands.review import import_review

    if fresh:
        (build / "reviews.jsonl").unlink(missing_ok=True)
    result = import_review(build, sorted(filled_dir.glob("*.csv")))
    agreement = result.summary["agreement"]
    return {
        "counts": result.counts,
        "approved": result.summary["approved_by_rule"],
        "kappa_labels": agreement["labels"]["kappa"] if agreement.get("labels") else None,
        "agreement_method": agreement["method"],
        "overlap_items": agreement.get("overlap_items"),
        "reviews_bytes": result.path.stat().st_size,
    }


def run_step(args: argparse.Namespace) -> dict[str, Any]:
    """Run one step, measuring only the call itself."""

    work, build = args.work, args.work / "build"
    calls = {
        "synthesize": lambda: synthesize(args.source, build, args.items),
        "export_csv": lambda: export(build, work / "csv" / "review.csv", args.reviewers, args.overlap),
        "export_html": lambda: export(build, work / "html" / "review.html", args.reviewers, args.overlap),
        "fill": lambda: fill(work / "csv", work / "filled"),
        "import": lambda: do_import(build, work / "filled", fresh=True),
        "reimport": lambda: do_import(build, work / "filled", fresh=False),
    }
    import qagen.commands.review  # noqa: F401  (the module the CLI imports; its lazy imports stay in the call)

    info, usage = measure_call(calls[args.step])
    return {"step": args.step, **usage, "load_1min": round(os.getloadavg()[0], 2), **info}


# --- parent --------------------------------------------------------------------------------------


def child(args: argparse.Namespace, step: str) -> dict[str, Any]:
    """Run ``step`` in a fresh process; its own measurement plus the process's ``os.wait4`` usage."""
    cmd = [sys.executable, __file__, "--step", step, "--work", str(args.work), "--source", str(args.source)]
    cmd += ["--items", str(args.items), "--reviewers", str(args.reviewers), "--overlap", str(args.overlap)]
    run = run_child(cmd, cwd=ROOT)
    out = run["output"]
    if run["rc"] != 0:
        raise SystemExit(f"step {step} failed (exit {run['rc']}):\n{out[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    result["process"] = {k: run[k] for k in ("wall_s", "cpu_s", "peak_rss_mb")}
    print(f"{step}: {result['wall_s']} s wall, {result['cpu_s']} s CPU, peak {result['peak_rss_mb']} MB, "
          f"load {result['load_1min']}", flush=True)  # fmt: skip
    return result


def ensure_source(source: Path) -> None:
    if (source / "items.jsonl").is_file():
        return
    if source != SOURCE:
        raise SystemExit(f"{source} has no items.jsonl; point --source at a qagen build folder")
    cmd = [sys.executable, "-m", "qagen.cli", "build", str(ROOT / "examples" / "docs"), "-o", str(source), "-q"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and min of the measured figures over the repeats."""

    def stats(values: list[float]) -> dict[str, float]:
        return {"median": round(statistics.median(values), 3), "min": round(min(values), 3)}

    return {
        "wall_s": stats([r["wall_s"] for r in runs]),
        "cpu_s": stats([r["cpu_s"] for r in runs]),
        "peak_rss_mb": stats([r["peak_rss_mb"] for r in runs]),
        "rss_before_mb": stats([r["rss_before_mb"] for r in runs]),
        "process_wall_s": stats([r["process"]["wall_s"] for r in runs]),
        "process_cpu_s": stats([r["process"]["cpu_s"] for r in runs]),
        "load_1min": [r["load_1min"] for r in runs],
    }


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def markdown(report: dict[str, Any]) -> str:
    m, s, a = report["machine"], report["synthesized"], report["args"]
    runs, summ = report["runs"], report["summary"]
    csv_bytes = sum(runs["export_csv"][0]["bytes"].values())
    html_bytes = sum(runs["export_html"][0]["bytes"].values())
    imp = runs["import"][0]
    sizes = {
        "export_csv": f"{_mb(csv_bytes)} in {len(runs['export_csv'][0]['bytes'])} files",
        "export_html": f"{_mb(html_bytes)} in {len(runs['export_html'][0]['bytes'])} files",
        "import": f"reviews.jsonl {_mb(imp['reviews_bytes'])}",
        "reimport": f"reviews.jsonl {_mb(runs['reimport'][0]['reviews_bytes'])}",
    }
    names = {
        "export_csv": f"export CSV ({runs['export_csv'][0]['rows']:,} rows)",
        "export_html": f"export HTML form ({runs['export_html'][0]['rows']:,} rows)",
        "import": f"import {imp['counts']['verdicts']:,} verdicts (empty reviews.jsonl)",
        "reimport": f"re-import the same {runs['reimport'][0]['counts']['verdicts']:,} (all replaced)",
    }
    lines = [
        "# Review export and import at scale (`python benchmarks/review_scale.py`)",
        "",
        f"Synthetic build: {s['items']:,} items and {s['sections']:,} sections, {s['rounds']} clones of the "
        f"{s['source_items']} items of an offline example build (`{a['source']}`) with new ids; "
        f"{a['reviewers']} reviewers, {a['overlap']:,} overlap items labelled by 2 reviewers each. Commit "
        f"{m['commit']}, {m['nproc']} cores shared with other jobs: load average {m['loadavg_start'][0]} at the start, "
        f"{report['loadavg_end'][0]} at the end. {a['repeat']} runs per step, each in a fresh process; median "
        "(min) shown.",
        "",
        "| step | wall s | CPU s | peak RSS MB (before the call) | process wall / CPU s | output | load (1 min) |",
        "|---|---|---|---|---|---|---|",
    ]
    for step in TIMED:
        x = summ[step]
        lines.append(
            f"| {names[step]} | {x['wall_s']['median']:.2f} ({x['wall_s']['min']:.2f}) "
            f"| {x['cpu_s']['median']:.2f} ({x['cpu_s']['min']:.2f}) "
            f"| {x['peak_rss_mb']['median']:.0f} ({x['rss_before_mb']['median']:.0f}) "
            f"| {x['process_wall_s']['median']:.2f} / {x['process_cpu_s']['median']:.2f} "
            f"| {sizes[step]} | {', '.join(f'{v:.1f}' for v in x['load_1min'])} |"
        )
    c = imp["counts"]
    lines += [
        "",
        "*wall / CPU / peak RSS*: measured inside the child around the one API call (`export_review`, "
        "`import_review`, what the CLI calls), lazy imports included; *before the call* is the RSS after "
        "importing `qagen.commands.review`. *process*: the whole child (interpreter start and imports "
        "included) from `os.wait4`. CPU is user+system time of the process; on a loaded machine wall time "
        "exceeds it.",
        "",
        f"Import: {c['added']:,} added, {c['replaced']} replaced, {c['unlabelled_rows']} rows unlabelled; approved "
        f"{imp['approved']['all']:,} (every verdict correct) / {imp['approved']['majority']:,} (majority); "
        f"{imp['agreement_method']} kappa on the labels {imp['kappa_labels']} over {imp['overlap_items']} overlap "
        "items (simulated reviewers: 70 % correct, the second rater agreeing 80 % of the time).",
        "",
        "Per reviewer: CSV "
        + ", ".join(f"{k} {_mb(v)}" for k, v in runs["export_csv"][0]["bytes"].items())
        + "; HTML "
        + ", ".join(f"{k} {_mb(v)}" for k, v in runs["export_html"][0]["bytes"].items())
        + "; rows "
        + ", ".join(f"{k} {v:,}" for k, v in runs["export_csv"][0]["rows_per_reviewer"].items())
        + ".",
        "",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000, help="items in the synthetic build")
    parser.add_argument("--reviewers", type=int, default=5, help="reviewers (r1..rN)")
    parser.add_argument("--overlap", type=int, default=2_000, help="items labelled by 2 reviewers")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timed step")
    parser.add_argument("--source", type=Path, default=SOURCE, help="build whose items are cloned")
    parser.add_argument("--work", type=Path, default=WORK, help="synthetic build and review files")
    parser.add_argument("--results", type=Path, default=RESULTS, help="markdown to write")
    parser.add_argument("--step", help=argparse.SUPPRESS)  # internal: run one step in this process
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.work, args.source = args.work.resolve(), args.source.resolve()
    if args.step:
        print(json.dumps(run_step(args)))
        return 0
    report: dict[str, Any] = {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items() if v}}
    if args.source.is_relative_to(ROOT):
        report["args"]["source"] = str(args.source.relative_to(ROOT))
    report["args"] |= {"reviewers": args.reviewers, "overlap": args.overlap, "repeat": args.repeat}
    ensure_source(args.source)
    report["synthesized"] = child(args, "synthesize")
    runs: dict[str, list[dict[str, Any]]] = {"export_csv": [], "export_html": []}
    for _ in range(args.repeat):
        for step in runs:
            runs[step].append(child(args, step))
    report["fill"] = child(args, "fill")
    runs["import"], runs["reimport"] = [], []
    for _ in range(args.repeat):
        for step in ("import", "reimport"):
            runs[step].append(child(args, step))
    report["runs"], report["summary"] = runs, {step: summarize(runs[step]) for step in TIMED}
    report["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(markdown(report), encoding="utf-8")
    (args.work / "review_scale.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.results} and {args.work / 'review_scale.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
