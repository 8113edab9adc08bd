"""pages: sections -> emulated pages (``pages.jsonl``)."""

from __future__ import annotations

from qagen.runner import Stage, StageContext, StageOutput


def run(ctx: StageContext) -> StageOutput:
    from qagen.ingest import build_pages

    pages = build_pages(ctx.inputs["sections.jsonl"], ctx.config.pages)
    tokens = sorted(p.n_tokens for p in pages)
    median = tokens[len(tokens) // 2] if tokens else 0
    return StageOutput({"pages.jsonl": pages}, counts={"pages": len(pages), "median_tokens": median})


STAGE = Stage(
    name="pages",
    inputs=("sections.jsonl",),
    outputs=("pages.jsonl",),
    config=("pages",),
    run=run,
    description="sections -> emulated pages",
)
