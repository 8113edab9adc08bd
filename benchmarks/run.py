"""The benchmark entry point: wall time, CPU time, peak memory and throughput of every stage.

    python benchmarks/run.py [--corpus examples|manuals|synthetic|all] [--sections 10000]
        [--scales 2500,5000] [--latency 0.5 --latency-max 2.0] [--no-llm] [--cold-embed]
        [--set KEY=VALUE ...] [--work DIR] [--keep] [--json PATH]
    python benchmarks/run.py --render benchmarks/results/run_all.json   # recompute totals, rewrite

Corpora: (a) ``examples/docs``; (b) ``../shared/corpora/manuals`` (real PDFs; skipped with a
message when absent); (c) synthetic corpora of ``--sections`` sections (and of the ``--scales``
sizes, to show how memory grows) drawn from the manuals' real sections by
``benchmarks/synthetic.py`` (its docstring has the method).

How it measures. Every stage runs in its own process, ``python -m qagen.cli build DOCS -o OUT
--until STAGE -q`` into a fresh output folder (the runner skips the stages already done), so
each stage's peak memory is its own. Per stage:

- *stage wall / CPU*: the manifest's ``seconds`` / ``cpu_seconds`` (inside the stage: reading
  inputs, the work, writing outputs; CPU of the main process only);
- *process wall / CPU*: the whole child process, reaped with ``os.wait4`` (CPU includes its
  reaped children, e.g. the parse workers, and the interpreter start and imports);
- *peak RSS*: ``ru_maxrss`` from ``os.wait4``, the largest single process (the child or one of
  its workers). Children are started by a minimal launcher process, because Linux carries
  the forking process's RSS into a child's ``ru_maxrss``; *tree PSS*: the proportional set
  size summed over the child and its descendants, sampled every 0.2 s (shared pages split
  among their users, so forked parse workers are not counted twice; it exceeds peak RSS only
  when workers run at once). *Peak memory* in totals and budgets is the larger of the two.
- *load*: the machine's 1-minute load average when the stage process ended.
Nothing is subtracted. The *startup* row is ``--until parse`` on the finished folder (every
stage skipped: interpreter, imports, config, fingerprint of the inputs); *no-op rebuild* is
a full ``qagen build`` with every stage skipped.

Embedding outside the embed stage: ``filter`` embeds the questions (near-duplicate filter) and
``splits`` embeds answers and page passages (leakage check), through the same embedding cache
(``OUT/.cache/embeddings.sqlite``). After the build, both are rerun with ``--force`` (*warm*
rows): every vector is then a cache hit and the model is never loaded (the *embedded* column,
new rows in the cache, shows 0). The budget figure "everything but LLM calls and embedding"
is the sum of stage wall times of parse, pages, topics, folds, generate (extractive, no
LLM), filter (warm), splits (warm) and report, plus one process startup.

Synthetic corpora share an embedding cache in the work folder (``--cold-embed`` turns it off):
their sections recur across sizes, and the embed stage is excluded from the budget anyway; the
*embedded* column says how many vectors each stage computed.

Generation against an LLM: on the examples, the extractive build's folder is copied and
generate, filter, splits and report rerun with ``--set llm.backend="openai:fake-model@URL"`` against the
fake OpenAI-compatible server in its own process (``tests/support/llm_server.py``, grounded responder,
latency uniform in [--latency, --latency-max]). Reported: requests, tokens, requests per
accepted item, accepted items per minute of generation, the generate stage's wall time
against the ideal requests x mean latency / llm.max_concurrency (mean of the latencies the
server actually drew: its generator is seeded, so they are reproduced here), and client CPU
per request (generate stage CPU / requests).

The machine's load average (start and end) and core count go into the JSON and the table
header: other jobs may share the machine. The repository may change while a long run goes on
(other work in the same checkout): the modified files at the start are recorded, and a stage
process that had to rerun an earlier stage (because a prompt or input changed) is flagged in
its row. Work folders live under ``--work`` (default
``benchmarks/.work``, which should be git-ignored) and are deleted unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))  # for tests.support

import synthetic  # noqa: E402
from measure import Launcher, machine  # noqa: E402

from qagen.stages import STAGE_NAMES  # noqa: E402

EXAMPLES = ROOT / "examples" / "docs"
MANUALS = synthetic.MANUALS
STAGES = STAGE_NAMES
POLL_S = 0.2


class BenchError(RuntimeError):
    """A benchmark step failed; the message says which and shows the end of its log."""


# --- processes -------------------------------------------------------------------------


_LAUNCHER: Launcher | None = None


def run_process(cmd: list[str], log: Path) -> dict[str, float]:
    """Run ``cmd``; its wall time, CPU (user+sys, reaped children included) and peak memory."""
    global _LAUNCHER
    if _LAUNCHER is None:
        _LAUNCHER = Launcher()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as fh:
        fh.write(f"$ {' '.join(cmd)}\n".encode())
    done, tree_peak = _LAUNCHER.run(cmd, log, POLL_S)
    if done["rc"] != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise BenchError(f"`{' '.join(cmd[2:])}` exited with {done['rc']}; end of {log}:\n{tail}")
    return {
        "load_1min_end": round(os.getloadavg()[0], 2),
        "process_wall_s": round(done["wall"], 3),
        "process_cpu_s": round(done["cpu"], 3),
        "peak_rss_mb": round(done["maxrss_kb"] / 1024, 1),
        "tree_pss_mb": round(tree_peak / 2**20, 1),
        "peak_mb": round(max(tree_peak / 2**20, done["maxrss_kb"] / 1024), 1),
    }


def qagen_cmd(docs: Path, out: Path, stage: str | None, sets: list[str], force: str | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "qagen.cli", "build", str(docs), "-o", str(out), "-q"]
    cmd += ["--until", stage] if stage else []
    cmd += ["--force", force] if force else []
    for s in sets:
        cmd += ["--set", s]
    return cmd


def cache_rows(out: Path) -> int:
    """Vectors in the build's embedding cache (0 when there is none)."""
    path = out / ".cache" / "embeddings.sqlite"
    if not path.is_file():
        return 0
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])


