"""The build's stages: one module per stage, named after it, declaring ``STAGE`` beside its glue.

Each module holds a :class:`~qagen.runner.Stage` (what it reads and writes, the config sections
and other inputs it depends on) and the function the runner calls: thin glue from loaded
artifacts to the stage's package (``qagen.ingest``, ``qagen.embed``, ``qagen.topics``,
``qagen.folds``, ``qagen.generate``, ``qagen.filters``, ``qagen.splits``, ``qagen.report``).
:data:`STAGE_NAMES` is the order, and the one list the CLI, the report and the benchmarks read;
importing this package imports no stage (``qagen --help`` stays fast): :func:`load_stages` does.

To add a stage: write ``qagen/stages/<name>.py`` with ``STAGE = Stage(name="<name>", ...)``,
put its name in :data:`STAGE_NAMES`, and its artifacts in :mod:`qagen.artifacts`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qagen.runner import Stage

STAGE_NAMES: tuple[str, ...] = ("parse", "pages", "embed", "topics", "folds", "generate", "filter", "splits", "report")


def load_stages() -> tuple[Stage, ...]:
    """Every stage in build order (imports each stage module; its heavy libraries load when it runs)."""
    stages = tuple(importlib.import_module(f"qagen.stages.{name}").STAGE for name in STAGE_NAMES)
    for name, stage in zip(STAGE_NAMES, stages, strict=True):
        if stage.name != name:
            raise RuntimeError(f"qagen/stages/{name}.py declares a stage named {stage.name!r}")
    return stages
