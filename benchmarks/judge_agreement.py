"""How far the rubric grader agrees with hand labels: ``benchmarks/data/grades_hand.jsonl``.

25 answers to 9 questions of the bundled examples, written to span the rubric (a faithful
paraphrase, a partial answer, a wrong or off-topic one), each labelled by hand on correctness,
completeness and relevance (1-5, the rubric of ``prompts/judge_grade.md``). The grader
(any LLM spec; default ``local``, the bundled SmolLM2-135M) grades the same answers through
qagen's LLM layer; per scale: exact agreement, agreement within one point, Spearman's rho, and
Cohen's kappa on "good" (4 or 5) against not.

Two more hand sets, for the judges added later: ``context_hand.jsonl`` (14 cases: four of those
questions shown with passages that hold what they need, passages of the same document or subject
that do not, and passages about something else, labelled 5 / 3 / 1 on context relevance) and
``premise_hand.jsonl`` (16 replies to six false-premise questions of the examples, labelled
corrected or not by the rule of ``prompts/judge_premise.md``), with the offline rule
(the source's value in the reply) beside the premise judge. And for the judges that came first:
``mcq_hand.jsonl`` (12 free answers to five cloze MCQs of the examples, worded unlike any option,
with the option a reader finds closest), beside the MiniLM embedding judge, and
``refusal_hand.jsonl`` (16 replies, declining or not, some hedged, some in other languages),
beside the refusal phrases.

Run: ``python benchmarks/judge_agreement.py [--grader SPEC] [--write]`` (``--write`` saves
``benchmarks/results/judge_agreement.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "benchmarks" / "data" / "grades_hand.jsonl"
CONTEXT_DATA = ROOT / "benchmarks" / "data" / "context_hand.jsonl"
PREMISE_DATA = ROOT / "benchmarks" / "data" / "premise_hand.jsonl"
MCQ_DATA = ROOT / "benchmarks" / "data" / "mcq_hand.jsonl"
REFUSAL_DATA = ROOT / "benchmarks" / "data" / "refusal_hand.jsonl"
RESULT = ROOT / "benchmarks" / "results" / "judge_agreement.md"
SCALES = ("correctness", "completeness", "relevance")


def agreement(human: list[int], model: list[int | None]) -> dict[str, float | int | None]:
    """Agreement of the grader with the hand labels on one scale (cases the grader failed are left out)."""
    from scipy.stats import spearmanr
    from sklearn.metrics import cohen_kappa_score

    pairs = [(h, m) for h, m in zip(human, model, strict=True) if m is not None]
    if not pairs:
        return {"n": 0, "exact": None, "within_one": None, "spearman": None, "kappa_good": None}
    h, m = [p[0] for p in pairs], [p[1] for p in pairs]
    rho = spearmanr(h, m).statistic if len(set(m)) > 1 else None
    good_h, good_m = [x >= 4 for x in h], [x >= 4 for x in m]
    kappa = cohen_kappa_score(good_h, good_m) if len(set(good_m)) > 1 or len(set(good_h)) > 1 else None
    return {
        "n": len(pairs),
        "exact": round(sum(a == b for a, b in pairs) / len(pairs), 3),
        "within_one": round(sum(abs(a - b) <= 1 for a, b in pairs) / len(pairs), 3),
        "spearman": None if rho is None else round(float(rho), 3),
        "kappa_good": None if kappa is None else round(float(kappa), 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", default="local", help="an LLM spec (default: local)")
    parser.add_argument("--write", action="store_true", help=f"write {RESULT.relative_to(ROOT)}")
    args = parser.parse_args(argv)

    from qagen.config import Config
    from qagen.score.judge import GradeCase, LLMJudge

    cases = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    config = Config()
    judge = LLMJudge(args.grader, config.llm, cache_path=None, progress=True, seed=0)
    start = time.perf_counter()
    verdicts = judge.grade([GradeCase(c["question"], c["reference"], c["answer"]) for c in cases])
    seconds = time.perf_counter() - start
    rows = {s: agreement([c[s] for c in cases], [getattr(v, s) if v else None for v in verdicts]) for s in SCALES}
    failed = sum(v is None for v in verdicts)
    stats = judge.stats()
    lines = [
        f"# Rubric grader against hand labels ({len(cases)} answers, `{args.grader}`)",
        "",
        f"{failed} of {len(cases)} requests failed for good (left out); {seconds:.0f} s; "
        f"{stats.get('prompt_tokens', 0):,} prompt + {stats.get('completion_tokens', 0):,} completion tokens.",
        "",
        "| scale | n | exact | within one | Spearman | kappa on good (4-5) |",
        "|---|---|---|---|---|---|",
    ]
    for scale, r in rows.items():
        lines.append(f"| {scale} | {r['n']} | {r['exact']} | {r['within_one']} | {r['spearman']} | {r['kappa_good']} |")
    # the offline baseline beside it: ROUGE-L F of answer and reference mapped onto 1-5
    from qagen.score.metrics import rouge_f

    rouge = [1 + round(4 * r["rougeL"]) for r in rouge_f([c["answer"] for c in cases], [c["reference"] for c in cases])]
    base = agreement([c["correctness"] for c in cases], rouge)
    lines.append(
        f"| correctness, ROUGE-L baseline (1 + 4 x F) | {base['n']} | {base['exact']} | {base['within_one']} | "
        f"{base['spearman']} | {base['kappa_good']} |"
    )
    lines += _context_relevance(judge) + _premises(judge) + _mcq_and_refusals(judge)
    lines += [
        "",
        "The hand labels: `benchmarks/data/grades_hand.jsonl` (correctness, completeness, relevance per answer),",
        "`context_hand.jsonl` (context relevance), `premise_hand.jsonl` (false premise corrected or not),",
        "`mcq_hand.jsonl` (closest option), `refusal_hand.jsonl` (declined or not).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        RESULT.write_text(text, encoding="utf-8")


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _context_relevance(judge) -> list[str]:
    """The grader's context relevance against the hand labels, beside a TF-IDF baseline (cosine of
    question and passages mapped onto 1-5)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from qagen.score.judge import GradeCase

    cases = _load(CONTEXT_DATA)
    verdicts = judge.grade([GradeCase(c["question"], c["reference"], c["answer"], tuple(c["contexts"])) for c in cases])
    row = agreement([c["context_relevance"] for c in cases], [v.context_relevance if v else None for v in verdicts])
    texts = [c["question"] for c in cases] + [" ".join(c["contexts"]) for c in cases]
    matrix = TfidfVectorizer(sublinear_tf=True).fit_transform(texts)
    n = len(cases)
    cosine = [float((matrix[i] @ matrix[n + i].T).toarray()[0, 0]) for i in range(n)]
    base = agreement([c["context_relevance"] for c in cases], [1 + round(4 * min(1.0, 2 * x)) for x in cosine])
    return [
        "",
        f"Context relevance ({n} cases, `context_hand.jsonl`; {sum(v is None for v in verdicts)} failed):",
        "",
        "| scale | n | exact | within one | Spearman | kappa on good (4-5) |",
        "|---|---|---|---|---|---|",
        f"| context relevance | {row['n']} | {row['exact']} | {row['within_one']} | {row['spearman']} | "
        f"{row['kappa_good']} |",
        f"| TF-IDF baseline (1 + 4 x min(1, 2 x cosine of question and passages)) | {base['n']} | {base['exact']} | "
        f"{base['within_one']} | {base['spearman']} | {base['kappa_good']} |",
    ]


