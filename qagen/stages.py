"""The pipeline's stages: thin glue from loaded artifacts to the pure stage logic.

Each function takes a :class:`~qagen.runner.StageContext` and returns a
:class:`~qagen.runner.StageOutput`; the runner reads and writes the files.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from pathlib import Path
from typing import Any

from qagen.io import sha256_file
from qagen.records import FoldAssignment, Section, Topic, to_dict
from qagen.runner import BuildError, StageContext, StageOutput, StageStop

logger = logging.getLogger("qagen.build")  # details shown with -v


def section_text(section: Section) -> str:
    """The text a section is embedded and clustered by: heading plus body."""
    return f"{section.heading}\n{section.text}".strip()


# --- parse -----------------------------------------------------------------------------


def _docs_fingerprint(config: Any, extra: dict[str, Any]) -> Any:
    from qagen.ingest.discover import relative_name

    root: Path = extra["docs_dir"]
    docs = [(relative_name(p, root), sha256_file(p)) for p in extra["doc_paths"]]
    skipped = _skipped_files(config, extra)
    return {"documents": docs, "skipped": skipped} if skipped else docs


def _skipped_files(config: Any, extra: dict[str, Any]) -> list[tuple[str, str]]:
    """The files of the documents folder that are not parsed, with the reason (scanned once per build)."""
    if "skipped_files" not in extra:
        from qagen.ingest import scan

        extra["skipped_files"] = scan(extra["docs_dir"], config.parse.formats, symlinks=config.parse.symlinks).skipped
    return [list(x) for x in extra["skipped_files"]]


MAX_SKIPPED_SHOWN = 10


def run_parse(ctx: StageContext) -> StageOutput:
    """Parse the documents; say what was skipped or failed and why (every document with ``-v``)."""
    from qagen.ingest import parse_documents  # raises NoUsableDocumentsError when nothing parses

    result = parse_documents(
        ctx.extra["doc_paths"],
        root=ctx.extra["docs_dir"],
        config=ctx.config.parse,
        cache_dir=ctx.cache_dir / "parse",
        progress=ctx.progress,
    )
    skipped = _skipped_files(ctx.config, ctx.extra)
    _log_parse(ctx, result, skipped)
    ok = sum(d.status == "ok" for d in result.documents)
    return StageOutput(
        {"documents.jsonl": result.documents, "sections.jsonl": result.sections},
        counts={
            "documents": len(result.documents),
            "parsed": ok,
            "failed": sum(d.status == "failed" for d in result.documents),
            "problems": len(result.problems),
            "sections": len(result.sections),
            "cached": len(result.reused),
            **({"skipped_files": len(skipped)} if skipped else {}),
        },
        errors=[to_dict(p) for p in result.problems],
        info={"skipped_files": [{"path": rel, "reason": why} for rel, why in skipped]} if skipped else {},
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _log_parse(ctx: StageContext, result: Any, skipped: list[tuple[str, str]]) -> None:
    reused = set(result.reused)
    for doc in result.documents:  # failed documents are warnings below
        if doc.status == "ok":
            cached = " (from the parse cache)" if doc.path in reused else ""
            size = f"{_plural(doc.n_sections, 'section')}, {_plural(doc.n_pages, 'page')}"
            encoding = f", {doc.encoding}" if doc.encoding else ""
            logger.info("parse: %s: ok, %s%s%s", doc.path, size, encoding, cached)
            if doc.encoding and ("replaced" in doc.encoding or "fallback" in doc.encoding):
                ctx.log(f"warning: {doc.path}: text encoding {doc.encoding}; check the file's characters")
    for problem in result.problems:
        ctx.log(f"warning: {problem.path}: {problem.reason}: {problem.detail}")
    for k, (rel, why) in enumerate(skipped):
        if k < MAX_SKIPPED_SHOWN:
            ctx.log(f"skipped {rel}: {why}")
        else:
            logger.info("skipped %s: %s", rel, why)
    if len(skipped) > MAX_SKIPPED_SHOWN:
        ctx.log(f"skipped {len(skipped) - MAX_SKIPPED_SHOWN} more file(s) (-v lists them; manifest.json has them all)")


# --- pages ------------------------------------------------------------------------------


def run_pages(ctx: StageContext) -> StageOutput:
    from qagen.ingest import build_pages

    pages = build_pages(ctx.inputs["sections.jsonl"], ctx.config.pages)
    tokens = sorted(p.n_tokens for p in pages)
    median = tokens[len(tokens) // 2] if tokens else 0
    return StageOutput({"pages.jsonl": pages}, counts={"pages": len(pages), "median_tokens": median})


# --- embed ------------------------------------------------------------------------------


ENGLISH_MODEL_MIN_SHARE = 0.5  # below this share of English text, embed.backend = auto does not take MiniLM


def embed_choice(ctx: StageContext) -> tuple[Any, str | None]:
    """The embedder spec a build uses, and why when ``auto`` chose for the corpus's languages.

    The bundled MiniLM reads English only: a corpus mostly in other languages gets TF-IDF/LSA
    (language-agnostic), with the reason; a multilingual sentence-transformers model on disk is
    used when configured (``embed.backend = "sentence-transformers:/path"``).
    """
    spec = ctx.extra.get("embedder") or ctx.config.embed.backend
    if spec != "auto" or "sections.jsonl" not in ctx.inputs:
        return spec, None
    from qagen.generate.language import document_languages, language_name

    sections = ctx.inputs["sections.jsonl"]
    languages, _ = document_languages(sections)
    chars: Counter[str] = Counter()
    for section in sections:
        chars[languages.get(section.doc_id, "en").split("-")[0]] += len(section.text)
    total = sum(chars.values())
    if not total or chars["en"] / total >= ENGLISH_MODEL_MIN_SHARE:
        return spec, None
    named = ", ".join(f"{language_name(c)} {100 * n / total:.0f} %" for c, n in chars.most_common(4))
    return "tfidf", (
        f"embed.backend = auto: the documents are mostly not in English ({named}) and the bundled MiniLM "
        "reads English only, so sections are embedded with TF-IDF/LSA; for better topics set "
        'embed.backend = "sentence-transformers:/path/to/a-multilingual-model" (e.g. '
        "paraphrase-multilingual-MiniLM-L12-v2 downloaded beforehand)"
    )


def make_embedder(ctx: StageContext, spec: Any = None) -> Any:
    """The build's embedder, cached on disk; ``spec`` when the caller has already made :func:`embed_choice`."""
    from qagen.embed import CachedEmbedder, get_embedder

    if spec is None:
        spec, _ = embed_choice(ctx)
    embedder = get_embedder(spec, ctx.config.embed, llm_config=ctx.config.llm)
    return CachedEmbedder(embedder, ctx.cache_dir / "embeddings.sqlite")


