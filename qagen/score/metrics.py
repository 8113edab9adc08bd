"""The research's metrics, as pure functions over per-answer rows.

Definitions (every share in 0-1; ``None`` where a metric has no denominator):

- **answered share** of answerable questions (in-fold; Twente Table 3: 0.57-0.62) and of
  unanswerable ones (out-of-fold, the hallucination rate; Twente: 0.075-0.12), per iteration.
- **unanswerable detection** (Tübingen Table 4.2): positive = the question is unanswerable,
  predicted positive = the chatbot declined. TP unanswerable & declined, FN unanswerable &
  answered, FP answerable & declined, TN answerable & answered; precision TP/(TP+FP), recall
  TP/(TP+FN), F1, accuracy.
- **answer quality** on answerable questions (declines included, they score ~0): mean ROUGE-1,
  ROUGE-2, ROUGE-L F-measure (rouge-score, Unicode word tokens, no stemming), corpus BLEU
  (sacrebleu, 0-100), and ROUGE-L over answered questions only.
- **factoid correctness**: the item's entity, normalised as generation normalised it (E.164
  phones, lower-case e-mails, URL keys), is among the entities of the answer.
- **retrieval recall@k**: share of the item's source pages among the first k retrieved pages,
  averaged over answerable questions whose answers list retrieved pages.
- **cost and latency**: the answers' own ``cost_usd`` (total and per answer) and ``latency_s`` (mean,
  median, 95th percentile, max), per iteration and overall.
- **false premises corrected** (counterfactual robustness): of the false-premise questions asked
  where their source is loaded, the share whose answer gives the source's value (declined or
  going along with the wrong value count as not corrected).
- **semantic similarity**: cosine of the answer's and the reference's embeddings (the MCQ baseline's
  embedder), over answered answerable questions.
- **context precision@k** (by page ids): the share of the first k retrieved pages that hold the
  item's source; recall@k above is the metrics sheet's context recall. The metrics sheet's own
  definition beside it (``*_tfidf``): a retrieved page is relevant when its TF-IDF cosine with one
  of the item's source pages reaches ``score.context_tfidf_threshold``; context precision is the
  relevant share of the first k retrieved, context recall the share of source pages one of them matches.
- **BERTScore-style F1** (Twente Table 5): greedy matching of the answer's and the reference's word
  pieces with the baseline's local model, over answered answerable questions (no idf weights, no
  baseline rescaling; :mod:`qagen.score.bertscore`).
- **indexing** (``score.index_seconds``, ``score.index_cost_usd``, when given): total, and per loaded
  page of the iterations' corpora.
- **noise robustness**: each search, noisy or verbose variant against its original in the same
  iteration, paired (answered share, ROUGE-L, semantic similarity), with bootstrap intervals.
- **grades** (with ``score.grader``): an LLM grades each answered answerable question on the rubric
  of ``prompts/judge_grade.md``, 1-5: correctness against the reference, completeness,
  relevance to the question, faithfulness to the retrieved passages and their relevance to the
  question (context relevance); mean with a bootstrap interval, and the share graded 4 or 5 with a
  Wilson interval. The grader also decides whether an answer to a false-premise question corrects
  the premise (``prompts/judge_premise.md``), where the offline rule only looks for the
  source's value; the rule's verdict stays beside it (``premise_corrected_rule``).
- **CRAG-style score** (Meta's CRAG benchmark): per answer +1 correct, 0 declined or missing, -1
  answered wrongly, over answerable and unanswerable questions together (an unanswerable question
  answered is -1); correct as the measures above decide it (false premise, factoid, MCQ judge),
  long-form only with ``score.long_form_rouge_l`` set (left out otherwise: no judge offline).
- **intervals**: every share with its n and a 95 % Wilson interval (``*_ci``), every mean with a
  95 % percentile bootstrap interval (:mod:`qagen.score.stats`).
- **MCQ accuracy**: the judge (and the embedding baseline) picks the option closest in meaning
  to the chatbot's free answer; correct when it is the item's correct option. A declined
  answer is wrong (no option is picked).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from qagen.score.judge import GRADE_SCALES
from qagen.score.stats import bootstrap_mean, paired_difference, wilson

Row = dict[str, Any]
DIGITS = 4


def rouge_f(predictions: Sequence[str], references: Sequence[str], progress: bool = False) -> list[dict[str, float]]:
    """ROUGE-1, ROUGE-2 and ROUGE-L F-measures of each prediction against its reference.

    rouge-score with Unicode word tokens (its default tokenizer drops every non-ASCII letter).
    """
    from rouge_score.rouge_scorer import RougeScorer
    from tqdm.auto import tqdm

    from qagen.filters.grounding import UnicodeTokenizer

    scorer = RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=UnicodeTokenizer())
    pairs = tqdm(zip(references, predictions, strict=True), total=len(references), disable=not progress, desc="rouge")
    return [{k: s.fmeasure for k, s in scorer.score(ref, pred).items()} for ref, pred in pairs]


def corpus_bleu(predictions: Sequence[str], references: Sequence[str], tokenize: str = "13a") -> float | None:
    """sacrebleu corpus BLEU (0-100) of predictions against one reference each; None for no pairs."""
    if not predictions:
        return None
    from sacrebleu.metrics import BLEU

    return float(BLEU(tokenize=tokenize, force=True).corpus_score(list(predictions), [list(references)]).score)


def bleu_signature(tokenize: str = "13a") -> str:
    """sacrebleu's signature of the BLEU settings (tokenizer, smoothing, version), for reproducibility."""
    from sacrebleu.metrics import BLEU

    bleu = BLEU(tokenize=tokenize, force=True)
    bleu.corpus_score(["a"], [["a"]])  # the signature needs the number of references
    return str(bleu.get_signature())


