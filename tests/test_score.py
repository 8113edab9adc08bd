"""qagen score: hand-made answers against a hand-made dataset, every expected number worked out by hand.

The dataset (built with the real splits code): fold 1 holds an IT helpdesk factoid (f1), a
long-form question (l1) and an MCQ (m1); fold 2 a parking factoid (f2), a long-form
question (l2) and an MCQ on the hospital shop (m2). Iteration 1 asks f1, l1, m1 (answerable)
and f2, l2, m2 (unanswerable); iteration 2 the reverse. See ANSWERS for what the "chatbot" said
and the comments for the verdicts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from qagen.config import Config
from qagen.llm.fake import FakeLLM
from qagen.score import ScoreError, score
from tests.support.score_data import (
    ANSWERS,
    IT1,
    IT2,
    REFUSAL,
    BagOfWords,
    make_out,
    write_answers,
)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return make_out(tmp_path / "out")


def run(out: Path, rows: list[dict], judge=None, config=None, **kw):
    path = write_answers(out / "answers.jsonl", rows)
    return score(out, path, judge=judge if judge is not None else "embedding", config=config,
                 embedder=kw.pop("embedder", BagOfWords()), **kw)  # fmt: skip


def test_shares_and_confusion_matrix_by_hand(out):
    s = run(out, ANSWERS)
    it1, it2, overall = s["by_iteration"][IT1], s["by_iteration"][IT2], s["overall"]
    assert it1["answerable"] == {"n": 3, "answered": 3, "declined": 0, "answered_share": 1.0, "declined_share": 0.0,
                                 "answered_ci": [0.4385, 1.0]}  # fmt: skip  # Wilson, 3 of 3
    assert it1["unanswerable"]["answered_share"] == round(1 / 3, 4)  # l2's "no details" is not a known phrase
    assert it2["answerable"]["answered_share"] == round(2 / 3, 4)  # l2 declined with a curly apostrophe
    assert it2["unanswerable"]["answered_share"] == 0.0
    assert overall["answerable"]["answered_share"] == round(5 / 6, 4)
    assert overall["unanswerable"]["answered_share"] == round(1 / 6, 4)
    # TP: f2@1, m2@1, f1@2, l1@2, m1@2; FN: l2@1; FP: l2@2; TN: f1@1, l1@1, m1@1, f2@2, m2@2
    det = overall["unanswerable_detection"]
    assert (det["tp"], det["fn"], det["fp"], det["tn"]) == (5, 1, 1, 5)
    assert (det["precision"], det["recall"], det["f1"], det["accuracy"]) == (round(5 / 6, 4),) * 4
    d1 = it1["unanswerable_detection"]  # TP 2, FN 1, FP 0, TN 3
    assert (d1["precision"], d1["recall"], d1["f1"], d1["accuracy"]) == (1.0, round(2 / 3, 4), 0.8, round(5 / 6, 4))
    d2 = it2["unanswerable_detection"]  # TP 3, FN 0, FP 1, TN 2
    assert (d2["precision"], d2["recall"], d2["f1"]) == (0.75, 1.0, round(2 * 0.75 / 1.75, 4))
    assert d2["accuracy"] == round(5 / 6, 4)
    assert s["by_fold"]["1"]["answerable"]["answered_share"] == 1.0  # f1, l1, m1 answered in iteration 1
    assert s["by_fold"]["2"]["unanswerable"]["answered_share"] == round(1 / 3, 4)  # f2, l2, m2 in it. 1: l2
    assert s["coverage"]["missing"] == 0 and s["warnings"] == [
        f"{IT2}: 1 retrieved page id(s) are not in the iteration's corpus; "
        "was the chatbot's store loaded with that iteration's pages.jsonl only?"
    ]


def test_rouge_factoid_recall_mcq_latency_by_hand(out):
    s = run(out, ANSWERS)
    rows = {(r["item_id"], r["iteration"]): r for r in map(json.loads, (out / "scores.items.jsonl").open())}
    # unigram F = 2 * overlap / (len pred + len ref); bigram likewise; LCS equals the overlap in every pair here
    expected = {
        ("f1", IT1): (1 / 2, 1 / 5),  # call 020 794 3120 vs call the helpdesk on 31 20 794 3120
        ("l1", IT1): (8 / 9, 7 / 8),  # 8 of 10 words, 7 of 9 bigrams
        ("m1", IT1): (2 / 5, 1 / 4),  # reference is the correct option "25 days"
        ("f2", IT2): (8 / 11, 2 / 3),  # permits parking lindenhof example org vs write to parking ...
        ("l2", IT2): (0.0, 0.0),
        ("m2", IT2): (0.0, 0.0),  # no word in common with the correct option "flowers and newspapers"
    }
    for key, (r1, r2) in expected.items():
        assert rows[key]["rouge1"] == pytest.approx(r1, abs=1e-4)
        assert rows[key]["rouge2"] == pytest.approx(r2, abs=1e-4)
        assert rows[key]["rougeL"] == pytest.approx(r1, abs=1e-4)
    quality = s["overall"]["answer_quality"]
    assert quality["n"] == 6 and quality["n_answered"] == 5
    assert quality["rouge1"] == pytest.approx((1 / 2 + 8 / 9 + 2 / 5 + 8 / 11) / 6, abs=1e-4)
    assert quality["rouge2"] == pytest.approx((1 / 5 + 7 / 8 + 1 / 4 + 2 / 3) / 6, abs=1e-4)
    assert quality["rougeL_answered"] == pytest.approx((1 / 2 + 8 / 9 + 2 / 5 + 8 / 11) / 5, abs=1e-4)
    assert quality["bleu"] == round(_corpus_bleu_by_sacrebleu(), 2) and quality["bleu"] > 0
    # the phone written nationally (NL inferred from the dataset) and the e-mail in other case both match
    assert s["overall"]["factoid"] == {"n": 2, "correct": 2, "accuracy": 1.0, "accuracy_ci": [0.3424, 1.0]}
    assert s["settings"]["phone_region"] == "NL"
    # recall@k over f1@1 (0, 1, 1), l1@1 (1, 1, 1), f2@2 (0, 0, 0), l2@2 (1, 1, 1)
    # context precision: of the first 5 retrieved, the source's pages: f1 1 of 2, l1 1 of 1, f2 0 of 1, l2 1 of 2
    # the metrics sheet's TF-IDF context precision agrees here (no retrieved page is like another's source)
    assert s["overall"]["retrieval"] == {"n": 4, "recall@1": 0.5, "recall@3": 0.75, "recall@5": 0.75,
                                         "context_precision@5": 0.5, "context_precision@5_tfidf": 0.5,
                                         "context_precision@5_tfidf_ci": [0.125, 0.875],
                                         "context_recall@5_tfidf": 0.75,
                                         "context_recall@5_tfidf_ci": [0.25, 1.0]}  # fmt: skip
    # "you get 25 days of leave per year" shares 2 of 8 words with "25 days", 1 with the others: m1 right;
    # m2's answer shares only "parking" with an option, "Parking permits": wrong
    mcq = s["overall"]["mcq"]
    assert mcq["judge"] == {"correct": 1, "no_choice": 0, "accuracy": 0.5, "accuracy_ci": [0.0945, 0.9055]}
    assert mcq["n"] == 2
    assert mcq["embedding"] == mcq["judge"] and mcq["declined"] == 0
    rows_m2 = rows[("m2", IT2)]
    assert (rows_m2["mcq_judge"], rows_m2["mcq_judge_correct"]) == (2, False)
    assert s["by_bloom"]["B1"]["mcq"]["embedding"]["accuracy"] == 1.0
    assert s["by_bloom"]["B2"]["mcq"]["embedding"]["accuracy"] == 0.0 and set(s["by_bloom"]) == {"B1", "B2"}
    assert s["overall"]["latency_s"] == {"n": 2, "mean": 1.5, "median": 1.5, "p95": 1.95, "max": 2.0}


def _corpus_bleu_by_sacrebleu() -> float:
    """Corpus BLEU of the six answerable (answer, reference) pairs, from sacrebleu called directly."""
    import sacrebleu

    pairs = [  # written out by hand: an MCQ's reference is its correct option; declined answers count too
        ("Call 020 794 3120.", "Call the helpdesk on +31 20 794 3120."),
        ("The helpdesk is open from 9 to 5.", "The helpdesk is open from 9 to 5 on weekdays."),
        ("You get 25 days of leave per year.", "25 days"),
        ("Permits: parking@Lindenhof.example.org", "Write to parking@lindenhof.example.org."),
        ("Sorry, I don\u2019t know.", "Visitors park in garage P2 next to the main entrance."),
        ("Bouquets, plus today's papers, close to the parking garage.", "Flowers and newspapers"),
    ]
    return sacrebleu.corpus_bleu([p for p, _ in pairs], [[r for _, r in pairs]], tokenize="13a").score


def test_breakdowns_by_type_topic_and_scenario(out):
    s = run(out, ANSWERS)
    assert set(s["by_type"]) == {"factoid", "long_form", "mcq"}
    assert s["by_type"]["factoid"]["answerable"]["answered_share"] == 1.0  # f1@1, f2@2
    assert s["by_type"]["long_form"]["unanswerable_detection"]["tp"] == 1  # l1@2
    labels = {k: v["label"] for k, v in s["by_topic"].items()}
    assert labels == {"0": "it helpdesk", "1": "leave", "2": "parking", "3": "hospital shop"}
    # m1 (S1) is answerable in iteration 1 and asked as S4 (not in the corpus) in iteration 2; m2 (S2) the other way
    assert s["by_topic"]["1"]["answers"] == 2 and s["by_scenario"]["S1"]["answers"] == 1
    assert s["by_scenario"]["S4"]["answers"] == 2 and s["by_scenario"]["S4"]["unanswerable"]["declined"] == 2
    assert s["by_type"]["mcq"]["mcq"]["n"] == 2 and s["by_scenario"]["S2"]["mcq"]["embedding"]["accuracy"] == 0.0
    assert list(s["by_iteration"]) == [IT1, IT2]  # the dataset's order; test iterations have no questions


def test_no_refusals(out):
    rows = [{**a, "answer": "Here is what the documents say."} for a in ANSWERS]
    det = run(out, rows)["overall"]["unanswerable_detection"]
    assert (det["tp"], det["fp"], det["fn"], det["tn"]) == (0, 0, 6, 6)
    assert det["precision"] is None and det["recall"] == 0.0 and det["f1"] is None and det["accuracy"] == 0.5


def test_all_refusals(out):
    bow = BagOfWords()
    s = run(out, [{**a, "answer": REFUSAL} for a in ANSWERS], judge=bow, embedder=bow)
    det = s["overall"]["unanswerable_detection"]
    assert (det["tp"], det["fp"], det["fn"], det["tn"]) == (6, 6, 0, 0)
    assert (det["precision"], det["recall"], det["f1"]) == (0.5, 1.0, round(2 * 0.5 / 1.5, 4))
    assert s["overall"]["answerable"]["answered_share"] == 0.0
    assert s["overall"]["answer_quality"]["rougeL_answered"] is None
    assert s["overall"]["factoid"]["accuracy"] == 0.0
    none = {"correct": 0, "no_choice": 2, "accuracy": 0.0, "accuracy_ci": [0.0, 0.6576]}  # Wilson, 0 of 2
    assert s["overall"]["mcq"] == {"n": 2, "declined": 2, "judge": none, "embedding": none}
    assert bow.calls == 0  # a declined answer is never sent to a judge


def test_missing_answers_are_reported_not_scored(out):
    rows = [a for a in ANSWERS if not (a["iteration"] == IT2 and a["item_id"] in ("f1", "l1"))]
    s = run(out, rows)
    cov = s["coverage"]
    assert cov["missing"] == 2 and cov["answers"] == 10 and cov["questions"] == 12
    assert cov["by_iteration"][IT2] == {"questions": 6, "answers": 4, "missing": 2}
    assert sorted(cov["missing_ids"][IT2]) == ["f1", "l1"]
    assert s["warnings"][0] == f"{IT2}: 2 of 6 questions have no answer; they are not scored"
    assert s["by_iteration"][IT2]["unanswerable"]["n"] == 1


def test_an_iteration_nobody_answered_is_named(out):
    s = run(out, [a for a in ANSWERS if a["iteration"] == IT1])
    assert s["coverage"]["iterations_without_answers"] == [IT2]
    assert s["coverage"]["missing_ids"] == {} and IT2 not in s["by_iteration"]
    assert f"not answered at all (not scored): {IT2}" in s["warnings"]


def test_iteration_numbers_are_accepted(out):
    by_name = run(out, ANSWERS)
    by_number = run(out, [{**a, "iteration": 1 if a["iteration"] == IT1 else 2} for a in ANSWERS])
    assert by_number["overall"] == by_name["overall"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"item_id": "zz9"},
            "1 answer(s) name item ids that are in no iteration of this output folder (answer #1: 'zz9')",
        ),
        (
            {"iteration": "test_iteration_7"},
            "answer(s) name an unknown iteration (answer #1: 'test_iteration_7'); valid:",
        ),
        ({"iteration": "test_iteration_1"}, "does not ask that item (answer #1: 'f1' in test_iteration_1)"),
    ],
)
def test_unplaceable_answers_are_rejected_with_a_clear_message(out, change, message):
    with pytest.raises(ScoreError) as exc:
        run(out, [{**ANSWERS[0], **change}, *ANSWERS[1:]])
    assert message in str(exc.value) and "\n" not in str(exc.value)
    assert not (out / "scores.json").exists()


def test_duplicate_answers_are_rejected(out):
    with pytest.raises(ScoreError, match=r"1 question\(s\) answered more than once \('f1' in validation_iteration_1\)"):
        run(out, [*ANSWERS, ANSWERS[0]])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ('{"item_id": "f1", "iteration": 1}', "line 2: 'answer' is a required property"),
        ('{"item_id": "f1", "iteration": 1, "answer": "a", "retreived_page_ids": []}', "fields are: item_id"),
        ('{"item_id": "f1", "iteration": 1, "answer": "a", "latency_s": -1}', "line 2: latency_s: -1 is not valid"),
        ('{"item_id": "f1", "iteration": 3, "answer": "a"}', "iteration must be an iteration name or 1 or 2; got 3"),
        ('{"item_id": "f1", "iteration": 1, "answer": 5}', "line 2: answer: 5 is not of type 'string'"),
    ],
)
def test_invalid_lines_are_named(out, line, message):
    path = out / "answers.jsonl"
    path.write_text(json.dumps(ANSWERS[1]) + "\n" + line + "\n")
    with pytest.raises(ScoreError) as exc:
        score(out, path, embedder=BagOfWords())
    assert message in str(exc.value) and "schemas/answer.schema.json" in str(exc.value)


def test_empty_answers_file_and_missing_dataset(out, tmp_path):
    with pytest.raises(ScoreError, match="holds no answers"):
        run(out, [])
    with pytest.raises(FileNotFoundError, match=r"has no crosseval\.json"):
        score(tmp_path, write_answers(tmp_path / "a.jsonl", ANSWERS[:1]), embedder=BagOfWords())


def _judge_llm(mcq_letter: str = "B") -> FakeLLM:
    def respond(request):
        user = request.messages[-1].content
        if request.schema_name == "mcq_choice":
            return json.dumps({"option": mcq_letter})
        reply = user.split("Reply: ", 1)[1].lower()
        return json.dumps({"declined": any(w in reply for w in ("cannot", "know", "no details", "contain inform"))})

    return FakeLLM(respond, model="judge")


def test_llm_judge_decides_refusals_and_mcq(out):
    llm = _judge_llm("B")
    s = run(out, ANSWERS, judge=llm)
    assert len(llm.calls) == 11 + 2  # every non-empty answer once, each of the two answered MCQs once
    mcq_request = next(r for r in llm.calls if r.schema_name == "mcq_choice")
    assert "A. 25 days" in mcq_request.messages[-1].content and mcq_request.temperature == 0.0
    det = s["overall"]["unanswerable_detection"]  # the judge catches l2@1's "no details": TP 6, FP 1, TN 5
    assert (det["tp"], det["fn"], det["fp"], det["tn"]) == (6, 0, 1, 5)
    assert det["precision"] == round(6 / 7, 4) and det["recall"] == 1.0
    assert s["refusal"]["decided_by"] == "llm judge" and s["refusal"]["phrase_llm_agreement"] == round(10 / 11, 4)
    mcq = s["overall"]["mcq"]  # the judge picked B (20 days; medicines), the baseline A (m1) and C (m2)
    assert mcq["judge"]["accuracy"] == 0.0 and mcq["embedding"]["accuracy"] == 0.5
    assert s["judge"]["mcq"] == "llm:fake:judge" and s["judge"]["llm_stats"]["succeeded"] == 13
    assert s["judge"]["refusal"] == "llm:fake:judge" and "refusal_llm_stats" not in s["judge"]  # one LLM, one count
    assert (out / ".cache" / "judge.sqlite").is_file()
    again = _judge_llm("B")
    assert run(out, ANSWERS, judge=again)["overall"] == s["overall"] and again.calls == []  # all from the cache


def test_failed_llm_judgements_fall_back_to_phrases(out):
    config = Config()
    config.llm.repair_attempts = 0
    config.score.llm_refusals = True
    s = run(out, ANSWERS, judge=FakeLLM(lambda r: "not json at all"), config=config)
    assert s["refusal"]["llm_failed"] == 11 and s["refusal"]["phrase_llm_agreement"] is None
    assert s["overall"]["unanswerable_detection"]["tp"] == 5  # as with phrases alone
    judged = {"correct": 0, "no_choice": 0, "accuracy": None, "accuracy_ci": None, "failed": 2, "graded": 0}
    assert s["overall"]["mcq"]["judge"] == judged  # failed judgements are ungraded, not wrong
    assert "the LLM judge failed on 11 refusal request(s); phrases decided those" in s["warnings"]
    assert any(w.startswith("the MCQ judge failed on 2 of 2") for w in s["warnings"])


def test_bleu_by_hand():
    from qagen.score.metrics import corpus_bleu

    # n-gram precisions 5/6, 3/5, 2/4, 1/3; equal lengths, so no brevity penalty
    bleu = corpus_bleu(["the cat sat on the mat"], ["the cat sat on a mat"])
    assert bleu == pytest.approx(100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25, abs=1e-6)
    # every n-gram matches; 5 words against 6: brevity penalty exp(1 - 6/5)
    assert corpus_bleu(["the cat sat on the"], ["the cat sat on the mat"]) == pytest.approx(100 * np.exp(-0.2))
    assert corpus_bleu([], []) is None


def test_refusal_phrases_window_and_quotes():
    from qagen.score.refusal import EMPTY, RefusalDetector

    detect = RefusalDetector(["i don't know", "no information about"], window=40, refusal_answer=REFUSAL)
    assert detect.find("I DON\u2019T   know that.") == "i don't know"
    assert detect.find("  ") == EMPTY
    assert detect.find("I cannot answer this question from the available documents") is not None
    assert detect.find("The filter is in the tank. " + "x" * 40 + " no information about spares.") is None
    with pytest.raises(ValueError, match="refusal_window_chars must be >= 1; got 0"):
        RefusalDetector([], window=0)


@pytest.mark.parametrize(
    ("answer", "kind", "entity", "region", "expected"),
    [
        ("Ring 020-794 3120 today", "phone", "+31 20 794 3120", "NL", True),
        ("Ring 020 794 3121", "phone", "+31 20 794 3120", "NL", False),
        (
            "See https://www.Lindenhof.example.org/parking/ for details.",
            "url",
            "lindenhof.example.org/parking",
            "NL",
            True,
        ),
        ("Mail PARKING@lindenhof.example.org", "email", "parking@lindenhof.example.org", "NL", True),
        ("anything", "phone", "not a number", "NL", None),
    ],
)
def test_factoid_correctness_uses_generation_normalisation(answer, kind, entity, region, expected):
    from qagen.score.metrics import factoid_correct

    assert factoid_correct(answer, kind, entity, region) is expected


def test_answer_schema_matches_the_file_and_validates():
    import jsonschema

    from qagen.score.answers import SCHEMA_FILE, render_schema
    from qagen.score.schema import main

    assert SCHEMA_FILE.read_text() == render_schema(), (
        "schemas/answer.schema.json drifted; run python -m qagen.score.schema"
    )
    assert main(["--check"]) == 0
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    for row in ANSWERS:
        validator.validate(row)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**ANSWERS[0], "surprise": 1})


def test_any_object_with_choose_is_a_judge(out):
    class AlwaysC:
        def __init__(self):
            self.cases = []

        def choose(self, cases):
            self.cases += cases
            return [2 for _ in cases]

    judge = AlwaysC()
    s = run(out, ANSWERS, judge=judge)
    m2 = next(a["answer"] for a in ANSWERS if (a["item_id"], a["iteration"]) == ("m2", IT2))
    assert sorted(c.answer for c in judge.cases) == [m2, "You get 25 days of leave per year."]
    assert {c.options[0] for c in judge.cases} == {"25 days", "Flowers and newspapers"}
    assert s["overall"]["mcq"]["judge"]["accuracy"] == 0.0 and s["judge"]["mcq"] == "AlwaysC"
    assert s["refusal"]["decided_by"] == "phrases"  # no declined(): phrases decide


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'{"item_id": "f1", "iteration": 1, "answer": "x", "meta": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
         "line 1: nested too deeply"),
        ('{"item_id": "f1", "iteration": 1, "answer": "caf\xe9"}\n'.encode("latin-1"),
         "line 1 is not UTF-8 (byte 0xe9); save the answers as UTF-8"),
        (b'{"item_id": "f1", "iteration": 1, "answer": "x", "latency_s": NaN}\n',
         "line 1: NaN is not a number JSON allows"),
        (b'{"item_id": "f1", "iteration": 1, "answer": "x", "cost_usd": Infinity}\n',
         "line 1: Infinity is not a number JSON allows"),
    ],
)  # fmt: skip
def test_answers_files_a_chatbot_may_write_badly_are_one_clear_error(out, content, says):
    path = out / "answers.jsonl"
    path.write_bytes(content)
    with pytest.raises(ScoreError, match=re.escape(says)):
        score(out, path, embedder=BagOfWords())


def test_a_failed_mcq_judgement_is_ungraded_never_wrong(out):
    from qagen.score.judge import JUDGE_FAILED

    class FailingJudge:
        name = "unreachable"

        def choose(self, cases):
            return [JUDGE_FAILED] * len(cases)

    s = run(out, ANSWERS, judge=FailingJudge())
    judged = s["overall"]["mcq"]["judge"]  # both answerable MCQs (m1 in iteration 1, m2 in 2) were answered
    assert (judged["failed"], judged["graded"], judged["correct"], judged["no_choice"]) == (2, 0, 0, 0)
    assert judged["accuracy"] is None and judged["accuracy_ci"] is None  # not 0 %: nothing was graded
    assert "the MCQ judge failed on 2 of 2 multiple-choice answer(s); they are ungraded" in " ".join(s["warnings"])
    assert s["overall"]["mcq"]["embedding"].get("failed") is None  # the baseline still grades


def test_a_runaway_answer_is_scored_on_its_first_characters_with_a_warning(out):
    long_tail = " and so on" * 5_000  # 50,000 characters after the answer
    rows = [dict(a, answer=a["answer"] + long_tail) if a["item_id"] == "l1" else a for a in ANSWERS]
    config = Config.model_validate({"score": {"max_answer_chars": 2_000}})
    s = run(out, rows, config=config)
    longest = max(len(a["answer"]) for a in rows)
    n_long = sum(a["item_id"] == "l1" for a in ANSWERS)
    assert f"{n_long} answer(s) longer than 2,000 characters (the longest {longest:,})" in " ".join(s["warnings"])
    assert s["refusal"]["answers_cut"] == {"answers": n_long, "longest": longest, "max_chars": 2_000}
    scored = {(r["item_id"], r["iteration"]): r for r in map(json.loads, (out / "scores.items.jsonl").open())}
    assert scored[("l1", IT1)]["declined"] is False and scored[("l1", IT1)]["rougeL"] > 0  # scored, not dropped
    plain = run(out, ANSWERS)
    assert not any("longer than" in w for w in plain["warnings"]) and plain["refusal"]["answers_cut"] is None
