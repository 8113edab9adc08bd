"""Per-answer evaluation: one row per matched answer with everything the metrics aggregate."""

from __future__ import annotations

from collections import Counter
from typing import Any

from qagen.score.answers import Answer
from qagen.score.dataset import Dataset, Iteration, Matched, Question
from qagen.score.judge import GRADE_SCALES, JUDGE_FAILED, Judges, McqCase
from qagen.score.metrics import DIGITS, Row, crag_value, factoid_correct, premise_corrected, recall_at_k, rouge_f
from qagen.score.refusal import RefusalDetector


def evaluate(
    matched: Matched, dataset: Dataset, config: Any, judges: Judges, progress: bool = False
) -> tuple[list[Row], dict[str, Any]]:
    """Rows for every matched answer, and notes on how refusals and judgements were made.

    Args:
        matched: Answers paired with their questions.
        dataset: The output folder's iterations (refusal answer, phone region).
        config: The ``[score]`` config section.
        judges: The MCQ judge, the embedding baseline and the refusal judge (None: phrases decide).
        progress: Progress bars.

    Returns:
        ``(rows, notes)``. Row keys starting with ``_`` (prediction, reference) are for
        aggregation only and are not written out.
    """
    detector = RefusalDetector(config.refusal_phrases, config.refusal_window_chars, dataset.refusal_answer)
    rows = [_base_row(it, q, a, detector) for it, q, a in matched.pairs]
    notes: dict[str, Any] = {
        "phrases": list(detector.phrases),
        "window_chars": detector.window,
        "decided_by": "phrases",
    }
    if judges.refusal is not None:
        notes.update(_llm_refusals(rows, matched, judges.refusal))
    _answer_quality(rows, matched, progress)
    _factoids(rows, matched, dataset.phone_region)
    _premises(rows, matched, dataset.phone_region)
    notes["retrieved_outside_corpus"] = _retrieval(rows, matched, config.recall_k)
    _context_tfidf(rows, matched, config.recall_k[-1], config.context_tfidf_threshold)
    _mcq(rows, matched, judges)
    notes["semantic_embedder"] = _semantic(rows, matched, judges.baseline.embedder)
    notes["bertscore_embedder"] = _bertscore(rows, matched, judges.baseline.embedder) if config.bertscore else None
    if judges.grader is not None:
        notes["grade_failed"] = _grades(rows, matched, judges.grader)
        if hasattr(judges.grader, "premise"):
            notes["premise_judge"] = _premise_judge(rows, matched, judges.grader)
    for row in rows:  # +1 correct, 0 declined, -1 hallucinated; None where nothing decides
        row["crag"] = crag_value(row, config.long_form_rouge_l)
    return rows, notes


def _base_row(it: Iteration, q: Question, answer: Answer, detector: RefusalDetector) -> Row:
    item = q.item
    phrase = detector.find(answer.answer)
    return {
        "item_id": item.id,
        "iteration": it.name,
        "set": it.set,
        "role": q.role,
        "scope": q.scope,
        "premise": item.premise,
        "formulation": item.formulation,
        "variant_of": item.variant_of,
        "hops": item.hops,
        "type": item.type,
        "fold": item.fold,
        "bloom": item.bloom,
        "scenario": item.scenario,
        "topic": item.source.topic_id,
        "declined": phrase is not None,
        "refusal": phrase,
        "latency_s": answer.latency_s,
        "cost_usd": answer.cost_usd,
    }


def _llm_refusals(rows: list[Row], matched: Matched, judge: Any) -> dict[str, Any]:
    """The refusal judge decides refusals of non-empty answers; phrases stay where its request failed."""
    todo = [i for i, (_, _, a) in enumerate(matched.pairs) if a.answer.strip()]
    verdicts = judge.declined([(matched.pairs[i][1].item.question, matched.pairs[i][2].answer) for i in todo])
    agree = failed = 0
    for i, verdict in zip(todo, verdicts, strict=True):
        row = rows[i]
        row["phrase_declined"] = row["declined"]
        if verdict is None:
            failed += 1
            continue
        agree += verdict == row["declined"]
        row["declined"] = bool(verdict)
        row["refusal"] = "llm judge" if verdict else None
    judged = len(todo) - failed
    return {
        "decided_by": "llm judge",
        "judge": getattr(judge, "name", type(judge).__name__),
        "llm_failed": failed,
        "phrase_llm_agreement": round(agree / judged, DIGITS) if judged else None,
    }


def _answer_quality(rows: list[Row], matched: Matched, progress: bool) -> None:
    idx = [i for i, (_, q, _) in enumerate(matched.pairs) if q.answerable]
    preds = [matched.pairs[i][2].answer for i in idx]
    refs = [_reference(matched.pairs[i][1]) for i in idx]
    for i, scores, pred, ref in zip(idx, rouge_f(preds, refs, progress), preds, refs, strict=True):
        rows[i].update({k: round(v, DIGITS) for k, v in scores.items()})
        rows[i]["_prediction"], rows[i]["_reference"] = pred, ref


