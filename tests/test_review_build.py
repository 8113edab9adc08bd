"""Review through the pipeline: reviews.jsonl feeds the splits stage; --approved-only keeps approved items.

The first tests run the pipeline's own splits stage through the runner on a synthetic build
(seconds); the slow one runs the whole CLI on the example documents: build, review export,
edit, review import, build --approved-only, export.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qagen.commands.review import export_review, import_review
from qagen.io import read_jsonl
from qagen.records import Item
from qagen.review import ReviewError, approved_items, load_reviews
from tests.support.review_data import make_build, read_rows, review_as, run_splits, write_rows

ROOT = Path(__file__).resolve().parents[1]
FAST = ["embed.backend=tfidf", "topics.reducer=pca", "topics.clusterer=kmeans", "topics.n_clusters=6",
        "folds.samples_total=60"]  # fmt: skip


def split_ids(out: Path) -> set[str]:
    return {r["id"] for p in (out / "splits").glob("*/fold_*/items.jsonl") for r in read_jsonl(p)}


def test_splits_stage_reads_reviews_and_reruns_when_they_change(tmp_path):
    out = make_build(tmp_path / "out")
    items = read_jsonl(out / "items.jsonl", Item)
    assert run_splits(out) == "ran" and split_ids(out) == {it.id for it in items}
    review = json.loads((out / "crosseval.json").read_text())["review"]
    assert (review["approved_only"], review["reviewed"], review["not_reviewed"]) == (False, 0, 24)
    with pytest.raises(ReviewError, match="no item has a verdict"):
        run_splits(out, "splits.approved_only=true")

    path = export_review(out, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct" if item_id.endswith("mcq") else "wrong")
    import_review(out, [path])
    assert run_splits(out) == "ran"  # reviews.jsonl is an input: its status shows in crosseval.json
    assert split_ids(out) == {it.id for it in items}
    assert run_splits(out, "splits.approved_only=true") == "ran"
    assert (
        split_ids(out)
        == {it.id for it in approved_items(items, load_reviews(out))}
        == {it.id for it in items if it.type == "mcq"}
    )
    review = json.loads((out / "crosseval.json").read_text())["review"]
    assert (review["approved_only"], review["approved"], review["labels"]["wrong"]) == (True, 8, 16)
    assert run_splits(out, "splits.approved_only=true") == "skipped"

    header, rows = read_rows(path)  # a second look: one more item approved
    first = next(r for r in rows if r["item_id"] == "s1-long_form")
    first["wrong"], first["correct"] = "", "x"
    write_rows(path, header, rows)
    import_review(out, [path])
    assert run_splits(out, "splits.approved_only=true") == "ran"
    assert "s1-long_form" in split_ids(out) and len(split_ids(out)) == 9


def report_labels(path: Path) -> dict[str, int]:
    """Label name -> verdicts, read from the report's "Expert review" table (empty when it has none)."""
    import re

    table = re.search(r'<table class="data" id="review-labels">(.*?)</table>', path.read_text(), re.S)
    rows = re.findall(r'<tr><td>([^<]+)</td><td class="n">(\d+)</td>', table.group(1)) if table else []
    return {name: int(n) for name, n in rows}


