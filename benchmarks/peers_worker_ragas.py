"""Ragas 0.4 TestsetGenerator on PDFs against an OpenAI-compatible server (runs in the peers' venv).

``python peers_worker_ragas.py --url URL --out result.json --size 20 --seed 0 DOC.pdf ...``

One LangChain document per PDF (pypdf text of all pages), ``ChatOpenAI`` and
``OpenAIEmbeddings`` pointed at ``URL``, Ragas's default transforms and query distribution,
``generate_with_langchain_docs(docs, testset_size=SIZE)``. Writes the outcome as JSON:
samples, samples per source document, wall time of the generation call, and on failure the
exception's type and first line (never a provider body). Started by ``benchmarks/peers.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
import traceback
from pathlib import Path


def load_docs(paths: list[str]) -> list:
    """One LangChain Document per PDF: the pypdf text of its pages, joined."""
    from langchain_community.document_loaders import PyPDFLoader

    docs = []
    for path in paths:
        docs.extend(PyPDFLoader(path, mode="single").load())
    return docs


def source_of(context: str, texts: dict[str, str]) -> list[str]:
    """The documents whose text holds the start of ``context`` (a chunk of one of them)."""
    probe = " ".join(re.sub(r"^<\d+-hop>", "", context).split())[:120]
    return [name for name, text in texts.items() if probe and probe in text]


async def _in_loop(generator, docs: list, size: int):
    return generator.generate_with_langchain_docs(docs, testset_size=size)


def run(url: str, paths: list[str], size: int, seed: int, one_loop: bool = True) -> dict:
    import numpy as np
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.testset import TestsetGenerator

    random.seed(seed)
    np.random.seed(seed)
    llm = LangchainLLMWrapper(ChatOpenAI(model="fake-model", base_url=url, api_key="sk-peers"))
    embeddings = LangchainEmbeddingsWrapper(
        OpenAIEmbeddings(
            model="text-embedding-3-small", base_url=url, api_key="sk-peers", check_embedding_ctx_length=False
        )
    )
    t0 = time.perf_counter()
    docs = load_docs(paths)
    generator = TestsetGenerator(llm=llm, embedding_model=embeddings)
    if one_loop:  # as in a notebook: Ragas nests every phase in the running loop (nest_asyncio)
        testset = asyncio.run(_in_loop(generator, docs, size))
    else:  # each phase in a new loop: pooled connections of a closed loop break (Ragas issue #1381)
        testset = generator.generate_with_langchain_docs(docs, testset_size=size)
    wall = time.perf_counter() - t0
    texts = {Path(d.metadata["source"]).stem: " ".join(d.page_content.split()) for d in docs}
    per_doc = dict.fromkeys(texts, 0)
    samples = []
    for sample in testset.samples:
        s = sample.eval_sample
        sources = sorted({n for c in (s.reference_contexts or []) for n in source_of(c, texts)})
        for name in sources:
            per_doc[name] += 1
        heads = [c[:80] for c in s.reference_contexts or []]
        samples.append({"question": s.user_input, "answer": s.reference, "sources": sources, "contexts": heads})
    return {"ok": True, "samples": len(samples), "per_doc": per_doc, "wall_s": wall, "items": samples}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--loop-per-phase", action="store_true", help="plain script: no running loop, Ragas starts one per phase"
    )
    parser.add_argument("--traceback", action="store_true", help="print the traceback of a failure")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()
    t0 = time.perf_counter()
    try:
        result = run(args.url, args.docs, args.size, args.seed, one_loop=not args.loop_per_phase)
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
