"""Out-of-scope questions (issue 19): bundled, checked against every page, asked in both iterations of a set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qagen.config import SplitsConfig
from qagen.records import Page
from qagen.scope import bundled, languages, select, verify
from qagen.splits import SETS, build_splits, write_splits
from tests.test_splits import fake_embed, scenario

COOKING = (
    "Sourdough starter. Mix equal weights of flour and water in a jar and keep it at room temperature. "
    "Feed the starter every day with fresh flour and water; after five days the sourdough starter bubbles "
    "and smells sour, and you can bake bread with it at home."
)
LATEX = (
    "The multicol package provides the multicols environment, which balances columns on the last page. "
    "Use \\columnbreak to end a column early and set \\columnsep for the gap between columns."
)


def pages_of(*texts: str) -> list[Page]:
    return [Page(f"p{i}", f"d{i}", (f"s{i}",), text, 80) for i, text in enumerate(texts)]


def test_every_language_with_offline_forms_has_a_bundled_list_of_distinct_questions() -> None:
    from importlib import resources

    bundled_data = {p.name for p in resources.files("qagen.generate.lang").iterdir() if (p / "frames.json").is_file()}
    assert bundled_data <= set(languages())
    for code in languages():
        questions = bundled(code)
        assert len(questions) >= 20 and len(set(questions)) == len(questions), code
        assert all(q.rstrip().endswith("?") for q in questions), code
    assert bundled("sv") == ()  # no list: a shortfall, not an error


def test_a_question_the_corpus_answers_is_rejected_with_its_evidence() -> None:
    sourdough = "How do I make a sourdough starter at home?"
    cup = "Who won the FIFA World Cup in 2014?"
    verdicts = {v.question: v for v in verify([(sourdough, "en"), (cup, "en")], pages_of(COOKING, LATEX))}
    assert not verdicts[sourdough].kept and verdicts[sourdough].reason == "terms_on_page"
    assert verdicts[sourdough].page_id == "p0" and verdicts[sourdough].coverage >= 0.5
    assert verdicts[cup].kept and verdicts[cup].reason == "no_shared_terms"
    # the same question over a corpus that never mentions baking is out of scope
    [latex_only] = verify([(sourdough, "en")], pages_of(LATEX))
    assert latex_only.kept


def test_a_passage_too_similar_to_the_question_rejects_it_with_an_embedder() -> None:
    question = "What causes the northern lights?"
    text = "Northern lights guide. The northern lights appear when charged particles from the sun hit the air."
    [v] = verify([(question, "en")], pages_of(text, LATEX), embed=fake_embed, max_coverage=1.0, max_similarity=0.3)
    assert not v.kept and v.reason == "similar_passage" and v.similarity is not None and v.similarity >= 0.3


def test_sets_get_disjoint_questions_in_their_languages_and_a_missing_list_falls_short() -> None:
    wanted = {"validation": {"en": 4, "it": 2, "sv": 1}, "test": {"en": 4}}
    chosen = select(wanted, pages_of(LATEX), "I cannot answer.", seed=3)
    val, test = chosen.items["validation"], chosen.items["test"]
    assert len(val) == 6 and len(test) == 4
    assert not {i.question for i in val} & {i.question for i in test}
    assert {i.language for i in val} == {"en", "it"} and all(i.language == "en" for i in test)
    assert all(i.split == "validation" for i in val) and all(i.answer == "I cannot answer." for i in val)
    assert all(i.source.doc_id == "" and i.fold == 0 for i in val + test)
    assert chosen.shortfall == {"validation": {"sv": 1}}
    # the order is fixed by the seed
    again = select(wanted, pages_of(LATEX), "I cannot answer.", seed=3)
    assert [i.id for i in again.items["validation"]] == [i.id for i in val]


@pytest.fixture
def built(tmp_path: Path):
    items, pages, assignments, sections = scenario()
    cfg = SplitsConfig(out_of_scope_share=0.25, drop_unsupported_answerable=False)
    res = build_splits(items, pages, assignments, cfg, embed=fake_embed, sections=sections, scope_embed=fake_embed)
    write_splits(res, tmp_path)
    return res, tmp_path


def test_each_set_asks_its_out_of_scope_questions_in_both_iterations(built) -> None:
    res, _ = built
    for s in SETS:
        found = [{r["id"] for r in res.questions[(s, f)] if r["scope"] == "out_of_scope"} for f in (1, 2)]
        assert found[0] and found[0] == found[1], s
    val = {r["id"] for r in res.questions[("validation", 1)] if r["scope"] == "out_of_scope"}
    test = {r["id"] for r in res.questions[("test", 1)] if r["scope"] == "out_of_scope"}
    assert not val & test
    for recs in res.questions.values():
        for r in recs:
            if r["scope"] == "out_of_scope":
                assert r["role"] == "unanswerable" and r["expected_behavior"] == "refuse" and r["contexts"] == []
            elif r["role"] == "answerable":
                assert r["scope"] == "in_scope"
            else:
                assert r["scope"] == "other_fold"
    it = next(i for i in res.crosseval["iterations"] if i["name"] == "validation_iteration_1")
    assert it["counts"]["unanswerable_out_of_scope"] == len(val)
    assert res.crosseval["out_of_scope"]["asked"] == {"validation": len(val), "test": len(test)}


def test_out_of_scope_records_follow_the_schema_and_their_checks_are_reported(built) -> None:
    import jsonschema

    _, out = built
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "split_question.schema.json").read_text())
    records = [json.loads(line) for line in (out / "splits/test/fold_2/unanswerable.jsonl").read_text().splitlines()]
    assert any(r["scope"] == "out_of_scope" for r in records)
    for r in records:
        jsonschema.validate(r, schema)
    report = json.loads((out / "splits" / "leakage.json").read_text())["out_of_scope"]
    assert report["share"] == 0.25 and report["verdicts"]
    assert all({"question", "kept", "reason", "coverage"} <= set(v) for v in report["verdicts"])


def test_out_of_scope_questions_are_on_by_default_and_a_share_of_0_leaves_them_out() -> None:
    assert SplitsConfig().out_of_scope_share == 0.1
    items, pages, assignments, sections = scenario()
    off = SplitsConfig(out_of_scope_share=0)
    res = build_splits(items, pages, assignments, off, embed=None, sections=sections)
    assert not any(r["scope"] == "out_of_scope" for recs in res.questions.values() for r in recs)
    assert "out_of_scope" not in res.crosseval and "out_of_scope" not in res.leakage


def test_a_build_asks_out_of_scope_questions_and_scores_and_exports_them(fast_example_build, tmp_path) -> None:
    import shutil

    from qagen import build
    from qagen.commands.export import export
    from qagen.score import collect, score
    from tests.support.fast import EXAMPLES, FAST

    out = tmp_path / "out"
    shutil.copytree(fast_example_build, out)
    build(EXAMPLES, out, overrides=[*FAST, "splits.out_of_scope_share=0.1"])  # only splits and after rerun
    crosseval = json.loads((out / "crosseval.json").read_text())
    asked = crosseval["out_of_scope"]["asked"]
    assert asked["validation"] > 0 and asked["test"] > 0
    # the example baseline (TF-IDF retrieval, a similarity threshold) declines off-domain questions
    from tests.support.scripts import load_example

    baseline = load_example("baseline_rag")
    collect(out, baseline.BaselineRAG(5, 0.10, 2, refusal=crosseval["refusal_answer"]), progress=False)
    scores = score(out, out / "answers.jsonl", judge="embedding:tfidf")
    by_scope = scores["by_scope"]
    assert set(by_scope) == {"in_scope", "other_fold", "out_of_scope"}
    oos = by_scope["out_of_scope"]["unanswerable"]
    assert oos["n"] == 2 * sum(asked.values())  # each set's questions in both of its iterations
    # exports carry the scope
    export(out, "csv", tmp_path / "csv")
    text = "".join(p.read_text() for p in (tmp_path / "csv").glob("*.csv"))
    assert "out_of_scope" in text and "other_fold" in text
    from qagen.score.results import format_summary

    assert f"out of scope (off the corpus's domain): {oos['n']} asked" in format_summary(scores)
    # the report says how many were asked and left out
    html = (out / "report.html").read_text()
    assert "Out of scope: each set also asks questions off the corpus" in html
    assert '<th class="n">Out of scope</th>' in html


def test_a_lexical_embedder_gives_the_check_no_similarity(fast_example_build, tmp_path) -> None:
    # TF-IDF/LSA cosines of unrelated short texts run high on small corpora: only the words decide then
    import shutil

    from qagen import build
    from tests.support.fast import EXAMPLES, FAST

    out = tmp_path / "out"
    shutil.copytree(fast_example_build, out)
    build(EXAMPLES, out, overrides=[*FAST, "splits.out_of_scope_share=0.1"])  # FAST embeds with tfidf
    verdicts = json.loads((out / "splits" / "leakage.json").read_text())["out_of_scope"]["verdicts"]
    assert verdicts and all(v["similarity"] is None for v in verdicts)
    assert all(v["reason"] != "similar_passage" for v in verdicts)


def test_inspect_says_how_many_out_of_scope_questions_were_asked(fast_example_build, tmp_path) -> None:
    import shutil

    from qagen import build
    from qagen.commands.inspect import inspect_dir
    from tests.support.fast import EXAMPLES, FAST

    out = tmp_path / "out"
    shutil.copytree(fast_example_build, out)
    build(EXAMPLES, out, overrides=[*FAST, "splits.out_of_scope_share=0.1"])
    text = inspect_dir(out)
    assert "out of scope (off the corpus's domain, asked in both iterations of a set): validation" in text
    assert json.loads(inspect_dir(out, as_json=True))["splits"]["out_of_scope"]["share"] == 0.1
