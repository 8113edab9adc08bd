"""The report without a browser: what the page holds, that document text is escaped everywhere,
that it stands alone (no network), partial builds, sampling, the 2-D projection, and its size."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

from qagen.artifacts import ARTIFACTS
from qagen.config import ReportConfig
from qagen.io import write_json
from qagen.records import Document, FoldAssignment, GeneratorInfo, Item, Rejection, Section, Source
from qagen.report import ReportData, build_report, load_report_data, render_report, write_report
from qagen.report.projection import project_2d
from qagen.report.render import csp_hash
from qagen.report.samples import round_robin, sample_items
from qagen.report.topics import fold_view

HOSTILE = "<script>alert(1)</script><img src=x onerror=\"window.__pwned=1\"> & 'q' </title></textarea>"
TYPES = ("long_form", "factoid", "mcq")


def make_data(n_sections: int = 40, n_topics: int = 4, n_docs: int = 5, tag: str = "", seed: int = 0) -> ReportData:
    """A small, consistent build: ``tag`` is put into every text that comes from documents or the LLM."""
    rng = np.random.default_rng(seed)
    docs = [
        Document(f"d{i}", f"{tag}doc_{i}.pdf", "0" * 64, "pdf", "ok", 3, 8, title=f"{tag}Doc {i}")
        for i in range(n_docs)
    ]
    docs.append(Document("bad", f"{tag}broken.pdf", "1" * 64, "pdf", "failed", error=f"{tag}encrypted"))
    sections = [
        Section(
            f"s{i}",
            f"d{i % n_docs}",
            f"{tag}doc_{i % n_docs}.pdf",
            f"{tag}Heading {i}",
            f"{tag}Body {i}. " * 20,
            1 + i % 3,
            1 + i % 3,
            i,
        )
        for i in range(n_sections)
    ]
    labels = [(i % (n_topics + 1)) - 1 for i in range(n_sections)]  # -1 = outlier
    centres = rng.normal(size=(n_topics, 5)) * 5
    reduced = np.array([centres[t] + rng.normal(size=5) * 0.3 if t >= 0 else rng.normal(size=5) for t in labels])
    topics = {
        "params": {"reducer": "umap", "clusterer": "hdbscan", "n_components": 5, "min_cluster_size": 3},
        "metrics": {"silhouette": 0.4, "dc": 70.0, "outlier_pct": 20.0},
        "topics": [
            {
                "id": t,
                "size": labels.count(t),
                "keywords": [f"{tag}kw{t}", "word"],
                "label": f"{tag}topic {t}",
                "centroid": centres[t].tolist(),
                "n_documents": 2,
            }
            for t in range(n_topics)
        ],
        "section_topics": {s.id: lab for s, lab in zip(sections, labels, strict=True)},
    }
    fold_of = {t: 1 + (t % 2) for t in range(n_topics)}
    assignments = []
    for i, (s, lab) in enumerate(zip(sections, labels, strict=True)):
        status = "outlier" if lab < 0 else "conflict" if i % 7 == 0 else "kept"
        assignments.append(
            FoldAssignment(
                s.id,
                lab,
                f"u{i // 3}",
                status,
                fold_of.get(lab) if status == "kept" else None,
                ("validation" if i % 5 else "test") if status == "kept" else None,
                status == "kept",
            )
        )
    kept = [a for a in assignments if a.status == "kept"]
    items = [_item(f"i{j:03d}", TYPES[j % 3], kept[j % len(kept)], sections, tag) for j in range(30)]
    rejected = [
        Rejection(
            **_item(f"r{j:03d}", TYPES[j % 3], kept[j % len(kept)], sections, tag).__dict__,
            filter=("dedup", "grounding", "generation")[j % 3],
            reason=f"{tag}reason {j % 3}: detail",
            value=0.5,
        )
        for j in range(12)
    ]
    return ReportData(
        documents=docs,
        sections=sections,
        topics=topics,
        reduced=reduced,
        folds=_folds(fold_of, len(kept)),
        assignments=assignments,
        items=items,
        rejected=rejected,
        funnel=_funnel(),
        crosseval={
            "iterations": [
                {
                    "name": "validation_iteration_1",
                    "set": "validation",
                    "corpus_fold": 1,
                    "counts": {"pages": 3, "answerable": 10, "unanswerable": 8},
                }
            ],
            "pages": {"total": 6, "in_corpus": 5, "excluded": {"conflict": 1}},
            "leakage": {"checked": 30, "flagged": 1},
            "refusal_answer": "I cannot answer.",
        },
        manifest=_manifest(tag),
        title=f"{tag}build",
    )


def _item(id_: str, kind: str, a: FoldAssignment, sections: list[Section], tag: str) -> Item:
    mcq = kind == "mcq"
    return Item(
        id=id_,
        type=kind,
        question=f"{tag}Question {id_}?",
        answer=f"{tag}Answer {id_}",
        source=Source(sections[0].doc_id, (a.section_id,), ("p0",), a.topic_id, f"{tag}doc.pdf", (1, 2)),
        fold=a.fold,
        split=a.split,
        generator=GeneratorInfo("openai", "gpt-x", "h", persona=f"{tag}persona"),
        options=(f"{tag}A", "B", "C", "D") if mcq else None,
        answer_index=0 if mcq else None,
        bloom=("B1", "B2", "B3", "B4")[int(id_[1:]) % 4] if mcq else None,
        scenario="S1" if mcq else None,
        entity=f"{tag}+31 20 123 4567" if kind == "factoid" else None,
        score=4.0,
    )


def _folds(fold_of: dict[int, int], kept: int) -> dict:
    cell = {"sections": kept // 2, "units": 3, "topics": 2, "sampled": 5}
    return {
        "chosen": {"distance": "euclidean", "linkage": "average"},
        "metrics": {
            "fold_topic_distance_ratio": 7.1,
            "valid_sections_pct": 40.0,
            "min_topic_distance": 0.5,
            "small_fold_ratio": 0.9,
            "unit": "page",
            "n_conflict": 4,
            "n_outliers": 8,
            "conflict_units": 2,
            "folds": {"1": {**cell, "validation": cell, "test": cell}, "2": {**cell, "validation": cell, "test": cell}},
        },
        "candidates": [
            {
                "distance": "euclidean",
                "linkage": "average",
                "score": 1.0,
                "sections": [10, 9],
                "valid_sections_pct": 40.0,
                "status": "chosen",
                "reason": None,
            }
        ],
        "topic_folds": {str(k): v for k, v in fold_of.items()},
    }


def _funnel() -> dict:
    rows = []
    for name, drop in (("validity", 0), ("grounding", 2), ("dedup", 3)):
        for k, kind in enumerate(TYPES):
            n_in = 20 - k - (0 if name == "validity" else 2 if name == "grounding" else 4)
            rows.append(
                {
                    "filter": name,
                    "type": kind,
                    "in": n_in,
                    "out": n_in - drop,
                    "rejected": drop,
                    "reasons": {f"{name} failed": drop} if drop else {},
                }
            )
    return {"funnel": rows, "stats": {"mcq": 10, "correct_longest_share": 0.3, "answer_positions": {"0": 4, "1": 6}}}


def _manifest(tag: str) -> dict:
    llm = {
        "backend": "openai",
        "model": "gpt-x",
        "requests": 50,
        "requests_sent": 55,
        "cache_hits": 3,
        "succeeded": 45,
        "failures": 2,
        "prompt_tokens": 12000,
        "completion_tokens": 3400,
        "cost_usd": 0.0123,
        "cost_known": True,
        "elapsed_s": 30.5,
        "errors": {"http_500": 2},
    }
    stages = {
        "parse": {
            "status": "ok",
            "seconds": 12.5,
            "cpu_seconds": 10.0,
            "counts": {"documents": 6, "failed": 1},
            "errors": [{"path": f"{tag}broken.pdf", "reason": "encrypted", "detail": f"{tag}needs a password"}],
        },
        "embed": {"status": "ok", "skipped": True, "seconds": 3.0, "counts": {"sections": 40}, "embedder": "tfidf"},
        "generate": {"status": "ok", "seconds": 31.0, "counts": {"candidates": 54}, "llm": llm},
    }
    return {"qagen_version": "0.1.0", "stages": stages, "stage_order": ["parse", "embed", "generate"]}


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def kpi(html: str, name: str) -> str:
    """The big number of one headline card, tags removed."""
    match = re.search(rf'id="kpi-{name}"><div class="k">[^<]+</div><div class="v">(.*?)</div>', html, re.S)
    assert match, name
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def map_points(html: str) -> int:
    return len(re.findall(r"<circle [^>]*data-t=", html))


def test_the_page_shows_every_part_with_the_build_counts():
    data = make_data()
    html = render_report(data, strict=True)
    for anchor in ("summary", "map", "topics", "folds", "funnel", "dataset", "items"):
        assert f'<section id="{anchor}">' in html
    assert kpi(html, "sections") == "40" and kpi(html, "documents") == "5 / 6" and "1 failed" in html
    assert kpi(html, "items") == "30" and kpi(html, "topics") == "4" and kpi(html, "candidates") == "54"
    assert "10 long-form" in html and "10 factoid" in html and "10 multiple choice" in html
    assert kpi(html, "llm") == "55" and "$0.0123" in html and "15,400 tokens" in html
    assert map_points(html) == 40
    assert "6.7–8.2×" in html and "within the paper&#39;s range" in html and "below the paper&#39;s range" in html
    assert 'id="funnel-accepted"><b>30</b>' in html
    assert "dedup failed × 9" in html and "<b>4</b> generation request(s)" in html
    assert "skipped (unchanged)" in html and "needs a password" in html


def test_no_value_in_the_headline_is_missing_for_a_complete_build():
    html = render_report(make_data())
    values = re.findall(r'class="kpi" id="kpi-[a-z]+"><div class="k">[^<]+</div><div class="v">([^<]*)', html)
    assert len(values) == 8 and "—" not in values and all(v.strip() for v in values)


def test_text_from_documents_is_escaped_everywhere():
    html = render_report(make_data(tag=HOSTILE), ReportConfig(max_items_shown=100), strict=True)
    page = parse(html)
    scripts = [t for t, _ in page.tags if t == "script"]
    assert len(scripts) == 1  # the page's own
    assert not [t for t, _ in page.tags if t in ("img", "iframe", "object", "embed", "textarea", "base", "link")]
    assert not [a for _, attrs in page.tags for a in attrs if a.startswith("on")]
    assert "<script>alert(1)" not in html and 'onerror="window' not in html
    text = "".join(page.text)
    # shown literally in the title, headings on the map, topic labels, keywords, items, passages, reasons
    assert text.count(HOSTILE) >= 100
    for attrs in (a for _, a in page.tags):
        for value in attrs.values():
            assert value is None or "<" not in value or value == HOSTILE or HOSTILE in value


def test_the_page_needs_no_network_and_allows_only_its_own_script():
    html = render_report(make_data(tag="https://evil.example/x.js "))
    page = parse(html)
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        assert attrs.get("href", "#").startswith("#"), attrs
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    assert f"script-src '{csp_hash(script)}'" in csp


def test_control_characters_and_lone_surrogates_do_not_break_the_page(tmp_path):
    data = make_data(tag="bad\x00\x07\ud800text ")
    html = render_report(data)
    html.encode("utf-8")  # would raise on a lone surrogate
    assert "badtext" in html and "\x00" not in html


def test_a_partial_build_still_reports(tmp_path):
    data = ReportData(manifest={"stages": {"parse": {"status": "ok", "seconds": 1.0, "counts": {"documents": 2}}}})
    html = render_report(data)
    assert "The topics stage has not run." in html and "The folds stage has not run." in html
    assert "No map: the topics stage has not run." in html
    assert "no items yet: the generate stage has not run" in html  # says why, not only "No items yet."


def test_a_build_without_items_says_why():
    manifest = {
        "stages": {
            "generate": {"status": "ok", "counts": {"candidates": 12, "sampled_sections": 6}},
            "filter": {"status": "ok", "funnel": [{"filter": "grounding", "reasons": {"answer not in source": 9}}]},
        }
    }
    html = render_report(ReportData(manifest=manifest))
    assert "no items: the filters rejected all 12 candidates (answer not in source 9)" in html
    failed = {"stages": {"generate": {"status": "failed", "error": "LLMError: the key was refused"}}}
    assert "no items: the generate stage failed: LLMError: the key was refused" in render_report(
        ReportData(manifest=failed)
    )


def test_build_time_counts_only_the_stages_this_run_ran():
    manifest = {
        "stages": {
            "parse": {"status": "ok", "skipped": True, "seconds": 50.0},  # e.g. made by a dry run
            "generate": {"status": "ok", "skipped": False, "seconds": 20.0},
            "report": {"status": "ok", "skipped": False, "seconds": 1.0},
        }
    }
    html = render_report(ReportData(manifest=manifest))
    time_kpi = html.split('id="kpi-time"', 1)[1].split("</div></div>", 1)[0]
    assert "21.0 s" in time_kpi and "1 unchanged stage(s) reused (they took 50.0 s" in time_kpi


def test_the_map_reports_a_mismatched_projection_instead_of_failing():
    data = make_data()
    bad = ReportData(**{**data.__dict__, "reduced": np.zeros((3, 5))})
    assert "reduced.npy has 3 rows for 40 sections" in render_report(bad)


def test_load_report_data_reads_an_output_folder(tmp_path):
    data = make_data()
    for fname, field in (
        ("documents.jsonl", "documents"),
        ("sections.jsonl", "sections"),
        ("assignments.jsonl", "assignments"),
        ("items.jsonl", "items"),
        ("rejected.jsonl", "rejected"),
        ("topics.json", "topics"),
        ("folds.json", "folds"),
        ("funnel.json", "funnel"),
        ("reduced.npy", "reduced"),
    ):
        ARTIFACTS[fname].write(tmp_path / fname, getattr(data, field))
    write_json(tmp_path / "manifest.json", data.manifest)
    loaded = load_report_data(tmp_path)
    assert loaded.sections == data.sections and loaded.items == data.items and loaded.rejected == data.rejected
    assert np.allclose(loaded.reduced, data.reduced) and loaded.crosseval is None and loaded.title == tmp_path.name
    path = write_report(tmp_path)
    assert path == tmp_path / "report.html" and "<circle" in path.read_text(encoding="utf-8")


def test_load_report_data_needs_a_manifest(tmp_path):
    with pytest.raises(FileNotFoundError, match="qagen build DOCS"):
        load_report_data(tmp_path)


def test_build_report_takes_the_runner_inputs_by_file_name():
    data = make_data()
    inputs = {
        "sections.jsonl": data.sections,
        "topics.json": data.topics,
        "reduced.npy": data.reduced,
        "assignments.jsonl": data.assignments,
        "items.jsonl": data.items,
    }
    html = build_report(inputs, data.manifest, ReportConfig(), title="out")
    assert "<title>out · qagen build report</title>" in html and map_points(html) == 40


def test_the_sample_spreads_over_types_and_filters_and_is_reproducible():
    data = make_data()
    accepted, rejected = sample_items(data.items, data.rejected, 8)
    assert len(accepted) == 4 and len(rejected) == 4
    assert {it.type for it in accepted} == set(TYPES)
    assert len({r.filter for r in rejected}) == 3
    assert (accepted, rejected) == sample_items(list(reversed(data.items)), data.rejected[::-1], 8)
    assert len(round_robin(data.items, lambda it: it.type, 100)) == len(data.items)
    accepted, rejected = sample_items(data.items, [], 8)
    assert len(accepted) == 8 and rejected == []


def test_the_projection_is_deterministic_and_spreads_the_topics():
    data = make_data(n_sections=200, n_topics=5)
    labels = np.array(list(data.topics["section_topics"].values()))
    xy, share, method = project_2d(data.reduced, labels)
    assert xy.shape == (200, 2) and method == "topic centroids" and 0 < share <= 1
    assert np.array_equal(xy, project_2d(data.reduced.copy(), labels)[0])
    assert project_2d(data.reduced)[2] == "sections"
    assert project_2d(np.arange(5.0))[0].shape == (5, 2)  # one dimension
    assert np.isfinite(project_2d(np.array([[np.nan, 1.0], [2.0, np.inf], [0.0, 0.0]]))[0]).all()


@pytest.mark.parametrize(
    ("ratio", "valid", "states"),
    [(7.0, 60.0, ["in", "in"]), (2.0, 90.0, ["low", "high"]), (None, 55.0, ["na", "in"])],
)
def test_fold_metrics_are_set_beside_the_paper(ratio, valid, states):
    data = make_data()
    metrics = {**data.folds["metrics"], "fold_topic_distance_ratio": ratio, "valid_sections_pct": valid}
    view = fold_view(ReportData(folds={**data.folds, "metrics": metrics}))
    assert [m["paper"]["state"] for m in view["metrics"] if m["paper"]] == states


def test_report_size_stays_small_for_10000_sections():
    data = make_data(n_sections=10_000, n_topics=60, n_docs=400, seed=1)
    html = render_report(data)
    assert map_points(html) == 10_000
    assert len(html.encode("utf-8")) < 5_000_000


def test_same_data_gives_the_same_page():
    assert render_report(make_data()) == render_report(make_data())


def test_a_split_kept_below_the_fold_ratio_is_warned_in_the_report():
    data = make_data()
    note = "no split meets min_fold_ratio=0.3; kept the most balanced one found: fold 2 holds 0.120 of ..."
    folds = {**data.folds, "warnings": [note, "fold 2 has a single page: its test part is empty"]}
    view = fold_view(ReportData(folds=folds))
    assert view["warnings"][0].startswith("No split meets min_fold_ratio=0.3")
    assert not any("its test part is empty" in w for w in view["warnings"])  # said once, from the metrics


def test_an_unbalanced_split_the_builder_already_warned_about_is_said_once():
    data = make_data()
    metrics = {**data.folds["metrics"], "small_fold_ratio": 0.05}
    plain = fold_view(ReportData(folds={**data.folds, "metrics": metrics}))
    assert any(w.startswith("The folds are unbalanced") for w in plain["warnings"])
    chosen = {**(data.folds.get("chosen") or {}), "reason": "below min_fold_ratio 0.3: the most balanced split found"}
    note = "no split meets min_fold_ratio=0.3; kept the most balanced one found: fold 2 holds 0.050 ..."
    kept = fold_view(ReportData(folds={**data.folds, "metrics": metrics, "chosen": chosen, "warnings": [note]}))
    assert not any(w.startswith("The folds are unbalanced") for w in kept["warnings"])
    assert kept["warnings"][0].startswith("No split meets min_fold_ratio=0.3")
