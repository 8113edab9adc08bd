"""The configuration model: every default in one place.

Loaded from TOML (``qagen.toml``), overridden with ``--set section.key=value``. Each
section is one pydantic model with ``extra="forbid"``, so a typo is an error naming the
key, never a silently ignored setting. One root ``seed`` drives every random choice.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from qagen.errors import UsageError
from qagen.records import SectionKind


class ConfigError(UsageError, ValueError):
    """A configuration problem, with a message that says how to fix it."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class ParseConfig(_Section):
    """Reading documents into sections."""

    formats: list[str] = Field(
        default_factory=lambda: ["pdf", "txt", "md", "html"],
        description="formats read: pdf, txt, md, html (by extension; PDF and HTML also by content)",
    )
    symlinks: Literal["inside", "follow", "skip"] = Field(
        "inside",
        description="symbolic links: inside = follow those that stay in the documents folder (others are "
        "skipped and listed), follow = follow every link, skip = follow none",
    )
    engine: Literal["pdfium", "pdfplumber"] = Field(
        "pdfium",
        description="PDF engine: pdfium (pypdfium2, fast) or pdfplumber (pure Python, about ten times slower); "
        "both feed the same layout and headings logic",
    )
    heading_size_ratio: float = Field(1.08, gt=1.0, description="a line this much larger than body text is a heading")
    bold_headings: bool = Field(True, description="short bold lines in body size start a section")
    gap_factor: float = Field(
        1.5,
        gt=0,
        description="a bold or restyled body-size line is a heading only after a gap this many times the line pitch",
    )
    max_heading_chars: int = Field(200, gt=0, description="longer lines are never headings")
    running_min_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="a line repeated at the top/bottom of this share of pages is a running header/footer",
    )
    timeout_s: float = Field(
        60.0, gt=0, le=86_400, description="per-document time limit, plus timeout_per_page_s per page (at most a day)"
    )
    timeout_per_page_s: float = Field(
        3.0,
        ge=0,
        le=3_600,
        description="time allowed per page on top of timeout_s (a hung parser is stopped after that)",
    )
    workers: int = Field(
        0, ge=0, le=256, description="parallel parsing processes; 0 = one per core (never more than documents)"
    )

    max_pages: int = Field(2000, gt=0, description="documents with more pages are skipped")
    max_section_tokens: int = Field(
        3000, gt=0, description="a longer section is split at paragraph boundaries into parts 'Heading (k/n)'"
    )

    @field_validator("formats")
    @classmethod
    def _known_formats(cls, v: list[str]) -> list[str]:
        unknown = sorted(set(v) - {"pdf", "txt", "md", "html"})
        if unknown or not v:
            raise ValueError(f"must be a non-empty list of pdf, txt, md, html (unknown: {', '.join(unknown)})")
        return v


class PagesConfig(_Section):
    """Grouping sections into emulated pages."""

    target_tokens: int = Field(
        1000,
        gt=0,
        description="pages grow up to this many tokens, separators counted; a section is never split "
        "(long ones were split when parsing: parse.max_section_tokens)",
    )


class EmbedConfig(_Section):
    """Section embeddings."""

    backend: str = Field(
        "auto",
        description="auto | minilm | tfidf | sentence-transformers:<path or name> | openvino[:<path or name>] | "
        "openai:<model>[@<base_url>]",
    )
    batch_size: int = Field(64, gt=0, description="texts per model forward pass or per API request")
    tfidf_dims: int = Field(256, gt=1, description="dimensions of the tfidf backend (TF-IDF reduced by SVD)")
    device: str = Field("cpu", description="torch device for sentence-transformers models (cpu, cuda, mps)")
    openvino_precision: Literal["auto", "f32"] = Field(
        "auto",
        description="openvino backend: auto = the CPU's default (bfloat16 where the CPU has it: about 2.5x "
        "the sentence-transformers backend on 2 cores, 99.5 % of nearest neighbours kept), f32 = exact",
    )
    offline: bool = Field(False, description="never download a model; only local folders and the Hugging Face cache")
    base_url: str | None = Field(
        None,
        description="the embedder's own server, only for backend = openai:...; the LLM's endpoint is [llm] base_url "
        "(or --llm openai:MODEL@URL); unset = the LLM's server",
    )
    api_key_env: str | None = Field(None, description="openai backend key variable; unset = llm.api_key_env")
    timeout_s: float | None = Field(None, gt=0, description="openai backend per-request timeout; unset = llm.timeout_s")
    max_retries: int | None = Field(
        None, ge=0, description="openai backend retries of timeouts, 429 and 5xx; unset = llm.max_retries"
    )