def factoid_correct(answer: str, kind: str | None, entity: str | None, region: str) -> bool | None:
    """Whether ``answer`` holds the normalised ``entity``; None when the entity cannot be normalised."""
    from qagen.entities import ENTITY_KINDS, extract_entities, normalize_entity

    if kind not in ENTITY_KINDS or not entity:
        return None
    target = normalize_entity(kind, entity, region)
    if target is None:
        return None
    return any(e.normalized == target for e in extract_entities(answer, [kind], region))


def premise_corrected(answer: str, kind: str | None, true_value: str | None, region: str) -> bool:
    """Whether ``answer`` gives the source's value that a false premise contradicted.

    An entity (phone, e-mail, web address) is compared normalised, as :func:`factoid_correct` does;
    any other value (a command) must appear as written.
    """
    if not true_value:
        return False
    by_entity = factoid_correct(answer, kind, true_value, region)
    return by_entity if by_entity is not None else true_value in answer


def recall_at_k(source_pages: Iterable[str], retrieved: Sequence[str], k: int) -> float | None:
    """Share of ``source_pages`` among the first ``k`` of ``retrieved``; None without source pages."""
    wanted = set(source_pages)
    if not wanted:
        return None
    return len(wanted & set(retrieved[:k])) / len(wanted)


def ratio(part: float, whole: float) -> float | None:
    return None if not whole else round(part / whole, DIGITS)


def detection(rows: Sequence[Row]) -> dict[str, Any]:
    """The unanswerable-detection confusion matrix with precision, recall, F1 and accuracy."""
    tp = sum(1 for r in rows if r["role"] == "unanswerable" and r["declined"])
    fn = sum(1 for r in rows if r["role"] == "unanswerable" and not r["declined"])
    fp = sum(1 for r in rows if r["role"] == "answerable" and r["declined"])
    tn = sum(1 for r in rows if r["role"] == "answerable" and not r["declined"])
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    f1 = None
    if precision is not None and recall is not None:
        f1 = round(2 * precision * recall / (precision + recall), DIGITS) if precision + recall else 0.0
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": precision,
        "precision_ci": wilson(tp, tp + fp),
        "recall": recall,
        "recall_ci": wilson(tp, tp + fn),
        "f1": f1,
        "accuracy": ratio(tp + tn, len(rows)),
    }


def _shares(rows: Sequence[Row]) -> dict[str, Any] | None:
    if not rows:
        return None
    declined = sum(1 for r in rows if r["declined"])
    n = len(rows)
    return {
        "n": n,
        "answered": n - declined,
        "declined": declined,
        "answered_share": ratio(n - declined, n),
        "answered_ci": wilson(n - declined, n),
        "declined_share": ratio(declined, n),
    }


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.fmean(vals), DIGITS) if vals else None


def _quality(rows: Sequence[Row], bleu_tokenize: str) -> dict[str, Any] | None:
    if not rows:
        return None
    answered = [r for r in rows if not r["declined"]]
    bleu = corpus_bleu([r["_prediction"] for r in rows], [r["_reference"] for r in rows], bleu_tokenize)
    return {
        "n": len(rows),
        **{k: _mean(r[k] for r in rows) for k in ("rouge1", "rouge2", "rougeL")},
        "rougeL_ci": bootstrap_mean([r["rougeL"] for r in rows if r.get("rougeL") is not None]),
        "bleu": None if bleu is None else round(bleu, 2),
        "n_answered": len(answered),
        "rougeL_answered": _mean(r["rougeL"] for r in answered),
        # cosine of answer and reference embeddings, over answered questions
        "semantic_answered": _mean(r.get("semantic") for r in answered),
        "semantic_ci": bootstrap_mean([r["semantic"] for r in answered if r.get("semantic") is not None]),
        # BERTScore-style F1 (qagen.score.bertscore), over answered questions
        "bertscore_f1_answered": _mean(r.get("bertscore_f1") for r in answered),
        "bertscore_f1_ci": bootstrap_mean([r["bertscore_f1"] for r in answered if r.get("bertscore_f1") is not None]),
    }


