"""Inter-rater agreement: Cohen's and Fleiss' kappa against values worked out by hand, here, in fractions."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from qagen.commands.review import export_review, import_review
from qagen.review import Verdict
from qagen.review.agreement import agreement, cohen_kappa, fleiss_kappa, interpret, mean_pairwise_agreement
from tests.support.review_data import make_build, read_rows, write_rows

# Two raters, ten items (c correct, w wrong, i incomplete, t too_specific).
CODES = {"c": "correct", "w": "wrong", "i": "incomplete", "t": "too_specific", "r": "irrelevant"}
ANN = ["c", "c", "c", "c", "c", "w", "w", "i", "i", "t"]
BOB = ["c", "c", "c", "c", "w", "w", "i", "i", "i", "t"]


def cohen_by_hand() -> tuple[F, F]:
    # Agreement on items 1-4 (c), 6 (w), 8-9 (i), 10 (t): p_o = 8/10.
    p_o = F(8, 10)
    # Marginals: ann c5 w2 i2 t1, bob c4 w2 i3 t1 -> p_e = (5*4 + 2*2 + 2*3 + 1*1) / 10^2 = 31/100.
    p_e = F(5 * 4 + 2 * 2 + 2 * 3 + 1 * 1, 100)
    labels = (p_o - p_e) / (1 - p_e)  # 49/69
    # Approved or not: ann yes on items 1-5, bob on 1-4: p_o = 9/10, p_e = (5*4 + 5*6)/100 = 1/2.
    approved = (F(9, 10) - F(1, 2)) / (1 - F(1, 2))  # 4/5
    return labels, approved


def verdicts(ratings: dict[str, list[str]]) -> list[Verdict]:
    return [Verdict(f"q{i}", rater, CODES[c]) for rater, codes in ratings.items() for i, c in enumerate(codes) if c]


def test_cohen_kappa_two_raters_matches_hand_computation():
    labels, approved = cohen_by_hand()
    assert labels == F(49, 69) and approved == F(4, 5)
    assert cohen_kappa([CODES[c] for c in ANN], [CODES[c] for c in BOB]) == pytest.approx(float(labels), abs=1e-12)
    result = agreement(verdicts({"ann": ANN, "bob": BOB}))
    assert result["method"] == "cohen" and result["overlap_items"] == 10 and result["raters"] == ["ann", "bob"]
    assert result["labels"]["kappa"] == round(float(labels), 4) == 0.7101
    assert result["labels"]["observed_agreement"] == 0.8
    assert result["labels"]["interpretation"] == "substantial"
    assert result["approved"]["kappa"] == 0.8 and result["approved"]["observed_agreement"] == 0.9
    assert result["pairs"] == [{"raters": ["ann", "bob"], "items": 10, "observed_agreement": 0.8, "kappa": 0.7101}]


# Four reviewers, three ratings per item (each item rated by a different trio).
FLEISS = {
    "ann": ["c", "c", "w", "i"],
    "bob": ["c", "c", "w", ""],
    "cat": ["c", "w", "", "t"],
    "dan": ["", "", "i", "c"],
}


def fleiss_by_hand() -> tuple[F, F, F, F, F]:
    n = 3  # ratings per item; counts per item: {c3}, {c2 w1}, {w2 i1}, {i1 t1 c1}
    counts = [[3], [2, 1], [2, 1], [1, 1, 1]]
    p_items = [F(sum(c * c for c in row) - n, n * (n - 1)) for row in counts]  # 1, 1/3, 1/3, 0
    p_bar = sum(p_items) / 4  # 5/12
    # Category shares over 12 ratings: c 6, w 3, i 2, t 1 -> P_e = 1/4 + 1/16 + 1/36 + 1/144 = 25/72.
    p_e = F(6, 12) ** 2 + F(3, 12) ** 2 + F(2, 12) ** 2 + F(1, 12) ** 2
    labels = (p_bar - p_e) / (1 - p_e)  # 5/47
    # Approved or not: correct counts 3, 2, 0, 1 of 3 -> P_i 1, 1/3, 1, 1/3 -> P-bar 2/3; P_e = 1/2^2 + 1/2^2.
    approved = (F(2, 3) - F(1, 2)) / (1 - F(1, 2))  # 1/3
    return labels, approved, p_bar, p_e, F(2, 3)


def test_fleiss_kappa_more_raters_matches_hand_computation():
    labels, approved, p_bar, p_e, p_bar_approved = fleiss_by_hand()
    assert (labels, approved, p_bar, p_e) == (F(5, 47), F(1, 3), F(5, 12), F(25, 72))
    result = agreement(verdicts(FLEISS))
    assert result["method"] == "fleiss" and result["ratings_per_item"] == 3 and result["items_left_out"] == 0
    assert result["labels"]["kappa"] == round(float(labels), 4) == 0.1064
    assert result["labels"]["observed_agreement"] == round(float(p_bar), 4)
    assert result["labels"]["interpretation"] == "slight"
    assert result["approved"]["kappa"] == round(float(approved), 4)
    assert result["approved"]["observed_agreement"] == round(float(p_bar_approved), 4)
    shared = {tuple(p["raters"]): p["items"] for p in result["pairs"]}
    assert shared == {("ann", "bob"): 3, ("ann", "cat"): 3, ("ann", "dan"): 2, ("bob", "cat"): 2, ("bob", "dan"): 1,
                      ("cat", "dan"): 1}  # fmt: skip
    assert result["pairs"][0] == {"raters": ["ann", "bob"], "items": 3, "observed_agreement": 1.0, "kappa": 1.0}


def test_fleiss_table_against_the_published_example():
    # Fleiss (1971) / Wikipedia: 10 subjects, 14 raters, 5 categories -> kappa 0.210.
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]  # fmt: skip
    assert fleiss_kappa(table) == pytest.approx(0.20993, abs=1e-5)
    assert mean_pairwise_agreement(table) == pytest.approx(0.37802, abs=1e-5)


def test_mixed_rating_counts_use_the_most_common_and_say_so():
    ratings = dict(FLEISS)
    ratings["eve"] = ["", "", "", "", "c"]  # a fifth item with only one rating: not in the overlap set
    ratings["ann"] = [*FLEISS["ann"], "c"]
    ratings["fay"] = ["", "", "", "", ""]
    result = agreement(verdicts(ratings))
    assert result["overlap_items"] == 5 and result["ratings_per_item"] == 3 and result["items_left_out"] == 1
    assert "1 item(s) with another number of ratings left out" in result["note"]
    assert result["labels"]["kappa"] == 0.1064


def test_undefined_and_absent_agreement():
    same = agreement(verdicts({"ann": ["c", "c"], "bob": ["c", "c"]}))
    assert same["labels"]["kappa"] is None and same["labels"]["interpretation"] is None
    assert same["labels"]["observed_agreement"] == 1.0
    none = agreement(verdicts({"ann": ["c", "w"], "bob": ["", "", "c"]}))
    assert none["method"] is None and none["overlap_items"] == 0 and "--overlap" in none["note"]


@pytest.mark.parametrize(
    ("kappa", "word"),
    [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.35, "fair"), (0.6, "moderate"), (0.61, "substantial"),
     (0.81, "almost perfect"), (1.0, "almost perfect"), (None, None)],
)  # fmt: skip
def test_landis_koch_bands(kappa, word):
    assert interpret(kappa) == word


def test_import_reports_the_hand_computed_cohen_kappa(tmp_path: Path):
    out = make_build(tmp_path / "out")
    files = export_review(out, tmp_path / "r.csv", reviewers="ann,bob", sample=10, overlap=10, seed=3).files
    for name, codes in (("ann", ANN), ("bob", BOB)):
        header, rows = read_rows(files[name])
        for row, code in zip(rows, codes, strict=True):  # same item order in both files
            row[CODES[code]] = "x"
        write_rows(files[name], header, rows)
    summary = import_review(out, list(files.values())).summary
    labels, approved = cohen_by_hand()
    assert summary["agreement"]["method"] == "cohen"
    assert summary["agreement"]["labels"]["kappa"] == round(float(labels), 4)
    assert summary["agreement"]["approved"]["kappa"] == round(float(approved), 4)
    assert summary["labels"] == {"irrelevant": 0, "too_specific": 2, "wrong": 4, "incomplete": 5, "correct": 9}
