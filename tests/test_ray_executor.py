"""The Ray executor on a real local Ray cluster (a head and a worker node started with ``ray start``).

Parsing through Ray writes the same artifacts as the local process pool; a worker killed mid-task
is retried by Ray; an interrupted driver resumes from the per-document parse cache.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.ci import skip_or_fail

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """``ray start --head`` and one worker node on this machine, one CPU each; stopped afterwards."""
    try:
        import ray
    except ImportError:
        skip_or_fail('Ray is not installed: pip install "qagen[ray]" (a test extra)')
    ray_bin = Path(sys.executable).with_name("ray")
    # a cluster on 127.0.0.1 for the test: no auth token (a real cluster keeps Ray's token auth; see docs/ray.md)
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tmp_path_factory.mktemp("ray")
    head = [str(ray_bin), "start", "--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
            f"--temp-dir={temp}", "--disable-usage-stats"]  # fmt: skip
    subprocess.run(head, check=True, env=env, capture_output=True, timeout=120)
    node = [str(ray_bin), "start", f"--address={address}", "--num-cpus=1", "--disable-usage-stats"]
    subprocess.run(node, check=True, env=env, capture_output=True, timeout=120)
    yield address
    import ray

    if ray.is_initialized():
        ray.shutdown()
    subprocess.run([str(ray_bin), "stop", "--force"], env=env, capture_output=True, timeout=120)
    if saved is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = saved


def _parse(executor: str, cache: Path | None = None, on_document=None):
    from qagen.config import ParseConfig
    from qagen.ingest import discover
    from qagen.ingest.run import parse_documents

    config = ParseConfig()
    paths = discover(EXAMPLES, config.formats)
    return parse_documents(paths, EXAMPLES, config, cache, on_document=on_document, executor=executor)


def test_a_build_on_the_cluster_gives_the_local_artifacts(cluster, tmp_path):
    from qagen import build

    local, remote = tmp_path / "local", tmp_path / "ray"
    build(EXAMPLES, local, overrides=['executor="local"'], until="embed")
    build(EXAMPLES, remote, overrides=[f'executor="ray:{cluster}"'], until="embed")
    for name in ("documents.jsonl", "sections.jsonl", "pages.jsonl", "embeddings.npy", "embedding_ids.json"):
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name


def test_a_worker_killed_mid_task_is_retried(cluster, tmp_path):
    import ray

    from qagen.ingest.ray_executor import run_on_ray
    from tests.support.ray_tasks import fails, slow_square

    markers = tmp_path / "markers"
    markers.mkdir()
    killed: list[int] = []

    def kill_first_worker() -> None:  # once a task has started, kill its worker process
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            started = sorted(markers.iterdir())
            if started:
                pid = int(started[0].read_text())
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_first_worker)
    watcher.start()
    outcomes = run_on_ray(slow_square, [(i, str(markers), 2.0) for i in range(4)], cluster, timeout_s=120)
    watcher.join()
    assert killed, "no task started"
    assert [o.status for o in outcomes] == ["ok"] * 4 and [o.value for o in outcomes] == [0, 1, 4, 9]
    victim = next(p.name.split("-")[0] for p in markers.iterdir() if int(p.name.split("-")[1]) == killed[0])
    assert len([p for p in markers.iterdir() if p.name.startswith(f"{victim}-")]) == 2  # its task ran again
    # an exception in the task is an error outcome (not retried), with its message
    [bad] = run_on_ray(fails, [(7,)], cluster, timeout_s=60)
    assert bad.status == "error" and "ValueError: bad input 7" in bad.detail
    # a task over its time limit is cancelled
    [slow] = run_on_ray(slow_square, [(3, str(markers), 30.0)], cluster, timeout_s=2)
    assert slow.status == "timeout"
    ray.shutdown()


def test_an_interrupted_driver_resumes_from_the_parse_cache(cluster, tmp_path):
    import ray

    cache = tmp_path / "cache"
    seen: list[str] = []

    def stop_after_three(rel: str) -> None:
        seen.append(rel)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _parse(f"ray:{cluster}", cache, stop_after_three)
    ray.shutdown()
    again = _parse(f"ray:{cluster}", cache)
    assert set(seen) <= set(again.reused) and len(again.reused) == 3  # the three finished ones are not parsed again
    ray.shutdown()


def test_the_local_executor_never_imports_ray(tmp_path):
    code = (
        "import sys\nfrom pathlib import Path\nfrom qagen import build\n"
        f"build(Path({str(EXAMPLES)!r}), Path({str(tmp_path / 'out')!r}), until='parse')\n"
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_embeddings_on_the_cluster_are_the_local_ones_to_the_bit(cluster, tmp_path):
    import ray

    from qagen.config import EmbedConfig, LLMConfig
    from qagen.embed import CachedEmbedder, get_embedder
    from qagen.embed.ray_embed import ray_batches

    lines = [line for p in sorted(EXAMPLES.glob("*.txt")) + sorted(EXAMPLES.glob("*.md"))
             for line in p.read_text(encoding="utf-8").splitlines() if len(line) > 20]  # fmt: skip
    texts = [" ".join(lines[i : i + 1 + i % 5]) for i in range(len(lines))]  # texts of varied lengths
    embed, llm = EmbedConfig(), LLMConfig()
    local = CachedEmbedder(get_embedder("auto", embed, llm_config=llm), tmp_path / "a.sqlite", commit_every=16)
    on_ray = ray_batches("auto", embed.model_dump(mode="json"), llm.model_dump(mode="json"), cluster)
    remote = CachedEmbedder(get_embedder("auto", embed, llm_config=llm), tmp_path / "b.sqlite", commit_every=16,
                            map_batches=on_ray)  # fmt: skip
    assert len(texts) > 4 * 16
    assert remote.embed(texts).tobytes() == local.embed(texts).tobytes()
    ray.shutdown()


def test_the_leakage_search_on_the_cluster_finds_the_local_candidates(cluster):
    # the other fold's pages searched in chunks of one page, each chunk a Ray task: the same leakage
    # measures as the search here, to the bit
    from qagen.config import SplitsConfig
    from qagen.ingest.ray_executor import RayChunks
    from qagen.splits import build_splits
    from tests.support.score_data import ITEMS, corpus

    sections, pages, assignments = corpus()

    class Counted(RayChunks):
        tasks = 0

        def __call__(self, fn, shared, chunks):
            self.tasks += len(chunks)
            return super().__call__(fn, shared, chunks)

    here = build_splits(ITEMS, pages, assignments, SplitsConfig(), sections=sections)
    chunks = Counted(cluster, chunk_pages=1)
    there = build_splits(ITEMS, pages, assignments, SplitsConfig(), sections=sections, chunks=chunks)
    assert there.leakage == here.leakage and there.crosseval == here.crosseval
    assert chunks.tasks == 2 * 2 * 2  # two cells with a corpus, two pages each: words, then candidates
    assert any(row["rouge"] > 0 for row in here.leakage["items"])  # the search found something to compare


def test_progress_shows_the_cluster(cluster):
    from qagen.ingest.clean import collapse_spaces
    from qagen.ingest.ray_executor import run_on_ray

    seen: list[str] = []
    outcomes = run_on_ray(collapse_spaces, [("a  b",), ("c   d",)], cluster, timeout_s=60, on_status=seen.append)
    assert [o.value for o in outcomes] == ["a b", "c d"]
    assert seen and seen[0].startswith("2 nodes, 2 CPUs") and any(text.endswith("running") for text in seen)
