"""What ``qagen score OUT --answers FILE [--answers FILE2 ...] [--judge SPEC] [--refusal-judge SPEC]`` runs.

Score, write the scores, refresh the report, summarise; with several answers files, score each and
compare every later one with the first on the questions both answered (``OUT/comparison.json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def score_command(
    out: str | Path,
    answers: str | Path | Sequence[str | Path],
    judge: str | None = None,
    *,
    refusal_judge: str | None = None,
    grader: str | None = None,
    config_path: str | Path | None = None,
    overrides: Sequence[str] = (),
    output: str | Path | None = None,
    progress: bool = True,
) -> str:
    """Score ``answers`` against ``out``, write ``scores.json``, re-render the report, return a summary.

    Args:
        out: The output folder.
        answers: The answers JSONL file, or several: the first is scored as one file is (``scores.json``),
            each other one into ``scores.<its name>.json``, and compared with the first.
        judge: ``--judge`` (``embedding[:<spec>]``, ``openai:<model>[@<url>]``, ``local``); None = config.
        refusal_judge: ``--refusal-judge`` (``auto``, ``phrases`` or an LLM spec); None = config.
        grader: ``--grader`` (``none`` or an LLM spec grading answers on the rubric); None = config.
        config_path: ``--config`` TOML file.
        overrides: ``--set key=value`` strings.
        output: ``--output``: where to write the scores (default ``OUT/scores.json``).
        progress: Progress bars on stderr.

    Returns:
        The printable summary (a table per iteration, warnings, where the files went).

    Raises:
        ConfigError, FileNotFoundError, ScoreError, LLMError, LLMSpecError: as the API raises them.
    """
    from qagen.commands.report import rerender_report
    from qagen.config import load_config
    from qagen.score import SCORES_FILE, ScoreError, rows_path, score
    from qagen.score.results import format_summary

    cfg = load_config(config_path, list(overrides))
    files = [answers] if isinstance(answers, (str, Path)) else list(answers)
    if len(files) > 1:
        if output is not None:
            raise ScoreError("--output names one scores file; with several --answers each goes beside scores.json")
        return _compare_command(Path(out), [Path(f) for f in files], judge, refusal_judge, grader, cfg, progress)
    answers = files[0]
    scores = score(
        out,
        answers,
        judge=judge,
        config=cfg,
        refusal_judge=refusal_judge,
        grader=grader,
        output=output,
        progress=progress,
    )
    target = Path(output) if output else Path(out) / SCORES_FILE
    lines = [format_summary(scores), f"wrote {target} and {rows_path(target)}"]
    report = rerender_report(out, cfg.report) if output is None else None
    if report is not None:
        lines.append(f"updated {report}")
    return "\n".join(lines)


def _compare_command(
    out: Path,
    files: list[Path],
    judge: str | None,
    refusal_judge: str | None,
    grader: str | None,
    cfg: Any,
    progress: bool,
) -> str:
    """Score every answers file, compare each later one with the first (all questions and the headline set)."""
    from qagen.commands.report import rerender_report
    from qagen.io import iter_jsonl, write_json
    from qagen.score import SCORES_FILE, rows_path, score
    from qagen.score.compare import compare_rows, format_comparison
    from qagen.score.results import headline_lines

    names = _names(files)
    lines: list[str] = []
    rows: dict[str, list[dict[str, Any]]] = {}
    headline_set = None
    for i, (name, path) in enumerate(zip(names, files, strict=True)):
        target = out / (SCORES_FILE if i == 0 else f"scores.{name}.json")
        scores = score(
            out, path, judge=judge, config=cfg, refusal_judge=refusal_judge, output=target, progress=progress
        )
        rows[name] = list(iter_jsonl(rows_path(target)))
        headline_set = headline_set or (scores.get("headline") or {}).get("set")
        lines += [f"{name}: wrote {target}"] + [
            "  " + line for line in headline_lines(scores.get("headline"), scores["settings"]["min_n"])
        ]
    first = names[0]
    comparison: dict[str, Any] = {"a": first, "files": {n: str(f) for n, f in zip(names, files, strict=True)}}
    for name in names[1:]:
        comparison[name] = {"all": compare_rows(rows[first], rows[name])}
        if headline_set:
            comparison[name][headline_set] = compare_rows(rows[first], rows[name], headline_set)
        for part, result in comparison[name].items():
            lines.append(f"\n{name} against {first}, {part} questions ({result['questions']} answered by both):")
            lines.append(format_comparison(result, first, name))
    write_json(out / "comparison.json", comparison)
    lines.append(f"\nwrote {out / 'comparison.json'}")
    report = rerender_report(out, cfg.report)
    if report is not None:
        lines.append(f"updated {report}")
    return "\n".join(lines)


def _names(files: list[Path]) -> list[str]:
    """Short names for the answers files: their stems, numbered when two are alike."""
    stems = [f.stem.removeprefix("answers.").removeprefix("answers-") or f.stem for f in files]
    return [s if stems.count(s) == 1 else f"{s}-{i + 1}" for i, s in enumerate(stems)]