def _premises(judge) -> list[str]:
    """The premise judge against the hand labels, beside the offline rule (the source's value in the reply)."""
    from sklearn.metrics import cohen_kappa_score

    from qagen.score.judge import PremiseCase
    from qagen.score.metrics import premise_corrected

    cases = _load(PREMISE_DATA)
    verdicts = judge.premise([PremiseCase(c["question"], c["claim"], c["reference"], c["answer"]) for c in cases])
    human = [c["corrected"] for c in cases]
    lines = ["", f"False premise corrected ({len(cases)} replies, `premise_hand.jsonl`):", ""]
    lines += ["| who | n | accuracy | kappa |", "|---|---|---|---|"]
    pairs = [(h, v) for h, v in zip(human, verdicts, strict=True) if v is not None]
    if pairs:
        acc = sum(h == v for h, v in pairs) / len(pairs)
        kappa = (
            cohen_kappa_score([h for h, _ in pairs], [v for _, v in pairs]) if len({v for _, v in pairs}) > 1 else None
        )
        lines.append(f"| premise judge | {len(pairs)} | {acc:.3f} | {None if kappa is None else round(kappa, 3)} |")
    rule = [premise_corrected(c["answer"], _kind(c["reference"]), _value(c["reference"]), "NL") for c in cases]
    acc = sum(h == r for h, r in zip(human, rule, strict=True)) / len(cases)
    kappa = cohen_kappa_score(human, rule)
    lines.append(f"| offline rule (the source's value in the reply) | {len(cases)} | {acc:.3f} | {kappa:.3f} |")
    return lines


