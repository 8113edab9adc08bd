"""Offline measures beside the judges: BERTScore-style F1 with the bundled model, the metrics sheet's
TF-IDF context precision and recall, and indexing time and cost."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qagen.config import Config
from qagen.score import score
from qagen.score.bertscore import bertscore, f1, token_embedder
from tests.support.score_data import ANSWERS, IT1, IT2, BagOfWords, make_out, write_answers


def rows_of(out: Path) -> dict[tuple[str, str], dict]:
    return {(r["item_id"], r["iteration"]): r for r in map(json.loads, (out / "scores.items.jsonl").open())}


def test_greedy_matching_by_hand() -> None:
    a = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)  # two pieces
    b = np.array([[1.0, 0.0]], dtype=np.float32)  # one of them
    precision, recall, f = f1(a, b)  # each of a's pieces' best match: 1 and 0; b's: 1
    assert (precision, recall) == (0.5, 1.0) and f == pytest.approx(2 / 3)
    assert f1(a, np.zeros((0, 2), np.float32)) is None  # an empty text has no score


@pytest.fixture(scope="module")
def minilm():
    from qagen.embed.sentence import SentenceTransformerEmbedder, minilm_available

    if not minilm_available():
        pytest.skip("the bundled MiniLM is not installed")
    return SentenceTransformerEmbedder("minilm", offline=True)


def test_bertscore_with_the_bundled_model(minilm) -> None:
    reference = "The helpdesk is open from 9 to 5 on weekdays."
    same, close, far = bertscore(
        minilm,
        [reference, "On weekdays the helpdesk opens at 9 and closes at 5.", "Visitors park in garage P2."],
        [reference] * 3,
    )
    assert same == pytest.approx(1.0, abs=1e-4)
    assert far < close < same
    pieces = minilm.token_embeddings(["Call the helpdesk."])[0]
    assert pieces.shape[0] == 6  # call, the, help, ##des, ##k, "." without [CLS] and [SEP]
    assert np.allclose(np.linalg.norm(pieces, axis=1), 1.0, atol=1e-5)
    assert token_embedder(BagOfWords()) is None  # no token embeddings: no BERTScore


def test_bertscore_per_answer_in_a_scored_build(tmp_path: Path, minilm) -> None:
    out = make_out(tmp_path / "out")
    scores = score(out, write_answers(tmp_path / "a.jsonl", ANSWERS), judge=BagOfWords())
    rows = rows_of(out)
    assert rows[("l1", IT1)]["bertscore_f1"] > 0.85  # "open from 9 to 5" against "... from 9 to 5 on weekdays"
    assert rows[("l1", IT1)]["bertscore_f1"] > rows[("m2", IT2)]["bertscore_f1"]  # a paraphrase, other words
    assert "bertscore_f1" not in rows[("l2", IT2)]  # declined
    assert "bertscore_f1" not in rows[("l2", IT1)]  # unanswerable there
    assert scores["settings"]["bertscore_embedder"].startswith("sentence-transformers:")
    quality = scores["overall"]["answer_quality"]
    assert 0 < quality["bertscore_f1_answered"] <= 1 and len(quality["bertscore_f1_ci"]) == 2
    config = Config()
    config.score.bertscore = False
    scores = score(out, write_answers(tmp_path / "a.jsonl", ANSWERS), judge=BagOfWords(), config=config)
    assert scores["settings"]["bertscore_embedder"] is None and "bertscore_f1" not in rows_of(out)[("l1", IT1)]


def test_context_precision_and_recall_by_tfidf_cosine(tmp_path: Path) -> None:
    out = make_out(tmp_path / "out")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    scores = score(out, answers, judge=BagOfWords(), embedder=BagOfWords())
    rows = rows_of(out)
    # f1 retrieved the laptops page, then its source page: one of two relevant, the source covered
    assert (rows[("f1", IT1)]["context_precision_tfidf"], rows[("f1", IT1)]["context_recall_tfidf"]) == (0.5, 1.0)
    # f2 retrieved the shop page, about something else than its parking page: nothing relevant
    assert (rows[("f2", IT2)]["context_precision_tfidf"], rows[("f2", IT2)]["context_recall_tfidf"]) == (0.0, 0.0)
    # l2 retrieved its source and a page outside the corpus (not relevant: no text to compare)
    assert (rows[("l2", IT2)]["context_precision_tfidf"], rows[("l2", IT2)]["context_recall_tfidf"]) == (0.5, 1.0)
    assert "context_precision_tfidf" not in rows[("m1", IT1)]  # no pages retrieved
    block = scores["overall"]["retrieval"]
    assert block["context_precision@5_tfidf"] == round((0.5 + 1.0 + 0.0 + 0.5) / 4, 4)
    assert block["context_recall@5_tfidf"] == 0.75
    # a threshold low enough that any shared word counts: the laptops page becomes relevant to f1
    config = Config()
    config.score.context_tfidf_threshold = 0.01
    score(out, answers, judge=BagOfWords(), embedder=BagOfWords(), config=config)
    assert rows_of(out)[("f1", IT1)]["context_precision_tfidf"] == 1.0


def test_indexing_time_and_cost_when_given(tmp_path: Path) -> None:
    from qagen.cli import cli

    out = make_out(tmp_path / "out")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    assert "indexing" not in score(out, answers, judge=BagOfWords(), embedder=BagOfWords())
    result = CliRunner().invoke(
        cli,
        ["score", str(out), "--answers", str(answers), "--judge", "embedding:tfidf", "--index-seconds", "8",
         "--index-cost-usd", "0.02", "-q"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    indexing = json.loads((out / "scores.json").read_text())["indexing"]
    # iteration 1 loads fold 1's two pages, iteration 2 fold 2's two
    assert indexing == {
        "pages": 4,
        "seconds": 8.0,
        "cost_usd": 0.02,
        "seconds_per_page": 2.0,
        "cost_usd_per_page": 0.005,
    }
    assert "indexing 4 loaded pages: 8.0 s (2000.00 ms per page), $0.0200" in result.output


def _answerable(item_id: str, iteration: str) -> bool:
    return item_id.endswith("1") == (iteration == IT1)  # fold 1's items are answerable in iteration 1


def test_all_correct_all_wrong_and_refusals_in_other_languages(tmp_path: Path) -> None:
    from tests.support.score_data import ITEMS

    out = make_out(tmp_path / "out")
    items = {it.id: it for it in ITEMS}

    def reference(item_id: str) -> str:
        it = items[item_id]
        return it.options[it.answer_index] if it.type == "mcq" else it.answer

    refusals = iter(
        [
            "Mi dispiace, non ho informazioni su questo argomento.",  # Italian
            "Lo siento, no tengo información sobre eso.",  # Spanish
            "Não sei responder a isso com estes documentos.",  # Portuguese
            "Je ne sais pas, les documents n'en parlent pas.",  # French
            "Dat weet ik niet.",  # Dutch
            "Dazu habe ich keine Informationen.",  # German
        ]
    )
    right = [
        {**a, "answer": reference(a["item_id"]) if _answerable(a["item_id"], a["iteration"]) else next(refusals)}
        for a in ANSWERS
    ]
    bow = BagOfWords()
    s = score(out, write_answers(tmp_path / "right.jsonl", right), judge=bow, embedder=bow)
    overall = s["overall"]
    assert overall["unanswerable"]["declined_share"] == 1.0  # every refusal, in six languages, found
    assert overall["answerable"]["answered_share"] == 1.0 and overall["answer_quality"]["rougeL"] == 1.0
    assert overall["factoid"]["accuracy"] == 1.0 and overall["mcq"]["judge"]["accuracy"] == 1.0
    assert (overall["crag"]["correct"], overall["crag"]["hallucinated"], overall["crag"]["missing"]) == (4, 0, 6)
    assert overall["retrieval"]["context_recall@5_tfidf"] == 0.75  # retrieval is the answers' own, unchanged

    wrong = [{**a, "answer": "Soup every Friday."} for a in ANSWERS]  # no word in common with any reference
    s = score(out, write_answers(tmp_path / "wrong.jsonl", wrong), judge=bow, embedder=bow)
    overall = s["overall"]
    assert overall["unanswerable"]["answered_share"] == 1.0 and overall["factoid"]["accuracy"] == 0.0
    assert overall["crag"]["correct"] == 0 and overall["crag"]["score"] == -1.0  # every decided answer wrong
    assert overall["answer_quality"]["rougeL"] == 0.0 and overall["mcq"]["judge"]["accuracy"] == 0.0
