"""Fault suite (issue 10): bad files, SIGKILL in every stage, LLM faults, a full disk; nothing lost.

1. A corpus of bad files (tests/support/bad_files.py) with three good example documents goes through a
   whole ``qagen build``: each bad file is reported once, with a one-line reason; good ones
   give items; the report renders.
2. ``python -m qagen.cli build`` against an out-of-process LLM server is SIGKILLed at a
   seeded-random moment in every stage, one stage after the other on the same folder; the
   final rerun gives artifacts byte-identical to an uninterrupted build, leaves no temp file,
   and re-sends no answered request beyond those in flight at the kill.
3. The LLM server answers with each kind of error at 10, 20 and 30%: the items equal those of
   a fault-free run and every fault is recovered; a request that never succeeds is recorded
   in generation_failures.jsonl with its reason, never dropped.
4. The output folder's disk fills up (a small tmpfs, or RLIMIT_FSIZE where mounting is not
   allowed): one clear error line, earlier artifacts intact, and a rerun resumes.
5. ``test_zz_fault_report`` prints what was survived and writes it as JSON (path printed).

Randomness is seeded; kill moments are measured in stage time (or answered requests) and the
stage a kill actually landed in is read back from the manifest, never assumed.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from qagen import build
from qagen.ingest import IngestError
from tests.support.bad_files import ARABIC, EMOJI, HEBREW, PERSIAN, huge_pdf, write_bad_corpus
from tests.support.grounded import grounded_responder
from tests.support.llm_server import (
    FakeOpenAIServer,
    ServerProcess,
    invalid_json,
    rate_limit,
    reset,
    server_error,
    truncated,
    wrong_schema,
)

pytest.importorskip("reportlab")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
STAGES = ("parse", "pages", "embed", "topics", "folds", "generate", "filter", "splits", "report")
FAST = ["embed.backend=tfidf", "topics.reducer=pca", "topics.clusterer=kmeans", "topics.n_clusters=6"]
GOOD_DOCS = ("cardiology_clinic.pdf", "it_helpdesk.pdf", "leave_policy.pdf")
LLM_DOCS = tuple(sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in {".pdf", ".md", ".txt"}))
LLM_FAST = [
    *FAST,
    "generate.long_form_per_section=2",
    "llm.backoff_base_s=0.01",
    "llm.backoff_max_s=0.05",
]
NOT_ARTIFACTS = {"manifest.json", ".qagen.lock", "report.html"}  # the manifest and report hold timings
KILL_CONCURRENCY = 2
KILL_LATENCY = 0.1
MAX_KILL_DELAY = 3.0  # s into a stage (its in-process duration bounds it too)
RUNNING = re.compile(r"^(\w+): running$")


# --------------------------------------------------------------------------- shared helpers


def artifact_bytes(out: Path) -> dict[str, bytes]:
    """Every artifact file under ``out`` (not the manifest, the lock, the report or the caches)."""
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out)
        if path.is_file() and rel.parts[0] != ".cache" and rel.name not in NOT_ARTIFACTS:
            files[rel.as_posix()] = path.read_bytes()
    return files


def temp_files(out: Path, caches: bool = False) -> list[str]:
    """Temp files of atomic writes under ``out`` (outside ``.cache`` unless ``caches``)."""
    found = [p.relative_to(out) for p in out.rglob(".*.tmp")]
    return sorted(str(p) for p in found if caches or ".cache" not in p.parts)


def assert_no_half_written(out: Path) -> None:
    """Every artifact that exists is whole: each JSONL line and each JSON file parses."""
    for path in out.rglob("*.jsonl"):
        if ".cache" not in path.relative_to(out).parts and not path.name.startswith("."):
            for line in path.read_text(encoding="utf-8").splitlines():
                json.loads(line)
    for path in out.rglob("*.json"):
        if ".cache" not in path.relative_to(out).parts and not path.name.startswith("."):
            json.loads(path.read_text(encoding="utf-8"))


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def manifest(out: Path) -> dict[str, Any]:
    path = out / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"stages": {}}


def qa(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return sorted((r["type"], r["question"], r["answer"]) for r in rows)


def copy_docs(dest: Path, names: tuple[str, ...]) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(EXAMPLES / name, dest / name)
    return dest


def cli_args(docs: Path, out: Path, overrides: list[str], *extra: str) -> list[str]:
    args = [sys.executable, "-m", "qagen.cli", "build", str(docs), "-o", str(out)]
    for item in overrides:
        args += ["--set", item]
    return args + list(extra)


def llm_overrides(url: str, *extra: str) -> list[str]:
    return [*LLM_FAST, f'llm.backend="openai:fake-model@{url}"', *extra]


@pytest.fixture(scope="module")
def tally() -> dict[str, Any]:
    """What the module's tests actually did, for the fault report."""
    return {"bad_inputs": [], "kills": [], "llm_faults": [], "disk_full": [], "items_lost": 0, "requests_served": 0}


