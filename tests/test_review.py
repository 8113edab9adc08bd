"""Human review round trip: export -> edit as a reviewer would -> import -> splits of approved items only.

The build here is synthetic (records written straight into an output folder), so the whole
file runs in seconds; tests/test_review_build.py runs the same trip through the pipeline.
"""

from __future__ import annotations

import collections
import csv
import io
import json
from pathlib import Path

import pytest

from qagen.commands.review import export_review, format_export, format_import, import_review, parse_reviewers
from qagen.config import SplitsConfig
from qagen.io import read_jsonl, write_jsonl
from qagen.records import FoldAssignment, Item, Page, Section, replace
from qagen.review import LABELS, ReviewError, Verdict, approved_items, item_hash, load_reviews, review_selection
from qagen.review.export import COLUMNS, csv_text, review_row
from qagen.review.form import render_form
from qagen.review.importer import ReviewImportError, merge_verdicts
from qagen.review.labels import parse_yes_no
from qagen.review.sample import plan_review, stratified_sample
from qagen.splits import build_splits, write_splits
from tests.support.review_data import (
    TYPES,
    _item,
    make_build,
    planned_label,
    read_rows,
    review_as,
    write_rows,
)


@pytest.fixture
def build(tmp_path) -> Path:
    return make_build(tmp_path / "out")


def splits_ids(out: Path, items: list[Item], reviews: list[Verdict], approved_only: bool = True) -> set[str]:
    selected, _ = review_selection(items, reviews, approved_only, "all")
    result = build_splits(
        selected,
        read_jsonl(out / "pages.jsonl", Page),
        read_jsonl(out / "assignments.jsonl", FoldAssignment),
        SplitsConfig(leakage_embeddings=False, out_of_scope_share=0),  # the items alone (no off-domain questions)
    )
    write_splits(result, out)
    ids = set()
    for path in (out / "splits").glob("*/fold_*/items.jsonl"):
        ids |= {row["id"] for row in read_jsonl(path)}
    questions = {r["id"] for path in (out / "splits").glob("*/fold_*/questions.jsonl") for r in read_jsonl(path)}
    assert questions == ids
    return ids


# --- round trip ---------------------------------------------------------------------------------


def test_round_trip_splits_hold_exactly_the_approved_items(build, tmp_path):
    items = read_jsonl(build / "items.jsonl", Item)
    assert splits_ids(build, items, [], approved_only=False) == {it.id for it in items}  # all placed
    result = export_review(build, tmp_path / "review.csv", reviewers="ann,bob", overlap=8, overlap_raters=2)
    files = result.files
    assert set(files) == {"ann", "bob"} and result.overlap == 8
    review_as(files["ann"], planned_label)
    review_as(files["bob"], planned_label, delimiter=";", bom=False)  # a spreadsheet in another locale
    imported = import_review(build, [files["ann"], files["bob"]])

    reviews = load_reviews(build)
    expected = {
        (row["item_id"], row["reviewer"]): planned_label(row["item_id"], row["reviewer"])
        for path in files.values()
        for row in read_rows(path)[1]
        if planned_label(row["item_id"], row["reviewer"])
    }
    assert {(v.item_id, v.reviewer): v.label for v in reviews} == expected
    assert all(v.comment == f'{v.reviewer} says: fine, "mostly"\nsecond line é' for v in reviews)
    assert imported.counts["verdicts"] == len(expected) and imported.counts["unlabelled_rows"] > 0

    labels_of: dict[str, list[str]] = {}
    for (item_id, _), label in expected.items():
        labels_of.setdefault(item_id, []).append(label)
    approved = {k for k, labs in labels_of.items() if all(lab == "correct" for lab in labs)}
    assert approved and {it.id for it in approved_items(items, reviews)} == approved
    assert splits_ids(build, items, reviews) == approved
    assert not any(i.startswith("s8") for i in approved)  # never reviewed: left out


