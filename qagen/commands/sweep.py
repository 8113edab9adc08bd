"""``qagen topics DOCS --sweep ...``: reuse (or build) sections and embeddings, then sweep."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from qagen.output import SWEEP, OutputFolder
from qagen.topics.grid import GRID_AXIS, GRID_USAGE, GridError, parse_grid


def sweep_folder(
    docs: Path,
    out: Path,
    grid: Sequence[str],
    config_path: Path | None = None,
    overrides: Sequence[str] = (),
    log: Callable[[str], None] = lambda _m: None,
) -> str:
    """Run the pipeline up to ``embed`` (skipped when unchanged), sweep, save ``topics_sweep.json``.

    ``grid`` holds ``KEY=V1,V2,...`` axes; a bad axis, or a key the configured reducer or
    clusterer does not read, raises :class:`~qagen.topics.grid.GridError` before any work.
    """
    from qagen.commands.build import build
    from qagen.config import load_config
    from qagen.io import write_json
    from qagen.records import section_text
    from qagen.topics.grid import checked_grid, run_sweep

    parsed_grid = parse_grid(grid)  # a bad grid fails before any work
    config = load_config(config_path, list(overrides))
    parsed_grid = checked_grid(parsed_grid, config.topics)
    build(docs, out, config, until="embed", log=log)
    folder = OutputFolder(out)
    sections = folder.read("sections.jsonl")
    ids = folder.read("embedding_ids.json")["ids"]
    if ids != [s.id for s in sections]:
        raise RuntimeError("embeddings do not match sections; rerun qagen build with --force embed")
    report = run_sweep(
        [section_text(s) for s in sections],
        folder.read("embeddings.npy"),
        [s.doc_id for s in sections],
        parsed_grid,
        config.topics,
        config.seed,
        progress=log,
    )
    write_json(folder.file(SWEEP), report.to_json())
    return report.text + f"\n(saved to {folder.file(SWEEP)})"


def sweep_cli_args(docs: str, options: Sequence[str], extra: Sequence[str]) -> tuple[str, list[str]]:
    """``(DOCS, grid axes)`` from ``qagen topics``'s DOCS argument, ``--sweep`` values and extra arguments.

    Axes may follow one ``--sweep`` (``--sweep n_components=5,10 min_cluster_size=10,20``),
    repeat it, or share one quoted value; DOCS may come before or after them.

    Raises:
        GridError: for anything else, in one line.
    """
    axes = [part for spec in options for part in spec.split()]
    if extra:
        positional = [docs, *extra]
        folders = [p for p in positional if not GRID_AXIS.match(p)]
        if not folders:
            raise GridError("qagen topics needs a DOCS folder besides the grid axes")
        if len(folders) > 1:
            raise GridError(f"unexpected argument '{folders[1]}' after DOCS '{folders[0]}'; {GRID_USAGE}")
        docs = folders[0]
        axes += [p for p in positional if GRID_AXIS.match(p)]
    parse_grid(axes)  # fail before any work
    return docs, axes