def _embedder_fingerprint(config: Any, extra: dict[str, Any]) -> Any:
    obj = extra.get("embedder")
    spec = str(config.embed.backend)
    if obj is None and spec.startswith("openai") and "@" not in spec and not config.embed.base_url:
        from qagen.embed.registry import llm_base_url

        # an openai embedder without a URL of its own takes the LLM's server: part of its identity
        return {"llm_base_url": llm_base_url(config.llm)}
    return getattr(obj, "id", obj)


def run_embed(ctx: StageContext) -> StageOutput:
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


# --- topics -----------------------------------------------------------------------------


def run_topics(ctx: StageContext) -> StageOutput:
    """Fit BERTopic; with ``topics.save_model`` also save the model to ``OUT/topic_model`` (a side artifact)."""
    from qagen.generate.language import document_languages
    from qagen.topics import fit_topics

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
        )
    except ValueError as exc:  # too few sections or topics: a corpus problem, said in one line
        raise BuildError(f"topics: {exc}") from None
    files = _save_topic_model(result, ctx.cache_dir.parent, ctx.config.topics.save_model)
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
    return StageOutput(
        {"topics.json": data, "reduced.npy": result.reduced},
        counts={"topics": len(result.topics), "outliers": outliers, "sections": len(labels)},
        info={"fit_seconds": fit_s},
        files=files,
    )


TOPIC_MODEL = "topic_model"


