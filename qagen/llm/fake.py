"""An in-process fake LLM for tests of code that uses the engine (generation, filters).

Inject it wherever an LLM is accepted::

    llm = FakeLLM(lambda request: '{"question": "Q?", "answer": "A."}')
    engine = LLMEngine(llm, LLMConfig(), cache_path=None)

Replies come from a queue (strings, :class:`Completion` objects or exceptions, consumed in
order) and then from ``responder(request)``; every request is kept in ``calls``. For the
HTTP path (the openai client, retries, timeouts) use ``tests/support/llm_server.py`` instead.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from qagen.llm.base import Completion, LLMRequest, Usage
from qagen.llm.pricing import estimate_prompt_tokens, estimate_tokens

Reply = str | Completion | BaseException


class FakeLLM:
    """A scripted LLM: queued replies first, then ``responder``; ``calls`` records requests."""

    def __init__(
        self,
        responder: Callable[[LLMRequest], Reply] | None = None,
        replies: Iterable[Reply] = (),
        model: str = "fake",
    ) -> None:
        self.model = model
        self.id = f"fake:{model}"
        self.structured_mode = "json_schema"
        self.responder = responder
        self.queue: deque[Reply] = deque(replies)
        self.calls: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> Completion:
        self.calls.append(request)
        if self.queue:
            reply = self.queue.popleft()
        elif self.responder is not None:
            reply = self.responder(request)
        else:
            raise AssertionError("FakeLLM has no queued reply and no responder")
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        return Completion(reply, Usage(estimate_prompt_tokens(request), estimate_tokens(reply)), self.model, "stop")