def test_import_updates_the_report_without_a_rebuild(tmp_path):
    from click.testing import CliRunner

    from qagen.cli import cli
    from qagen.report import write_report

    out = make_build(tmp_path / "out")
    assert run_splits(out) == "ran"
    report = write_report(out)  # the report as the build left it: nothing reviewed yet
    assert report_labels(report) == {}
    path = export_review(out, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct" if item_id.endswith("mcq") else "wrong")
    res = CliRunner().invoke(cli, ["review", "import", str(out), str(path)], catch_exceptions=False)
    assert res.exit_code == 0 and f"updated {report}" in res.output, res.output
    labels = report_labels(report)  # no build ran: crosseval.json still says nothing was reviewed
    assert (labels["Correct answer"], labels["Wrong answer"], sum(labels.values())) == (8, 16, 24)
    assert json.loads((out / "crosseval.json").read_text())["review"]["verdicts"] == 0
    html = report.read_text()
    assert "<b>8</b> are approved in review" in html and "24 of 24 items reviewed by 1 reviewer(s)" in html

    assert run_splits(out, "splits.approved_only=true") == "ran"  # splits of the 8 approved items
    header, rows = read_rows(path)  # a second look: one more item approved, not yet in the splits
    first = next(r for r in rows if r["item_id"] == "s1-long_form")
    first["wrong"], first["correct"] = "", "x"
    write_rows(path, header, rows)
    res = CliRunner().invoke(cli, ["review", "import", str(out), str(path), "--json"], catch_exceptions=False)
    assert res.exit_code == 0 and json.loads(res.output)["report"] == str(report)
    assert report_labels(report)["Correct answer"] == 9
    html = report.read_text()
    assert "The splits hold only the <b>8</b> items approved in review" in html
    assert "<b>9</b> items are approved now: rebuild with <code>--approved-only</code>" in html
    res = CliRunner().invoke(cli, ["report", str(out)], catch_exceptions=False)  # qagen report OUT agrees
    assert res.exit_code == 0 and report.read_text() == html


def test_import_leaves_a_folder_without_a_report_alone(tmp_path):
    from qagen.commands.review import refresh_report

    out = make_build(tmp_path / "out")
    path = export_review(out, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct")
    import_review(out, [path])
    assert refresh_report(out) is None and not (out / "report.html").exists()


@pytest.mark.slow
def test_cli_round_trip_on_the_example_documents(tmp_path):
    from click.testing import CliRunner

    from qagen.cli import cli

    runner = CliRunner()
    out = tmp_path / "out"
    build = ["build", str(ROOT / "examples" / "docs"), "-o", str(out), "-q", *[f"--set={s}" for s in FAST]]
    assert runner.invoke(cli, build).exit_code == 0
    res = runner.invoke(cli, ["review", "export", str(out), "--to", str(tmp_path / "review.csv"), "--sample", "20",
                              "--per", "type", "--reviewers", "ann,bob,cat", "--overlap", "9"])  # fmt: skip
    assert res.exit_code == 0, res.output
    files = sorted(tmp_path.glob("review-*.csv"))
    assert [f.name for f in files] == ["review-ann.csv", "review-bob.csv", "review-cat.csv"]
    for f in files:
        review_as(f, lambda item_id, _r: "correct" if int(item_id, 16) % 3 else "incomplete")
    bad = tmp_path / "bad.csv"
    header, rows = read_rows(files[0])
    rows[0]["label"] = "so-so"
    write_rows(bad, [*header, "label"], rows)
    res = runner.invoke(cli, ["review", "import", str(out), str(bad)])
    assert res.exit_code == 1 and "unknown label 'so-so'" in res.output and not (out / "reviews.jsonl").exists()
    res = runner.invoke(cli, ["review", "import", str(out), *map(str, files)])
    assert res.exit_code == 0 and "Fleiss' kappa" in res.output, res.output
    assert runner.invoke(cli, [*build, "--approved-only"]).exit_code == 0

    items = read_jsonl(out / "items.jsonl", Item)
    approved = {it.id for it in approved_items(items, load_reviews(out))}
    assert approved and split_ids(out) <= approved
    crosseval = json.loads((out / "crosseval.json").read_text())
    assert (
        crosseval["items"]["placed"]
        == len(split_ids(out))
        == len(approved) - sum(crosseval["items"]["excluded"].values())
    )
    assert "Expert review" in (out / "report.html").read_text()
    from qagen.commands.export import export

    written = export(out, "ragas", tmp_path / "ragas")
    rows = [json.loads(line) for f in written if f.suffix == ".jsonl" and "corpus" not in f.name
            for line in f.read_text().splitlines()]  # fmt: skip
    exported = {r["id"] for r in rows if r["scope"] != "out_of_scope"}  # off-domain questions are no items
    assert exported == split_ids(out)
