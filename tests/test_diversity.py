"""Question diversity measures, computed by hand on small sets."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from qagen.diversity import compression_ratio, diversity, homogenisation, ngram_diversity, self_repetition


def test_ngram_diversity_by_hand():
    # "a b a": unigrams 2 distinct of 3, bigrams (a b),(b a) 2 of 2, no trigram... plus "c": 1 of 1
    texts = ["a b a", "c"]
    # unigrams: a,b,a,c -> 3/4; bigrams: (a,b),(b,a) -> 2/2; trigrams: (a,b,a) -> 1/1; 4-grams: none
    assert ngram_diversity(texts) == pytest.approx(3 / 4 + 1 + 1)


def test_identical_questions_are_less_diverse_than_different_ones():
    same = ["What is the phone number of the desk?"] * 4
    different = [
        "What is the phone number of the desk?",
        "How do I reset the router?",
        "Which options does multicol provide?",
        "When does the pharmacy open on Saturdays?",
    ]
    assert ngram_diversity(same) < ngram_diversity(different)
    assert self_repetition(same) == 1.0 and self_repetition(different) == 0.0
    assert compression_ratio(same) > compression_ratio(different)


def test_self_repetition_counts_a_shared_template():
    texts = ["What should I do if the printer jams?", "What should I do if the light blinks?", "Why is it red?"]
    assert self_repetition(texts) == pytest.approx(2 / 3)  # "what should i do" in two of three


def test_compression_ratio_is_bytes_over_gzip():
    texts = ["abc abc abc", "xyz"]
    raw = b"abc abc abc\nxyz"
    assert compression_ratio(texts) == pytest.approx(len(raw) / len(gzip.compress(raw, compresslevel=9, mtime=0)))


def test_homogenisation_is_the_mean_cosine_of_distinct_pairs():
    v = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    pairs = [unit[i] @ unit[j] for i in range(3) for j in range(3) if i != j]
    assert homogenisation(v) == pytest.approx(np.mean(pairs))
    assert homogenisation(np.ones((5, 3))) == pytest.approx(1.0)
    assert homogenisation(v[:1]) is None


def test_diversity_reports_every_measure_and_skips_blank_texts():
    out = diversity(["How do I print?", "  ", "Where is the desk?"], embed=lambda texts: np.eye(len(texts)))
    assert out["n"] == 2 and out["homogenisation"] == 0.0
    assert set(out) == {"n", "ngram_diversity", "self_repetition", "compression_ratio", "homogenisation"}


def test_by_type_embeds_each_question_once_and_matches_each_types_own_measures():
    from types import SimpleNamespace

    from qagen.diversity import diversity_by_type

    questions = [("How do I print?", "long_form"), ("Where is the desk?", "factoid"), ("Why is it red?", "long_form")]
    items = [SimpleNamespace(question=q, type=t) for q, t in questions]
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return np.array([[len(t), 1.0, t.count("o")] for t in texts])

    report = diversity_by_type(items, embed)
    assert calls == [[q for q, _ in questions]]
    assert report["long_form"] == diversity([q for q, t in questions if t == "long_form"], embed)
    assert report["all"] == diversity([q for q, _ in questions], embed)
    assert report["factoid"]["homogenisation"] is None  # one question: no pair
