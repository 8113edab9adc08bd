"""--dry-run: a table per item type that a real run's counts bear out (issue 24).

The example documents are built against a local OpenAI-compatible server (tests/support/llm_server.py,
answering like the prompts ask) twice: a dry run, then the run. The dry run's request count is
within 10 % of the calls the run made and its expected cost within 30 % of what the run cost
(the maximum, every reply at llm.max_tokens, is only a ceiling); a second dry run finds every
request in the cache, with nothing left to pay.
"""

from __future__ import annotations

import json

import pytest

from qagen import build
from qagen.generate.estimate import format_estimate
from tests.support.fast import EXAMPLES, FAST
from tests.support.llm_server import ServerProcess


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("dry") / "out"
    with ServerProcess(responder="grounded") as srv:
        overrides = [*FAST, f'llm.backend="openai:gpt-4o-mini@{srv.url}"']
        dry = build(EXAMPLES, out, overrides=overrides, dry_run=True).estimate
        sent_by_dry_run = srv.stats()["chat"]
        result = build(EXAMPLES, out, overrides=overrides)
        again = build(EXAMPLES, out, overrides=overrides, dry_run=True).estimate
    llm = json.loads((out / "manifest.json").read_text())["stages"]["generate"]["llm"]
    return {"dry": dry, "again": again, "llm": llm, "sent_by_dry_run": sent_by_dry_run, "result": result}


def test_the_dry_run_sends_nothing(runs):
    assert runs["sent_by_dry_run"] == 0


def test_requests_within_10_percent_and_expected_cost_within_30_percent(runs):
    total, llm = runs["dry"]["total"], runs["llm"]
    assert abs(total["to_send"] - llm["requests_sent"]) <= 0.1 * llm["requests_sent"], (total, llm)
    assert abs(total["cost_usd_expected"] - llm["cost_usd"]) <= 0.3 * llm["cost_usd"], (total, llm)
    assert total["cost_usd_max"] >= llm["cost_usd"]  # the ceiling holds
    assert abs(total["prompt_tokens"] - llm["prompt_tokens"]) <= 0.1 * llm["prompt_tokens"]


def test_one_row_per_type_that_adds_up(runs):
    dry = runs["dry"]
    assert set(dry["by_type"]) == {"long_form", "factoid", "mcq", "labels"}  # labels: the label judge's requests
    for key in ("requests", "to_send", "prompt_tokens", "completion_tokens_expected", "completion_tokens_max"):
        assert sum(row[key] for row in dry["by_type"].values()) == dry["total"][key]
    for row in dry["by_type"].values():
        assert row["completion_tokens_expected"] <= row["completion_tokens_max"]
    assert "gpt-4o-mini" in dry["price"] and "built-in price table" in dry["price"]


def test_after_the_run_every_request_is_cached_and_costs_nothing(runs):
    again = runs["again"]["total"]
    assert again["cached"] == again["requests"] > 0 and again["to_send"] == 0
    assert again["cost_usd_expected"] == 0.0 and again["cost_usd_max"] == 0.0


def test_the_table_reads_as_a_table(runs):
    text = format_estimate(runs["dry"])
    lines = text.splitlines()
    assert lines[0].startswith("dry run: generation would make these requests with openai:gpt-4o-mini@")
    assert lines[1].split()[:4] == ["type", "requests", "cached", "to"]
    assert [line.split()[0] for line in lines[2:7]] == ["long-form", "factoid", "MCQ", "labels", "total"]
    assert "expected / max" in lines[1] and lines[-1].startswith("price: gpt-4o-mini")


def test_the_build_summary_states_items_llm_use_warnings_and_the_next_step(runs):
    from qagen.commands.inspect import build_summary

    result, llm = runs["result"], runs["llm"]
    lines = build_summary(result).splitlines()
    counts = result.manifest["stages"]["filter"]["counts"]
    # the dry run made parse ... folds; the run reused them and ran generate, filter, splits, report
    assert lines[0].startswith("done: 4 stage(s) ran in ") and "5 unchanged and skipped" in lines[0]
    rejected = counts["rejected"] - counts.get("derived_not_made", 0)  # candidates lost; variants not made apart
    assert f"{counts['accepted']} items (" in lines[0] and f"{rejected} rejected" in lines[0]
    cells = [it for it in json.loads((result.out_dir / "crosseval.json").read_text())["iterations"]
             if it["set"] == "test"]  # fmt: skip
    c = cells[0]["counts"]
    scope = c["unanswerable_out_of_scope"]
    assert lines[1].startswith(
        f"test set: iteration 1 {c['answerable']} answerable + {c['unanswerable'] + scope} unanswerable "
        f"({scope} out of scope); iteration 2 "
    )
    lines = [lines[0], *[x for x in lines[1:] if not x.startswith(("test set:", "kinds:"))]]
    assert lines[1] == (
        f"llm: {llm['requests_sent']} requests sent (0 repairs, 0 retries, 0 failed), "
        f"{llm['prompt_tokens']:,} + {llm['completion_tokens']:,} tokens, ${llm['cost_usd']:.4f} (gpt-4o-mini)"
    )
    logged = sum(len(e.get("warnings_logged") or []) for e in result.manifest["stages"].values())
    assert (f"warnings: {logged} " in lines[2]) if logged else not lines[2].startswith("warnings")
    assert lines[-1].startswith(f"next: open {result.out_dir / 'report.html'}; then qagen export")


def test_an_offline_build_summary_says_no_llm_was_used(fast_example_build):
    from qagen.commands.build import BuildResult
    from qagen.commands.inspect import build_summary

    manifest = json.loads((fast_example_build / "manifest.json").read_text())
    text = build_summary(BuildResult(fast_example_build, [], manifest))
    assert "llm: none (offline extractive generator: no requests, no cost)" in text.splitlines()
