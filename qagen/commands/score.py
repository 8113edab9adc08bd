"""What ``qagen score OUT --answers FILE [--judge SPEC] [--refusal-judge SPEC]`` runs.

Score, write the scores, refresh the report, summarise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def score_command(
    out: str | Path,
    answers: str | Path,
    judge: str | None = None,
    *,
    refusal_judge: str | None = None,
    config_path: str | Path | None = None,
    overrides: Sequence[str] = (),
    output: str | Path | None = None,
    progress: bool = True,
) -> str:
    """Score ``answers`` against ``out``, write ``scores.json``, re-render the report, return a summary.

    Args:
        out: The output folder.
        answers: The answers JSONL file.
        judge: ``--judge`` (``embedding[:<spec>]``, ``openai:<model>[@<url>]``, ``local``); None = config.
        refusal_judge: ``--refusal-judge`` (``auto``, ``phrases`` or an LLM spec); None = config.
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
    from qagen.score import SCORES_FILE, rows_path, score
    from qagen.score.results import format_summary

    cfg = load_config(config_path, list(overrides))
    scores = score(out, answers, judge=judge, config=cfg, refusal_judge=refusal_judge, output=output, progress=progress)
    target = Path(output) if output else Path(out) / SCORES_FILE
    lines = [format_summary(scores), f"wrote {target} and {rows_path(target)}"]
    report = rerender_report(out, cfg.report) if output is None else None
    if report is not None:
        lines.append(f"updated {report}")
    return "\n".join(lines)
