"""The build report: one self-contained HTML page (``report.html``) to review a dataset at a glance.

It shows the run summary, a 2-D map of the sections coloured by fold, the topics, the fold
metrics beside the paper's Table 2, the filter funnel, the dataset's make-up and a sample of
accepted and rejected items with their source passages. The page loads nothing from the
network; every text from the documents is escaped.

Example:
    >>> from qagen.report import load_report_data, render_report
    >>> html = render_report(load_report_data("out"))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from qagen.report.data import REPORT_INPUTS, ReportData, load_report_data, report_data_from_inputs
from qagen.report.render import render_report

REPORT_FILE = "report.html"


def build_report(
    inputs: Mapping[str, Any], manifest: Mapping[str, Any] | None = None, config: Any = None, title: str = "qagen build"
) -> str:
    """The report's HTML from artifacts already loaded (what the pipeline's report stage calls).

    Args:
        inputs: Artifact values keyed by file name (``sections.jsonl`` -> list of Section, ...);
            see :data:`REPORT_INPUTS`. Missing ones are shown as not built.
        manifest: ``manifest.json`` content, read only.
        config: The ``[report]`` section (:class:`~qagen.config.ReportConfig`) or None for defaults.
        title: Page title (e.g. the output folder's name).
    """
    return render_report(report_data_from_inputs(inputs, manifest, title=title), config)


def write_report(out_dir: str | Path, config: Any = None) -> Path:
    """Render the report of an output folder into ``OUT/report.html`` (what ``qagen report OUT`` does).

    Raises:
        FileNotFoundError: ``out_dir`` is not a qagen output folder (no manifest.json).
    """
    from qagen.io import write_text

    out = Path(out_dir)
    html = render_report(load_report_data(out), config)
    path = out / REPORT_FILE
    write_text(path, html)
    return path


__all__ = [
    "REPORT_FILE",
    "REPORT_INPUTS",
    "ReportData",
    "build_report",
    "load_report_data",
    "render_report",
    "report_data_from_inputs",
    "write_report",
]
