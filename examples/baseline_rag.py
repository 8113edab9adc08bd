"""A small baseline RAG that answers a qagen dataset, then scores it: runs offline, no model needed.

The bot itself is ``qagen.score.baseline.BaselineRAG`` (also ``qagen ask OUT``); this script is the
same thing written out as a user would, with ``collect`` and ``score``.

For each cross-evaluation iteration the "vector store" is a TF-IDF index of that iteration's
pages only (``splits/{set}/fold_{i}/pages.jsonl``). A question retrieves the ``k`` most similar
pages; when even the best page is less similar than ``threshold`` the bot declines with the
dataset's refusal answer, else an extractive reader answers with the sentences of the top pages
that best match the question (or, with ``--llm``, an LLM answers from the top pages).

Words the corpus has never seen count as maximally rare in the question's vector, so a question
about a product that is not loaded scores low even if it shares common words with some page:
that is what lets a retriever notice out-of-fold (unanswerable) questions.

    qagen build examples/docs -o out
    python examples/baseline_rag.py out                # -> out/answers.jsonl, out/scores.json
    qagen score out --answers out/answers.jsonl        # the same scores, from the CLI
    python examples/baseline_rag.py out --llm openai:gpt-4o-mini@http://127.0.0.1:8000/v1

Rerunning resumes: answered questions already in the answers file are skipped (use a new
``--answers`` file after changing ``--threshold`` or ``--llm``; a file made for an earlier build
of the folder is refused, not mixed in).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qagen.score import collect, score
from qagen.score.baseline import REFUSAL, BaselineRAG
from qagen.score.results import format_summary

__all__ = ["BaselineRAG", "main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Answer a qagen dataset with a TF-IDF baseline RAG, then score it.")
    parser.add_argument("out", type=Path, help="qagen output folder")
    parser.add_argument("--answers", type=Path, help="answers file (default OUT/answers.jsonl)")
    parser.add_argument("--k", type=int, default=5, help="pages retrieved per question")
    parser.add_argument(
        "--threshold", type=float, default=0.10, help="decline below this best-page similarity (chosen on validation)"
    )
    parser.add_argument("--sentences", type=int, default=2, help="sentences in an extractive answer")
    parser.add_argument("--llm", help="answer with this LLM (openai:<model>[@<url>]) instead of extracting")
    parser.add_argument("--judge", help="MCQ judge for scoring (default: score.judge, the embedding baseline)")
    parser.add_argument("--config", type=Path, help="qagen TOML config ([llm] and [score] are used)")
    parser.add_argument("--no-score", action="store_true", help="only write the answers")
    args = parser.parse_args(argv)

    from qagen.config import load_config
    from qagen.io import read_json

    config = load_config(args.config)
    refusal = read_json(args.out / "crosseval.json").get("refusal_answer") or REFUSAL
    bot = BaselineRAG(args.k, args.threshold, args.sentences, llm=args.llm, llm_config=config.llm,
                      cache_path=args.out / ".cache" / "baseline_llm.sqlite", refusal=refusal)  # fmt: skip
    answers = args.answers or args.out / "answers.jsonl"
    result = collect(args.out, bot, answers)
    print(f"{answers}: {result.answered} new answers, {result.resumed} from an earlier run")
    if not args.no_score:
        print(format_summary(score(args.out, answers, judge=args.judge, config=config, progress=True)))
        print(f"wrote {args.out / 'scores.json'}")
        from qagen.commands.report import rerender_report

        report = rerender_report(args.out, config.report)  # the report shows the scores, as qagen score's does
        if report is not None:
            print(f"updated {report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
