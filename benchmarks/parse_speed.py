"""Parse speed: qagen's two PDF engines against the bare extraction under each, on the same files.

    python benchmarks/parse_speed.py [--corpus manuals] [--max-pages 0] [--repeat 1] [--no-pool]

Measures pages per second for
  1. PDFium's bare text: load each page and its text page, read the text (pypdfium2); the
     physical limit of any parser built on PDFium,
  2. qagen's PDFium words (font name, size, box per word): the floor of ``parse.engine=pdfium``,
  3. qagen's whole parse with ``parse.engine=pdfium`` (the default): words + layout + running
     headers + headings + clean-up,
  4. bare pdfplumber ``extract_words`` with the options qagen used (font name and size per word),
  5. qagen's whole parse with ``parse.engine=pdfplumber`` (the path before PDFium),
  6. ``parse_documents`` (default engine) with 1 worker process and with one per core, no cache.

1-5 run file by file, interleaved, and are timed in CPU seconds of this process, so other
processes on a busy machine do not skew them; the ratios (5 over 3 above all) are measured in
one run on the same files. 6 is wall-clock time (the load average is printed).
``--max-pages 0`` takes the whole corpus. ``--before REV`` also times qagen's parse as it was at
git revision REV (checked out in a temporary worktree, run in a child process on the same files,
CPU seconds of that process): "before" in the table, e.g. the pdfplumber path before PDFium came.
Skips cleanly (exit 0) when ``../shared/corpora`` is absent.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPORA = SHARED / "corpora"


def bare_plumber(path: Path, options: dict) -> int:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            page.extract_words(**options)
            page.close()
        return len(pdf.pages)


def bare_pdfium(path: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        for page in pdf:
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
        return len(pdf)
    finally:
        pdf.close()


def pdfium_words(path: Path) -> int:
    from qagen.ingest.pdf import open_reader

    reader = open_reader(path, "pdfium")
    try:
        for index in range(reader.n_pages):
            reader.words(index)
        return reader.n_pages
    finally:
        reader.close()


_TIME_FILES = """
import sys, time
from pathlib import Path
from qagen.config import ParseConfig
from qagen.ingest.pdf import parse_pdf
config = ParseConfig()
start = time.process_time()
for name in sys.argv[1:]:
    try:
        parse_pdf(Path(name), config)
    except Exception:
        pass
