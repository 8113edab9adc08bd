"""Re-rendering a build's report after a command changed what it shows (scores, review verdicts)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from qagen.output import MANIFEST, FolderBusyError, OutputFolder


def rerender_report(out_dir: str | os.PathLike[str], report_config: Any = None) -> Path | None:
    """Write ``OUT/report.html`` again under the folder's lock; None when the folder has no build yet
    (no manifest) or a build holds the lock (it renders its own report when it gets there)."""
    from qagen.report import write_report

    folder = OutputFolder(out_dir)
    if not folder.has(MANIFEST):
        return None
    try:
        with folder.lock():
            return write_report(folder.path, report_config)
    except FolderBusyError:
        return None
