"""Every unanswerable question a chatbot answered, laid out for a reader to judge.

A chatbot that answers a question placed as unanswerable has either hallucinated or found
the answer in the iteration's corpus (then the question was never unanswerable, and the
dataset's label is false). This script takes a build and an answers file (for example from
``examples/baseline_rag.py``), lists every (item, iteration) where the question was placed
as unanswerable and the answer is not a refusal, with the bot's answer, the pages it
retrieved (text excerpts from that iteration's corpus) and the item's own answer, and writes
them to a CSV with an empty ``corpus_answers`` column (yes / no / partly) for a reader.

Run again with ``--labels FILE`` (the filled CSV) to count: how many answered unanswerables
the corpus really answers (false labels), and how many of the items the question-side check
moved out of the unanswerable role (``splits/leakage.json``) the bot would otherwise have
answered.

    python examples/baseline_rag.py OUT
    python benchmarks/unanswerable_audit.py OUT --csv OUT/unanswerable_audit.csv
    # fill corpus_answers, then
    python benchmarks/unanswerable_audit.py OUT --labels OUT/unanswerable_audit.csv --json result.json
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from qagen.io import safe_cell, write_text
from qagen.score.refusal import RefusalDetector

PHRASES = ("i cannot answer", "i can't answer", "i do not know", "i don't know", "cannot be answered")
EXCERPT = 700


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def answered_unanswerables(out: Path, answers: Path) -> list[dict[str, Any]]:
    """The rows to examine: (item, iteration) placed as unanswerable whose answer is not a refusal."""
    cross = json.loads((out / "crosseval.json").read_text(encoding="utf-8"))
    detector = RefusalDetector(PHRASES, refusal_answer=cross.get("refusal_answer") or "")
    by_key = {(a["item_id"], str(a["iteration"])): a for a in _jsonl(answers)}
    rows: list[dict[str, Any]] = []
    for it in cross["iterations"]:
        name = it["name"]
        folder = out / Path(it["questions"]).parent
        pages = {p["id"]: p["text"] for p in _jsonl(folder / "pages.jsonl")}
        for q in _jsonl(folder / "unanswerable.jsonl"):
            answer = by_key.get((q["id"], name)) or by_key.get((q["id"], str(it.get("number", ""))))
            if answer is None or detector(answer["answer"]):
                continue
            retrieved = list(answer.get("retrieved_page_ids") or [])[:2]
            excerpt = "\n---\n".join(f"[{pid}] {pages.get(pid, '')[:EXCERPT]}" for pid in retrieved)
            rows.append(
                {
                    "iteration": name,
                    "item_id": q["id"],
                    "type": q.get("type", ""),
                    "question": q["question"],
                    "item_answer": q.get("answer") or q.get("reference_answer") or "",
                    "bot_answer": answer["answer"],
                    "retrieved_pages": excerpt,
                    "corpus_answers": "",
                    "note": "",
                }
            )
    return rows


def moved_by_question_check(out: Path) -> list[dict[str, Any]]:
    """Items the question-side check took out of the unanswerable role (as recorded in leakage.json)."""
    path = out / "splits" / "leakage.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = data.get("items") or data.get("flagged_items") or []
    if isinstance(entries, dict):
        entries = [{"id": k, **v} for k, v in entries.items()]
    return [e for e in entries if (e.get("answerability") or {}).get("answerable")]


def csv_rows(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV text, text cells guarded against spreadsheet formulas (as every qagen CSV)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["item_id"], lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: safe_cell(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows)
    return buf.getvalue()


def summarize(labels: Path) -> dict[str, Any]:
    rows = list(csv.DictReader(labels.open(encoding="utf-8")))
    verdicts = [r.get("corpus_answers", "").strip().lower() for r in rows]
    judged = [v for v in verdicts if v]
    return {
        "answered_unanswerables": len(rows),
        "judged": len(judged),
        "corpus_answers_yes": sum(v in ("yes", "y") for v in judged),
        "corpus_answers_partly": sum(v == "partly" for v in judged),
        "corpus_answers_no": sum(v in ("no", "n") for v in judged),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="build folder")
    parser.add_argument("--answers", type=Path, help="answers file (default OUT/answers.jsonl)")
    parser.add_argument("--csv", type=Path, help="write the rows to examine here")
    parser.add_argument("--labels", type=Path, help="a filled CSV: count the verdicts")
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args(argv)
    answers = args.answers or args.out / "answers.jsonl"
    rows = answered_unanswerables(args.out, answers)
    result: dict[str, Any] = {
        "build": str(args.out),
        "answered_unanswerables": len(rows),
        "moved_by_question_check": len(moved_by_question_check(args.out)),
    }
    if args.csv:
        write_text(args.csv, csv_rows(rows))
        print(f"wrote {len(rows)} row(s) to {args.csv}", file=sys.stderr)
    if args.labels:
        result.update(summarize(args.labels))
    text = json.dumps(result, indent=2)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
