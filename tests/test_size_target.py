"""The size target (``--questions N``, ``generate.questions``): rounds until the filters keep N test items.

The order and the round sizes are checked on their own; two builds of the bundled examples check that a
reachable target is reached (with fewer sections asked than the corpus has) and that an unreachable one
stops at the corpus's ceiling with a one-line reason.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from qagen import build
from qagen.generate.target import MAX_ROUNDS, Rounds, ask_order
from tests.support.fast import EXAMPLES, FAST_COMPONENTS


def _corpus(n_docs: int = 4, per_doc: int = 10) -> tuple[list[str], dict, dict]:
    sampled, folds, doc_of = [], {}, {}
    for d in range(n_docs):
        for k in range(per_doc):
            sid = f"d{d}-s{k}"
            sampled.append(sid)
            folds[sid] = (1 + d % 2, "test" if k % 3 == 0 else "validation")
            doc_of[sid] = f"d{d}"
    return sampled, folds, doc_of


def test_the_order_spreads_over_folds_splits_and_documents() -> None:
    sampled, folds, doc_of = _corpus()
    order = ask_order(sampled, folds, doc_of, seed=0)
    assert sorted(order) == sorted(sampled) and order == ask_order(sampled, folds, doc_of, seed=0)
    assert order != ask_order(sampled, folds, doc_of, seed=1)
    first = order[:10]  # a quarter of the corpus already holds every document, both folds and both splits
    assert {doc_of[s] for s in first} == {"d0", "d1", "d2", "d3"}
    assert {folds[s] for s in first} == set(folds.values())
    shares = Counter(folds[s][1] for s in order[:20])
    assert 5 <= shares["test"] <= 9  # the test split's share of the corpus (14 of 40) in any prefix


def test_rounds_grow_by_the_measured_yield_and_stop_at_the_target() -> None:
    sampled, folds, doc_of = _corpus(n_docs=10, per_doc=30)
    order = ask_order(sampled, folds, doc_of, seed=0)
    is_test = {s: folds[s][1] == "test" for s in order}
    rounds = Rounds(20, order, is_test)
    first = rounds.next_batch()
    assert sum(is_test[s] for s in first) == 40  # 20 wanted at an assumed 0.5 per test section
    rounds.record(first, 60, got=10)  # half as many as hoped: 0.25 per test section
    second = rounds.next_batch()
    assert sum(is_test[s] for s in second) == 50  # (20 - 10) / 0.25 * 1.25
    rounds.record(second, 120, got=21)
    assert rounds.next_batch() == [] and rounds.shortfall() is None
    assert [r["accepted_test"] for r in rounds.to_dict()["rounds"]] == [10, 21]


def test_a_round_that_keeps_nothing_doubles_and_the_last_round_asks_the_rest() -> None:
    sampled, folds, doc_of = _corpus(n_docs=10, per_doc=30)
    order = ask_order(sampled, folds, doc_of, seed=0)
    rounds = Rounds(1000, order, {s: folds[s][1] == "test" for s in order})
    while batch := rounds.next_batch():
        rounds.record(batch, 0, got=0)
    assert len(rounds.rows) <= MAX_ROUNDS and rounds.asked == len(order)
    short = rounds.shortfall()
    assert short is not None and "got 0" in short and f"{len(order)} usable sections" in short
    assert "\n" not in short


def test_an_llm_limit_is_named_as_why_the_rounds_stopped() -> None:
    sampled, folds, doc_of = _corpus()
    rounds = Rounds(50, ask_order(sampled, folds, doc_of, 0), {s: folds[s][1] == "test" for s in sampled})
    rounds.record(rounds.next_batch()[:3], 3, got=2)
    rounds.asked = 3
    assert "llm.max_cost_usd reached" in (rounds.shortfall("llm.max_cost_usd reached") or "")


def _counts(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["stages"]


def _test_items(out: Path) -> int:
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    return sum(it["split"] == "test" and it.get("variant_of") is None for it in items)


@pytest.mark.slow
def test_a_reachable_target_is_reached_with_fewer_sections_asked(tmp_path: Path) -> None:
    from qagen.commands.inspect import build_summary

    out = tmp_path / "out"
    result = build(EXAMPLES, out, overrides=[*FAST_COMPONENTS, "generate.questions=3"])
    stages = _counts(out)
    generated = stages["generate"]["counts"]
    assert generated["questions"] == 3 and generated["accepted_test"] >= 3
    assert generated["sections_asked"] < generated["sections_usable"]  # it stopped when it had them
    assert _test_items(out) == generated["accepted_test"]  # the filter stage keeps what the rounds counted
    assert not any("generate.questions" in w for w in stages["generate"].get("warnings_logged", []))
    assert stages["folds"]["counts"]["sampled"] == stages["folds"]["counts"]["kept"]
    line = next(x for x in build_summary(result).splitlines() if x.startswith("questions:"))
    assert f"{_test_items(out)} test questions kept of 3 asked," in line and "short" not in line


@pytest.mark.slow
def test_an_unreachable_target_stops_at_the_ceiling_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(EXAMPLES, out, overrides=[*FAST_COMPONENTS, "generate.questions=500"])
    generated = _counts(out)["generate"]
    assert generated["counts"]["sections_asked"] == generated["counts"]["sections_usable"]
    said = [w for w in generated["warnings_logged"] if "generate.questions" in w]
    assert len(said) == 1 and "got" in said[0] and "ceiling" in said[0]
    assert _test_items(out) == generated["counts"]["accepted_test"] < 500


def test_every_document_without_items_says_why(fast_example_build: Path) -> None:
    """The report's per-document table gives each parsed document that gave no item its reason."""
    from qagen.report.data import load_report_data
    from qagen.report.summary import document_rows

    rows = document_rows(load_report_data(fast_example_build), 100)["rows"]
    empty = [r for r in rows if r["status"] == "ok" and not r["accepted"]]
    assert all(r["problem"] for r in empty), [r["path"] for r in empty if not r["problem"]]
    known = ("every section left out", "kept section(s) sampled", "no candidate", "candidate(s) rejected")
    assert all(any(k in r["problem"] for k in known) for r in empty)
    for r in empty:
        if r["left_out"] >= r["sections"]:
            assert r["problem"].startswith("every section left out")