# --------------------------------------------------------------------------- 1. bad files


@pytest.fixture(scope="module")
def bad_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    docs = tmp_path_factory.mktemp("bad-docs")
    files = write_bad_corpus(docs)
    copy_docs(docs, GOOD_DOCS)
    out = tmp_path_factory.mktemp("bad-build") / "out"
    log: list[str] = []
    result = build(docs, out, overrides=[*FAST, "folds.samples_total=60"], log=log.append)
    return {"docs": docs, "files": files, "out": out, "log": log, "result": result}


def test_bad_files_are_each_reported_once_with_a_one_line_reason(bad_build, tally):
    out, files = bad_build["out"], bad_build["files"]
    problems = manifest(out)["stages"]["parse"]["errors"]
    by_path = {p["path"]: p for p in problems}
    assert len(by_path) == len(problems), "a file reported twice"
    hints = {
        "encrypted": "password",
        "truncated": "truncated",
        "empty": "0 bytes",
        "no-text": "OCR",
        "too-many-pages": "parse.max_pages",
        "not-pdf": "not a PDF",
    }
    documents = {d["path"]: d for d in jsonl(out / "documents.jsonl")}
    for f in files:
        if f.expect == "ok":
            assert f.name not in by_path, by_path.get(f.name)
            assert documents[f.name]["status"] == "ok"
            reported = "ok"
        else:
            problem = by_path[f.name]
            assert problem["reason"] == f.expect, problem
            detail = problem["detail"]
            assert detail and "\n" not in detail and len(detail) < 300, detail
            assert hints[f.expect] in detail, detail
            # the build log says it once, on one line
            assert [m for m in bad_build["log"] if m.startswith(f"warning: {f.name}:")] == [
                f"warning: {f.name}: {f.expect}: {detail}"
            ]
            reported = f"{problem['reason']}: {detail}"
        tally["bad_inputs"].append({"file": f.name, "what": f.what, "expected": f.expect, "reported": reported})
    assert "PNG" in by_path["image.pdf"]["detail"] and "ZIP" in by_path["archive.pdf"]["detail"]
    assert set(by_path) == {f.name for f in files if f.expect != "ok"}  # nothing else went wrong


