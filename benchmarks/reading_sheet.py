"""A reading sheet for the strict brief (``shared/READING.md``): a seeded sample of a build's items, each with
its source section(s), as Markdown for readers who have not seen the code; and the tally of their verdicts.

    python benchmarks/reading_sheet.py OUT --n 40 --seed 0 -o sheet.md
    python benchmarks/reading_sheet.py OUT --n 40 --unread benchmarks/results/reading --language de fr -o sheet.md
    python benchmarks/reading_sheet.py OUT --tally verdicts_r1.csv verdicts_r2.csv [--json results.json]

A verdicts file is CSV with the columns ``id,natural,self_contained,answerable,correct,labels,comment``
(Y or N; ``labels`` Y/N for multiple-choice items, empty otherwise).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections import defaultdict
from pathlib import Path

VERDICTS = ("natural", "self_contained", "answerable", "correct")
DERIVED = ("variant", "premise")  # rejections of kinds made from accepted items, not of candidates


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_ids(folder: Path) -> set[str]:
    """The ids of every item a verdicts file in ``folder`` judged (an item id is a hash of its type, source
    sections and question, so the same item in another build has the same id)."""
    ids: set[str] = set()
    for path in folder.glob("*.csv"):
        with path.open(encoding="utf-8") as fh:
            ids |= {row["id"].strip("` ") for row in csv.DictReader(fh) if row.get("id")}
    return ids


def sample(
    out: Path,
    n: int,
    seed: int,
    rejected: bool = False,
    unread: set[str] | None = None,
    languages: list[str] | None = None,
) -> list[dict]:
    """``n`` items (or rejections) drawn with ``seed``, every item type in it when the build has it; with
    ``unread``, only items whose id is not in it; with ``languages``, only items in those languages."""
    items = [
        i
        for i in _jsonl(out / ("rejected.jsonl" if rejected else "items.jsonl"))
        if i.get("formulation", "natural") == "natural"
        and i.get("filter") not in DERIVED  # a variant or false premise not made: its original is an item
        and (unread is None or i["id"] not in unread)
        and (not languages or i.get("language") in languages)
    ]
    rng = random.Random(seed)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        by_type[item["type"]].append(item)
    for group in by_type.values():
        rng.shuffle(group)
    chosen: list[dict] = []
    while len(chosen) < min(n, len(items)):
        for t in sorted(by_type):
            if by_type[t] and len(chosen) < n:
                chosen.append(by_type[t].pop())
    return sorted(chosen, key=lambda i: i["id"])


def sheet(out: Path, chosen: list[dict]) -> str:
    sections = {s["id"]: s for s in _jsonl(out / "sections.jsonl")}
    docs = {d["id"]: d for d in _jsonl(out / "documents.jsonl")}
    lines = [f"# Reading sheet: {len(chosen)} items\n"]
    for k, item in enumerate(chosen, 1):
        doc = docs.get(item["source"]["doc_id"], {})
        lines.append(f"## {k}. item `{item['id']}` ({item['type']}, language {item.get('language')})\n")
        lines.append(f"Document: {doc.get('title') or ''} ({Path(item['source'].get('doc_path', '')).name})\n")
        lines.append(f"**Question:** {item['question']}\n")
        if item.get("options"):
            for j, option in enumerate(item["options"]):
                mark = " (key)" if j == item.get("answer_index") else ""
                lines.append(f"- {chr(65 + j)}. {option}{mark}")
            lines.append(f"\nLabels: Bloom {item.get('bloom')}, scenario {item.get('scenario')}\n")
        lines.append(f"**Answer:** {item['answer']}\n")
        if item.get("filter"):
            lines.append(f"Rejected by filter `{item['filter']}`: {item.get('reason')}\n")
        for sid in item["source"]["section_ids"]:
            s = sections.get(sid, {})
            lines.append(f"Source section `{sid}` — heading: {s.get('heading', '')!r}\n")
            lines.append("```text\n" + (s.get("text", "") or "").strip() + "\n```\n")
    return "\n".join(lines)


def tally(out: Path, files: list[Path]) -> dict:
    items = {i["id"]: i for i in _jsonl(out / "items.jsonl")}
    items.update({i["id"]: i for i in _jsonl(out / "rejected.jsonl") if i["id"] not in items})
    rows = []
    for path in files:
        with path.open(encoding="utf-8") as fh:
            rows += [dict(r, reader=path.stem) for r in csv.DictReader(fh)]
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        item = items.get(row["id"].strip("` "))
        if item is None:
            continue
        yes = {v: row.get(v, "").strip().upper().startswith("Y") for v in VERDICTS}
        yes["all_four"] = all(yes[v] for v in VERDICTS)
        if item["type"] == "mcq":
            yes["labels"] = row.get("labels", "").strip().upper().startswith("Y")
        for key in ("all", f"type:{item['type']}", f"language:{item.get('language')}"):
            for verdict, value in yes.items():
                cells[key][verdict].append(int(value))
    result = {
        key: {v: {"yes": sum(x), "n": len(x), "share": round(sum(x) / len(x), 3)} for v, x in verdicts.items()}
        for key, verdicts in sorted(cells.items())
    }
    result["agreement"] = _agreement(rows)
    return result


def _agreement(rows: list[dict]) -> dict:
    by_item: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        by_item[row["id"].strip("` ")][row["reader"]] = row
    same = total = 0
    for readers in by_item.values():
        if len(readers) < 2:
            continue
        a, b = list(readers.values())[:2]
        for v in VERDICTS:
            total += 1
            same += a.get(v, "").strip()[:1].upper() == b.get(v, "").strip()[:1].upper()
    return {"verdicts_compared": total, "agreement": round(same / total, 3) if total else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", type=Path)
    ap.add_argument("--tally", type=Path, nargs="+")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rejected", action="store_true", help="sample rejected.jsonl instead of items.jsonl")
    ap.add_argument("--unread", type=Path, metavar="DIR", help="leave out items a verdicts file in DIR judged")
    ap.add_argument("--language", nargs="+", help="only items in these languages")
    args = ap.parse_args()
    if args.tally:
        result = tally(args.out, args.tally)
        text = json.dumps(result, indent=1)
        if args.json:
            args.json.write_text(text + "\n", encoding="utf-8")
        print(text)
        return 0
    unread = read_ids(args.unread) if args.unread else None
    text = sheet(args.out, sample(args.out, args.n, args.seed, args.rejected, unread, args.language))
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
