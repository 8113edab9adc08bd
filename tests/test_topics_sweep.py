"""``qagen topics DOCS --sweep ...``: the command form of docs/commands.md, reuse of the build, and grid points
run as asked.

Fast stand-ins: TF-IDF embeddings and PCA + HDBSCAN (the clusterer whose min_cluster_size the
README sweeps), on a small Markdown corpus with four known themes.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qagen.cli import cli
from qagen.commands.sweep import sweep_cli_args
from qagen.config import TopicsConfig
from qagen.embed import TfidfEmbedder
from qagen.topics import recommend, run_sweep, sweep
from qagen.topics.grid import GridError
from qagen.topics.sweep import SWEEPABLE
from tests.support.topics_data import THEMES, corpus

FAST = ["--set", "embed.backend=tfidf", "--set", "topics.reducer=pca"]
GRID = {"n_components": [2, 5], "min_cluster_size": [5, 10, 40]}  # 40 > 72 sections / 2: cannot run
PCA_HDBSCAN = TopicsConfig(reducer="pca", clusterer="hdbscan", n_components=5)


def write_docs(folder: Path, docs_per_theme: int = 3, sections_per_doc: int = 6) -> Path:
    """Markdown documents, each about one theme: 4 x 3 x 6 = 72 sections."""
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    for theme, words in THEMES.items():
        for d in range(docs_per_theme):
            parts = [f"# {theme.title()} guide {d}\n"]
            for s in range(sections_per_doc):
                body = " ".join(rng.choice(words.split(), 30)).capitalize()
                parts.append(f"## {theme.title()} part {s}\n\n{body}.\n")
            (folder / f"{theme}-{d}.md").write_text("\n".join(parts), encoding="utf-8")
    return folder


def readme_form(docs: Path, out: Path, *extra: str) -> list[str]:
    """``qagen topics DOCS --sweep n_components=2,5 min_cluster_size=5,10,40`` (axes after one --sweep)."""
    axes = [f"{k}={','.join(map(str, v))}" for k, v in GRID.items()]
    return ["topics", str(docs), "-o", str(out), "--sweep", *axes, *FAST, *extra]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    docs, out = write_docs(root / "docs"), root / "out"
    runner = CliRunner()
    first = runner.invoke(cli, readme_form(docs, out))
    stamps = {name: (out / name).stat().st_mtime_ns for name in ("sections.jsonl", "embeddings.npy")}
    second = runner.invoke(cli, readme_form(docs, out))
    return first, second, out, stamps


def test_readme_form_runs_and_reuses_parse_pages_and_embed(two_runs):
    first, second, out, stamps = two_runs
    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    assert "embed: running" in first.stderr
    stages = json.loads((out / "manifest.json").read_text())["stages"]
    for name in ("parse", "pages", "embed"):
        assert f"{name}: unchanged, skipped" in second.stderr
        assert stages[name]["skipped"] is True
    assert {name: (out / name).stat().st_mtime_ns for name in stamps} == stamps
    assert "topics" not in stages  # the sweep fits no topics stage


def test_one_row_per_grid_point_and_a_recommendation_that_ran(two_runs):
    _, second, out, _ = two_runs
    saved = json.loads((out / "topics_sweep.json").read_text())
    rows = saved["rows"]
    points = [(r["n_components"], r["min_cluster_size"]) for r in rows]
    assert points == list(itertools.product(*GRID.values()))  # one row per point, in grid order, no duplicates
    done = [r for r in rows if r["status"] == "ran"]
    assert [r["min_cluster_size"] for r in rows if r["status"] == "impossible"] == [40, 40]
    effective = [json.dumps(r["params"], sort_keys=True) for r in done]
    assert len(set(effective)) == len(done) == 4
    best = rows[saved["recommended"]]
    assert best["status"] == "ran" and best["n_topics"] >= 2
    assert saved["rule"] in second.stdout.replace("Recommended", "recommended")
    assert "Use it: --set " + " --set ".join(saved["set"]) in second.stdout
    assert "topics.auto_scale=false" in saved["set"]  # 5 or 10 would be capped at 3 for 72 sections
    assert "Not run: min_cluster_size=40 leaves no room for 2 topics in 72 sections: at most 36." in second.stdout


def test_every_command_form_gives_the_same_grid():
    axes = ["n_components=5,10,15", "min_cluster_size=10,20,30"]
    readme = sweep_cli_args("docs", [axes[0]], [axes[1]])
    assert readme == ("docs", axes)
    assert sweep_cli_args("docs", axes, []) == readme  # --sweep a=... --sweep b=...
    assert sweep_cli_args("docs", [" ".join(axes)], []) == readme  # --sweep "a=... b=..."
    assert sweep_cli_args(axes[1], [axes[0]], ["docs"]) == ("docs", [axes[0], axes[1]])  # DOCS last


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["min_cluster_size=10", "bogus=1"], "--sweep takes KEY=V1,V2,... with KEY among"),
        (["n_components=5,", "10"], "unexpected argument '10' after DOCS"),
        (["n_components=5", "n_components=10"], "n_components is given twice"),
        (["n_components=5", "min_cluster_size=1O"], "takes whole numbers separated by commas; got '1O'"),
        (["n_clusters=4,8"], "sweep key n_clusters is only used by topics.clusterer = 'kmeans'"),
    ],
)
def test_bad_grids_are_one_line_usage_errors_before_any_work(tmp_path, args, message):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["topics", str(tmp_path), "-o", str(out), "--sweep", *args, *FAST])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1
    assert not out.exists()


def test_help_lists_every_sweepable_key():
    text = " ".join(CliRunner().invoke(cli, ["topics", "--help"]).output.split())
    assert all(key in text for key in SWEEPABLE)
    assert "--sweep n_components=5,10,15 min_cluster_size=10,20,30" in text


# --- grid points run as asked (the small-corpus collapse) ---------------------------------


@pytest.fixture(scope="module")
def data():
    texts, docs, _ = corpus()  # 80 sections: auto_scale would cap min_cluster_size at 80 // 20 = 4
    return texts, TfidfEmbedder(dims=32).embed(texts), docs


def test_swept_min_cluster_size_runs_as_asked(data):
    texts, emb, docs = data
    grid = {"min_cluster_size": [5, 10, 20, 60]}
    report = run_sweep(texts, emb, docs, grid, PCA_HDBSCAN, seed=0)
    rows = report.rows
    assert [r["min_cluster_size"] for r in rows] == [5, 10, 20, 60]
    assert [r["params"]["min_cluster_size"] for r in rows[:3]] == [5, 10, 20]  # none auto-scaled to 4
    assert [r["status"] for r in rows] == ["ran", "ran", "ran", "impossible"]
    assert rows[3]["reason"] == "min_cluster_size=60 leaves no room for 2 topics in 80 sections: at most 40"
    assert report.best in rows[:3]
    assert "1 impossible for this corpus, not run" in report.rule
    assert f"topics.min_cluster_size={report.best['min_cluster_size']}" in report.settings
    assert "topics.auto_scale=false" in report.settings  # else qagen build would cap it at 4


def test_fixed_parameters_keep_auto_scaling(data):
    texts, emb, docs = data
    report = run_sweep(texts, emb, docs, {"n_components": [2, 5]}, PCA_HDBSCAN, seed=0)
    assert {r["params"]["min_cluster_size"] for r in report.rows} == {4}
    assert "Fixed: min_cluster_size=4 (auto_scale: 30 capped for 80 sections)." in report.text
    assert "topics.auto_scale=false" not in report.settings


def test_impossible_values_are_not_run_and_never_recommended(data):
    texts, emb, docs = data
    rows = sweep(texts, emb, docs, {"n_components": [3, 3, 40]}, PCA_HDBSCAN, seed=0)
    assert [r["n_components"] for r in rows] == [3, 40]  # a repeated value is one row
    assert rows[1]["status"] == "impossible" and "n_topics" not in rows[1]
    assert rows[1]["reason"] == "n_components=40 is impossible for 80 sections of 32 dimensions: at most 32"
    # even when the impossible row comes first and a real row scores nothing
    crafted = [{"n_components": 40, "status": "impossible", "reason": "x"}, {**rows[0]}]
    assert recommend(crafted)[0] is crafted[1]
    with pytest.raises(GridError, match="no grid point can run on these 80 sections: n_components=40"):
        run_sweep(texts, emb, docs, {"n_components": [40]}, PCA_HDBSCAN)