def test_reimport_replaces_a_reviewers_verdict_and_reports_it(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct")
    first = import_review(build, [path])
    assert first.counts["added"] == 24 and first.summary["approved"] == 24
    header, rows = read_rows(path)
    rows[0]["correct"], rows[0]["wrong"] = "", "x"
    write_rows(path, header, rows)
    second = import_review(build, [path])
    assert (second.counts["added"], second.counts["replaced"], second.counts["changed_label"]) == (0, 24, 1)
    assert second.summary["approved"] == 23 and len(load_reviews(build)) == 24


def test_a_comment_longer_than_the_csv_modules_field_limit_is_imported(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct")
    header, rows = read_rows(path)
    rows[0]["comment"] = "a reviewer's long note. " * 8_000  # 192,000 characters, over csv's 131,072
    write_rows(path, header, rows)
    result = import_review(build, [path])
    assert result.counts["added"] == 24
    assert max(len(v.comment or "") for v in load_reviews(build)) > 131_072


def test_majority_rule_and_stale_verdicts(build):
    items = read_jsonl(build / "items.jsonl", Item)
    it = items[0]
    votes = [Verdict(it.id, r, lab, item_hash=item_hash(it)) for r, lab in
             (("a", "correct"), ("b", "correct"), ("c", "wrong"))]  # fmt: skip
    assert approved_items(items, votes, "majority") == [it]
    assert approved_items(items, votes, "all") == []
    assert approved_items(items, votes[1:], "majority") == []  # 1-1 is no majority
    changed = replace(it, answer="a regenerated answer")
    assert approved_items([changed], votes[:2], "all") == []  # stale: judged another answer
    assert approved_items([changed], [replace(v, item_hash="") for v in votes[:2]]) == [changed]
    with pytest.raises(ReviewError, match="approval rule must be one of all, majority; got 'most'"):
        approved_items(items, votes, "most")  # type: ignore[arg-type]


def test_approved_only_without_verdicts_or_approvals_says_what_to_do(build):
    items = read_jsonl(build / "items.jsonl", Item)
    with pytest.raises(ReviewError, match="no item has a verdict; run 'qagen review export"):
        review_selection(items, None, True)
    wrong = [Verdict(it.id, "ann", "wrong", item_hash=item_hash(it)) for it in items[:3]]
    with pytest.raises(ReviewError, match="none of the 3 reviewed items is approved"):
        review_selection(items, wrong, True)
    kept, summary = review_selection(items, wrong, False)
    assert kept == items and summary["reviewed"] == 3 and summary["labels"]["wrong"] == 3


# --- malformed files change nothing --------------------------------------------------------------


def _edit_first(column: str, value: str):
    def edit(rows):
        rows[0][column] = value

    return edit


def _two_marks(rows):
    rows[0]["correct"], rows[0]["wrong"] = "x", "x"


def _duplicate(rows):
    rows[1]["correct"], rows[1]["item_id"], rows[1]["item_hash"] = "x", rows[0]["item_id"], rows[0]["item_hash"]


def _comment_only(rows):
    rows[1]["comment"] = "not sure"


def _check_only(rows):
    rows[1]["natural"], rows[1]["answerable"] = "yes", "no"


MALFORMED = {
    "unknown id": (_edit_first("item_id", "no-such-item"), "item 'no-such-item' is not in items.jsonl"),
    "unknown label": (_edit_first("label", "maybe"), "unknown label 'maybe'; use one of irrelevant, too_specific"),
    "bad mark": (_edit_first("wrong", "perhaps"), "column 'wrong' holds 'perhaps'; mark one label with x"),
    "two marks": (_two_marks, "2 labels marked (wrong, correct); mark exactly one"),
    "duplicate": (_duplicate, "is labelled 2 times by ann (r.csv row 2, r.csv row 3); keep one row"),
    "comment only": (_comment_only, "has a comment but no label; mark one label column"),
    "changed item": (_edit_first("item_hash", "0123456789abcdef"), "changed since the file was exported"),
    "bad reviewer": (_edit_first("reviewer", "ann smith"), "reviewer must be 1-64 letters"),
    "bad check": (_edit_first("natural", "sort of"), "r.csv row 2: column 'natural' holds 'sort of'; write yes or no"),
    "check only": (_check_only, "r.csv row 3: item s1-factoid has natural and answerable filled in but no label"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_file_changes_nothing(build, tmp_path, case):
    good = export_review(build, tmp_path / "good.csv", reviewers="bob").files["bob"]
    review_as(good, lambda *_: "correct")
    import_review(build, [good])
    before = (build / "reviews.jsonl").read_bytes()

    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    header, rows = read_rows(path)
    rows[0]["correct"] = "x"
    edit, message = MALFORMED[case]
    if case == "unknown label":
        header.append("label")
        rows[0]["correct"] = ""
    edit(rows)
    write_rows(path, header, rows)
    other = tmp_path / "fine.csv"  # a clean file in the same import is not applied either
    write_rows(other, header, [dict(rows[5], correct="x", wrong="", comment="", label="")])
    with pytest.raises(ReviewImportError) as err:
        import_review(build, [other, path])
    assert message in str(err.value) and "nothing was imported" in str(err.value)
    assert (build / "reviews.jsonl").read_bytes() == before


def test_file_level_problems_are_listed_together(build, tmp_path):
    (tmp_path / "latin1.csv").write_bytes("item_id,comment\ns1,caf\xe9\n".encode("latin-1"))
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "other.csv").write_text("id,correct\nx,x\n")
    files = [tmp_path / n for n in ("latin1.csv", "empty.csv", "other.csv", "missing.csv")]
    with pytest.raises(ReviewImportError) as err:
        import_review(build, files)
    text = str(err.value)
    assert "latin1.csv: is not UTF-8 text" in text and "CSV UTF-8" in text
    assert "missing.csv: cannot be read" in text
    assert not (build / "reviews.jsonl").exists()
    with pytest.raises(ReviewImportError) as err:
        import_review(build, files[1:3])
    assert "empty.csv: is empty" in str(err.value) and "other.csv: has no item_id column" in str(err.value)
    assert "label column(s) irrelevant, too_specific, wrong, incomplete are missing" in str(err.value)


def test_nothing_labelled_is_an_error_and_reviewer_can_come_from_the_command(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv").files["r1"]
    with pytest.raises(ReviewImportError, match="no row of the 24 rows in 1 file"):
        import_review(build, [path])
    header, rows = read_rows(path)
    for row in rows:
        row["reviewer"], row["label"] = "", "Correct answer"  # the paper's wording in a label column
    write_rows(path, [*header, "label"], rows)
    with pytest.raises(ReviewImportError, match="reviewer is empty; fill the reviewer column or pass --reviewer"):
        import_review(build, [path])
    result = import_review(build, [path], reviewer="dora")
    assert result.summary["reviewers"] == ["dora"] and result.summary["labels"]["correct"] == 24


def test_import_waits_for_no_build(build, tmp_path):
    from filelock import FileLock

    path = export_review(build, tmp_path / "r.csv").files["r1"]
    review_as(path, lambda *_: "correct")
    with FileLock(str(build / ".qagen.lock")), pytest.raises(ReviewError, match="a qagen build is writing"):
        import_review(build, [path])
    assert not (build / "reviews.jsonl").exists()


def test_numeric_looking_ids_survive_a_spreadsheet(build, tmp_path):
    items = read_jsonl(build / "items.jsonl", Item)
    items[0], items[1] = replace(items[0], id="1234567890123456"), replace(items[1], id="12e4567890123456")
    write_jsonl(build / "items.jsonl", items)
    path = export_review(build, tmp_path / "r.csv").files["r1"]
    raw = path.read_bytes().decode("utf-8-sig")
    assert "\r\n'1234567890123456,r1," in raw and "\r\n'12e4567890123456,r1," in raw  # kept as text
    review_as(path, lambda *_: "correct")
    import_review(build, [path])
    assert {"1234567890123456", "12e4567890123456"} <= {v.item_id for v in load_reviews(build)}


def test_reviews_file_rejects_unknown_labels_on_read(build):
    (build / "reviews.jsonl").write_text('{"item_id": "s1-mcq", "reviewer": "ann", "label": "great"}\n')
    with pytest.raises(ValueError, match="label"):
        load_reviews(build)


def test_merge_keeps_other_reviewers_and_sorts():
    old = [Verdict("b", "ann", "wrong"), Verdict("a", "bob", "correct")]
    merged = merge_verdicts(old, [Verdict("b", "ann", "correct"), Verdict("a", "ann", "correct")])
    assert [(v.item_id, v.reviewer, v.label) for v in merged.verdicts] == [
        ("a", "ann", "correct"), ("a", "bob", "correct"), ("b", "ann", "correct")]  # fmt: skip
    assert (merged.added, merged.replaced, merged.changed) == (1, 1, 1)


# --- export ---------------------------------------------------------------------------------------


def test_csv_is_excel_friendly_and_guards_formulas(build, tmp_path):
    path = export_review(build, tmp_path / "review.csv").files["r1"]
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data
    header, rows = read_rows(path)
    assert header == list(COLUMNS) and len(rows) == 24
    by_id = {r["item_id"]: r for r in rows}
    assert by_id["s2-long_form"]["question"].startswith("'=HYPERLINK(")
    assert by_id["s1-long_form"]["answer"] == 'Answer of s1: "quoted", multi\nline, é ü 中文.'
    mcq = by_id["s1-mcq"]
    assert mcq["answer"] == "C) blue, or teal" and mcq["options"].splitlines()[2] == "C) blue, or teal"
    assert mcq["passage"] == "Heading s1\nBody of s1.\nSecond line, with comma."
    assert (mcq["pages"], mcq["document"], mcq["topic"]) == ("1-2", "doc_s1.pdf", "1: topic 1 words")
    assert all(r[lab] == "" for r in rows for lab in LABELS)
    with pytest.raises(ReviewError, match="exist"):
        export_review(build, tmp_path / "review.csv")
    export_review(build, tmp_path / "review.csv", force=True)


def test_review_row_and_csv_text_are_pure():
    item = _item("s1", 0, 1, "validation")
    section = Section("s1", "ds1", "doc_s1.pdf", "H", "-5 degrees @night", 3, 3, 0)
    row = review_row(item, "ann", {"s1": section})
    assert row["pages"] == "1-2" and row["passage"] == "H\n-5 degrees @night"
    row["passage"] = "-5 degrees"
    parsed = list(csv.DictReader(io.StringIO(csv_text([row]).lstrip("\ufeff"))))
    assert parsed[0]["passage"] == "'-5 degrees" and parsed[0]["item_hash"] == item_hash(item)


def test_stratified_sample_keeps_shares_and_is_seeded(build):
    items = read_jsonl(build / "items.jsonl", Item)
    for seed in range(5):
        chosen = stratified_sample(items, 12, lambda it: it.type, seed)
        assert sorted(it.type for it in chosen).count("mcq") == 4  # 8 of 24 each -> 4 of 12
        assert chosen == [it for it in items if it in chosen]  # input order kept
        assert chosen == stratified_sample(items, 12, lambda it: it.type, seed)
    by_topic = stratified_sample(items, 10, lambda it: it.source.topic_id, 0)
    # topic sizes 9, 9, 6 of 24 -> quotas 3.75, 3.75, 2.5 -> 4, 4, 2 (largest remainders, bigger strata first)
    counts = sorted(sum(1 for it in by_topic if it.source.topic_id == t) for t in range(3))
    assert counts == [2, 4, 4]


def test_equal_allocation_takes_as_many_from_each_stratum_and_spreads_what_a_small_one_lacks(build):
    items = read_jsonl(build / "items.jsonl", Item)
    by_topic = stratified_sample(items, 10, lambda it: it.source.topic_id, 0, allocation="equal")
    # topic sizes 9, 9, 6 of 24: 10 equally -> 3, 3, 3 and the remainder to a larger topic
    counts = sorted(sum(1 for it in by_topic if it.source.topic_id == t) for t in range(3))
    assert counts == [3, 3, 4]
    # a stratum smaller than its share gives all it has, the others share the rest: 3 of the 6-item
    # topic is not possible for 21 (7 each), so 6, then 7 and 8
    by_topic = stratified_sample(items, 21, lambda it: it.source.topic_id, 0, allocation="equal")
    counts = sorted(sum(1 for it in by_topic if it.source.topic_id == t) for t in range(3))
    assert counts == [6, 7, 8]
    assert by_topic == [it for it in items if it in by_topic]  # input order kept


def test_review_export_equal_allocation_from_the_command_line(build, tmp_path):
    from click.testing import CliRunner

    from qagen.cli import cli

    dest = tmp_path / "review.csv"
    args = ["review", "export", str(build), "--to", str(dest), "--sample", "9", "--per", "topic"]
    result = CliRunner().invoke(cli, [*args, "--allocation", "equal"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(dest.read_text(encoding="utf-8-sig"))))
    assert sorted(collections.Counter(r["topic"] for r in rows).values()) == [3, 3, 3]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("n_reviewers", "overlap", "raters"), [(2, 6, 2), (3, 7, 2), (5, 10, 3), (4, 20, 4)])
def test_plan_every_item_once_overlap_r_times_loads_balanced(build, seed, n_reviewers, overlap, raters):
    items = read_jsonl(build / "items.jsonl", Item)
    names = [f"r{i}" for i in range(n_reviewers)]
    plan = plan_review(items, names, sample=20, per="topic", overlap=overlap, overlap_raters=raters, seed=seed)
    seen: dict[str, int] = {}
    for its in plan.assignments.values():
        for it in its:
            seen[it.id] = seen.get(it.id, 0) + 1
    assert len(seen) == plan.sampled == 20 and len(plan.overlap_ids) == overlap
    assert all(n == (raters if k in plan.overlap_ids else 1) for k, n in seen.items())
    loads = [len(v) for v in plan.assignments.values()]
    assert max(loads) - min(loads) <= 1
    assert plan.total_rows == 20 + overlap * (raters - 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sample": 99}, "sample must be between 1 and the 24 items available; got 99"),
        ({"overlap": 3}, "overlap needs at least 2 reviewers"),
        ({"reviewers": "a,b", "overlap": 3, "overlap_raters": 3}, "overlap_raters must be between 2 and the 2"),
        ({"reviewers": "a,b", "sample": 5, "overlap": 6}, "overlap must be at most the 5 sampled items; got 6"),
        ({"reviewers": "a,a"}, "reviewers must be distinct"),
        ({"reviewers": "a b"}, "reviewers must be 1-64 letters"),
        ({"per": "doc"}, "per must be 'topic', 'type' or None; got 'doc'"),
    ],
)
def test_bad_export_requests_name_the_constraint(build, tmp_path, kwargs, message):
    with pytest.raises(ReviewError, match=message.replace("(", r"\(")):
        export_review(build, tmp_path / "r.csv", **kwargs)
    assert not list(tmp_path.glob("r*.csv"))


def test_export_unreviewed_and_file_names(build, tmp_path):
    assert parse_reviewers(None) == ["r1"] and parse_reviewers("3") == ["r1", "r2", "r3"]
    path = export_review(build, tmp_path / "a.csv").files["r1"]
    review_as(path, lambda item_id, _r: "correct" if item_id < "s5" else None)
    import_review(build, [path])
    result = export_review(build, tmp_path / "next.csv", reviewers=2, unreviewed=True)
    assert set(result.files.values()) == {tmp_path / "next-r1.csv", tmp_path / "next-r2.csv"}
    ids = {r["item_id"] for p in result.files.values() for r in read_rows(p)[1]}
    assert ids == {f"s{i}-{t}" for i in range(5, 9) for t in TYPES}
    assert "qagen review import" in format_export(result, build)
    with pytest.raises(ReviewError, match=r"--to must end in \.csv or \.html"):
        export_review(build, tmp_path / "r.xlsx")


def test_import_summary_text(build, tmp_path):
    files = export_review(build, tmp_path / "r.csv", reviewers="ann,bob", overlap=24).files
    for path in files.values():
        review_as(path, lambda item_id, _r: "correct" if "mcq" not in item_id else "wrong")
    text = format_import(import_review(build, list(files.values())), build)
    assert "Correct answer" in text and "66.7%" in text and "approved 16 (every verdict correct)" in text
    assert "Cohen's kappa 1.000 (almost perfect) on the 5 labels" in text
    assert "qagen build DOCS -o" in text and "--approved-only" in text


# --- HTML form ------------------------------------------------------------------------------------


def test_html_form_is_self_contained_and_escapes_document_text(build, tmp_path):
    import base64
    import hashlib
    import re

    items = read_jsonl(build / "items.jsonl", Item)
    hostile = replace(items[0], question="</script><script>window.__pwned=1</script><!--")
    row = review_row(hostile, "ann", {})
    page = render_form([row], "ann", "review-ann.csv", title="<b>out</b>")
    assert page.count("<script") == 2 and "</script><script>window.__pwned" not in page
    assert "<title>Review: &lt;b&gt;out&lt;/b&gt;</title>" in page
    data = json.loads(re.search(r'<script id="review-data" type="application/json">(.*?)</script>', page, re.S)[1])
    assert data["rows"][0]["question"] == hostile.question and data["columns"] == list(COLUMNS)
    assert [c["code"] for c in data["checks"]] == ["natural", "answerable"] and 'id="check-help"' in page
    assert data["rows"][0]["natural"] == data["rows"][0]["answerable"] == ""
    script = re.search(r"<script>(.*)</script>", page, re.S)[1]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page and "default-src 'none'" in page
    assert not re.search(r"(src|href)=\"?https?:", page)

    result = export_review(build, tmp_path / "review.html", reviewers="ann,bob")
    assert {p.name for p in result.files.values()} == {"review-ann.html", "review-bob.html"}
    assert '"filename":"review-ann.csv"' in result.files["ann"].read_text()


# --- checks: natural and answerable ---------------------------------------------------------------

# (label, natural, answerable) per section for each type; "" is a blank cell, None an unreviewed row.
# Spellings vary as reviewers' would. s8 stays unreviewed, so each type has 7 verdicts.
CHECKED = {
    "long_form": {
        "s1": ("correct", "yes", "TRUE"), "s2": ("correct", "yes", "true"), "s3": ("correct", "Yes", "true"),
        "s4": ("correct", "y", "true"), "s5": ("correct", "1", "true"), "s6": ("correct", "no", "true"),
        "s7": ("incomplete", "", "true"),
    },
    "factoid": {
        "s1": ("correct", "Y", "ja"), "s2": ("correct", "y", "JA"), "s3": ("correct", " yes ", "ja"),
        "s4": ("correct", "nee", "ja"), "s5": ("wrong", "0", "ja"), "s6": ("wrong", "", "ja"),
        "s7": ("wrong", "", "n"),
    },
    "mcq": {
        "s1": ("correct", "", "1"), "s2": ("wrong", "", "false"), "s3": ("wrong", "", ""),
        "s4": ("wrong", "", ""), "s5": ("wrong", "", ""), "s6": ("wrong", "", ""), "s7": ("wrong", "", ""),
    },
}  # fmt: skip


def review_checked(path: Path) -> None:
    header, rows = read_rows(path)
    for row in rows:
        sid, kind = row["item_id"].split("-", 1)
        if sid in CHECKED[kind]:
            label, row["natural"], row["answerable"] = CHECKED[kind][sid]
            row[label] = "x"
    write_rows(path, header, rows)


def test_export_has_empty_check_columns_and_says_how_to_fill_them(build, tmp_path):
    result = export_review(build, tmp_path / "review.csv", sample=12, per="type")
    header, rows = read_rows(result.files["r1"])
    assert header[header.index("correct") + 1 : header.index("comment")] == ["natural", "answerable"]
    assert len(rows) == 12 and all(r["natural"] == r["answerable"] == "" for r in rows)
    text = format_export(result, build)
    assert "They may also answer two checks with yes or no (blank: not judged):" in text
    assert "  natural: yes if a real user could ask it of a chatbot that never saw this document" in text
    assert "no section numbers, no 'this section'" in text
    assert "  answerable: yes if the source passage answers the question" in text


@pytest.mark.parametrize(
    ("cell", "value"),
    [("yes", True), ("Y", True), ("1", True), ("TRUE", True), ("Ja", True), (" ja ", True),
     ("no", False), ("N", False), ("0", False), ("False", False), ("NEE", False), ("", None), ("  ", None)],
)  # fmt: skip
def test_parse_yes_no_accepts_the_documented_spellings(cell, value):
    assert parse_yes_no(cell) is value


@pytest.mark.parametrize("cell", ["x", "maybe", "2", "nein", "yes!", "oui"])
def test_parse_yes_no_rejects_anything_else(cell):
    with pytest.raises(ValueError):
        parse_yes_no(cell)


def test_import_with_checks_reports_shares_overall_and_per_type(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_checked(path)
    result = import_review(build, [path])
    stored = {v.item_id: (v.label, v.natural, v.answerable) for v in load_reviews(build)}
    assert len(stored) == 21
    assert stored["s6-long_form"] == ("correct", False, True)
    assert stored["s4-factoid"] == ("correct", False, True) and stored["s7-factoid"] == ("wrong", None, False)
    assert stored["s3-mcq"] == ("wrong", None, None) and "s8-mcq" not in stored

    checks = result.summary["checks"]
    # Counted by hand from CHECKED: natural 5 of 6 + 3 of 5 + 0 of 0; answerable 7/7 + 6/7 + 1/2;
    # correct 6/7 + 4/7 + 1/7; judged = verdicts with natural or answerable filled (7 + 7 + 2).
    assert checks["overall"] == {
        "verdicts": 21, "judged": 16,
        "natural": {"judged": 11, "yes": 8, "share": 0.7273},
        "answerable": {"judged": 16, "yes": 14, "share": 0.875},
        "correct": {"judged": 21, "yes": 11, "share": 0.5238},
    }  # fmt: skip
    assert checks["by_type"] == {
        "factoid": {"verdicts": 7, "judged": 7, "natural": {"judged": 5, "yes": 3, "share": 0.6},
                    "answerable": {"judged": 7, "yes": 6, "share": 0.8571},
                    "correct": {"judged": 7, "yes": 4, "share": 0.5714}},
        "long_form": {"verdicts": 7, "judged": 7, "natural": {"judged": 6, "yes": 5, "share": 0.8333},
                      "answerable": {"judged": 7, "yes": 7, "share": 1.0},
                      "correct": {"judged": 7, "yes": 6, "share": 0.8571}},
        "mcq": {"verdicts": 7, "judged": 2, "natural": {"judged": 0, "yes": 0, "share": None},
                "answerable": {"judged": 2, "yes": 1, "share": 0.5},
                "correct": {"judged": 7, "yes": 1, "share": 0.1429}},
    }  # fmt: skip

    text = format_import(result, build)
    lines = text.splitlines()
    start = lines.index(
        "checks of the 21 current verdict(s), 16 with natural or answerable answered "
        "(yes / judged; blank: not judged; correct: label correct, of all verdicts):"
    )
    assert lines[start + 1 : start + 6] == [
        "  type        verdicts  judged         natural      answerable         correct",
        "  all               21      16     8/11  72.7%    14/16  87.5%    11/21  52.4%",
        "  factoid            7       7      3/5  60.0%      6/7  85.7%      4/7  57.1%",
        "  long_form          7       7      5/6  83.3%      7/7 100.0%      6/7  85.7%",
        "  mcq                7       2               -      1/2  50.0%      1/7  14.3%",
    ]


def test_cli_import_prints_the_checks_and_puts_them_in_the_json(build, tmp_path):
    from click.testing import CliRunner

    from qagen.cli import cli

    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_checked(path)
    res = CliRunner().invoke(cli, ["review", "import", str(build), str(path)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "checks of the 21 current verdict(s), 16 with natural or answerable answered" in res.output
    assert "  all               21      16     8/11  72.7%    14/16  87.5%    11/21  52.4%" in res.output
    res = CliRunner().invoke(cli, ["review", "import", str(build), str(path), "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    overall = json.loads(res.output)["summary"]["checks"]["overall"]
    assert (overall["natural"]["share"], overall["answerable"]["share"], overall["correct"]["share"]) == (
        0.7273, 0.875, 0.5238)  # fmt: skip


def test_old_files_without_check_columns_still_import(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    header, rows = read_rows(path)
    old_header = [c for c in header if c not in ("natural", "answerable")]  # a file exported before the checks
    for row in rows:
        row["correct" if row["item_id"] < "s4" else "wrong"] = "x"
    write_rows(path, old_header, rows)
    result = import_review(build, [path])
    reviews = load_reviews(build)
    assert len(reviews) == 24 and all(v.natural is None and v.answerable is None for v in reviews)
    assert result.summary["checks"]["overall"] == {
        "verdicts": 24, "judged": 0,
        "natural": {"judged": 0, "yes": 0, "share": None},
        "answerable": {"judged": 0, "yes": 0, "share": None},
        "correct": {"judged": 24, "yes": 9, "share": 0.375},
    }  # fmt: skip
    assert "checks: no current verdict answers natural or answerable (optional yes/no columns)" in format_import(
        result, build
    )
    # reviews.jsonl written before the checks existed reads back with both unjudged.
    (build / "reviews.jsonl").write_text('{"item_id": "s1-mcq", "reviewer": "ann", "label": "correct"}\n')
    assert load_reviews(build) == [Verdict("s1-mcq", "ann", "correct")]


def test_invalid_check_values_name_row_and_column_and_change_nothing(build, tmp_path):
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    header, rows = read_rows(path)
    for row in rows:
        row["correct"] = "x"
    rows[0]["natural"] = "maybe"
    rows[3]["answerable"] = "x"
    write_rows(path, header, rows)
    with pytest.raises(ReviewImportError) as err:
        import_review(build, [path])
    assert err.value.problems == [
        "r.csv row 2: column 'natural' holds 'maybe'; write yes or no (or y/n, 1/0, true/false, ja/nee), "
        "or leave it empty",
        "r.csv row 5: column 'answerable' holds 'x'; write yes or no (or y/n, 1/0, true/false, ja/nee), "
        "or leave it empty",
    ]
    assert "nothing was imported" in str(err.value) and not (build / "reviews.jsonl").exists()


def test_import_reports_the_checks_per_generator_rule(build, tmp_path):
    items = [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]
    for item in items:  # the offline generator records the rule that wrote each item
        item["generator"]["rule"] = {"long_form": "task_heading", "factoid": "contact"}.get(item["type"])
    (build / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    path = export_review(build, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_checked(path)
    result = import_review(build, [path])
    by_rule = result.summary["checks"]["by_rule"]
    assert sorted(by_rule) == ["contact", "extractive", "task_heading"]  # an item with no rule: its backend
    assert by_rule["task_heading"] == result.summary["checks"]["by_type"]["long_form"]
    lines = format_import(result, build).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  rule "))
    assert lines[start + 3].split()[:2] == ["task_heading", "7"], lines[start:]
    assert "5/6  83.3%" in lines[start + 3]
