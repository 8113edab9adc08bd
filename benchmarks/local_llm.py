"""The funnel with a real local model (SmolLM2-135M-Instruct via llama.cpp) beside the extractive generator.

Both generators get the same sample of the bundled examples (the stages up to ``folds`` run
once, with the fast TF-IDF / PCA / k-means stand-ins, and are copied). For each generator:
candidates, rejections per filter, accepted items per type, generation failures, model
requests (with repairs), tokens, tokens/s, requests per accepted item and wall time. Each
build runs in a fresh process through the CLI, as a user would run it.

Run: ``python benchmarks/local_llm.py [--samples 8] [--write]`` (needs ``qagen[local]``).
``--write`` saves the table to ``benchmarks/results/local_llm.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
RESULT = ROOT / "benchmarks" / "results" / "local_llm.md"
TYPES = ("long_form", "factoid", "mcq")
FAST = ["embed.backend=tfidf", "topics.reducer=pca", "topics.clusterer=kmeans", "topics.n_clusters=6"]
# The settings of tests/test_llm_local.py, so the table shows what the CI test sees.
GENERATE = [
    "generate.long_form_per_section=2",
    "generate.mcq_per_section=2",
    "generate.max_section_chars=800",
    "llm.max_tokens=400",
    "llm.max_concurrency=1",
    "llm.timeout_s=900",
]


def qagen(*args: str) -> float:
    """Run the CLI in a fresh process; return its wall time."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "qagen.cli", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"qagen {' '.join(args[:4])} ... failed:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


def sets(overrides: list[str]) -> list[str]:
    return [arg for o in overrides for arg in ("--set", o)]


def run(prepared: Path, out: Path, llm: str, overrides: list[str]) -> dict:
    shutil.copytree(prepared, out)
    wall = qagen("build", str(EXAMPLES), "-o", str(out), "--llm", llm, "-q", *sets(overrides))
    manifest = json.loads((out / "manifest.json").read_text())
    funnel = json.loads((out / "funnel.json").read_text())["funnel"]
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    accepted = Counter(json.loads(x)["type"] for x in (out / "items.jsonl").read_text().splitlines())
    gen = manifest["stages"]["generate"]
    return {
        "llm": llm,
        "wall_s": wall,
        "generate_s": gen.get("seconds") or gen.get("elapsed_s") or 0.0,
        "candidates": Counter({t: gen["counts"].get(f"candidates_{t}", 0) for t in TYPES}),
        "failed": Counter(r["type"] for r in rejected if r["filter"] == "generation"),
        "funnel": funnel,
        "accepted": accepted,
        "stats": gen.get("llm") or {},
        "reasons": Counter((r["filter"], r["reason"].split(":")[0][:60]) for r in rejected),
    }


def _per_type(counter: Counter) -> str:
    return " / ".join(str(counter.get(t, 0)) for t in TYPES) + f" ({sum(counter.values())})"


def table(results: list[dict]) -> list[str]:
    filters = list(dict.fromkeys(row["filter"] for r in results for row in r["funnel"]))
    names = [r["llm"] for r in results]
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(results)]

    def add(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    add("generation requests failed (long_form / factoid / mcq)", [_per_type(r["failed"]) for r in results])
    add("candidates", [_per_type(r["candidates"]) for r in results])
    for name in filters:
        cells = []
        for r in results:
            dropped = Counter({row["type"]: row["rejected"] for row in r["funnel"] if row["filter"] == name})
            cells.append(_per_type(dropped))
        add(f"rejected by {name}", cells)
    add("**accepted**", [f"**{_per_type(r['accepted'])}**" for r in results])
    for key, label in (("requests", "model requests planned"), ("requests_sent", "model calls (with repairs, retries)"),
                       ("repairs", "repair requests"), ("prompt_tokens", "prompt tokens"),
                       ("completion_tokens", "completion tokens")):  # fmt: skip
        add(label, [str(r["stats"].get(key, "-")) for r in results])
    add("completion tokens/s (generate stage)", [_rate(r, "completion_tokens") for r in results])
    add("prompt + completion tokens/s", [_rate(r, "prompt_tokens", "completion_tokens") for r in results])
    add("model calls per accepted item", [_per_item(r) for r in results])
    add("generate stage wall time", [f"{r['generate_s']:.0f} s" for r in results])
    add("whole build wall time (stages up to folds reused)", [f"{r['wall_s']:.0f} s" for r in results])
    return lines


def _rate(r: dict, *keys: str) -> str:
    tokens = sum(r["stats"].get(k, 0) for k in keys)
    return f"{tokens / r['generate_s']:.1f}" if tokens and r["generate_s"] else "-"


def _per_item(r: dict) -> str:
    n = sum(r["accepted"].values())
    sent = r["stats"].get("requests_sent")
    return f"{sent / n:.2f}" if sent and n else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=8, help="folds.samples_total (sections sampled)")
    parser.add_argument("--set", dest="extra", action="append", default=[], help="extra config overrides")
    parser.add_argument("--write", action="store_true", help=f"write {RESULT.relative_to(ROOT)}")
    args = parser.parse_args()
    prepare = [*FAST, f"folds.samples_total={args.samples}"]
    generate = [*prepare, *GENERATE, *args.extra]
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared"
        qagen("build", str(EXAMPLES), "-o", str(prepared), "--until", "folds", "-q", *sets(prepare))
        results = [run(prepared, Path(tmp) / name, name, generate) for name in ("extractive", "local")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    header = [
        "# A real local model beside the extractive generator (benchmarks/local_llm.py)",
        "",
        f"Machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()}, "
        f"load average {load:.1f} at the end. Corpus: examples/docs (15 documents), "
        f"{args.samples} sections sampled; overrides: {', '.join(generate)}.",
        "Counts per type are long_form / factoid / mcq (total).",
        "",
    ]
    reasons = ["", "Most common rejection reasons of the local model:", ""]
    for (flt, reason), n in results[1]["reasons"].most_common(8):
        reasons.append(f"- {flt}: {reason} ({n})")
    text = "\n".join(header + table(results) + reasons) + "\n"
    print(text)
    if args.write:
        RESULT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
