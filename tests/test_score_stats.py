"""Honest numbers: intervals, the CRAG-style score, and two chatbots compared on paired questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qagen.score.compare import compare_rows, format_comparison
from qagen.score.metrics import aggregate, crag_value
from qagen.score.stats import bootstrap_mean, paired_difference, wilson
from tests.support.score_data import ANSWERS, IT1, BagOfWords, make_out, write_answers


def test_wilson_intervals_match_the_textbook_values() -> None:
    assert wilson(7, 10) == [0.3968, 0.8922]  # Wilson (1927) score interval, z = 1.96
    assert wilson(0, 5) == [0.0, 0.4345]
    assert wilson(10, 10) == [0.7225, 1.0]
    assert wilson(0, 0) is None


def test_bootstrap_intervals_are_reproducible_and_hold_the_mean() -> None:
    values = [0.1, 0.9, 0.4, 0.5, 0.7, 0.2, 0.3, 0.8]
    ci = bootstrap_mean(values)
    assert ci == bootstrap_mean(values) and ci[0] < sum(values) / len(values) < ci[1]
    assert bootstrap_mean([1.0, 1.0, 1.0]) == [1.0, 1.0] and bootstrap_mean([0.5]) is None


def test_a_paired_difference_separates_only_what_the_questions_support() -> None:
    clear = paired_difference([0, 0, 1, 0, 1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 1, 1, 1, 1])
    assert clear["difference"] == 0.7 and clear["separated"] and clear["ci"][0] > 0
    noise = paired_difference([1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 1, 0])
    assert noise["difference"] == 0.0 and not noise["separated"]
    with pytest.raises(ValueError):
        paired_difference([1, 0], [1])


@pytest.mark.parametrize(
    ("row", "value"),
    [
        ({"role": "unanswerable", "declined": True}, 0),  # declined where it should: nothing gained or lost
        ({"role": "unanswerable", "declined": False}, -1),  # hallucinated
        ({"role": "answerable", "declined": True}, 0),  # missing
        ({"role": "answerable", "declined": False, "type": "factoid", "factoid_correct": True}, 1),
        ({"role": "answerable", "declined": False, "type": "factoid", "factoid_correct": False}, -1),
        ({"role": "answerable", "declined": False, "type": "mcq", "mcq_judge_correct": True}, 1),
        ({"role": "answerable", "declined": False, "type": "factoid", "premise_corrected": False}, -1),
        ({"role": "answerable", "declined": False, "type": "long_form", "rougeL": 0.9}, None),  # no judge: left out
    ],
)
def test_the_crag_value_of_one_answer(row: dict, value: int | None) -> None:
    assert crag_value(row, long_form_rouge_l=None) == value


def test_long_form_enters_the_crag_score_only_with_a_threshold() -> None:
    row = {"role": "answerable", "declined": False, "type": "long_form", "rougeL": 0.45}
    assert crag_value(row, long_form_rouge_l=0.4) == 1 and crag_value(row, long_form_rouge_l=0.5) == -1


def test_every_share_has_its_n_and_interval() -> None:
    rows = [
        {"role": "answerable", "declined": i % 4 == 0, "type": "long_form", "rougeL": i / 10, "rouge1": 0, "rouge2": 0,
         "_prediction": "an answer", "_reference": "the reference"}
        for i in range(10)
    ]  # fmt: skip
    rows += [{"role": "unanswerable", "declined": i % 2 == 0, "type": "long_form"} for i in range(6)]
    for r in rows:
        r["crag"] = crag_value(r, long_form_rouge_l=0.5)
    block = aggregate(rows, [1])
    assert block["answerable"]["n"] == 10 and block["answerable"]["answered_ci"] == wilson(7, 10)
    assert block["unanswerable_detection"]["recall_ci"] == wilson(3, 6)
    assert block["answer_quality"]["rougeL_ci"] == bootstrap_mean([i / 10 for i in range(10)])
    crag = block["crag"]
    assert (crag["n"], crag["correct"], crag["missing"], crag["hallucinated"]) == (16, 4, 6, 6)
    assert crag["score"] == round((4 - 6) / 16, 4) and crag["ci"] == bootstrap_mean([r["crag"] for r in rows])


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    from qagen.score import score

    out = make_out(tmp_path / "out")
    good = write_answers(tmp_path / "good.jsonl", ANSWERS)
    score(out, good, judge=BagOfWords())
    return out


def test_the_headline_is_the_test_set_else_validation_with_the_crag_score_and_intervals(scored: Path) -> None:
    from qagen.score import read_scores
    from qagen.score.results import format_summary

    scores = read_scores(scored / "scores.json")
    headline = scores["headline"]
    assert headline["set"] == "validation"  # this dataset has no test set
    # f1 +1 in IT1, f2 +1 in IT2; l2 answered in IT1 where it is unanswerable -1; m2's judge picks C -1
    crag = scores["overall"]["crag"]
    m1_right = scores["by_iteration"][IT1]["mcq"]["judge"]["correct"]  # the bag-of-words judge's pick
    assert (crag["correct"], crag["hallucinated"]) == (2 + m1_right, 2)
    assert crag["left_out"] == 1  # l1 answered where answerable: long-form, no judge
    assert crag["n"] == 12 - 1 and crag["missing"] == 12 - 1 - crag["correct"] - crag["hallucinated"]
    text = format_summary(scores)
    assert "headline (validation set, 2 iterations):" in text
    # the words say one thing each: out of fold is hallucination, wrong answers are split by where they were
    wrong = headline["answered_wrongly"]
    assert (wrong["n"], wrong["out_of_fold"] + wrong["in_fold"]) == (crag["hallucinated"], crag["hallucinated"])
    assert f"answered wrongly (-1: {wrong['out_of_fold']} out of fold, {wrong['in_fold']} in fold)" in text
    assert headline["correct"]["needs_judge"] == 1 and "1 long-form answer(s) need a judge" in text


def test_the_headline_figures_are_the_same_in_scores_json_the_console_the_report_and_inspect(scored: Path) -> None:
    import re

    from qagen.commands.inspect import scores_state
    from qagen.report.render import _environment
    from qagen.report.scores import scores_view
    from qagen.score import read_scores
    from qagen.score.results import format_summary, headline_lines

    scores = read_scores(scored / "scores.json")
    head = scores["headline"]
    out_of_fold, in_fold = head["answered_out_of_fold"], head["answered_in_fold"]
    lines = headline_lines(head, scores["settings"]["min_n"])
    hallucination = f"{100 * out_of_fold['answered_share']:.1f}%"
    assert f"hallucination: {hallucination}" in lines[1] and f"(n={out_of_fold['n']})" in lines[1]
    assert f"answered in fold: {100 * in_fold['answered_share']:.1f}%" in lines[2]
    assert all(line in format_summary(scores) for line in lines)  # the console
    html = _environment(True).get_template("scores.html.j2").render(scores=scores_view(scores))
    shown = re.search(r'<pre class="headline">(.*?)</pre>', html, re.S).group(1)
    assert [ln.replace("&gt;", ">") for ln in shown.strip().splitlines()] == lines  # the report, word for word
    tile = re.search(r'id="kpi-answered_out_of_fold".*?<div class="v">([^<]*)</div>', html, re.S).group(1)
    assert tile.strip() == hallucination and f"n = {out_of_fold['n']}" in html  # the tile: the headline's set
    assert scores_state(scored / "scores.json", None)["headline_lines"] == lines  # what qagen inspect prints


def test_two_chatbots_compared_on_the_same_questions(tmp_path: Path) -> None:
    from qagen.commands.score import score_command

    out = make_out(tmp_path / "out")
    good = write_answers(tmp_path / "good.jsonl", ANSWERS)
    # a worse chatbot: answers everything with the same confident sentence
    bad = write_answers(
        tmp_path / "bad.jsonl", [{**a, "answer": "It is on the second floor, call 555 0100."} for a in ANSWERS]
    )
    text = score_command(out, [good, bad], judge=BagOfWords(), progress=False)
    comparison = json.loads((out / "comparison.json").read_text())
    row = comparison["bad"]["all"]["metrics"]["answered_out_of_fold"]
    assert (row["n"], row["a"], row["b"], row["better"]) == (6, round(1 / 6, 4), 1.0, "a")  # "good" hallucinates less
    assert comparison["bad"]["validation"]["questions"] == 12
    assert (out / "scores.json").is_file() and (out / "scores.bad.json").is_file()
    assert "answered_out_of_fold" in text and "good" in text and "bad" in text
    rows_a = [json.loads(x) for x in (out / "scores.items.jsonl").read_text().splitlines()]
    assert compare_rows(rows_a, rows_a)["metrics"]["crag_score"]["difference"] == 0.0
    assert "neither" in format_comparison(compare_rows(rows_a, rows_a), "good", "good")


def test_noise_robustness_pairs_each_variant_with_its_original_in_the_same_iteration() -> None:
    def row(item: str, declined: bool, rouge: float, formulation: str = "natural", of: str | None = None) -> dict:
        return {"iteration": "it1", "item_id": item, "role": "answerable", "declined": declined, "type": "long_form",
                "rouge1": rouge, "rouge2": rouge, "rougeL": rouge, "formulation": formulation, "variant_of": of,
                "_prediction": "a", "_reference": "b"}  # fmt: skip

    rows = [row(f"o{i}", False, 0.8) for i in range(4)]
    rows += [row(f"n{i}", i == 0, 0.5, "noisy", f"o{i}") for i in range(4)]  # one declined, the rest worse
    rows += [row("s0", False, 0.8, "search", "o0"), row("x", False, 0.1, "noisy", "missing")]  # no original: left out
    block = aggregate(rows, [1])["robustness"]
    assert set(block) == {"noisy", "search"} and block["noisy"]["n"] == 4
    assert block["noisy"]["answered"]["difference"] == -0.25
    assert block["noisy"]["rougeL"]["n"] == 3 and block["noisy"]["rougeL"]["difference"] == round(0.5 - 0.8, 4)
    assert block["search"]["rougeL"]["difference"] == 0.0


def test_semantic_similarity_and_context_precision_per_answer(scored: Path) -> None:
    rows = {(r["item_id"], r["iteration"]): r for r in map(json.loads, (scored / "scores.items.jsonl").open())}
    assert rows[("l1", IT1)]["semantic"] > 0.8  # "open from 9 to 5" against "... from 9 to 5 on weekdays"
    assert "semantic" not in rows[("l2", IT1)]  # unanswerable there: nothing to compare
    assert rows[("f1", IT1)]["context_precision"] == 0.5  # d1-p1 then d1-p0: one of two is the source
    scores = json.loads((scored / "scores.json").read_text())
    assert scores["settings"]["semantic_embedder"].startswith("sentence-transformers:")  # the baseline judge's
    assert 0 < scores["overall"]["answer_quality"]["semantic_answered"] <= 1


def test_cost_and_latency_are_summed_from_the_answers(tmp_path: Path) -> None:
    from qagen.score import score
    from qagen.score.results import format_summary

    out = make_out(tmp_path / "out")
    priced = [{**a, "cost_usd": 0.002 if a["iteration"] == IT1 else 0.001} for a in ANSWERS]
    scores = score(out, write_answers(tmp_path / "priced.jsonl", priced), judge=BagOfWords())
    assert scores["overall"]["cost_usd"] == {"n": 12, "total": 0.018, "per_answer": 0.0015}
    assert scores["by_iteration"][IT1]["cost_usd"]["total"] == 0.012
    assert "cost $0.0180 over 12 answers" in format_summary(scores)
    bad = write_answers(tmp_path / "bad.jsonl", [{**ANSWERS[0], "cost_usd": -1}])
    with pytest.raises(Exception, match="cost_usd"):
        score(out, bad, judge=BagOfWords())


def test_scores_break_down_by_formulation_and_hops(scored: Path) -> None:
    scores = json.loads((scored / "scores.json").read_text())
    assert set(scores["by_formulation"]) == {"natural"} and set(scores["by_hops"]) == {"single"}
    assert scores["by_hops"]["single"]["answers"] == scores["overall"]["answers"] == 12
