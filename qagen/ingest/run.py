"""parse_documents: many files → documents, sections and problems, in parallel, cached."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qagen.config import ParseConfig
from qagen.ingest.cache import ParseCache
from qagen.ingest.detect import format_of_extension
from qagen.ingest.discover import relative_name, sniff
from qagen.ingest.kinds import classify_section, join_letter_spaced
from qagen.ingest.model import ParsedDoc, ParseResult
from qagen.ingest.parallel import Outcome, run_isolated
from qagen.ingest.worker import hard_limit, parse_file
from qagen.io import sha256_file
from qagen.records import Document, ParseProblem, Section

_EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # sha256 of b""


@dataclass
class _Input:
    path: Path
    rel: str
    sha: str = ""
    outcome: dict[str, Any] | None = None


def parse_documents(
    paths: list[Path],
    root: Path,
    config: ParseConfig,
    cache_dir: Path | None = None,
    progress: bool = False,
    on_document: Callable[[str], None] | None = None,
    executor: str = "local",
) -> ParseResult:
    """Parse documents into sections, in worker processes, with a per-document time limit.

    Args:
        paths: Files to parse (see :func:`discover`); the output follows this order.
        root: Folder that ``Document.path``/``Section.doc_path`` are made relative to.
        config: The ``[parse]`` config section.
        cache_dir: Where parses are cached by file content hash; None disables the cache.
        progress: Show a progress bar on stderr.
        on_document: Called with a document's relative path as soon as its parse is finished
            and cached (documents served from the cache are not parsed, so not passed).
        executor: ``local`` (a process pool), or ``ray`` / ``ray:ADDRESS`` (Ray tasks; the same results).

    Returns:
        A :class:`ParseResult`. A file that cannot be used is a ``failed`` Document and a
        ParseProblem; a file with the same content as an earlier one is only a problem.
        Each successful parse is cached as soon as it arrives, so an interrupted run keeps
        the documents it finished and a rerun parses only the others.

    Raises:
        IngestError: When no document could be used (``.result`` holds the ParseResult).
    """
    from qagen.ingest.errors import IngestError, NoUsableDocumentsError

    if not paths:
        raise IngestError("no documents to parse: the list of paths is empty")
    inputs = [_Input(Path(p), relative_name(Path(p), Path(root))) for p in paths]
    problems: dict[int, ParseProblem] = {}
    first_of: dict[str, str] = {}
    cache = ParseCache(cache_dir, config) if cache_dir is not None else None
    todo: list[int] = []
    for i, item in enumerate(inputs):
        item.sha = sha256_file(item.path)
        if item.sha in first_of:
            problems[i] = (
                ParseProblem(item.rel, "empty", "the file is empty (0 bytes)")  # not "a copy of" another empty file
                if item.sha == _EMPTY_SHA
                else ParseProblem(item.rel, "duplicate", f"same content as {first_of[item.sha]}; skipped")
            )
            continue
        first_of[item.sha] = item.rel
        cached = cache.get(item.sha) if cache is not None else None
        if cached is not None:
            item.outcome = {"ok": True, "doc": cached, "page_errors": [], "cached": True}
        else:
            todo.append(i)
    _run(inputs, todo, config, progress, cache, on_document, executor)
    result = _assemble(inputs, problems)
    if not any(d.status == "ok" for d in result.documents):
        raise NoUsableDocumentsError(_no_usable_message(result), result)
    return result


def _run(
    inputs: list[_Input],
    todo: list[int],
    config: ParseConfig,
    progress: bool,
    cache: ParseCache | None,
    on_document: Callable[[str], None] | None,
    executor: str,
) -> None:
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="parse", unit="doc", mininterval=0.5)

    def finished(k: int, outcome: Outcome) -> None:
        item = inputs[todo[k]]
        item.outcome = _as_result(outcome)
        if cache is not None and item.outcome["ok"] and not item.outcome["page_errors"]:
            cache.put(item.sha, item.outcome["doc"])  # a parse with unreadable pages is retried next time
        if bar is not None:
            bar.update()
        if on_document is not None:
            on_document(item.rel)

    data = config.model_dump(mode="json")
    tasks = [(str(inputs[i].path), data) for i in todo]
    try:
        if executor == "local":
            run_isolated(parse_file, tasks, config.workers, hard_limit(config), finished)
        else:  # the same tasks as Ray tasks, on a cluster or a Ray started for the build
            from qagen.ingest.ray_executor import parse_address, run_on_ray

            status = (lambda text: bar.set_postfix_str(f"ray: {text}", refresh=False)) if bar is not None else None
            run_on_ray(parse_file, tasks, parse_address(executor), hard_limit(config), finished, on_status=status)
    finally:
        if bar is not None:
            bar.close()


def _as_result(outcome: Outcome) -> dict[str, Any]:
    if outcome.status == "ok":
        return dict(outcome.value)
    reason = "timeout" if outcome.status == "timeout" else "parser-error"
    return {"ok": False, "reason": reason, "detail": outcome.detail}


def _assemble(inputs: list[_Input], problems: dict[int, ParseProblem]) -> ParseResult:
    documents: list[Document] = []
    sections: list[Section] = []
    extra: list[ParseProblem] = []
    reused: list[str] = []
    for i, item in enumerate(inputs):
        if i in problems:
            extra.append(problems[i])
            continue
        out = item.outcome or {"ok": False, "reason": "parser-error", "detail": "no result"}
        doc_id = item.sha[:16]
        fmt = _claimed_format(item.path)
        if not out["ok"]:
            detail = f"{out['reason']}: {out['detail']}"
            documents.append(Document(doc_id, item.rel, item.sha, fmt, "failed", error=detail))
            extra.append(ParseProblem(item.rel, out["reason"], out["detail"]))
            continue
        parsed: ParsedDoc = out["doc"]
        if out.get("cached"):
            reused.append(item.rel)
        if out["page_errors"]:
            pages = ", ".join(str(n) for n, _ in out["page_errors"][:10])
            kinds = ", ".join(sorted({e for _, e in out["page_errors"]}))
            extra.append(ParseProblem(item.rel, "pages-skipped", f"page(s) {pages} could not be read ({kinds})"))
        doc_sections = [_section(doc_id, item.rel, k, s) for k, s in enumerate(parsed.sections)]
        sections += doc_sections
        documents.append(
            Document(
                doc_id,
                item.rel,
                item.sha,
                parsed.format,
                "ok",
                parsed.n_pages,
                len(doc_sections),
                parsed.title,
                encoding=parsed.encoding,
            )
        )
    return ParseResult(documents, sections, extra, tuple(reused))


def _claimed_format(path: Path) -> str:
    """The format a file's extension (else its first bytes) claims, for a document that failed."""
    fmt = format_of_extension(path)
    if fmt is None:
        try:
            with open(path, "rb") as fh:
                fmt = sniff(fh.read(4096))
        except OSError:
            fmt = None
    return fmt or path.suffix.lstrip(".").lower() or "unknown"


def _section(doc_id: str, rel: str, order: int, s: dict[str, Any]) -> Section:
    heading = join_letter_spaced(str(s["heading"]))
    text = join_letter_spaced(str(s["text"]))
    return Section(
        id=f"{doc_id}-s{order:04d}",
        doc_id=doc_id,
        doc_path=rel,
        heading=heading,
        text=text,
        page_start=int(s["page_start"]),
        page_end=int(s["page_end"]),
        order=order,
        char_start=int(s["char_start"]),
        char_end=int(s["char_end"]),
        kind=s["kind"] if s.get("kind") else classify_section(heading, text),
    )


def _no_usable_message(result: ParseResult) -> str:
    reasons = Counter(p.reason for p in result.problems)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
    first = result.problems[0] if result.problems else None
    example = f" (first: {first.path}: {first.detail})" if first else ""
    return (
        f"none of the {len(result.documents) + reasons.get('duplicate', 0)} document(s) could be used: "
        f"{summary}{example}; fix or replace them, or add other documents"
    )
