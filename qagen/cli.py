"""The ``qagen`` command line: parses, calls the Python API, prints.

Exit codes: 0 success, 1 error (bad input, failed build), 2 usage or configuration error,
3 build finished but incomplete (LLM requests stopped or failed; rerun to finish), 130 interrupted
(Ctrl-C; rerun the same command to resume). Heavy libraries are imported inside commands, so
``qagen --help`` answers at once. ``build -q`` prints only errors (third-party progress bars
included); ``build -v`` adds per-document and per-stage details (the ``qagen`` logger at INFO).
"""

from __future__ import annotations

import errno
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from qagen.stages import STAGE_NAMES

EXIT_INCOMPLETE = 3


def _echo(message: Any = "", err: bool = False) -> None:
    """Print a line; control characters in it (from file names, documents, replies) are escaped."""
    from qagen.formatting import printable

    click.echo(printable(str(message)), err=err)


def _fail(message: str, code: int = 1) -> NoReturn:
    _echo(f"error: {message}", err=True)
    sys.exit(code)


def _run_api(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the API and turn its documented errors into one-line messages and exit codes.

    Every :class:`~qagen.errors.QagenError` is one ``error:`` line with its exit code (2 for a
    usage error such as a bad configuration key); a missing or unreadable file, and a full disk,
    are one line too. Anything else is a bug and keeps its traceback.
    """
    import warnings

    from qagen.errors import QagenError

    warnings.showwarning = _show_warning
    try:
        return fn(*args, **kwargs)
    except QagenError as exc:
        _fail(str(exc), exc.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted; rerun the same command to resume (finished stages are kept)", 130)
    except Exception as exc:
        disk = _disk_full_message(exc)
        if disk:
            _fail(disk, 1)
        if isinstance(exc, OSError) and exc.filename and exc.strerror:  # the system refused a path
            _fail(f"cannot use {exc.filename}: {exc.strerror} ({errno.errorcode.get(exc.errno, exc.errno)}); "
                  "check the path or pass another", 1)  # fmt: skip
        if isinstance(exc, (FileNotFoundError, PermissionError)):
            _fail(str(exc), 1)
        raise


_FREE_SPACE = "free some space (or use another output folder)"
_DISK_ERRORS = {
    errno.ENOSPC: ("no space left on device (ENOSPC)", _FREE_SPACE),
    errno.EDQUOT: ("disk quota exceeded (EDQUOT)", _FREE_SPACE),
    errno.EFBIG: ("file larger than this process may write (EFBIG)", "raise the file size limit (ulimit -f)"),
}


def _disk_full_message(exc: BaseException) -> str | None:
    """One line for a write that failed because the disk (or a quota or size limit) is full, else None."""
    import sqlite3

    from qagen.io import sqlite_is_disk_full

    if isinstance(exc, OSError) and exc.errno in _DISK_ERRORS:
        where = f" writing {exc.filename}" if exc.filename else ""
        what, fix = _DISK_ERRORS[exc.errno]
    elif isinstance(exc, sqlite3.DatabaseError) and sqlite_is_disk_full(exc):
        # SQLITE_FULL, or SQLITE_IOERR (what a full disk gives while the WAL file is created)
        what, fix = "no space left on device, or a disk I/O error", _FREE_SPACE
        where = f" writing a cache (SQLite: {exc})"
    else:
        return None
    return f"{what}{where}; {fix} and rerun: finished stages are kept"


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    _echo(f"warning: {message}", err=True)


class _Force(click.ParamType):
    name = "STAGE"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qagen")
def cli() -> None:
    """Build evaluation datasets for RAG chatbots from a folder of documents.

    \b
    Start:   qagen build examples/docs -o out      (offline, no API key)
    Review:  open out/report.html, or: qagen inspect out
    Use:     qagen export out --format ragas -o out/ragas
    Score:   qagen ask out   (a baseline RAG to compare yours with; qagen score)

    Exit codes: 0 ok, 1 error, 2 usage or configuration error, 3 finished but
    incomplete (some LLM requests stopped or failed: rerun to finish them),
    130 interrupted (Ctrl-C: rerun the same command to resume).
    """


@cli.command()
@click.argument("docs", type=click.Path(path_type=Path))
@click.option("-o", "--out", required=True, type=click.Path(path_type=Path), help="Output folder.")
@click.option("-c", "--config", "config_path", type=click.Path(path_type=Path), help="TOML config (see qagen init).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config key; repeatable.")
@click.option("--until", type=click.Choice(STAGE_NAMES), help="Stop after this stage.")
@click.option(
    "--force",
    "force",
    multiple=True,
    is_flag=False,
    flag_value="all",
    type=click.Choice((*STAGE_NAMES, "all")),
    help="Rerun STAGE even if unchanged (repeatable); --force alone reruns all.",
)
@click.option(
    "--llm", "llm", metavar="SPEC", help="LLM backend: extractive | openai:MODEL[@URL] | local | llamacpp:GGUF."
)
@click.option("--dry-run", is_flag=True, help="Estimate LLM requests, tokens and cost; call nothing.")
@click.option(
    "--no-preflight",
    is_flag=True,
    help="Do not check the LLM endpoint and key before parsing (sets llm.preflight=false).",
)
@click.option(
    "--questions",
    type=click.IntRange(min=1),
    metavar="N",
    help="Accepted test questions wanted (both folds); sections are asked in rounds until the filters keep N or "
    "every section was asked (sets generate.questions).",
)
@click.option(
    "--executor",
    metavar="local|ray[:ADDRESS]",
    help="Where documents are parsed and sections embedded: local processes, or Ray tasks (a Ray started for "
    "the build, or the cluster at ADDRESS; sets executor; pip install 'qagen[ray]').",
)
@click.option(
    "--approved-only",
    is_flag=True,
    help="Splits and exports from items approved in review only (qagen review import; sets splits.approved_only).",
)
@click.option("-v", "--verbose", is_flag=True, help="Also show each document's parse and each stage's counts.")
@click.option("-q", "--quiet", is_flag=True, help="Only errors: no progress bars (ours or libraries'), no warnings.")
def build(
    docs: Path,
    out: Path,
    config_path: Path | None,
    overrides: tuple[str, ...],
    until: str | None,
    force: tuple[str, ...],
    llm: str | None,
    dry_run: bool,
    no_preflight: bool,
    questions: int | None,
    executor: str | None,
    approved_only: bool,
    verbose: bool,
    quiet: bool,
) -> None:
    """Build a dataset from the documents in DOCS into OUT (reruns resume)."""
    _configure_output(verbose, quiet)  # before the heavy imports: it sets their environment
    from qagen.commands.build import build as api_build

    sets = list(overrides) + ([f"llm.backend={_toml_str(llm)}"] if llm else [])
    sets += ["splits.approved_only=true"] if approved_only else []
    sets += [f"executor={_toml_str(executor)}"] if executor else []
    sets += [f"generate.questions={questions}"] if questions else []
    sets += ["llm.preflight=false"] if no_preflight else []
    log = (lambda _m: None) if quiet else (lambda m: _echo(m, err=True))
    forced: Any = True if "all" in force else list(force)
    result = _run_api(
        api_build,
        docs,
        out,
        config_path,
        overrides=sets,
        until=until,
        force=forced,
        dry_run=dry_run,
        progress=not quiet,
        log=log,
    )
    if result.estimate is not None:
        if "by_type" in result.estimate:
            from qagen.generate.estimate import format_estimate

            _echo(format_estimate(result.estimate))
        else:
            _echo("dry run: generation would make no requests (the offline extractive generator; nothing to pay)")
        return
    if not quiet:
        from qagen.commands.inspect import build_summary

        _echo(build_summary(result), err=True)
    if result.incomplete:
        for name, why in result.incomplete.items():
            _echo(f"incomplete: {name}: {why}", err=True)
        sys.exit(EXIT_INCOMPLETE)


QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # huggingface_hub and transformers ("Loading weights")
    "TRANSFORMERS_VERBOSITY": "error",
    "TQDM_DISABLE": "1",  # any other library's tqdm bars
}


def _configure_output(verbose: bool, quiet: bool) -> None:
    """``-q``: errors only, third-party bars off (set before they import); ``-v``: INFO of ``qagen`` loggers."""
    import logging
    import os

    if verbose and quiet:
        _fail("-v and -q cannot be used together; pick one", 2)
    root = logging.getLogger("qagen")
    if quiet:
        os.environ.update(QUIET_ENV)
        root.setLevel(logging.ERROR)
        if "transformers" in sys.modules:  # imported already (an API caller's process): switch it off too
            sys.modules["transformers"].utils.logging.disable_progress_bar()
    elif verbose:
        if not any(h.get_name() == "qagen-cli" for h in root.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.set_name("qagen-cli")
            handler.setFormatter(logging.Formatter("%(message)s"))
            root.addHandler(handler)
        root.setLevel(logging.INFO)


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@cli.command()
@click.argument("path", default="qagen.toml", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(path: Path, force: bool) -> None:
    """Write a commented config file with every default (default: ./qagen.toml)."""
    from qagen.config import render_toml
    from qagen.io import write_text

    if path.exists() and not force:
        _fail(f"{path} exists; use --force to overwrite it", 1)
    write_text(path, render_toml())
    _echo(f"wrote {path}; use it with: qagen build DOCS -o OUT --config {path}")


@cli.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def inspect(out: Path, as_json: bool) -> None:
    """Show counts per stage, per item type, per fold and split, and the filter funnel."""
    from qagen.commands.inspect import inspect_dir

    _echo(_run_api(inspect_dir, out, as_json=as_json))


@cli.command(context_settings={"allow_extra_args": True})
@click.argument("docs", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--out",
    default="out",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Output folder (parsed sections and embeddings are reused from it).",
)
@click.option(
    "--sweep",
    "grid",
    multiple=True,
    required=True,
    metavar="KEY=V1,V2,...",
    help="Grid axes, KEY=V1,V2,... each; more axes may follow (KEY=... KEY=...), or repeat --sweep. KEY: "
    "n_components (UMAP or PCA), n_neighbors (UMAP), min_cluster_size and min_samples (HDBSCAN), "
    "n_clusters (k-means). Swept values run as given (no topics.auto_scale).",
)
@click.option("-c", "--config", "config_path", type=click.Path(path_type=Path), help="TOML config.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config key; repeatable.")
@click.pass_context
def topics(
    ctx: click.Context,
    docs: Path,
    out: Path,
    grid: tuple[str, ...],
    config_path: Path | None,
    overrides: tuple[str, ...],
) -> None:
    """Sweep BERTopic's key settings and print the paper's quality table, with a recommendation.

    \b
    Example: qagen topics docs --sweep n_components=5,10,15 min_cluster_size=10,20,30
    Same:    qagen topics docs --sweep n_components=5,10,15 --sweep min_cluster_size=10,20,30
    """
    from qagen.commands.sweep import sweep_cli_args, sweep_folder

    docs_arg, grid_items = _run_api(sweep_cli_args, str(docs), grid, ctx.args)
    _echo(
        _run_api(
            sweep_folder,
            Path(docs_arg),
            out,
            grid_items,
            config_path,
            list(overrides),
            log=lambda m: _echo(m, err=True),
        )
    )


@cli.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", required=True, type=click.Choice(["ragas", "deepeval", "hf", "csv"]), help="Target tool."
)
@click.option("-o", "--dest", required=True, type=click.Path(path_type=Path), help="Folder to write into.")
def export(out: Path, fmt: str, dest: Path) -> None:
    """Write each cross-evaluation iteration of OUT in the field names of ragas, DeepEval, HF datasets or CSV."""
    from qagen.commands.export import export as api_export

    paths = _run_api(api_export, out, fmt, dest)
    _echo(f"wrote {len(paths)} file(s) to {dest}")


@cli.command()
@click.argument("out", type=click.Path(path_type=Path))
def report(out: Path) -> None:
    """Write OUT/report.html from the artifacts in OUT (reruns no stage)."""
    from qagen.report import write_report

    _echo(f"wrote {_run_api(write_report, out)}")


@cli.group()
def review() -> None:
    """Expert review: export items to label, import the verdicts, keep the approved items.

    \b
    1. qagen review export OUT --to review.csv --reviewers ann,bob --overlap 20
    2. each reviewer marks one label per item (spreadsheet, or --to review.html: offline form)
    3. qagen review import OUT review-*.csv
    4. qagen build DOCS -o OUT --approved-only    (splits and exports from approved items)
    """


@review.command("export")
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--to",
    "dest",
    required=True,
    type=click.Path(path_type=Path),
    help="review.csv or review.html (offline form); several reviewers get review-NAME.csv each.",
)
@click.option("--sample", type=click.IntRange(min=1), help="Review N items (default: all).")
@click.option("--per", type=click.Choice(["topic", "type"]), help="Stratify the sample by topic or item type.")
@click.option(
    "--allocation",
    type=click.Choice(["proportional", "equal"]),
    default="proportional",
    show_default=True,
    help="With --per: keep each stratum's share, or take as many from each (e.g. 20 per type; the overall "
    "shares are then not the build's).",
)
@click.option("--reviewers", metavar="NAMES|N", help="Comma-separated reviewer names, or a count (r1..rN); default r1.")
@click.option(
    "--overlap",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Items labelled by several reviewers, for the agreement statistics.",
)
@click.option("--overlap-raters", type=click.IntRange(min=2), default=2, show_default=True, help="Reviewers per item.")
@click.option("--unreviewed", is_flag=True, help="Only items without a verdict yet.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the sample.")
@click.option("--force", is_flag=True, help="Overwrite existing review files.")
def review_export(
    out: Path,
    dest: Path,
    sample: int | None,
    per: str | None,
    allocation: str,
    reviewers: str | None,
    overlap: int,
    overlap_raters: int,
    unreviewed: bool,
    seed: int,
    force: bool,
) -> None:
    """Write the items of OUT for review: a CSV (spreadsheet) or an offline HTML form per reviewer."""
    from qagen.commands.review import export_review, format_export

    result = _run_api(
        export_review,
        out,
        dest,
        sample=sample,
        per=per,
        reviewers=reviewers,
        overlap=overlap,
        overlap_raters=overlap_raters,
        seed=seed,
        unreviewed=unreviewed,
        force=force,
        allocation=allocation,
    )
    _echo(format_export(result, out))


@review.command("import")
@click.argument("out", type=click.Path(path_type=Path))
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--reviewer", help="Reviewer of rows whose reviewer cell is empty.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts and review summary as JSON.")
def review_import(out: Path, files: tuple[Path, ...], reviewer: str | None, as_json: bool) -> None:
    """Check review FILES against OUT's items and store the verdicts (all or nothing); updates OUT/report.html."""
    from qagen.commands.review import format_import, import_review, refresh_report

    result = _run_api(import_review, out, list(files), reviewer=reviewer)
    report = _run_api(refresh_report, out)
    if as_json:
        import json

        payload = {"counts": result.counts, "summary": result.summary, "report": str(report) if report else None}
        _echo(json.dumps(payload, indent=2))
    else:
        _echo(format_import(result, out))
        if report is not None:
            _echo(f"updated {report}")


@cli.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--answers",
    required=True,
    multiple=True,
    type=click.Path(path_type=Path),
    help="Answers JSONL (schemas/answer.schema.json); repeat to compare chatbots on the same questions "
    "(paired differences with 95% intervals, OUT/comparison.json).",
)
@click.option(
    "--judge",
    metavar="SPEC",
    help="MCQ judge: embedding[:EMBEDDER] | openai:MODEL[@URL] | local (default: score.judge). "
    "An LLM judge also decides refusals unless --refusal-judge says otherwise.",
)
@click.option(
    "--refusal-judge",
    metavar="SPEC",
    help="Who decides refusals: auto (an LLM --judge does, else phrases) | phrases | openai:MODEL[@URL] | local "
    "(default: score.refusal_judge).",
)
@click.option(
    "--grader",
    metavar="SPEC",
    help="Grade answered answers 1-5 (correctness, completeness, relevance, faithfulness, context relevance) "
    "and judge false-premise corrections: none | openai:MODEL[@URL] | local (default: score.grader).",
)
@click.option(
    "--index-seconds",
    type=click.FloatRange(min=0, max=1e9),
    help="What indexing the corpora took the chatbot, in seconds (reported per loaded page; score.index_seconds).",
)
@click.option(
    "--index-cost-usd",
    type=click.FloatRange(min=0, max=1e9),
    help="What indexing the corpora cost, in USD (score.index_cost_usd).",
)
@click.option("-c", "--config", "config_path", type=click.Path(path_type=Path), help="TOML config (see qagen init).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config key; repeatable.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Scores file (default: OUT/scores.json).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def score(
    out: Path,
    answers: tuple[Path, ...],
    judge: str | None,
    refusal_judge: str | None,
    grader: str | None,
    index_seconds: float | None,
    index_cost_usd: float | None,
    config_path: Path | None,
    overrides: tuple[str, ...],
    output: Path | None,
    quiet: bool,
) -> None:
    """Score a chatbot's ANSWERS against OUT's cross-evaluation splits (writes OUT/scores.json)."""
    from qagen.commands.score import score_command

    for key, value in (("index_seconds", index_seconds), ("index_cost_usd", index_cost_usd)):
        if value is not None:
            overrides += (f"score.{key}={value}",)

    _echo(
        _run_api(
            score_command,
            out,
            list(answers),
            judge,
            refusal_judge=refusal_judge,
            grader=grader,
            config_path=config_path,
            overrides=list(overrides),
            output=output,
            progress=not quiet,
        )
    )
    failed = _failed_judgements(output if output else Path(out) / "scores.json")
    if failed:
        _echo(
            f"incomplete: {failed} judgement(s) failed and are ungraded or decided by phrases; see the warnings",
            err=True,
        )
        sys.exit(EXIT_INCOMPLETE)


