"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp, Azure).

Retries of timeouts, 429 and 5xx (honouring Retry-After) are the ``openai`` client's own.
Error messages name the status and what to do, never the key or the provider's body.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

import numpy as np

from qagen.embed.base import EmbedError, normalize_rows

# Endpoints limit input length (8,192 tokens for OpenAI's models); ~4 characters per token.
MAX_CHARS = 24_000


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings model.

    Args:
        model: Model name sent to the server.
        base_url: Server URL (``http://localhost:8000/v1``); None for api.openai.com.
        api_key_env: Environment variable holding the key; optional when ``base_url`` is set.
        batch_size: Texts per request.
        timeout_s: Per-request timeout.
        max_retries: Retries of transient failures (by the openai client).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 64,
        timeout_s: float = 60.0,
        max_retries: int = 6,
    ) -> None:
        if not model:
            raise ValueError("openai embedder needs a model name: openai:<model>[@<base_url>]")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        # the id keys the embedding cache and is shown: the host and path, never user:password@ or a query
        host = urlparse(base_url).netloc.rpartition("@")[2] + urlparse(base_url).path if base_url else "api.openai.com"
        self.id = f"openai:{model}@{host.rstrip('/')}"
        self._client: Any = None
        if not os.environ.get(api_key_env) and base_url is None:
            raise EmbedError(
                f"No API key for the openai embedder: set {api_key_env}, give a base_url "
                "(openai:<model>@http://host/v1), or use embed.backend = 'tfidf'"
            )

    def _make_client(self) -> Any:
        import openai

        return openai.OpenAI(
            api_key=os.environ.get(self.api_key_env) or "not-needed",
            base_url=self.base_url,
            timeout=self.timeout_s,
            max_retries=self.max_retries,
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``, ``batch_size`` texts per request."""
        if self._client is None:
            self._client = self._make_client()
        chunks = [self._request(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        if not chunks:
            return np.zeros((0, 0), dtype=np.float32)
        return normalize_rows(np.concatenate(chunks, axis=0))

    def _request(self, batch: list[str]) -> np.ndarray:
        import openai

        # Servers reject empty strings; a single space embeds as "nothing".
        inputs = [t[:MAX_CHARS] if t.strip() else " " for t in batch]
        try:
            reply = self._client.embeddings.create(model=self.model, input=inputs, encoding_format="float")
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise EmbedError(
                f"the embedding endpoint refused the credentials (HTTP {exc.status_code}); check ${self.api_key_env}"
            ) from None
        except openai.APIStatusError as exc:
            raise EmbedError(
                f"embedding request for model '{self.model}' failed with HTTP {exc.status_code}; "
                "check the model name and the server"
            ) from None
        except openai.APIConnectionError as exc:
            where = self.base_url or "api.openai.com"
            raise EmbedError(f"cannot reach the embedding endpoint {where} ({type(exc).__name__})") from None
        rows = sorted(reply.data, key=lambda d: d.index)
        if len(rows) != len(inputs):
            raise EmbedError(f"embedding endpoint returned {len(rows)} vectors for {len(inputs)} texts")
        return np.asarray([r.embedding for r in rows], dtype=np.float32)
