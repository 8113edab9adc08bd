"""OpenVINO against sentence-transformers/PyTorch for the bundled all-MiniLM-L6-v2 (scratch benchmark).

    cd /work/main && HF_HUB_OFFLINE=1 unshare -n .venv/bin/python benchmarks/scratch_openvino/ov_bench.py

Needs OpenVINO (and NNCF for the int8 variants) installed *outside* the venv:

    /work/main/.venv/bin/pip install --no-deps --target /tmp/ovpkgs openvino openvino-telemetry
    /work/main/.venv/bin/pip install --no-deps --target /tmp/ovpkgs nncf ninja psutil pydot pyparsing

/tmp/ovpkgs goes on sys.path *after* the venv's site-packages. All variants run in one process on the
same texts (sample_texts(400, 0) from benchmarks/embed_speed.py), interleaved over several rounds;
the median sections/s and the quality against today (quality() from embed_speed.py) are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path[:0] = ["/work/main", "/work/main/benchmarks"]
sys.path.append(os.environ.get("OV_PKGS", "/tmp/ovpkgs"))  # after the venv's site-packages

import numpy as np  # noqa: E402

from embed_speed import quality, sample_texts  # noqa: E402

WORK = Path(os.environ.get("OV_WORK", "/tmp/ov_minilm"))
Encoder = Callable[[list[str]], np.ndarray]


def convert(folder: Path, max_length: int) -> tuple[object, float]:
    """OpenVINO model of transformer + mean pooling + L2 normalisation (as modules.json), from disk."""
    import openvino as ov
    import torch
    from transformers import AutoModel, AutoTokenizer

    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    hf = AutoModel.from_pretrained(str(folder)).eval()

    class Embed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hf = hf

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            h = self.hf(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            # sentence_transformers Pooling, pooling_mode_mean_tokens (1_Pooling/config.json)
            mask = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * mask).sum(dim=1) / torch.clamp(mask.sum(dim=1), min=1e-9)
            # sentence_transformers Normalize (2_Normalize)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    ex = tokenizer(["hello world", "a longer example sentence for tracing"], padding=True, return_tensors="pt")
    example = {k: ex[k] for k in ("input_ids", "attention_mask", "token_type_ids")}
    with torch.no_grad():
        model = ov.convert_model(
            Embed(),
            example_input=example,
            input=[("input_ids", [-1, -1], ov.Type.i64), ("attention_mask", [-1, -1], ov.Type.i64),
                   ("token_type_ids", [-1, -1], ov.Type.i64)],
        )
    WORK.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(WORK / "minilm_f32.xml"), compress_to_fp16=False)
    return model, time.perf_counter() - t0


def tokenize(tokenizer, batch: list[str], max_length: int) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    enc = tokenizer(batch, padding=True, truncation="longest_first", max_length=max_length, return_tensors="np")
    return {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}


def ov_sync(compiled, tokenizer, batch: int, max_length: int) -> Encoder:  # type: ignore[no-untyped-def]
    request = compiled.create_infer_request()

    def encode(texts: list[str]) -> np.ndarray:
        order = np.argsort([-len(t) for t in texts])  # as SentenceTransformer.encode
        out = np.empty((len(texts), 384), dtype=np.float32)
        for start in range(0, len(texts), batch):
            rows = order[start : start + batch]
            out[rows] = request.infer(tokenize(tokenizer, [texts[i] for i in rows], max_length))[0]
        return out

    return encode


def ov_async(compiled, tokenizer, batch: int, max_length: int) -> Encoder:  # type: ignore[no-untyped-def]
    import openvino as ov

    queue = ov.AsyncInferQueue(compiled, compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))

    def encode(texts: list[str]) -> np.ndarray:
        order = np.argsort([-len(t) for t in texts])
        out = np.empty((len(texts), 384), dtype=np.float32)

        def done(request, rows) -> None:  # type: ignore[no-untyped-def]
            out[rows] = request.get_output_tensor(0).data

        queue.set_callback(done)
        for start in range(0, len(texts), batch):
            rows = order[start : start + batch]
            queue.start_async(tokenize(tokenizer, [texts[i] for i in rows], max_length), rows)
        queue.wait_all()
        return out

    return encode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sections", type=int, default=400)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calibration", type=int, default=300, help="texts for int8 static quantisation")
    parser.add_argument("--only", default="", help="comma-separated substrings of variant names to keep")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")

    import torch
    from sentence_transformers import SentenceTransformer

    from qagen.embed.base import normalize_rows
    from qagen.embed.sentence import bundled_minilm_path

    texts = sample_texts(args.sections, 0)
    torch.set_num_threads(args.threads)
    folder = bundled_minilm_path()
    assert folder is not None
    st = SentenceTransformer(str(folder), device="cpu")  # as qagen's _loaded_model
    max_length = st.max_seq_length
    print(f"model {folder}\nmax_seq_length {max_length}; ST flattens inputs: {st._can_flatten_inputs()}")

    def today(t: list[str]) -> np.ndarray:  # as SentenceTransformerEmbedder.embed (batch_size 64 default)
        v = st.encode(t, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        return normalize_rows(v)

    import openvino as ov
    from transformers import AutoTokenizer

    print(f"openvino {ov.__version__} from {ov.__file__}; torch {torch.__version__}")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    # the tokenisation must be the one sentence-transformers does
    st_feat = st.preprocess(texts[:16])
    mine = tokenize(tokenizer, texts[:16], max_length)
    assert np.array_equal(st_feat["input_ids"].numpy(), mine["input_ids"]), "tokenisation differs from ST"

    model, conv_s = convert(folder, max_length)
    print(f"converted in {conv_s:.1f}s; inputs {[(i.get_any_name(), i.get_partial_shape()) for i in model.inputs]}")

    core = ov.Core()
    base_cfg = {"INFERENCE_NUM_THREADS": args.threads}

    def compile_(m, hint: str, precision: str | None) -> object:  # type: ignore[no-untyped-def]
        cfg = dict(base_cfg, PERFORMANCE_HINT=hint)
        if precision:
            cfg["INFERENCE_PRECISION_HINT"] = precision
        c = core.compile_model(m, "CPU", cfg)
        print(
            f"  compiled {hint:10s} precision={c.get_property('INFERENCE_PRECISION_HINT')} "
            f"streams={c.get_property('NUM_STREAMS')} threads={c.get_property('INFERENCE_NUM_THREADS')} "
            f"requests={c.get_property('OPTIMAL_NUMBER_OF_INFER_REQUESTS')} "
            f"dyn_quant_group={c.get_property('DYNAMIC_QUANTIZATION_GROUP_SIZE')}"
        )
        return c

    variants: dict[str, Encoder] = {"today: sentence-transformers torch f32, bs64": today}
    # reference only: the same torch model at batch 16 (less padding), to separate batch size from runtime
    variants["(ref) sentence-transformers torch f32, bs16"] = lambda t: st.encode(
        t, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    f32_lat = compile_(model, "LATENCY", "f32")
    for bs in (64, 16):
        variants[f"OV f32 LATENCY bs{bs}"] = ov_sync(f32_lat, tokenizer, bs, max_length)
    f32_tp = compile_(model, "THROUGHPUT", "f32")
    for bs in (16, 8):
        variants[f"OV f32 THROUGHPUT async bs{bs}"] = ov_async(f32_tp, tokenizer, bs, max_length)
    bf16_lat = compile_(model, "LATENCY", None)  # CPU default precision: bf16 on this AVX512_BF16 EPYC
    variants["OV default precision (bf16) LATENCY bs64"] = ov_sync(bf16_lat, tokenizer, 64, max_length)
    bf16_tp = compile_(model, "THROUGHPUT", None)
    for bs in (16, 8):
        variants[f"OV default precision (bf16) THROUGHPUT async bs{bs}"] = ov_async(bf16_tp, tokenizer, bs, max_length)

    try:
        import nncf
    except ImportError as exc:
        print(f"nncf not importable ({exc}): int8 variants skipped")
        nncf = None
    if nncf is not None:
        print(f"nncf {nncf.__version__}")
        t0 = time.perf_counter()
        w8 = nncf.compress_weights(model.clone())  # INT8_ASYM weights, activations stay float
        ov.save_model(w8, str(WORK / "minilm_w8.xml"))
        print(f"int8 weight compression in {time.perf_counter() - t0:.1f}s")
        w8_lat = compile_(w8, "LATENCY", "f32")
        variants["OV int8 weights (nncf compress_weights) f32 LATENCY bs64"] = ov_sync(w8_lat, tokenizer, 64, max_length)
        w8_tp = compile_(w8, "THROUGHPUT", "f32")
        variants["OV int8 weights f32 THROUGHPUT async bs16"] = ov_async(w8_tp, tokenizer, 16, max_length)
        base_cfg["DYNAMIC_QUANTIZATION_GROUP_SIZE"] = 128
        w8_g128 = compile_(w8, "THROUGHPUT", "f32")
        del base_cfg["DYNAMIC_QUANTIZATION_GROUP_SIZE"]
        variants["OV int8 weights f32 dyn-quant group 128 THROUGHPUT async bs16"] = ov_async(w8_g128, tokenizer, 16, max_length)
        w8_bf = compile_(w8, "THROUGHPUT", None)
        variants["OV int8 weights + bf16 THROUGHPUT async bs16"] = ov_async(w8_bf, tokenizer, 16, max_length)

        # static int8 (weights + activations); calibrated on manual sections not in the test sample
        test = set(texts)
        calib = [t for t in sample_texts(10**9, 1) if t not in test][: args.calibration]
        t0 = time.perf_counter()
        q8 = nncf.quantize(
            model.clone(),
            nncf.Dataset(calib, lambda t: tokenize(tokenizer, [t], max_length)),
            model_type=nncf.ModelType.TRANSFORMER,
            subset_size=len(calib),
        )
        ov.save_model(q8, str(WORK / "minilm_q8.xml"))
        print(f"int8 static quantisation ({len(calib)} calibration texts) in {time.perf_counter() - t0:.1f}s")
        q8_lat = compile_(q8, "LATENCY", "f32")
        variants["OV int8 static (nncf quantize) f32 LATENCY bs64"] = ov_sync(q8_lat, tokenizer, 64, max_length)
        q8_tp = compile_(q8, "THROUGHPUT", "f32")
        variants["OV int8 static THROUGHPUT async bs16"] = ov_async(q8_tp, tokenizer, 16, max_length)

    if args.only:
        keep = [s.strip() for s in args.only.split(",")]
        variants = {k: v for i, (k, v) in enumerate(variants.items()) if i == 0 or any(s in k for s in keep)}

    for name, encode in variants.items():  # warm-up: first-call allocations and shape caches
        encode(texts[:64])
    times: dict[str, list[float]] = {k: [] for k in variants}
    vectors: dict[str, np.ndarray] = {}
    loads = [os.getloadavg()]
    names = list(variants)
    for r in range(args.rounds):
        shift = r * len(names) // args.rounds  # rotate the order each round: no variant always runs first
        for name in names[shift:] + names[:shift]:
            encode = variants[name]
            t0 = time.perf_counter()
            vectors[name] = encode(texts)
            times[name].append(time.perf_counter() - t0)
        loads.append(os.getloadavg())
        print(f"round {r + 1}: load average {loads[-1][0]:.2f} {loads[-1][1]:.2f} {loads[-1][2]:.2f}", flush=True)

    n = len(texts)
    base = vectors[next(iter(variants))]
    base_rate = n / statistics.median(times[next(iter(variants))])
    print(
        f"\n{n} sections of the shared manuals; {args.threads} threads; {args.rounds} interleaved rounds; "
        f"1-min load average per round {', '.join(f'{x[0]:.2f}' for x in loads)}\n"
    )
    print("| variant | sections/s (median) | per-round s | vs today | mean cosine with today | top-1 neighbour same | top-10 overlap |")
    print("|---|---|---|---|---|---|---|")
    for name in variants:
        rate = n / statistics.median(times[name])
        cosine, top1, top10 = quality(base, vectors[name])
        rounds = "/".join(f"{t:.1f}" for t in times[name])
        print(f"| {name} | {rate:.1f} | {rounds} | {rate / base_rate:.2f}x | {cosine:.5f} | {top1:.3f} | {top10:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
