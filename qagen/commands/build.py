"""``qagen.build``: the whole pipeline as one call, over the declared stages."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qagen.artifacts import ARTIFACTS
from qagen.config import Config, apply_overrides, config_from_data, load_config
from qagen.io import check_output_folder, read_json
from qagen.output import MANIFEST
from qagen.runner import BuildInputs, Runner, Stage, StageReport
from qagen.stages import STAGE_NAMES, load_stages

__all__ = ["STAGES", "STAGE_NAMES", "BuildResult", "build"]

STAGES: tuple[Stage, ...] = load_stages()


@dataclass(frozen=True)
class BuildResult:
    """What a build did: the output folder, a report per stage and the manifest."""

    out_dir: Path
    stages: list[StageReport]
    manifest: dict[str, Any]
    estimate: dict[str, Any] | None = None

    @property
    def ran(self) -> list[str]:
        return [r.name for r in self.stages if r.status == "ran"]

    @property
    def skipped(self) -> list[str]:
        return [r.name for r in self.stages if r.status == "skipped"]

    @property
    def incomplete(self) -> dict[str, str]:
        """Stages that ran but left work for the next build (stage -> why); empty when done."""
        return {r.name: r.incomplete for r in self.stages if r.incomplete}


def build(
    docs: str | os.PathLike[str],
    out: str | os.PathLike[str],
    config: Config | str | os.PathLike[str] | None = None,
    *,
    overrides: Sequence[str] = (),
    until: str | None = None,
    force: Sequence[str] | bool = (),
    llm: Any = None,
    embedder: Any = None,
    dry_run: bool = False,
    progress: bool = False,
    log: Callable[[str], None] = lambda _msg: None,
) -> BuildResult:
    """Build an evaluation dataset from a folder of documents.

    Args:
        docs: Folder of documents (PDF, Markdown, text, HTML), searched recursively.
        out: Output folder; created if needed. Unchanged stages are skipped on rerun.
        config: A :class:`~qagen.config.Config`, a path to a TOML file, or None for defaults.
        overrides: ``section.key=value`` strings applied on top of ``config``.
        until: Stop after this stage.
        force: True to rerun every stage, or the names of stages to rerun.
        llm: An LLM backend object or spec string; overrides ``llm.backend``.
        embedder: An embedder object or spec string; overrides ``embed.backend``.
        dry_run: Run up to the sample, then estimate LLM requests, tokens and cost without calling.
        progress: Show progress bars.
        log: Called with one-line status messages.

    Returns:
        A :class:`BuildResult`.

    Example:
        >>> result = qagen.build("examples/docs", "out")  # doctest: +SKIP
        >>> result.skipped  # on a rerun: every stage  # doctest: +SKIP
    """
    from qagen.ingest import scan_documents

    cfg = _resolve_config(config, overrides)
    _check_budget(cfg, llm)
    if not dry_run and cfg.llm.preflight:
        _preflight(cfg, llm, embedder)  # a wrong URL or a missing key stops here, in seconds, not after parsing
    from qagen.embed.registry import check_embedder_spec

    check_embedder_spec(cfg.embed.backend)  # a misspelt embedder stops here, not after parsing
    docs_dir = Path(docs).resolve()
    check_output_folder(Path(out))
    found = scan_documents(docs_dir, cfg.parse.formats, exclude=[Path(out).resolve()], symlinks=cfg.parse.symlinks)
    from qagen.generate.prompts import default_prompts_dir

    prompts_dir = Path(cfg.generate.prompts_dir) if cfg.generate.prompts_dir else default_prompts_dir()
    inputs = BuildInputs(
        docs_dir=docs_dir,
        doc_paths=tuple(found.paths),
        skipped_files=tuple((str(rel), str(why)) for rel, why in found.skipped),
        llm=llm,
        embedder=embedder,
        dry_run=dry_run,
        prompts_dir=prompts_dir,
        out_name=Path(out).resolve().name,
    )
    runner = Runner(STAGES, ARTIFACTS, Path(out), cfg, build=inputs, progress=progress, log=log)
    if dry_run and force is not True:
        # the estimate is made by the generate stage, which stops before any request: an unchanged
        # generate stage would be skipped and say nothing, so a dry run always reaches it
        force = [*force, "generate"]
    reports = runner.run(until=until, force=force)
    if reports and reports[-1].stopped is not None:  # the dry run's estimate, made by the generate stage
        return BuildResult(Path(out), [], read_json(Path(out) / MANIFEST), estimate=reports[-1].stopped["estimate"])
    return BuildResult(Path(out), reports, read_json(Path(out) / MANIFEST))


def _check_budget(cfg: Config, llm: Any) -> None:
    """A cost limit for an OpenAI-compatible model with no price stops the build before anything runs (the
    engine says the same, later, for any other backend)."""
    spec = llm if llm is not None else cfg.llm.backend
    if cfg.llm.max_cost_usd is None or not isinstance(spec, str):
        return
    from qagen.llm.registry import openai_model, parse_spec

    name, rest = parse_spec(spec)
    if name != "openai":
        return
    from qagen.llm.engine import unpriced_budget
    from qagen.llm.pricing import price_for

    model, _ = openai_model(rest)
    if model and price_for(model, cfg.llm.prices) is None:
        raise unpriced_budget(model)


def _preflight(cfg: Config, llm: Any, embedder: Any = None) -> None:
    """One cheap call to each OpenAI-compatible endpoint the build will use, the generator's and the
    embedder's (:mod:`qagen.llm.preflight`); a server both use is called once."""
    from qagen.llm.preflight import preflight_embedder, preflight_llm

    backend = preflight_llm(llm if llm is not None else cfg.llm.backend, cfg)
    checked: set[str | None] = {backend.base_url} if backend is not None else set()
    chosen = embedder if embedder is not None else cfg.embed.backend
    if isinstance(chosen, str):
        if not chosen.strip().lower().startswith("openai"):
            return
        from qagen.embed import get_embedder

        chosen = get_embedder(chosen, cfg.embed, cfg.llm)
    from qagen.embed.openai_embed import OpenAIEmbedder

    if isinstance(chosen, OpenAIEmbedder) and chosen.base_url not in checked:
        preflight_embedder(chosen)


def _resolve_config(config: Config | str | os.PathLike[str] | None, overrides: Sequence[str]) -> Config:
    if isinstance(config, Config):
        if not overrides:
            return config
        return config_from_data(apply_overrides(config.model_dump(), list(overrides)), "--set")
    return load_config(config, list(overrides))