def test_good_and_odd_documents_give_items(bad_build):
    out = bad_build["out"]
    assert [r.name for r in bad_build["result"].stages] == list(STAGES)
    items = jsonl(out / "items.jsonl")
    from_docs = Counter(it["source"]["doc_path"] for it in items)
    assert sum(from_docs[name] for name in GOOD_DOCS) > 0, from_docs  # (folds may drop a document's pages)
    documents = {d["path"]: d for d in jsonl(out / "documents.jsonl")}
    assert all(documents[name]["status"] == "ok" and documents[name]["n_sections"] > 0 for name in GOOD_DOCS)
    sections = jsonl(out / "sections.jsonl")
    texts: dict[str, str] = defaultdict(str)
    for s in sections:
        texts[s["doc_path"]] += f"{s['heading']}\n{s['text']}\n"
    md = texts["unicode-rtl.md"]
    assert ARABIC in md and HEBREW in md
    assert PERSIAN in md  # its zero-width non-joiner is part of the word
    assert EMOJI.split(" — ")[1].split(",")[0] in md  # a ZWJ emoji sequence stays whole
    if "unicode-rtl.pdf" in texts:  # drawn only where a font with Hebrew glyphs is installed
        assert HEBREW in texts["unicode-rtl.pdf"]
    # a 10,000-character heading: kept whole from Markdown, body text from a PDF line; no crash either way
    assert "Visitors may park in garage B" in texts["long-heading.md"]
    assert "garage B is open" in texts["long-heading.pdf"]
    too_long = [r for r in jsonl(out / "rejected.jsonl") if len(r["question"]) > 500]
    assert all(r["filter"] == "validity" for r in too_long)  # an overlong question is rejected, not kept
    assert all(len(it["question"]) <= 500 for it in items)


def test_report_renders_with_every_problem(bad_build):
    html = (bad_build["out"] / "report.html").read_text(encoding="utf-8")
    assert html.rstrip().endswith("</html>")
    for f in bad_build["files"]:
        if f.expect != "ok":
            assert f">{f.name}<" in html, f.name


def test_a_huge_pdf_gets_time_per_page_and_a_timeout_is_one_clear_line(tmp_path):
    """With max_pages raised, 2,500 pages are read to the end in the default time limit, which grows
    per page; with no time per page and a tight limit the parse is stopped, with the limit named."""
    docs = tmp_path / "docs"
    docs.mkdir()
    huge_pdf(docs / "huge.pdf")
    (docs / "note.txt").write_text("Visiting hours\n\nThe ward is open to visitors from 10:00 to 20:00 daily.\n")
    settings = [*FAST, "parse.max_pages=3000", "parse.workers=2"]
    build(docs, tmp_path / "roomy", overrides=settings, until="parse")
    errors = manifest(tmp_path / "roomy")["stages"]["parse"]["errors"]
    assert [(e["path"], e["reason"]) for e in errors] == [("huge.pdf", "no-text")]  # read to the end
    (docs / "note.txt").unlink()
    # pdfplumber's parse takes about a second (PDFium's a tenth of that): a limit 20 times shorter
    # is missed by no scheduler, even on a loaded machine; the limit is the worker's, whatever the engine
    tight = [*settings, "parse.timeout_s=0.05", "parse.timeout_per_page_s=0", "parse.engine=pdfplumber"]
    with pytest.raises(IngestError, match="1 timeout") as info:
        build(docs, tmp_path / "tight", overrides=tight, until="parse")
    message = str(info.value)
    assert "\n" not in message and "huge.pdf: parsing took longer than 0.05 s (parse.timeout_s" in message, message


def test_a_folder_of_only_bad_files_is_one_clear_error(tmp_path):
    docs = tmp_path / "docs"
    write_bad_corpus(docs, huge_pages=3)
    for name in ("owner-locked.pdf", "unicode-rtl.md", "unicode-rtl.pdf", "long-heading.md", "long-heading.pdf"):
        (docs / name).unlink(missing_ok=True)
    with pytest.raises(IngestError, match=r"none of the \d+ document\(s\) could be used") as info:
        build(docs, tmp_path / "out", overrides=FAST)
    assert "\n" not in str(info.value) and "encrypted" in str(info.value)


# --------------------------------------------------------------------------- 2. SIGKILL in every stage


