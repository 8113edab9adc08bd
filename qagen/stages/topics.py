"""topics: BERTopic over the section embeddings (``topics.json``, ``reduced.npy``; ``topic_model/`` when asked)."""

from __future__ import annotations

from qagen.records import section_text, to_dict
from qagen.runner import BuildError, Stage, StageContext, StageOutput

TOPIC_MODEL = "topic_model"


def run(ctx: StageContext) -> StageOutput:
    """Fit BERTopic; with ``topics.save_model`` the runner also writes the model to ``OUT/topic_model``."""
    from qagen.language import document_languages
    from qagen.topics import fit_topics, save_model

    sections = ctx.inputs["sections.jsonl"]
    doc_language = document_languages(sections)[0]
    languages = sorted(set(doc_language.values())) if ctx.config.topics.stop_words == "auto" else []
    groups = None
    if ctx.config.topics.by_language == "auto":
        groups = [doc_language.get(s.doc_id, "und") for s in sections]
    ids = ctx.inputs["embedding_ids.json"]["ids"]
    if ids != [s.id for s in sections]:
        raise RuntimeError("embeddings.npy does not match sections.jsonl; rerun with --force embed")
    try:
        result = fit_topics(
            [section_text(s) for s in sections],
            ctx.inputs["embeddings.npy"],
            [s.doc_id for s in sections],
            ctx.config.topics,
            seed=ctx.config.seed,
            languages=languages,
            groups=groups,
            fit=[s.kind not in ctx.config.topics.leave_out_kinds for s in sections],
        )
    except ValueError as exc:  # too few sections or topics: a corpus problem, said in one line
        raise BuildError(f"topics: {exc}") from None
    labels = [int(x) for x in result.labels]
    metrics = dict(result.metrics)
    fit_s = metrics.pop("fit_s", None)  # a timing: kept out of the artifact so it stays byte-identical
    data = {
        "params": result.params,
        "metrics": metrics,
        "topics": [to_dict(t) for t in result.topics],
        "section_topics": dict(zip(ids, labels, strict=True)),
        "stop_words": {"setting": ctx.config.topics.stop_words, "languages": languages},
    }
    outliers = sum(1 for x in labels if x == -1)
    folders = {TOPIC_MODEL: lambda folder: save_model(result, folder)} if ctx.config.topics.save_model else {}
    return StageOutput(
        {"topics.json": data, "reduced.npy": result.reduced},
        counts={"topics": len(result.topics), "outliers": outliers, "sections": len(labels)},
        info={"fit_seconds": fit_s},
        folders=folders,
    )


STAGE = Stage(
    name="topics",
    inputs=("sections.jsonl", "embeddings.npy", "embedding_ids.json"),
    outputs=("topics.json", "reduced.npy"),
    config=("topics",),
    run=run,
    description="BERTopic topics",
    folders=(TOPIC_MODEL,),
)
