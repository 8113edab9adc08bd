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


def preflight(backend: Any, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Check an :class:`~qagen.llm.openai_backend.OpenAIBackend`'s key and that its server answers.

    Args:
        backend: The backend (its ``base_url``, key variable and key are read from it).
        timeout_s: Connect and read timeout of the one call.

    Raises:
        AuthLLMError: No key is set, or the server refused it (HTTP 401/403).
        EndpointLLMError: The server did not answer (no connection, or no reply within ``timeout_s``).
    """
    import openai

    key = backend._key()  # no key: AuthLLMError, before anything else
    url = shown_url(backend.base_url)
    client = openai.OpenAI(api_key=key, base_url=backend.base_url, max_retries=0, timeout=timeout_s)
    try:
        client.models.list()
    except openai.APITimeoutError:
        raise EndpointLLMError(
            f"the LLM endpoint {url} did not answer within {timeout_s:g} s; check that the server is up and the "
            f"URL (--llm openai:MODEL@URL or llm.base_url), or build offline with --llm extractive; {_SKIP}"
        ) from None
    except openai.APIConnectionError as exc:
        cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else "no connection"
        raise EndpointLLMError(
            f"the LLM endpoint {url} cannot be reached ({_cause(cause)}); check that the server is up and the URL "
            f"(--llm openai:MODEL@URL or llm.base_url), or build offline with --llm extractive; {_SKIP}"
        ) from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise AuthLLMError(
            f"the LLM endpoint {url} refused the key (HTTP {exc.status_code}): {backend.auth_hint}"
        ) from None
    except openai.NotFoundError:
        # every OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, Azure v1) lists its models
        # there: a 404 is a base URL without its API path ("/v1") or another service
        raise EndpointLLMError(
            f"the LLM endpoint {url} has no model list (HTTP 404 for {url.rstrip('/')}/models): is the URL "
            f"missing its API path, such as /v1? (--llm openai:MODEL@URL or llm.base_url); {_SKIP}"
        ) from None
    except openai.APIStatusError:
        return  # the server answered (busy, failing): the engine retries what is transient


def _cause(name: str) -> str:
    return {"ConnectError": "connection refused or no such host", "ConnectTimeout": "no answer to connect"}.get(
        name, name
    )