class TopicsConfig(_Section):
    """BERTopic (UMAP + HDBSCAN) on precomputed embeddings; defaults from the paper."""

    n_components: int = Field(15, gt=1, description="dimensions UMAP (or PCA) reduces the embeddings to")
    n_neighbors: int = Field(15, gt=1, description="UMAP neighbourhood size: larger favours the global structure")
    min_cluster_size: int = Field(30, gt=1, description="HDBSCAN: smallest topic, in sections (see auto_scale)")
    min_samples: int | None = Field(
        None, ge=1, description="HDBSCAN: higher marks more sections as outliers; unset = min_cluster_size"
    )
    auto_scale: bool = Field(
        True, description="small corpora: cap min_cluster_size at max(3, sections / 20) so several topics can form"
    )
    n_keywords: int = Field(8, gt=0, description="keywords kept per topic (c-TF-IDF); the first three label it")
    robustness_noise: float = Field(0.05, ge=0, description="Gaussian noise scale (x embedding std) for robustness")
    reducer: Literal["umap", "pca"] = Field("umap", description="umap (the paper's), or pca: fast and deterministic")
    clusterer: Literal["hdbscan", "kmeans"] = Field(
        "hdbscan", description="hdbscan (the paper's; finds outliers), or kmeans: n_clusters topics, no outliers"
    )
    n_clusters: int = Field(8, gt=1, description="only for clusterer = kmeans")
    robustness_check: bool = Field(True, description="refit once on noisy embeddings to measure robustness (2x time)")
    stop_words: Literal["auto", "english", "none"] = Field(
        "auto",
        description="stop words left out of topic keywords: auto = those of every language the documents are "
        "written in (stopwordsiso) and English; english = scikit-learn's English list",
    )
    by_language: Literal["auto", "off"] = Field(
        "auto",
        description="auto: with documents in several languages, cluster each language's sections on their own "
        "(no topic mixes languages; each language gets topics); off: cluster all sections together",
    )
    leave_out_kinds: list[SectionKind] = Field(
        default_factory=lambda: ["toc", "index"],
        description="section kinds kept out of the topic fit (a contents list or an index names every topic "
        "and is cut differently in every document); each takes the topic of the most similar fitted section "
        "of its document, so its pages follow that document's fold",
    )
    save_model: bool = Field(
        False,
        description="save the fitted BERTopic model to OUT/topic_model for inspection (BERTopic.load; "
        "topics, keywords and c-TF-IDF, not UMAP/HDBSCAN)",
    )


class FoldsConfig(_Section):
    """Topic-disjoint folds (paper Section 4.4)."""

    n_folds: int = Field(2, ge=2, le=2, description="number of folds; only 2 (one answers, the other is refused)")
    distance: list[Literal["euclidean", "cosine"]] | Literal["auto"] = Field(
        "auto", description="distances tried when clustering topic centroids: auto (both) or a list"
    )
    linkage: list[Literal["single", "complete", "average", "ward"]] | Literal["auto"] = Field(
        "auto", description="linkages tried: auto (all four) or a list; ward pairs with euclidean only"
    )
    unit: Literal["page", "document", "auto"] = Field(
        "auto",
        description="what never straddles two folds or splits: an emulated page, a whole document, or auto "
        "(whole documents when they keep at least half of the sections, else pages)",
    )
    test_size: float = Field(0.2, gt=0, lt=1, description="share of each fold's kept sections (by unit) in test")
    min_fold_ratio: float = Field(
        0.3,
        ge=0,
        le=1,
        description="smallest allowed small fold / large fold, in sections kept after conflict removal "
        "(0 = the paper's rule, which may isolate one outlying topic; a lower floor lets the folds lie further "
        "apart at the cost of balance)",
    )
    samples_total: int = Field(200, gt=0, description="sections sampled for generation, over both folds and splits")
    samples_per_fold: int | None = Field(
        None, gt=0, description="sections sampled per fold instead of samples_total (which is then not used)"
    )
    sample_test_share: float | None = Field(
        0.5,
        ge=0,
        le=1,
        description="share of each fold's sample drawn from its test part, as far as the test part holds it (the "
        "rest from validation): half by default, so that the default 200 sections aim at 20 or more answerable and "
        'unanswerable questions per test iteration; "sizes": by the parts\' sizes (test_size); '
        "the paper's 200 validation + 50 test per fold is samples_per_fold = 250, sample_test_share = 0.2",
    )

    @field_validator("sample_test_share", mode="before")
    @classmethod
    def _by_sizes(cls, v: Any) -> Any:
        return None if v == "sizes" else v  # a word for "unset", which TOML and --set cannot write

    max_clusters: int = Field(
        6, ge=2, le=10, description="if no 2-cluster split meets min_fold_ratio, try splits of up to this many clusters"
    )
    by_language: Literal["auto", "off"] = Field(
        "auto",
        description="auto: split each language's topics in two on its own, so every language with two or more "
        "topics and 10 sections has sections in both folds; off: split all topics together (the folds may "
        "follow the languages)",
    )
    outliers: Literal["assign", "drop"] = Field(
        "assign",
        description="topic outliers: assign (an outlier joins the fold of its page's or document's other sections, "
        "loaded with that fold anyway; a page or document of outliers only joins the fold of its nearest topic) "
        "or drop (the paper's: no questions from them, their pages in no fold unless they hold kept sections)",
    )
    few_topics: Literal["error", "documents"] = Field(
        "error",
        description="with fewer than two topics: stop with an error, or make the folds of whole documents "
        "clustered by their mean embedding (not topic-disjoint; warned)",
    )
    on_imbalance: Literal["warn", "error"] = Field(
        "warn",
        description="when no split meets min_fold_ratio: warn and keep the most balanced one (the build goes on), "
        "or stop with an error",
    )
    criterion: Literal["separation", "score"] = Field(
        "separation",
        description="which balanced split wins: separation (the folds furthest apart at their closest pair of "
        "topics, so a question of one fold is least likely answered by the other) or score (the paper's: mean "
        "of the closest-pair and mean-pair distances)",
    )


