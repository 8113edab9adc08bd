"""``qagen ask``: answer a dataset with the built-in baseline RAG, to compare a chatbot of one's own with it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path


def default_answers_path(out: Path, llm: str | None) -> Path:
    """``OUT/answers.ask.jsonl``, or ``OUT/answers.ask-<model>.jsonl`` with an LLM (one file per bot)."""
    if not llm:
        return out / "answers.ask.jsonl"
    model = llm.partition(":")[2].partition("@")[0] or llm.partition(":")[0]
    return out / f"answers.ask-{re.sub(r'[^A-Za-z0-9._-]+', '-', model).strip('-') or 'llm'}.jsonl"


def ask_command(
    out: str | Path,
    *,
    llm: str | None = None,
    answers: str | Path | None = None,
    k: int = 5,
    threshold: float = 0.10,
    sets: Sequence[str] = ("validation", "test"),
    score_them: bool = True,
    config_path: str | Path | None = None,
    overrides: Sequence[str] = (),
    progress: bool = True,
) -> str:
    """Answer every question of OUT's splits with :class:`~qagen.score.baseline.BaselineRAG`, then score them.

    Args:
        out: A build folder (its ``crosseval.json`` and splits).
        llm: An LLM spec (``openai:MODEL[@URL]``, ``local``); None: the extractive reader, offline.
        answers: The answers file; default :func:`default_answers_path`. A rerun resumes it.
        k: Pages retrieved per question.
        threshold: Decline when the best page's TF-IDF similarity is below this.
        sets: The sets to answer.
        score_them: Score the answers (``OUT/scores.ask*.json``) and print the headline.
        config_path: ``--config`` TOML (its ``[llm]`` and ``[score]`` are used).
        overrides: ``--set`` strings.
        progress: Progress bars.

    Returns:
        The printable summary: what was written, the headline, and how to compare with another chatbot.
    """
    from qagen.config import load_config
    from qagen.io import read_json
    from qagen.score import collect, score
    from qagen.score.baseline import REFUSAL, BaselineRAG
    from qagen.score.results import headline_lines

    out = Path(out)
    cfg = load_config(config_path, list(overrides))
    cross = out / "crosseval.json"
    if not cross.is_file():
        raise FileNotFoundError(f"{cross} not found; build the dataset first (qagen build DOCS -o {out})")
    if llm and cfg.llm.preflight:
        from qagen.llm.preflight import preflight_llm

        preflight_llm(llm, cfg, role="ask")
    refusal = read_json(cross).get("refusal_answer") or REFUSAL
    bot = BaselineRAG(k, threshold, llm=llm, llm_config=cfg.llm, cache_path=out / ".cache" / "ask.sqlite",
                      refusal=refusal)  # fmt: skip
    target = Path(answers) if answers else default_answers_path(out, llm)
    result = collect(out, bot, target, sets=tuple(sets), progress=progress)
    lines = [f"wrote {target}: {result.answered} new answers, {result.resumed} from an earlier run"]
    if score_them:
        stem = target.name.removeprefix("answers.").removesuffix(".jsonl")
        scores_file = target.with_name(f"scores.{stem}.json")
        scores = score(out, target, config=cfg, output=scores_file, progress=progress)
        lines += headline_lines(scores.get("headline"), scores["settings"]["min_n"])
        lines.append(f"wrote {scores_file}")
    lines.append(f"compare your chatbot with it: qagen score {out} --answers YOURS.jsonl --answers {target}")
    return "\n".join(lines)
