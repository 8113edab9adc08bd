"""parse: documents -> sections (``documents.jsonl``, ``sections.jsonl``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from qagen.formatting import one_line_name
from qagen.io import sha256_file
from qagen.records import to_dict
from qagen.runner import BuildInputs, Stage, StageContext, StageOutput

if TYPE_CHECKING:
    from qagen.config import Config

logger = logging.getLogger("qagen.build")  # details shown with -v

MAX_SKIPPED_SHOWN = 10


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """Every document by its relative name and content hash, and the files left out with why."""
    from qagen.ingest.discover import relative_name

    docs = [(relative_name(p, build.docs_dir), sha256_file(p)) for p in build.doc_paths]
    skipped = [list(x) for x in build.skipped_files]
    return {"documents": docs, "skipped": skipped} if skipped else docs


def run(ctx: StageContext) -> StageOutput:
    """Parse the documents; say what was skipped or failed and why (every document with ``-v``)."""
    from qagen.ingest import parse_documents  # raises NoUsableDocumentsError when nothing parses

    result = parse_documents(
        list(ctx.build.doc_paths),
        root=ctx.build.docs_dir,
        config=ctx.config.parse,
        cache_dir=ctx.cache_dir / "parse",
        progress=ctx.progress,
        executor=ctx.config.executor,
    )
    skipped = list(ctx.build.skipped_files)
    _log(ctx, result, skipped)
    ok = sum(d.status == "ok" for d in result.documents)
    return StageOutput(
        {"documents.jsonl": result.documents, "sections.jsonl": result.sections},
        counts={
            "documents": len(result.documents),
            "parsed": ok,
            "failed": sum(d.status == "failed" for d in result.documents),
            "problems": len(result.problems),
            "sections": len(result.sections),
            "cached": len(result.reused),
            **({"skipped_files": len(skipped)} if skipped else {}),
        },
        errors=[to_dict(p) for p in result.problems],
        info={"skipped_files": [{"path": rel, "reason": why} for rel, why in skipped]} if skipped else {},
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _log(ctx: StageContext, result: Any, skipped: list[tuple[str, str]]) -> None:
    reused = set(result.reused)
    for doc in result.documents:  # failed documents are warnings below
        if doc.status == "ok":
            cached = " (from the parse cache)" if doc.path in reused else ""
            size = f"{_plural(doc.n_sections, 'section')}, {_plural(doc.n_pages, 'page')}"
            encoding = f", {doc.encoding}" if doc.encoding else ""
            logger.info("parse: %s: ok, %s%s%s", one_line_name(doc.path), size, encoding, cached)
            if doc.encoding and ("replaced" in doc.encoding or "fallback" in doc.encoding):
                ctx.log(
                    f"warning: {one_line_name(doc.path)}: text encoding {doc.encoding}; check the file's characters"
                )
    for problem in result.problems:
        ctx.log(f"warning: {one_line_name(problem.path)}: {problem.reason}: {problem.detail}")
    for k, (rel, why) in enumerate(skipped):
        if k < MAX_SKIPPED_SHOWN:
            ctx.log(f"skipped {one_line_name(rel)}: {why}")
        else:
            logger.info("skipped %s: %s", one_line_name(rel), why)
    if len(skipped) > MAX_SKIPPED_SHOWN:
        ctx.log(f"skipped {len(skipped) - MAX_SKIPPED_SHOWN} more file(s) (-v lists them; manifest.json has them all)")


STAGE = Stage(
    name="parse",
    inputs=(),
    outputs=("documents.jsonl", "sections.jsonl"),
    config=("parse",),
    run=run,
    fingerprint=fingerprint,
    description="documents -> sections",
)
