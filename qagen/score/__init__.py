"""Score a chatbot on a qagen dataset with the research's cross-evaluation metrics.

::

    from qagen.score import collect, score

    collect("out", ask=lambda question, corpus_pages: my_bot(question))   # writes out/answers.jsonl
    scores = score("out", "out/answers.jsonl")                          # writes out/scores.json

``collect`` runs any chatbot callable over every iteration (progress, resume); ``score``
computes answered/declined shares per iteration, the unanswerable-detection confusion matrix,
ROUGE/BLEU, factoid correctness, recall@k and MCQ accuracy (judge and embedding baseline),
broken down by iteration, set, fold, type, Bloom level, scenario and topic. The answers
format is :class:`~qagen.score.answers.Answer` (``schemas/answer.schema.json``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qagen.score.answers import Answer, ScoreError, answer_schema, load_answers, parse_answers
from qagen.score.collect import CollectResult, Reply, collect

SCORES_FILE = "scores.json"
ROWS_FILE = "scores.items.jsonl"


def score(
    out_dir: str | Path,
    answers_path: str | Path,
    judge: Any = None,
    config: Any = None,
    *,
    embedder: Any = None,
    refusal_judge: Any = None,
    grader: Any = None,
    output: str | Path | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Score the answers in ``answers_path`` against the dataset in ``out_dir``.

    Writes ``scores.json`` (or ``output``) and, beside it, ``scores.items.jsonl`` (one row per
    answer: declined, ROUGE, factoid and MCQ verdicts, recall@k).

    Args:
        out_dir: A qagen output folder (``crosseval.json`` and ``splits/``).
        answers_path: Answers JSONL (see :class:`~qagen.score.answers.Answer`).
        judge: ``embedding[:<embed spec>]``, an LLM spec (``openai:<model>[@<url>]``, ``local``),
            an LLM or embedder object, or a judge with ``choose(cases)``; None = ``score.judge``.
        config: A :class:`~qagen.config.Config`, a TOML path, or None for defaults.
        embedder: Embedder of the MCQ baseline (object or spec); None = ``score.embedder``.
        refusal_judge: Who decides refusals: ``auto`` (an LLM ``judge`` does, else phrases),
            ``phrases``, an LLM spec or backend, or an object with ``declined(cases)``;
            None = ``score.refusal_judge``. Phrases decide where an LLM request fails.
        grader: Who grades answered answers on the rubric (correctness, completeness, relevance,
            faithfulness, 1-5): ``none``, an LLM spec or backend, or an object with
            ``grade(cases)``; None = ``score.grader``.
        output: Where to write the scores; default ``OUT/scores.json``.
        progress: Progress bars (ROUGE, LLM requests).

    Returns:
        The ``scores.json`` content.

    Raises:
        FileNotFoundError: No ``crosseval.json`` in ``out_dir``, or no answers file.
        ScoreError: Invalid answers lines, unknown item ids or iterations, duplicates, or no
            answers at all (the message names them).
    """
    from qagen.io import (
        check_output_file,
        read_json,
        remove_stale_temp_files,
        sha256_file,
        stable_hash,
        write_json,
        write_jsonl,
    )
    from qagen.score.dataset import load_dataset, match_answers
    from qagen.score.evaluate import evaluate
    from qagen.score.judge import make_judges, preflight_judges
    from qagen.score.results import summarize

    cfg = _config(config)
    _check_embedders(cfg, judge, embedder)
    out = Path(out_dir)
    if output is not None:
        check_output_file(output, "scores file (--output)")
    dataset = load_dataset(out, cfg.generate.phone_region)
    answers = load_answers(answers_path)
    if not answers:
        raise ScoreError(f"{answers_path} holds no answers; make them with qagen.score.collect or your own script")
    answers, cut = cut_long_answers(answers, cfg.score.max_answer_chars)
    matched = match_answers(dataset, answers, source=str(answers_path))
    judges = make_judges(
        judge if judge is not None else cfg.score.judge,
        cfg,
        out / ".cache",
        embedder=embedder,
        progress=progress,
        refusal_judge=refusal_judge,
        grader=grader,
    )
    if cfg.llm.preflight:
        preflight_judges(judges)  # a dead judge endpoint stops here, in seconds
    rows, notes = evaluate(matched, dataset, cfg.score, judges, progress=progress)
    notes["answers_cut"] = cut
    scores = {
        "qagen_version": _version(),
        "answers_file": str(answers_path),
        "answers_sha256": sha256_file(answers_path),
        # the dataset scored: the report warns when crosseval.json changes after scoring
        "crosseval_hash": stable_hash(read_json(out / "crosseval.json")),
    }
    scores |= summarize(rows, matched, dataset, cfg.score, _judge_info(judges), notes)
    target = Path(output) if output else out / SCORES_FILE
    # One unit: the rows first, then the summary that names them with their hash. A kill in
    # between leaves the old summary beside new rows, which read_scores() then reports.
    remove_stale_temp_files(target.parent, (target.name, rows_path(target).name))
    write_jsonl(rows_path(target), [_public(r) for r in rows])
    scores["rows_file"] = {"path": rows_path(target).name, "sha256": sha256_file(rows_path(target)), "rows": len(rows)}
    write_json(target, scores)
    return scores