def _reference(q: Question) -> str:
    """The reference answer: the MCQ's correct option, else the item's answer."""
    item = q.item
    if item.type == "mcq" and item.options and item.answer_index is not None:
        return item.options[item.answer_index]
    return item.answer


def _factoids(rows: list[Row], matched: Matched, region: str) -> None:
    for row, (_, q, a) in zip(rows, matched.pairs, strict=True):
        if q.answerable and q.item.type == "factoid":
            row["factoid_correct"] = factoid_correct(a.answer, q.item.entity_kind, q.item.entity, region)


def _premises(rows: list[Row], matched: Matched, region: str) -> None:
    """A false premise asked where its source is loaded: corrected when the answer gives the source's value."""
    for row, (_, q, a) in zip(rows, matched.pairs, strict=True):
        if q.answerable and q.item.premise == "false":
            row["premise_corrected"] = not row["declined"] and premise_corrected(
                a.answer, q.item.entity_kind, q.item.entity, region
            )


def _grades(rows: list[Row], matched: Matched, grader: Any) -> int:
    """The grader's rubric grades for every answered answerable question; returns how many requests failed
    (those answers stay ungraded)."""
    from qagen.score.judge import GradeCase

    todo, answers, references = _answered(rows, matched)
    cases = []
    for i, answer, reference in zip(todo, answers, references, strict=True):
        it, q, a = matched.pairs[i]
        contexts = tuple(it.page_texts[p] for p in (a.retrieved_page_ids or ()) if p in it.page_texts)
        cases.append(GradeCase(q.item.question, reference, answer, contexts))
    verdicts = grader.grade(cases) if cases else []
    for i, verdict in zip(todo, verdicts, strict=True):
        if verdict is None:
            continue
        for key in GRADE_SCALES:
            rows[i][f"grade_{key}"] = getattr(verdict, key)
    return sum(v is None for v in verdicts)


def _premise_judge(rows: list[Row], matched: Matched, judge: Any) -> dict[str, Any]:
    """The grader decides whether each answered false-premise question's answer corrects the premise (the
    rule, which looks for the source's value in the answer, stays beside it as ``premise_corrected_rule``)."""
    from qagen.score.judge import PremiseCase

    todo = [i for i, r in enumerate(rows) if r.get("premise_corrected") is not None and not r["declined"]]
    cases = []
    for i in todo:
        _, q, a = matched.pairs[i]
        claim = q.item.premise_claim or "(the value the question asserts)"
        cases.append(PremiseCase(q.item.question, claim, _reference(q), a.answer))
    verdicts = judge.premise(cases) if cases else []
    agree = failed = 0
    for i, verdict in zip(todo, verdicts, strict=True):
        rows[i]["premise_corrected_rule"] = rows[i]["premise_corrected"]
        if verdict is None:
            failed += 1
            continue
        agree += verdict == rows[i]["premise_corrected"]
        rows[i]["premise_corrected"] = bool(verdict)
    judged = len(todo) - failed
    return {"judged": judged, "failed": failed, "rule_agreement": round(agree / judged, DIGITS) if judged else None}


def _bertscore(rows: list[Row], matched: Matched, embedder: Any) -> str | None:
    """BERTScore-style F1 of each answered answerable question's answer against its reference
    (:mod:`qagen.score.bertscore`); None when the embedder gives no token embeddings."""
    from qagen.score.bertscore import bertscore, token_embedder

    model = token_embedder(embedder)
    if model is None:
        return None
    todo, answers, references = _answered(rows, matched)
    for i, value in zip(todo, bertscore(model, answers, references) if todo else [], strict=True):
        if value is not None:
            rows[i]["bertscore_f1"] = round(value, DIGITS)
    return str(getattr(model, "id", type(model).__name__))


