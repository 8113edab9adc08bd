"""What answers are scored against: the cross-evaluation iterations of an output folder, and the matching.

An iteration (``validation_iteration_1``) asks its questions (``questions.jsonl``: fold i's
items as answerable, the other fold's as unanswerable) of a chatbot whose store holds the
pages of fold i. Every answer names one (item, iteration); :func:`match_answers` pairs them,
refuses answers it cannot place (unknown ids, an item not asked in that iteration, the same
question answered twice) and lists the questions left unanswered.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qagen.records import Item, from_dict
from qagen.score.answers import MAX_PROBLEMS_SHOWN, Answer, ScoreError
from qagen.split_records import scope_of

_ITEM_FIELDS = tuple(Item.__dataclass_fields__)


@dataclass(frozen=True)
class Question:
    """One question of one iteration: the item, its role there and the expected answer."""

    item: Item
    role: str  # answerable | unanswerable
    expected_answer: str
    scope: str = "in_scope"  # in_scope | other_fold | out_of_scope (splits' "scope")

    @property
    def answerable(self) -> bool:
        return self.role == "answerable"


@dataclass(frozen=True)
class Iteration:
    """One cross-evaluation iteration: name, set, number, its corpus page ids and its questions."""

    name: str
    set: str
    number: int
    corpus: str
    questions: tuple[Question, ...]
    page_ids: frozenset[str] = frozenset()
    page_texts: dict[str, str] = field(default_factory=dict)  # the corpus's pages (what a grader is shown)


@dataclass(frozen=True)
class Dataset:
    """An output folder's iterations, topic labels, refusal answer and phone region."""

    iterations: tuple[Iteration, ...]
    refusal_answer: str = ""
    topic_labels: dict[int, str] = field(default_factory=dict)
    phone_region: str = "US"


@dataclass(frozen=True)
class Matched:
    """Answers paired with their questions, per iteration; ``missing`` are questions nobody answered."""

    pairs: tuple[tuple[Iteration, Question, Answer], ...]
    missing: dict[str, tuple[str, ...]]


def question_from_record(record: dict[str, Any]) -> Question:
    """A :class:`Question` from one ``questions.jsonl`` record."""
    item = from_dict(Item, {k: record[k] for k in _ITEM_FIELDS if k in record})
    return Question(
        item, record.get("role", "answerable"), record.get("expected_answer", item.answer), scope_of(record)
    )


def load_dataset(out_dir: str | Path, phone_region: str = "auto") -> Dataset:
    """Read ``crosseval.json``, every iteration's questions and corpus page ids, and topic labels.

    Args:
        out_dir: A qagen output folder.
        phone_region: Region for national phone numbers; ``auto`` takes the one generation
            used (``manifest.json``), else infers it from the questions' source passages.

    Raises:
        FileNotFoundError: ``out_dir`` has no ``crosseval.json`` (the build did not reach splits).
    """
    from qagen.io import iter_jsonl, read_json

    out = Path(out_dir)
    path = out / "crosseval.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{out} has no crosseval.json; run 'qagen build DOCS -o {out}' through the splits stage"
        )
    crosseval = read_json(path)
    iterations = []
    for it in crosseval.get("iterations", []):
        questions = tuple(question_from_record(r) for r in iter_jsonl(out / it["questions"]))
        corpus = (
            {r["id"]: r.get("text", "") for r in iter_jsonl(out / it["corpus"])}
            if (out / it["corpus"]).is_file()
            else {}
        )
        iterations.append(
            Iteration(it["name"], it["set"], int(it["iteration"]), it["corpus"], questions, frozenset(corpus), corpus)
        )
    return Dataset(
        tuple(iterations),
        crosseval.get("refusal_answer", ""),
        _topic_labels(out / "topics.json"),
        _phone_region(out, phone_region, iterations),
    )


def _topic_labels(path: Path) -> dict[int, str]:
    from qagen.io import read_json

    if not path.is_file():
        return {}
    return {int(t["id"]): str(t.get("label", "")) for t in read_json(path).get("topics", [])}


