"""report: the self-contained HTML report (``report.html``)."""

from __future__ import annotations

from qagen.report.data import REPORT_INPUTS
from qagen.runner import Stage, StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    from qagen.report import build_report

    html = build_report(ctx.inputs, ctx.manifest, ctx.config.report, title=ctx.build.out_name)
    return StageOutput({"report.html": html}, counts={"bytes": len(html.encode("utf-8"))})


STAGE = Stage(
    name="report",
    inputs=REPORT_INPUTS,
    outputs=("report.html",),
    config=("report",),
    run=run,
    description="self-contained HTML report",
    optional_inputs=("scores.json", "reviews.jsonl"),
)