def _context_tfidf(rows: list[Row], matched: Matched, k: int, threshold: float) -> None:
    """Context precision and recall as the education-chatbot metrics sheet defines them: a retrieved page is
    relevant when its TF-IDF cosine with one of the item's source pages reaches ``threshold``; precision is
    the share of the first ``k`` retrieved pages that are relevant, recall the share of source pages that
    one of them matches. TF-IDF is fitted on each iteration's loaded pages."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    by_iteration: dict[str, list[int]] = {}
    for i, (it, q, a) in enumerate(matched.pairs):
        if q.answerable and a.retrieved_page_ids is not None and q.item.source.page_ids and it.page_texts:
            by_iteration.setdefault(it.name, []).append(i)
    for todo in by_iteration.values():
        it = matched.pairs[todo[0]][0]
        ids = list(it.page_texts)
        row_of = {p: n for n, p in enumerate(ids)}
        matrix = TfidfVectorizer(sublinear_tf=True).fit_transform([it.page_texts[p] for p in ids])
        for i in todo:
            _, q, a = matched.pairs[i]
            first = list(a.retrieved_page_ids or ())[:k]
            sources = [row_of[p] for p in q.item.source.page_ids if p in row_of]
            if not first or not sources:
                continue
            known = [row_of[p] for p in first if p in row_of]  # a page outside the corpus is no context
            close = (matrix[known] @ matrix[sources].T).toarray() >= threshold if known else None
            relevant = int(close.any(axis=1).sum()) if close is not None else 0
            covered = int(close.any(axis=0).sum()) if close is not None else 0
            rows[i]["context_precision_tfidf"] = round(relevant / len(first), DIGITS)
            rows[i]["context_recall_tfidf"] = round(covered / len(sources), DIGITS)


def _answered(rows: list[Row], matched: Matched) -> tuple[list[int], list[str], list[str]]:
    """The answerable questions answered (not declined: never an empty answer): their rows, answers and
    reference answers."""
    todo = [i for i, (_, q, _) in enumerate(matched.pairs) if q.answerable and not rows[i]["declined"]]
    return todo, [matched.pairs[i][2].answer for i in todo], [_reference(matched.pairs[i][1]) for i in todo]


def _semantic(rows: list[Row], matched: Matched, embedder: Any) -> str:
    """Cosine similarity of each answered answerable question's answer to its reference, with the
    baseline judge's embedder (MiniLM by default): the meaning kept where ROUGE counts words."""
    import numpy as np

    todo, answers, references = _answered(rows, matched)
    if not todo:
        return str(getattr(embedder, "id", type(embedder).__name__))
    texts = list(dict.fromkeys(answers + references))
    if hasattr(embedder, "fit") and not getattr(embedder, "fitted", True):
        embedder.fit(texts)
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1, norms)
    row_of = {t: n for n, t in enumerate(texts)}
    for i, answer, reference in zip(todo, answers, references, strict=True):
        rows[i]["semantic"] = round(float(vectors[row_of[answer]] @ vectors[row_of[reference]]), DIGITS)
    return str(getattr(embedder, "id", type(embedder).__name__))


def _retrieval(rows: list[Row], matched: Matched, ks: list[int]) -> dict[str, int]:
    """Recall@k per answerable answer with retrieved pages; count retrieved pages outside the corpus."""
    outside: Counter[str] = Counter()
    for row, (it, q, a) in zip(rows, matched.pairs, strict=True):
        if a.retrieved_page_ids is None:
            continue
        if it.page_ids:
            outside[it.name] += sum(1 for p in a.retrieved_page_ids if p not in it.page_ids)
        if q.answerable and q.item.source.page_ids:
            got = [recall_at_k(q.item.source.page_ids, a.retrieved_page_ids, k) for k in ks]
            row["recall"] = {str(k): v for k, v in zip(ks, got, strict=True)}
            # context precision (the metrics sheet's, by page ids): the share of the first k retrieved
            # pages that hold the item's source
            wanted, first = set(q.item.source.page_ids), a.retrieved_page_ids[: ks[-1]]
            row["context_precision"] = round(sum(p in wanted for p in first) / len(first), DIGITS) if first else None
    return {k: v for k, v in outside.items() if v}


def _mcq(rows: list[Row], matched: Matched, judges: Judges) -> None:
    """Judge and baseline picks for answerable MCQs that were not declined (declined ones are wrong)."""
    idx = []
    for i, (_, q, _) in enumerate(matched.pairs):
        if q.answerable and q.item.type == "mcq" and q.item.options and q.item.answer_index is not None:
            idx.append(i)
            for who in ("judge", "embedding"):
                rows[i][f"mcq_{who}"], rows[i][f"mcq_{who}_correct"] = None, False
    todo = [i for i in idx if not rows[i]["declined"]]
    cases = [
        McqCase(matched.pairs[i][1].item.question, matched.pairs[i][2].answer, matched.pairs[i][1].item.options)
        for i in todo
    ]
    if not cases:
        return
    baseline = judges.baseline.choose(cases)
    picks = baseline if judges.judge is judges.baseline else judges.judge.choose(cases)
    for i, pick, base in zip(todo, picks, baseline, strict=True):
        correct = matched.pairs[i][1].item.answer_index
        if pick == JUDGE_FAILED:  # the judge's request failed: ungraded, not wrong
            rows[i].update({"mcq_judge": None, "mcq_judge_correct": False, "mcq_judge_failed": True})
        else:
            rows[i].update({"mcq_judge": pick, "mcq_judge_correct": pick == correct})
        rows[i].update({"mcq_embedding": base, "mcq_embedding_correct": base == correct})
