"""``qagen export OUT --format ragas|deepeval|hf|csv -o DIR``: the splits in other tools' field names.

Every cross-evaluation iteration (``crosseval.json``) becomes one question file plus one
corpus file (the pages to load into the chatbot's store for that iteration):

- ``ragas``: ``{name}.jsonl`` rows with ``user_input``, ``reference``, ``reference_contexts``
  and ``reference_context_ids`` (``ragas.EvaluationDataset.from_jsonl``; ragas ignores the
  extra qagen columns).
- ``deepeval``: ``{name}.json``, a list of goldens with ``input``, ``expected_output``,
  ``context``, ``name`` and every qagen field under ``additional_metadata``
  (``EvaluationDataset().add_goldens_from_json_file``).
- ``hf``: ``data/{name}.jsonl`` with flat columns plus a ``README.md`` whose configs make
  ``load_dataset(DIR)`` work; ``load_dataset("json", data_files=...)`` works on the files too.
- ``csv``: ``{name}.csv`` with the same flat columns (lists as JSON text). A text cell that
  a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or
  carriage return, or an apostrophe) gets a leading apostrophe; ``qagen.io.unguard_cell``
  removes it when reading the file with pandas or ``csv``.

A multiple-choice question carries its options in the question text ("A) ..." lines), so a
chatbot fed from an export sees them; ``question_stem`` (hf, csv, and the others' metadata) is
the question alone. ``formulation`` says whether it is a sentence, a search query or a noisy
question, and ``variant_of`` which question a variant was made from. A false premise
(``premise = "false"``, the wrong value in ``premise_claim``) expects ``correct_premise`` where its
fold is loaded: the reference answer corrects it with the source's fact.

An unanswerable question (its fold is not in the iteration's corpus, ``scope = "other_fold"``,
or it is off the corpus's domain, ``scope = "out_of_scope"``) has the configured refusal as
expected answer, ``answerable = false`` and ``expected_behavior = "refuse"``; its contexts are
empty because nothing in that corpus supports an answer.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from qagen.io import (
    OutputFolderError,
    check_output_folder,
    display_name,
    iter_jsonl,
    read_json,
    safe_cell,
    write_json,
    write_jsonl,
    write_text,
)
from qagen.output import OutputFolder
from qagen.review.export import option_letter  # review files letter options the same way
from qagen.split_records import scope_of

FORMATS = ("ragas", "deepeval", "hf", "csv")
CROSSEVAL = "crosseval.json"
# The flat columns of the hf and csv layouts (:func:`flat_record`) and their types
# ("string", "bool", "int64", "float64"; a list means a sequence of that type).
COLUMN_TYPES: dict[str, str | list[str]] = {
    "id": "string", "iteration": "string", "question": "string", "answer": "string", "answerable": "bool",
    "expected_behavior": "string", "scope": "string", "type": "string", "options": ["string"], "answer_index": "int64",
    "reference_answer": "string", "contexts": ["string"], "context_ids": ["string"], "source_contexts": ["string"],
    "doc_id": "string", "doc_path": "string", "pdf_pages": ["int64"], "section_ids": ["string"],
    "page_ids": ["string"], "topic_id": "int64", "fold": "int64", "split": "string", "corpus_fold": "int64",
    "bloom": "string", "scenario": "string", "entity": "string", "entity_kind": "string", "language": "string",
    "formulation": "string", "variant_of": "string", "premise": "string", "premise_claim": "string", "hops": "string",
    "question_stem": "string",
    "leakage_rouge": "float64", "leakage_similarity": "float64", "leakage_flagged": "bool",
}  # fmt: skip
COLUMNS = tuple(COLUMN_TYPES)
CORPUS_TYPES: dict[str, str | list[str]] = {
    "id": "string", "doc_id": "string", "page_start": "int64", "page_end": "int64", "n_tokens": "int64",
    "text": "string", "section_ids": ["string"],
}  # fmt: skip


def export(out_dir: Path, fmt: str, dest: Path) -> list[Path]:
    """Write every cross-evaluation iteration of a build in ``fmt`` under ``dest``.

    Args:
        out_dir: A build's output folder (holds ``crosseval.json`` and ``splits/``).
        fmt: One of :data:`FORMATS`.
        dest: Folder to write into: new, empty, or an earlier export's (its files of the same name are
            replaced); a folder holding other files is refused.

    Returns:
        The files written, the index ``exports.json`` last.

    Raises:
        ValueError: For an unknown format.
        FileNotFoundError: When the build has no splits yet.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    out_dir, dest = Path(out_dir), Path(dest)
    check_output_folder(dest, "export folder")
    if dest.is_dir() and not (dest / "exports.json").is_file() and any(dest.iterdir()):
        raise OutputFolderError(
            f"the export folder {display_name(dest)} holds files qagen export did not write (it has no exports.json); "
            "pass a new or empty folder, so that nothing of yours is replaced"
        )
    strangers = _not_written_by_export(dest)
    if strangers:
        raise OutputFolderError(
            f"the export folder {display_name(dest)} holds {len(strangers)} file(s) an earlier qagen export did not "
            f"write ({display_name(strangers[0])}); move them out or pass a new or empty folder, so that nothing of "
            "yours is replaced"
        )
    folder = OutputFolder(out_dir)
    crosseval_path = folder.file(CROSSEVAL)
    if not crosseval_path.is_file():
        raise FileNotFoundError(
            f"{out_dir} has no {CROSSEVAL}; run 'qagen build DOCS -o {out_dir}' first (the splits stage writes it)"
        )
    crosseval = read_json(crosseval_path)
    written: list[Path] = []
    index = []
    for it in crosseval["iterations"]:
        rows = [flat_record(r, it) for r in iter_jsonl(out_dir / it["questions"])]
        pages = [_page_row(p) for p in iter_jsonl(out_dir / it["corpus"])]
        questions, corpus = _WRITERS[fmt](dest, it["name"], rows, pages)
        written += [questions, corpus]
        index.append(
            {
                "name": it["name"],
                "set": it["set"],
                "iteration": it["iteration"],
                "questions": questions.relative_to(dest).as_posix(),
                "corpus": corpus.relative_to(dest).as_posix(),
                "answerable": sum(r["answerable"] for r in rows),
                "unanswerable": sum(not r["answerable"] for r in rows),
                "pages": len(pages),
            }
        )
    if fmt == "hf":
        readme = dest / "README.md"
        write_text(readme, _hf_readme(index))
        written.append(readme)
    manifest = dest / "exports.json"
    # this export's files and an earlier export's that are still there (csv, then ragas, then csv again)
    earlier = [f for f in _listed_files(dest) or [] if (dest / f).is_file()]
    files = sorted({*earlier, *(p.relative_to(dest).as_posix() for p in written)})
    write_json(
        manifest,
        {"format": fmt, "refusal_answer": crosseval.get("refusal_answer"), "iterations": index, "files": files},
    )
    written.append(manifest)
    return written


