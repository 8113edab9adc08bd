"""Near-duplicate removal at scale: time and peak memory of ``greedy_dedup``.

Random-ish question embeddings: unit vectors in 384 dimensions drawn around a few hundred
"topic" directions, plus noisy copies of some of them (the near-duplicates to find). The
full similarity matrix of 100,000 vectors would take 40 GB in float32; the blockwise pass
needs the vectors plus about ``block_size x 8192`` floats.

    python benchmarks/dedup_scale.py [--sizes 10000 100000] [--block 1024] [--threshold 0.9]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from measure import peak_rss_mb

from qagen.filters.dedup import greedy_dedup


def make_vectors(n: int, dim: int = 384, dup_share: float = 0.2, seed: int = 0) -> np.ndarray:
    """``n`` unit vectors: topic direction + noise, a ``dup_share`` of them near-copies of others."""
    rng = np.random.default_rng(seed)
    n_dup = int(n * dup_share)
    topics = rng.normal(size=(max(n // 300, 2), dim)).astype(np.float32)
    base = topics[rng.integers(0, len(topics), n - n_dup)] + rng.normal(scale=1.2, size=(n - n_dup, dim)).astype(
        np.float32
    )
    copies = base[rng.integers(0, len(base), n_dup)] + rng.normal(scale=0.25, size=(n_dup, dim)).astype(np.float32)
    x = np.concatenate([base, copies])[rng.permutation(n)]
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def run(n: int, block: int, threshold: float) -> dict[str, float]:
    x = make_vectors(n)
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    result = greedy_dedup(x, threshold, block_size=block)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "n": n,
        "block": block,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "dropped": int((~result.keep).sum()),
        "peak_mb": peak / 2**20,
        "input_mb": x.nbytes / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--block", type=int, nargs="+", default=[1024])
    parser.add_argument("--threshold", type=float, default=0.9)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| vectors | block | wall s | CPU s | dropped | peak extra MB (tracemalloc) | input MB |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for block in args.block:
            r = run(n, block, args.threshold)
            print(
                f"| {r['n']:,} x 384 | {r['block']} | {r['seconds']:.2f} | {r['cpu_seconds']:.2f} | {r['dropped']:,} | "
                f"{r['peak_mb']:.0f} | {r['input_mb']:.0f} |",
                flush=True,
            )
    rss = peak_rss_mb()
    print(f"\nprocess max RSS: {rss:.0f} MB (includes the input vectors and Python/numpy)")


if __name__ == "__main__":
    main()