import qagen
assert Path(qagen.__file__).resolve().is_relative_to(Path.cwd().resolve()), qagen.__file__
print(time.process_time() - start)
"""


def time_revision(rev: str, files: list[Path]) -> float:
    """CPU seconds of qagen's parse at git revision ``rev`` over ``files``, in a child process."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="qagen-before-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), rev], check=True, capture_output=True
        )
        try:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run(  # from the worktree: "-c" puts the working folder first on the path
                [sys.executable, "-c", _TIME_FILES, *(str(f.resolve()) for f in files)],
                env=env,
                cwd=tree,
                check=True,
                capture_output=True,
                text=True,
            )
            return float(out.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], check=False)


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
        if max_pages and total >= max_pages:
            break
        out.append((CORPORA / corpus / name, pages[name]))
        total += pages[name]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="short-docs")
    parser.add_argument("--max-pages", type=int, default=240)
    parser.add_argument("--repeat", type=int, default=1, help="repeat the in-process comparison")
    parser.add_argument("--no-pool", action="store_true", help="skip the worker-pool runs")
    parser.add_argument("--before", default="", help="also time the parse of this git revision (e.g. ada33d0)")
    args = parser.parse_args(argv)
    if not (CORPORA / args.corpus).is_dir():
        print(f"skipped: {CORPORA / args.corpus} not found")
        return 0
    logging.getLogger("pdfminer").setLevel(logging.ERROR)

    from qagen.config import ParseConfig
    from qagen.ingest import parse_documents
    from qagen.ingest.model import DocumentError
    from qagen.ingest.parallel import default_workers
    from qagen.ingest.pdf import WORD_OPTIONS, parse_pdf

    files = pick(args.corpus, args.max_pages)
    n_pages = sum(n for _, n in files)
    fast, slow = ParseConfig(engine="pdfium"), ParseConfig(engine="pdfplumber")
    methods = {
        "pdfium-bare": lambda p: bare_pdfium(p),
        "pdfium-words": lambda p: pdfium_words(p),
        "pdfium-qagen": lambda p: parse_pdf(p, fast),
        "plumber-words": lambda p: bare_plumber(p, WORD_OPTIONS),
        "plumber-qagen": lambda p: parse_pdf(p, slow),
    }
    times = dict.fromkeys(methods, 0.0)
    failed: set[str] = set()
    for _ in range(args.repeat):
        for path, _n in files:  # interleaved, so load changes hit every method alike
            for name, run in methods.items():
                start = time.process_time()
                try:
                    run(path)
                except DocumentError:  # the same files fail either way (too few words, say)
                    failed.add(f"{path.name} ({name})")
                times[name] += time.process_time() - start
    pages_done = n_pages * args.repeat

    before = time_revision(args.before, [p for p, _ in files]) if args.before else None

    pool: dict[int, tuple[float, float]] = {}  # workers -> (wall seconds, CPU seconds of the workers)
    cores = default_workers(0, len(files))
    if not args.no_pool:
        for workers in sorted({1, cores}):
            start, cpu = time.perf_counter(), _children_cpu()
            parse_documents([p for p, _ in files], CORPORA, ParseConfig(workers=workers))
            pool[workers] = (time.perf_counter() - start, _children_cpu() - cpu)

    load = os.getloadavg()[0]
    print(f"{len(files)} PDFs, {n_pages} pages from {args.corpus}; {os.cpu_count()} cores; load average {load:.1f}\n")
    print("One process: pages per CPU second of that process. Worker pools: pages per wall-clock second.\n")
    print("| method | pages/s | CPU s | vs qagen's pdfplumber path |")
    print("|---|---|---|---|")
    rows = [
        ("PDFium bare text (load page, text page, read text)", "pdfium-bare"),
        ("PDFium words with fonts and boxes (qagen's reader)", "pdfium-words"),
        ("**qagen parse, parse.engine=pdfium** (words + layout + headers + sections)", "pdfium-qagen"),
        ("pdfplumber extract_words(fontname, size, x_tolerance_ratio)", "plumber-words"),
        ("qagen parse, parse.engine=pdfplumber", "plumber-qagen"),
    ]
    base = times["plumber-qagen"]
    for label, key in rows:
        t = times[key]
        print(f"| {label} | {pages_done / t:.1f} | {t:.1f} | {base / t:.1f}x |")
    if before is not None:
        label = f"qagen parse at {args.before} (before), in a child process"
        print(f"| {label} | {n_pages / before:.1f} | {before:.1f} | {base * n_pages / pages_done / before:.1f}x |")
    for workers, (wall, cpu) in pool.items():
        label = f"qagen parse_documents (pdfium), {workers} worker process(es)"
        print(f"| {label}, wall clock | {n_pages / wall:.1f} | | |")
        print(f"| {label}, per worker CPU second | {n_pages / cpu:.1f} | | |")
    if len(pool) > 1:
        print(f"\nwall-clock speed-up with {cores} processes: {pool[1][0] / pool[cores][0]:.2f}x")
    print(f"whole parse, pdfium over pdfplumber: {base / times['pdfium-qagen']:.1f}x faster")
    if before is not None:
        then = before * pages_done / n_pages
        print(f"whole parse, pdfium over the parse at {args.before}: {then / times['pdfium-qagen']:.1f}x faster")
    over = 100 * (times["pdfium-qagen"] / times["pdfium-bare"] - 1)
    print(f"qagen's pdfium parse over PDFium's bare text: {over:+.0f}%")
    if failed:
        print(f"documents refused (timed all the same): {', '.join(sorted(failed))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
