"""DeepEval Synthesizer on PDFs against an OpenAI-compatible server (runs in the peers' venv).

``python peers_worker_deepeval.py --url URL --out result.json --contexts 2 --goldens 2 DOC.pdf ...``

``Synthesizer(model=OpenAIModel("gpt-4.1-mini", base_url=URL))`` (an OpenAI model name, so
DeepEval uses structured outputs and knows prices; every request goes to ``URL``), embedder
``OpenAIEmbeddingModel`` at ``URL``, ``generate_goldens_from_docs`` with
``max_contexts_per_document=CONTEXTS`` and ``max_goldens_per_context=GOLDENS`` (5 PDFs x 2 x 2
= 20 goldens). Run it in a fresh working directory: DeepEval keeps each document's chunks in
``.vector_db/`` there and would skip the embedding requests on a rerun. Writes the outcome
as JSON (see ``peers_worker_ragas.py``). Started by ``benchmarks/peers.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path


def run(url: str, paths: list[str], contexts: int, goldens: int, seed: int) -> dict:
    from deepeval.models import OpenAIEmbeddingModel, OpenAIModel
    from deepeval.synthesizer import Synthesizer
    from deepeval.synthesizer.config import ContextConstructionConfig

    random.seed(seed)
    model = OpenAIModel(model="gpt-4.1-mini", base_url=url, api_key="sk-peers")
    embedder = OpenAIEmbeddingModel(model="text-embedding-3-small", base_url=url, api_key="sk-peers")
    config = ContextConstructionConfig(embedder=embedder, critic_model=model, max_contexts_per_document=contexts)
    synthesizer = Synthesizer(model=model)
    t0 = time.perf_counter()
    result = synthesizer.generate_goldens_from_docs(
        document_paths=paths,
        max_goldens_per_context=goldens,
        context_construction_config=config,
    )
    wall = time.perf_counter() - t0
    per_doc = {Path(p).stem: 0 for p in paths}
    items = []
    for golden in result:
        source = Path(golden.source_file).stem if golden.source_file else None
        if source in per_doc:
            per_doc[source] += 1
        items.append({"question": golden.input, "answer": golden.expected_output, "sources": [source]})
    return {"ok": True, "samples": len(items), "per_doc": per_doc, "wall_s": wall, "items": items}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--contexts", type=int, default=2, help="max_contexts_per_document")
    parser.add_argument("--goldens", type=int, default=2, help="max_goldens_per_context")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--traceback", action="store_true", help="print the traceback of a failure")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()
    t0 = time.perf_counter()
    try:
        result = run(args.url, [str(Path(d).resolve()) for d in args.docs], args.contexts, args.goldens, args.seed)
    except BaseException as exc:  # the benchmark records an abort, whatever raised it
        if args.traceback:
            traceback.print_exc()
        last = traceback.extract_tb(exc.__traceback__)[-1]
        first_line = (str(exc).splitlines() or [""])[0][:160]
        result = {
            "ok": False,
            "error": f"{type(exc).__name__}: {first_line}",
            "where": f"{Path(last.filename).name}:{last.lineno}",
            "samples": 0,
            "wall_s": time.perf_counter() - t0,
        }
    Path(args.out).write_text(json.dumps(result, indent=1))
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
