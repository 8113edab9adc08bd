"""Section embeddings computed on a Ray cluster (``executor = "ray"``): one actor per CPU holds the model.

:class:`~qagen.embed.CachedEmbedder` hands over the batches it would compute itself (512 texts each,
in the same order), and each actor embeds whole batches with the same embedder spec, so the vectors
are the ones a local build computes, to the bit (sentence-transformers gives the same vectors for
the same batch whatever the number of threads; a batch split differently would not). Results come
back as each batch is done and go into the embedding cache at once, so an interrupted build keeps
them. An actor whose worker dies is restarted by Ray and its batch retried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

MAX_RESTARTS = 3


class _BatchEmbedder:
    """A Ray actor: loads the embedder once, embeds whole batches."""

    def __init__(self, spec: str, embed_config: dict[str, Any], llm_config: dict[str, Any]) -> None:
        from qagen.config import EmbedConfig, LLMConfig
        from qagen.embed import get_embedder

        self.embedder = get_embedder(spec, EmbedConfig(**embed_config), llm_config=LLMConfig(**llm_config))

    def embed(self, index: int, texts: list[str]) -> tuple[int, np.ndarray]:
        return index, np.asarray(self.embedder.embed(texts), dtype=np.float32)


def ray_batches(
    spec: str, embed_config: dict[str, Any], llm_config: dict[str, Any], address: str | None
) -> Callable[[list[list[str]]], Iterator[tuple[int, np.ndarray]]]:
    """A ``map_batches`` for :class:`~qagen.embed.CachedEmbedder` that embeds on the Ray cluster at ``address``."""

    def run(batches: list[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
        from tqdm import tqdm

        from qagen.ingest.ray_executor import cluster_size, connect

        ray = connect(address)
        from ray.util import ActorPool

        cpus, nodes = cluster_size(ray)
        n = max(1, min(len(batches), cpus))
        actor = ray.remote(num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=MAX_RESTARTS)(_BatchEmbedder)
        pool = ActorPool([actor.remote(spec, embed_config, llm_config) for _ in range(n)])
        # a bar on a terminal (none in logs): batches done across the cluster
        with tqdm(total=len(batches), desc="embed", unit="batch", disable=None, mininterval=0.5) as bar:
            bar.set_postfix_str(f"ray: {nodes} node{'s' * (nodes != 1)}, {n} model{'s' * (n != 1)}", refresh=False)
            for done in pool.map_unordered(lambda a, job: a.embed.remote(*job), list(enumerate(batches))):
                bar.update()
                yield done

    return run
