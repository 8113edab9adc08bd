"""Print a build's best items as Markdown tables: per item type, the best-scored item of each document.

    python examples/sample_items.py OUT [--per-type 10]
    qagen build examples/docs -o out 2>&1 | tee build.log
    python examples/sample_items.py out --readme README.md --summary build.log   # rewrite the README's samples

This is how the README's "Sample output" and the build summary under "What you get" are made from
``qagen build examples/docs -o out``; ``tests/test_readme.py`` checks them against a fresh build.
Long cells are cut at 160 characters; line breaks in answers show as " / ".
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

TYPES = (
    ("long_form", "Long-form"),
    ("factoid", "Factoid"),
    ("mcq", "Multiple choice (offline: Bloom B1 / scenario S1)"),
)
WIDTH = 160


def cut(text: str, width: int = WIDTH) -> str:
    text = text.replace("\n", " / ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def best_per_document(items: list[dict], kind: str, n: int) -> list[dict]:
    """The best-scored original item of ``kind`` in each document (ties: id), up to ``n``, by document path."""
    best: dict[str, dict] = {}
    for it in items:
        if it["type"] != kind or it.get("formulation", "natural") != "natural" or it.get("variant_of"):
            continue  # the originals only: no noisy or verbose variant, no false premise
        path = it["source"]["doc_path"]
        key = (-(it.get("score") or 0.0), it["id"])
        if path not in best or key < (-(best[path].get("score") or 0.0), best[path]["id"]):
            best[path] = it
    return [best[p] for p in sorted(best)][:n]


def tables(out: Path, per_type: int = 10) -> str:
    """The Markdown of the README's "Sample output": the item counts, then a table per item type."""
    items = [json.loads(x) for x in (out / "items.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    counts = Counter(it["type"] for it in items)
    lines = [f"{len(items)} accepted items (" + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) + ")", ""]
    for kind, title in TYPES:
        lines += [f"**{title}**", "", "| question | answer | document (fold, split) |", "|---|---|---|"]
        for it in best_per_document(items, kind, per_type):
            answer = it["answer"]
            if it.get("options"):
                answer = f"{answer} (options: {' / '.join(it['options'])})"
            where = f"{it['source']['doc_path']} ({it['fold']}, {it['split']})"
            lines.append(f"| {cut(it['question'])} | {cut(answer, 10_000 if it.get('options') else WIDTH)} | {where} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def summary(console: str, out: str) -> str:
    """The build's closing summary (``done:`` to ``next:``) from its console output, the folder named ``out``."""
    lines = console.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("done: "))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("next: "))
    return "\n".join(lines[start : end + 1]).replace(out, "out") + "\n"


def region(text: str, name: str) -> str:
    """What the README holds between ``<!-- sample:NAME -->`` and ``<!-- /sample:NAME -->``."""
    match = re.search(rf"<!-- sample:{name} -->\n(.*?)<!-- /sample:{name} -->", text, re.S)
    if match is None:
        raise SystemExit(f"no <!-- sample:{name} --> region in the README")
    return match.group(1)


def replace_region(text: str, name: str, body: str) -> str:
    region(text, name)  # it must be there
    return re.sub(rf"(<!-- sample:{name} -->\n).*?(<!-- /sample:{name} -->)", lambda m: m[1] + body + m[2], text,
                  flags=re.S)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--per-type", type=int, default=10)
    ap.add_argument("--readme", type=Path, help="rewrite this README's sample regions instead of printing")
    ap.add_argument("--summary", type=Path, help="the build's console output (for the README's summary block)")
    args = ap.parse_args(argv)
    body = tables(args.out, args.per_type)
    if args.readme is None:
        print(body)
        return 0
    text = replace_region(args.readme.read_text(encoding="utf-8"), "items", body)
    if args.summary is not None:
        done = summary(args.summary.read_text(encoding="utf-8"), str(args.out))
        text = replace_region(text, "summary", f"```\n{done}```\n")
    args.readme.write_text(text, encoding="utf-8")
    print(f"rewrote the sample regions of {args.readme}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