@cli.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--llm", metavar="SPEC", help="Answer with this LLM from the retrieved pages: openai:MODEL[@URL] | local "
              "(default: an extractive reader, offline).")  # fmt: skip
@click.option("--answers", type=click.Path(path_type=Path),
              help="Answers file (default OUT/answers.ask.jsonl, or OUT/answers.ask-MODEL.jsonl with --llm); "
              "a rerun resumes it.")  # fmt: skip
@click.option("-k", "--top-k", "k", type=click.IntRange(min=1, max=100), default=5, show_default=True,
              help="Pages retrieved per question.")  # fmt: skip
@click.option("--threshold", type=click.FloatRange(min=0, max=1), default=0.10, show_default=True,
              help="Decline when the best page's TF-IDF similarity is below this.")  # fmt: skip
@click.option("--no-score", is_flag=True, help="Only write the answers.")
@click.option("-c", "--config", "config_path", type=click.Path(path_type=Path), help="TOML config (see qagen init).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config key; repeatable.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def ask(
    out: Path,
    llm: str | None,
    answers: Path | None,
    k: int,
    threshold: float,
    no_score: bool,
    config_path: Path | None,
    overrides: tuple[str, ...],
    quiet: bool,
) -> None:
    """Answer OUT's questions with a plain baseline RAG (TF-IDF retrieval per iteration; an extractive reader,
    or --llm), then score it: the baseline to compare your own chatbot with (qagen score --answers twice)."""
    from qagen.commands.ask import ask_command

    if quiet:
        _configure_output(False, True)  # the score's embedder loads quietly too
    _echo(_run_api(ask_command, out, llm=llm, answers=answers, k=k, threshold=threshold, score_them=not no_score,
                   config_path=config_path, overrides=list(overrides), progress=not quiet))  # fmt: skip


def _failed_judgements(scores_path: Path) -> int:
    """How many LLM judgements of a scoring run failed (MCQ choices, refusals, grades), from its scores file."""
    try:
        scores = json.loads(Path(scores_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    mcq = (scores.get("overall") or {}).get("mcq") or {}
    refusal = scores.get("refusal") or {}
    counts = [(mcq.get(who) or {}).get("failed") for who in ("judge", "embedding")]
    counts += [refusal.get("llm_failed"), refusal.get("grade_failed")]
    return sum(int(n) for n in counts if isinstance(n, int | float) and not isinstance(n, bool))


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="qagen")


if __name__ == "__main__":  # pragma: no cover
    main()
