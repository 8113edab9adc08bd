"""Parsing a folder with the local process pool and on a local Ray cluster of 1 and 2 worker nodes.

Each configuration parses every document once, with no parse cache, in one run on the same files:
local with 1 and 2 processes, then Ray with a head node of 1 CPU (1 worker) and with a second node
of 1 CPU joined (2 workers). The cluster start is not timed (a cluster is started once and serves
many builds); the Ray times include connecting the driver. Prints a Markdown table with
pages/s and the ratio to local, and the overhead per document (Ray 1 worker against local 1).

Run: ``python benchmarks/ray_parse.py [DOCS] [--write]`` (default DOCS: ../shared/corpora/manuals;
needs ``qagen[ray]``; ``--write`` saves ``benchmarks/results/ray_parse.md``).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULT = ROOT / "benchmarks" / "results" / "ray_parse.md"


def _parse(docs: Path, executor: str, workers: int) -> tuple[float, int, int]:
    from qagen.config import ParseConfig
    from qagen.ingest import discover
    from qagen.ingest.run import parse_documents

    config = ParseConfig(workers=workers)
    paths = discover(docs, config.formats)
    start = time.perf_counter()
    result = parse_documents(paths, docs, config, cache_dir=None, executor=executor)
    seconds = time.perf_counter() - start
    pages = sum(d.n_pages or 0 for d in result.documents if d.status == "ok")
    return seconds, len(paths), pages


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs", nargs="?", default=str(ROOT.parent / "shared" / "corpora" / "manuals"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    docs = Path(args.docs)
    os.environ["RAY_AUTH_MODE"] = "disabled"  # a cluster on 127.0.0.1 for the measurement
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    ray_bin = str(Path(sys.executable).with_name("ray"))
    rows = []
    for workers in (1, 2):
        rows.append((f"local, {workers} process(es)", *_parse(docs, "local", workers)))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    subprocess.run([ray_bin, "stop", "--force"], env=env, capture_output=True)
    try:
        subprocess.run([ray_bin, "start", "--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
                        "--disable-usage-stats"], env=env, check=True, capture_output=True)  # fmt: skip
        rows.append(("Ray, 1 worker node", *_parse(docs, f"ray:{address}", 1)))
        import ray

        ray.shutdown()
        subprocess.run([ray_bin, "start", f"--address={address}", "--num-cpus=1", "--disable-usage-stats"],
                       env=env, check=True, capture_output=True)  # fmt: skip
        time.sleep(2)
        rows.append(("Ray, 2 worker nodes", *_parse(docs, f"ray:{address}", 1)))
        ray.shutdown()
    finally:
        subprocess.run([ray_bin, "stop", "--force"], env=env, capture_output=True)
    base = {1: rows[0][1], 2: rows[1][1]}
    n_docs = rows[0][2]
    lines = [
        f"# Parsing {docs.name} ({n_docs} documents, {rows[0][3]:,} pages): local processes and a local Ray cluster",
        "",
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end; no parse cache; one run.",
        "",
        "| executor | seconds | pages/s | against local with as many workers |",
        "|---|---|---|---|",
    ]
    for name, seconds, _, pages in rows:
        same = base[2] if "2" in name else base[1]
        lines.append(f"| {name} | {seconds:.1f} | {pages / seconds:.1f} | {same / seconds:.2f}x |")
    overhead = (rows[2][1] - rows[0][1]) / n_docs
    lines += ["", f"Ray's overhead per document (1 worker against 1 local process): {1000 * overhead:+.0f} ms."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
