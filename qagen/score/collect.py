"""A reference adapter: run any chatbot callable over the cross-evaluation iterations into an answers file.

::

    from qagen.score import collect, Reply

    def ask(question, corpus_pages):            # corpus_pages: the iteration's Page records
        hits = my_store.search(question)        # load corpus_pages into your store first
        return Reply(my_llm(question, hits), retrieved_page_ids=[h.page_id for h in hits])

    collect("out", ask)                          # -> out/answers.jsonl, then: qagen score out

For each iteration, ``ask`` is called once per question with the same ``corpus_pages`` list
(the pages of that iteration's fold: the only pages the chatbot may know), so a chatbot can
build its index once per list. ``ask`` returns the answer text, a :class:`Reply`, or a dict
with the same fields. Answers are appended one line at a time (flushed), so an interrupted run
keeps everything answered so far; rerunning skips what the file already holds (resume). A file
holding answers to questions the build no longer has (the folder was rebuilt) is refused.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from qagen.records import Page
from qagen.score.answers import Answer, answer_to_dict, parse_answers

log = logging.getLogger("qagen.score")

Ask = Callable[[str, list[Page]], Any]


@dataclass(frozen=True)
class Reply:
    """A chatbot's reply with what it retrieved (for recall@k)."""

    answer: str
    retrieved_page_ids: Sequence[str] | None = None
    meta: dict[str, Any] | None = None
    cost_usd: float | None = None  # what the reply cost, when the chatbot knows (qagen score sums it)


@dataclass(frozen=True)
class CollectResult:
    """What :func:`collect` did: answers written now, found from an earlier run, and failed."""

    path: Path
    answered: int
    resumed: int
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (iteration, item_id, error)


def collect(
    crosseval: str | Path,
    ask: Ask,
    answers_path: str | Path | None = None,
    *,
    sets: Sequence[str] = ("validation", "test"),
    progress: bool = True,
    on_error: Literal["raise", "skip"] = "raise",
) -> CollectResult:
    """Ask every question of every iteration and append the answers to ``answers_path``.

    Args:
        crosseval: A qagen output folder, or its ``crosseval.json``.
        ask: ``ask(question, corpus_pages) -> str | Reply | dict``. When ``ask`` has a ``load(pages)``
            method, it is called once at the start of each iteration with the pages that iteration's chatbot
            may know (index them there, e.g. into your vector store); ``corpus_pages`` is then the same list.
        answers_path: The answers file; default ``answers.jsonl`` beside ``crosseval.json``.
        sets: Which sets to run (``validation``, ``test``).
        progress: Show a progress bar.
        on_error: ``raise`` stops at the first failing question (rerun to resume);
            ``skip`` logs it, leaves it unanswered and goes on.

    Raises:
        FileNotFoundError: No ``crosseval.json``.
        ScoreError: The existing answers file has invalid lines (it is never overwritten).
    """
    from qagen.io import iter_jsonl, read_json, read_jsonl

    path = Path(crosseval)
    root, cross_file = (path.parent, path) if path.suffix == ".json" else (path, path / "crosseval.json")
    if not cross_file.is_file():
        raise FileNotFoundError(f"{cross_file} not found; build the dataset first (qagen build DOCS -o OUT)")
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip'; got {on_error!r}")
    target = Path(answers_path) if answers_path else root / "answers.jsonl"
    done = _resume(target)
    every = read_json(cross_file)["iterations"]
    questions = {it["name"]: list(iter_jsonl(root / it["questions"])) for it in every}
    _refuse_stale(done, every, questions, root, target)
    iterations = [it for it in every if it["set"] in sets]
    todo = {it["name"]: [q for q in questions[it["name"]] if not _answered(done, it, q["id"])] for it in iterations}
    bar = _bar(sum(map(len, todo.values())), progress)
    answered, failed = 0, []
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a", encoding="utf-8") as fh:
        try:
            for it in iterations:
                if not todo[it["name"]]:
                    continue
                pages = read_jsonl(root / it["corpus"], Page)
                if callable(getattr(ask, "load", None)):
                    ask.load(pages)  # a chatbot with its own store indexes the iteration's pages once
                bar.set_description(it["name"])
                for q in todo[it["name"]]:
                    error = _ask_one(ask, q, it["name"], pages, fh, on_error)
                    if error is None:
                        answered += 1
                    else:
                        failed.append((it["name"], q["id"], error))
                    bar.update()
        finally:
            fh.flush()
            os.fsync(fh.fileno())
            bar.close()
    return CollectResult(target, answered, len(done), failed)