def _listed_files(dest: Path) -> list[str] | None:
    """The files an earlier export's ``exports.json`` lists, or None when there is none or it lists none."""
    index = dest / "exports.json"
    if not index.is_file():
        return None
    try:
        listed = read_json(index).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    return [str(f) for f in listed] if isinstance(listed, list) else None


def _not_written_by_export(dest: Path) -> list[Path]:
    """Files in an earlier export's folder that its ``exports.json`` does not list (an index written before
    exports listed their files is trusted)."""
    listed = _listed_files(dest)
    if listed is None:
        return []
    known = {*listed, "exports.json"}
    return sorted(p for p in dest.rglob("*") if p.is_file() and p.relative_to(dest).as_posix() not in known)


def flat_record(rec: dict[str, Any], iteration: dict[str, Any]) -> dict[str, Any]:
    """One question record of ``splits/`` as flat columns (the hf and csv row)."""
    source = rec.get("source", {})
    leak = rec.get("leakage", {})
    answerable = rec["expected_behavior"] != "refuse"
    return {
        "id": rec["id"],
        "iteration": iteration["name"],
        "question": question_text(rec),
        "answer": rec["expected_answer"],
        "answerable": answerable,
        "expected_behavior": rec["expected_behavior"],
        "scope": scope_of(rec),
        "type": rec["type"],
        "options": list(rec["options"]) if rec.get("options") is not None else None,
        "answer_index": rec.get("answer_index"),
        "reference_answer": rec["answer"],
        "contexts": list(rec.get("contexts", [])) if answerable else [],
        "context_ids": list(source.get("section_ids", [])) if answerable else [],
        "source_contexts": list(rec.get("contexts", [])),
        "doc_id": source.get("doc_id"),
        "doc_path": source.get("doc_path"),
        "pdf_pages": list(source.get("pdf_pages", [])),
        "section_ids": list(source.get("section_ids", [])),
        "page_ids": list(source.get("page_ids", [])),
        "topic_id": source.get("topic_id"),
        "fold": rec["fold"],
        "split": rec["split"],
        "corpus_fold": iteration["corpus_fold"],
        "bloom": rec.get("bloom"),
        "scenario": rec.get("scenario"),
        "entity": rec.get("entity"),
        "entity_kind": rec.get("entity_kind"),
        "language": rec.get("language"),
        "formulation": rec.get("formulation", "natural"),
        "variant_of": rec.get("variant_of"),
        "premise": rec.get("premise", "true"),
        "premise_claim": rec.get("premise_claim"),
        "hops": rec.get("hops", "single"),
        "question_stem": rec["question"],
        "leakage_rouge": float(leak.get("rouge", 0.0)),
        "leakage_similarity": None if leak.get("similarity") is None else float(leak["similarity"]),
        "leakage_flagged": bool(leak.get("flagged", False)),
    }


