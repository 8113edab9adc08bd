"""The stage runner: declared stages, fingerprints, skip-when-unchanged, atomic artifacts.

A stage is data (:class:`Stage`): a name, the artifacts it reads and writes, the config sections
its result depends on, a fingerprint of what else it depends on (the documents, the LLM, the
prompts: read from the typed :class:`BuildInputs`) and a function from loaded inputs to output
values. The runner alone touches the output folder. Each stage's fingerprint hashes its config
sections, its input files, its own fingerprint and the versions of qagen and its dependencies;
a rerun skips a stage whose fingerprint matches ``manifest.json`` and whose recorded outputs are
still on disk unchanged. The recorded outputs are every file the stage wrote: its artifacts, the
files their writers wrote beside them (``splits/``) and the folders the stage declared
(:attr:`Stage.folders`, written from :attr:`StageOutput.folders`), so a deleted or edited file
of any of them reruns the stage. A stage that raises is recorded as ``failed`` (with a one-line
error; ``interrupted`` on Ctrl-C) and runs again on the next build. A stage that returns
:attr:`StageOutput.stop` (a dry run's estimate) ends the build on purpose: nothing is written.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qagen._version import __version__
from qagen.errors import QagenError
from qagen.io import read_json, sha256_file, stable_hash, write_json
from qagen.output import LOCK, MANIFEST, OutputFolder
from qagen.records import SCHEMA_VERSION

if TYPE_CHECKING:
    from qagen.artifacts import Artifact
    from qagen.config import Config

logger = logging.getLogger("qagen.build")

TRACKED_PACKAGES = (
    "numpy",
    "scipy",
    "scikit-learn",
    "pdfplumber",
    "bertopic",
    "umap-learn",
    "hdbscan",
    "sentence-transformers",
    "rouge-score",
    "openai",
    "phonenumbers",
)


class BuildError(QagenError, RuntimeError):
    """A build problem with a one-line message that says what to do next."""


@dataclass(frozen=True)
class BuildInputs:
    """What a build was given besides its config: the stages' typed, read-only view of the call.

    ``doc_paths`` are the files to parse (found once, before any stage runs) and
    ``skipped_files`` the ``(relative path, reason)`` of those that will not be; ``llm`` and
    ``embedder`` are objects or spec strings passed to :func:`qagen.build` (None: the config's);
    ``prompts_dir`` the prompt folder in use; ``out_name`` the output folder's name (the
    report's title).
    """

    docs_dir: Path = Path()
    doc_paths: tuple[Path, ...] = ()
    skipped_files: tuple[tuple[str, str], ...] = ()
    llm: Any = None
    embedder: Any = None
    dry_run: bool = False
    prompts_dir: Path | None = None
    out_name: str = "qagen build"


@dataclass
class StageOutput:
    """What a stage function returns: artifact values by name, plus counts and problems.

    ``incomplete`` says why the stage's work is not finished although its artifacts are
    valid (an LLM run stopped by a budget, requests that failed after their retries): the
    stage is recorded as ``incomplete`` and runs again on the next build, which pays only
    for what is still missing (the request cache holds the rest).

    ``folders`` maps a folder the stage declared (:attr:`Stage.folders`) to a function that
    writes it: the runner calls it on an empty temporary folder beside the artifacts and moves
    the result into place whole, and hashes its files into the stage's recorded outputs. A
    declared folder the stage does not return is removed (a folder of an earlier build would
    not match the new artifacts).

    ``stop`` ends the build on purpose after this stage (a dry run's estimate): the runner
    writes nothing, records nothing and returns it in :attr:`StageReport.stopped`.
    """

    artifacts: dict[str, Any]
    counts: dict[str, Any] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    incomplete: str | None = None
    folders: dict[str, Callable[[Path], None]] = field(default_factory=dict)
    stop: dict[str, Any] | None = None


@dataclass(frozen=True)
class StageContext:
    """Everything a stage function may read: loaded inputs, the config, the build's inputs, the cache folder."""

    inputs: dict[str, Any]
    config: Config
    cache_dir: Path
    build: BuildInputs = field(default_factory=BuildInputs)
    progress: bool = False
    log: Callable[[str], None] = lambda _msg: None
    manifest: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Stage:
    """One pipeline stage, declared as data (keyword fields only)."""

    name: str
    # artifacts read (each must exist) and written, by file name (see qagen.artifacts)
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    # config sections the result depends on ("parse", "llm", ...): hashed into the fingerprint
    config: tuple[str, ...]
    run: Callable[[StageContext], StageOutput]
    # what else the result depends on (documents, LLM, prompts), from the config and the build's inputs
    fingerprint: Callable[[Config, BuildInputs], Any] | None = None
    description: str = ""
    # read when present (absent: not in ctx.inputs); hashed into the fingerprint either way
    optional_inputs: tuple[str, ...] = ()
    # folders the stage may write (StageOutput.folders), relative to the output folder
    folders: tuple[str, ...] = ()


@dataclass
class StageReport:
    name: str
    status: str  # "ran" | "skipped" | "stopped"
    seconds: float
    counts: dict[str, Any]
    errors: list[dict[str, Any]]
    incomplete: str | None = None  # why a stage that ran is not finished (it reruns next time)
    stopped: dict[str, Any] | None = None  # what a stage that ended the build on purpose returned


def dependency_versions() -> dict[str, str]:
    versions = {}
    for pkg in TRACKED_PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "absent"
    return versions


class Runner:
    """Runs declared stages into one output folder, skipping those whose fingerprint is unchanged."""

    def __init__(
        self,
        stages: Sequence[Stage],
        artifacts: dict[str, Artifact],
        out_dir: Path,
        config: Config,
        build: BuildInputs | None = None,
        progress: bool = False,
        log: Callable[[str], None] = lambda _msg: None,
    ) -> None:
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"stage names must be unique; got {names}")
        for stage in stages:
            for art in (*stage.inputs, *stage.optional_inputs, *stage.outputs):
                if art not in artifacts:
                    raise ValueError(f"stage {stage.name!r} names unknown artifact {art!r}")
        self.stages = tuple(stages)
        self.artifacts = artifacts
        self.out_dir = Path(out_dir)
        self.config = config
        self.build = build if build is not None else BuildInputs()
        self.progress = progress
        self.log = log
        self._versions = dependency_versions()

    @property
    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def check_stage(self, name: str | None, option: str) -> None:
        if name is not None and name not in self.stage_names:
            raise BuildError(f"{option} takes a stage name ({', '.join(self.stage_names)}); got {name!r}")

    def run(self, until: str | None = None, force: Sequence[str] | bool = ()) -> list[StageReport]:
        """Run the stages in order up to ``until``; ``force`` is True (all) or stage names."""
        self.check_stage(until, "--until")
        forced = set(self.stage_names) if force is True else set(force or ())
        for name in forced:
            self.check_stage(name, "--force")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        reports = []
        with self._lock():
            self._remove_stale_temp_files()
            manifest = self._load_manifest()
            for stage in self.stages:
                reports.append(self._run_stage(stage, manifest, stage.name in forced))
                if stage.name == until or reports[-1].status == "stopped":
                    break
        return reports

    def _lock(self) -> contextlib.AbstractContextManager[None]:
        def busy(folder: Path) -> BuildError:
            return BuildError(
                f"another qagen build is writing {folder} (lock {folder / LOCK}); "
                "wait for it to finish or use another output folder"
            )

        return OutputFolder(self.out_dir).lock(busy)

    def _remove_stale_temp_files(self) -> None:
        """Delete temp files and folders a killed build left behind (their targets were never replaced).

        Under ``.cache`` (which ``qagen score`` may be writing while a build runs, without the build
        lock) only temp files older than an hour go: no cache entry takes that long to write.
        """
        import shutil

        cutoff = time.time() - STALE_CACHE_TEMP_S
        stale = []
        for path in self.out_dir.rglob(".*.tmp"):
            in_cache = ".cache" in path.relative_to(self.out_dir).parts
            if not in_cache or _mtime(path) < cutoff:
                stale.append(path)
        for tmp in stale:
            if tmp.is_dir() and not tmp.is_symlink():
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.unlink(missing_ok=True)

    def _load_manifest(self) -> dict[str, Any]:
        path = self.out_dir / MANIFEST
        if path.is_file():
            try:
                data = read_json(path)
                if isinstance(data, dict) and data.get("schema_version") == SCHEMA_VERSION:
                    data.setdefault("stages", {})
                    return data
            except (OSError, ValueError):
                self.log(f"warning: {path} is unreadable; rebuilding every stage")
        return {"schema_version": SCHEMA_VERSION, "qagen_version": __version__, "stages": {}}

    def _save_manifest(self, manifest: dict[str, Any]) -> None:
        manifest["qagen_version"] = __version__
        manifest["dependencies"] = self._versions
        manifest["stage_order"] = self.stage_names
        write_json(self.out_dir / MANIFEST, manifest)

    def fingerprint(self, stage: Stage) -> str:
        inputs = {}
        for name in (*stage.inputs, *stage.optional_inputs):
            path = self.out_dir / name
            inputs[name] = sha256_file(path) if path.is_file() else None
        return stable_hash(
            {
                "stage": stage.name,
                "config": {sec: self.config.section(sec) for sec in stage.config},
                "inputs": inputs,
                "extra": stage.fingerprint(self.config, self.build) if stage.fingerprint else None,
                "qagen": __version__,
                "schema": SCHEMA_VERSION,
                "versions": self._versions,
            }
        )

    def _outputs_intact(self, entry: dict[str, Any]) -> bool:
        recorded = entry.get("outputs", {})
        for name, digest in recorded.items():
            path = self.out_dir / name
            if not path.is_file() or sha256_file(path) != digest:
                return False
        return True

    def _run_stage(self, stage: Stage, manifest: dict[str, Any], forced: bool) -> StageReport:
        for name in stage.inputs:
            if not (self.out_dir / name).is_file():
                raise BuildError(f"stage {stage.name!r} needs {name}, which is missing; rerun without --until")
        fp = self.fingerprint(stage)
        entry = manifest["stages"].get(stage.name)
        if (
            not forced
            and entry
            and entry.get("fingerprint") == fp
            and entry.get("status") == "ok"
            and self._outputs_intact(entry)
        ):
            self.log(f"{stage.name}: unchanged, skipped")
            entry["skipped"] = True
            self._save_manifest(manifest)
            return StageReport(stage.name, "skipped", 0.0, entry.get("counts", {}), entry.get("errors", []))
        return self._execute(stage, manifest, fp)

    def _execute(self, stage: Stage, manifest: dict[str, Any], fp: str) -> StageReport:
        self.log(f"{stage.name}: running")
        t0, c0 = time.perf_counter(), time.process_time()
        warned: list[str] = []
        try:
            result, outputs = self._run_and_write(stage, manifest, warned)
        except BaseException as exc:
            self._record_failure(stage, manifest, exc, time.perf_counter() - t0)
            raise
        if result.stop is not None:
            return StageReport(stage.name, "stopped", time.perf_counter() - t0, {}, [], stopped=result.stop)
        seconds = time.perf_counter() - t0
        manifest["stages"][stage.name] = {
            "fingerprint": fp,
            "status": "incomplete" if result.incomplete else "ok",
            **({"incomplete_reason": result.incomplete} if result.incomplete else {}),
            "skipped": False,
            "seconds": round(seconds, 3),
            "cpu_seconds": round(time.process_time() - c0, 3),
            "finished_at": _now(),
            "counts": result.counts,
            "errors": result.errors,
            "outputs": outputs,
            **result.info,
        }
        if result.incomplete:
            warned.append(f"{stage.name} is incomplete: {result.incomplete}")
        if warned:  # every warning the stage printed, for the report's panel and the build summary
            manifest["stages"][stage.name]["warnings_logged"] = warned
        self._save_manifest(manifest)
        counts = ", ".join(f"{k}={v}" for k, v in result.counts.items())
        logger.info("%s: ran in %.2f s%s", stage.name, seconds, f" ({counts})" if counts else "")
        if result.incomplete:
            self.log(f"warning: {stage.name} is incomplete: {result.incomplete}")
        return StageReport(stage.name, "ran", seconds, result.counts, result.errors, result.incomplete)

    def _run_and_write(
        self, stage: Stage, manifest: dict[str, Any], warned: list[str] | None = None
    ) -> tuple[StageOutput, dict[str, str]]:
        """Run the stage function, write its artifacts; return its output and the hash of every file written.

        Each ``warning: ...`` line the stage logs is also appended (without the prefix) to ``warned``.
        """
        warned = [] if warned is None else warned

        def log(message: str) -> None:
            if message.startswith("warning: "):
                warned.append(message.removeprefix("warning: "))
            self.log(message)

        inputs = {name: self.artifacts[name].read(self.out_dir / name) for name in stage.inputs}
        for name in stage.optional_inputs:
            if (self.out_dir / name).is_file():
                inputs[name] = self.artifacts[name].read(self.out_dir / name)
        ctx = StageContext(
            inputs=inputs,
            config=self.config,
            cache_dir=self.out_dir / ".cache",
            build=self.build,
            progress=self.progress,
            log=log,
            manifest=copy.deepcopy(manifest),
        )
        result = stage.run(ctx)
        if result.stop is not None:
            return result, {}
        missing = set(stage.outputs) - set(result.artifacts)
        if missing:
            raise RuntimeError(f"stage {stage.name!r} did not return {sorted(missing)}")
        unknown = set(result.folders) - set(stage.folders)
        if unknown:
            raise RuntimeError(f"stage {stage.name!r} returned undeclared folders {sorted(unknown)}")
        written: list[str] = []
        for name in stage.outputs:
            written.append(name)
            beside = self.artifacts[name].write(self.out_dir / name, result.artifacts[name])
            if isinstance(beside, list | tuple):  # (other return values, such as a line count, say nothing)
                written += beside
        for name in stage.folders:
            written += self._write_folder(name, result.folders.get(name))
        outputs = {}
        for rel in written:
            path = self.out_dir / rel
            if not path.is_file():
                raise RuntimeError(f"stage {stage.name!r} reported {rel} as written, but it is not in {self.out_dir}")
            outputs[Path(rel).as_posix()] = sha256_file(path)
        return result, outputs

    def _write_folder(self, name: str, write: Callable[[Path], None] | None) -> list[str]:
        """Write a stage's folder whole (temporary folder, then renamed), or remove it; return its files.

        The temporary folder is hidden and named ``*.tmp``, so a killed build's is cleaned up
        by the next one; the folder being replaced is moved aside first and deleted after.
        """
        import shutil
        import uuid

        target = self.out_dir / name
        if write is None:
            if target.is_dir():
                shutil.rmtree(target)
            return []
        tmp = self.out_dir / f".{name}.{uuid.uuid4().hex}.tmp"
        old = None
        try:
            tmp.mkdir()  # (mkdtemp would make it private; the umask decides, as for every artifact)
            write(tmp)
            if target.exists():
                old = self.out_dir / f".{name}.{uuid.uuid4().hex}.tmp"
                target.rename(old)
            tmp.rename(target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return sorted(p.relative_to(self.out_dir).as_posix() for p in target.rglob("*") if p.is_file())

    def _record_failure(self, stage: Stage, manifest: dict[str, Any], exc: BaseException, seconds: float) -> None:
        """Record a stage that raised (no fingerprint: it runs again next time); never masks ``exc``."""
        interrupted = isinstance(exc, KeyboardInterrupt)
        manifest["stages"][stage.name] = {
            "status": "interrupted" if interrupted else "failed",
            "error": "interrupted (Ctrl-C)" if interrupted else error_line(exc),
            "skipped": False,
            "seconds": round(seconds, 3),
            "finished_at": _now(),
        }
        try:
            self._save_manifest(manifest)
        except Exception as save_exc:  # e.g. the disk is full: the original error matters more
            logger.debug("manifest not updated after %s failed: %s", stage.name, type(save_exc).__name__)


def logged_warnings(manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """``(stage, message)`` of every warning the stages printed (``warnings_logged``), in stage order.

    The message loses a leading ``"<stage>: "``, which the stage name beside it already says.
    """
    stages = manifest.get("stages") if isinstance(manifest.get("stages"), dict) else {}
    return [
        (name, str(message).removeprefix(f"{name}: "))
        for name, entry in stages.items()
        for message in (entry or {}).get("warnings_logged") or []
    ]


STALE_CACHE_TEMP_S = 3600.0


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return float("inf")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


_SECRET_PATTERNS = (
    re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\bbearer\s+\S+"),
    re.compile(r"(?i)\b(api[_-]?key|token|secret|password|authorization)(\s*[=:]\s*)\S+"),
)
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
MAX_ERROR_CHARS = 300


def error_line(exc: BaseException) -> str:
    """``Type: first line of the message``, shortened, with anything that looks like a credential masked.

    Values of environment variables named ``*KEY``, ``*TOKEN``, ``*SECRET`` or ``*PASSWORD`` are
    masked too, so an API key echoed in an error never reaches the manifest.
    """
    lines = str(exc).strip().splitlines()
    text = lines[0].strip() if lines else ""
    for name, value in os.environ.items():
        if _SECRET_ENV.search(name) and len(value) >= 8:
            text = text.replace(value, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) + m.group(2) + "***") if m.lastindex == 2 else "***", text)
    if len(text) > MAX_ERROR_CHARS:
        text = text[: MAX_ERROR_CHARS - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
