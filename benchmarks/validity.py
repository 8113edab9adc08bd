"""Item validity measured on a build folder, with rules independent of qagen's own filters.

The filters decide what a build keeps; this script measures what came out, with its own
simpler rules, so a filter cannot pass its own exam:

- ``numbered``: the question holds its source heading's number ("2.3", "A.1"), a dotted
  section number, or "section 4" / "chapter 2" / "§ 3";
- ``refers_to_text``: "this section", "the passage", "the text above", "this document", ...;
- ``no_subject``: none of the question's content words is specific to its document (found in
  the source document and in at most a fifth of the corpus's documents) or in its title;
- ``code_like``: more than a third of the answer's tokens look like code or markup
  (``code_like_not_asked``: the same, among questions that do not ask for a command, macro,
  option or code)
  (``\\command``, braces, ``$``, ``=``, ``;``, ``->``, ...);
- openings: the share of the most common first three words of the questions;
- the splits: unanswerable records per iteration, how many the question-side check moved
  out, and the evidence it kept.

    python benchmarks/validity.py OUT [--json results/x.json] [--label NAME]
    python benchmarks/validity.py --sample-manuals DEST [--n 40] [--seed 0] [--exclude DIR]

``--sample-manuals`` copies a seeded sample of ``shared/corpora/manuals`` into DEST (the
40-document sample the validity issue measures on); ``--exclude DIR`` leaves out the PDFs of
DIR, for a held-out sample no rule was written from.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = _words(
    "a an the and or of to in on at for with by from as is are was were be been being do does did can could "
    "should would will shall may might must i me my we our you your he she it its they them their this that "
    "these those what which who whom whose when where why how there here not no yes if then than so about into "
    "over under after before between through during without within any all some each every other more most "
    "such only own same too very just also use used using get make need know want have has had one two"
)
# Words every manual uses: a question made only of these (with stop words) names no subject.
_GENERIC = _words(
    "option options command commands package packages document documents section sections example examples "
    "file files user users manual guide introduction implementation usage installation version value values "
    "default defaults way ways work works mean means purpose role function functions feature features "
    "information provide provides provided say says described describe describes define defined mentioned "
    "text page pages chapter parameter parameters argument arguments environment environments macro macros "
    "setting settings case cases number name type types list thing things"
)
_SELF_REFERENCE = re.compile(
    r"\b(?:this|these) (?:section|passage|text|paragraph|excerpt|extract|document|chapter)s?\b"
    r"|\bthe (?:section|passage|paragraph|excerpt|extract)\b(?! (?:of|on|about|for|called|titled|named)\b)"
    r"|\bthe (?:text|document) (?:above|below|provided|given)\b"
    r"|\baccording to the (?:text|section|passage|document|excerpt)\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“][^\"”]*[\"”]")  # a quoted sentence (a cloze) may say "the document"
_NUMBERED = re.compile(
    r"(?<![\w.{\[])(?<!version )(?<![Vv]ersione )(?<![Vv]ersión )(?<![Vv]ersão )(?<![Vv]ersie )(?<!v)"
    r"(?:\d+\.)+\d+(?![\w.])"
    r"|\b(?i:section|chapter|appendix)\s+(?:\d+|[IVX]+|[A-Z])\b|§\s*\d",
)
_HEADING_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+\S")
_ASKS_CODE = re.compile(
    r"\b(?:commands?|macros?|syntax|code|options?|environments?|keys?|what (?:do|should) I (?:type|write))\b"
    # the same in the other languages of the corpora: a cloze asking "which command is missing"
    r"|\b(?:comandos?|comandi|commando'?s?|commandes?|befehle?|opzion[ei]|opci[oó]n(?:es)?|opç(?:ão|ões)|optie)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(r"\\[A-Za-z@]+|[{}$^_=;<>|#&~]|->|::|\(\)|\[\w*\]|^\w+\(|^[a-z]+[A-Z]\w*$")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def content_words(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in _STOP and not w.isdigit() and len(w) > 1}


def is_numbered(question: str, headings: list[str]) -> bool:
    if _NUMBERED.search(question):
        return True
    for heading in headings:
        for part in heading.split(" › "):
            m = _HEADING_NUMBER.match(part)
            if m and re.search(rf"(?<![\w.]){re.escape(m.group(1))}(?![\w.])\s+\w", question):
                return True
    return False


def code_share(text: str) -> float:
    parts = text.split()
    if not parts:
        return 0.0
    return sum(bool(_CODE_TOKEN.search(p)) for p in parts) / len(parts)


def opening(question: str) -> str:
    return " ".join(tokens(question)[:3])


def load_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(out: Path) -> dict:
    items = load_jsonl(out / "items.jsonl")
    sections = {s["id"]: s for s in load_jsonl(out / "sections.jsonl")}
    documents = {d["id"]: d for d in load_jsonl(out / "documents.jsonl")}
    doc_words: dict[str, set[str]] = {}
    for s in sections.values():
        doc_words.setdefault(s["doc_id"], set()).update(content_words(f"{s['heading']} {s['text']}"))
    n_docs = max(1, len(doc_words))
    df = Counter(w for words in doc_words.values() for w in words)
    specific_max = max(1, n_docs // 5)

    rows = []
    for it in items:
        src = [sections[sid] for sid in it["source"]["section_ids"] if sid in sections]
        doc_id = it["source"]["doc_id"]
        title = (documents.get(doc_id) or {}).get("title") or ""
        q_words = content_words(it["question"]) - _GENERIC
        in_doc = doc_words.get(doc_id, set())
        subject = any(df[w] <= specific_max and w in in_doc for w in q_words) or bool(q_words & content_words(title))
        answer = it["answer"] if it["type"] != "mcq" else (it.get("rationale") or it["answer"])
        rows.append(
            {
                "type": it["type"],
                "numbered": is_numbered(_QUOTED.sub(" ", it["question"]), [s["heading"] for s in src]),
                "refers_to_text": bool(_SELF_REFERENCE.search(_QUOTED.sub(" ", it["question"]))),
                "no_subject": not subject,
                "code_like": code_share(it["answer"]) > 1 / 3 or (it["type"] == "mcq" and code_share(answer) > 1 / 3),
                "opening": opening(it["question"]),
                "asks_for_code": bool(_ASKS_CODE.search(it["question"])),
                "question": it["question"],
            }
        )
    n = len(rows)
    share = lambda key: round(100 * sum(r[key] for r in rows) / n, 1) if n else 0.0  # noqa: E731
    openings = Counter(r["opening"] for r in rows).most_common(5)
    result = {
        "items": n,
        "by_type": dict(Counter(r["type"] for r in rows)),
        "numbered_pct": share("numbered"),
        "refers_to_text_pct": share("refers_to_text"),
        "no_subject_pct": share("no_subject"),
        "code_like_pct": share("code_like"),
        "code_like_not_asked_pct": round(100 * sum(r["code_like"] and not r["asks_for_code"] for r in rows) / n, 1)
        if n
        else 0.0,
        "examples": {
            key: [r["question"] for r in rows if r[key]][:5] for key in ("numbered", "refers_to_text", "no_subject")
        },
        "top_openings": [{"opening": o, "pct": round(100 * c / n, 1)} for o, c in openings] if n else [],
        "documents": n_docs,
        "documents_with_items": len({it["source"]["doc_id"] for it in items}),
    }
    result["splits"] = _splits(out)
    return result


def _splits(out: Path) -> dict:
    crosseval = out / "crosseval.json"
    if not crosseval.is_file():
        return {}
    data = json.loads(crosseval.read_text(encoding="utf-8"))
    cells = {}
    for it in data.get("iterations", []):
        cells[it["name"]] = it.get("counts", {})
    leak = data.get("leakage", {})
    return {"iterations": cells, "leakage": {k: v for k, v in leak.items() if k != "report"}}


def sample_manuals(dest: Path, n: int, seed: int, exclude: Path | None = None) -> list[str]:
    src = SHARED / "corpora" / "manuals"
    if not src.is_dir():
        sys.exit(f"{src} not found")
    taken = {p.name for p in exclude.glob("*.pdf")} if exclude else set()
    names = sorted(p.name for p in src.glob("*.pdf") if p.name not in taken)
    chosen = sorted(random.Random(seed).sample(names, n))
    dest.mkdir(parents=True, exist_ok=True)
    for name in chosen:
        shutil.copyfile(src / name, dest / name)
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, help="a build folder")
    ap.add_argument("--json", type=Path, help="also write the measures here")
    ap.add_argument("--label", default="", help="name of this build in the JSON")
    ap.add_argument("--sample-manuals", type=Path, metavar="DEST")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exclude", type=Path, metavar="DIR", help="leave out the PDFs of DIR (a held-out sample)")
    args = ap.parse_args(argv)
    if args.sample_manuals:
        chosen = sample_manuals(args.sample_manuals, args.n, args.seed, args.exclude)
        print(f"{len(chosen)} manuals copied to {args.sample_manuals}")
        return 0
    if args.out is None:
        ap.error("give a build folder or --sample-manuals DEST")
    result = measure(args.out)
    if args.label:
        result = {"label": args.label, **result}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
