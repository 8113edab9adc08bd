"""qagen inspect: what an output folder holds, and what its splits hold (which differ under --approved-only).

The folder is synthetic (tests/test_review.py's make_build: 8 sections, one page each, with a
long-form question, a factoid and an MCQ each); the pipeline's own splits stage lays it out.
"""

from __future__ import annotations

import json
from pathlib import Path

from qagen.commands.inspect import collect, inspect_dir
from qagen.commands.review import export_review, import_review
from tests.support.review_data import make_build, review_as, run_splits

# validation: fold 1 = s1, s2, s7; fold 2 = s3, s4, s8. test: fold 1 = s5; fold 2 = s6.
PLACED_MCQ = {"test/fold_1/mcq": 1, "test/fold_2/mcq": 1, "validation/fold_1/mcq": 3, "validation/fold_2/mcq": 3}


def approved_only_build(tmp_path: Path) -> Path:
    """Every MCQ approved, every other item judged wrong; splits built from the approved items only."""
    out = make_build(tmp_path / "out")
    path = export_review(out, tmp_path / "r.csv", reviewers="ann").files["ann"]
    review_as(path, lambda item_id, _r: "correct" if item_id.endswith("mcq") else "wrong")
    import_review(out, [path])
    assert run_splits(out, "splits.approved_only=true") == "ran"
    return out


def test_inspect_shows_what_the_splits_hold_under_approved_only(tmp_path):
    out = approved_only_build(tmp_path)
    data = collect(out)
    assert data["items_by_type"] == {"factoid": 8, "long_form": 8, "mcq": 8}  # items.jsonl: every item
    splits = data["splits"]
    assert splits["placed_by_split_fold_type"] == PLACED_MCQ and splits["items_placed"] == 8
    assert splits["review"] == {"approved_only": True, "rule": "all", "items": 24, "reviewed": 24, "approved": 8,
                                "not_reviewed": 0, "verdicts": 24}  # fmt: skip
    # iteration i: fold i's MCQs answerable, the other fold's unanswerable (nothing flagged as leaking)
    cells = {
        (it["set"], it["fold"]): (it["pages"], it["answerable"], it["unanswerable"]) for it in splits["iterations"]
    }
    assert cells == {("validation", 1): (3, 3, 3), ("validation", 2): (3, 3, 3), ("test", 1): (1, 1, 1),
                     ("test", 2): (1, 1, 1)}  # fmt: skip

    text = inspect_dir(out)
    assert "== items (items.jsonl: every accepted item) ==" in text
    items_block = text.split("== items", 1)[1].split("==", 2)[1]
    row = next(line.split() for line in items_block.splitlines() if line.strip().startswith("validation"))
    assert row[:2] == ["validation", "1"] and "long-form" in items_block
    placed = text.split("placed in splits", 1)[1]
    assert placed.startswith(
        " (crosseval.json): 8 item(s) from approved items only (review: 8 approved under rule 'all', 24 of 24 reviewed)"
    )
    assert "long-form" not in placed and "factoid" not in placed
    row = next(line for line in placed.splitlines() if line.strip().startswith("validation_iteration_1"))
    assert row.split() == ["validation_iteration_1", "3", "3", "3", "0", "0", "0"]
    assert json.loads(inspect_dir(out, as_json=True))["splits"] == splits


def test_inspect_without_review_says_every_item_is_placed(tmp_path):
    out = make_build(tmp_path / "out")
    assert run_splits(out) == "ran"
    splits = collect(out)["splits"]
    assert splits["items_placed"] == 24 and sum(splits["placed_by_split_fold_type"].values()) == 24
    assert splits["review"]["approved_only"] is False and splits["review"]["reviewed"] == 0
    assert "24 item(s) from every accepted item (review: 0 approved" in inspect_dir(out)
