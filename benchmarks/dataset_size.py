"""What a build holds for measuring: items, documents giving items, test cells, kinds (issue 43).

    python benchmarks/dataset_size.py OUT [OUT ...]

One Markdown row per build folder: accepted items (and those before variants and false premises),
documents that gave an item of the documents parsed, the test set's cells per iteration (answerable /
unanswerable, out-of-scope among the unanswerable), the kinds present with their counts, and the
topic outliers the folds kept. Reads only the build's files (items.jsonl, documents.jsonl,
crosseval.json, folds.json).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def row(out: Path) -> str:
    items = _jsonl(out / "items.jsonl")
    docs = [d for d in _jsonl(out / "documents.jsonl") if d.get("status") == "ok"]
    originals = [it for it in items if not it.get("variant_of")]
    giving = {it["source"]["doc_id"] for it in items}
    test = sum(it["split"] == "test" for it in originals)
    cells = []
    for it in json.loads((out / "crosseval.json").read_text()).get("iterations", []):
        if it["set"] == "test":
            c = it["counts"]
            scope = c.get("unanswerable_out_of_scope", 0)
            cells.append(f"{c['answerable']} / {c['unanswerable'] + scope}" + (f" ({scope} oos)" if scope else ""))
    kinds = Counter()
    for it in items:
        if it.get("premise") == "false":
            kinds["false premise"] += 1
        elif it.get("formulation", "natural") != "natural":
            kinds[it["formulation"]] += 1
        else:
            kinds[it["type"]] += 1
    metrics = json.loads((out / "folds.json").read_text())["metrics"]
    assigned = metrics.get("n_outliers_assigned")
    outliers = f"{assigned if assigned is not None else 0} of {metrics['n_outliers']}"
    shown = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    return (
        f"| {out.name} | {len(items)} ({len(originals)} originals) | {test} | {len(giving)} / {len(docs)} | "
        f"{' and '.join(cells)} | {shown} | {outliers} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outs", type=Path, nargs="+")
    args = ap.parse_args()
    head = ["build", "items", "test items", "documents giving items", "test cells (answerable / unanswerable)"]
    print("| " + " | ".join([*head, "kinds", "outliers kept"]) + " |")
    print("|---|---|---|---|---|---|---|")
    for out in args.outs:
        print(row(out))


if __name__ == "__main__":
    main()
