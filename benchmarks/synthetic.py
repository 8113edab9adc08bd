"""A synthetic corpus of N sections made from real ones, for the scale benchmarks.

    python benchmarks/synthetic.py --sections 10000 [--work benchmarks/.work] [--seed 0]

Method (so the text statistics are those of real documents):

1. Source: the sections of ``../shared/corpora/manuals/`` (real PDF manuals), parsed once with
   qagen's own parser (``qagen.ingest.parse_documents``, default ``[parse]`` config) and kept
   in ``WORK/source-sections.json``. Sections without a heading or with fewer than 20
   characters of body are left out of the pool.
2. Synthetic document ``k`` is drawn with its own random generator, seeded by ``(seed, k)``:
   a source manual chosen with probability proportional to its number of sections, then a run
   of 20-40 consecutive sections of it from a random offset (wrapping to the manual's start
   when it is shorter). A document therefore reads like a chapter of one real manual, and
   topics are as coherent across documents as they are in the source.
3. Every section keeps its heading and is lightly varied, so repeated sections are distinct
   texts (embedding cache, topics and dedup see no exact copies) while word and sentence
   statistics stay real: one of (a) drop a random sentence (3+ sentences), (b) swap two
   adjacent sentences of one line, (c) append one sentence of another section of the same
   manual; then every run of digits is redrawn with the same number of digits.
4. Written as Markdown, ``## heading`` then the body lines (Markdown block markers at a line
   start are removed so the body cannot open a heading, fence or HTML block), with a form
   feed between sections whose source pages differ, so the parse stage counts pages.
5. Documents are written until there are N sections; the last one is cut short. Document
   ``k`` depends only on ``(seed, k)``, so a smaller corpus is a prefix of a larger one (its
   embeddings are cache hits for the larger one).

The corpus is cached in ``WORK/synthetic/n<N>-s<seed>-v<VERSION>/`` (a ``corpus.json`` marker
holds its statistics); delete the folder to regenerate it.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANUALS = ROOT.parent / "shared" / "corpora" / "manuals"
WORK = ROOT / "benchmarks" / ".work"
VERSION = 1
MIN_BODY_CHARS = 20
RUN_MIN, RUN_MAX = 20, 40

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_BLOCK_MARKER = re.compile(r"^(?:#{1,6}(?=\s|$)|`{3,}|~{3,}|<|>)+\s*")
_RULE = re.compile(r"^\s*(?:[=\-_*]\s*){2,}$")
_DIGITS = re.compile(r"\d+")


class SourceError(RuntimeError):
    """The real corpus the synthetic one is drawn from is missing or yields no sections."""


def source_manuals(work: Path = WORK, corpus: Path = MANUALS) -> list[list[dict]]:
    """Sections of each real manual (heading, text, page_start, page_end), manuals in path order.

    Kept in ``WORK/source-sections.json`` once extracted, so later runs do not depend on the
    parser's version. The first time, a parse cache entry for every file (``WORK/parse-cache``,
    whatever parser version wrote it) is used when there is one; else the corpus is parsed.

    Raises:
        SourceError: when ``corpus`` is absent or no usable section comes out of it.
    """
    pool = work / "source-sections.json"
    if pool.is_file():
        return json.loads(pool.read_text(encoding="utf-8"))["manuals"]
    if not corpus.is_dir():
        raise SourceError(f"the source corpus {corpus} is absent; the synthetic corpus is drawn from its sections")
    from qagen.config import ParseConfig
    from qagen.ingest import discover

    config = ParseConfig()
    paths = discover(corpus, config.formats)
    by_doc = _cached_parses(paths, corpus, work / "parse-cache")
    if by_doc is None:
        from qagen.ingest import parse_documents

        result = parse_documents(paths, corpus, config, cache_dir=work / "parse-cache")
        by_doc = {}
        for sec in result.sections:
            by_doc.setdefault(sec.doc_path, []).append(
                {"heading": sec.heading, "text": sec.text, "page_start": sec.page_start, "page_end": sec.page_end}
            )
    keep = lambda sec: sec["heading"].strip() and len(sec["text"].strip()) >= MIN_BODY_CHARS  # noqa: E731
    manuals = [[_fields(sec) for sec in by_doc[k] if keep(sec)] for k in sorted(by_doc)]
    manuals = [m for m in manuals if m]
    if not manuals:
        raise SourceError(f"no section with a heading and a body came out of {corpus}")
    work.mkdir(parents=True, exist_ok=True)
    pool.write_text(json.dumps({"corpus": str(corpus), "manuals": manuals}), encoding="utf-8")
    return manuals


def _fields(sec: dict) -> dict:
    return {k: sec[k] for k in ("heading", "text", "page_start", "page_end")}


def _cached_parses(paths: list[Path], root: Path, cache: Path) -> dict[str, list[dict]] | None:
    """Sections of every file from the parse cache (any parser version), or None if one is missing."""
    from qagen.io import sha256_file

    out = {}
    for path in paths:
        sha = sha256_file(path)
        found = sorted((cache / sha[:2]).glob(f"{sha}-*.json"), key=lambda f: f.stat().st_mtime)
        if not found:
            return None
        out[path.relative_to(root).as_posix()] = json.loads(found[-1].read_text(encoding="utf-8"))["sections"]
    return out


def _sentences(line: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(line) if s]


def vary(text: str, manual: list[dict], rng: random.Random) -> str:
    """``text`` lightly varied (see the module docstring, step 3)."""
    lines = [_sentences(ln) for ln in text.split("\n") if ln.strip()]
    n_sentences = sum(len(ln) for ln in lines)
    ops = ["append"]
    if n_sentences >= 3:
        ops.append("drop")
    if any(len(ln) >= 2 for ln in lines):
        ops.append("swap")
    op = rng.choice(ops)
    if op == "drop":
        candidates = [(i, j) for i, ln in enumerate(lines) for j in range(len(ln))]
        i, j = rng.choice(candidates)
        del lines[i][j]
    elif op == "swap":
        i = rng.choice([i for i, ln in enumerate(lines) if len(ln) >= 2])
        j = rng.randrange(len(lines[i]) - 1)
        lines[i][j], lines[i][j + 1] = lines[i][j + 1], lines[i][j]
    else:
        other = _sentences(rng.choice(manual)["text"].replace("\n", " "))
        if other:
            lines.append([rng.choice(other)])
    out = "\n".join(" ".join(ln) for ln in lines if ln)
    return _DIGITS.sub(lambda m: _redraw(m.group(), rng), out)


def _redraw(digits: str, rng: random.Random) -> str:
    first = str(rng.randint(1, 9)) if len(digits) > 1 else str(rng.randint(0, 9))
    return first + "".join(str(rng.randint(0, 9)) for _ in digits[1:])


def _markdown_body(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line or _RULE.match(line):
            continue
        line = _BLOCK_MARKER.sub("", line)
        if line:
            out.append(line)
    return out


def document(k: int, manuals: list[list[dict]], seed: int) -> list[dict]:
    """The sections of synthetic document ``k`` (heading, text, page)."""
    rng = random.Random(f"qagen-synthetic-{seed}-{k}")
    manual = rng.choices(manuals, weights=[len(m) for m in manuals])[0]
    length = rng.randint(RUN_MIN, RUN_MAX)
    start = rng.randrange(len(manual))
    out = []
    for i in range(length):
        src = manual[(start + i) % len(manual)]
        body = _markdown_body(vary(src["text"], manual, rng))
        if body:
            out.append({"heading": " ".join(src["heading"].split()), "lines": body, "page": src["page_start"]})
    return out


def render(sections: list[dict]) -> str:
    """Markdown for one document: a form feed wherever the source page changes."""
    parts: list[str] = []
    page = None
    for s in sections:
        if page is not None and s["page"] != page:
            parts.append("\f")
        page = s["page"]
        heading = _BLOCK_MARKER.sub("", s["heading"]) or "Section"
        parts.append(f"## {heading}\n\n" + "\n".join(s["lines"]))
    return "\n\n".join(parts) + "\n"


def make_corpus(
    n_sections: int,
    work: Path = WORK,
    *,
    seed: int = 0,
    corpus: Path = MANUALS,
    log: Callable[[str], None] = print,
) -> tuple[Path, dict]:
    """The folder of a synthetic corpus of ``n_sections`` sections, and its statistics.

    Reuses the cached corpus when its marker is present; otherwise parses the source (cached)
    and writes the Markdown files.

    Raises:
        ValueError: when ``n_sections`` < 1.
        SourceError: when the source corpus is absent or empty.
    """
    if n_sections < 1:
        raise ValueError(f"n_sections must be >= 1; got {n_sections}")
    folder = work / "synthetic" / f"n{n_sections}-s{seed}-v{VERSION}"
    marker = folder / "corpus.json"
    if marker.is_file():
        return folder / "docs", json.loads(marker.read_text(encoding="utf-8"))
    log(f"synthetic: parsing the source corpus {corpus} (cached under {work / 'parse-cache'})")
    manuals = source_manuals(work, corpus)
    if folder.exists():
        shutil.rmtree(folder)
    docs = folder / "docs"
    docs.mkdir(parents=True)
    written, k, lengths, texts = 0, 0, [], set()
    while written < n_sections:
        sections = document(k, manuals, seed)[: n_sections - written]
        (docs / f"doc{k:05d}.md").write_text(render(sections), encoding="utf-8")
        for s in sections:
            body = "\n".join(s["lines"])
            lengths.append(len(body))
            texts.add((s["heading"], body))
        written += len(sections)
        k += 1
    source_lengths = [len(s["text"]) for m in manuals for s in m]
    stats = {
        "sections_written": written,
        "documents": k,
        "distinct_sections": len(texts),
        "seed": seed,
        "version": VERSION,
        "source": {"corpus": str(corpus), "manuals": len(manuals), "sections": len(source_lengths)},
        "body_chars_median": statistics.median(lengths),
        "body_chars_mean": round(statistics.fmean(lengths), 1),
        "source_body_chars_median": statistics.median(source_lengths),
        "source_body_chars_mean": round(statistics.fmean(source_lengths), 1),
    }
    marker.write_text(json.dumps(stats, indent=1), encoding="utf-8")
    log(f"synthetic: wrote {written} sections in {k} documents to {docs}")
    return docs, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument("--work", type=Path, default=WORK, help="work folder (default: benchmarks/.work)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        docs, stats = make_corpus(args.sections, args.work, seed=args.seed)
    except (SourceError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    print(docs)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
