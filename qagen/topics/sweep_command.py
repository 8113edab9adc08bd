"""``qagen topics DOCS --sweep ...``: reuse (or build) sections and embeddings, then sweep."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from qagen.io import read_json, read_jsonl, read_npy, write_json


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
    clusterer does not read, raises :class:`~qagen.topics.cli_support.GridError` before any work.
    """
    from qagen.config import load_config
    from qagen.pipeline import build
    from qagen.records import Section, section_text
    from qagen.topics.cli_support import checked_grid, parse_grid, run_sweep_command

    parsed_grid = parse_grid(grid)  # a bad grid fails before any work
    config = load_config(config_path, list(overrides))
    parsed_grid = checked_grid(parsed_grid, config.topics)
    build(docs, out, config, until="embed", log=log)
    sections = read_jsonl(Path(out) / "sections.jsonl", Section)
    ids = read_json(Path(out) / "embedding_ids.json")["ids"]
    if ids != [s.id for s in sections]:
        raise RuntimeError("embeddings do not match sections; rerun qagen build with --force embed")
    report = run_sweep_command(
        [section_text(s) for s in sections],
        read_npy(Path(out) / "embeddings.npy"),
        [s.doc_id for s in sections],
        parsed_grid,
        config.topics,
        config.seed,
        progress=log,
    )
    write_json(Path(out) / "topics_sweep.json", report.to_json())
    return report.text + f"\n(saved to {Path(out) / 'topics_sweep.json'})"