def merge_cache(src: Path, dst: Path) -> None:
    """Copy every vector of the SQLite embedding cache ``src`` into ``dst`` (created if absent)."""
    if not src.is_file():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.is_file():
        with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
            a.backup(b)
        return
    with sqlite3.connect(dst) as conn:
        conn.execute("ATTACH DATABASE ? AS src", (str(src),))
        conn.execute("INSERT OR IGNORE INTO vectors SELECT * FROM src.vectors")
        conn.commit()
        conn.execute("DETACH DATABASE src")


# --- one build, stage by stage ---------------------------------------------------------


def _units(stage: str, out: Path, manifest: dict[str, Any]) -> list[tuple[float, str]]:
    """(count, unit) pairs a stage's throughput is given in, the main one first."""
    counts = lambda name: manifest["stages"].get(name, {}).get("counts", {})  # noqa: E731
    sections = counts("parse").get("sections", 0)
    if stage == "parse":
        docs = [json.loads(x) for x in (out / "documents.jsonl").read_text().splitlines() if x.strip()]
        return [(sum(d.get("n_pages", 0) for d in docs), "pages"), (len(docs), "documents")]
    if stage in ("pages", "embed", "topics", "folds"):
        return [(sections, "sections")]
    if stage == "generate":
        return [
            (counts("generate").get("candidates", 0), "candidates"),
            (counts("folds").get("sampled", 0), "sampled sections"),
        ]
    if stage == "filter":
        return [(counts("filter").get("candidates", 0), "candidates")]
    return [(counts("filter").get("accepted", 0), "items")]


def measure_stage(docs: Path, out: Path, stage: str, sets: list[str], log: Path, force: bool = False) -> dict:
    """Run one stage in its own process; its manifest timings, process usage and throughput."""
    rows_before = cache_rows(out)
    before = _finished(out)
    usage = run_process(qagen_cmd(docs, out, stage, sets, stage if force else None), log)
    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["stages"][stage]
    if entry.get("skipped"):
        raise BenchError(f"stage {stage} was skipped in {out}; start from an empty output folder")
    also = sorted(k for k, v in _finished(out).items() if k != stage and v != before.get(k))
    if also:  # an input changed under the benchmark (e.g. a prompt file edited): this row is not one stage
        print(f"    warning: the {stage} process also reran {', '.join(also)}; its process figures include them")
    row = {
        "stage": stage,
        "also_ran": also,
        "seconds": entry["seconds"],
        "cpu_seconds": entry["cpu_seconds"],
        **usage,
        "embedded": cache_rows(out) - rows_before,
        "counts": entry.get("counts", {}),
    }
    units = _units(stage, out, manifest)
    row["throughput"] = [
        {"unit": unit, "count": n, "per_s": round(n / entry["seconds"], 2) if entry["seconds"] else None}
        for n, unit in units
    ]
    for key in ("llm", "funnel"):
        if key in entry:
            row[key] = entry[key]
    return row


