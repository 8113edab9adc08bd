"""Topic sweep on real manuals (paper Section 5.1): UMAP n_components x HDBSCAN min_cluster_size.

Sections and embeddings come from an existing qagen build folder (``--out OUT``: its
sections.jsonl, embeddings.npy and embedding_ids.json, read only; nothing is parsed or embedded
again), or, without ``--out``, from parsing ``--docs`` with qagen.ingest and embedding with
MiniLM through the on-disk caches in ``--cache``. The grid runs through
qagen.topics.run_sweep (geometry, robustness, document agreement DC beside its shuffled
baseline); the recommended row is then fitted once with BERTopic using the ``--set`` settings
the sweep prints (``report.settings``), to show its topics. A fit whose effective parameters
equal those of OUT/topics.json is read from there instead of refitted. Writes
benchmarks/results/topics.md and topics.json (every number and note in them is written here).

    python benchmarks/topics_sweep.py --out /tmp/manuals_out [--grid n_components=5,10,15 ...]
    python benchmarks/topics_sweep.py --docs ../shared/corpora/manuals [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from qagen.config import ParseConfig, load_config
from qagen.io import read_json, read_jsonl, read_npy
from qagen.records import Section, section_text, to_dict
from qagen.topics import effective_params, fit_topics, run_sweep

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_GRID = ["n_components=5,10,15", "min_cluster_size=10,30,50"]
PAPER_SETTING = {"n_components": 15, "min_cluster_size": 30}


def load_build(out: Path) -> dict[str, Any]:
    """Sections, embeddings and corpus facts of a finished qagen build folder (up to ``embed`` at least)."""
    sections = read_jsonl(out / "sections.jsonl", Section)
    ids = read_json(out / "embedding_ids.json")
    if ids["ids"] != [s.id for s in sections]:
        raise SystemExit(f"{out}: embeddings.npy does not match sections.jsonl; rerun qagen build --force embed")
    manifest = read_json(out / "manifest.json")
    parse = manifest["stages"]["parse"]["counts"]
    topics = read_json(out / "topics.json") if (out / "topics.json").exists() else None
    return {
        "texts": [section_text(s) for s in sections],
        "doc_ids": [s.doc_id for s in sections],
        "embeddings": read_npy(out / "embeddings.npy"),
        "embedder": ids["embedder"],
        "documents": parse.get("documents"),
        "failed": parse.get("failed", 0),
        "source": f"build folder `{out}` (parse/embed stages finished "
        f"{manifest['stages']['embed'].get('finished_at', '?')}; read only, nothing re-parsed or re-embedded)",
        "build_topics": topics,
        "timings": {},
    }


def load_docs(docs: Path, cache: Path, embedder_name: str) -> dict[str, Any]:
    """Parse every PDF of ``docs`` and embed its sections, through the parse and embedding caches in ``cache``."""
    from qagen.embed import CachedEmbedder, get_embedder
    from qagen.ingest import discover, parse_documents

    start = time.perf_counter()
    paths = discover(docs, ["pdf"])
    result = parse_documents(paths, docs, ParseConfig(), cache_dir=cache / "parse", progress=True)
    parse_s = time.perf_counter() - start
    reasons = Counter(p.reason for p in result.problems)
    if reasons:
        print("unusable documents:", ", ".join(f"{r} ×{n}" for r, n in reasons.most_common()))
    texts = [section_text(s) for s in result.sections]
    embedder = CachedEmbedder(get_embedder(embedder_name), cache / "embeddings.sqlite", progress=True)
    start = time.perf_counter()
    embeddings = embedder.embed(texts)
    return {
        "texts": texts,
        "doc_ids": [s.doc_id for s in result.sections],
        "embeddings": embeddings,
        "embedder": embedder.id,
        "documents": len(paths),
        "failed": len(result.problems),
        "source": f"`{docs.name}/` parsed by qagen.ingest (caches in `{cache}`)",
        "build_topics": None,
        "timings": {"parse_s": parse_s, "embed_s": time.perf_counter() - start, "embedded": embedder.misses},
    }


def same_params(params: dict[str, Any], build_topics: dict[str, Any] | None, seed: int) -> bool:
    """Whether the build folder's topics.json was fitted with exactly these effective parameters and seed."""
    if build_topics is None:
        return False
    built = dict(build_topics["params"])
    return built.pop("seed", None) == seed and built == params