def _factoid(rows: Sequence[Row]) -> dict[str, Any] | None:
    judged = [r for r in rows if r.get("factoid_correct") is not None]
    if not judged:
        return None
    correct = sum(1 for r in judged if r["factoid_correct"])
    return {
        "n": len(judged),
        "correct": correct,
        "accuracy": ratio(correct, len(judged)),
        "accuracy_ci": wilson(correct, len(judged)),
    }


def _false_premise(rows: Sequence[Row]) -> dict[str, Any] | None:
    judged = [r for r in rows if r.get("premise_corrected") is not None]
    if not judged:
        return None
    corrected = sum(1 for r in judged if r["premise_corrected"])
    declined = sum(1 for r in judged if r["declined"])
    return {
        "n": len(judged),
        "corrected": corrected,
        "declined": declined,
        "corrected_share": ratio(corrected, len(judged)),
        "corrected_ci": wilson(corrected, len(judged)),
    }


def crag_value(row: Row, long_form_rouge_l: float | None) -> int | None:
    """One answer's CRAG-style value: +1 correct, 0 declined (missing), -1 answered wrongly (hallucinated).

    An unanswerable question answered is a hallucination; declined, it scores 0 (Meta's CRAG scores
    "I don't know" 0 everywhere). Correct is decided where qagen can decide it offline: a false
    premise corrected, a factoid's entity, the MCQ judge's pick; any other answer by the grader's
    correctness (4 or 5) when answers are graded, else a long-form answer by ROUGE-L F >=
    ``long_form_rouge_l`` when that is set, else it is left out (None).
    """
    if row["declined"]:
        return 0
    if row["role"] == "unanswerable":
        return -1
    for key in ("premise_corrected", "factoid_correct", "mcq_judge_correct"):
        if row.get(key) is not None:
            return 1 if row[key] else -1
    if row.get("grade_correctness") is not None:  # the grader: 4 or 5 is correct
        return 1 if row["grade_correctness"] >= 4 else -1
    if row.get("type") == "long_form" and long_form_rouge_l is not None and row.get("rougeL") is not None:
        return 1 if row["rougeL"] >= long_form_rouge_l else -1
    return None


def _grades(rows: Sequence[Row]) -> dict[str, Any] | None:
    """The grader's rubric (1-5) per scale: n, mean and its bootstrap interval, and the share graded 4 or 5."""
    out: dict[str, Any] = {}
    for key in GRADE_SCALES:
        values = [r[f"grade_{key}"] for r in rows if r.get(f"grade_{key}") is not None]
        if values:
            good = sum(v >= 4 for v in values)
            out[key] = {"n": len(values), "mean": _mean(values), "ci": bootstrap_mean(values),
                        "good_share": ratio(good, len(values)), "good_ci": wilson(good, len(values))}  # fmt: skip
    return out or None


def _robustness(rows: Sequence[Row]) -> dict[str, Any] | None:
    """Noise robustness: each variant (search, noisy, verbose) against its original in the same iteration,
    paired: answered share, and ROUGE-L and semantic similarity where both were answered."""
    by_key = {(r.get("iteration"), r.get("item_id")): r for r in rows}
    pairs: dict[str, list[tuple[Row, Row]]] = defaultdict(list)
    for r in rows:
        original = by_key.get((r.get("iteration"), r.get("variant_of"))) if r.get("variant_of") else None
        if original is not None and r.get("formulation", "natural") != "natural":
            pairs[r["formulation"]].append((original, r))
    if not pairs:
        return None
    out: dict[str, Any] = {}
    for formulation, group in sorted(pairs.items()):
        both = [(o, v) for o, v in group if not o["declined"] and not v["declined"]]
        block: dict[str, Any] = {
            "n": len(group),
            "answered": paired_difference(
                [float(not o["declined"]) for o, _ in group], [float(not v["declined"]) for _, v in group]
            ),
        }
        for key in ("rougeL", "semantic"):
            values = [(o.get(key), v.get(key)) for o, v in both if o.get(key) is not None and v.get(key) is not None]
            if values:
                block[key] = paired_difference([a for a, _ in values], [b for _, b in values])
        out[formulation] = block
    return out


