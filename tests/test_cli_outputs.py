"""What the CLI prints and writes for a finished build, and the invariants of the written files.

One module-scoped fast build (TF-IDF embeddings, PCA + k-means topics, as in test_build.py) of
the bundled examples; ``qagen inspect``, ``qagen export`` (every format) and ``qagen report``
run through the real click command; then the bookkeeping of the written files is checked:
every candidate is accepted or rejected exactly once, the funnel matches rejected.jsonl, and
the splits/ files are disjoint and consistent with crosseval.json. One small LLM build (local
fake OpenAI server with injected 500s and a model that repeats itself) checks the same
bookkeeping when generation failures and exact repeats are present.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from qagen import build
from qagen.cli import cli
from qagen.commands.export import COLUMNS, CORPUS_TYPES, question_text
from qagen.filters import format_funnel
from qagen.io import unguard_cell
from tests.support.fast import FAST

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
# Records the generate stage writes to generation_failures.jsonl (and the filter stage copies,
# first, into rejected.jsonl): failed requests and a model's exact repeats of a question.
GENERATION_FILTERS = {"generation", "exact_repeat"}
# Records of the kinds made from accepted items after the filters (formulation variants, false premises): the
# derived items carry variant_of; those that could not be made are rejected under these names.
DERIVED_FILTERS = {"variant", "premise"}


@pytest.fixture(scope="module")
def out(fast_example_build) -> Path:
    return fast_example_build


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def qagen(*args: str) -> Any:
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="qagen", catch_exceptions=False)
    assert result.exit_code == 0, (result.exit_code, result.output)
    return result


def crosseval(out: Path) -> dict[str, Any]:
    return json.loads((out / "crosseval.json").read_text())


# --- qagen inspect ----------------------------------------------------------------------------


def test_inspect_prints_the_filter_funnel_of_funnel_json(out):
    funnel = json.loads((out / "funnel.json").read_text())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stages"]["filter"]["funnel"] == funnel["funnel"]  # the manifest keeps the same rows
    text = qagen("inspect", out).output
    block = text.split("filter funnel:\n", 1)[1]
    assert block.rstrip("\n") == format_funnel(funnel["funnel"])
    for name in dict.fromkeys(r["filter"] for r in funnel["funnel"]):
        assert any(line.split()[0] == name for line in block.splitlines()[1:]), name
    accepted = manifest["stages"]["filter"]["counts"]["accepted"]
    assert f"accepted={accepted}" in text


def test_inspect_json_parses_and_holds_the_funnel_and_counts(out):
    # through the console entry point in a child process: stdout must be nothing but the JSON
    proc = subprocess.run(
        [sys.executable, "-m", "qagen.cli", "inspect", str(out), "--json"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    manifest = json.loads((out / "manifest.json").read_text())
    assert data["funnel"] == json.loads((out / "funnel.json").read_text())
    assert list(data["stages"]) == list(manifest["stages"])
    for name, entry in manifest["stages"].items():
        assert data["stages"][name]["counts"] == entry["counts"]
    items = jsonl(out / "items.jsonl")
    assert data["items_by_type"] == dict(sorted(Counter(it["type"] for it in items).items()))


# --- qagen export -----------------------------------------------------------------------------


def _rows(fmt: str, dest: Path, name: str) -> tuple[list[dict[str, Any]], int, list[str]]:
    """(questions as common fields, corpus rows, files) of one iteration in one export format.

    Common fields: id, question, expected (the expected answer), answerable, behavior, contexts.
    """
    if fmt in ("ragas", "hf"):
        path = dest / f"{name}.jsonl" if fmt == "ragas" else dest / "data" / f"{name}.jsonl"
        corpus = dest / f"{name}_corpus.jsonl" if fmt == "ragas" else dest / "corpus" / f"{name}.jsonl"
        raw = jsonl(path)
        n_pages = len(jsonl(corpus))
    elif fmt == "deepeval":
        path, corpus = dest / f"{name}.json", dest / f"{name}_corpus.jsonl"
        raw = json.loads(path.read_text())
        n_pages = len(jsonl(corpus))
    else:
        path, corpus = dest / f"{name}.csv", dest / f"{name}_corpus.csv"
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == list(COLUMNS)
            raw = list(reader)
        with corpus.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == list(CORPUS_TYPES)
            n_pages = len(list(reader))
    rows = [_common(fmt, r) for r in raw]
    return rows, n_pages, [path.relative_to(dest).as_posix(), corpus.relative_to(dest).as_posix()]


def _common(fmt: str, r: dict[str, Any]) -> dict[str, Any]:
    if fmt == "ragas":
        assert {"user_input", "reference", "reference_contexts", "reference_context_ids"} <= set(r)
        return {
            "id": r["id"],
            "question": r["user_input"],
            "expected": r["reference"],
            "answerable": r["answerable"],
            "behavior": r["expected_behavior"],
            "contexts": r["reference_contexts"],
        }
    if fmt == "deepeval":
        assert {"input", "expected_output", "context", "name", "additional_metadata"} <= set(r)
        meta = r["additional_metadata"]
        return {
            "id": r["name"],
            "question": r["input"],
            "expected": r["expected_output"],
            "answerable": meta["answerable"],
            "behavior": meta["expected_behavior"],
            "contexts": r["context"],
        }
    assert list(r) == list(COLUMNS)
    if fmt == "csv":  # csv cells are text: booleans as True/False, lists as JSON
        assert r["answerable"] in ("True", "False")
        r = {k: unguard_cell(v) for k, v in r.items()}  # text cells that look like formulas carry an apostrophe
        r = {**r, "answerable": r["answerable"] == "True", "contexts": json.loads(r["contexts"])}
    return {
        "id": r["id"],
        "question": r["question"],
        "expected": r["answer"],
        "answerable": r["answerable"],
        "behavior": r["expected_behavior"],
        "contexts": r["contexts"],
    }


@pytest.mark.parametrize("fmt", ["ragas", "deepeval", "hf", "csv"])
def test_export_writes_every_iteration_with_crosseval_counts(out, tmp_path, fmt):
    dest = tmp_path / fmt
    result = qagen("export", out, "--format", fmt, "-o", dest)
    ce = crosseval(out)
    refusal = ce["refusal_answer"]
    index = json.loads((dest / "exports.json").read_text())
    assert index["format"] == fmt and index["refusal_answer"] == refusal
    assert [i["name"] for i in index["iterations"]] == [it["name"] for it in ce["iterations"]]
    n_files = 0
    for it, entry in zip(ce["iterations"], index["iterations"], strict=True):
        rows, n_pages, files = _rows(fmt, dest, it["name"])
        n_files += len(files)
        assert [entry["questions"], entry["corpus"]] == files
        counts = it["counts"]
        answerable = [r for r in rows if r["answerable"] is True]
        refuse = [r for r in rows if r["answerable"] is False]
        assert len(answerable) + len(refuse) == len(rows)
        assert (len(answerable), len(refuse), n_pages) == (
            counts["answerable"],
            counts["unanswerable"] + counts.get("unanswerable_out_of_scope", 0),
            counts["pages"],
        )
        assert (entry["answerable"], entry["unanswerable"], entry["pages"]) == (len(answerable), len(refuse), n_pages)
        # the same questions, in the same order, as the iteration's questions.jsonl
        questions = jsonl(out / it["questions"])
        assert [r["id"] for r in rows] == [q["id"] for q in questions]
        # what the chatbot is asked: the question, and a multiple-choice item's options on lines of their own
        assert [r["question"] for r in rows] == [question_text(q) for q in questions]
        mcq = [(r, q) for r, q in zip(rows, questions, strict=True) if q["type"] == "mcq"]
        assert all(r["question"].endswith("\nD) " + q["options"][3]) for r, q in mcq)
        answers = {q["id"]: q["answer"] for q in jsonl(out / it["answerable"])}
        behaviour = {q["id"]: q["expected_behavior"] for q in questions}  # a false premise: correct_premise
        for r in answerable:
            assert r["behavior"] == behaviour[r["id"]] in ("answer", "correct_premise")
            assert r["expected"] == answers[r["id"]] and r["contexts"]
        for r in refuse:
            assert r["behavior"] == "refuse" and r["expected"] == refusal and r["contexts"] == []
        assert {r["id"] for r in refuse} == {q["id"] for q in jsonl(out / it["unanswerable"])}
    assert sum(it["counts"]["unanswerable"] for it in ce["iterations"]) > 0  # the refuse role is exercised
    extra = 1 if fmt == "hf" else 0  # the dataset card
    assert result.output.strip() == f"wrote {n_files + extra + 1} file(s) to {dest}"
    if fmt == "hf":
        card = (dest / "README.md").read_text()
        assert "config_name: questions" in card and "config_name: corpus" in card


# --- qagen report -----------------------------------------------------------------------------


def test_report_rewrites_report_html_and_nothing_else(out, tmp_path):
    out = shutil.copytree(out, tmp_path / "out")  # the shared build stays as built
    path = out / "report.html"
    others = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p != path and ".cache" not in p.parts}
    path.write_text("stale", encoding="utf-8")
    os.utime(path, (1_000_000_000, 1_000_000_000))
    result = qagen("report", out)
    assert result.output.strip() == f"wrote {path}"
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert path.stat().st_mtime > 1_000_000_000
    n_items = len(jsonl(out / "items.jsonl"))
    assert re.search(rf'id="funnel-accepted">(<b>)?{n_items:,}<', html), "the page shows the accepted count"
    qagen("report", out)
    assert path.read_text(encoding="utf-8") == html  # same folder, same page
    assert {p: p.read_bytes() for p in others} == others  # no stage reran, no artifact touched


# --- bookkeeping of the written files ------------------------------------------------------------


def assert_every_candidate_accounted_for(out: Path) -> dict[str, int]:
    """The filter stage's exact bookkeeping (qagen/stages/filter.py).

    rejected.jsonl = generation_failures.jsonl (failed requests, exact repeats; never candidates)
    followed by one line per candidate a filter dropped, then the variants and false premises that
    could not be made; items.jsonl = the candidates no filter dropped, then the variants and false
    premises made from them (``variant_of``). Hence, as multisets of ids, candidates = original
    items + filter rejections, every derived item or derived rejection names an original item, and in
    lines items + rejected = candidates + generation_failures + derived items + derived rejections.
    """
    candidates = jsonl(out / "candidates.jsonl")
    failures = jsonl(out / "generation_failures.jsonl")
    items = jsonl(out / "items.jsonl")
    rejected = jsonl(out / "rejected.jsonl")
    manifest = json.loads((out / "manifest.json").read_text())["stages"]
    assert all(f["filter"] in GENERATION_FILTERS for f in failures)
    assert rejected[: len(failures)] == failures
    later = rejected[len(failures) :]
    by_filters = [r for r in later if r["filter"] not in DERIVED_FILTERS]
    derived_rejected = [r for r in later if r["filter"] in DERIVED_FILTERS]
    assert later == by_filters + derived_rejected  # the derived kinds are made after every filter ran
    assert not any(r["filter"] in GENERATION_FILTERS for r in by_filters)
    originals = [i for i in items if not i.get("variant_of")]
    derived = [i for i in items if i.get("variant_of")]
    assert items == originals + derived
    assert Counter(c["id"] for c in candidates) == Counter(i["id"] for i in originals) + Counter(
        r["id"] for r in by_filters
    )
    original_ids = {i["id"] for i in originals}
    assert all(i["variant_of"] in original_ids for i in derived)
    assert len(items) + len(rejected) == len(candidates) + len(failures) + len(derived) + len(derived_rejected)
    candidate_ids = {c["id"] for c in candidates}
    by_id = {c["id"]: c for c in candidates}
    for f in failures:
        if f["filter"] == "exact_repeat":  # id = first copy's id + "-repeat<n>"; the first copy is a candidate
            first = f["id"].rsplit("-repeat", 1)[0]
            assert by_id[first]["question"] == f["question"] and by_id[first]["type"] == f["type"]
        else:
            assert f["id"] not in candidate_ids
    kinds = Counter(f["filter"] for f in failures)
    assert manifest["generate"]["counts"]["candidates"] == len(candidates)
    assert manifest["generate"]["counts"]["failed_requests"] == kinds["generation"]
    assert manifest["generate"]["counts"]["exact_repeats"] == kinds["exact_repeat"]
    counts = manifest["filter"]["counts"]
    assert (counts["candidates"], counts["accepted"], counts["rejected"]) == (
        len(candidates),
        len(items),
        len(rejected),
    )
    return {"candidates": len(candidates), "items": len(items), **kinds}


def assert_funnel_matches_rejected(out: Path) -> None:
    """Per funnel row: in - out = rejected = rejected.jsonl lines of that filter and type; rows chain."""
    funnel = json.loads((out / "funnel.json").read_text())["funnel"]
    rejected = Counter((r["filter"], r["type"]) for r in jsonl(out / "rejected.jsonl"))
    for row in funnel:
        key = (row["filter"], row["type"])
        assert row["in"] - row["out"] == row["rejected"] == rejected[key], row
        assert sum(row["reasons"].values()) == row["rejected"], row
    rows = {(r["filter"], r["type"]) for r in funnel}
    outside = GENERATION_FILTERS | DERIVED_FILTERS  # counted in the manifest and funnel.json's kinds instead
    assert {k for k in rejected if k[0] not in outside} <= rows  # no rejection outside the funnel
    candidates = Counter(c["type"] for c in jsonl(out / "candidates.jsonl"))
    items = Counter(i["type"] for i in jsonl(out / "items.jsonl") if not i.get("variant_of"))
    for kind in candidates:
        chain = [r for r in funnel if r["type"] == kind]
        assert chain[0]["in"] == candidates[kind] and chain[-1]["out"] == items[kind]
        assert all(a["out"] == b["in"] for a, b in pairwise(chain))


def test_every_candidate_is_accepted_or_rejected_exactly_once(out):
    tally = assert_every_candidate_accounted_for(out)
    assert tally["candidates"] > tally["items"] > 0  # the filters dropped some


def test_funnel_rows_match_rejected_jsonl(out):
    assert_funnel_matches_rejected(out)


def test_split_files_are_disjoint_and_consistent(out):
    ce = crosseval(out)
    items = {i["id"]: i for i in jsonl(out / "items.jsonl")}
    cell_of: dict[str, str] = {}
    page_cell: dict[str, str] = {}
    answerable: dict[tuple[str, int], list[dict]] = {}
    for it in ce["iterations"]:
        cell = f"{it['set']}/fold_{it['iteration']}"
        records = jsonl(out / it["answerable"])
        answerable[(it["set"], it["iteration"])] = records
        for r in records:
            assert r["id"] not in cell_of, f"{r['id']} in {cell_of.get(r['id'])} and {cell}"
            cell_of[r["id"]] = cell
            assert (r["split"], r["fold"]) == (it["set"], it["iteration"]) and r["id"] in items
        for p in jsonl(out / it["corpus"]):
            assert p["id"] not in page_cell, f"page {p['id']} in {page_cell.get(p['id'])} and {cell}"
            page_cell[p["id"]] = cell
    assert len(cell_of) == ce["items"]["placed"]
    for it in ce["iterations"]:
        s, f = it["set"], it["iteration"]
        pages = jsonl(out / it["corpus"])
        page_ids = {p["id"] for p in pages}
        section_ids = {sid for p in pages for sid in p["section_ids"]}
        mine, refuse, questions = answerable[(s, f)], jsonl(out / it["unanswerable"]), jsonl(out / it["questions"])
        assert questions == mine + refuse
        assert [q["id"] for q in questions] == [r["id"] for r in mine] + [r["id"] for r in refuse]
        # the refuse role: the other fold's items minus the leakage-flagged ones, in order, then the
        # out-of-scope questions (no source)
        other = [r["id"] for r in answerable[(s, 3 - f)]]
        off_domain = [r for r in refuse if r["scope"] == "out_of_scope"]
        refuse = [r for r in refuse if r["scope"] == "other_fold"]
        assert questions == mine + refuse + off_domain
        assert len(off_domain) == it["counts"].get("unanswerable_out_of_scope", 0)
        assert all(r["expected_behavior"] == "refuse" and not r["source"]["section_ids"] for r in off_domain)
        assert [r["id"] for r in refuse] == [i for i in other if i not in set(it["unanswerable_excluded"])]
        for r in refuse:
            assert r["role"] == "unanswerable" and r["expected_behavior"] == "refuse"
            assert not set(r["source"]["page_ids"]) & page_ids, r["id"]
            assert not set(r["source"]["section_ids"]) & section_ids, r["id"]
        for r in mine:  # the control: an answerable item's sources are in this corpus
            premise = items[r["id"]].get("premise") == "false"
            assert r["role"] == "answerable" and r["expected_behavior"] == ("correct_premise" if premise else "answer")
            assert set(r["source"]["page_ids"]) <= page_ids and set(r["source"]["section_ids"]) <= section_ids
        assert len(refuse) == it["counts"]["unanswerable"] and len(mine) == it["counts"]["answerable"]


# --- the same bookkeeping with generation failures and exact repeats ---------------------------


LLM_DOCS = (
    "it_helpdesk.pdf",
    "leave_policy.pdf",
    "remote_work_policy.md",
    "linkhaven_faq.txt",
    "cardiology_clinic.pdf",
)


def repeating_responder(body: dict) -> Any:
    """The grounded model, except that it writes its first long-form question twice (in place of its last, so that
    the reply still has no more candidates than the schema allows)."""
    from tests.support.grounded import grounded_responder

    reply = grounded_responder(body)
    if isinstance(reply, dict) and len(reply.get("candidates") or ()) >= 2:
        reply["candidates"][-1] = dict(reply["candidates"][0])
    return reply


def test_bookkeeping_holds_with_failed_requests_and_exact_repeats(tmp_path):
    from tests.support.llm_server import FakeOpenAIServer, server_error

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in LLM_DOCS:
        shutil.copy(EXAMPLES / name, docs / name)
    out = tmp_path / "out"
    with FakeOpenAIServer(repeating_responder, fault_rate=0.25, faults=[server_error(500)], seed=5) as server:
        settings = [
            *FAST[:3],
            "topics.n_clusters=4",
            "folds.samples_total=16",
            "folds.min_fold_ratio=0",
            "generate.long_form_per_section=2",
            "filter.keep_per_section=2",  # requests ask for two questions, so a reply can repeat one
            f'llm.backend="openai:fake-model@{server.url}"',
            "llm.max_retries=0",
            "llm.max_consecutive_failures=1000",
        ]
        build(docs, out, overrides=settings, until="filter")
    tally = assert_every_candidate_accounted_for(out)
    assert tally["generation"] > 0 and tally["exact_repeat"] > 0 and tally["items"] > 0
    assert_funnel_matches_rejected(out)


def test_split_records_match_their_schema_and_type(out):
    import jsonschema

    from qagen.records import from_dict, to_dict
    from qagen.schemas import SCHEMA_DIR
    from qagen.split_records import SplitQuestion

    schema = json.loads((SCHEMA_DIR / "split_question.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    records = [r for path in sorted((out / "splits").glob("*/fold_*/questions.jsonl")) for r in jsonl(path)]
    assert {r["role"] for r in records} == {"answerable", "unanswerable"}
    for rec in records:
        validator.validate(rec)
        assert json.loads(json.dumps(to_dict(from_dict(SplitQuestion, rec)))) == rec  # the type reads every field
    refuse = next(r for r in records if r["role"] == "unanswerable")
    for bad in ({"expected_behavior": "answer"}, {"role": "maybe"}, {"leakage": {**refuse["leakage"], "x": 1}}):
        assert not validator.is_valid({**refuse, **bad}), bad


# --- scores in the report across builds -------------------------------------------------------


def test_scores_stay_in_the_report_across_builds_and_warn_when_the_dataset_changes(out, tmp_path):
    """`qagen score` adds a section to the report; the next build keeps it (scores.json is an
    input of the report stage) and says so when the dataset changed after scoring."""
    from qagen.report.scores import STALE
    from qagen.score import Reply, collect

    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    collect(copy, lambda question, pages: Reply("I don't know.", [p.id for p in pages[:1]]), progress=False)
    qagen(
        "score",
        copy,
        "--answers",
        copy / "answers.jsonl",
        "--judge",
        "embedding:tfidf",
        "--set",
        "score.embedder=tfidf",
        "-q",
    )
    section = 'id="scores"'
    assert section in (copy / "report.html").read_text()
    again = build(EXAMPLES, copy, overrides=FAST)
    assert again.ran == ["report"]  # scores.json is an input: only the report reruns
    html = (copy / "report.html").read_text()
    assert section in html and STALE.split("(")[0] not in html
    changed = build(EXAMPLES, copy, overrides=[*FAST, 'splits.refusal_answer="Sorry, no idea."'])
    assert "splits" in changed.ran
    html = (copy / "report.html").read_text()
    assert section in html and STALE.split("(")[0] in html


def test_a_default_build_holds_every_kind_with_its_expected_behaviour(out):
    """The default mix (docs/question-kinds.md): noisy and verbose variants that answer as their originals,
    false premises to correct, out-of-scope questions to refuse, beside the natural questions."""
    items = {i["id"]: i for i in jsonl(out / "items.jsonl")}
    kinds = Counter(i["formulation"] for i in items.values())
    assert kinds["natural"] > kinds["noisy"] > 0 and kinds["verbose"] > 0
    premises = [i for i in items.values() if i["premise"] == "false"]
    assert premises and all(items[i["variant_of"]]["premise"] == "true" for i in premises)
    behaviour: dict[tuple[str, str], set[str]] = {}
    for it in crosseval(out)["iterations"]:
        for q in jsonl(out / it["questions"]):
            kind = "out_of_scope" if q["scope"] == "out_of_scope" else items[q["id"]]["formulation"]
            if q["scope"] != "out_of_scope" and items[q["id"]]["premise"] == "false":
                kind = "false premise"
            behaviour.setdefault((kind, q["role"]), set()).add(q["expected_behavior"])
    assert behaviour[("noisy", "answerable")] == behaviour[("verbose", "answerable")] == {"answer"}
    assert behaviour[("false premise", "answerable")] == {"correct_premise"}
    assert behaviour[("out_of_scope", "unanswerable")] == {"refuse"}
    assert all(b == {"refuse"} for (_, role), b in behaviour.items() if role == "unanswerable")
    funnel = json.loads((out / "funnel.json").read_text())
    assert funnel["formulation"]["noisy"]["asked"] == 0.1 and funnel["premise"]["false"]["asked"] == 0.1


def test_export_never_replaces_files_it_did_not_write(out, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("# my notes\n")
    result = CliRunner().invoke(cli, ["export", str(out), "--format", "hf", "-o", str(mine)], prog_name="qagen")
    assert result.exit_code != 0 and "holds files qagen export did not write" in result.output
    assert (mine / "README.md").read_text() == "# my notes\n" and sorted(p.name for p in mine.iterdir()) == [
        "README.md"
    ]
    again = tmp_path / "again"  # an earlier export's folder is rewritten
    qagen("export", out, "--format", "hf", "-o", again)
    assert qagen("export", out, "--format", "hf", "-o", again).output.startswith("wrote ")
    (again / "data" / "notes.txt").write_text("mine\n")  # a file of the user's in an earlier export's folder
    result = CliRunner().invoke(cli, ["export", str(out), "--format", "hf", "-o", str(again)], prog_name="qagen")
    assert result.exit_code != 0 and "an earlier qagen export did not write" in result.output
    assert (again / "data" / "notes.txt").read_text() == "mine\n"
