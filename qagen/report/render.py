"""Render :class:`ReportData` to one self-contained HTML page (Jinja2, autoescaped).

Every value from documents reaches the page through Jinja2's autoescaping (``<`` ``>`` ``&``
``"`` ``'`` become entities), in text and in attributes; nothing from the data is marked safe.
The page's own script is inline and allowed by its hash in a Content-Security-Policy that
also forbids every other script, inline event handler, network request and plugin, so markup
that ever slipped through escaping still could not run or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from qagen.config import ReportConfig
from qagen.formatting import format_cost, format_duration
from qagen.report.data import ReportData
from qagen.report.scores import scores_view

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def clean_text(value: Any) -> Any:
    """Drop control characters and lone surrogates (they cannot be written as UTF-8) from strings."""
    from markupsafe import Markup

    if isinstance(value, Markup) or not isinstance(value, str):
        return value  # the page's own CSS and script
    return _CONTROL.sub("", value)


def _asset(name: str) -> str:
    return resources.files("qagen.report").joinpath("assets", name).read_text(encoding="utf-8")


@lru_cache(maxsize=2)
def _environment(strict: bool = False) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: _asset(name)),
        autoescape=True,
        # Lenient by default: an artifact from another qagen version that lacks a field shows a blank.
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
        finalize=clean_text,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        {"int": fmt_int, "num": fmt_num, "pct": fmt_pct, "secs": fmt_secs, "money": fmt_money, "share": fmt_share}
    )
    return env


def fmt_int(value: Any) -> str:
    """1234567 -> '1,234,567'; None -> '—'."""
    return "—" if not _is_num(value) else f"{round(value):,}"


def fmt_num(value: Any, digits: int = 2) -> str:
    return "—" if not _is_num(value) else f"{value:,.{digits}f}"


def fmt_pct(value: Any, digits: int = 1) -> str:
    """A percentage already in 0-100."""
    return "—" if not _is_num(value) else f"{value:.{digits}f}%"


def fmt_share(value: Any, digits: int = 1) -> str:
    """A share in 0-1 shown as a percentage."""
    return "—" if not _is_num(value) else f"{100 * value:.{digits}f}%"


def fmt_secs(value: Any) -> str:
    if not _is_num(value):
        return "—"
    return f"{value:.1f} s" if value < 60 else format_duration(value)


def fmt_money(value: Any) -> str:
    return "—" if not _is_num(value) else format_cost(value)


def _is_num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def csp_hash(script: str) -> str:
    """The CSP source expression that allows exactly this inline script."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


MAX_DOCUMENT_ROWS = 500  # the per-document table; the rest are counted


def report_context(data: ReportData, config: ReportConfig) -> dict[str, Any]:
    """Everything the template shows, computed from the data (pure)."""
    from qagen.report.dataset import bloom_scenario, crosseval_view, funnel_view, type_fold_split
    from qagen.report.projection import section_map
    from qagen.report.samples import item_cards
    from qagen.report.summary import build_info, document_problems, document_rows, kpis, llm_stats, stage_rows
    from qagen.report.topics import PAPER_RANGES, fold_view, topic_quality, topic_rows
    from qagen.report.warnings import warning_rows

    return {
        "title": data.title,
        "info": build_info(data),
        "kpis": kpis(data),
        "docs": document_problems(data, config.max_problems_shown),
        "per_doc": document_rows(data, MAX_DOCUMENT_ROWS),
        "warnings": warning_rows(data),
        "stages": stage_rows(data.manifest),
        "llm": llm_stats(data.manifest),
        "map": section_map(data, config.max_map_points),
        "topics": topic_rows(data),
        "topic_quality": topic_quality(data),
        "folds": fold_view(data),
        "paper": PAPER_RANGES,
        "funnel": funnel_view(data),
        "bloom": bloom_scenario(data),
        "tfs": type_fold_split(data),
        "crosseval": crosseval_view(data),
        "scores": scores_view(data.scores, data.crosseval),
        "samples": item_cards(
            data.items, data.rejected, data.sections, data.topics, config.max_items_shown, config.passage_chars
        ),
    }


def render_report(data: ReportData, config: ReportConfig | None = None, *, strict: bool = False) -> str:
    """The report as one HTML page that needs nothing else: no network, no other file.

    Args:
        data: The build's artifacts (see :func:`~qagen.report.load_report_data`).
        config: The ``[report]`` config section; defaults when None.
        strict: Raise when the page names a value the data lacks (tests of complete builds use it);
            by default a missing value shows as a blank.

    Returns:
        The HTML text (UTF-8).
    """
    from markupsafe import Markup

    script, style = _asset("report.js"), _asset("report.css")
    context = report_context(data, config or ReportConfig())
    template = _environment(strict).get_template("report.html.j2")
    html = template.render(**context, script=Markup(script), style=Markup(style), script_hash=csp_hash(script))
    return html
