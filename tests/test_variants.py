"""Formulation variants (issue 19): search queries and noisy questions made from accepted items."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from qagen import build
from qagen.generate.variants import (
    achieved,
    check_variant,
    make_variants,
    noisy_question,
    plan_counts,
    search_query,
    verbose_question,
)
from qagen.records import GeneratorInfo, Item, Source
from tests.support.fast import EXAMPLES, FAST


def item(k: int, question: str, kind: str = "long_form", language: str = "en") -> Item:
    return Item(
        id=f"i{k}",
        type=kind,
        question=question,
        answer=f"Answer {k}.",
        source=Source("d1", (f"s{k}",), ()),
        fold=1 + k % 2,
        split="validation",
        generator=GeneratorInfo("extractive"),
        language=language,
    )


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("For the multicol package, how do I balance the columns?", "multicol package balance columns"),
        ("What is the phone number of the IT helpdesk?", "phone number IT helpdesk"),
        ("What should I do if I am ill and cannot work?", "ill cannot work"),
        ("Who can work remotely under the Remote Work Policy?", "work remotely Remote Policy"),
    ],
)
def test_a_search_query_keeps_the_content_words_in_order(question, query):
    assert search_query(question) == query


def test_a_question_with_fewer_than_two_content_words_gives_no_query():
    assert search_query("What is it?") is None


def test_a_dutch_query_leaves_out_dutch_function_words():
    query = search_query("Hoe vraag ik verlof aan bij de afdeling personeelszaken?", "nl")
    assert query is not None and "de" not in query.split() and "verlof" in query and "personeelszaken" in query


def test_a_query_leaves_out_the_words_of_the_languages_offline_question_frame():
    # multilingual corpus: "Wat moet ik weten over schijfloze werkstations bij ..." kept "weten"
    query = search_query("Wat moet ik weten over schijfloze werkstations bij “Handleiding Debian Edu”?", "nl")
    assert query == "schijfloze werkstations Handleiding Debian Edu"
    query = search_query("Cosa devo sapere su «Correggere il posizionamento dei tag» in “Manuale amsmath”?", "it")
    assert query is not None and "sapere" not in query.split() and "posizionamento" in query


def test_noisy_questions_are_deterministic_and_still_ask_the_same():
    question = "What should I do if I think a medicine gives me side effects at the Cardiology Outpatient Clinic?"
    first, again, other = (noisy_question(question, s) for s in ("i7", "i7", "i8"))
    assert first == again and first != question and first is not None
    assert other is not None and other != first
    assert check_variant(question, first, "noisy") is None
    words = {w.strip("?,").casefold() for w in question.split()}
    typos = [w for w in first.split() if w.strip("?,").casefold() not in words]
    assert 1 <= len(typos) <= 3, (first, typos)


def test_the_variant_check_refuses_what_no_longer_asks_the_same():
    original = "How do I reset the router to its factory settings?"
    assert check_variant(original, original, "noisy") == "same as the original"
    assert check_variant(original, "router factory settings", "search") is None
    assert check_variant(original, "router warranty", "search") == "a keyword not in the original"
    assert check_variant(original, "wat is de prijs van een nieuwe", "noisy").startswith("only 0 of")


def test_a_verbose_question_keeps_the_question_whole_and_adds_no_fact():
    question = "For the multicol package, how do I balance the columns?"
    verbose = verbose_question(question, "7:i1")
    assert verbose is not None and question in verbose and verbose != question
    assert verbose == verbose_question(question, "7:i1")  # deterministic
    assert check_variant(question, verbose, "verbose") is None
    assert not any(ch.isdigit() for ch in verbose.replace(question, ""))  # no number, address or name added
    assert check_variant(question, "Hi. How do I balance the columns? Thanks!", "verbose") is not None
    assert verbose_question("Como faço uma marcação?", "7:i1", "ja") is None  # no wrappers in that language


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("nl", "Hoe maak ik een afspraak bij de polikliniek?"),
        ("de", "Wie vereinbare ich einen Termin in der Ambulanz?"),
        ("fr", "Comment prendre rendez-vous à la clinique ?"),
        ("it", "Come prendo un appuntamento in ambulatorio?"),
        ("es", "¿Cómo pido una cita en la consulta externa?"),
        ("pt", "Como marco uma consulta no ambulatório?"),
    ],
)
def test_a_verbose_question_in_other_languages_wraps_it_in_the_same_language(language, question):
    from qagen.language import detect_language

    variants = {verbose_question(question, f"7:i{k}", language) for k in range(12)}
    assert len(variants) >= 2 and all(v is not None and question in v for v in variants)
    for verbose in variants:
        assert check_variant(question, verbose, "verbose") is None
        assert not any(ch.isdigit() for ch in verbose.replace(question, ""))
        assert detect_language([verbose.replace(question, "")]) == language  # the added words are in its language


def test_plan_counts_make_the_final_shares_follow_the_mix():
    assert plan_counts(70, {"natural": 0.7, "search": 0.15, "noisy": 0.15}) == {"search": 15, "noisy": 15, "verbose": 0}
    assert plan_counts(10, {"natural": 1}) == {"search": 0, "noisy": 0, "verbose": 0}
    assert plan_counts(4, {"natural": 1, "search": 9}) == {"search": 4, "noisy": 0, "verbose": 0}  # one per original
    assert plan_counts(9, {"natural": 0.9, "verbose": 0.1}) == {"search": 0, "noisy": 0, "verbose": 1}


def test_variants_come_from_long_form_and_factoid_items_and_keep_answer_source_and_fold():
    items = [item(k, f"How do I configure option number {k} of the widget server?") for k in range(16)]
    items += [item(100 + k, f"Which value completes this statement {k}?", "mcq") for k in range(4)]
    mix = {"natural": 0.6, "search": 0.2, "noisy": 0.2}
    made, failed = make_variants(items, mix, seed=3)
    assert failed == []
    assert Counter(v.formulation for v in made) == {"search": 5, "noisy": 5}  # 16 / 0.6 * 0.2 = 5.3
    by_id = {it.id: it for it in items}
    for v in made:
        original = by_id[v.variant_of]
        assert original.type == "long_form" and v.id != original.id
        assert (v.answer, v.source, v.fold, v.split) == (
            original.answer,
            original.source,
            original.fold,
            original.split,
        )
    assert len({v.id for v in made}) == len(made)
    shares = achieved([it for it in items if it.type != "mcq"] + made, mix)
    assert shares["search"]["items"] == 5 and abs(shares["natural"]["share"] - 0.6) < 0.05
    assert make_variants(items, mix, seed=3) == (made, failed)  # deterministic


@pytest.fixture(scope="module")
def mixed_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("variants") / "out"
    mix = "generate.formulation_mix={natural=0.6, search=0.15, noisy=0.15, verbose=0.1}"
    build(EXAMPLES, out, overrides=[*FAST, mix])
    return out


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_a_build_meets_the_mix_within_five_points(mixed_build):
    funnel = json.loads((mixed_build / "funnel.json").read_text())
    for name, row in funnel["formulation"].items():
        assert abs(row["share"] - row["asked"]) <= 0.05, (name, row)
    items = _jsonl(mixed_build / "items.jsonl")
    by_id = {it["id"]: it for it in items}
    variants = [it for it in items if it["formulation"] != "natural"]
    assert variants and all(by_id[v["variant_of"]]["answer"] == v["answer"] for v in variants)


def test_variants_sit_in_their_originals_fold_and_carry_their_labels_into_splits_and_exports(mixed_build, tmp_path):
    crosseval = json.loads((mixed_build / "crosseval.json").read_text())
    placed = [q for it in crosseval["iterations"] for q in _jsonl(mixed_build / it["questions"])]
    variants = [q for q in placed if q["formulation"] != "natural"]
    assert variants
    items = {it["id"]: it for it in _jsonl(mixed_build / "items.jsonl")}
    for q in variants:  # same source, so same fold and split as the question it was made from
        original = items[q["variant_of"]]
        assert (q["fold"], q["split"], q["source"]) == (original["fold"], original["split"], original["source"])
    from qagen.commands.export import export

    export(mixed_build, "csv", tmp_path / "csv")
    import csv

    rows = [r for f in (tmp_path / "csv").glob("*_iteration_*[0-9].csv") for r in csv.DictReader(f.open())]
    assert {r["formulation"] for r in rows} >= {"natural", "search", "noisy", "verbose"}
    assert all(r["variant_of"] for r in rows if r["formulation"] != "natural")
