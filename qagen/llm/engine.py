"""The LLM engine: concurrency, pacing, retries, repair, cache, budget and accounting.

Every backend gets the same behaviour: requests run with bounded concurrency and keep
their order; transient failures are retried with exponential backoff and jitter (honouring
Retry-After); authentication failures stop the run at once; invalid replies get repair
requests and are otherwise recorded as failures; completed requests are cached on disk;
a budget or a streak of failures stops the run cleanly with every result so far kept.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import deque
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from qagen.config import Config, LLMConfig
from qagen.llm.base import (
    LLM,
    AuthLLMError,
    BadRequestLLMError,
    Completion,
    LLMError,
    LLMRequest,
    LLMResult,
    LLMSpecError,
    LLMStats,
    QuotaLLMError,
    TransientLLMError,
    Usage,
    public_id,
)
from qagen.llm.cache import CachedFailure, CachedReply, RequestCache, request_key
from qagen.llm.errors import classify
from qagen.llm.limits import Budget, BudgetExceeded, Pacer
from qagen.llm.loop import run_sync
from qagen.llm.pricing import cost_of, estimate_prompt_tokens, estimate_tokens, price_for
from qagen.llm.progress import LLMProgress
from qagen.llm.retry import give_up, retrying
from qagen.llm.structured import (
    Checked,
    ReplyError,
    ResponseModels,
    check_reply,
    expand_models,
    repair_quote_limit,
    repair_request,
    with_schemas,
)

log = logging.getLogger("qagen.llm")


class _Stopped(Exception):
    """The engine stopped (budget, failure streak) before this call could start."""


class _CallFailed(Exception):
    """A call failed for good (retries exhausted, bad request, backend bug)."""

    def __init__(self, kind: str, message: str, attempts: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts


class _CheckCrashed(Exception):
    """Checking a reply raised something other than a ReplyError (a bug in a response model)."""


@dataclasses.dataclass
class _Run:
    """State of one ``run()``."""

    requests: list[LLMRequest]
    models: list[type[BaseModel] | None]
    keys: list[str]
    results: list[LLMResult | None]
    cache: RequestCache | None
    bar: Any
    probe_done: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    probe_started: bool = False
    sending: set[asyncio.Task[Any]] = dataclasses.field(default_factory=set)  # workers waiting for a reply


class LLMEngine:
    """Runs many LLM requests reliably.

    Args:
        llm: An LLM backend, a spec string (``openai:gpt-4o-mini``) or a LangChain chat model.
        config: The ``[llm]`` config section (or a whole :class:`~qagen.config.Config`).
        cache_path: SQLite file of the request cache; None disables caching.
        progress: Show a progress bar.
        pacer: The rate limiter to wait on; by default one built from the config's
            ``requests_per_minute`` and ``tokens_per_minute``. Engines that call the same
            endpoint can share one, so that their requests count against one limit.
        progress_every_s: Seconds between plain progress lines off a terminal, and of silence (no call
            finished) before the progress says it is still waiting for a reply.

    ``stats`` accumulates over every ``run()`` of this engine, and so does the budget; a
    stop (budget, a streak of failures, authentication) is final for the engine.
    The first API call of an engine runs alone, so a bad key or an unsupported structured
    output mode is found with one request rather than ``max_concurrency`` of them.
    """

    def __init__(
        self,
        llm: LLM | str | Any,
        config: LLMConfig | Config | None = None,
        cache_path: str | Path | None = None,
        progress: bool = False,
        pacer: Pacer | None = None,
        progress_every_s: float = 30.0,
    ) -> None:
        from qagen.llm.registry import get_llm

        self.config = config.llm if isinstance(config, Config) else (config or LLMConfig())
        self.llm: LLM = get_llm(llm, self.config)
        self.cache_path = Path(cache_path) if cache_path is not None else None
        self.progress = progress
        self.progress_every_s = progress_every_s  # plain progress lines, and the word when no reply comes
        self.price = price_for(self.llm.model, self.config.prices)
        if self.config.max_cost_usd is not None and self.price is None:
            raise unpriced_budget(self.llm.model)
        # cache keys, logs and the manifest use the id without credentials (a URL's user:password, query)
        self._public_id = public_id(self.llm.id)
        self.stats = LLMStats(backend=self._public_id, model=self.llm.model, cost_known=self.price is not None)
        self._budget = Budget(self.config.max_requests, self.config.max_cost_usd)
        self._pacer = pacer or Pacer(self.config.requests_per_minute, self.config.tokens_per_minute)
        self._stopped: str | None = None
        self._streak = 0
        self._probed = False

    # ----------------------------------------------------------------- public API

    def run(self, requests: Sequence[LLMRequest], response_model: ResponseModels = None) -> list[LLMResult]:
        """Run ``requests`` and return one result per request, in order.

        Args:
            requests: The requests.
            response_model: A pydantic model every reply must validate against, one model
                (or None) per request, or None for plain text replies. A request without a
                ``schema`` gets the model's JSON schema.

        Raises:
            AuthLLMError: The key was refused (or the quota is exhausted); nothing was retried.
        """
        return run_sync(self.arun(requests, response_model))

    async def arun(self, requests: Sequence[LLMRequest], response_model: ResponseModels = None) -> list[LLMResult]:
        """The async form of :meth:`run`, for callers that already run an event loop."""
        started, cpu_started = time.monotonic(), time.thread_time()
        run = self._prepare(list(requests), response_model)
        try:
            pending = self._replay_cache(run)
            if pending and hasattr(self.llm, "prepare"):
                cpu_prepare = time.thread_time()
                self.llm.prepare()  # imports the SDK: one-off, not per-request overhead
                cpu_started += time.thread_time() - cpu_prepare
            await self._execute(run, pending)
        except LLMError as exc:
            self._stop(str(exc))
            self.stats.not_run += sum(r is None for r in run.results)
            raise
        finally:
            self.stats.elapsed_s += time.monotonic() - started
            self.stats.client_cpu_s += time.thread_time() - cpu_started
            self.stats.structured_mode = getattr(self.llm, "structured_mode", None)
            run.bar.close()
            if run.cache is not None:
                run.cache.close()
            self._log_summary()
        return [self._not_run(run.requests[i]) if r is None else r for i, r in enumerate(run.results)]

    def estimate(
        self,
        requests: Sequence[LLMRequest],
        response_model: ResponseModels = None,
        cached: Sequence[bool] | None = None,
    ) -> dict[str, Any]:
        """What running ``requests`` would send, before any call (for ``--dry-run``).

        Cached requests are counted apart and cost nothing. Completion tokens and cost are
        upper bounds (every reply at ``max_tokens``), not counting repair requests.
        ``cached`` is :meth:`cached_keys` of the same requests when the caller has it already.
        """
        reqs = with_schemas(list(requests), expand_models(response_model, len(requests)))
        hits = self.cached_keys(requests, response_model) if cached is None else cached
        todo = [r for r, hit in zip(reqs, hits, strict=True) if not hit]
        prompt = sum(estimate_prompt_tokens(r) for r in todo)
        completion = sum(r.max_tokens for r in todo)
        cost = cost_of(Usage(prompt, completion), self.price) if self.price else None
        return {
            "backend": self._public_id,
            "model": self.llm.model,
            "requests": len(reqs),
            "cached": len(reqs) - len(todo),
            "to_send": len(todo),
            "max_repair_requests": len(todo) * self.config.repair_attempts,
            "prompt_tokens": prompt,
            "completion_tokens_max": completion,
            "cost_usd_max": None if cost is None else round(cost, 6),
        }

    def cached_keys(self, requests: Sequence[LLMRequest], response_model: ResponseModels = None) -> list[bool]:
        """Whether each request's reply is in the cache already (a run would replay it, at no cost)."""
        reqs = with_schemas(list(requests), expand_models(response_model, len(requests)))
        keys = [request_key(self._public_id, self.llm.model, r) for r in reqs]
        cached: set[str] = set()
        if self.cache_path is not None and self.cache_path.exists():
            with RequestCache(self.cache_path) as cache:
                cached = set(cache.get_many(keys))
        return [k in cached for k in keys]

    # ----------------------------------------------------------------- one run

    def _prepare(self, requests: list[LLMRequest], response_model: ResponseModels) -> _Run:
        models = expand_models(response_model, len(requests))
        requests = with_schemas(requests, models)
        self.stats.requests += len(requests)
        return _Run(
            requests=requests,
            models=models,
            keys=[request_key(self._public_id, self.llm.model, r) for r in requests],
            results=[None] * len(requests),
            cache=RequestCache(self.cache_path) if self.cache_path is not None else None,
            bar=LLMProgress(
                len(requests),
                self.stats,
                self.config.max_cost_usd,
                enabled=self.progress,
                priced=self.price is not None,
                every_s=self.progress_every_s,
            ),
        )

    def _replay_cache(self, run: _Run) -> deque[int]:
        """Fill results from valid cached replies; return the indices still to send."""
        hits = run.cache.get_many(run.keys) if run.cache is not None else {}
        pending: deque[int] = deque()
        for i, key in enumerate(run.keys):
            hit = hits.get(key)
            if hit is not None:
                try:
                    checked = _check(Completion(hit.text), run.requests[i], run.models[i])
                except (ReplyError, _CheckCrashed) as exc:
                    if isinstance(exc, ReplyError) and self._replays(hit):
                        run.results[i] = self._cached_failure(run.requests[i], hit)
                        run.bar.advance()
                        continue
                    hit = None  # stale (the response model changed), or more repairs allowed now: ask again
                else:
                    run.results[i] = LLMResult(
                        run.requests[i], checked.value, hit.text, None, True, hit.usage, 0, checked.data
                    )
                    self._count_replay(hit)
                    run.bar.advance()
            if hit is None:
                pending.append(i)
        return pending

    async def _execute(self, run: _Run, pending: deque[int]) -> None:
        # a backend that serves fewer at once (an in-process model: one) says so; more in flight
        # would only wait in its queue while their time limit runs
        limit = getattr(self.llm, "max_concurrency", None) or self.config.max_concurrency
        n_workers = min(self.config.max_concurrency, limit, len(pending))
        tasks = [asyncio.create_task(self._worker(run, pending)) for _ in range(n_workers)]
        if not tasks:
            return
        heartbeat = asyncio.create_task(self._heartbeat(run))
        try:
            done, running = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            raised = [t.exception() for t in done if not t.cancelled() and t.exception() is not None]
            in_flight = [t for t in running if t in run.sending]
            if in_flight and all(isinstance(e, AuthLLMError) for e in raised):
                # the key or the quota failed and the engine stopped: calls in flight are paid for, so
                # let them end (within timeout_s) and be cached; nothing new starts, waits are cut short
                await asyncio.wait(in_flight, timeout=self.config.timeout_s)
        finally:  # any other error in a worker, or Ctrl-C, ends them all
            heartbeat.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(heartbeat, *tasks, return_exceptions=True)
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    async def _heartbeat(self, run: _Run) -> None:
        """While calls are in flight, say when none has finished for a while (:meth:`LLMProgress.waiting`)."""
        every = max(0.01, min(run.bar.every_s, 5.0))
        while True:
            await asyncio.sleep(every)
            run.bar.waiting(self.config.timeout_s, self.config.max_retries + 1)

    async def _worker(self, run: _Run, pending: deque[int]) -> None:
        while pending and self._stopped is None:
            i = pending.popleft()
            try:
                run.results[i] = await self._one(run, i)
            except AuthLLMError as exc:  # recorded in the stats, then raised: the run stops
                kind = "quota" if isinstance(exc, QuotaLLMError) else "auth"
                run.results[i] = self._failed(run.requests[i], kind, str(exc), None, Usage(), 0)
                run.bar.advance()
                raise

    async def _one(self, run: _Run, i: int) -> LLMResult:
        """One request: call, validate, repair until valid or out of attempts."""
        original, model = run.requests[i], run.models[i]
        request, usage, attempts = original, Usage(), 0
        last: tuple[str, ReplyError] | None = None
        for round_ in range(self.config.repair_attempts + 1):
            try:
                completion, n = await self._call(run, request)
            except _Stopped as exc:
                run.bar.advance()
                if last is None:
                    return self._not_run(original)
                return self._failed(original, "stopped", f"{last[1]}; repair not run ({exc})", last[0], usage, attempts)
            except _CallFailed as exc:
                run.bar.advance()
                text = last[0] if last else None
                return self._failed(original, exc.kind, str(exc), text, usage, attempts + exc.attempts)
            run.bar.advance()
            attempts, usage = attempts + n, usage + completion.usage
            try:
                checked = _check(completion, original, model)
            except _CheckCrashed as exc:  # not the reply's fault: no repair, not cached
                return self._failed(original, "check_error", str(exc), completion.text, usage, attempts)
            except ReplyError as exc:
                last = (completion.text or completion.refusal or "", exc)
                if exc.kind == "refusal" or round_ == self.config.repair_attempts:
                    break
                self.stats.repairs += 1
                self.stats.repairs_cut += len(completion.text or "") > repair_quote_limit(original)
                run.bar.add_calls(1)
                request = repair_request(original, completion.text, exc)
                continue
            if run.cache is not None:
                reply = CachedReply(completion.text, usage, attempts)
                run.cache.put(run.keys[i], self._public_id, self.llm.model, reply)
            self._streak = 0
            self.stats.succeeded += 1
            return LLMResult(original, checked.value, completion.text, None, False, usage, attempts, checked.data)
        assert last is not None
        repairs = f" (after {round_} repair request{'s' if round_ != 1 else ''})" if round_ else ""
        message = f"{last[1]}{repairs}"
        if run.cache is not None and self.config.cache_failures:
            # a refusal is not repaired, so more repair attempts would not change it
            repairs = max(round_, self.config.repair_attempts) if last[1].kind == "refusal" else round_
            failure = CachedFailure(last[1].kind, message, repairs)
            run.cache.put(run.keys[i], self._public_id, self.llm.model, CachedReply(last[0], usage, attempts, failure))
        return self._failed(original, last[1].kind, message, last[0], usage, attempts)

    def _replays(self, hit: CachedReply) -> bool:
        """True when a cached invalid reply stands: failures are cached, and no more repairs are allowed now."""
        failure = hit.failure
        return failure is not None and self.config.cache_failures and failure.repairs >= self.config.repair_attempts

    def _cached_failure(self, request: LLMRequest, hit: CachedReply) -> LLMResult:
        """A failure replayed from the cache: counted as a failure and a cache hit, nothing paid."""
        assert hit.failure is not None
        self._count_replay(hit)
        self.stats.failures += 1
        self.stats.errors[hit.failure.kind] = self.stats.errors.get(hit.failure.kind, 0) + 1
        return LLMResult(request, None, hit.text, hit.failure.message, True, hit.usage, 0)

    def _count_replay(self, hit: CachedReply) -> None:
        """A cache hit: nothing is paid now; what the reply cost when it was paid for is counted apart."""
        self.stats.cache_hits += 1
        self.stats.cached_prompt_tokens += hit.usage.prompt_tokens
        self.stats.cached_completion_tokens += hit.usage.completion_tokens
        self.stats.cached_cost_usd += cost_of(hit.usage, self.price)

    # ----------------------------------------------------------------- one call

    async def _call(self, run: _Run, request: LLMRequest) -> tuple[Completion, int]:
        """One API call with retries; returns the completion and the number of attempts."""
        probe = await self._await_probe(run)
        worst_tokens = estimate_prompt_tokens(request, conservative=True) + request.max_tokens
        worst_cost = cost_of(Usage(worst_tokens - request.max_tokens, request.max_tokens), self.price)
        attempts = 0
        try:
            async for attempt in retrying(self.config, self._on_retry):
                with attempt:
                    await self._pacer.acquire(worst_tokens)
                    self._reserve(worst_cost)  # after the pacer's wait, so a stop meanwhile sends nothing
                    attempts += 1
                    completion = await self._sending(run, self._send(request, worst_cost))
            return completion, attempts
        except TransientLLMError as exc:
            raise _CallFailed(*give_up(exc, attempts, self.config), attempts) from None
        except BadRequestLLMError as exc:
            raise _CallFailed("bad_request", str(exc), attempts) from None
        except _CallFailed as exc:
            exc.attempts = attempts
            raise
        except AuthLLMError as exc:  # authentication or quota: stop before anyone else sends
            self._stop(str(exc))
            raise
        except LLMError as exc:  # a backend's own error type: recorded, the run goes on
            raise _CallFailed("backend_error", str(exc), attempts) from None
        finally:
            if probe:
                self._probed = True
                run.probe_done.set()

    @staticmethod
    async def _sending(run: _Run, send: Coroutine[Any, Any, Completion]) -> Completion:
        """Await ``send`` with the current worker marked as waiting for a reply."""
        task = asyncio.current_task()
        assert task is not None
        run.sending.add(task)
        try:
            return await send
        finally:
            run.sending.discard(task)

    async def _await_probe(self, run: _Run) -> bool:
        """Let the engine's first call run alone; True when this call is that probe."""
        if self._probed:
            return False
        if not run.probe_started:
            run.probe_started = True
            return True
        await run.probe_done.wait()
        return False

    def _reserve(self, worst_cost: float) -> None:
        if self._stopped is not None:
            raise _Stopped(self._stopped)
        try:
            self._budget.reserve(worst_cost)
        except BudgetExceeded as exc:
            self._stop(str(exc))
            raise _Stopped(str(exc)) from None

    async def _send(self, request: LLMRequest, worst_cost: float) -> Completion:
        self.stats.requests_sent += 1
        try:
            async with asyncio.timeout(self.config.timeout_s):
                completion = await self.llm.complete(request)
        except BaseException as exc:
            self._budget.settle(worst_cost, 0.0)
            if isinstance(exc, TimeoutError):
                raise TransientLLMError(f"timed out after {self.config.timeout_s:g} s") from None
            if isinstance(exc, LLMError) or not isinstance(exc, Exception):
                raise
            mapped = classify(exc)
            if mapped is None:
                raise _CallFailed("backend_error", f"backend error: {type(exc).__name__}") from None
            raise mapped from None
        if not isinstance(completion, Completion):
            self._budget.settle(worst_cost, 0.0)
            raise _CallFailed("backend_error", f"backend error: complete() returned {type(completion).__name__}")
        if not completion.usage_reported:
            completion = dataclasses.replace(completion, usage=_estimated_usage(request, completion))
        cost = cost_of(completion.usage, self.price)
        self._budget.settle(worst_cost, cost)
        self.stats.prompt_tokens += completion.usage.prompt_tokens
        self.stats.completion_tokens += completion.usage.completion_tokens
        self.stats.cost_usd += cost
        return completion

    def _on_retry(self, retry_after: float | None) -> None:
        self.stats.retries += 1
        if retry_after:
            self._pacer.pause(retry_after)  # a 429 with Retry-After holds every request, not only this one

    # ----------------------------------------------------------------- bookkeeping

    def _stop(self, reason: str) -> None:
        if self._stopped is None:
            self._stopped = reason
            self.stats.stopped_reason = reason
            log.warning("llm: stopping: %s", reason)

    def _failed(
        self, request: LLMRequest, kind: str, message: str, text: str | None, usage: Usage, attempts: int
    ) -> LLMResult:
        self.stats.failures += 1
        self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1
        self._streak += 1
        if self._streak >= self.config.max_consecutive_failures:
            self._stop(f"{self._streak} consecutive failures (last: {message})")
        return LLMResult(request, None, text, message, False, usage, attempts)

    def _not_run(self, request: LLMRequest) -> LLMResult:
        self.stats.not_run += 1
        return LLMResult(request, error=f"not run: stopped ({self._stopped})")

    def _log_summary(self) -> None:
        s = self.stats
        log.info(
            "llm %s: %d requests, %d cached, %d sent, %d retries, %d repairs, %d failed, %d+%d tokens, %.4f USD"
            " (cached replies: %d+%d tokens, %.4f USD when paid for)",
            s.backend, s.requests, s.cache_hits, s.requests_sent, s.retries, s.repairs, s.failures,
            s.prompt_tokens, s.completion_tokens, s.cost_usd,
            s.cached_prompt_tokens, s.cached_completion_tokens, s.cached_cost_usd,
        )  # fmt: skip


def _estimated_usage(request: LLMRequest, completion: Completion) -> Usage:
    return Usage(estimate_prompt_tokens(request), estimate_tokens(completion.text))


def _check(completion: Completion, request: LLMRequest, model: Any) -> Checked:
    """``check_reply``; a crash of the checking code (a response model's validator raising a
    ``KeyError``, a reply nested too deep for ``json``) becomes :class:`_CheckCrashed`, a
    recorded failure, instead of ending the run and every call in flight."""
    try:
        return check_reply(completion, request, model)
    except ReplyError:
        raise
    except Exception as exc:  # the class name only: the exception's text may quote the reply
        raise _CheckCrashed(f"checking the reply raised {type(exc).__name__}") from None


def unpriced_budget(model: str) -> LLMSpecError:
    """The error of a cost limit (``llm.max_cost_usd``) set for a model without a price."""
    return LLMSpecError(
        f"llm.max_cost_usd needs a price for model '{model}': "
        f'add llm.prices."{model}" = [prompt, completion] (USD per million tokens), or unset llm.max_cost_usd'
    )
