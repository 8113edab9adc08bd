"""Minimal OpenVINO encoder for the bundled all-MiniLM-L6-v2, same output as qagen's sentence-transformers path.

    cd /work/main && HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/scratch_openvino/ov_min.py

OpenVINO lives in /tmp/ovpkgs (pip install --no-deps --target /tmp/ovpkgs openvino openvino-telemetry),
appended to sys.path after the venv. Offline: converts the weights on disk, no download.
"""

import sys

sys.path.append("/tmp/ovpkgs")

import numpy as np
import openvino as ov
import torch
from transformers import AutoModel, AutoTokenizer

MAX_LEN, BATCH, THREADS = 256, 16, 2  # max_seq_length from sentence_bert_config.json


def load(folder: str):
    tok = AutoTokenizer.from_pretrained(folder)
    hf = AutoModel.from_pretrained(folder).eval()

    class Embed(torch.nn.Module):  # Transformer -> mean pooling -> L2 normalise (modules.json)
        def __init__(self):
            super().__init__()
            self.hf = hf

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.hf(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            return torch.nn.functional.normalize((h * m).sum(1) / torch.clamp(m.sum(1), min=1e-9), p=2, dim=1)

    names = ("input_ids", "attention_mask", "token_type_ids")
    ex = tok(["hello world", "a longer example"], padding=True, return_tensors="pt")
    with torch.no_grad():
        model = ov.convert_model(
            Embed(), example_input={k: ex[k] for k in names}, input=[(k, [-1, -1], ov.Type.i64) for k in names]
        )
    # no INFERENCE_PRECISION_HINT: the CPU default, bf16 on CPUs with AVX512_BF16/AMX (f32 elsewhere)
    compiled = ov.Core().compile_model(model, "CPU", {"PERFORMANCE_HINT": "THROUGHPUT", "INFERENCE_NUM_THREADS": THREADS})
    queue = ov.AsyncInferQueue(compiled, compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))

    def encode(texts: list[str]) -> np.ndarray:
        order = np.argsort([-len(t) for t in texts])  # length-sorted batches, as SentenceTransformer.encode
        out = np.empty((len(texts), 384), dtype=np.float32)
        queue.set_callback(lambda req, rows: out.__setitem__(rows, req.get_output_tensor(0).data))
        for s in range(0, len(texts), BATCH):
            rows = order[s : s + BATCH]
            enc = tok([texts[i] for i in rows], padding=True, truncation=True, max_length=MAX_LEN, return_tensors="np")
            queue.start_async({k: enc[k].astype(np.int64) for k in names}, rows)
        queue.wait_all()
        return out

    return encode


if __name__ == "__main__":
    sys.path[:0] = ["/work/main"]
    from qagen.embed.sentence import bundled_minilm_path

    encode = load(str(bundled_minilm_path()))
    v = encode(["The quick brown fox.", "A fast auburn fox.", "Tax law of 1997."])
    print(v.shape, np.round(v @ v.T, 3))
