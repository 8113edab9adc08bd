"""A user's first builds of a small corpus, stage by stage: cold, then warm, before and after a change.

``python benchmarks/first_build.py [--docs examples/docs] [--runs 3] [--before REV] [--python PY]``

Each run is ``qagen build DOCS -o NEW_FOLDER`` in a child process (nothing of an earlier build is
reused: a new output folder has no parse or embedding cache), and the stage times are read from
the build's manifest. Runs of the variants are interleaved (before, after, before, ...), so a
busy machine slows both alike.

- **cold**: the first run of a variant with an empty numba cache (``NUMBA_CACHE_DIR`` set to a new
  folder): every numba function UMAP and pynndescent use is compiled, as on a machine that has
  never built. Python's own byte code and the OS file cache are warm; a fresh virtual
  environment (``--python`` of one just made) adds byte-compiling and reading the packages.
- **warm**: the runs after it, with that numba cache.
- ``--before REV``: the same in a git worktree of REV (its code on ``PYTHONPATH``, the same
  interpreter and packages).

Prints a Markdown table (median over the warm runs) and writes ``results/first_build.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from measure import machine  # noqa: E402

_RUN = "import sys; from qagen.cli import main; sys.argv = ['qagen', *sys.argv[1:]]; main()"


def one_build(python: str, code: Path, docs: Path, numba_cache: Path) -> dict[str, Any]:
    """Stage seconds (and CPU seconds) of one build into a new folder, and its wall time."""
    with tempfile.TemporaryDirectory(prefix="qagen-first-") as tmp:
        out = Path(tmp) / "out"
        env = {**os.environ, "PYTHONPATH": str(code), "NUMBA_CACHE_DIR": str(numba_cache)}
        start = time.perf_counter()
        subprocess.run(
            [python, "-c", _RUN, "build", str(docs), "-o", str(out), "--quiet"],
            env=env,
            cwd=code,
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - start
        manifest = json.loads((out / "manifest.json").read_text())
        stages = {k: manifest["stages"][k] for k in manifest["stage_order"]}
        return {
            "wall_s": round(wall, 2),
            "stages_s": {k: v["seconds"] for k, v in stages.items()},
            "stages_cpu_s": {k: v["cpu_seconds"] for k, v in stages.items()},
            "items": sum(1 for _ in (out / "items.jsonl").open()) if (out / "items.jsonl").is_file() else 0,
        }


def worktree(rev: str, folder: Path) -> Path:
    tree = folder / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True, capture_output=True
    )
    return tree


def _table(results: dict[str, dict[str, Any]]) -> str:
    variants = list(results)
    stages = list(next(iter(results.values()))["cold"]["stages_s"])
    head = "| stage | " + " | ".join(f"{v} cold | {v} warm (median)" for v in variants) + " |"
    rows = [head, "|---|" + "---:|---:|" * len(variants)]
    for stage in [*stages, "all stages", "wall (with start-up)"]:
        cells = []
        for v in variants:
            cold, warm = results[v]["cold"], results[v]["warm"]

            def value(run: dict[str, Any], stage: str = stage) -> float:
                if stage == "all stages":
                    return sum(run["stages_s"].values())
                if stage == "wall (with start-up)":
                    return run["wall_s"]
                return run["stages_s"][stage]

            cells += [f"{value(cold):.1f}", f"{statistics.median(value(r) for r in warm):.1f}"]
        rows.append(f"| {stage} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=ROOT / "examples" / "docs")
    parser.add_argument("--runs", type=int, default=3, help="warm runs per variant after the cold one")
    parser.add_argument("--before", help="also time this git revision (in a temporary worktree)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (e.g. of a fresh venv)")
    parser.add_argument("--json", type=Path, default=HERE / "results" / "first_build.json")
    args = parser.parse_args()
    docs = args.docs.resolve()
    info = machine()
    with tempfile.TemporaryDirectory(prefix="qagen-first-") as tmp:
        variants: dict[str, Path] = {"after": ROOT}
        if args.before:
            variants = {f"before ({args.before})": worktree(args.before, Path(tmp)), "after": ROOT}
        caches = {name: Path(tmp) / f"numba-{i}" for i, name in enumerate(variants)}
        results: dict[str, dict[str, Any]] = {name: {"cold": None, "warm": []} for name in variants}
        try:
            for round_ in range(args.runs + 1):
                for name, code in variants.items():
                    run = one_build(args.python, code, docs, caches[name])
                    if round_ == 0:
                        results[name]["cold"] = run
                    else:
                        results[name]["warm"].append(run)
                    print(f"{name} run {round_}: {run['wall_s']} s, {run['items']} items", file=sys.stderr)
        finally:
            if args.before:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(variants[next(iter(variants))])],
                    check=False,
                )
    info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    args.json.write_text(json.dumps({"machine": info, "docs": str(args.docs), "results": results}, indent=1) + "\n")
    print(_table(results))


if __name__ == "__main__":
    main()
