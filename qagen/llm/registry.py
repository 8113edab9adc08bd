"""Backends by spec string: ``openai:gpt-4o-mini``, ``openai:<model>@<base_url>``, ...

A plain dict maps a spec's prefix to a factory ``(rest, config) -> LLM``; third-party code
adds backends with :func:`register_backend`. Everywhere qagen takes an LLM it accepts a
backend object, a spec string, or a LangChain chat model (wrapped).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from qagen.config import Config, LLMConfig
from qagen.llm.base import LLM, LLMSpecError

Factory = Callable[[str, LLMConfig], LLM]

_URL = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")


def openai_model(rest: str) -> tuple[str, str | None]:
    """The model and base URL (None: not in the spec) of an ``openai:<model>[@<base_url>]`` spec's ``rest``."""
    match = _URL.match(rest)
    return (match["model"], match["url"]) if match else (rest, None)


def _openai(rest: str, config: LLMConfig) -> LLM:
    from qagen.llm.openai_backend import OpenAIBackend

    model, base_url = openai_model(rest)
    base_url = base_url or config.base_url
    if not model:
        raise LLMSpecError("llm.backend 'openai' needs a model: openai:<model>[@<base_url>], e.g. openai:gpt-4o-mini")
    return OpenAIBackend(
        model,
        base_url=base_url,
        api_key_env=config.api_key_env,
        timeout_s=config.timeout_s,
        structured_output=config.structured_output,
    )


def _not_an_llm(rest: str, config: LLMConfig) -> LLM:
    raise LLMSpecError(
        "'extractive' is not an LLM: it generates questions from the text itself, and the generation"
        " stage uses it directly; pass an LLM spec such as openai:<model>[@<base_url>] to get_llm"
    )


def _local(rest: str, config: LLMConfig) -> LLM:
    from qagen.llm.llamacpp_backend import local_backend

    return local_backend(rest, config)


def _llamacpp(rest: str, config: LLMConfig) -> LLM:
    from qagen.llm.llamacpp_backend import llamacpp_backend

    return llamacpp_backend(rest, config)


def _replay(rest: str, config: LLMConfig) -> LLM:
    from qagen.llm.replay import ReplayLLM

    if not rest:
        raise LLMSpecError("llm.backend 'replay' needs a folder: replay:<folder with replies.jsonl>")
    return ReplayLLM(rest)


def _langchain_spec(rest: str, config: LLMConfig) -> LLM:
    raise LLMSpecError(
        "the langchain backend takes a model object, not a string: pass a LangChain chat model"
        " (for example ChatOpenAI(...)) to the Python API"
    )


BACKENDS: dict[str, Factory] = {
    "openai": _openai,
    "langchain": _langchain_spec,
    "local": _local,
    "llamacpp": _llamacpp,
    "replay": _replay,
    "extractive": _not_an_llm,
}


def register_backend(name: str, factory: Factory) -> None:
    """Make ``name:<rest>`` specs build LLMs with ``factory(rest, config)`` (replaces any existing one)."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise ValueError(f"backend name must be lower-case letters, digits, '_' or '-'; got {name!r}")
    BACKENDS[name] = factory


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``name:rest`` (``rest`` may be empty)."""
    name, _, rest = spec.strip().partition(":")
    return name.strip().lower(), rest.strip()


def get_llm(llm: LLM | str | Any, config: LLMConfig | Config | None = None) -> LLM:
    """An LLM from a backend object, a spec string, or a LangChain chat model.

    Args:
        llm: ``"openai:gpt-4o-mini"``, ``"openai:<model>@http://127.0.0.1:8000/v1"``, an
            object with ``id``, ``model`` and ``async complete(request)``, or a LangChain
            ``BaseChatModel``.
        config: The ``[llm]`` section (or a whole Config); defaults when None.

    Raises:
        LLMSpecError: The spec names no usable backend (the message says what to use).
    """
    cfg = config.llm if isinstance(config, Config) else (config or LLMConfig())
    if isinstance(llm, str):
        name, rest = parse_spec(llm)
        factory = BACKENDS.get(name)
        if factory is None:
            valid = "openai:<model>[@<base_url>], " + ", ".join(sorted(n for n in BACKENDS if n != "openai"))
            raise LLMSpecError(f"unknown LLM backend '{llm}'; valid: {valid}")
        return factory(rest, cfg)
    from qagen.llm.langchain_backend import LangChainBackend, is_langchain_chat_model

    if is_langchain_chat_model(llm):
        return LangChainBackend(llm, structured_output=cfg.structured_output)
    if isinstance(llm, LLM):
        return llm
    raise TypeError(
        f"llm must be a spec string, an LLM backend (id, model, async complete) or a LangChain chat model;"
        f" got {type(llm).__name__}"
    )


def backend_identity(llm: Any, config: LLMConfig) -> Any:
    """What a build's results depend on of an LLM given as ``llm``: a spec as given, an object by its id.

    A LangChain model's id names its class, model and settings. Credentials in a URL are left
    out (:func:`~qagen.llm.engine.public_id`): a new password is no reason to generate again.
    None stays None (the config's ``llm.backend`` is hashed with the config).
    """
    from qagen.llm.base import public_id

    if llm is None:
        return None
    if isinstance(llm, str):
        return public_id(llm)
    return public_id(get_llm(llm, config).id)