def _finished(out: Path) -> dict[str, str]:
    """When each stage last ran in ``out`` (its manifest timestamp and fingerprint)."""
    path = out / "manifest.json"
    stages = json.loads(path.read_text()).get("stages", {}) if path.is_file() else {}
    return {k: f"{v.get('finished_at')}/{v.get('fingerprint')}" for k, v in stages.items()}


def bench_build(name: str, docs: Path, out: Path, sets: list[str], seed_cache: Path | None = None) -> dict:
    """Every stage of one build in its own process, then startup, no-op and warm reruns."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if seed_cache is not None and seed_cache.is_file():
        merge_cache(seed_cache, out / ".cache" / "embeddings.sqlite")
    log = out.parent / f"{out.name}.log"
    log.unlink(missing_ok=True)
    result: dict[str, Any] = {"name": name, "docs": str(docs), "out": str(out), "sets": sets, "stages": []}
    if seed_cache is not None:
        result["embedding_cache_seeded_with"] = cache_rows(out)
    for stage in STAGES:
        print(f"  {name}: {stage} ...", flush=True)
        row = measure_stage(docs, out, stage, sets, log)
        result["stages"].append(row)
        print(f"    {row['seconds']:.1f} s, {row['cpu_seconds']:.1f} CPU s, peak {row['peak_mb']:.0f} MB")
    result["startup"] = run_process(qagen_cmd(docs, out, "parse", sets), log)
    result["noop_rebuild"] = run_process(qagen_cmd(docs, out, None, sets), log)
    result["warm"] = [measure_stage(docs, out, s, sets, log, force=True) for s in ("filter", "splits")]
    if seed_cache is not None:
        merge_cache(out / ".cache" / "embeddings.sqlite", seed_cache)
    result["totals"] = totals(result)
    return result


def totals(result: dict) -> dict:
    """Whole-build sums, and the budget figure (no embed stage, filter/splits warm)."""
    rows = result["stages"]
    warm = {r["stage"]: r for r in result["warm"]}
    budget_rows = [warm.get(r["stage"], r) for r in rows if r["stage"] != "embed"]
    startup = result["startup"]["process_wall_s"]
    in_stage = sum(r["seconds"] for r in budget_rows)
    return {
        "stage_wall_s": round(sum(r["seconds"] for r in rows), 2),
        "stage_cpu_s": round(sum(r["cpu_seconds"] for r in rows), 2),
        "process_wall_s": round(sum(r["process_wall_s"] for r in rows), 2),
        "process_cpu_s": round(sum(r["process_cpu_s"] for r in rows), 2),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in rows),
        "tree_pss_mb": max(r["tree_pss_mb"] for r in rows),
        "peak_mb": max(r["peak_mb"] for r in rows),
        "sections": rows[0]["counts"].get("sections", 0),
        "accepted_items": next(r for r in rows if r["stage"] == "filter")["counts"].get("accepted", 0),
        "budget_stages": [r["stage"] + (" (warm)" if r["stage"] in warm else "") for r in budget_rows],
        "budget_in_stage_s": round(in_stage, 2),
        "budget_with_startup_s": round(in_stage + startup, 2),
        "budget_cpu_s": round(sum(r["cpu_seconds"] for r in budget_rows), 2),
        "budget_process_cpu_s": round(sum(r["process_cpu_s"] for r in budget_rows), 2),
        "budget_peak_mb": max(r["peak_mb"] for r in budget_rows),
    }


# --- generation against the fake OpenAI server ----------------------------------------


def drawn_latencies(n: int, low: float, high: float, seed: int = 0) -> list[float]:
    """The latencies the fake server drew for its first ``n`` chat requests (seeded generator)."""
    rng = random.Random(seed)
    return [rng.uniform(low, high) for _ in range(n)]


def bench_llm(docs: Path, built: Path, out: Path, sets: list[str], low: float, high: float) -> dict:
    """generate..report with the openai backend against the out-of-process fake server."""
    from tests.support.llm_server import ServerProcess

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(built, out, ignore=shutil.ignore_patterns("llm.sqlite*", ".qagen.lock"))
    log = out.parent / f"{out.name}.log"
    log.unlink(missing_ok=True)
    result: dict[str, Any] = {"latency_s": [low, high], "stages": []}
    with ServerProcess(latency=low, latency_max=high, responder="grounded", seed=0) as server:
        llm_sets = [*sets, f'llm.backend="openai:fake-model@{server.url}"']
        for stage in ("generate", "filter", "splits", "report"):
            print(f"  examples+llm: {stage} ...", flush=True)
            result["stages"].append(measure_stage(docs, out, stage, llm_sets, log))
        server_stats = server.stats()
    gen = result["stages"][0]
    stats = gen.get("llm", {})
    sent = int(stats.get("requests_sent", 0))
    accepted = result["stages"][1]["counts"].get("accepted", 0)
    concurrency = _concurrency(sets)
    lat = drawn_latencies(sent, low, high)  # the generate stage ran first: its requests drew these
    mean_latency = statistics.fmean(lat) if lat else 0.0
    ideal = sent * mean_latency / concurrency
    one_off = _import_cpu(out.parent / "import-cpu.log")
    result["summary"] = {
        "requests": stats.get("requests", 0),
        "requests_sent": sent,
        "server_chat_requests": server_stats["chat"],
        "server_statuses": server_stats["statuses"],
        "server_max_in_flight": server_stats["max_in_flight"],
        "retries": stats.get("retries", 0),
        "repairs": stats.get("repairs", 0),
        "failures": stats.get("failures", 0),
        "prompt_tokens": stats.get("prompt_tokens", 0),
        "completion_tokens": stats.get("completion_tokens", 0),
        "candidates": gen["counts"].get("candidates", 0),
        "accepted_items": accepted,
        "requests_per_accepted_item": round(sent / accepted, 2) if accepted else None,
        "accepted_items_per_minute": round(accepted / (gen["seconds"] / 60), 1) if gen["seconds"] else None,
        "max_concurrency": concurrency,
        "mean_latency_s": round(mean_latency, 4),
        "generate_wall_s": gen["seconds"],
        "engine_elapsed_s": stats.get("elapsed_s"),
        "ideal_s": round(ideal, 2),
        "wall_over_ideal": round(gen["seconds"] / ideal, 3) if ideal else None,
        "engine_cpu_ms_per_request": round(stats["client_cpu_s"] / sent * 1000, 2)
        if sent and "client_cpu_s" in stats
        else None,
        "client_cpu_ms_per_request": round(gen["cpu_seconds"] / sent * 1000, 2) if sent else None,
        "import_cpu_s": one_off,
        "client_cpu_ms_per_request_after_imports": round((gen["cpu_seconds"] - one_off) / sent * 1000, 2)
        if sent
        else None,
        "candidates_per_request": round(gen["counts"].get("candidates", 0) / sent, 2) if sent else None,
        "wall_overhead_ms_per_request": round((gen["seconds"] - ideal) * concurrency / sent * 1000, 2)
        if sent
        else None,
    }
    return result


IMPORTS = (
    "import time; c = time.process_time(); import openai, httpx; from qagen.llm import LLMEngine, get_llm; "
    "from qagen.generate.requests import plan_requests; from qagen.generate.replies import items_from_results; "
    "print(time.process_time() - c)"
)


def _import_cpu(log: Path) -> float:
    """CPU seconds a fresh process spends importing what the LLM generate stage imports (a one-off)."""
    proc = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, cwd=ROOT, check=False)
    log.write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise BenchError(f"measuring the import cost failed; see {log}")
    return round(float(proc.stdout.strip().splitlines()[-1]), 3)


def _concurrency(sets: list[str]) -> int:
    from qagen.config import load_config

    return int(load_config(None, sets).llm.max_concurrency)


# --- tables ----------------------------------------------------------------------------


def _tput(row: dict) -> str:
    parts = [f"{t['per_s']:,.1f} {t['unit']}/s" for t in row["throughput"] if t["per_s"] is not None]
    return parts[0] + (f" ({', '.join(parts[1:])})" if parts[1:] else "") if parts else ""


HEADER = (
    "| stage | stage wall s | stage CPU s | process wall s | process CPU s | peak RSS MB | tree PSS MB "
    "| throughput (stage wall) | embedded | load |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
)


def _row(label: str, r: dict) -> str:
    label += f" (process also reran {', '.join(r['also_ran'])})" if r.get("also_ran") else ""
    stage = f"{r['seconds']:.2f} | {r['cpu_seconds']:.2f}" if "seconds" in r else "– | –"
    return (
        f"| {label} | {stage} | {r['process_wall_s']:.1f} | {r['process_cpu_s']:.1f} | {r['peak_rss_mb']:.0f} "
        f"| {r['tree_pss_mb']:.0f} | {_tput(r) if 'throughput' in r else ''} | {r.get('embedded', '')} "
        f"| {r.get('load_1min_end', '')} |"
    )


def build_table(res: dict) -> str:
    t = res["totals"]
    lines = [HEADER, *(_row(r["stage"], r) for r in res["stages"])]
    lines += [_row(f"{r['stage']} (warm rerun)", r) for r in res["warm"]]
    lines += [_row("startup (every stage skipped)", res["startup"]), _row("no-op rebuild", res["noop_rebuild"])]
    lines.append(
        f"| **total, 9 stage processes** | {t['stage_wall_s']:.1f} | {t['stage_cpu_s']:.1f} "
        f"| {t['process_wall_s']:.1f} | {t['process_cpu_s']:.1f} | {t['peak_rss_mb']:.0f} "
        f"| {t['tree_pss_mb']:.0f} | | | |"
    )
    lines.append(
        f"\nEverything but LLM calls and embedding ({', '.join(t['budget_stages'])}): "
        f"**{t['budget_in_stage_s']:.1f} s** in the stages, {t['budget_with_startup_s']:.1f} s with one process "
        f"startup; {t['budget_process_cpu_s']:.1f} CPU s in those stage processes (workers and each process's "
        f"startup included; {t['budget_cpu_s']:.1f} s in the stages' main process); "
        f"peak memory {t['budget_peak_mb']:.0f} MB "
        f"({t['sections']:,} sections, {t['accepted_items']} accepted items)."
    )
    return "\n".join(lines)


def llm_table(res: dict) -> str:
    s = res["summary"]
    lo, hi = res["latency_s"]
    lines = [HEADER, *(_row(r["stage"], r) for r in res["stages"])]
    lines += [
        "",
        f"- requests: {s['requests']} asked, {s['requests_sent']} sent ({s['retries']} retries, {s['repairs']} repairs,"
        f" {s['failures']} failed); server saw {s['server_chat_requests']} chat requests, statuses "
        f"{s['server_statuses']}, at most {s['server_max_in_flight']} in flight",
        f"- tokens: {s['prompt_tokens']:,} prompt, {s['completion_tokens']:,} completion",
        f"- {s['candidates']} candidates ({s['candidates_per_request']} per request), {s['accepted_items']} accepted: "
        f"{s['requests_per_accepted_item']} requests "
        f"per accepted item, {s['accepted_items_per_minute']} accepted items per minute of generation",
        f"- generate wall {s['generate_wall_s']:.1f} s (engine {s['engine_elapsed_s']} s) vs ideal "
        f"{s['ideal_s']:.1f} s = {s['requests_sent']} requests x {s['mean_latency_s']:.3f} s mean drawn latency "
        f"(U[{lo:g}, {hi:g}]) / {s['max_concurrency']} concurrent: **{s['wall_over_ideal']:.2f}x** ideal",
        f"- LLM client overhead: **{s.get('engine_cpu_ms_per_request', 'not measured (older run)')} ms CPU per "
        "request** in the engine's thread "
        f"(request building, cache, the openai SDK and HTTP client, parsing and validating replies; "
        f"`client_cpu_s` in the manifest / requests sent, the SDK import excluded)",
        f"- whole generate stage: {s['client_cpu_ms_per_request']:.2f} ms CPU per request (stage CPU / requests "
        f"sent, which adds loading sections, planning and writing candidates), "
        f"{s['client_cpu_ms_per_request_after_imports']:.2f} ms without the one-off "
        f"{s['import_cpu_s']:.2f} CPU s of importing openai/httpx/qagen.llm; wall beyond the drawn latency "
        f"{s['wall_overhead_ms_per_request']:.1f} ms per request (per concurrency slot, tail of the last wave "
        f"included)",
    ]
    return "\n".join(lines)


def _scaled_rows(size: dict) -> dict[str, dict]:
    """The rows compared across sizes: every stage, filter and splits from their warm reruns
    (with a cold cache they load the embedding model, whose memory does not scale)."""
    warm = {r["stage"]: r for r in size["warm"]}
    return {
        (f"{r['stage']} (warm)" if r["stage"] in warm else r["stage"]): warm.get(r["stage"], r) for r in size["stages"]
    }


def scaling_table(sizes: list[dict]) -> str:
    if len(sizes) < 2:
        return ""
    ns = [s["totals"]["sections"] for s in sizes]
    head = "| stage | " + " | ".join(f"{n:,} sections" for n in ns) + " | b, fit over all sizes | b, steepest step |"
    lines = [
        "Peak memory (larger of peak RSS and tree PSS) and stage wall seconds against sections. b is the exponent "
        "of (peak - startup peak) ~ sections^b: the least-squares slope on log-log axes over every size, and "
        "the largest slope between two consecutive sizes (1 = linear, 2 = n x n). "
        "The embed row depends on how many vectors were computed (the model "
        "loads only then), so it has no exponent.",
        "",
        head,
        "|---|" + "---:|" * (len(ns) + 2),
    ]
    rows = [_scaled_rows(s) for s in sizes]
    for label in rows[0]:
        cells = [f"{r[label]['peak_mb']:.0f} MB / {r[label]['seconds']:.1f} s" for r in rows]
        if label == "embed":
            cells = [f"{c} ({r[label]['embedded']:,} computed)" for c, r in zip(cells, rows, strict=True)]
            lines.append(f"| {label} | " + " | ".join(cells) + " | – | – |")
            continue
        b_all, b_step = _exponent(sizes, label, None), _worst_step(sizes, label)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {b_all:.2f} | {b_step:.2f} |")
    budget = [f"{s['totals']['budget_with_startup_s']:.0f} s / {s['totals']['budget_peak_mb']:.0f} MB" for s in sizes]
    lines.append("| **budget figure** | " + " | ".join(budget) + " | | |")
    return "\n".join(lines)


def _exponent(sizes: list[dict], label: str, first: int | None) -> float:
    """Exponent b of (peak - startup peak) ~ sections^b: the least-squares slope on log-log axes
    over every size when ``first`` is None, else between ``sizes[first]`` and the largest."""
    import numpy as np

    chosen = sizes if first is None else [sizes[first], sizes[-1]]
    extra = [max(_scaled_rows(s)[label]["peak_mb"] - s["startup"]["peak_mb"], 1.0) for s in chosen]
    n = [s["totals"]["sections"] for s in chosen]
    if len(set(n)) < 2:
        return float("nan")
    return float(np.polyfit(np.log(n), np.log(extra), 1)[0])


def _worst_step(sizes: list[dict], label: str) -> float:
    """The largest exponent between two consecutive sizes (a jump the fit may smooth over)."""
    return max(_exponent(sizes[i : i + 2], label, None) for i in range(len(sizes) - 1))


def budgets(report: dict) -> list[dict]:
    """The issue's budgets, each with the measured number and met/missed."""
    out = []
    syn = report["corpora"].get("synthetic", {}).get("sizes", [])
    if syn:
        big = next((s for s in syn if s.get("main")), syn[-1])["totals"]
        n = big["sections"]
        out.append(
            _budget(f"everything but LLM and embedding, {n:,} sections: < 180 s", big["budget_with_startup_s"], 180)
        )
        out.append(_budget(f"peak memory, {n:,} sections, embed excluded: < 4096 MB", big["budget_peak_mb"], 4096))
        out.append(_budget(f"peak memory, {n:,} sections, every stage: < 4096 MB", big["peak_mb"], 4096))
        if len(syn) > 1:
            labels = [k for k in _scaled_rows(syn[0]) if k != "embed"]
            worst = max(_exponent(syn, k, None) for k in labels)
            out.append(
                _budget(
                    "memory grows at most linearly (largest log-log slope b over all sizes, any stage but embed, "
                    "<= 1.15)",
                    round(worst, 2),
                    1.15,
                )
            )
    llm = report["corpora"].get("examples_llm", {}).get("summary")
    if llm:
        out.append(_budget("generation wall within 30% of ideal (ratio <= 1.30)", llm["wall_over_ideal"], 1.3))
        if llm.get("engine_cpu_ms_per_request") is not None:
            out.append(
                _budget(
                    "LLM client overhead < 5 ms CPU per request (engine thread CPU / requests sent)",
                    llm["engine_cpu_ms_per_request"],
                    5,
                )
            )
    return out