def _check_embedders(cfg: Any, judge: Any, embedder: Any) -> None:
    """A misspelt embedder name of the judge or the MCQ baseline is one error line before anything is read."""
    from qagen.embed.registry import check_embedder_spec

    spec = judge if judge is not None else cfg.score.judge
    if isinstance(spec, str) and spec.strip().startswith("embedding:"):
        check_embedder_spec(spec.strip().split(":", 1)[1], "--judge embedding:")
    base = embedder if embedder is not None else cfg.score.embedder
    if isinstance(base, str):
        check_embedder_spec(base, "score.embedder")


def cut_long_answers(answers: list[Answer], max_chars: int) -> tuple[list[Answer], dict[str, int] | None]:
    """``answers`` with each one longer than ``max_chars`` cut to its first ``max_chars`` characters, and
    what was cut (``{"answers": n, "longest": chars, "max_chars": max_chars}``; None when nothing was)."""
    import dataclasses

    long = [len(a.answer) for a in answers if len(a.answer) > max_chars]
    if not long:
        return answers, None
    kept = [dataclasses.replace(a, answer=a.answer[:max_chars]) if len(a.answer) > max_chars else a for a in answers]
    return kept, {"answers": len(long), "longest": max(long), "max_chars": max_chars}


def dataset_changed(scores: dict[str, Any], crosseval: dict[str, Any]) -> bool:
    """True when ``scores`` were computed for another version of the dataset than ``crosseval``
    (scores written before qagen recorded the dataset count as changed)."""
    from qagen.io import stable_hash

    return scores.get("crosseval_hash") != stable_hash(crosseval)


def rows_path(scores_path: str | Path) -> Path:
    """The per-answer rows file written beside a scores file (``scores.json`` → ``scores.items.jsonl``)."""
    target = Path(scores_path)
    return target.with_name(target.stem + ".items.jsonl")


def rows_problem(scores_path: str | Path, scores: dict[str, Any]) -> str | None:
    """Why the rows file beside ``scores_path`` does not belong to ``scores``, or None when it does.

    ``scores.json`` names its rows file with the file's hash; a kill between the two writes of
    ``qagen score``, or a file copied from elsewhere, shows here. Scores written before the
    hash was recorded are not checked.
    """
    from qagen.io import sha256_file

    recorded = scores.get("rows_file")
    if not isinstance(recorded, dict):
        return None
    path = Path(scores_path).with_name(str(recorded.get("path", "")))
    if not path.is_file():
        return f"{path.name} is missing; run qagen score again to write both files"
    if sha256_file(path) != recorded.get("sha256"):
        return (
            f"{path.name} does not belong to {Path(scores_path).name} (another qagen score run wrote it, or it "
            "was interrupted between the two files); run qagen score again"
        )
    return None


def read_scores(path: str | Path) -> dict[str, Any]:
    """``scores.json`` with ``rows_file.problem`` set when its rows file does not match (see :func:`rows_problem`)."""
    from qagen.io import read_json

    scores: dict[str, Any] = read_json(path)
    problem = rows_problem(path, scores)
    if problem:
        scores["rows_file"] = {**scores["rows_file"], "problem": problem}
    return scores


def _judge_info(judges: Any) -> dict[str, Any]:
    """Who judged (``scores.json["judge"]``): MCQ judge, baseline, refusal judge and LLM accounting."""

    def name(j: Any) -> str:
        return getattr(j, "name", type(j).__name__)

    info: dict[str, Any] = {"mcq": name(judges.judge), "baseline": judges.baseline.name}
    info["refusal"] = "phrases" if judges.refusal is None else name(judges.refusal)
    if hasattr(judges.judge, "stats"):
        info["llm_stats"] = judges.judge.stats()
    if judges.refusal is not None and judges.refusal is not judges.judge and hasattr(judges.refusal, "stats"):
        info["refusal_llm_stats"] = judges.refusal.stats()
    info["grader"] = None if judges.grader is None else name(judges.grader)
    seen = (judges.judge, judges.refusal)
    if judges.grader is not None and all(judges.grader is not j for j in seen) and hasattr(judges.grader, "stats"):
        info["grader_llm_stats"] = judges.grader.stats()
    return info


def _config(config: Any) -> Any:
    from qagen.config import Config, load_config

    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    return load_config(config)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("qagen")
    except PackageNotFoundError:
        return "unknown"


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}


__all__ = [
    "ROWS_FILE",
    "SCORES_FILE",
    "Answer",
    "CollectResult",
    "Reply",
    "ScoreError",
    "answer_schema",
    "collect",
    "load_answers",
    "parse_answers",
    "score",
]