@pytest.mark.slow
def test_a_size_targets_table_counts_the_sections_asked(tmp_path: Path) -> None:
    from qagen.report.data import load_report_data
    from qagen.report.summary import document_rows

    out = tmp_path / "out"
    build(EXAMPLES, out, overrides=[*FAST_COMPONENTS, "generate.questions=2"])
    asked = _counts(out)["generate"]["counts"]["sections_asked"]
    per_doc = document_rows(load_report_data(out), 100)
    assert sum(r["sampled"] for r in per_doc["rows"]) == asked
    assert not per_doc["more_sampled_helps"]  # every kept section may already be asked: no advice to sample more


@pytest.mark.slow
def test_the_llm_budget_bounds_every_round_together(tmp_path: Path) -> None:
    """With a size target the rounds share llm.max_requests: the build stops at it and says so."""
    from tests.support.grounded import grounded_responder
    from tests.support.llm_server import FakeOpenAIServer

    out = tmp_path / "out"
    with FakeOpenAIServer(grounded_responder) as server:
        # MCQs only: the test server's few accepted ones need a second round, which the budget cuts short
        overrides = [*FAST_COMPONENTS, f'llm.backend="openai:fake-model@{server.url}"', "generate.questions=4",
                     'generate.types=["mcq"]', "llm.max_requests=35", "generate.label_judge=false"]  # fmt: skip
        build(EXAMPLES, out, overrides=overrides, until="generate")
        sent = server.count()
    generated = _counts(out)["generate"]
    assert len(generated["size_target"]["rounds"]) == 2
    assert sent == generated["llm"]["requests_sent"] == 35  # each round alone would have been allowed 35
    said = [w for w in generated["warnings_logged"] if "generate.questions" in w]
    assert len(said) == 1 and "llm.max_requests" in said[0] and "earlier rounds" in said[0]


def test_a_shortfall_names_the_sections_fold_conflicts_left_out() -> None:
    """At the ceiling, the sections in no fold are the reason to name (a corpus whose pages mix topics loses most
    of its sections there, and 'more documents' alone would not tell the user why)."""
    sampled, folds, doc_of = _corpus(n_docs=4, per_doc=5)
    order = ask_order(sampled, folds, doc_of, seed=0)
    rounds = Rounds(1000, order, {s: folds[s][1] == "test" for s in order}, conflicts=195)
    while batch := rounds.next_batch():
        rounds.record(batch, 0, got=0)
    short = rounds.shortfall() or ""
    assert "195 more sections are in no fold (fold conflicts" in short and "\n" not in short
    assert rounds.to_dict()["sections_in_fold_conflicts"] == 195
    none_lost = Rounds(1000, order, {s: folds[s][1] == "test" for s in order})
    while batch := none_lost.next_batch():
        none_lost.record(batch, 0, got=0)
    assert "fold conflicts" not in (none_lost.shortfall() or "")