def _save_topic_model(result: Any, out_dir: Path, save: bool) -> list[str]:
    """With ``topics.save_model``, save the fitted BERTopic model to ``OUT/topic_model``; return its files.

    The folder is written beside the artifacts as a temporary folder, then renamed into
    place, so it is whole or absent; the runner hashes its files with the stage's outputs.
    Without ``save_model`` a folder left by an earlier build is removed: it would not match
    ``topics.json``.
    """
    import shutil
    import uuid

    target = out_dir / TOPIC_MODEL
    if not save:
        if target.is_dir():
            shutil.rmtree(target)
        return []
    from qagen.topics import save_model

    tmp = out_dir / f".{TOPIC_MODEL}.{uuid.uuid4().hex}.tmp"  # hidden, *.tmp: a killed build's is cleaned up
    old = None
    try:
        tmp.mkdir()  # (mkdtemp would make it private; the umask decides, as for every artifact)
        save_model(result, tmp)
        if target.exists():
            old = out_dir / f".{TOPIC_MODEL}.{uuid.uuid4().hex}.tmp"
            target.rename(old)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return sorted(p.relative_to(out_dir).as_posix() for p in target.rglob("*") if p.is_file())


# --- folds ------------------------------------------------------------------------------


def _unit_ids(sections: list[Section], pages: list[Any], unit: str) -> list[str]:
    if unit == "document":
        return [s.doc_id for s in sections]
    page_of = {sid: p.id for p in pages for sid in p.section_ids}
    return [page_of[s.id] for s in sections]


# With unit=auto, whole documents are the unit when they keep at least this share of the sections.
AUTO_DOCUMENT_VALID_PCT = 50.0


def _auto_unit(fit: Any) -> tuple[Any, str]:
    """Whole documents when they can be kept apart (the paper's leaflets), else emulated pages (manuals).

    Per document, a document whose sections fall in both folds' topics is dropped whole: fine for
    many short single-topic documents, ruinous for a few long manuals that cover every topic.
    """
    try:
        by_doc = fit("document")
    except ValueError:
        by_doc = None
    by_page = fit("page")
    if by_doc is not None:
        valid = by_doc.metrics_["valid_sections_pct"]
        below = by_doc.chosen_.get("reason")
        whole = _whole_groups(by_doc) - _whole_groups(by_page)
        if valid >= AUTO_DOCUMENT_VALID_PCT and not below and not whole:
            return by_doc, f"auto: whole documents keep {valid:.0f}% of the sections"
        if whole:
            why = f"per document {', '.join(sorted(whole))} would sit in one fold"
        elif below:
            why = "no balanced split"
        else:
            why = f"whole documents would keep {valid:.0f}% of the sections"
    else:
        why = "every split by document leaves a fold empty"
    return by_page, f"auto: per page, as {why} (documents need {AUTO_DOCUMENT_VALID_PCT:.0f}%)"


def _whole_groups(builder: Any) -> set[str]:
    """The groups (languages) a fit put whole in one fold because no split of theirs kept both halves."""
    return {g for g, why in builder.whole_groups_.items() if why == "no split keeps both halves"}


def _folds_fingerprint(config: Any, extra: dict[str, Any]) -> Any:
    return {"source_kinds": list(config.generate.source_kinds)}