def _budget(name: str, value: float, limit: float) -> dict:
    return {"budget": name, "measured": value, "met": bool(value is not None and value <= limit)}


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [
        "# qagen benchmark (`python benchmarks/run.py`)",
        "",
        f"{m['nproc']} cores ({m['machine']}), {m['ram_gb']} GB RAM, Python {m['python']}, qagen {m['qagen']} "
        f"({m['commit']}, {len(m.get('modified_files', []))} files modified). Load average (1, 5, 15 min) "
        f"at start {m['loadavg_start']}, at end {m.get('loadavg_end')}; {report.get('elapsed_min', 0):.1f} min in "
        f"all. Command: `{report['command']}`.",
    ]
    for key, res in report["corpora"].items():
        if res.get("skipped") or res.get("error"):
            lines += [
                "",
                f"## {key}",
                "",
                f"{'Skipped' if res.get('skipped') else 'Failed'}: {res.get('skipped') or res['error']}",
            ]
        elif key == "examples_llm":
            lines += ["", "## examples, generation with the openai backend against the fake server", "", llm_table(res)]
        elif key == "synthetic":
            for size in res["sizes"]:
                lines += [
                    "",
                    f"## synthetic, {size['totals']['sections']:,} sections",
                    "",
                    _synthetic_note(size),
                    "",
                    build_table(size),
                ]
            if len(res["sizes"]) > 1:
                lines += ["", "## synthetic: growth with sections", "", scaling_table(res["sizes"])]
        else:
            lines += ["", f"## {key} ({res['docs']})", "", build_table(res)]
    if report.get("budgets"):
        lines += ["", "## Budgets (issue 10)", "", "| budget | measured | met |", "|---|---:|---|"]
        lines += [
            f"| {b['budget']} | {b['measured']} | {'met' if b['met'] else '**missed**'} |" for b in report["budgets"]
        ]
    return "\n".join(lines) + "\n"


