"""Size and render time of report.html as the corpus grows (issue: under 5 MB for 10,000 sections).

A synthetic build with realistic shapes: headings of ~45 characters, section bodies of ~1,500, 15-d reduced
space with ~70 topics and 35% outliers (the paper's settings), 10% accepted of the candidates. Optionally
loads each page in headless Chromium (--browser) and reports the time to a loaded page.

    python benchmarks/report_size.py [--sections 1000 10000 50000] [--browser]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from qagen.config import ReportConfig
from qagen.records import Document, FoldAssignment, GeneratorInfo, Item, Rejection, Section, Source
from qagen.report import ReportData, render_report

TEXT = (
    "patient ward visiting hours parking pharmacy leave policy router manual warranty repair appointment "
    "referral physiotherapy knee exercise medication dose contact phone email"
)
WORDS = TEXT.split(" ")


def _text(rng: np.random.Generator, n_words: int) -> str:
    return " ".join(rng.choice(WORDS, n_words))


def synthetic(n_sections: int, seed: int = 0) -> ReportData:
    """A consistent build of ``n_sections`` sections (13 per document, as in the paper's corpus)."""
    rng = np.random.default_rng(seed)
    n_docs, n_topics = -(-n_sections // 13), 70
    docs = [Document(f"d{i}", f"leaflets/leaflet_{i:05d}.pdf", "0" * 64, "pdf", "ok", 4, 13) for i in range(n_docs)]
    sections = [
        Section(
            f"d{i // 13}-s{i:06d}",
            f"d{i // 13}",
            docs[i // 13].path,
            _text(rng, 6).capitalize(),
            _text(rng, 220),
            1 + (i % 13) // 4,
            1 + (i % 13) // 4,
            i % 13,
        )
        for i in range(n_sections)
    ]
    labels = np.where(rng.random(n_sections) < 0.35, -1, rng.integers(0, n_topics, n_sections))
    centres = rng.normal(size=(n_topics, 15)) * 4
    reduced = np.where(labels[:, None] >= 0, centres[np.maximum(labels, 0)], 0) + rng.normal(size=(n_sections, 15))
    topics = {
        "params": {"reducer": "umap", "clusterer": "hdbscan", "n_components": 15, "min_cluster_size": 30},
        "metrics": {"silhouette": 0.4},
        "topics": [
            {
                "id": t,
                "size": int((labels == t).sum()),
                "keywords": list(rng.choice(WORDS, 8)),
                "label": ", ".join(rng.choice(WORDS, 3)),
                "centroid": centres[t].tolist(),
                "n_documents": 40,
            }
            for t in range(n_topics)
        ],
        "section_topics": {s.id: int(t) for s, t in zip(sections, labels, strict=True)},
    }
    fold_of = {t: 1 + int(t % 3 == 0) for t in range(n_topics)}
    assignments = [
        FoldAssignment(
            s.id,
            int(t),
            f"p{i // 3}",
            "outlier" if t < 0 else "kept",
            fold_of.get(int(t)),
            None if t < 0 else ("validation", "test")[i % 5 == 0],
            i % 10 == 0,
        )
        for i, (s, t) in enumerate(zip(sections, labels, strict=True))
    ]
    kept = [a for a in assignments if a.status == "kept"]
    items = [_item(f"i{j:06d}", kept[j % len(kept)], rng) for j in range(max(1, n_sections // 10))]
    rejected = [
        Rejection(
            **_item(f"r{j:06d}", kept[j % len(kept)], rng).__dict__,
            filter=("dedup", "grounding")[j % 2],
            reason="near-duplicate question",
            value=0.93,
        )
        for j in range(max(1, n_sections // 3))
    ]
    folds = {
        "chosen": {"distance": "euclidean", "linkage": "average"},
        "metrics": {"fold_topic_distance_ratio": 7.2, "valid_sections_pct": 66.0},
        "topic_folds": fold_of,
    }
    manifest = {"stages": {"parse": {"status": "ok", "seconds": n_sections / 20, "counts": {"sections": n_sections}}}}
    return ReportData(
        documents=docs,
        sections=sections,
        topics=topics,
        reduced=reduced,
        folds=folds,
        assignments=assignments,
        items=items,
        rejected=rejected,
        manifest=manifest,
    )


def _item(id_: str, a: FoldAssignment, rng: np.random.Generator) -> Item:
    return Item(
        id=id_,
        type="long_form",
        question=_text(rng, 12) + "?",
        answer=_text(rng, 60),
        source=Source(a.section_id.split("-")[0], (a.section_id,), topic_id=a.topic_id, doc_path="leaflet.pdf"),
        fold=a.fold,
        split=a.split,
        generator=GeneratorInfo("openai", "gpt-4o-mini"),
        score=4.0,
    )


def load_seconds(html_path: Path) -> float:
    """Seconds from navigation to a loaded page in headless Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        t0 = time.perf_counter()
        driver.get(html_path.resolve().as_uri())
        return time.perf_counter() - t0
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--browser", action="store_true", help="also time loading each page in headless Chromium")
    args = parser.parse_args()
    print("| sections | map points | items shown | report size | render time | browser load |")
    print("|---|---|---|---|---|---|")
    for n in args.sections:
        data = synthetic(n)
        t0 = time.perf_counter()
        html = render_report(data, ReportConfig())
        seconds = time.perf_counter() - t0
        size = len(html.encode("utf-8"))
        load = "—"
        if args.browser:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "report.html"
                path.write_text(html, encoding="utf-8")
                load = f"{load_seconds(path):.2f} s"
        print(
            f"| {n:,} | {min(n, ReportConfig().max_map_points):,} | {ReportConfig().max_items_shown} "
            f"| {size / 1e6:.2f} MB | {seconds:.2f} s | {load} |"
        )


if __name__ == "__main__":
    main()