def _answered(done: set[tuple[str | int, str]], iteration: dict[str, Any], item_id: str) -> bool:
    return (iteration["name"], item_id) in done or (int(iteration["iteration"]), item_id) in done


def _ask_one(ask: Ask, q: dict[str, Any], iteration: str, pages: list[Page], fh: Any, on_error: str) -> str | None:
    """Ask one question and append its answer line; return the error text when skipped."""
    started = time.perf_counter()
    try:
        reply = _as_reply(ask(q["question"], pages))
    except Exception as exc:
        if on_error == "raise":
            raise
        log.warning("%s %s: %s: %s (left unanswered)", iteration, q["id"], type(exc).__name__, exc)
        return f"{type(exc).__name__}: {exc}"
    latency = round(time.perf_counter() - started, 4)
    retrieved = None if reply.retrieved_page_ids is None else tuple(str(p) for p in reply.retrieved_page_ids)
    answer = Answer(q["id"], iteration, reply.answer, retrieved, latency, reply.meta, reply.cost_usd)
    fh.write(json.dumps(answer_to_dict(answer), ensure_ascii=False) + "\n")
    fh.flush()
    return None


def _as_reply(value: Any) -> Reply:
    if isinstance(value, Reply):
        reply = value
    elif isinstance(value, str):
        reply = Reply(value)
    elif isinstance(value, dict):
        unknown = set(value) - {"answer", "retrieved_page_ids", "meta", "cost_usd"}
        if unknown or "answer" not in value:
            raise TypeError(
                f"ask returned a dict with keys {sorted(value)}; it needs 'answer' and may have "
                "'retrieved_page_ids', 'meta' and 'cost_usd'"
            )
        reply = Reply(**value)
    else:
        raise TypeError(f"ask must return a str, a Reply or a dict; got {type(value).__name__}")
    if not isinstance(reply.answer, str):
        raise TypeError(f"the answer must be a str; got {type(reply.answer).__name__}")
    return reply


def _refuse_stale(
    done: set[tuple[str | int, str]],
    iterations: list[dict[str, Any]],
    questions: dict[str, list[dict[str, Any]]],
    root: Path,
    target: Path,
) -> None:
    """Answers in the file for questions this build does not have: the file was made for another build
    (the folder was rebuilt since). Resuming would mix answers to two datasets; say so before asking."""
    if not done:
        return
    from qagen.score.answers import ScoreError

    known: set[tuple[str | int, str]] = set()
    for it in iterations:
        for q in questions[it["name"]]:
            known.update({(it["name"], q["id"]), (int(it["iteration"]), q["id"])})
    stale = sorted(str(item) for _, item in done - known)
    if stale:
        raise ScoreError(
            f"{target}: {len(stale)} answer(s) are for questions this build does not have "
            f"({', '.join(stale[:3])}{', ...' if len(stale) > 3 else ''}): the file was made for an earlier build "
            f"of {root}. Move it away to answer this build afresh, or pass another answers file"
        )


def _resume(path: Path) -> set[tuple[str | int, str]]:
    """(iteration name or number, item_id) already answered in ``path``; a half-written last line is dropped."""
    if not path.is_file():
        return set()
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        cut = text.rfind("\n") + 1
        log.warning("%s: dropping a half-written last line (interrupted run)", path)
        text = text[:cut]
        with open(path, "rb+") as fh:
            fh.truncate(len(text.encode("utf-8")))
    return {(a.iteration, a.item_id) for a in parse_answers(text.splitlines(), source=str(path))}


def _bar(total: int, progress: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not progress, unit="q", desc="answers")
