"""Section detection scored against ground truth nobody here wrote: the PDFs' own outlines.

For every PDF in ``shared/corpora/{manuals,short-docs}`` that has an outline (bookmarks),
qagen's section headings are matched one-to-one with the outline titles (fuzzy: numbering,
case and punctuation ignored, difflib ratio >= 0.8). A merged heading "A › B" counts as the
two headings it joins; the continuation parts "(2/3)" of split sections are not headings.

    python benchmarks/parse_quality.py [--corpus manuals short-docs] [--engine pdfium|pdfplumber]
                                       [--limit N] [--workers N]

Also compares qagen's offline token estimate with the exact cl100k_base count when the
optional ``bpe-openai`` package is installed (pip install bpe-openai); skipped otherwise.
Skips cleanly (exit 0) when ``../shared/corpora`` is absent.
"""

from __future__ import annotations

import argparse
import difflib
import re
import statistics
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPORA = SHARED / "corpora"
MATCH_RATIO = 0.8
_NUMBERING = re.compile(
    r"^(?:appendix\s+[a-z]\b\.?\s*|(?:(?:chapter|section|part|appendix)\s+)?"
    r"(?:\d+|[a-z](?=\.\d)|[ivxlc]+(?=\s))(?:\.\d+)*\.?(?:\s+|$))"
)
_PART = re.compile(r" \((\d+)/\d+\)$")


def normalize_title(text: str) -> str:
    """Lowercase, NFKC, without leading numbering, punctuation or extra spaces."""
    text = unicodedata.normalize("NFKC", text).lower().strip()
    text = _NUMBERING.sub("", text)
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


def detected_headings(headings: list[str]) -> list[str]:
    """The headings a list of section headings stands for (merged ones split, parts dropped)."""
    out: list[str] = []
    for heading in headings:
        part = _PART.search(heading)
        if part and part.group(1) != "1":
            continue
        heading = _PART.sub("", heading)
        out += [h for h in heading.split(" › ") if h.strip()]
    return out


def match(truth: list[str], found: list[str]) -> int:
    """Number of one-to-one fuzzy matches between normalized titles (greedy, best first)."""
    pairs: list[tuple[float, int, int]] = []
    for i, t in enumerate(truth):
        sm = difflib.SequenceMatcher(None, "", t, autojunk=False)
        for j, f in enumerate(found):
            sm.set_seq1(f)
            if sm.real_quick_ratio() >= MATCH_RATIO and sm.quick_ratio() >= MATCH_RATIO:
                r = sm.ratio()
                if r >= MATCH_RATIO:
                    pairs.append((r, i, j))
    used_t: set[int] = set()
    used_f: set[int] = set()
    for _, i, j in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if i not in used_t and j not in used_f:
            used_t.add(i)
            used_f.add(j)
    return len(used_t)


@dataclass
class Score:
    name: str
    truth: int
    found: int
    tp: int

    @property
    def precision(self) -> float:
        return self.tp / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.truth if self.truth else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def outline_titles(path: Path) -> list[str]:
    import pdfplumber
    from pdfminer.pdfdocument import PDFNoOutlines

    try:
        with pdfplumber.open(path) as pdf:
            return [str(o[1]) for o in pdf.doc.get_outlines() if o[1]]
    except PDFNoOutlines:
        return []
    except Exception:
        return []


# An index's letter groups ("A", "B", ..., "Symbols"): bookmarked by some LaTeX classes, kept
# by qagen inside the one index section (26 one-letter sections would be noise downstream).
_INDEX_GROUP = re.compile(r"^(?:[^\W\d_]|symbols|numbers)$")


def score_document(name: str, outline: list[str], headings: list[str], index_groups: bool = True) -> Score:
    truth = [t for t in (normalize_title(x) for x in outline) if t]
    if not index_groups:
        truth = [t for t in truth if not _INDEX_GROUP.match(t)]
    found = [f for f in (normalize_title(x) for x in detected_headings(headings)) if f]
    return Score(name, len(truth), len(found), match(truth, found))


def total(scores: list[Score], name: str) -> Score:
    return Score(name, sum(s.truth for s in scores), sum(s.found for s in scores), sum(s.tp for s in scores))