class LLMConfig(_Section):
    """The LLM backend and how it is called."""

    backend: str = Field("extractive", description="extractive | local | openai:<model>[@<base_url>] | llamacpp:<gguf>")
    base_url: str | None = Field(
        None, description="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 (a URL in backend wins)"
    )
    api_key_env: str = Field(
        "OPENAI_API_KEY", description="environment variable holding the API key (never the key itself here)"
    )
    temperature: float = Field(0.7, ge=0, le=2, description="sampling temperature of generation requests")
    max_tokens: int = Field(1024, gt=0, description="completion tokens per request (also the budget's worst case)")
    timeout_s: float = Field(60.0, gt=0, description="per-request time limit; a slower reply is retried")
    max_retries: int = Field(
        6, ge=0, description="retries of transient failures (timeouts, connection errors, 408/409/429/5xx)"
    )
    preflight: bool = Field(
        True,
        description="before a build parses anything, check each OpenAI-compatible endpoint it uses (generator, "
        "embedder) with one cheap call (GET /models, 5 s, no retries) and the key, and qagen score's judges before "
        "judging; false (--no-preflight) for set-ups that know better",
    )
    backoff_base_s: float = Field(
        1.0, gt=0, description="first retry waits about this long, doubling each time (plus jitter)"
    )
    backoff_max_s: float = Field(
        60.0, gt=0, description="longest wait between retries (a longer Retry-After is still honoured)"
    )
    max_retry_after_s: float = Field(
        300.0, gt=0, description="a Retry-After longer than this fails the request instead of waiting"
    )
    max_concurrency: int = Field(8, gt=0, description="requests in flight at once")
    requests_per_minute: float | None = Field(None, gt=0, description="client-side request rate limit")
    tokens_per_minute: float | None = Field(
        None, gt=0, description="client-side token rate limit (prompt estimate + max_tokens per request)"
    )
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = Field(
        "auto",
        description="how a schema reaches the model; auto tries json_schema, then json_object, then the prompt",
    )
    repair_attempts: int = Field(1, ge=0, description="repair requests after an invalid reply before it is a failure")
    cache_failures: bool = Field(
        True,
        description="a reply still invalid after its repairs is cached, and a rerun replays the failure instead of"
        " paying again (unless repair_attempts grew); false asks again. qagen score's judges ask again unless this"
        " is set",
    )
    max_consecutive_failures: int = Field(20, gt=0, description="stop the run after this many failed requests in a row")
    max_requests: int | None = Field(None, gt=0, description="stop cleanly before this many requests")
    max_cost_usd: float | None = Field(None, gt=0, description="stop cleanly before this cost")
    prices: dict[str, list[float]] = Field(
        default_factory=lambda: {"gpt-4o-mini": [0.15, 0.60], "gpt-4o": [2.5, 10.0], "gpt-4.1-mini": [0.4, 1.6]},
        description="USD per million tokens [prompt, completion], by model name",
    )


