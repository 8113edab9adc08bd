"""Quality-first exploration of more OpenVINO/NNCF settings (speeds here are single runs, indicative only).

    cd /work/main && HF_HUB_OFFLINE=1 unshare -n .venv/bin/python benchmarks/scratch_openvino/ov_explore.py

Reads the IR ov_bench.py saved (/tmp/ov_minilm/minilm_f32.xml).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ov_bench  # noqa: E402  (sets sys.path, offline env)
from ov_bench import WORK, ov_async, ov_sync, quality, sample_texts, tokenize  # noqa: E402


def main() -> int:
    warnings.filterwarnings("ignore")
    import nncf
    import openvino as ov
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoTokenizer

    from qagen.embed.sentence import bundled_minilm_path

    torch.set_num_threads(2)
    folder = bundled_minilm_path()
    texts = sample_texts(400, 0)
    st = SentenceTransformer(str(folder), device="cpu")
    today = st.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    tok = AutoTokenizer.from_pretrained(str(folder))
    core = ov.Core()
    f32 = core.read_model(str(WORK / "minilm_f32.xml"))
    test = set(texts)
    calib_texts = [t for t in sample_texts(10**9, 1) if t not in test][:300]
    calib = nncf.Dataset(calib_texts, lambda t: tokenize(tok, [t], 256))

    def run(name: str, model, cfg: dict, batch: int = 16, tp: bool = True) -> None:  # type: ignore[no-untyped-def]
        c = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 2, "PERFORMANCE_HINT": "THROUGHPUT" if tp else "LATENCY", **cfg})
        enc = (ov_async if tp else ov_sync)(c, tok, batch, 256)
        enc(texts[:32])
        t0 = time.perf_counter()
        v = enc(texts)
        s = time.perf_counter() - t0
        cos, t1, t10 = quality(today, v)
        print(f"| {name} | {len(texts) / s:.1f} | {cos:.5f} | {t1:.3f} | {t10:.3f} |", flush=True)

    print("| variant (THROUGHPUT async bs16 unless said) | sections/s (1 run) | mean cosine | top-1 | top-10 |\n|---|---|---|---|---|")
    run("f32", f32, {"INFERENCE_PRECISION_HINT": "f32"})
    run("bf16", f32, {})
    run("bf16 bs8", f32, {}, batch=8)
    w8 = nncf.compress_weights(f32.clone())
    run("int8 weights, f32, dyn-quant group 32 (default)", w8, {"INFERENCE_PRECISION_HINT": "f32"})
    run("int8 weights, f32, dyn-quant off", w8, {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0})
    run("int8 weights, f32, dyn-quant group 128", w8, {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": 128})
    run("int8 weights + bf16", w8, {})
    run("int8 weights + bf16, dyn-quant off", w8, {"DYNAMIC_QUANTIZATION_GROUP_SIZE": 0})
    w8s = nncf.compress_weights(f32.clone(), mode=nncf.CompressWeightsMode.INT8_SYM)
    run("int8 sym weights, f32", w8s, {"INFERENCE_PRECISION_HINT": "f32"})

    from nncf.quantization.advanced_parameters import AdvancedQuantizationParameters, AdvancedSmoothQuantParameters

    def q8(**kw):  # type: ignore[no-untyped-def]
        return nncf.quantize(f32.clone(), calib, model_type=nncf.ModelType.TRANSFORMER, subset_size=300, **kw)

    run("static int8 default (SmoothQuant on)", q8(), {"INFERENCE_PRECISION_HINT": "f32"})
    no_sq = AdvancedQuantizationParameters(smooth_quant_alphas=AdvancedSmoothQuantParameters(matmul=-1))
    run("static int8, SmoothQuant off", q8(advanced_parameters=no_sq), {"INFERENCE_PRECISION_HINT": "f32"})
    run("static int8, preset MIXED", q8(preset=nncf.QuantizationPreset.MIXED), {"INFERENCE_PRECISION_HINT": "f32"})
    ffn_out = nncf.IgnoredScope(patterns=[r".*\.output\.dense/.*"], validate=False)
    run("static int8, FFN+attn output dense kept float", q8(ignored_scope=ffn_out), {"INFERENCE_PRECISION_HINT": "f32"})
    first_last = nncf.IgnoredScope(patterns=[r".*layer\.(0|5)\..*"], validate=False)
    run("static int8, layers 0 and 5 kept float", q8(ignored_scope=first_last), {"INFERENCE_PRECISION_HINT": "f32"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
