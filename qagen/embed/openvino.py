"""A sentence-transformers model run by OpenVINO on the CPU (``embed.backend = "openvino"``).

The model's weights are read from the same folder as the sentence-transformers backend (the
bundled all-MiniLM-L6-v2 by default, offline) and converted once per process with
``openvino.convert_model``: the transformer, mean pooling over the attention mask and L2
normalisation in one graph, batch and sequence length dynamic. It runs with OpenVINO's
throughput hint (one stream per two cores, several requests in flight) on batches of texts
sorted by length. ``embed.openvino_precision``: ``auto`` takes the CPU's default inference
precision, bfloat16 on CPUs with AVX512-BF16 or AMX, float32 elsewhere; ``f32`` forces float32
(vectors equal to the sentence-transformers backend's to the fifth decimal).

Measured on 400 sections of the shared manuals, 2 cores with bfloat16 (``benchmarks/embed_speed.py``):
about 2.5x the sentence-transformers backend's sections per second, the nearest neighbour of 99.5 %
of the sections unchanged (mean cosine with today's vectors 0.99998). Needs ``pip install
"qagen[openvino]"``; ``openvino`` loads when the embedder is made (to read the CPU's precision, which
is part of the embedder's id) and the model is converted on the first ``embed`` call; never at import.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qagen.embed.base import EmbedError, normalize_rows
from qagen.embed.sentence import _MINILM_NAMES, MINILM, model_fingerprint, resolve_model

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
PRECISIONS = ("auto", "f32")


def _pooling(folder: Path) -> int:
    """The max_seq_length of a mean-pooling sentence-transformers folder; EmbedError otherwise."""
    modules = json.loads((folder / "modules.json").read_text()) if (folder / "modules.json").is_file() else []
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
    pooling = next((folder / m["path"] / "config.json" for m in modules if m.get("type", "").endswith("Pooling")), None)
    config = json.loads(pooling.read_text()) if pooling is not None and pooling.is_file() else {}
    if kinds[:2] != ["Transformer", "Pooling"] or not config.get("pooling_mode_mean_tokens"):
        raise EmbedError(
            f"embed.backend openvino runs mean-pooling sentence-transformers models; {folder} is not one "
            "(use sentence-transformers:<folder> for it)"
        )
    bert = folder / "sentence_bert_config.json"
    max_len = json.loads(bert.read_text()).get("max_seq_length", 256) if bert.is_file() else 256
    return int(max_len)


def _openvino() -> Any:
    try:
        import openvino
    except ImportError:
        raise EmbedError(
            'embed.backend openvino needs OpenVINO: pip install "qagen[openvino]", or use embed.backend = "minilm"'
        ) from None
    return openvino


@functools.lru_cache(maxsize=4)
def _effective(precision: str) -> str:
    """``f32``, or for ``auto`` what the CPU plugin runs by default: ``bf16`` where the CPU has it."""
    if precision == "f32":
        return "f32"
    return "bf16" if "BF16" in _openvino().Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES") else "f32"


@functools.lru_cache(maxsize=2)
def _compiled(folder: str, precision: str, threads: int) -> tuple[Any, Any, int]:
    """(tokenizer, compiled model, max length) of one folder and precision, once per process."""
    ov = _openvino()
    import torch
    from transformers import AutoModel, AutoTokenizer

    max_len = _pooling(Path(folder))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    encoder = AutoModel.from_pretrained(folder).eval()

    class MeanPooled(torch.nn.Module):  # the transformer, mean pooling, L2 normalisation: one graph
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    example = tokenizer(["an example", "a second, longer example text"], padding=True, return_tensors="pt")
    # tracing warns that the attention mask's padding arithmetic is fixed for the example's shapes: the
    # vectors match sentence-transformers' at every length (tests/test_embed_openvino.py), so it is not shown
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ov.convert_model(
            MeanPooled(),
            example_input={k: example[k] for k in _INPUTS},
            input=[(k, [-1, -1], ov.Type.i64) for k in _INPUTS],
        )
    config: dict[str, Any] = {"PERFORMANCE_HINT": "THROUGHPUT", "INFERENCE_NUM_THREADS": threads}
    if precision == "f32":
        config["INFERENCE_PRECISION_HINT"] = "f32"
    return tokenizer, ov.Core().compile_model(model, "CPU", config), max_len


class OpenVINOEmbedder:
    """A mean-pooling sentence-transformers model (default: the bundled MiniLM) run by OpenVINO.

    Args:
        name: Local folder, Hugging Face model name, or ``minilm`` for the bundled default.
        batch_size: Texts per inference request (small batches pad less; several run at once).
        precision: ``auto`` (the CPU's default: bfloat16 where supported) or ``f32``.
        threads: CPU threads OpenVINO uses (default: all of the machine's).
        offline: Never try to download.
    """

    def __init__(
        self,
        name: str = MINILM,
        *,
        batch_size: int = 8,
        precision: str = "auto",
        threads: int = 0,
        offline: bool = False,
    ) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"embed.openvino_precision must be one of {', '.join(PRECISIONS)}; got '{precision}'")
        self.folder = resolve_model(name, offline=offline)
        _pooling(self.folder)
        label = MINILM if name.lower() in _MINILM_NAMES else (self.folder.name if Path(name).is_dir() else name)
        # the precision the CPU will run (auto: bfloat16 where it can), so that cached vectors of one
        # precision are never read as the other's
        self.id = f"openvino:{label}:{model_fingerprint(self.folder)}:{_effective(precision)}"
        self.batch_size = batch_size
        self.precision = precision
        self.threads = threads

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (converts and compiles the model on first use)."""
        ov = _openvino()
        tokenizer, compiled, max_len = _compiled(str(self.folder), self.precision, self.threads)
        width = compiled.output(0).get_partial_shape()[1].get_length()
        out = np.zeros((len(texts), width), dtype=np.float32)
        if not texts:
            return out
        queue = ov.AsyncInferQueue(compiled, compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))

        def done(request: Any, rows: Any) -> None:
            out[rows] = request.get_output_tensor(0).data

        queue.set_callback(done)
        order = np.argsort([-len(t) for t in texts], kind="stable")  # longest first: batches of like lengths
        for start in range(0, len(texts), self.batch_size):
            rows = order[start : start + self.batch_size]
            batch = tokenizer(
                [texts[i] for i in rows], padding=True, truncation=True, max_length=max_len, return_tensors="np"
            )
            queue.start_async({k: batch[k].astype(np.int64) for k in _INPUTS}, rows)
        queue.wait_all()
        return normalize_rows(out)


__all__ = ["PRECISIONS", "OpenVINOEmbedder"]