def _synthetic_note(size: dict) -> str:
    c = size["corpus"]
    return (
        f"{c['sections_written']:,} sections written in {c['documents']} Markdown files ({c['distinct_sections']:,} "
        f"distinct), drawn from {c['source']['sections']:,} sections of {c['source']['manuals']} manuals; median body "
        f"{c['body_chars_median']:.0f} chars (source {c['source_body_chars_median']:.0f}). Embedding cache seeded with "
        f"{size.get('embedding_cache_seeded_with', 0):,} vectors."
    )


# --- main ------------------------------------------------------------------------------


def run_corpora(args: argparse.Namespace, report: dict, save: Any) -> None:
    runs = args.work / "runs"
    wanted = ["examples", "manuals", "synthetic"] if args.corpus == "all" else [args.corpus]
    for corpus in wanted:
        print(f"== {corpus}", flush=True)
        try:
            if corpus == "examples":
                res = bench_build("examples", EXAMPLES, runs / "examples", args.set)
                report["corpora"]["examples"] = res
                save()
                print(build_table(res))
                if not args.no_llm:
                    llm = bench_llm(
                        EXAMPLES, runs / "examples", runs / "examples-llm", args.set, args.latency, args.latency_max
                    )
                    report["corpora"]["examples_llm"] = llm
                    print(llm_table(llm))
            elif not MANUALS.is_dir():
                report["corpora"][corpus] = {
                    "skipped": f"{MANUALS} is absent (the shared corpora are not on this machine)"
                }
                print(f"skipped: {MANUALS} is absent")
            elif corpus == "manuals":
                res = bench_build("manuals", MANUALS, runs / "manuals", args.set)
                report["corpora"]["manuals"] = res
                # the synthetic corpus is drawn from these parses: spare it a second parse
                shutil.copytree(runs / "manuals" / ".cache" / "parse", args.work / "parse-cache", dirs_exist_ok=True)
                print(build_table(res))
            else:
                report["corpora"]["synthetic"] = {"sizes": []}
                for n in sorted({*args.scales, args.sections}):
                    docs, stats = synthetic.make_corpus(n, args.work)
                    seed = None if args.cold_embed else args.work / "embed-cache.sqlite"
                    res = bench_build(f"synthetic-{n}", docs, runs / f"synthetic-{n}", args.set, seed_cache=seed)
                    res["corpus"], res["main"] = stats, n == args.sections
                    report["corpora"]["synthetic"]["sizes"].append(res)
                    save()
                    print(build_table(res))
        except (BenchError, synthetic.SourceError, OSError) as exc:
            report["corpora"].setdefault(corpus, {})["error"] = str(exc)
            print(f"error: {corpus}: {exc}", file=sys.stderr)
        save()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--corpus", choices=["examples", "manuals", "synthetic", "all"], default="all")
    p.add_argument("--sections", type=int, default=10_000, help="sections of the main synthetic corpus")
    p.add_argument("--scales", default="2500,5000", help="other synthetic sizes, to show memory growth ('' for none)")
    p.add_argument("--latency", type=float, default=0.5, help="fake server latency, lower bound (s)")
    p.add_argument("--latency-max", type=float, default=2.0, help="fake server latency, upper bound (s)")
    p.add_argument("--no-llm", action="store_true", help="skip generation against the fake OpenAI server")
    p.add_argument("--cold-embed", action="store_true", help="synthetic: no shared embedding cache")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="qagen config override, repeatable")
    p.add_argument("--work", type=Path, default=synthetic.WORK, help="work folder (default benchmarks/.work)")
    p.add_argument("--keep", action="store_true", help="keep the build folders under WORK/runs")
    p.add_argument(
        "--json", type=Path, help="JSON output (default benchmarks/results/run_<corpus>.json; .md beside it)"
    )
    p.add_argument(
        "--render",
        type=Path,
        metavar="JSON",
        help="recompute totals and budgets of a JSON result, rewrite it and its .md; run nothing",
    )
    args = p.parse_args(argv)
    try:
        args.scales = [int(x) for x in args.scales.split(",") if x.strip()]
    except ValueError:
        p.error(f"--scales takes comma-separated integers; got {args.scales!r}")
    if args.sections < 1 or any(n < 1 for n in args.scales):
        p.error(f"--sections and --scales must be >= 1; got {args.sections} and {args.scales}")
    if args.latency < 0 or args.latency_max < args.latency:
        p.error(f"need 0 <= --latency <= --latency-max; got {args.latency} and {args.latency_max}")
    args.json = args.json or ROOT / "benchmarks" / "results" / f"run_{args.corpus}.json"
    args.work = args.work.resolve()
    return args