def _crag(rows: Sequence[Row]) -> dict[str, Any] | None:
    values = [r["crag"] for r in rows if r.get("crag") is not None]
    if not values:
        return None
    return {
        "n": len(values),
        "correct": values.count(1),
        "missing": values.count(0),
        "hallucinated": values.count(-1),
        "left_out": sum(1 for r in rows if "crag" in r and r["crag"] is None),
        "score": round(sum(values) / len(values), DIGITS),
        "ci": bootstrap_mean(values),
    }


def _retrieval(rows: Sequence[Row], ks: Sequence[int]) -> dict[str, Any] | None:
    judged = [r for r in rows if r.get("recall")]
    if not judged:
        return None
    out = {
        "n": len(judged),
        **{f"recall@{k}": _mean(r["recall"][str(k)] for r in judged) for k in ks},
        f"context_precision@{ks[-1]}": _mean(r.get("context_precision") for r in judged),
    }
    for key in ("context_precision_tfidf", "context_recall_tfidf"):  # the metrics sheet's, by TF-IDF cosine
        values = [r[key] for r in judged if r.get(key) is not None]
        if values:
            out[f"{key.removesuffix('_tfidf')}@{ks[-1]}_tfidf"] = _mean(values)
            out[f"{key.removesuffix('_tfidf')}@{ks[-1]}_tfidf_ci"] = bootstrap_mean(values)
    return out


def _mcq(rows: Sequence[Row]) -> dict[str, Any] | None:
    mcq = [r for r in rows if r["type"] == "mcq"]
    if not mcq:
        return None
    out: dict[str, Any] = {"n": len(mcq), "declined": sum(1 for r in mcq if r["declined"])}
    for who in ("judge", "embedding"):
        if any(f"mcq_{who}" in r for r in mcq):
            correct = sum(1 for r in mcq if r.get(f"mcq_{who}_correct"))
            failed = sum(1 for r in mcq if r.get(f"mcq_{who}_failed"))  # a failed request grades nothing
            no_choice = sum(1 for r in mcq if r.get(f"mcq_{who}") is None) - failed
            graded = len(mcq) - failed
            out[who] = {
                "correct": correct,
                "no_choice": no_choice,
                "accuracy": ratio(correct, graded) if graded else None,
                "accuracy_ci": wilson(correct, graded),
            }
            if failed:
                out[who] |= {"failed": failed, "graded": graded}
    return out


def _cost(rows: Sequence[Row]) -> dict[str, Any] | None:
    """What answering cost, from the answers that say (``cost_usd``): total and per answer."""
    values = [r["cost_usd"] for r in rows if r.get("cost_usd") is not None]
    if not values:
        return None
    return {"n": len(values), "total": round(sum(values), 6), "per_answer": round(sum(values) / len(values), 6)}


def _latency(rows: Sequence[Row]) -> dict[str, Any] | None:
    values = sorted(r["latency_s"] for r in rows if r.get("latency_s") is not None)
    if not values:
        return None
    import numpy as np

    return {
        "n": len(values),
        "mean": _mean(values),
        "median": round(float(np.median(values)), DIGITS),
        "p95": round(float(np.percentile(values, 95)), DIGITS),
        "max": round(values[-1], DIGITS),
    }


def aggregate(rows: Sequence[Row], ks: Sequence[int], bleu_tokenize: str = "13a") -> dict[str, Any]:
    """Every metric over ``rows`` (see the module docstring)."""
    answerable = [r for r in rows if r["role"] == "answerable"]
    return {
        "answers": len(rows),
        "answerable": _shares(answerable),
        "unanswerable": _shares([r for r in rows if r["role"] == "unanswerable"]),
        "unanswerable_detection": detection(rows),
        "answer_quality": _quality(answerable, bleu_tokenize),
        "factoid": _factoid(answerable),
        "retrieval": _retrieval(answerable, ks),
        "mcq": _mcq(answerable),
        "false_premise": _false_premise(answerable),
        "crag": _crag(rows),
        "robustness": _robustness(answerable),
        "grades": _grades(answerable),
        "latency_s": _latency(rows),
        "cost_usd": _cost(rows),
    }


def breakdown(
    rows: Sequence[Row], key: Callable[[Row], Any], ks: Sequence[int], bleu_tokenize: str = "13a"
) -> dict[str, dict[str, Any]]:
    """:func:`aggregate` per group of rows (rows whose key is None are left out), groups sorted."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        k = key(r)
        if k is not None:
            groups[str(k)].append(r)
    return {k: aggregate(groups[k], ks, bleu_tokenize) for k in sorted(groups, key=_natural)}


def _natural(key: str) -> tuple[int, Any]:
    return (0, int(key)) if key.lstrip("-").isdigit() else (1, key)
