"""Exports: field names per tool, and the files load in the real libraries.

``datasets`` is a test dependency. ragas and DeepEval are the optional ``qagen[exports]``
extra: their tests skip with the install hint when it is absent (CI installs it).
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from qagen.commands.export import COLUMNS, FORMATS, export, hf_features
from qagen.config import SplitsConfig
from qagen.io import write_json
from qagen.records import FoldAssignment, GeneratorInfo, Item, Page, Section, Source
from qagen.splits import build_splits, write_splits

EXTRA_HINT = (
    "optional extra absent: ragas/deepeval run in their own environment (bash .ci/exports-venv; see "
    "tests/test_export_extras.py), since their pins clash with qagen's test environment"
)
REFUSAL = SplitsConfig().refusal_answer


def build_out(tmp_path: Path, with_test_items: bool = True) -> Path:
    """A minimal output folder: 4 pages in 4 (set, fold) cells, items with MCQ and factoid fields."""
    cells = [("validation", 1), ("validation", 2), ("test", 1), ("test", 2)]
    texts = [
        "The clinic is open Monday to Friday from 8:00 to 17:00.",
        "Parking is free for patients in garage P2 next to the entrance.",
        "Call the helpdesk on 020 794 3120 for a new appointment.",
        "Bring your insurance card and your list of medicines.",
    ]
    sections, pages, assignments, items = {}, [], [], []
    for n, ((split, fold), text) in enumerate(zip(cells, texts, strict=True)):
        sid, pid = f"s{n}", f"p{n}"
        sections[sid] = Section(sid, "d1", "docs/leaflet.pdf", f"Heading {n}", text, n + 1, n + 1, n)
        pages.append(Page(pid, "d1", (sid,), f"Heading {n}\n{text}", 20, n, n + 1, n + 1))
        assignments.append(FoldAssignment(sid, n, pid, "kept", fold, split))
        if split == "test" and not with_test_items:
            continue
        source = Source("d1", (sid,), (pid,), n, "docs/leaflet.pdf", (n + 1,))
        common = {
            "source": source,
            "fold": fold,
            "split": split,
            "generator": GeneratorInfo("extractive"),
            "score": 0.5,
        }
        items.append(Item(id=f"lf{n}", type="long_form", question=f"What does part {n} say?", answer=text, **common))
        if n == 0:
            options = ("Monday to Friday", "Weekends", "Evenings", "Holidays")
            items.append(
                Item(id="mcq0", type="mcq", question="When is the clinic open?", answer=options[0], options=options,
                     answer_index=0, bloom="B1", scenario="S1", **common)
            )  # fmt: skip
        if n == 2:
            items.append(
                Item(id="fact2", type="factoid", question="Which number books an appointment?",
                     answer="Call 020 794 3120.", entity="020 794 3120", entity_kind="phone", **common)
            )  # fmt: skip
    out = tmp_path / "out"
    result = build_splits(items, pages, assignments, SplitsConfig(), embed=None, sections=sections)
    write_json(out / "crosseval.json", write_splits(result, out))
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_ragas_fields(tmp_path):
    out = build_out(tmp_path)
    files = export(out, "ragas", tmp_path / "ragas")
    rows = read_jsonl(tmp_path / "ragas" / "validation_iteration_1.jsonl")
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {"lf0", "mcq0", "lf1"}
    assert by_id["lf0"]["user_input"] == "What does part 0 say?"
    assert by_id["lf0"]["reference"] == "The clinic is open Monday to Friday from 8:00 to 17:00."
    assert by_id["lf0"]["reference_contexts"] == ["Heading 0\nThe clinic is open Monday to Friday from 8:00 to 17:00."]
    assert by_id["lf0"]["reference_context_ids"] == ["s0"] and by_id["lf0"]["answerable"] is True
    refuse = by_id["lf1"]
    assert refuse["reference"] == REFUSAL and refuse["answerable"] is False and refuse["reference_contexts"] == []
    assert refuse["expected_behavior"] == "refuse" and refuse["reference_answer"].startswith("Parking")
    assert by_id["mcq0"]["options"] == ["Monday to Friday", "Weekends", "Evenings", "Holidays"]
    corpus = read_jsonl(tmp_path / "ragas" / "validation_iteration_1_corpus.jsonl")
    assert [p["id"] for p in corpus] == ["p0"] and corpus[0]["text"].startswith("Heading 0")
    index = json.loads((tmp_path / "ragas" / "exports.json").read_text())
    assert files[-1].name == "exports.json" and len(files) == 9
    assert index["iterations"][0] == {
        "name": "validation_iteration_1",
        "set": "validation",
        "iteration": 1,
        "questions": "validation_iteration_1.jsonl",
        "corpus": "validation_iteration_1_corpus.jsonl",
        "answerable": 2,
        "unanswerable": 1,
        "pages": 1,
    }


def test_deepeval_fields(tmp_path):
    out = build_out(tmp_path)
    export(out, "deepeval", tmp_path / "de")
    goldens = json.loads((tmp_path / "de" / "test_iteration_2.json").read_text())
    by_id = {g["name"]: g for g in goldens}
    assert set(by_id) == {"lf3", "lf2", "fact2"}
    assert by_id["lf3"]["input"] == "What does part 3 say?" and by_id["lf3"]["context"] == [
        "Heading 3\nBring your insurance card and your list of medicines."
    ]
    assert by_id["fact2"]["expected_output"] == REFUSAL and by_id["fact2"]["context"] == []
    meta = by_id["fact2"]["additional_metadata"]
    assert meta["answerable"] is False and meta["entity"] == "020 794 3120" and meta["reference_answer"]
    assert "scenario" not in by_id["fact2"]  # a top-level scenario makes DeepEval build a conversational golden


def test_csv_columns(tmp_path):
    out = build_out(tmp_path)
    export(out, "csv", tmp_path / "csv")
    with open(tmp_path / "csv" / "validation_iteration_2.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(COLUMNS)
    by_id = {r["id"]: r for r in rows}
    assert by_id["lf0"]["answer"] == REFUSAL and by_id["lf0"]["answerable"] == "False"
    assert json.loads(by_id["mcq0"]["options"])[0] == "Monday to Friday"
    assert by_id["lf1"]["expected_behavior"] == "answer"


@pytest.mark.parametrize("with_test_items", [True, False])
def test_hf_loads_with_datasets(tmp_path, with_test_items):
    datasets = pytest.importorskip("datasets")
    out = build_out(tmp_path, with_test_items)
    dest, cache = tmp_path / "hf", str(tmp_path / "hf_cache")
    export(out, "hf", dest)
    files = {p.stem: str(p) for p in sorted((dest / "data").glob("*.jsonl")) if p.stat().st_size}
    ds = datasets.load_dataset("json", data_files=files, features=hf_features(), cache_dir=cache)
    expected = {"validation_iteration_1", "validation_iteration_2", "test_iteration_1", "test_iteration_2"}
    assert set(ds) == (expected if with_test_items else expected - {"test_iteration_1", "test_iteration_2"})
    val1 = ds["validation_iteration_1"]
    assert val1.num_rows == 3 and list(val1.column_names) == list(COLUMNS)
    assert sorted(val1["answerable"]) == [False, True, True]
    assert val1.features["options"] == datasets.Sequence(datasets.Value("string"))
    # one file alone loads without features too
    single = datasets.load_dataset("json", data_files=files["validation_iteration_1"], split="train", cache_dir=cache)
    assert single.num_rows == 3 and "reference_answer" in single.column_names
    # the dataset card's configs: load the folder itself
    questions = datasets.load_dataset(str(dest), "questions", cache_dir=cache)
    corpus = datasets.load_dataset(str(dest), "corpus", cache_dir=cache)
    assert set(questions) == set(ds) and questions["validation_iteration_2"].num_rows == 3
    assert set(corpus) == expected and corpus["test_iteration_2"][0]["id"] == "p3"
    assert corpus["test_iteration_2"][0]["text"].startswith("Heading 3")


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="format must be one of ragas, deepeval, hf, csv; got 'xls'"):
        export(tmp_path, "xls", tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="run 'qagen build"):
        export(tmp_path, "hf", tmp_path / "x")
    assert FORMATS == ("ragas", "deepeval", "hf", "csv")


# --- the real ragas and DeepEval (optional extra qagen[exports]) ----------------------------


def test_ragas_evaluation_dataset_loads(tmp_path):
    ragas = pytest.importorskip("ragas", reason=EXTRA_HINT)
    out = build_out(tmp_path)
    export(out, "ragas", tmp_path / "ragas")
    ds = ragas.EvaluationDataset.from_jsonl(str(tmp_path / "ragas" / "validation_iteration_1.jsonl"))
    assert len(ds) == 3
    samples = {s.user_input: s for s in ds.samples}
    lf0 = samples["What does part 0 say?"]
    assert lf0.reference.startswith("The clinic") and lf0.reference_contexts[0].startswith("Heading 0")
    assert samples["What does part 1 say?"].reference == REFUSAL
    assert set(ds.features()) >= {"user_input", "reference", "reference_contexts"}


def test_deepeval_goldens_load(tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    monkeypatch.chdir(tmp_path)  # DeepEval may write a .deepeval folder into the working directory
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    pytest.importorskip("deepeval", reason=EXTRA_HINT)
    from deepeval.dataset import EvaluationDataset

    out = build_out(tmp_path)
    export(out, "deepeval", tmp_path / "de")
    dataset = EvaluationDataset()
    dataset.add_goldens_from_json_file(str(tmp_path / "de" / "test_iteration_2.json"))
    goldens = {g.input: g for g in dataset.goldens}
    assert len(goldens) == 3
    assert goldens["What does part 2 say?"].expected_output == REFUSAL
    assert goldens["What does part 3 say?"].context[0].startswith("Heading 3")
    assert goldens["Which number books an appointment?"].additional_metadata["answerable"] is False