def _phone_region(out: Path, configured: str, iterations: list[Iteration]) -> str:
    """The region generation normalised phone numbers with, so scoring normalises the same way."""
    if configured != "auto":
        return configured
    from qagen.io import read_json

    manifest = out / "manifest.json"
    if manifest.is_file():
        counts = (read_json(manifest).get("stages", {}).get("generate") or {}).get("counts") or {}
        if counts.get("phone_region"):
            return str(counts["phone_region"])
    from qagen.entities import infer_phone_region

    return infer_phone_region(q.item.answer for it in iterations for q in it.questions)


def match_answers(dataset: Dataset, answers: Sequence[Answer], source: str = "answers") -> Matched:
    """Pair every answer with its question; list unanswered questions per iteration.

    Raises:
        ScoreError: When answers name unknown item ids, an iteration that does not exist or
            does not ask that item, or answer one question twice (lines are named).
    """
    by_name = {it.name: it for it in dataset.iterations}
    asked: dict[str, dict[str, Question]] = {it.name: {q.item.id: q for q in it.questions} for it in dataset.iterations}
    where: dict[str, list[Iteration]] = defaultdict(list)
    for it in dataset.iterations:
        for q in it.questions:
            where[q.item.id].append(it)
    problems: dict[str, list[str]] = defaultdict(list)
    pairs: list[tuple[Iteration, Question, Answer]] = []
    seen: Counter[tuple[str, str]] = Counter()
    for n, ans in enumerate(answers, 1):
        it = _resolve(ans, by_name, where, problems, n)
        if it is None:
            continue
        question = asked[it.name].get(ans.item_id)
        if question is None:
            problems["not_asked"].append(f"answer #{n}: {ans.item_id!r} in {it.name}")
            continue
        seen[(it.name, ans.item_id)] += 1
        if seen[(it.name, ans.item_id)] == 2:
            problems["duplicate"].append(f"{ans.item_id!r} in {it.name}")
        pairs.append((it, question, ans))
    if problems:
        raise ScoreError(_problem_message(problems, source, list(by_name)))
    missing = {
        it.name: tuple(q.item.id for q in it.questions if (it.name, q.item.id) not in seen) for it in dataset.iterations
    }
    return Matched(tuple(pairs), missing)


def _resolve(
    ans: Answer,
    by_name: dict[str, Iteration],
    where: dict[str, list[Iteration]],
    problems: dict[str, list[str]],
    n: int,
) -> Iteration | None:
    """The iteration an answer names, or None after noting the problem."""
    if ans.item_id not in where:
        problems["unknown_id"].append(f"answer #{n}: {ans.item_id!r}")
        return None
    if isinstance(ans.iteration, str):
        if ans.iteration not in by_name:
            problems["unknown_iteration"].append(f"answer #{n}: {ans.iteration!r}")
            return None
        return by_name[ans.iteration]
    found = [it for it in where[ans.item_id] if it.number == ans.iteration]
    if not found:
        problems["not_asked"].append(f"answer #{n}: {ans.item_id!r} in iteration {ans.iteration}")
        return None
    return found[0]


_PROBLEMS = {
    "unknown_id": "answer(s) name item ids that are in no iteration of this output folder ({}); "
    "item_id must be an 'id' from splits/*/fold_*/questions.jsonl (were these answers made for another build?)",
    "unknown_iteration": "answer(s) name an unknown iteration ({}); valid: {names} or 1, 2",
    "not_asked": "answer(s) name an iteration that does not ask that item ({}); "
    "an item is asked in its own fold's iteration and, unless flagged for leakage, in the other one of its set",
    "duplicate": "question(s) answered more than once ({}); keep one answer per item and iteration",
}


def _problem_message(problems: dict[str, list[str]], source: str, names: list[str]) -> str:
    parts = []
    for kind, template in _PROBLEMS.items():
        found = problems.get(kind)
        if found:
            shown = ", ".join(found[:MAX_PROBLEMS_SHOWN]) + (", ..." if len(found) > MAX_PROBLEMS_SHOWN else "")
            parts.append(f"{len(found)} " + template.format(shown, names=", ".join(names)))
    return f"{source}: " + "; ".join(parts)