def _mcq_and_refusals(judge) -> list[str]:
    """The MCQ judge against a reader's picks (MiniLM beside it) and the refusal judge against hand
    labels (the refusal phrases beside it)."""
    from qagen.config import Config
    from qagen.embed import get_embedder
    from qagen.score.judge import EmbeddingJudge, McqCase
    from qagen.score.refusal import RefusalDetector

    mcqs = _load(MCQ_DATA)
    cases = [McqCase(c["question"], c["answer"], tuple(c["options"])) for c in mcqs]
    lines = ["", f"MCQ judge ({len(mcqs)} free answers, `mcq_hand.jsonl`) and refusal judge:", ""]
    lines += ["| who | n | accuracy | failed |", "|---|---|---|---|"]
    config = Config()
    for name, picks in (
        ("MCQ: LLM judge", judge.choose(cases)),
        ("MCQ: MiniLM embedding judge", EmbeddingJudge(get_embedder("minilm", config.embed)).choose(cases)),
    ):
        done = [(c["closest"], p) for c, p in zip(mcqs, picks, strict=True) if p is not None]
        acc = sum(a == b for a, b in done) / len(done) if done else 0.0
        lines.append(f"| {name} | {len(done)} | {acc:.3f} | {len(mcqs) - len(done)} |")
    replies = _load(REFUSAL_DATA)
    verdicts = judge.declined([(c["question"], c["answer"]) for c in replies])
    done = [(c["declined"], v) for c, v in zip(replies, verdicts, strict=True) if v is not None]
    acc = sum(a == b for a, b in done) / len(done) if done else 0.0
    lines.append(f"| refusal: LLM judge | {len(done)} | {acc:.3f} | {len(replies) - len(done)} |")
    detector = RefusalDetector(config.score.refusal_phrases, config.score.refusal_window_chars)
    phrases = [detector.find(c["answer"]) is not None for c in replies]
    acc = sum(c["declined"] == p for c, p in zip(replies, phrases, strict=True)) / len(replies)
    lines.append(f"| refusal: phrases (score.refusal_phrases) | {len(replies)} | {acc:.3f} | 0 |")
    return lines


def _value(reference: str) -> str:
    """The source's value a reference states: "No: the X is VALUE, not ..." or "No: VALUE, not ..."."""
    head = reference.split(", not ")[0]
    return head.split(" is ")[-1] if " is " in head else head.removeprefix("No: ")


def _kind(reference: str) -> str | None:
    value = _value(reference)
    if value.startswith(("+", "(0", "0")):
        return "phone"
    return "url" if "." in value and " " not in value else None


if __name__ == "__main__":
    main()