def token_check(texts: list[str]) -> str | None:
    """A table comparing count_tokens with exact cl100k_base counts, or None without bpe-openai."""
    try:
        import bpe_openai
    except ImportError:
        return None
    from qagen.ingest import count_tokens

    enc = bpe_openai.get_encoding("cl100k_base")
    pairs = [(count_tokens(t), len(enc.encode(t))) for t in texts if t.strip()]
    exact = sum(e for _, e in pairs)
    approx = sum(a for a, _ in pairs)
    errors = [abs(a - e) / e for a, e in pairs if e >= 200]
    return "\n".join(
        [
            "| texts | exact cl100k tokens | qagen estimate | total error | median abs error (texts >= 200 tokens) |",
            "|---|---|---|---|---|",
            f"| {len(pairs)} | {exact:,} | {approx:,} | {100 * (approx - exact) / exact:+.1f}% "
            f"| {100 * statistics.median(errors):.1f}% |",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="+", default=["manuals", "short-docs"])
    parser.add_argument("--limit", type=int, default=0, help="at most this many PDFs per corpus (0 = all)")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--engine", default="pdfium", choices=["pdfium", "pdfplumber"], help="parse.engine")
    parser.add_argument("--cache", type=Path, default=None, help="parse cache folder (reused across runs)")
    parser.add_argument("--worst", type=int, default=10, help="list this many worst documents")
    args = parser.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"skipped: {CORPORA} not found")
        return 0

    from qagen.config import ParseConfig
    from qagen.ingest import parse_documents

    rows: list[Score] = []
    without_index: list[tuple[str, list[Score]]] = []
    groups: list[tuple[str, list[Score]]] = []
    texts: list[str] = []
    failures = 0
    for corpus in args.corpus:
        files = sorted((CORPORA / corpus).glob("*.pdf"))
        outlines = {p: outline_titles(p) for p in files}
        files = [p for p in files if outlines[p]]
        if args.limit:
            files = files[: args.limit]
        if not files:
            continue
        start = time.perf_counter()
        config = ParseConfig(workers=args.workers, engine=args.engine)
        result = parse_documents(files, CORPORA, config, cache_dir=args.cache)
        elapsed = time.perf_counter() - start
        by_doc: dict[str, list[str]] = {}
        for s in result.sections:
            by_doc.setdefault(s.doc_path, []).append(s.heading)
            texts.append(f"{s.heading}\n{s.text}")
        failures += sum(d.status != "ok" for d in result.documents)
        scores = [score_document(p.name, outlines[p], by_doc.get(f"{corpus}/{p.name}", [])) for p in files]
        rows += scores
        groups.append((f"{corpus} ({len(files)} PDFs, parsed in {elapsed:.0f} s)", scores))
        plain = [score_document(p.name, outlines[p], by_doc.get(f"{corpus}/{p.name}", []), False) for p in files]
        without_index.append((f"{corpus}, outline without index letter groups", plain))
    if not rows:
        print("skipped: no PDF with an outline found")
        return 0
    groups.append((f"all ({len(rows)} PDFs)", rows))
    groups += without_index
    print(f"engine: {args.engine}\n")
    print("| corpus | outline headings | detected | matched | precision | recall | F1 (micro) | F1 (macro) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, scores in groups:
        t = total(scores, name)
        macro = statistics.mean(r.f1 for r in scores)
        counts = f"{t.truth} | {t.found} | {t.tp}"
        print(f"| {name} | {counts} | {t.precision:.3f} | {t.recall:.3f} | {t.f1:.3f} | {macro:.3f} |")
    print(f"\nparse failures: {failures}")
    if args.worst:
        print("\nworst documents (F1, precision, recall, outline, detected):")
        for r in sorted(rows, key=lambda r: r.f1)[: args.worst]:
            print(f"  {r.f1:.2f}  P={r.precision:.2f} R={r.recall:.2f}  {r.truth:4d} {r.found:4d}  {r.name}")
    table = token_check(texts)
    print("\ntoken estimate vs exact cl100k_base:\n" + (table or "skipped (pip install bpe-openai to compare)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
