"""Topic sweep on real manuals (paper Section 5.1): UMAP n_components x HDBSCAN min_cluster_size.

Sections come from qagen.ingest.parse_documents on ../shared/corpora/manuals/ (font-aware
pdfplumber parsing), embedded with the bundled all-MiniLM-L6-v2 (or --embedder) through the
on-disk embedding cache, then swept with qagen.topics.sweep: geometry, robustness, document
agreement DC beside its shuffled baseline. The recommended setting is fitted once with BERTopic
to show its topics. Writes benchmarks/results/topics.md (and a JSON of the rows).

    python benchmarks/topics_sweep.py [--embedder minilm] [--grid n_components=5,10,15 ...] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections import Counter
from pathlib import Path

import numpy as np

from qagen.config import ParseConfig, TopicsConfig
from qagen.embed import CachedEmbedder, get_embedder
from qagen.topics import fit_topics, run_sweep_command

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_GRID = ["n_components=5,10,15,30,50", "min_cluster_size=10,20,30,50"]


def load_sections(docs: Path, cache: Path) -> tuple[list[str], list[str], dict[str, float]]:
    """(texts, doc_ids, timings) of every section of every PDF in ``docs`` (parse cache in ``cache``)."""
    from qagen.ingest import discover, parse_documents

    start = time.perf_counter()
    paths = discover(docs, ["pdf"])
    result = parse_documents(paths, docs, ParseConfig(), cache_dir=cache / "parse", progress=True)
    texts = [f"{s.heading}\n{s.text}".strip() for s in result.sections]
    reasons = Counter(p.reason for p in result.problems)
    timings = {"parse_s": time.perf_counter() - start, "documents": len(paths), "failed": len(result.problems)}
    if reasons:
        print("unusable documents:", ", ".join(f"{r} ×{n}" for r, n in reasons.most_common()))
    return texts, [s.doc_id for s in result.sections], timings


def topic_lines(result, limit: int = 12) -> list[str]:
    """The largest topics of a fit as Markdown list lines."""
    out = []
    for t in result.topics[:limit]:
        out.append(f"- topic {t.id} ({t.size} sections, {t.n_documents} documents): {', '.join(t.keywords[:6])}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=SHARED / "corpora" / "manuals")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--grid", nargs="+", default=DEFAULT_GRID)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/qagen-bench-cache"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "topics.md")
    args = parser.parse_args()
    if not args.docs.is_dir():
        raise SystemExit(f"corpus not found: {args.docs}")

    texts, doc_ids, timings = load_sections(args.docs, args.cache)
    print(f"{len(texts)} sections from {len(set(doc_ids))} documents, parsed in {timings['parse_s']:.0f} s")

    embedder = CachedEmbedder(get_embedder(args.embedder), args.cache / "embeddings.sqlite", progress=True)
    start = time.perf_counter()
    embeddings = embedder.embed(texts)
    embed_s = time.perf_counter() - start
    print(f"embedded with {embedder.id}: {embedder.misses} new, {embedder.hits} cached, {embed_s:.0f} s")

    config = TopicsConfig()
    start = time.perf_counter()
    report = run_sweep_command(texts, embeddings, doc_ids, args.grid, config, args.seed, progress=print)
    sweep_s = time.perf_counter() - start
    print(report.text)

    best = {k: report.best[k] for k in ("n_components", "min_cluster_size") if k in report.best}
    start = time.perf_counter()
    fitted = fit_topics(texts, embeddings, doc_ids, config.model_copy(update=best), seed=args.seed)
    fit_s = time.perf_counter() - start
    paper = (
        fit_topics(texts, embeddings, doc_ids, config, seed=args.seed)
        if best != {"n_components": 15, "min_cluster_size": 30}
        else fitted
    )

    lines = [
        "## Topics: BERTopic sweep on real manuals",
        "",
        f"Corpus: `{args.docs.name}/` ({timings['documents']} PDFs, {timings['failed']} unusable), "
        f"{len(texts)} sections from qagen.ingest; embedder `{embedder.id}`; seed {args.seed}; "
        f"{platform.machine()}, {__import__('os').cpu_count()} cores. "
        f"Command: `python benchmarks/topics_sweep.py`.",
        "",
        report.text,
        "",
        "### Document agreement against chance",
        "",
        "| setting | topics | outliers % | DC | DC shuffled | lift |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, res in (("recommended " + str(best), fitted), ("paper (15, 30)", paper)):
        m = res.metrics
        lines.append(
            f"| {name} | {m['n_topics']} | {m['outlier_pct']:.1f} | {m['dc']:.1f} | {m['dc_shuffled']:.1f} | "
            f"{m['dc_lift']:+.1f} |"
        )
    lines += [
        "",
        "Largest topics of the recommended setting (c-TF-IDF keywords):",
        "",
        *topic_lines(fitted),
        "",
        f"Timings: embedding {embed_s:.0f} s ({embedder.misses} texts embedded, {embedder.hits} from cache); "
        f"sweep of {len(report.rows)} settings {sweep_s:.0f} s (UMAP once per n_components, plus one noisy refit each, "
        f"numba compilation included); one BERTopic fit with robustness {fit_s:.0f} s.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(report.to_json(), indent=1, default=float), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