class CliBuild:
    """``python -m qagen.cli build`` in its own process group; stderr lines are read as they come."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.started: dict[str, float] = {}
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.strip()
            with self._cond:
                if line:
                    self.lines.append(line)
                match = RUNNING.match(line)
                if match:
                    self.started[match.group(1)] = time.monotonic()
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_running(self, stage: str, timeout: float = 300) -> float | None:
        """When the build logged ``STAGE: running`` (monotonic clock), or None if it ended first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while stage not in self.started and self._reader.is_alive() and time.monotonic() < deadline:
                self._cond.wait(0.05)
            return self.started.get(stage)

    def kill(self) -> None:
        """SIGKILL the build and its parse workers (the whole process group)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self._reader.join(10)

    def tail(self) -> str:
        return "\n".join(self.lines[-15:])


@pytest.fixture(scope="module")
def llm_server():
    # out of process, so a killed build cannot take the request log with it
    with ServerProcess(latency=KILL_LATENCY, responder="grounded") as srv:
        yield srv


@pytest.fixture(scope="module")
def llm_baseline(tmp_path_factory: pytest.TempPathFactory, llm_server: ServerProcess) -> dict[str, Any]:
    """An uninterrupted LLM build (no kill, no fault): what the kill and fault tests must reproduce."""
    docs = copy_docs(tmp_path_factory.mktemp("llm-docs"), LLM_DOCS)
    overrides = llm_overrides(llm_server.url, "folds.samples_total=24", f"llm.max_concurrency={KILL_CONCURRENCY}")
    out = tmp_path_factory.mktemp("llm-baseline") / "out"
    llm_server.reset_log()
    build(docs, out, overrides=overrides)
    texts = llm_server.stats()["user_texts"]
    llm_server.reset_log()
    return {
        "docs": docs,
        "out": out,
        "overrides": overrides,
        "artifacts": artifact_bytes(out),
        "texts": texts,
        "seconds": {name: entry["seconds"] for name, entry in manifest(out)["stages"].items()},
        "planned": manifest(out)["stages"]["generate"]["llm"]["requests"],
        "candidates": qa(jsonl(out / "candidates.jsonl")),
        "items": qa(jsonl(out / "items.jsonl")),
        "rows": [(c["type"], c["question"], c["answer"], _request_key(c)) for c in jsonl(out / "candidates.jsonl")],
        # a question asked twice for one source is kept once: which copy depends on which requests succeed
        "repeats": qa([r for r in jsonl(out / "generation_failures.jsonl") if r["filter"] == "exact_repeat"]),
    }


def _request_key(row: dict[str, Any]) -> tuple:
    # the level asked: an item carries the labels its evidence and the label judge show (the asked ones in
    # labels_asked when they differ), a failure the ones asked; the scenario is left out
    asked = (row.get("labels_asked") or f"{row.get('bloom')}/").split("/")[0] or None
    return (row["type"], tuple(row["source"]["section_ids"]), None if asked == "None" else asked, row.get("entity"))


def _kill_in(run: CliBuild, stage: str, started: float, delay: float, srv: ServerProcess, answered: int) -> dict:
    """Kill ``run`` ``delay`` s into ``stage`` (generate: once ``answered`` requests got a reply)."""
    if stage == "generate":
        while run.proc.poll() is None and srv.stats()["statuses"].get("200", 0) < answered:
            time.sleep(0.03)
        when = {"answered_before_kill": srv.stats()["statuses"].get("200", 0)}
    else:
        time.sleep(max(0.0, started + delay - time.monotonic()))
        when = {"delay_s": round(delay, 4)}
    run.kill()
    return when


def test_sigkill_in_every_stage_then_rerun_gives_identical_artifacts(llm_baseline, llm_server, tmp_path, tally):
    base, srv = llm_baseline, llm_server
    rng = random.Random(1010)
    out = tmp_path / "out"
    args = cli_args(base["docs"], out, base["overrides"])
    srv.reset_log()
    sent_before_generate_kill: list[str] | None = None
    for stage in STAGES:
        landed = False
        for attempt in range(4):
            before = manifest(out)["stages"].get(stage)
            # a stage that finished before the kill came is rerun with --force for the next try
            run = CliBuild(args + (["--force", stage] if before else []))
            started = run.wait_running(stage)
            assert started is not None, f"{stage} never started:\n{run.tail()}"
            delay = rng.uniform(0.0, min(MAX_KILL_DELAY, 0.8 * base["seconds"][stage])) * 0.25**attempt
            answered = rng.randint(3, len(base["texts"]) - 8)
            when = _kill_in(run, stage, started, delay, srv, answered)
            landed = manifest(out)["stages"].get(stage) == before  # the stage did not finish
            tally["kills"].append(
                {"stage": stage, "attempt": attempt, **when, "landed": landed, "temp_files_left": temp_files(out, True)}
            )
            assert_no_half_written(out)
            if landed:
                if stage == "generate":
                    sent_before_generate_kill = srv.stats()["user_texts"]
                break
        assert landed, f"no kill landed inside {stage}: {tally['kills'][-4:]}"
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    tally["items_lost"] += len(Counter(base["items"]) - Counter(qa(jsonl(out / "items.jsonl"))))
    assert artifact_bytes(out) == base["artifacts"]
    assert temp_files(out) == []
    assert all(e["status"] == "ok" for e in manifest(out)["stages"].values())
    # no paid request twice, except those in flight when the generate kill came
    assert sent_before_generate_kill
    sent = srv.stats()["user_texts"]
    after = Counter(sent[len(sent_before_generate_kill) :])
    repeats = sum((Counter(sent_before_generate_kill) & after).values())
    assert repeats <= KILL_CONCURRENCY
    assert not Counter(base["texts"]) - Counter(sent), "a request of the baseline was never made"
    assert sum((Counter(sent) - Counter(base["texts"])).values()) == repeats
    tally["kill_requests"] = {
        "baseline": len(base["texts"]),
        "sent_across_kills": len(sent),
        "sent_before_generate_kill": len(sent_before_generate_kill),
        "repeated": repeats,
        "max_concurrency": KILL_CONCURRENCY,
    }
    tally["requests_served"] += len(sent) + len(base["texts"])


# --------------------------------------------------------------------------- 3. LLM faults


FAULTS = {
    "429 Retry-After": rate_limit(0.05),
    "500": server_error(500),
    "503": server_error(503),
    "connection reset": reset(),
    "malformed JSON": invalid_json(),
    "wrong schema": wrong_schema(),
    "truncated (length)": truncated(),
}
MAX_STREAK = 2  # faults of one request in a row; within llm.max_retries (6) and llm.repair_attempts


def fault_overrides(url: str, *extra: str) -> list[str]:
    return llm_overrides(url, "folds.samples_total=24", f"llm.repair_attempts={MAX_STREAK}", *extra)


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.3])
@pytest.mark.parametrize("kind", list(FAULTS))
def test_each_llm_fault_at_each_rate_loses_nothing(llm_baseline, tmp_path, tally, kind, rate):
    ref = llm_baseline
    out = tmp_path / "out"
    shutil.copytree(ref["out"], out)
    seed = 7 + list(FAULTS).index(kind)
    with FakeOpenAIServer(
        grounded_responder, fault_rate=rate, faults=[FAULTS[kind]], seed=seed, max_consecutive_faults=MAX_STREAK
    ) as server:
        result = build(ref["docs"], out, overrides=fault_overrides(server.url), until="filter")
        sent = server.count()
    assert result.ran[0] == "generate"
    entry = manifest(out)["stages"]["generate"]
    llm = entry["llm"]
    assert entry["counts"]["failed_requests"] == 0 and llm["failures"] == 0 and llm["not_run"] == 0
    assert llm["cache_hits"] == 0  # the copied cache holds the baseline server's replies, not this one's
    injected = sent - len(ref["texts"])
    recovered = llm["retries"] + llm["repairs"]
    assert injected > 0, "no fault was injected"
    assert recovered == injected  # every fault cost exactly one more request, and was survived
    got = qa(jsonl(out / "items.jsonl"))
    lost = len(Counter(ref["items"]) - Counter(got))
    tally["items_lost"] += lost
    tally["requests_served"] += sent
    tally["llm_faults"].append(
        {"kind": kind, "rate": rate, "requests": sent, "injected": injected, "recovered": recovered, "lost": lost}
    )
    assert qa(jsonl(out / "candidates.jsonl")) == ref["candidates"]
    assert got == ref["items"]


def test_a_request_that_never_succeeds_is_recorded_not_dropped(llm_baseline, tmp_path, tally):
    ref = llm_baseline
    out = tmp_path / "out"
    shutil.copytree(ref["out"], out)
    # no cap on a request's streak of faults, one retry and one repair: some requests die
    with FakeOpenAIServer(grounded_responder, fault_rate=0.4, faults=list(FAULTS.values()), seed=11) as server:
        settings = fault_overrides(server.url, "llm.max_retries=1", "llm.repair_attempts=1")
        build(ref["docs"], out, overrides=settings, until="filter")
        logical = {json.dumps(r.body["messages"][:2], sort_keys=True) for r in server.chat_requests}
        sent = server.count()
    entry = manifest(out)["stages"]["generate"]
    llm = entry["llm"]
    failures = [f for f in jsonl(out / "generation_failures.jsonl") if f["filter"] == "generation"]
    assert failures and len(failures) == entry["counts"]["failed_requests"] == llm["failures"]
    assert llm["succeeded"] + llm["failures"] == llm["requests"] == ref["planned"] == len(logical)
    assert llm["not_run"] == 0 and llm["cache_hits"] == 0
    for f in failures:
        assert f["reason"] and "\n" not in f["reason"] and "SECRET" not in f["reason"], f["reason"]
    rejected_ids = {r["id"] for r in jsonl(out / "rejected.jsonl")}
    assert {f["id"] for f in failures} <= rejected_ids
    # every fault-free candidate is here, or its request is a recorded failure
    failed_keys = {_request_key(f) for f in failures}
    candidates = jsonl(out / "candidates.jsonl")
    here = set(qa(candidates))
    missing = [c for c in ref["rows"] if (c[0], c[1], c[2]) not in here]
    unexplained = [c for c in missing if c[3] not in failed_keys]
    tally["items_lost"] += len(unexplained)  # lost without a recorded failure: silently dropped
    assert not unexplained, unexplained[:3]
    assert here <= set(ref["candidates"]) | set(ref["repeats"])  # and nothing was made up
    tally["dead_requests"] = {
        "requests": llm["requests"],
        "succeeded": llm["succeeded"],
        "failed_recorded": len(failures),
        "candidates_missing_with_recorded_failure": len(missing),
        "reasons": sorted(f["reason"] for f in failures),
        "sent": sent,
    }
    tally["requests_served"] += sent


# --------------------------------------------------------------------------- 4. disk full


DISK_FREE_KB = 24  # room for a manifest (< 8 kB), not for the candidates of the generate stage (~60 kB)


def _can_mount(probe: Path) -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    probe.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True)
    if done.returncode != 0:
        return False
    subprocess.run(["umount", str(probe)], check=True)
    return True


class SmallDisk:
    """An output disk that fills up: a small tmpfs where mounting is allowed (root), else a file
    size limit (RLIMIT_FSIZE, so writes fail with EFBIG) on the CLI processes run while full."""

    def __init__(self, tmp_path: Path, size_mb: int = 16) -> None:
        forced = os.environ.get("QAGEN_FAULTS_DISK")  # tmpfs | rlimit, to try the fallback on purpose
        self.method = forced or ("tmpfs" if _can_mount(tmp_path / "probe") else "rlimit")
        self.root = tmp_path / "disk"
        self.size_mb = size_mb
        self.limit: int | None = None

    def __enter__(self) -> SmallDisk:
        self.root.mkdir(parents=True, exist_ok=True)
        if self.method == "tmpfs":
            size = f"size={self.size_mb}m"
            subprocess.run(["mount", "-t", "tmpfs", "-o", size, "tmpfs", str(self.root)], check=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.method == "tmpfs" and subprocess.run(["umount", str(self.root)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(self.root)], check=False)

    def fill(self, leave_kb: int) -> None:
        if self.method == "tmpfs":
            stat = os.statvfs(self.root)
            with open(self.root / "filler", "wb") as fh:
                fh.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - leave_kb * 1024))
        else:
            self.limit = leave_kb * 1024

    def free(self) -> None:
        (self.root / "filler").unlink(missing_ok=True)
        self.limit = None

    def run(self, args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(args, capture_output=True, text=True, timeout=600, preexec_fn=self._preexec())

    def _preexec(self) -> Any:
        limit = self.limit
        if limit is None:
            return None

        def preexec() -> None:
            import resource

            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return preexec

    @property
    def code(self) -> str:
        return "ENOSPC" if self.method == "tmpfs" else "EFBIG"


def one_error_line(done: subprocess.CompletedProcess) -> str:
    """The CLI failed with exit code 1 and said why on one line, with no traceback."""
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def test_a_full_disk_is_one_clear_error_and_a_rerun_resumes(tmp_path, tally):
    docs = copy_docs(tmp_path / "docs", LLM_DOCS)
    overrides = [*FAST, "folds.samples_total=200"]  # offline generation: this is about the disk
    with SmallDisk(tmp_path) as disk:
        out = disk.root / "out"
        build(docs, out, overrides=overrides, until="folds")  # the early stages fit
        before, manifest_before = artifact_bytes(out), manifest(out)
        disk.fill(DISK_FREE_KB)
        error = one_error_line(disk.run(cli_args(docs, out, overrides, "-q")))
        assert disk.code in error and "candidates.jsonl" in error and "rerun" in error, error
        after = artifact_bytes(out)
        assert {name: after.get(name) for name in before} == before  # earlier artifacts untouched
        recorded = manifest(out)["stages"]
        assert set(recorded) == set(STAGES[:6])  # generate is recorded as failed, with its one-line error
        assert recorded["generate"]["status"] == "failed" and "fingerprint" not in recorded["generate"]
        assert all(recorded[s]["outputs"] == manifest_before["stages"][s]["outputs"] for s in STAGES[:5])
        assert temp_files(out, caches=True) == []
        assert_no_half_written(out)
        disk.free()
        rerun = disk.run(cli_args(docs, out, overrides, "-q"))
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        stages = manifest(out)["stages"]
        assert [s for s in STAGES if stages[s]["skipped"]] == list(STAGES[:5])  # resumed at generate
        assert {name: artifact_bytes(out)[name] for name in before} == before
        tally["disk_full"].append({"method": disk.method, "failed_in": "generate", "error": error})


@pytest.mark.parametrize("cache", ["embeddings", "llm"])
def test_a_full_disk_while_a_cache_opens_keeps_the_cache(tmp_path, cache):
    docs = copy_docs(tmp_path / "docs", GOOD_DOCS)
    with FakeOpenAIServer(grounded_responder) as server, SmallDisk(tmp_path) as disk:
        overrides = [*FAST, "folds.samples_total=60"]
        if cache == "llm":
            overrides = llm_overrides(server.url, "folds.samples_total=60")
        out = disk.root / "out"
        # embeddings: the filter stage reopens the cache the embed stage filled; llm: a forced
        # generate stage reopens the cache of the replies already paid for
        build(docs, out, overrides=overrides, until="generate")
        sqlite = out / ".cache" / f"{cache}.sqlite"
        kept = sqlite.read_bytes()
        disk.fill(8)
        extra = ("-q", "--force", "generate") if cache == "llm" else ("-q",)
        done = disk.run(cli_args(docs, out, overrides, *extra))
        assert not list(sqlite.parent.glob(f"{sqlite.name}.corrupt-*"))
        assert sqlite.read_bytes() == kept
        assert disk.code in one_error_line(done) or "SQLite" in one_error_line(done)


# --------------------------------------------------------------------------- 5. the report


def test_zz_fault_report(tally, tmp_path_factory, capsys):
    """Print and save what the suite survived (run last; counters come from the tests above)."""
    kills = tally["kills"]
    summary = {
        "load_held": {
            "llm_requests_served": tally["requests_served"],
            "fault_rates": sorted({f["rate"] for f in tally["llm_faults"]}),
            "fault_kinds": list(dict.fromkeys(f["kind"] for f in tally["llm_faults"])),
        },
        "faults_survived": {
            "kills_per_stage": dict(Counter(k["stage"] for k in kills if k["landed"])),
            "kills_that_landed_in_a_later_stage": sum(not k["landed"] for k in kills),
            "kill_requests": tally.get("kill_requests"),
            "llm_faults_injected": sum(f["injected"] for f in tally["llm_faults"]),
            "llm_faults_recovered": sum(f["recovered"] for f in tally["llm_faults"]),
            "dead_requests": tally.get("dead_requests"),
            "disk_full": tally["disk_full"],
        },
        "bad_inputs_tried": tally["bad_inputs"],
        "items_lost": tally["items_lost"],
        "details": {"kills": kills, "llm_faults": tally["llm_faults"]},
    }
    path = tmp_path_factory.getbasetemp() / "fault_report.json"
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with capsys.disabled():
        print("\n" + "\n".join(_render(summary)) + f"\nfault report written to {path}")
    assert summary["items_lost"] == 0


def _render(s: dict[str, Any]) -> list[str]:
    f, load = s["faults_survived"], s["load_held"]
    rates = load["fault_rates"]
    lines = [
        "== qagen fault suite ==",
        f"load held: {load['llm_requests_served']} LLM requests served; fault rates {rates} x "
        f"{len(load['fault_kinds'])} kinds",
    ]
    if rates:
        lines.append("LLM faults injected/recovered by rate: " + "  ".join(f"{r:.0%}" for r in rates))
        for kind in load["fault_kinds"]:
            cells = {
                c["rate"]: f"{c['injected']}/{c['recovered']}" for c in s["details"]["llm_faults"] if c["kind"] == kind
            }
            lines.append(f"  {kind:<20}" + "  ".join(f"{cells.get(r, '-'):>7}" for r in rates))
        lines.append(f"  total {f['llm_faults_injected']} injected, {f['llm_faults_recovered']} recovered")
    moments = [
        f"{k['stage']}@" + (f"{k['delay_s']:g}s" if "delay_s" in k else f"{k['answered_before_kill']} replies")
        for k in s["details"]["kills"]
        if k["landed"]
    ]
    if moments:
        lines.append(f"SIGKILL then rerun, per stage: {', '.join(moments)} "
                     f"(+{f['kills_that_landed_in_a_later_stage']} that landed later)")  # fmt: skip
        lines.append(f"requests across the kills: {f['kill_requests']}")
    if f["dead_requests"]:
        d = f["dead_requests"]
        lines.append(f"dead requests: {d['failed_recorded']} of {d['requests']} failed, each recorded with a reason")
    lines += [f"disk full ({d['method']}): {d['error']}" for d in f["disk_full"]]
    bad = s["bad_inputs_tried"]
    if bad:
        lines.append(
            f"bad inputs tried: {len(bad)}: " + ", ".join(f"{b['file']} -> {b['reported'].split(':')[0]}" for b in bad)
        )
    lines.append(f"items lost: {s['items_lost']}")
    return lines