class GenerateConfig(_Section):
    """Question generation."""

    types: list[Literal["long_form", "factoid", "mcq"]] = Field(
        default_factory=lambda: ["long_form", "factoid", "mcq"], description="item types generated"
    )
    long_form_per_section: int = Field(3, gt=0, le=10, description="candidates asked for per section")
    questions: int | None = Field(
        None,
        gt=0,
        description="accepted items wanted in the test split, both folds together (variants and false premises "
        "not counted): every kept section may be sampled (folds.samples_total is not used) and sections are asked "
        "in rounds until the filters keep this many or every section was asked; empty: folds.samples_total decides",
    )
    subject: str | None = Field(
        None,
        description="the product or organisation questions name ('GIMP', 'Kestrel Health'); default: the name "
        "most documents share, if any",
    )
    offline_rules_off: list[str] = Field(
        default_factory=list,
        description="offline generator rules switched off by name (see qagen.generate.offline.rules; a review's "
        "per-rule verdicts show which read badly)",
    )
    mcq_per_section: int = Field(1, ge=0, description="multiple-choice requests per sampled section (0 = none)")
    label_judge: bool = Field(
        True,
        description="with an LLM backend, the multiple-choice items' Bloom levels and scenarios are checked by the "
        "LLM (prompts/labels.md, 8 items a request) and set to what the questions really ask; false: the structural "
        "checks of the quoted evidence only",
    )
    personas: list[str] = Field(
        default_factory=list,
        description="who asks the long-form questions; one is picked per section (seeded). Empty: personas of the "
        "corpus (new and experienced users of its product, see generate.subject); a persona sets tone and "
        "expertise, never private details",
    )
    min_section_words: int = Field(
        12,
        ge=0,
        description="words a section needs to be sent to an LLM (a heading and one line: not sent)",
    )
    multi_hop_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of the long-form requests asked over two sections of one topic (the most similar "
        "section of the same topic and fold), for one question whose answer needs both; the filters check a quote "
        "from each and that neither alone answers it (LLM backends; prompts/multi_hop.md)",
    )
    comparison_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of the long-form requests asked over sections of two documents of one topic and fold, for "
        "one question comparing them; checked like multi-hop questions (LLM backends; prompts/comparison.md)",
    )
    persona_mix: dict[str, float] | None = Field(
        None,
        description="user categories with target shares of the long-form requests (DataMorgana-style), e.g. "
        "{ 'first-time user' = 0.6, 'experienced professional' = 0.4 }: assigned per request by construction and "
        "reported asked vs achieved after filtering; replaces personas when set (an LLM writes in the persona's "
        "voice; the offline generator has none)",
    )
    prompts_dir: str | None = Field(None, description="folder with your own prompt files (copy prompts/ and edit)")
    few_shot_file: str | None = Field(
        None,
        description="JSON list of {question, answer} examples for long-form prompts; unset = few_shot_long_form.json "
        "in the prompts folder",
    )
    bloom_mix: dict[str, float] = Field(
        default_factory=lambda: {"B1": 1, "B2": 1, "B3": 1, "B4": 1},
        description="weights of the MCQ Bloom levels: B1 remember, B2 understand, B3 apply, B4 analyze",
    )
    scenario_mix: dict[str, float] = Field(
        default_factory=lambda: {"S1": 1, "S2": 1, "S3": 1},
        description="weights of the MCQ scenarios: S1 one fact, S2 several facts of one document, "
        "S3 facts of several documents",
    )
    formulation_mix: dict[str, float] = Field(
        default_factory=lambda: {"natural": 0.8, "noisy": 0.1, "verbose": 0.1},
        description="shares of the final long-form and factoid questions by formulation (default 80 / 10 / 10 "
        "natural / noisy / verbose; set a share to 0 to leave that kind out): natural (a sentence), "
        "search (keywords, as typed into a search box), noisy (typos, no capitals), verbose (the question whole "
        "in a long-winded user's words; en, nl, de, fr, it, es, pt); the variants are made from accepted "
        "questions, so their answers stay valid",
    )
    premise_mix: dict[str, float] = Field(
        default_factory=lambda: {"true": 0.9, "false": 0.1},
        description="shares of the final factoid and multiple-choice questions by premise (default 90 / 10; "
        "false 0 leaves them out): true, or false (the "
        "question asserts a wrong value its source contradicts, e.g. another document's phone number; the chatbot "
        "should correct it); false premises are made from accepted English factoids and fill-in-the-blank MCQs",
    )
    language: str = Field("auto", description="auto (detected) or a language code such as en, nl")
    phone_region: str = Field(
        "auto",
        description="region for phone numbers without a country code (US, NL, ...); "
        "auto = the most common country code among the corpus's international numbers, else US",
    )
    entity_kinds: list[str] = Field(
        default_factory=lambda: ["phone", "email", "url"], description="kinds of entity factoid questions ask for"
    )
    factoid_per_section: int = Field(3, ge=0, description="at most this many entities (one request each) per section")
    s3_documents: int = Field(2, ge=2, le=4, description="documents combined in an S3 (cross-document) MCQ")
    max_section_chars: int = Field(6000, gt=200, description="longer sections are cut to this in prompts")
    source_kinds: list[SectionKind] = Field(
        default_factory=lambda: ["prose", "table"],
        description="kinds of section questions are generated from (prose, code, table, toc, index, references, "
        "garbled; set at parse); tables hold specifications and contact lists",
    )

    @field_validator("bloom_mix", "scenario_mix")
    @classmethod
    def _mix(cls, v: dict[str, float], info: Any) -> dict[str, float]:
        allowed = ("B1", "B2", "B3", "B4") if info.field_name == "bloom_mix" else ("S1", "S2", "S3")
        unknown = sorted(set(v) - set(allowed))
        if unknown == ["S4"]:
            raise ValueError(
                "S4 (the answer is not in the corpus) is not generated: every multiple-choice question asked where "
                "its fold is not loaded is marked S4 in the splits (scenario_generated keeps its own)"
            )
        if unknown:
            raise ValueError(f"keys must be among {list(allowed)}; unknown {unknown}")
        if any(w < 0 for w in v.values()) or sum(v.values()) <= 0:
            raise ValueError("weights must be >= 0 with a positive total")
        return v

    @model_validator(mode="after")
    def _mixes_fit(self) -> GenerateConfig:
        from qagen.generate.mix import BLOOM_LEVELS, SCENARIOS, _quotas, check_mix

        _quotas(
            1,
            check_mix(self.bloom_mix, BLOOM_LEVELS, "bloom_mix"),
            check_mix(self.scenario_mix, SCENARIOS, "scenario_mix"),
        )
        return self

    @field_validator("persona_mix")
    @classmethod
    def _persona_mix(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is not None and (not v or any(w < 0 for w in v.values()) or sum(v.values()) <= 0):
            raise ValueError("needs at least one persona with a positive weight, and no negative weight")
        return v

    @field_validator("premise_mix")
    @classmethod
    def _premises(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - {"true", "false"})
        if unknown:
            raise ValueError(f"keys must be among ['true', 'false']; unknown {unknown}")
        if any(w < 0 for w in v.values()) or v.get("true", 0) <= 0:
            raise ValueError("weights must be >= 0, with a positive weight for true (false premises are made from it)")
        return v

    @field_validator("formulation_mix")
    @classmethod
    def _formulations(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - {"natural", "search", "noisy", "verbose"})
        if unknown:
            raise ValueError(f"keys must be among ['natural', 'search', 'noisy', 'verbose']; unknown {unknown}")
        if any(w < 0 for w in v.values()) or v.get("natural", 0) <= 0:
            raise ValueError("weights must be >= 0, with a positive weight for natural (the variants are made from it)")
        return v

    @field_validator("entity_kinds")
    @classmethod
    def _kinds(cls, v: list[str]) -> list[str]:
        unknown = sorted(set(v) - {"phone", "email", "url"})
        if unknown:
            raise ValueError(f"kinds must be among ['phone', 'email', 'url']; unknown {unknown}")
        return v

    @field_validator("phone_region")
    @classmethod
    def _region(cls, v: str) -> str:
        if v == "auto":
            return v
        if len(v) != 2 or not v.isalpha():
            raise ValueError("must be auto or a two-letter region code such as US or NL")
        return v.upper()


FilterName = Literal[
    "validity",
    "language",
    "self_contained",
    "long_form_factoid",
    "grounding",
    "copied_from_prompt",
    "code_answer",
    "factoid_entity",
    "mcq_quality",
    "dedup",
    "top_per_section",
]


class FilterConfig(_Section):
    """Filtering candidates (paper 4.6)."""

    rouge_type: Literal["rougeL", "rouge1"] = Field("rougeL", description="ROUGE recall used for grounding")
    grounding_threshold: float = Field(0.2, ge=0, le=1, description="min ROUGE recall of answer tokens in the section")
    content_recall: float = Field(
        0.5,
        ge=0,
        le=1,
        description="min share of the answer's (and MCQ rationale's) content words, stop words left out, found in "
        "the source section or its document's title",
    )
    subject_max_doc_share: float = Field(
        0.2,
        gt=0,
        le=1,
        description="self_contained: a question names its subject when it holds a word of its document's title, "
        "or a word of its document found in at most this share of the corpus's documents (at least one)",
    )
    distractor_max_support: float = Field(
        0.9, ge=0, le=1, description="reject an MCQ with a distractor this supported (ROUGE recall) by the source"
    )
    dedup_threshold: float = Field(
        0.9, gt=0, le=1, description="cosine similarity above which questions are duplicates"
    )
    keep_per_section: int = Field(1, gt=0, description="top-ranked items kept per section and type")
    min_question_chars: int = Field(10, gt=0, description="shorter questions are rejected")
    max_question_chars: int = Field(400, gt=0, description="longer questions are rejected")
    max_answer_chars: int = Field(2000, gt=0, description="longer answers are rejected")
    factoid_max_answer_words: int = Field(
        25, gt=0, description="a long-form answer this short with an entity is a factoid"
    )
    mcq_max_length_ratio: float | None = Field(
        None,
        gt=1,
        description="reject an MCQ whose correct option is longer than this times the longest distractor (off by "
        "default: readers found the items it rejected good; the report shows how often the key is the longest)",
    )
    mcq_giveaway_words: int = Field(
        4, gt=0, description="reject an MCQ whose correct option alone repeats this many consecutive question words"
    )
    dedup_scope: Literal["type", "all"] = Field(
        "type", description="compare questions for near-duplicates within each item type, or across all types"
    )
    dedup_block_size: int = Field(1024, gt=0, description="questions compared at once (bounds dedup memory)")
    skip: list[FilterName] = Field(default_factory=list, description="filters not to run")


class SplitsConfig(_Section):
    """Cross-evaluation splits, the leakage check and the question-side answerability check."""

    leakage_rouge: float = Field(
        0.8, gt=0, le=1, description="an answer with this ROUGE recall in a page of the other fold leaks"
    )
    leakage_rouge_type: Literal["rougeL", "rouge1"] = Field("rougeL", description="ROUGE recall of the leakage check")
    leakage_embeddings: bool = Field(
        True,
        description="also compare by embedding similarity (answers and passages; questions and pages in the "
        "answerability check)",
    )
    leakage_similarity: float = Field(
        0.8,
        gt=0,
        le=1,
        description="an answer this similar (cosine) to a passage of the other fold leaks "
        "(MiniLM: an answer and its own source passage score 0.57-0.75, interquartile)",
    )
    leakage_candidates: int = Field(
        5, gt=0, description="pages per item (most words in common) scored with ROUGE and embeddings"
    )
    leakage_window_words: int = Field(120, gt=10, description="words per page passage compared by embedding")
    leakage_min_words: int = Field(
        8, gt=0, description="shorter answers are checked together with their question (a bare date matches anywhere)"
    )
    answerability: bool = Field(
        True,
        description="check each unanswerable question from its side: an item whose question the iteration's corpus "
        "answers (a section heading holding its terms, or its terms and answer on a page) leaves the unanswerable "
        "role; also checks that each answerable item's answer is on its source pages",
    )
    answerability_top_k: int = Field(
        4, gt=0, description="corpus pages retrieved per question (BM25 and embeddings, rank-fused) and checked"
    )
    answerability_specific_share: float = Field(
        0.2,
        gt=0,
        le=1,
        description="a question term used by at most this share of the documents is specific (a name); the page "
        "must hold every specific term",
    )
    answerability_coverage: float = Field(
        0.8,
        gt=0,
        le=1,
        description="share of the question's terms (weighted by inverse document frequency) a page must hold",
    )
    answerability_answer_rouge: float = Field(
        0.6,
        gt=0,
        le=1,
        description="the answer is found in a page when a passage has this ROUGE recall of it (leakage_rouge_type)",
    )
    answerability_answer_similarity: float = Field(
        0.8,
        gt=0,
        le=1,
        description="the answer is also found when a passage is this similar to it (cosine, with leakage_embeddings)",
    )
    answerability_judge: Literal["auto", "on", "off"] = Field(
        "auto",
        description="ask the LLM (prompts/answerability.md) about questions the offline check finds answerable "
        "or is unsure of: auto = when llm.backend is not extractive; its quote must be in the pages",
    )
    drop_unsupported_answerable: bool = Field(
        False,
        description="leave out of the splits (both roles) an item whose answer is not found on its source pages "
        "(off: such items are counted and listed in splits/leakage.json; the filter stage already checks "
        "grounding against the source section)",
    )
    min_cell_items: int = Field(
        20, ge=0, description="warn when an iteration has fewer answerable or unanswerable questions than this"
    )
    refusal_answer: str = Field(
        "I cannot answer this question from the available documents.",
        description="expected answer of an unanswerable (other-fold) question",
    )
    out_of_scope_share: float = Field(
        0.1,
        ge=0.0,
        lt=0.5,
        description="share of each iteration's questions that are out of scope: off the corpus's domain "
        "('Who won the FIFA World Cup in 2014?'), in the documents' languages, from qagen's bundled lists, "
        "each checked against every page; expected behaviour refuse (default 0.1; 0 = none)",
    )
    out_of_scope_max_coverage: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="an out-of-scope candidate is dropped when one page holds this share of its terms' weight",
    )
    out_of_scope_max_similarity: float = Field(
        0.6,
        gt=0.0,
        le=1.0,
        description="... or when a passage of its best pages is this similar to it (cosine, with an embedder)",
    )
    approved_only: bool = Field(
        False,
        description="lay out the splits from reviewed items approved under approval_rule only "
        "(verdicts from 'qagen review import' in reviews.jsonl; items never reviewed are left out)",
    )
    approval_rule: Literal["all", "majority"] = Field(
        "all",
        description="an item is approved when all its verdicts are 'correct' (all) or more than half are (majority)",
    )


