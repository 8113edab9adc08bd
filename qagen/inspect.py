"""``qagen inspect``: what an output folder holds, as text or JSON."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from qagen.io import iter_jsonl, read_json
from qagen.runner import MANIFEST, BuildError


def summary_line(result: Any) -> str:
    """One line after a build: what ran, what was skipped, where the output is."""
    ran, skipped = result.ran, result.skipped
    parts = [f"done: {len(ran)} stage(s) ran"]
    if skipped:
        parts.append(f"{len(skipped)} unchanged and skipped")
    items = result.manifest.get("stages", {}).get("filter", {}).get("counts", {}).get("accepted")
    if items is not None:
        parts.append(f"{items} items")
    report = Path(result.out_dir) / "report.html"
    where = f"see {report}" if report.is_file() else f"qagen inspect {result.out_dir}"
    return ", ".join(parts) + f"; {where}"


def collect(out: Path) -> dict[str, Any]:
    """Counts per stage (from the manifest), per item type, per fold and split, and the funnel."""
    out = Path(out)
    manifest_path = out / MANIFEST
    if not manifest_path.is_file():
        raise BuildError(f"{out} has no {MANIFEST}; run 'qagen build DOCS -o {out}' first")
    manifest = read_json(manifest_path)
    data: dict[str, Any] = {
        "out": str(out),
        "qagen_version": manifest.get("qagen_version"),
        "stages": {
            name: {
                "status": "skipped" if entry.get("skipped") else entry.get("status"),
                "seconds": entry.get("seconds"),
                "counts": entry.get("counts", {}),
                "errors": len(entry.get("errors", [])),
            }
            for name, entry in manifest.get("stages", {}).items()
        },
    }
    items_path = out / "items.jsonl"
    if items_path.is_file():
        by_type: Counter[str] = Counter()
        by_cell: Counter[str] = Counter()
        for item in iter_jsonl(items_path):
            by_type[item["type"]] += 1
            by_cell[f"{item['split']}/fold_{item['fold']}/{item['type']}"] += 1
        data["items_by_type"] = dict(sorted(by_type.items()))
        data["items_by_split_fold_type"] = dict(sorted(by_cell.items()))
    funnel_path = out / "funnel.json"
    if funnel_path.is_file():
        data["funnel"] = read_json(funnel_path)
    return data


def inspect_dir(out: Path, as_json: bool = False) -> str:
    """The text (or JSON) that ``qagen inspect`` prints."""
    data = collect(out)
    if as_json:
        return json.dumps(data, indent=2)
    lines = [f"{data['out']} (qagen {data['qagen_version']})", "", "stage      status     seconds  counts"]
    for name, st in data["stages"].items():
        counts = ", ".join(f"{k}={v}" for k, v in st["counts"].items())
        errs = f"  [{st['errors']} problem(s)]" if st["errors"] else ""
        lines.append(f"{name:<10} {st['status'] or '-':<10} {st['seconds'] or 0:>7.2f}  {counts}{errs}")
    if "items_by_type" in data:
        lines += ["", "items by type: " + ", ".join(f"{k}={v}" for k, v in data["items_by_type"].items())]
        lines.append("items by split/fold/type:")
        lines += [f"  {k:<32} {v}" for k, v in data["items_by_split_fold_type"].items()]
    if "funnel" in data:
        from qagen.filters import format_funnel

        lines += ["", "filter funnel:", format_funnel(data["funnel"]["funnel"])]
    return "\n".join(lines)