def question_text(rec: dict[str, Any]) -> str:
    """What the chatbot is asked: the question, and for a multiple-choice item its options ("A) ...").

    A chatbot fed from an export sees the choices it must pick from; ``question_stem`` keeps the
    question alone.
    """
    options = rec.get("options")
    if not options:
        return rec["question"]
    lines = [f"{option_letter(i)}) {opt}" for i, opt in enumerate(options)]
    return rec["question"] + "\n" + "\n".join(lines)


def _page_row(page: dict[str, Any]) -> dict[str, Any]:
    return {k: list(page.get(k, [])) if k == "section_ids" else page.get(k) for k in CORPUS_TYPES}


def _metadata(row: dict[str, Any]) -> dict[str, Any]:
    skip = {"question", "answer", "contexts"}
    return {k: v for k, v in row.items() if k not in skip}


def _write_ragas(dest: Path, name: str, rows: list[dict], pages: list[dict]) -> tuple[Path, Path]:
    out = dest / f"{name}.jsonl"
    write_jsonl(
        out,
        (
            {
                "user_input": r["question"],
                "reference": r["answer"],
                "reference_contexts": r["contexts"],
                "reference_context_ids": r["context_ids"],
                **_metadata(r),
            }
            for r in rows
        ),
    )
    corpus = dest / f"{name}_corpus.jsonl"
    write_jsonl(corpus, pages)
    return out, corpus


def _write_deepeval(dest: Path, name: str, rows: list[dict], pages: list[dict]) -> tuple[Path, Path]:
    # Top-level keys are DeepEval's own: a "scenario" key would turn a golden conversational,
    # so every qagen field goes under additional_metadata.
    goldens = [
        {
            "input": r["question"],
            "expected_output": r["answer"],
            "context": r["contexts"],
            "name": r["id"],
            "source_file": r["doc_path"],
            "additional_metadata": _metadata(r),
        }
        for r in rows
    ]
    out = dest / f"{name}.json"
    write_json(out, goldens)
    corpus = dest / f"{name}_corpus.jsonl"
    write_jsonl(corpus, pages)
    return out, corpus


