"""Print a build's best items as Markdown tables: per item type, the best-scored item of each document.

    python examples/sample_items.py OUT [--per-type 10]

This is how the README's "Sample output" is made from ``qagen build examples/docs -o out``.
Long cells are cut at 160 characters; line breaks in answers show as " / ".
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

TYPES = (
    ("long_form", "Long-form"),
    ("factoid", "Factoid"),
    ("mcq", "Multiple choice (extractive: cloze-style, Bloom B1 / scenario S1)"),
)
WIDTH = 160


def cut(text: str, width: int = WIDTH) -> str:
    text = text.replace("\n", " / ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def best_per_document(items: list[dict], kind: str, n: int) -> list[dict]:
    """The best-scored natural item of ``kind`` in each document (ties: id), up to ``n``, by document path."""
    best: dict[str, dict] = {}
    for it in items:
        if it["type"] != kind or it.get("formulation", "natural") != "natural":
            continue
        path = it["source"]["doc_path"]
        key = (-(it.get("score") or 0.0), it["id"])
        if path not in best or key < (-(best[path].get("score") or 0.0), best[path]["id"]):
            best[path] = it
    return [best[p] for p in sorted(best)][:n]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--per-type", type=int, default=10)
    args = ap.parse_args(argv)
    items = [json.loads(x) for x in (args.out / "items.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    counts = Counter(it["type"] for it in items)
    print(f"{len(items)} accepted items (" + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) + ")\n")
    for kind, title in TYPES:
        print(f"**{title}**\n\n| question | answer | document (fold, split) |\n|---|---|---|")
        for it in best_per_document(items, kind, args.per_type):
            answer = it["answer"]
            if it.get("options"):
                answer = f"{answer} (options: {' / '.join(it['options'])})"
            where = f"{it['source']['doc_path']} ({it['fold']}, {it['split']})"
            print(f"| {cut(it['question'])} | {cut(answer, 10_000 if it.get('options') else WIDTH)} | {where} |")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