class ReportConfig(_Section):
    """The HTML report (report.html)."""

    max_items_shown: int = Field(
        200, gt=0, description="sample of items shown with their source passage (half accepted, half rejected)"
    )
    max_map_points: int = Field(
        20000, gt=0, description="sections drawn on the topic map (an even subsample beyond this)"
    )
    passage_chars: int = Field(1200, gt=0, description="characters of source passage shown per sampled item")
    max_problems_shown: int = Field(200, gt=0, description="failed documents listed with their reason")


class ScoreConfig(_Section):
    """Scoring a chatbot's answers (qagen score)."""

    judge: str = Field(
        "embedding",
        description="who picks the MCQ option closest to a free answer: embedding[:<embed spec>] | "
        "openai:<model>[@<base_url>] | local | any LLM spec (an LLM judge also decides refusals unless "
        "refusal_judge says otherwise)",
    )
    refusal_judge: str = Field(
        "auto",
        description="who decides whether an answer declines: auto (an LLM judge does, else refusal_phrases) | "
        "phrases | an LLM spec such as openai:<model>[@<base_url>] or local (phrases decide where a request fails)",
    )
    embedder: str = Field("auto", description="embedder of the MCQ cosine-similarity baseline (see embed.backend)")
    grader: str = Field(
        "none",
        description="who grades answered answers on the rubric (correctness, completeness, relevance, faithfulness "
        "to the retrieved passages and their relevance to the question, 1-5) and judges whether answers to "
        "false-premise questions correct the premise: none | an LLM spec such as openai:<model>[@<base_url>] or "
        "local; with a grader, a long-form answer graded 4 or 5 for correctness counts as correct in the "
        "CRAG-style score",
    )
    long_form_rouge_l: float | None = Field(
        None,
        ge=0,
        le=1,
        description="a long-form answer counts as correct in the CRAG-style score when its ROUGE-L F-measure "
        "against the reference reaches this; unset: long-form answers are left out of that score (no judge offline)",
    )
    min_n: int = Field(
        20, ge=1, description="figures over fewer questions are marked uncertain (*) on the console and in the report"
    )
    refusal_phrases: list[str] = Field(
        default_factory=lambda: [
            "cannot answer",
            "can't answer",
            "can not answer",
            "unable to answer",
            "not able to answer",
            "i don't know",
            "i do not know",
            "i cannot find",
            "i can't find",
            "i could not find",
            "i couldn't find",
            "unable to find",
            "no information about",
            "no information on",
            "no information regarding",
            "not enough information",
            "no relevant information",
            "not contain information",
            "n't contain information",
            "do not mention",
            "does not mention",
            "doesn't mention",
            "not mentioned in",
            "not in the documents",
            "not in the provided",
            "not covered by the",
            "outside the scope",
            "kan deze vraag niet",
            "weet ik niet",
            "geen informatie",
            "kann diese frage nicht",
            "keine informationen",
            "je ne peux pas répondre",
            "je ne sais pas",
            "aucune information",
            "non sono in grado di rispondere",
            "non posso rispondere",
            "non lo so",
            "non ho informazioni",
            "nessuna informazione",
            "no puedo responder",
            "no lo sé",
            "no tengo información",
            "no hay información",
            "não posso responder",
            "não sei",
            "não tenho informações",
            "não há informações",
        ],
        description="an answer holding one of these (case-insensitive) within refusal_window_chars declines; "
        "the dataset's refusal_answer always counts",
    )
    refusal_window_chars: int = Field(
        300, gt=0, description="a refusal phrase counts only when it starts within this many characters of the answer"
    )
    llm_refusals: bool = Field(
        True, description="with refusal_judge = auto and an LLM judge, the judge decides refusals (false: phrases)"
    )
    max_answer_chars: int = Field(
        20_000,
        gt=0,
        description="an answer longer than this is scored on its first max_answer_chars characters, with a warning "
        "(a chatbot reply runs to a few thousand; a runaway one would keep the text metrics busy for minutes)",
    )
    recall_k: list[int] = Field(default_factory=lambda: [1, 3, 5], description="k of retrieval recall@k")
    context_tfidf_threshold: float = Field(
        0.3,
        gt=0,
        le=1,
        description="a retrieved page is relevant context when its TF-IDF cosine with one of the item's source "
        "pages reaches this (context precision and recall as the education-chatbot metrics sheet defines them)",
    )
    bertscore: bool = Field(
        True,
        description="BERTScore-style F1 of answer and reference with the baseline's embedder, when it is a local "
        "sentence-transformers model (MiniLM by default)",
    )
    index_seconds: float | None = Field(
        None,
        ge=0,
        le=1e9,
        description="what indexing the corpora took the chatbot, in seconds, when known (--index-seconds)",
    )
    index_cost_usd: float | None = Field(
        None, ge=0, le=1e9, description="what indexing the corpora cost, in USD, when known (--index-cost-usd)"
    )
    bleu_tokenize: Literal["13a", "intl", "char", "zh", "none"] = Field(
        "13a", description="sacrebleu tokenizer: 13a (its default), intl (Unicode punctuation), char, zh, none"
    )

    @field_validator("recall_k")
    @classmethod
    def _ks(cls, v: list[int]) -> list[int]:
        if not v or any(k < 1 for k in v):
            raise ValueError("must be a non-empty list of integers >= 1")
        return sorted(set(v))