def fit_setting(corpus: dict[str, Any], overrides: list[str], seed: int) -> dict[str, Any]:
    """BERTopic fit of the config given by ``--set`` overrides, or the build's own fit when it is the same."""
    config = load_config(None, overrides).topics
    emb = corpus["embeddings"]
    params = effective_params(emb.shape[0], emb.shape[1], config)
    if same_params(params, corpus["build_topics"], seed):
        data = corpus["build_topics"]
        return {"metrics": data["metrics"], "topics": data["topics"], "params": params, "seconds": None}
    start = time.perf_counter()
    result = fit_topics(corpus["texts"], emb, corpus["doc_ids"], config, seed=seed)
    metrics = {k: v for k, v in result.metrics.items() if k != "fit_s"}
    topics = [to_dict(t) for t in result.topics]
    return {"metrics": metrics, "topics": topics, "params": params, "seconds": time.perf_counter() - start}


def _num(value: Any, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def sweep_table(rows: list[dict[str, Any]], recommended: int) -> list[str]:
    """The sweep as Markdown with the lift column (DC minus DC shuffled, in points); ★ marks the recommendation."""
    head = (
        "| n_components | min_cluster_size | topics | outliers % | size min/med/max | silhouette | CH | DB "
        "| robustness | DC % | DC shuffled % | lift (points) |"
    )
    lines = [head, "|" + "---:|" * (head.count("|") - 1)]
    for i, r in enumerate(rows):
        star = " ★" if i == recommended else ""
        if r.get("status", "ran") != "ran":
            lines.append(f"| {r['n_components']}{star} | {r['min_cluster_size']} | not run |" + " – |" * 9)
            continue
        lines.append(
            f"| {r['n_components']}{star} | {r['min_cluster_size']} | {r['n_topics']} | {r['outlier_pct']:.1f} "
            f"| {r['size_min']}/{r['size_median']:g}/{r['size_max']} | {_num(r.get('silhouette'), 3)} "
            f"| {_num(r.get('calinski_harabasz'), 0)} | {_num(r.get('davies_bouldin'), 3)} "
            f"| {_num(r.get('robustness'), 3)} | {_num(r.get('dc'), 1)} | {_num(r.get('dc_shuffled'), 1)} "
            f"| {_num(r.get('dc_lift'), 1)} |"
        )
    return lines


def dc_notes(rows: list[dict[str, Any]]) -> list[str]:
    """How DC compares with its shuffled baseline over the rows that ran, in numbers."""
    done = [r for r in rows if r.get("status", "ran") == "ran" and r.get("dc") is not None]
    if not done:
        return []
    lift = [r["dc_lift"] for r in done]
    ratio = [r["dc"] / r["dc_shuffled"] for r in done if r["dc_shuffled"]]
    above = sum(1 for x in lift if x > 0)
    return [
        f"- DC against chance: DC is above its shuffled baseline in {above} of {len(done)} settings; "
        f"DC {min(r['dc'] for r in done):.1f}–{max(r['dc'] for r in done):.1f} % against "
        f"{min(r['dc_shuffled'] for r in done):.1f}–{max(r['dc_shuffled'] for r in done):.1f} % shuffled, "
        f"a lift of {min(lift):+.1f} to {max(lift):+.1f} points ({min(ratio):.1f}–{max(ratio):.1f}× the baseline).",
        "- The shuffled baseline keeps every topic's size and permutes topic labels among sections, so it "
        "rises as topics get fewer and larger; the lift, not DC alone, is what shows that topics follow documents.",
    ]


def consistency_notes(rows: list[dict[str, Any]], fits: dict[str, dict[str, Any]]) -> list[str]:
    """Whether each BERTopic fit reproduces the sweep row with the same effective parameters."""
    keys = ("n_topics", "n_outliers", "dc", "silhouette", "robustness")
    out = []
    for name, fit in fits.items():
        match = [r for r in rows if r.get("params") == fit["params"]]
        if not match:
            out.append(f"- The {name} fit ({fit['params']}) is not a point of this grid.")
            continue
        r, m = match[0], fit["metrics"]
        same = all(r.get(k) is not None and abs(r[k] - m[k]) < 1e-6 for k in keys if m.get(k) is not None)
        source = "the build's own fit (topics.json)" if fit["seconds"] is None else "a fresh BERTopic fit"
        out.append(
            f"- {name}: {source} {'reproduces' if same else 'does NOT reproduce'} its sweep row: "
            f"{m['n_topics']} vs {r['n_topics']} topics, {m['n_outliers']} vs {r['n_outliers']} outliers, "
            f"DC {m['dc']:.2f} vs {r['dc']:.2f}, robustness {_num(m.get('robustness'), 3)} vs "
            f"{_num(r.get('robustness'), 3)}."
        )
    return out


def topic_lines(topics: list[dict[str, Any]], limit: int = 12) -> list[str]:
    """The largest topics as Markdown list lines."""
    return [
        f"- topic {t['id']} ({t['size']} sections, {t['n_documents']} documents): {', '.join(t['keywords'][:6])}"
        for t in topics[:limit]
    ]


def fit_row(name: str, fit: dict[str, Any]) -> str:
    m = fit["metrics"]
    how = "read from the build's topics.json" if fit["seconds"] is None else f"fitted in {fit['seconds']:.0f} s"
    return (
        f"| {name} | {m['n_topics']} | {m['outlier_pct']:.1f} | {_num(m.get('silhouette'), 3)} "
        f"| {_num(m.get('robustness'), 3)} | {m['dc']:.1f} | {m['dc_shuffled']:.1f} | {m['dc_lift']:+.1f} | {how} |"
    )


def _input_timing(timings: dict[str, Any]) -> str:
    if not timings:
        return "Parsing and embedding: none (read from the build folder)."
    return (
        f"Parsing {timings['parse_s']:.0f} s; embedding {timings['embed_s']:.0f} s "
        f"({timings['embedded']} texts embedded, the rest from the cache)."
    )


def load_avg() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def write_results(path: Path, corpus: dict[str, Any], report: Any, fits: dict[str, Any], info: dict[str, Any]) -> None:
    """results/topics.md and topics.json, notes included."""
    rows, best_i = report.rows, report.rows.index(report.best)
    n_reductions = len({r["n_components"] for r in rows if r.get("status", "ran") == "ran"})
    reduce_s = sorted({r["n_components"]: r["reduce_s"] for r in rows if "reduce_s" in r}.items())
    lines = [
        "## Topics: BERTopic sweep on real manuals",
        "",
        f"Measured {info['date']} on {platform.machine()}, {os.cpu_count()} cores shared with other jobs "
        f"(load average 1/5/15 min: {info['load_before']} before, {info['load_after']} after). "
        f"Corpus: {corpus['documents']} PDFs ({corpus['failed']} unusable), {len(corpus['texts'])} sections "
        f"from {len(set(corpus['doc_ids']))} documents; source: {corpus['source']}. "
        f"Embedder `{corpus['embedder']}`; UMAP + HDBSCAN; seed {info['seed']}.",
        "",
        f"Command: `{info['command']}`",
        "",
        f"Grid: {' × '.join(info['grid'])} ({len(rows)} settings). {info['grid_note']}",
        "",
        *sweep_table(rows, best_i),
        "",
        "CH = Calinski–Harabasz, DB = Davies–Bouldin (reduced space, outliers left out); robustness = share of "
        "sections keeping their cluster after refitting on noisy embeddings (5% Gaussian noise); DC = "
        "document–cluster agreement (paper eq. 1–2, outliers left out); DC shuffled = the same with topic labels "
        "permuted among sections (mean of 20 permutations); lift = DC − DC shuffled.",
        "",
        "### Recommendation",
        "",
        f"{report.rule[0].upper() + report.rule[1:]}.",
        "",
        f"Use it: `qagen build DOCS -o OUT --set {' --set '.join(report.settings)}`",
        "",
        "| fit | topics | outliers % | silhouette | robustness | DC % | DC shuffled % | lift | how |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        *(fit_row(name, fit) for name, fit in fits.items()),
        "",
        "### Notes (written by the script)",
        "",
        *dc_notes(rows),
        *consistency_notes(rows, fits),
        f"- Timings: the sweep took {info['sweep_s']:.0f} s for {len(rows)} settings: {n_reductions} UMAP "
        "reduction(s), each with a noisy refit for robustness ("
        + ", ".join(f"n_components={k}: {v:.0f} s" for k, v in reduce_s)
        + "), shared by every min_cluster_size; HDBSCAN and metrics "
        + f"{min(r['cluster_s'] for r in rows if 'cluster_s' in r):.1f}–"
        + f"{max(r['cluster_s'] for r in rows if 'cluster_s' in r):.1f} s per setting. "
        + _input_timing(corpus["timings"]),
        "",
        f"Largest topics of the recommended setting ({', '.join(report.settings)}), c-TF-IDF keywords:",
        "",
        *topic_lines(next(iter(fits.values()))["topics"]),
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    data = {
        **report.to_json(),
        "meta": {k: v for k, v in info.items()},
        "corpus": {k: corpus[k] for k in ("documents", "failed", "embedder", "source")}
        | {"sections": len(corpus["texts"]), "timings": corpus["timings"]},
        "fits": {name: {k: v for k, v in fit.items() if k != "topics"} for name, fit in fits.items()},
    }
    path.with_suffix(".json").write_text(json.dumps(data, indent=1, default=float), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="existing qagen build folder to read sections and embeddings from")
    parser.add_argument("--docs", type=Path, default=SHARED / "corpora" / "manuals", help="without --out")
    parser.add_argument("--embedder", default="minilm", help="without --out")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/qagen-bench-cache"), help="without --out")
    parser.add_argument("--grid", nargs="+", default=DEFAULT_GRID)
    parser.add_argument("--grid-note", default="", help="a sentence on why this grid (written into the results)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results" / "topics.md")
    args = parser.parse_args()

    info: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": load_avg(),
        "seed": args.seed,
        "grid": args.grid,
        "grid_note": args.grid_note,
        "command": "python benchmarks/topics_sweep.py "
        + (f"--out {args.out}" if args.out else f"--docs {args.docs}")
        + f" --grid {' '.join(args.grid)}",
    }
    if args.out is not None:
        corpus = load_build(args.out)
    elif args.docs.is_dir():
        corpus = load_docs(args.docs, args.cache, args.embedder)
    else:
        raise SystemExit(f"corpus not found: {args.docs}")
    print(f"{len(corpus['texts'])} sections from {len(set(corpus['doc_ids']))} documents ({corpus['embedder']})")

    start = time.perf_counter()
    base = load_config().topics  # the build is assumed to use defaults; the notes check it
    report = run_sweep(
        corpus["texts"], corpus["embeddings"], corpus["doc_ids"], args.grid, base, args.seed, progress=print
    )
    info["sweep_s"] = time.perf_counter() - start
    print(report.text)

    recommended = fit_setting(corpus, list(report.settings), args.seed)
    fits = {"recommended (" + ", ".join(report.settings) + ")": recommended}
    paper = [f"topics.{k}={v}" for k, v in PAPER_SETTING.items()]
    if recommended["params"] != effective_params(*corpus["embeddings"].shape, load_config(None, paper).topics):
        fits["paper default (" + ", ".join(paper) + ")"] = fit_setting(corpus, paper, args.seed)
    info["load_after"] = load_avg()
    write_results(args.results, corpus, report, fits, info)
    print(f"wrote {args.results} and {args.results.with_suffix('.json')}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