def _write_hf(dest: Path, name: str, rows: list[dict], pages: list[dict]) -> tuple[Path, Path]:
    out = dest / "data" / f"{name}.jsonl"
    write_jsonl(out, rows)
    corpus = dest / "corpus" / f"{name}.jsonl"
    write_jsonl(corpus, pages)
    return out, corpus


def _write_csv(dest: Path, name: str, rows: list[dict], pages: list[dict]) -> tuple[Path, Path]:
    out = dest / f"{name}.csv"
    write_text(out, _csv_text(rows, list(COLUMNS)))
    corpus = dest / f"{name}_corpus.csv"
    write_text(corpus, _csv_text(pages, list(CORPUS_TYPES)))
    return out, corpus


def _csv_text(rows: list[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: _cell(row.get(c)) for c in columns})
    return buf.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return ""
    return safe_cell(value) if isinstance(value, str) else value


def hf_features(kind: str = "questions") -> Any:
    """``datasets.Features`` of the hf export's ``questions`` or ``corpus`` files.

    Pass them when loading the files directly, so a split whose column is all empty or null
    gets the same types as the others::

        load_dataset("json", data_files={...}, features=hf_features())
    """
    import datasets

    types = COLUMN_TYPES if kind == "questions" else CORPUS_TYPES
    return datasets.Features(
        {
            name: datasets.Sequence(datasets.Value(t[0])) if isinstance(t, list) else datasets.Value(t)
            for name, t in types.items()
        }
    )


def _yaml_features(types: dict[str, str | list[str]]) -> list[str]:
    lines = []
    for name, t in types.items():
        lines.append(f"  - name: {name}")
        lines.append(f"    sequence: {t[0]}" if isinstance(t, list) else f"    dtype: {t}")
    return lines


def _hf_readme(index: list[dict[str, Any]]) -> str:
    """A dataset card: features and configs, so ``datasets.load_dataset(DIR, "questions")`` works.

    Empty files are left out of the configs: ``datasets`` cannot load an empty split.
    """
    questions = [i["name"] for i in index if i["answerable"] + i["unanswerable"]]
    corpora = [i["name"] for i in index if i["pages"]]
    lines = ["---", "dataset_info:"]
    for config, types in (("questions", COLUMN_TYPES), ("corpus", CORPUS_TYPES)):
        lines += [f"- config_name: {config}", "  features:", *_yaml_features(types)]
    lines += ["configs:", "- config_name: questions", "  default: true", "  data_files:"]
    lines += [f"  - split: {n}\n    path: data/{n}.jsonl" for n in questions]
    lines += ["- config_name: corpus", "  data_files:"]
    lines += [f"  - split: {n}\n    path: corpus/{n}.jsonl" for n in corpora]
    lines += [
        "---",
        "",
        "# qagen cross-evaluation dataset",
        "",
        "One split per iteration: load the `corpus` split of the same name into the chatbot's store,",
        "then ask the `questions`. Rows with `answerable = false` come from the other fold: the",
        "expected behaviour is to refuse, and `answer` holds the refusal. Iterations without",
        "questions are left out of the splits (`exports.json` lists every iteration).",
        "",
        "```python",
        "from datasets import load_dataset",
        'questions = load_dataset("path/to/this/folder", "questions")',
        'corpus = load_dataset("path/to/this/folder", "corpus")',
        "```",
        "",
    ]
    return "\n".join(lines)


_WRITERS = {"ragas": _write_ragas, "deepeval": _write_deepeval, "hf": _write_hf, "csv": _write_csv}