# Config keys that are no section: scalars above the sections in qagen.toml
TOP_LEVEL = ("seed", "executor")


class Config(_Section):
    """Every setting of a build."""

    seed: int = Field(0, description="drives every random choice")
    executor: str = Field(
        "local",
        description="where the per-document and per-batch work runs (parsing, section embeddings): local "
        "(processes on this machine), ray (a Ray started for the build, or the cluster RAY_ADDRESS names), "
        "ray:HOST:PORT or ray:auto (a running Ray cluster; pip install 'qagen[ray]'); the artifacts are the same",
    )

    @field_validator("executor")
    @classmethod
    def _executor(cls, v: str) -> str:
        if v != "local" and v != "ray" and not v.startswith("ray:"):
            raise ValueError("must be local, ray or ray:ADDRESS (HOST:PORT or auto)")
        return v

    parse: ParseConfig = Field(default_factory=ParseConfig, description=ParseConfig.__doc__)
    pages: PagesConfig = Field(default_factory=PagesConfig, description=PagesConfig.__doc__)
    embed: EmbedConfig = Field(default_factory=EmbedConfig, description=EmbedConfig.__doc__)
    topics: TopicsConfig = Field(default_factory=TopicsConfig, description=TopicsConfig.__doc__)
    folds: FoldsConfig = Field(default_factory=FoldsConfig, description=FoldsConfig.__doc__)
    llm: LLMConfig = Field(default_factory=LLMConfig, description=LLMConfig.__doc__)
    generate: GenerateConfig = Field(default_factory=GenerateConfig, description=GenerateConfig.__doc__)
    filter: FilterConfig = Field(default_factory=FilterConfig, description=FilterConfig.__doc__)
    splits: SplitsConfig = Field(default_factory=SplitsConfig, description=SplitsConfig.__doc__)
    report: ReportConfig = Field(default_factory=ReportConfig, description=ReportConfig.__doc__)
    score: ScoreConfig = Field(default_factory=ScoreConfig, description=ScoreConfig.__doc__)

    @field_validator("seed")
    @classmethod
    def _seed_range(cls, v: int) -> int:
        if not 0 <= v < 2**32:
            raise ValueError("must be in [0, 2**32)")
        return v

    def section(self, name: str) -> dict[str, Any]:
        """One section as plain data (for fingerprints); ``seed`` is always included."""
        data = getattr(self, name).model_dump(mode="json") if name != "seed" else {}
        return {"seed": self.seed, name: data}


