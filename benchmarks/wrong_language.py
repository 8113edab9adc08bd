"""A model that writes in the wrong language, on a real multilingual corpus: what the filters let through.

    python benchmarks/wrong_language.py DOCS --from OUT [--work DIR] [--json PATH]

OUT is an offline build of DOCS (``qagen build DOCS -o OUT``); its parse, pages, embed, topics
and folds are reused (copied into the work folder), and generate and filter run again against
the fake OpenAI-compatible server in its own process with the *grounded* responder: its
questions are English ("What should I know about <heading> at <document>?") and its answers are
sentences copied from the section, in the document's language, as a model that was told to
write Dutch and wrote English questions would reply. Reported: candidates per document
language, accepted items, rejections by reason, and, independently of qagen's own filter, the
language py3langid gives each accepted question (a wrong-language item accepted would show here).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.support

from measure import machine  # noqa: E402

from tests.support.llm_server import ServerProcess  # noqa: E402

REUSED = ("documents.jsonl", "sections.jsonl", "pages.jsonl", "embeddings.npy", "embedding_ids.json")
REUSED += ("topics.json", "reduced.npy", "folds.json", "assignments.jsonl", "manifest.json")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(docs: Path, source: Path, work: Path) -> dict:
    import py3langid

    out = work / "out"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in REUSED:
        shutil.copy2(source / name, out / name)
    shutil.copytree(source / ".cache", out / ".cache", ignore=shutil.ignore_patterns("llm.sqlite*"))
    with ServerProcess(responder="grounded") as server:
        cmd = [sys.executable, "-m", "qagen.cli", "build", str(docs), "-o", str(out), "-q", "--until", "filter"]
        cmd += ["--set", f'llm.backend="openai:fake-model@{server.url}"']
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        served = server.stats()
    candidates = _read(out / "candidates.jsonl")
    items = _read(out / "items.jsonl")
    rejected = [r for r in _read(out / "rejected.jsonl") if r.get("filter") != "generation"]
    accepted_langs = Counter(
        f"{it['language']} -> {py3langid.classify(it['question'])[0]}" for it in items if it.get("language")
    )
    return {
        "machine": machine(),
        "command": " ".join(cmd[2:]),
        "exit_code": run.returncode,
        "stderr_tail": run.stderr.strip().splitlines()[-3:],
        "requests_served": served.get("chat"),
        "candidates": len(candidates),
        "candidates_by_language": dict(Counter(c.get("language") for c in candidates).most_common()),
        "accepted": len(items),
        "accepted_by_language": dict(Counter(it.get("language") for it in items).most_common()),
        "accepted_question_language": dict(accepted_langs.most_common()),
        "rejected_by_reason": dict(Counter(r["reason"] for r in rejected).most_common()),
        "wrong_language_by_language": dict(
            Counter(r.get("language") for r in rejected if r["reason"] == "wrong_language").most_common()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", type=Path)
    parser.add_argument("--from", dest="source", type=Path, required=True, help="an offline build of DOCS")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".work" / "wrong_language")
    parser.add_argument("--json", type=Path, help="write the result here too")
    args = parser.parse_args(argv)
    result = measure(args.docs.resolve(), args.source.resolve(), args.work.resolve())
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
