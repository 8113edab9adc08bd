"""Any LangChain chat model (``BaseChatModel``) as a qagen LLM.

Every provider LangChain supports works: messages go through ``ainvoke``, usage comes from
``usage_metadata``, errors are mapped by their HTTP status or class. For the OpenAI family
(``ChatOpenAI``, ``AzureChatOpenAI``) the request's temperature, max_tokens and seed are
sent per call and a schema goes as ``response_format`` with the same fallback as the openai
backend; other models keep their own settings and get the schema in the prompt.

Build the model with ``max_retries=0``: qagen's engine does the retrying.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from qagen.llm.base import Completion, LLMRequest, Usage
from qagen.llm.errors import classify
from qagen.llm.openai_backend import completion_from, next_mode, rejects_mode, schema_payload

log = logging.getLogger("qagen.llm")


def is_langchain_chat_model(obj: Any) -> bool:
    """True for a LangChain ``BaseChatModel`` instance (checked without importing LangChain)."""
    return any(
        cls.__name__ == "BaseChatModel" and cls.__module__.startswith("langchain_core") for cls in type(obj).__mro__
    )


def _is_openai_family(obj: Any) -> bool:
    return any(cls.__name__ == "BaseChatOpenAI" for cls in type(obj).__mro__)


def _model_name(model: Any) -> str:
    for attr in ("model_name", "model", "model_id", "deployment_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _settings_hash(model: Any) -> str:
    """A short hash of the model's identifying settings, so a changed setting misses the cache."""
    try:
        params = dict(model._identifying_params)
    except Exception:  # a provider without identifying params: the class and name identify it
        params = {}
    params["base_url"] = str(getattr(model, "openai_api_base", None) or getattr(model, "base_url", None) or "")
    blob = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


class LangChainBackend:
    """Wraps a LangChain chat model.

    Args:
        chat_model: A ``langchain_core`` ``BaseChatModel`` instance.
        structured_output: ``auto`` (native json_schema for the OpenAI family, else prompt)
            or one fixed mode (``json_schema``, ``json_object``, ``prompt``).
        pass_params: Send temperature/max_tokens/seed per call; default: OpenAI family only.
    """

    def __init__(self, chat_model: Any, structured_output: str = "auto", pass_params: bool | None = None) -> None:
        if not is_langchain_chat_model(chat_model):
            raise TypeError(f"expected a LangChain BaseChatModel; got {type(chat_model).__name__}")
        self.chat_model = chat_model
        self.model = _model_name(chat_model)
        self.id = f"langchain:{type(chat_model).__name__}:{self.model}:{_settings_hash(chat_model)}"
        openai_family = _is_openai_family(chat_model)
        self._pass_params = openai_family if pass_params is None else pass_params
        self._auto = structured_output == "auto"
        if self._auto:
            self.structured_mode = "json_schema" if openai_family else "prompt"
        else:
            self.structured_mode = structured_output
        if openai_family and getattr(chat_model, "max_retries", None) != 0:
            log.info("%s: build the model with max_retries=0 so that only qagen retries", self.id)

    def __repr__(self) -> str:
        return f"LangChainBackend({self.id!r}, structured_mode={self.structured_mode!r})"

    def prepare(self) -> None:
        """Import LangChain's message types before the first request (outside any timeout)."""
        import langchain_core.messages  # noqa: F401

    async def complete(self, request: LLMRequest) -> Completion:
        while True:
            mode = self.structured_mode
            messages, response_format = schema_payload(request, mode)
            kwargs: dict[str, Any] = {}
            if self._pass_params:
                kwargs = {"temperature": request.temperature, "max_tokens": request.max_tokens}
                if request.seed is not None:
                    kwargs["seed"] = request.seed
            if response_format is not None:
                kwargs["response_format"] = response_format
            try:
                message = await self.chat_model.ainvoke(_to_langchain(messages), **kwargs)
            except Exception as exc:
                finished = _finished_anyway(exc)
                if finished is not None:
                    return finished
                if request.schema is not None and self._auto and rejects_mode(exc, mode):
                    lower = next_mode(mode)
                    if self.structured_mode == mode and lower is not None:
                        self.structured_mode = lower
                        log.info("%s rejected response_format %s; using %s from now on", self.id, mode, lower)
                    continue
                raise (classify(exc) or exc) from None
            return _completion(message, self.model)


def _to_langchain(messages: list[dict[str, str]]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds.get(m["role"], HumanMessage)(content=m["content"]) for m in messages]


def _finished_anyway(exc: BaseException) -> Completion | None:
    """The reply inside the openai SDK's length / content-filter errors (raised by ``parse()``)."""
    name = type(exc).__name__
    if name == "LengthFinishReasonError":
        return completion_from(exc.completion)  # type: ignore[attr-defined]
    if name == "ContentFilterFinishReasonError":
        inner = getattr(exc, "completion", None)
        if inner is not None:
            return completion_from(inner)
        return Completion("", finish_reason="content_filter")
    return None


def _completion(message: Any, model: str) -> Completion:
    content = message.content
    if isinstance(content, list):  # content blocks: keep the text ones
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    meta = getattr(message, "response_metadata", {}) or {}
    usage_meta = getattr(message, "usage_metadata", None)
    usage = Usage()
    if usage_meta:
        usage = Usage(int(usage_meta.get("input_tokens", 0)), int(usage_meta.get("output_tokens", 0)))
    extra = getattr(message, "additional_kwargs", {}) or {}
    return Completion(
        text=content or "",
        usage=usage,
        model=str(meta.get("model_name", model)),
        finish_reason=meta.get("finish_reason") or meta.get("stop_reason"),
        refusal=extra.get("refusal") or None,
        usage_reported=bool(usage_meta),
    )
