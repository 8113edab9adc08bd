"""embed: one vector per section (``embeddings.npy``, ``embedding_ids.json``); the build's embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qagen.records import section_text
from qagen.runner import BuildInputs, Stage, StageContext, StageOutput

if TYPE_CHECKING:
    from qagen.config import Config
    from qagen.embed import CachedEmbedder


def embed_choice(ctx: StageContext) -> tuple[Any, str | None]:
    """The embedder spec a build uses, and why when ``embed.backend = auto`` chose for the corpus's languages.

    An embedder passed to the build, or a backend other than ``auto``, is used as given;
    ``auto`` over a corpus mostly not in English takes TF-IDF/LSA (:func:`qagen.embed.choice.auto_choice`).
    """
    spec = ctx.build.embedder or ctx.config.embed.backend
    if spec != "auto" or "sections.jsonl" not in ctx.inputs:
        return spec, None
    from qagen.embed.choice import auto_choice
    from qagen.language import document_languages

    sections = ctx.inputs["sections.jsonl"]
    chosen = auto_choice(sections, document_languages(sections)[0])
    return chosen if chosen is not None else (spec, None)


def make_embedder(ctx: StageContext, spec: Any = None) -> CachedEmbedder:
    """The build's embedder, cached on disk; ``spec`` when the caller has already made :func:`embed_choice`."""
    from qagen.embed import CachedEmbedder, get_embedder

    if spec is None:
        spec, _ = embed_choice(ctx)
    embedder = get_embedder(spec, ctx.config.embed, llm_config=ctx.config.llm)
    return CachedEmbedder(embedder, ctx.cache_dir / "embeddings.sqlite", map_batches=_on_ray(ctx, spec, embedder))


def _on_ray(ctx: StageContext, spec: Any, embedder: Any) -> Any:
    """Batches computed on Ray when ``executor`` says so and the embedder can be made there from its spec: a
    local model (sentence-transformers, OpenVINO). TF-IDF learns its space from the whole corpus and an
    embedding server is already remote: both stay here."""
    executor = ctx.config.executor
    if executor == "local" or not isinstance(spec, str) or hasattr(embedder, "fit"):  # TF-IDF fits the corpus
        return None
    if spec.split(":", 1)[0] == "openai":
        return None
    from qagen.embed.ray_embed import ray_batches
    from qagen.ingest.ray_executor import parse_address

    return ray_batches(
        spec,
        ctx.config.embed.model_dump(mode="json"),
        ctx.config.llm.model_dump(mode="json"),
        parse_address(executor),
    )


def fingerprint(config: Config, build: BuildInputs) -> Any:
    """The embedder passed to the build, or the server an ``openai`` embedder borrows from ``[llm]``."""
    from qagen.embed.registry import embedder_identity

    return embedder_identity(build.embedder, config.embed, config.llm)


def run(ctx: StageContext) -> StageOutput:
    sections = ctx.inputs["sections.jsonl"]
    spec, why = embed_choice(ctx)
    if why:
        ctx.log(f"warning: embed: {why}")
    embedder = make_embedder(ctx, spec)
    vectors = embedder.embed([section_text(s) for s in sections])
    info: dict[str, Any] = {"embedder": embedder.id}
    if why:
        info["warnings"] = [why]
    return StageOutput(
        {"embeddings.npy": vectors, "embedding_ids.json": {"embedder": embedder.id, "ids": [s.id for s in sections]}},
        counts={"sections": len(sections), "dims": int(vectors.shape[1]) if len(sections) else 0},
        info=info,
    )


STAGE = Stage(
    name="embed",
    inputs=("sections.jsonl",),
    outputs=("embeddings.npy", "embedding_ids.json"),
    config=("embed",),
    run=run,
    fingerprint=fingerprint,
    description="section embeddings",
)