def _terminate(signum: int, _frame: Any) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main(argv: list[str] | None = None) -> int:
    global _LAUNCHER
    args = parse_args(argv)
    if args.render:
        report = json.loads(args.render.read_text(encoding="utf-8"))
        for res in [report["corpora"].get(k, {}) for k in ("examples", "manuals")] + report["corpora"].get(
            "synthetic", {}
        ).get("sizes", []):
            if "stages" in res and "warm" in res:
                res["totals"] = totals(res)
        report["budgets"] = budgets(report)
        args.render.write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
        args.render.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
        print(markdown(report))
        return 0
    signal.signal(signal.SIGTERM, _terminate)
    _LAUNCHER = Launcher()  # before this process imports qagen: see LAUNCHER_CODE
    t0 = time.time()
    report: dict[str, Any] = {
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": machine(os.getloadavg()),
        "corpora": {},
    }
    print(f"machine: {report['machine']}", flush=True)

    def save() -> None:
        report["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        report["elapsed_min"] = round((time.time() - t0) / 60, 2)
        report["budgets"] = budgets(report)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
        args.json.with_suffix(".md").write_text(markdown(report), encoding="utf-8")

    try:
        run_corpora(args, report, save)
    finally:
        save()
        _LAUNCHER.close()
        if not args.keep:
            shutil.rmtree(args.work / "runs", ignore_errors=True)
    print()
    print(markdown(report))
    print(f"wrote {args.json} and {args.json.with_suffix('.md')}")
    return 1 if any(r.get("error") for r in report["corpora"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
