"""Parse speed: qagen's PDF parse against bare pdfplumber word extraction on the same files.

    python benchmarks/parse_speed.py [--corpus short-docs] [--max-pages 240] [--repeat 1]

Measures pages per second for
  1. bare ``page.extract_words()`` (pdfplumber defaults),
  2. bare ``page.extract_words(**WORD_OPTIONS)`` (the options qagen uses: font name and size
     per word, tighter word gaps): the floor for any font-aware parser,
  3. qagen's whole parse of each file in this process (words + layout + running headers +
     headings + clean-up): its overhead over 2 is the cost of the section logic,
  4. ``parse_documents`` with 1 worker process and with one per core (2 here), no cache.

1-3 run file by file, interleaved, and are timed in CPU seconds of this process, so other
processes on a busy machine do not skew them; 4 is wall-clock time (the load average is
printed: on a machine whose cores are busy with other work the speed-up cannot show).
Skips cleanly (exit 0) when ``../shared/corpora`` is absent.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPORA = SHARED / "corpora"


def bare(path: Path, options: dict) -> int:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            page.extract_words(**options)
            page.close()
        return len(pdf.pages)


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def pick(corpus: str, max_pages: int) -> list[tuple[Path, int]]:
    """Files of the corpus in name order until ``max_pages`` pages (page counts from MANIFEST.tsv)."""
    manifest = CORPORA / corpus / "MANIFEST.tsv"
    pages: dict[str, int] = {}
    for line in manifest.read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        pages[cols[0]] = int(cols[4])
    out, total = [], 0
    for name in sorted(pages):
        if total >= max_pages:
            break
        out.append((CORPORA / corpus / name, pages[name]))
        total += pages[name]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="short-docs")
    parser.add_argument("--max-pages", type=int, default=240)
    parser.add_argument("--repeat", type=int, default=1, help="repeat the in-process comparison")
    args = parser.parse_args(argv)
    if not (CORPORA / args.corpus).is_dir():
        print(f"skipped: {CORPORA / args.corpus} not found")
        return 0
    logging.getLogger("pdfminer").setLevel(logging.ERROR)

    from qagen.config import ParseConfig
    from qagen.ingest import parse_documents
    from qagen.ingest.parallel import default_workers
    from qagen.ingest.pdf import WORD_OPTIONS, parse_pdf

    files = pick(args.corpus, args.max_pages)
    n_pages = sum(n for _, n in files)
    config = ParseConfig()
    times = {"default": 0.0, "fonts": 0.0, "qagen": 0.0}
    for _ in range(args.repeat):
        for path, _n in files:  # interleaved, so load changes hit every method alike
            for name, run in (
                ("default", lambda p=path: bare(p, {})),
                ("fonts", lambda p=path: bare(p, WORD_OPTIONS)),
                ("qagen", lambda p=path: parse_pdf(p, config)),
            ):
                start = time.process_time()
                run()
                times[name] += time.process_time() - start
    pages_done = n_pages * args.repeat

    cores = default_workers(0, len(files))
    pool: dict[int, tuple[float, float]] = {}  # workers -> (wall seconds, CPU seconds of the workers)
    for workers in sorted({1, cores}):
        start, cpu = time.perf_counter(), _children_cpu()
        parse_documents([p for p, _ in files], CORPORA, ParseConfig(workers=workers))
        pool[workers] = (time.perf_counter() - start, _children_cpu() - cpu)

    load = os.getloadavg()[0]
    print(f"{len(files)} PDFs, {n_pages} pages from {args.corpus}; {os.cpu_count()} cores; load average {load:.1f}\n")
    print("One process: pages per CPU second of that process. Worker pools: pages per wall-clock second.\n")
    print("| method | pages/s | time vs bare words with fonts |")
    print("|---|---|---|")
    rows = [
        ("pdfplumber extract_words() (defaults), 1 process", times["default"]),
        ("pdfplumber extract_words(fontname, size, x_tolerance_ratio) = qagen's words, 1 process", times["fonts"]),
        ("qagen parse (words + layout + headers + sections), 1 process", times["qagen"]),
    ]
    for name, t in rows:
        print(f"| {name} | {pages_done / t:.1f} | {100 * (t / times['fonts'] - 1):+.0f}% |")
    for workers, (wall, cpu) in pool.items():
        print(f"| qagen parse_documents, {workers} worker process(es), wall clock | {n_pages / wall:.1f} | |")
        print(f"| qagen parse_documents, {workers} worker process(es), per worker CPU second | {n_pages / cpu:.1f} | |")
    if len(pool) > 1:
        print(f"\nwall-clock speed-up with {cores} processes: {pool[1][0] / pool[cores][0]:.2f}x")
    print(f"section logic overhead over bare word extraction: {100 * (times['qagen'] / times['fonts'] - 1):+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