def run_folds(ctx: StageContext) -> StageOutput:
    from qagen.folds import FoldBuilder

    cfg = ctx.config.folds
    sections: list[Section] = ctx.inputs["sections.jsonl"]
    topics = ctx.inputs["topics.json"]
    labels = [topics["section_topics"][s.id] for s in sections]
    kinds = ctx.config.generate.source_kinds
    eligible = [s.kind in kinds for s in sections]
    left_out = Counter(s.kind for s in sections if s.kind not in kinds)
    if left_out:
        shown = ", ".join(f"{n} {k}" for k, n in left_out.most_common())
        ctx.log(f"folds: sampling {', '.join(kinds)} sections only; not sampled: {shown} (generate.source_kinds)")
    import warnings

    import numpy as np

    from qagen.generate.language import document_languages

    doc_language, _ = document_languages(sections)  # for the groups and for the languages per fold
    groups = None
    if cfg.by_language == "auto":
        groups = np.asarray([doc_language.get(s.doc_id, "und") for s in sections])

    def fit(unit: str) -> Any:
        builder = FoldBuilder(
            n_folds=cfg.n_folds,
            distance=cfg.distance,
            linkage=cfg.linkage,
            unit=unit,
            test_size=cfg.test_size,
            min_fold_ratio=cfg.min_fold_ratio,
            samples_total=None if cfg.samples_per_fold else cfg.samples_total,
            samples_per_fold=cfg.samples_per_fold,
            sample_test_share=cfg.sample_test_share,
            max_clusters=cfg.max_clusters,
            seed=ctx.config.seed,
            on_imbalance="raise" if cfg.on_imbalance == "error" else "warn",
            few_topics="documents" if cfg.few_topics == "documents" else "raise",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same warnings are logged from builder.warnings_
            builder.fit(
                ctx.inputs["reduced.npy"],
                np.asarray(labels),
                np.asarray(_unit_ids(sections, ctx.inputs["pages.jsonl"], unit)),
                docs=[s.doc_id for s in sections],
                eligible=np.asarray(eligible, dtype=bool),
                groups=groups,
            )
        return builder

    unit_note = ""
    try:
        if cfg.unit == "auto":
            builder, unit_note = _auto_unit(fit)
            ctx.log(f"folds: unit {builder.unit} ({unit_note}; folds.unit)")
        else:
            builder = fit(cfg.unit)
    except ValueError as exc:  # too few topics, or every unit mixed: the user's next step is in it
        raise BuildError(f"folds: {exc} (config keys: folds.min_fold_ratio, folds.max_clusters, folds.unit)") from None
    assignments = builder.to_records([s.id for s in sections])
    for warning in builder.warnings_:
        ctx.log(f"warning: folds: {warning}")
    data = {
        "chosen": builder.chosen_,
        "metrics": builder.metrics_,
        "candidates": builder.candidates_,
        "topic_folds": {str(k): v for k, v in builder.topic_folds_.items()},
        "unit_folds": {str(k): v for k, v in builder.unit_folds_.items()},
        "unit_splits": {str(k): v for k, v in builder.unit_splits_.items()},
        "conflict_units": sorted(str(u) for u in builder.conflict_units_),
        "warnings": list(builder.warnings_),
    }
    if unit_note:
        data["unit_choice"] = unit_note
    data["source_kinds"] = list(kinds)
    data["section_kinds"] = dict(Counter(s.kind for s in sections).most_common())
    data["languages"], data["language_warnings"] = _fold_languages(sections, assignments, doc_language)
    for warning in data["language_warnings"]:
        ctx.log(f"warning: folds: {warning}")
    status = Counter(a.status for a in assignments)
    return StageOutput(
        {"folds.json": data, "assignments.jsonl": assignments},
        counts={**dict(status), "sampled": sum(a.sampled for a in assignments)},
    )


LANGUAGE_FOLD_SHARE = 0.9  # a language with this share of its sections in one fold is said to follow the folds
LANGUAGE_MIN_SECTIONS = 10


def _fold_languages(
    sections: list[Any], assignments: list[Any], languages: dict[str, str]
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Kept sections per fold and language, and a warning for each language that sits in one fold.

    When folds follow languages (a Dutch fold and an Italian one), "refuse the other fold's
    questions" partly measures "refuse questions in another language".
    """
    from qagen.generate.language import language_name

    by_fold: dict[int, Counter[str]] = {}
    for section, a in zip(sections, assignments, strict=True):
        if a.status == "kept" and a.fold is not None:
            by_fold.setdefault(a.fold, Counter())[languages.get(section.doc_id, "und")] += 1
    table = {str(f): dict(c.most_common()) for f, c in sorted(by_fold.items())}
    if len({lang for c in by_fold.values() for lang in c}) < 2:
        return table, []
    warnings = []
    totals = sum(by_fold.values(), Counter())
    for lang, total in totals.most_common():
        fold, most = max(((f, c[lang]) for f, c in by_fold.items()), key=lambda fc: fc[1])
        if total >= LANGUAGE_MIN_SECTIONS and most / total >= LANGUAGE_FOLD_SHARE:
            warnings.append(
                f"{100 * most / total:.0f} % of the {total} {language_name(lang)} sections are in fold {fold}: "
                "the folds follow the languages, so refusing the other fold's questions partly means refusing "
                "another language; embed with a multilingual model or build each language apart"
            )
    return table, warnings


# --- shared by generate / filter -------------------------------------------------------


def topics_by_id(data: dict[str, Any]) -> dict[int, Topic]:
    from qagen.records import from_dict

    return {t["id"]: from_dict(Topic, t) for t in data["topics"]}


def sampled(assignments: list[FoldAssignment]) -> list[FoldAssignment]:
    return [a for a in assignments if a.sampled]


# --- generate ---------------------------------------------------------------------------


def effective_generate_config(config: Any, sections: list[Section]) -> Any:
    """The [generate] section with ``phone_region = auto`` resolved from the corpus."""
    gen = config.generate
    if gen.phone_region != "auto":
        return gen
    from qagen.generate.entities import infer_phone_region

    return gen.model_copy(update={"phone_region": infer_phone_region(s.text for s in sections)})


def _llm_id(obj: Any, config: Any) -> Any:
    """A backend spec as given; an LLM object by its id (a LangChain model's names its class, model, settings).

    Credentials in a URL are left out: a new password is no reason to generate again.
    """
    from qagen.llm.engine import public_id

    if obj is None:
        return obj
    if isinstance(obj, str):
        return public_id(obj)
    from qagen.llm import get_llm

    return public_id(get_llm(obj, config.llm).id)


def _generate_fingerprint(config: Any, extra: dict[str, Any]) -> Any:
    from qagen.generate.prompts import prompt_fingerprint

    obj = _llm_id(extra.get("llm"), config)
    few_shot = config.generate.few_shot_file
    few_shot_hash = sha256_file(few_shot) if few_shot and Path(few_shot).is_file() else None
    return {"llm": obj, "prompts": prompt_fingerprint(extra.get("prompts_dir")), "few_shot": few_shot_hash}


def _splits_fingerprint(config: Any, extra: dict[str, Any]) -> Any:
    """The embedder, and when the answerability judge may run, the LLM and the judge prompt."""
    fp: dict[str, Any] = {"embedder": _embedder_fingerprint(config, extra)}
    judge = config.splits.answerability_judge
    backend = extra.get("llm") or config.llm.backend
    if config.splits.answerability and (judge == "on" or (judge == "auto" and backend != "extractive")):
        from qagen.answerability import load_answerability_prompt

        fp.update(llm=_llm_id(backend, config), prompt=load_answerability_prompt(extra.get("prompts_dir")).hash)
    return fp


def _generation_context(ctx: StageContext, gen_cfg: Any) -> Any:
    from qagen.generate import GenerationContext

    return GenerationContext.build(
        ctx.inputs["sections.jsonl"],
        ctx.inputs["pages.jsonl"],
        ctx.inputs["assignments.jsonl"],
        seed=ctx.config.seed,
        config=gen_cfg,
        documents=ctx.inputs["documents.jsonl"],
    )


def run_generate(ctx: StageContext) -> StageOutput:
    gen_cfg = effective_generate_config(ctx.config, ctx.inputs["sections.jsonl"])
    gctx = _generation_context(ctx, gen_cfg)
    backend = ctx.extra.get("llm") or ctx.config.llm.backend
    counts: dict[str, Any] = {
        "sampled_sections": len(gctx.sampled),
        "phone_region": gen_cfg.phone_region,
        "language": gctx.language,
    }
    if backend == "extractive":
        from qagen.generate.extractive import EXTRACTIVE_NOTICE, generate_extractive, offline_language_warning

        if ctx.extra.get("dry_run"):
            raise DryRun({"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}, "extractive")
        ctx.log(EXTRACTIVE_NOTICE)
        items, failures, info = generate_extractive(gctx), [], {"llm": {"backend": "extractive"}}
        languages = {gctx.sections[sid].doc_id: gctx.language_of(sid) for sid in gctx.sampled}
        warnings = [w for w in (_offline_mix_warning(gen_cfg), offline_language_warning(languages, gen_cfg.types)) if w]
        for warning in warnings:
            ctx.log(f"warning: generate: {warning}")
        if warnings:
            info["warnings"] = warnings
    else:
        items, failures, info = _generate_with_llm(ctx, gctx, gen_cfg, backend)
    incomplete = _unfinished(info["llm"], ctx.config.llm.cache_failures)
    by_type = Counter(it.type for it in items)
    counts.update(
        {
            "candidates": len(items),
            **{f"candidates_{k}": v for k, v in sorted(by_type.items())},
            "failed_requests": sum(f.filter == "generation" for f in failures),
            "exact_repeats": sum(f.filter == "exact_repeat" for f in failures),
        }
    )
    if "s3_fallbacks" in info:  # S3 requests asked as S2: no related section in another document
        counts["mcq_s3_requested_as_s2"] = fell_back = info.pop("s3_fallbacks")
        if fell_back:
            ctx.log(
                f"warning: generate: {fell_back} MCQ request(s) for scenario S3 were asked as S2: their section has "
                "no related section in another document of its fold (generate.scenario_mix)"
            )
    return StageOutput(
        {"candidates.jsonl": items, "generation_failures.jsonl": failures},
        counts=counts,
        errors=[{"request": f.id, "reason": f.reason} for f in failures[:50]],
        info=info,
        incomplete=incomplete,
    )


def _offline_mix_warning(gen_cfg: Any) -> str | None:
    """The Bloom levels and scenarios asked for that the offline generator cannot write, said plainly."""
    if "mcq" not in gen_cfg.types or gen_cfg.mcq_per_section == 0:
        return None
    bloom = sorted(k for k, w in gen_cfg.bloom_mix.items() if w > 0 and k != "B1")
    scenario = sorted(k for k, w in gen_cfg.scenario_mix.items() if w > 0 and k != "S1")
    if not bloom and not scenario:
        return None
    asked = ", ".join(bloom + scenario)
    return (
        f"the offline generator writes multiple-choice questions at B1 (remember) and S1 (one fact) only; "
        f"{asked} in generate.bloom_mix / generate.scenario_mix need an LLM backend ([llm] backend)"
    )


def _unfinished(stats: dict[str, Any], cache_failures: bool) -> str | None:
    """Why an LLM run left work that a rerun would do, else None.

    A rerun resends requests that were not run (budget, stop) and those that failed after
    their retries (timeouts, 5xx, connection errors); a reply still invalid after its
    repairs is settled when failures are cached (the rerun replays it, paying nothing).
    """
    from qagen.llm.structured import REPLY_ERROR_KINDS

    settled = REPLY_ERROR_KINDS if cache_failures else frozenset()
    unsettled = sum(n for kind, n in stats.get("errors", {}).items() if kind not in settled)
    parts = []
    if stats.get("stopped_reason"):
        parts.append(f"stopped: {stats['stopped_reason']}")
    if stats.get("not_run"):
        parts.append(f"{stats['not_run']} request(s) not run")
    if unsettled:
        parts.append(f"{unsettled} request(s) failed and will be sent again")
    if not parts:
        return None
    return "; ".join(parts) + "; rerun the same command to finish (completed requests are cached)"


def _generate_with_llm(ctx: StageContext, gctx: Any, gen_cfg: Any, backend: Any) -> tuple[list, list, dict]:
    from qagen.generate.replies import items_from_results
    from qagen.generate.requests import plan_requests
    from qagen.llm import LLMEngine, get_llm
    from qagen.llm.engine import public_id

    llm = get_llm(backend, ctx.config.llm)
    planned = plan_requests(gctx, ctx.extra.get("prompts_dir"), gen_cfg, llm=ctx.config.llm)
    engine = LLMEngine(llm, ctx.config.llm, cache_path=ctx.cache_dir / "llm.sqlite", progress=ctx.progress)
    if ctx.extra.get("dry_run"):
        from qagen.config import LLMConfig
        from qagen.generate.estimate import dry_run_estimate

        defaults = LLMConfig().prices
        estimate = dry_run_estimate(engine, planned, gctx.sections, gen_cfg.long_form_per_section, defaults)
        raise DryRun(estimate, public_id(llm.id))
    results = engine.run([p.request for p in planned], [p.response_model for p in planned])
    items, failures = items_from_results(
        planned, [r.value for r in results], gctx, public_id(llm.id), llm.model, [r.error for r in results]
    )
    stats = engine.stats.to_dict()
    if stats.get("stopped_reason"):
        ctx.log(f"warning: generation stopped early: {stats['stopped_reason']} (results so far are kept)")
    fallbacks = sum(bool(p.meta.get("scenario_fallback")) for p in planned)
    return items, failures, {"llm": {"backend": public_id(llm.id), **stats}, "s3_fallbacks": fallbacks}


class DryRun(StageStop):
    """Raised by the generate stage under ``--dry-run`` with the engine's estimate."""

    def __init__(self, estimate: dict[str, Any], backend: str) -> None:
        super().__init__("dry run")
        self.estimate = estimate
        self.backend = backend


# --- filter -----------------------------------------------------------------------------


def run_filter(ctx: StageContext) -> StageOutput:
    from qagen.filters import FilterContext, run_filters
    from qagen.filters.prompt_copy import prompt_reference_texts
    from qagen.generate.context import document_titles

    sections = ctx.inputs["sections.jsonl"]
    gen_cfg = effective_generate_config(ctx.config, sections)
    embedder = make_embedder(ctx)
    fctx = FilterContext(
        sections={s.id: s for s in sections},
        embed=embedder.embed,
        phone_region=gen_cfg.phone_region,
        entity_kinds=tuple(gen_cfg.entity_kinds),
        titles=document_titles(sections, ctx.inputs["documents.jsonl"]),
        prompt_texts=prompt_reference_texts(ctx.extra.get("prompts_dir") or gen_cfg.prompts_dir, gen_cfg.few_shot_file),
    )
    from qagen.diversity import diversity_by_type
    from qagen.filters.base import reject
    from qagen.generate.variants import achieved, make_variants

    result = run_filters(ctx.inputs["candidates.jsonl"], fctx, ctx.config.filter)
    rejected = list(ctx.inputs["generation_failures.jsonl"]) + result.rejected
    mix = gen_cfg.formulation_mix
    variants, failed = make_variants(result.accepted, mix, ctx.config.seed)
    accepted = [*result.accepted, *variants]
    rejected += [reject(v, "variant", why) for v, why in failed]
    formulations = achieved([it for it in accepted if it.type in ("long_form", "factoid")], mix)
    for name, row in formulations.items():
        if abs(row["share"] - row["asked"]) > 0.05 and (row["asked"] or row["items"]):
            ctx.log(
                f"warning: filter: {name} questions are {row['share']:.0%} of the long-form and factoid items, "
                f"asked {row['asked']:.0%} (generate.formulation_mix): too few questions could be rephrased"
            )
    result = dataclasses.replace(result, accepted=accepted)
    by_type = Counter(it.type for it in result.accepted)
    # how varied the questions are, before and after the filters (the embeddings are the dedup filter's, cached)
    varied = {
        "candidates": diversity_by_type(ctx.inputs["candidates.jsonl"], embedder.embed),
        "accepted": diversity_by_type(result.accepted, embedder.embed),
    }
    return StageOutput(
        {
            "items.jsonl": result.accepted,
            "rejected.jsonl": rejected,
            "funnel.json": {
                "funnel": result.funnel,
                "stats": result.stats,
                "diversity": varied,
                "formulation": formulations,
            },
        },
        counts={
            "candidates": len(ctx.inputs["candidates.jsonl"]),
            "accepted": len(result.accepted),
            "rejected": len(rejected),
            **{f"accepted_{k}": v for k, v in sorted(by_type.items())},
            **{f"variants_{f}": sum(v.formulation == f for v in variants) for f in ("search", "noisy") if mix.get(f)},
        },
        info={"funnel": result.funnel, "diversity": varied["accepted"]["all"]},
    )


# --- splits -----------------------------------------------------------------------------


def _remaining_budget(ctx: StageContext) -> Any:
    """The config with what is left of ``llm.max_requests`` / ``llm.max_cost_usd`` after generation.

    The budgets bound a whole build: the answerability judge may spend only what generation
    left. None when nothing is left (the judge does not run; the offline verdicts stand).
    """
    llm = ctx.config.llm
    if llm.max_requests is None and llm.max_cost_usd is None:
        return ctx.config
    spent = (ctx.manifest.get("stages", {}).get("generate") or {}).get("llm") or {}
    update: dict[str, Any] = {}
    if llm.max_requests is not None:
        left = llm.max_requests - int(spent.get("requests_sent", 0))
        if left <= 0:
            ctx.log("warning: splits: llm.max_requests is spent by generation; the answerability judge did not run")
            return None
        update["max_requests"] = left
    if llm.max_cost_usd is not None:
        left_usd = llm.max_cost_usd - float(spent.get("cost_usd") or 0.0)
        if left_usd <= 0:
            ctx.log("warning: splits: llm.max_cost_usd is spent by generation; the answerability judge did not run")
            return None
        update["max_cost_usd"] = left_usd
    return ctx.config.model_copy(update={"llm": llm.model_copy(update=update)})


def run_splits(ctx: StageContext) -> StageOutput:
    import dataclasses

    from qagen.answerability import make_judge
    from qagen.review import review_selection
    from qagen.splits import build_splits

    cfg = ctx.config.splits
    sections = ctx.inputs["sections.jsonl"]
    if not ctx.inputs["items.jsonl"]:
        from qagen.report.summary import no_items_reason

        raise BuildError(no_items_reason(ctx.manifest))
    items, review = review_selection(
        ctx.inputs["items.jsonl"], ctx.inputs.get("reviews.jsonl"), cfg.approved_only, cfg.approval_rule
    )
    embedder = make_embedder(ctx)
    config = _remaining_budget(ctx)
    try:
        judge = (
            None
            if config is None
            else make_judge(
                config, ctx.extra.get("llm"), ctx.cache_dir, ctx.extra.get("prompts_dir"), progress=ctx.progress
            )
        )
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    result = build_splits(
        items,
        ctx.inputs["pages.jsonl"],
        ctx.inputs["assignments.jsonl"],
        ctx.config.splits,
        embed=embedder.embed,
        sections={s.id: s for s in sections},
        judge=judge,
    )
    # questions asked in each iteration (answerable and unanswerable), named as the iterations are
    counts = {f"questions_{s}_iteration_{f}": len(v) for (s, f), v in sorted(result.questions.items())}
    counts["leakage_flagged"] = result.leakage["flagged"]
    checked = result.leakage.get("answerability")
    if checked is not None:  # the question-side check and the answer check of the answerable role
        counts["answerable_from_corpus"] = checked["answerable_from_corpus"]
        counts["answerable_unsupported"] = checked["answer_check"]["unsupported"]
        if judge is not None:
            counts["answerability_judged"] = checked["judged"]
    warnings = result.crosseval.get("warnings", [])
    counts["warnings"] = len(warnings)
    for warning in warnings:
        ctx.log(f"warning: splits: {warning['message']}")
    counts.update(review_items=len(items), reviewed=review["reviewed"], approved=review["approved"])
    result = dataclasses.replace(result, crosseval={**result.crosseval, "review": review})
    info: dict[str, Any] = {"warnings": warnings}
    incomplete = None
    if judge is not None:
        info["llm"] = judge.stats()
        incomplete = _unfinished(info["llm"], ctx.config.llm.cache_failures)
    return StageOutput({"crosseval.json": result}, counts=counts, info=info, incomplete=incomplete)


# --- report -----------------------------------------------------------------------------


def run_report(ctx: StageContext) -> StageOutput:
    from qagen.report import build_report

    html = build_report(ctx.inputs, ctx.manifest, ctx.config.report, title=ctx.extra.get("out_name", "qagen build"))
    return StageOutput({"report.html": html}, counts={"bytes": len(html.encode("utf-8"))})
