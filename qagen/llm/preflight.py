"""One cheap call to an OpenAI-compatible endpoint before a build parses anything.

A wrong URL or a missing key used to surface after parsing, topics and folds, as minutes of retried
requests and "no candidates". :func:`preflight` asks the server for its model list (``GET /models``)
once, with a short timeout and no retries, and turns what goes wrong into one line that names the URL
or the key's variable and what to do: no connection, no reply in 5 s, a refused key, or a 404 (a base URL
without its API path). A server error (5xx, 429) counts as reachable: the engine retries those.
``llm.preflight = false`` (``--no-preflight``) skips it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from qagen.llm.base import AuthLLMError, LLMError

PREFLIGHT_TIMEOUT_S = 5.0
_SKIP = "--no-preflight skips this check"


class EndpointLLMError(LLMError):
    """The configured endpoint did not answer the preflight call."""


def shown_url(base_url: str | None) -> str:
    """The endpoint as a message may show it: without a user or password."""
    if not base_url:
        return "https://api.openai.com/v1"
    parts = urlparse(base_url)
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc).geturl()


def preflight(backend: Any, timeout_s: float = PREFLIGHT_TIMEOUT_S, role: str = "build") -> None:
    """Check an :class:`~qagen.llm.openai_backend.OpenAIBackend`'s key and that its server answers.

    Args:
        backend: The backend (its ``base_url``, key variable and key are read from it).
        timeout_s: Connect and read timeout of the one call.
        role: ``build`` (the generator), ``judge`` (``qagen score``'s judges) or ``ask`` (``qagen ask``'s
            LLM): what the message tells the user to change.

    Raises:
        AuthLLMError: No key is set, or the server refused it (HTTP 401/403).
        EndpointLLMError: The server did not answer (no connection, or no reply within ``timeout_s``).
    """
    key = backend._key()  # no key: AuthLLMError, before anything else
    if role == "judge":
        what, where = "LLM judge's endpoint", "--judge / --grader openai:MODEL@URL or llm.base_url)"
        skip = "--set llm.preflight=false skips this check"
    elif role == "ask":
        what, where = "LLM endpoint", "--llm openai:MODEL@URL or llm.base_url), or answer offline without --llm"
        skip = "--set llm.preflight=false skips this check"
    else:
        what, where = "LLM endpoint", "--llm openai:MODEL@URL or llm.base_url), or build offline with --llm extractive"
        skip = _SKIP
    check_endpoint(backend.base_url, key, what, where, backend.auth_hint, skip, timeout_s)


def preflight_llm(spec: Any, config: Any, role: str = "build") -> Any | None:
    """Preflight the LLM that ``spec`` names (a spec string or a backend) when it is OpenAI-compatible, with
    :func:`preflight`; the backend it checked, or None when there was nothing to check."""
    from qagen.llm.openai_backend import OpenAIBackend

    if isinstance(spec, str):
        from qagen.llm.registry import get_llm, parse_spec

        spec = get_llm(spec, config) if parse_spec(spec)[0] == "openai" else None
    if not isinstance(spec, OpenAIBackend):
        return None
    preflight(spec, role=role)
    return spec


def preflight_embedder(embedder: Any, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Check an :class:`~qagen.embed.openai_embed.OpenAIEmbedder`'s server and key the same way."""
    import os

    key = os.environ.get(embedder.api_key_env) or "not-needed"
    host = urlparse(embedder.base_url).netloc.rpartition("@")[2] if embedder.base_url else "api.openai.com"
    check_endpoint(
        embedder.base_url,
        key,
        "embedding endpoint",
        "embed.backend openai:MODEL@URL or embed.base_url), or embed offline with --set embed.backend=tfidf",
        f"set {embedder.api_key_env} to a valid key for {host} (or check the key)",
        _SKIP,
        timeout_s,
    )


def check_endpoint(
    base_url: str | None,
    key: str,
    what: str,
    where: str,
    auth_hint: str,
    skip: str = _SKIP,
    timeout_s: float = PREFLIGHT_TIMEOUT_S,
) -> None:
    """One ``GET /models`` to an OpenAI-compatible server, each failure one line (see the module).

    Args:
        base_url: The server's API URL (None: api.openai.com).
        key: The key sent.
        what: What the endpoint is, as the message names it ("LLM endpoint", "embedding endpoint").
        where: The settings that choose the URL (the message says "check ... the URL (WHERE").
        auth_hint: What to do about a refused key.
        skip: How to skip the check.
        timeout_s: Connect and read timeout.
    """
    import openai

    url = shown_url(base_url)
    client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=timeout_s)
    try:
        client.models.list()
    except openai.APITimeoutError:
        raise EndpointLLMError(
            f"the {what} {url} did not answer within {timeout_s:g} s; check that the server is up and the URL "
            f"({where}; {skip}"
        ) from None
    except openai.APIConnectionError as exc:
        cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else "no connection"
        raise EndpointLLMError(
            f"the {what} {url} cannot be reached ({_cause(cause)}); check that the server is up and the URL "
            f"({where}; {skip}"
        ) from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise AuthLLMError(f"the {what} {url} refused the key (HTTP {exc.status_code}): {auth_hint}") from None
    except openai.NotFoundError:
        # every OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, Azure v1) lists its models
        # there: a 404 is a base URL without its API path ("/v1") or another service
        setting = where.partition(")")[0]
        raise EndpointLLMError(
            f"the {what} {url} has no model list (HTTP 404 for {url.rstrip('/')}/models): is the URL "
            f"missing its API path, such as /v1? ({setting}); {skip}"
        ) from None
    except openai.APIStatusError:
        return  # the server answered (busy, failing): the engine retries what is transient


def _cause(name: str) -> str:
    return {"ConnectError": "connection refused or no such host", "ConnectTimeout": "no answer to connect"}.get(
        name, name
    )
