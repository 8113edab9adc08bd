"""Memory and time of the topics stage for 10,000 sections, embedding excluded and included.

Texts are real: the sections of ../shared/corpora/manuals/ (qagen.ingest, parse cache shared
with topics_sweep.py), cut at paragraph/sentence boundaries into pieces until there are
--n distinct texts. Each measurement runs in a fresh child process, so its peak RSS and its
one-off costs (imports, numba compiling UMAP) are its own:

- ``topics``: load precomputed embeddings, fit_topics twice (cold: imports + numba; warm),
  plus a warm fit without the robustness refit;
- ``embed+topics``: embed the texts with the bundled all-MiniLM-L6-v2 (no cache), then
  fit_topics; also the TF-IDF embedder's time on the same texts.

    python benchmarks/topics_scale.py [--n 10000] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from measure import peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def load_sections(cache: Path) -> list[tuple[str, str]]:
    """(text, document) of every section of the manuals.

    Reads the parse cache written by qagen.ingest (for instance by topics_sweep.py) directly,
    whatever parser version wrote it, so this benchmark never waits for a re-parse; parses
    the corpus when the cache is empty.
    """
    files = sorted((cache / "parse").glob("*/*.json"))
    if files:
        out = []
        for f in files:
            for s in json.loads(f.read_text(encoding="utf-8"))["sections"]:
                out.append((f"{s['heading']}\n{s['text']}".strip(), f.name[:16]))
        return out
    from qagen.config import ParseConfig
    from qagen.ingest import discover, parse_documents

    docs = SHARED / "corpora" / "manuals"
    result = parse_documents(discover(docs, ["pdf"]), docs, ParseConfig(), cache_dir=cache / "parse")
    return [(f"{s.heading}\n{s.text}".strip(), s.doc_id) for s in result.sections]


def make_texts(n: int, cache: Path) -> tuple[list[str], list[str]]:
    """``n`` distinct real texts with their document ids."""
    sections = load_sections(cache)
    limit = 4000
    while True:
        pieces = [(p, d) for text, d in sections for p in split_text(text, limit)]
        unique = list({p: d for p, d in pieces}.items())
        if len(unique) >= n or limit < 200:
            break
        limit = int(limit * 0.8)
    unique = unique[:n]
    return [t for t, _ in unique], [d for _, d in unique]


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most ~limit characters, cut after sentence ends or line breaks."""
    parts = re.split(r"(?<=[.!?:])\s+|\n", text)
    out, current = [], ""
    for part in parts:
        if current and len(current) + len(part) > limit:
            out.append(current.strip())
            current = ""
        current += " " + part
    if current.strip():
        out.append(current.strip())
    return [p for p in out if len(p) >= 20]


def child(mode: str, work: Path) -> dict:
    """One measurement in this (fresh) process."""
    out: dict = {"mode": mode, "rss_start_mb": peak_rss_mb()}
    data = json.loads((work / "texts.json").read_text())
    texts, doc_ids = data["texts"], data["doc_ids"]
    t0 = time.perf_counter()
    from qagen.config import TopicsConfig
    from qagen.embed import get_embedder
    from qagen.topics import fit_topics

    if mode == "embed+topics":
        embedder = get_embedder("minilm")
        start = time.perf_counter()
        embeddings = embedder.embed(texts)
        out["embed_s"] = time.perf_counter() - start
        out["rss_after_embed_mb"] = peak_rss_mb()
        np.save(work / "embeddings.npy", embeddings)
        start = time.perf_counter()
        get_embedder("tfidf").embed(texts)
        out["tfidf_embed_s"] = time.perf_counter() - start
    else:
        embeddings = np.load(work / "embeddings.npy")
    config = TopicsConfig()
    start = time.perf_counter()
    result = fit_topics(texts, embeddings, doc_ids, config, seed=0)
    out["fit_cold_s"] = time.perf_counter() - start
    out["rss_after_fit_mb"] = peak_rss_mb()
    out["metrics"] = result.metrics
    if mode == "topics":
        start = time.perf_counter()
        fit_topics(texts, embeddings, doc_ids, config, seed=0)
        out["fit_warm_s"] = time.perf_counter() - start
        start = time.perf_counter()
        fit_topics(texts, embeddings, doc_ids, config.model_copy(update={"robustness_check": False}), seed=0)
        out["fit_warm_no_robustness_s"] = time.perf_counter() - start
        out["rss_after_warm_mb"] = peak_rss_mb()
    out["total_s"] = time.perf_counter() - t0
    return out


def run_child(mode: str, work: Path) -> dict:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--work", str(work)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = time.perf_counter() - start  # includes interpreter start and every import
    return result


def report(n: int, n_docs: int, emb: dict, top: dict) -> str:
    m = top["metrics"]
    return "\n".join(
        [
            f"### Topics at scale: {n:,} sections",
            "",
            f"{n:,} real texts ({n_docs} manuals, sections cut at sentence boundaries), 2 cores, "
            "each run a fresh process.",
            "",
            "| run | wall time | peak RSS |",
            "|---|---:|---:|",
            f"| embedding excluded: process total (imports, numba compile, fit with robustness) | "
            f"{top['process_wall_s']:.0f} s | {top['rss_after_fit_mb']:.0f} MB |",
            f"| — first fit_topics (UMAP compile + fit + noisy refit + metrics) | {top['fit_cold_s']:.0f} s | |",
            f"| — warm fit_topics with robustness refit | {top['fit_warm_s']:.0f} s | "
            f"{top['rss_after_warm_mb']:.0f} MB |",
            f"| — warm fit_topics without robustness refit | {top['fit_warm_no_robustness_s']:.0f} s | |",
            f"| embedding included: process total (MiniLM embed + fit with robustness) | "
            f"{emb['process_wall_s']:.0f} s | {emb['rss_after_fit_mb']:.0f} MB |",
            f"| — all-MiniLM-L6-v2 embedding ({n / emb['embed_s']:.0f} texts/s) | {emb['embed_s']:.0f} s | "
            f"{emb['rss_after_embed_mb']:.0f} MB |",
            f"| — tfidf embedding (fit + transform) | {emb['tfidf_embed_s']:.1f} s | |",
            "",
            f"Fit result: {m['n_topics']} topics, {m['outlier_pct']:.1f}% outliers, DC {m['dc']:.1f} vs "
            f"{m['dc_shuffled']:.1f} shuffled, robustness {m['robustness']:.3f}.",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/qagen-bench-cache"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "topics_scale.md")
    parser.add_argument("--child", choices=["topics", "embed+topics"])
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.work), default=float))
        return
    work = args.cache / f"scale-{args.n}"
    work.mkdir(parents=True, exist_ok=True)
    texts, doc_ids = make_texts(args.n, args.cache)
    print(f"{len(texts)} texts from {len(set(doc_ids))} documents")
    (work / "texts.json").write_text(json.dumps({"texts": texts, "doc_ids": doc_ids}))
    emb = run_child("embed+topics", work)
    print(json.dumps(emb, indent=1, default=float))
    top = run_child("topics", work)
    print(json.dumps(top, indent=1, default=float))
    text = report(len(texts), len(set(doc_ids)), emb, top)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