def _format_error(err: ValidationError, where: str) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    kind = first["type"]
    if kind == "extra_forbidden":
        parent = ".".join(str(p) for p in first["loc"][:-1])
        valid = sorted(_fields_at(parent))
        return f"unknown config key '{loc}' in {where}; valid keys here: {', '.join(valid)}"
    value = first.get("input")
    return f"config '{loc}' {first['msg'].lower()}; got {json.dumps(value, default=str)} (in {where})"


def _fields_at(dotted: str) -> list[str]:
    model: Any = Config
    for part in filter(None, dotted.split(".")):
        model = model.model_fields[part].annotation
    return list(model.model_fields)


def _parse_value(raw: str) -> Any:
    """A ``--set`` value: TOML syntax when it parses (numbers, booleans, lists), else a string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``a.b=value`` strings to nested config data."""
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set takes KEY=VALUE (for example topics.min_cluster_size=20); got '{item}'")
        key, raw = item.split("=", 1)
        parts = key.strip().split(".")
        node = data
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--set {key}: '{part}' is not a config section")
        node[parts[-1]] = _parse_value(raw.strip())
    return data


def load_config(
    path: str | os.PathLike[str] | None = None,
    overrides: list[str] | None = None,
) -> Config:
    """Load a config from TOML (optional) plus ``--set`` overrides; raise ConfigError on problems."""
    data: dict[str, Any] = {}
    where = "defaults"
    if path is not None:
        p = Path(path)
        where = str(p)
        if not p.is_file():
            raise ConfigError(f"config file not found: {p} (create one with 'qagen init')")
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8-sig"))  # a BOM, as Windows editors write it
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{p} is not valid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{p} is not a usable config: its values are nested too deeply") from None
    if overrides:
        data = apply_overrides(data, overrides)
        where = f"{where} + --set" if path else "--set"
    return config_from_data(data, where)


def config_from_data(data: dict[str, Any], where: str = "config") -> Config:
    """Validate plain data into a Config; raise ConfigError naming the bad key and value."""
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_error(exc, where)) from None


def render_toml(config: Config | None = None) -> str:
    """A commented TOML file holding every setting (what ``qagen init`` writes)."""
    config = config or Config()
    lines = [
        "# qagen configuration. Every key is shown with its default; delete what you do not change.",
        "# Override any key on the command line: qagen build docs -o out --set topics.min_cluster_size=20",
        "",
    ]
    for name in TOP_LEVEL:  # the keys above every section
        lines.append(f"{name} = {_toml_value(getattr(config, name))}  # {Config.model_fields[name].description}")
    for name in Config.model_fields:
        if name in TOP_LEVEL:
            continue
        section = getattr(config, name)
        lines += ["", f"[{name}]"]
        if section.__doc__:
            lines.append(f"# {section.__doc__.strip().splitlines()[0]}")
        for key, finfo in type(section).model_fields.items():
            value = getattr(section, key)
            comment = f"  # {finfo.description}" if finfo.description else ""
            if value is None:
                lines.append(f"# {key} = (unset){comment}")
            else:
                lines.append(f"{key} = {_toml_value(value)}{comment}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")
