"""Parsing (and embedding) a folder with the local executor and on a local Ray cluster of 1 and 2 worker nodes.

Each configuration parses every document once, with no parse cache, in one run on the same files:
local with 1 and 2 processes, then Ray with a head node of 1 CPU (1 worker) and with a second node
of 1 CPU joined (2 workers). The cluster start is not timed (a cluster is started once and serves
many builds); the Ray times include connecting the driver. Prints a Markdown table with
pages/s and the ratio to local, and the overhead per document (Ray 1 worker against local 1).
With ``--embed N``, the first N sections are also embedded with the bundled MiniLM locally (torch on
every core) and on the 2-node cluster (one actor per node, whole 512-text batches), vectors compared.
With ``--leakage N``, the leakage check's search (N probes, the first 40 words of every k-th section,
against every emulated page of the corpus: the part of the check that grows with the corpus) runs
here and on the 2-node cluster in chunks of 1,000 pages, candidates compared.

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


def _embed(texts: list[str], executor: str, tmp: Path) -> tuple[float, bytes]:
    from qagen.config import EmbedConfig, LLMConfig
    from qagen.embed import CachedEmbedder, get_embedder
    from qagen.embed.ray_embed import ray_batches
    from qagen.ingest.ray_executor import parse_address

    embed, llm = EmbedConfig(), LLMConfig()
    batches = None
    if executor != "local":
        batches = ray_batches(
            "auto", embed.model_dump(mode="json"), llm.model_dump(mode="json"), parse_address(executor)
        )
    cached = CachedEmbedder(get_embedder("auto", embed, llm_config=llm), tmp / f"{executor[:3]}.sqlite",
                            map_batches=batches)  # fmt: skip
    start = time.perf_counter()
    vectors = cached.embed(texts)
    return time.perf_counter() - start, vectors.tobytes()


def _parsed(docs: Path) -> list:
    from qagen.config import ParseConfig
    from qagen.ingest import discover
    from qagen.ingest.run import parse_documents

    config = ParseConfig()
    return parse_documents(discover(docs, config.formats), docs, config).sections


def _sections(docs: Path) -> list[str]:
    from qagen.records import section_text

    return [section_text(s) for s in _parsed(docs)]


def _leakage(docs: Path, n: int, address: str) -> tuple[int, int, float, float, bool]:
    """The leakage search of ``n`` probes over every page: here, then on the cluster; (probes, pages, s, s, same)."""
    from qagen.config import PagesConfig
    from qagen.ingest.pages import build_pages
    from qagen.ingest.ray_executor import RayChunks
    from qagen.splits import _candidate_pages, _candidate_pages_chunked

    sections = _parsed(docs)
    texts = [p.text for p in build_pages(sections, PagesConfig())]
    step = max(1, len(sections) // n)
    probes = [" ".join(s.text.split()[:40]) for s in sections[::step]][:n]
    start = time.perf_counter()
    here = _candidate_pages(probes, texts, 5)
    local_s = time.perf_counter() - start
    start = time.perf_counter()
    there = _candidate_pages_chunked(probes, texts, 5, RayChunks(address, chunk_pages=1000))
    return len(probes), len(texts), local_s, time.perf_counter() - start, here == there


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
    parser.add_argument("--embed", type=int, default=0, help="also embed the first N sections")
    parser.add_argument("--leakage", type=int, default=0, help="also run the leakage search for N probes")
    args = parser.parse_args(argv)
    docs = Path(args.docs)
    os.environ["RAY_AUTH_MODE"] = "disabled"  # a cluster on 127.0.0.1 for the measurement
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    ray_bin = str(Path(sys.executable).with_name("ray"))
    rows = []
    embedded = leakage = None
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
        if args.embed:
            import tempfile

            texts = _sections(docs)[: args.embed]
            with tempfile.TemporaryDirectory() as tmp:
                local_s, local_v = _embed(texts, "local", Path(tmp))
                ray_s, ray_v = _embed(texts, f"ray:{address}", Path(tmp))
            embedded = (len(texts), local_s, ray_s, local_v == ray_v)
        leakage = _leakage(docs, args.leakage, address) if args.leakage else None
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
    if embedded:
        n, local_s, ray_s, same = embedded
        lines += [
            "",
            f"Embedding {n:,} sections with MiniLM: local (torch on {os.cpu_count()} cores) {local_s:.1f} s, "
            f"{n / local_s:.1f} sections/s; Ray, 2 worker nodes (one actor each, model load included) {ray_s:.1f} s, "
            f"{n / ray_s:.1f} sections/s ({local_s / ray_s:.2f}x); vectors identical to the bit: {same}.",
        ]
    if leakage:
        n, pages, local_s, ray_s, same = leakage
        lines += [
            "",
            f"The leakage check's search, {n:,} probes against {pages:,} pages: here {local_s:.1f} s; Ray, 2 worker "
            f"nodes, chunks of 1,000 pages {ray_s:.1f} s ({local_s / ray_s:.2f}x); candidates identical: {same}.",
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
