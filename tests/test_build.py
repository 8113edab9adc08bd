"""`qagen build` end to end on the bundled examples: valid artifacts, reruns skip, kills resume,
same seed gives byte-identical artifacts.

Most tests use the fast stand-ins (TF-IDF embeddings, PCA + k-means topics) so they stay quick;
`test_real_components_end_to_end` runs the default path (MiniLM, UMAP, HDBSCAN).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from qagen import build
from qagen.artifacts import JSONL_RECORDS
from qagen.records import RECORD_TYPES
from qagen.schemas import SCHEMA_DIR
from qagen.stages import STAGE_NAMES
from tests.support.fast import FAST

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
NOT_ARTIFACTS = {"manifest.json", ".qagen.lock", "report.html"}  # the report shows timings


def artifact_bytes(out: Path) -> dict[str, bytes]:
    """Every artifact file under ``out`` (not the manifest, the lock or the caches)."""
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out)
        if path.is_file() and rel.parts[0] != ".cache" and rel.name not in NOT_ARTIFACTS:
            files[rel.as_posix()] = path.read_bytes()
    return files


@pytest.fixture(scope="module")
def fast_build(fast_example_build) -> Path:
    return fast_example_build


def _validators() -> dict[str, jsonschema.Draft202012Validator]:
    name_of = {cls: name for name, cls in RECORD_TYPES.items()}
    return {
        fname: jsonschema.Draft202012Validator(json.loads((SCHEMA_DIR / f"{name_of[cls]}.schema.json").read_text()))
        for fname, cls in JSONL_RECORDS.items()
    }


def _split_validators() -> dict[str, jsonschema.Draft202012Validator]:
    """File name under splits/{set}/fold_{i}/ -> validator of its lines."""
    page, question = (
        jsonschema.Draft202012Validator(json.loads((SCHEMA_DIR / f"{n}.schema.json").read_text()))
        for n in ("page", "split_question")
    )
    return {"pages.jsonl": page, "items.jsonl": question, "unanswerable.jsonl": question, "questions.jsonl": question}


def test_every_artifact_line_is_valid_against_its_schema(fast_build):
    for fname, validator in _validators().items():
        lines = (fast_build / fname).read_text().splitlines()
        for line in lines:
            validator.validate(json.loads(line))
    split_validators = _split_validators()
    split_files = sorted((fast_build / "splits").glob("*/fold_*/*.jsonl"))
    assert {p.name for p in split_files} == set(split_validators) and len(split_files) == 16
    n_records = 0
    for path in split_files:
        for line in path.read_text().splitlines():
            split_validators[path.name].validate(json.loads(line))
            n_records += 1
    assert n_records > 0
    items = [json.loads(x) for x in (fast_build / "items.jsonl").read_text().splitlines()]
    assert {it["type"] for it in items} == {"long_form", "factoid", "mcq"}
    # (with these stand-ins one fold may be a single page, whose test part is then empty)
    assert {it["fold"] for it in items} == {1, 2}
    assert {it["split"] for it in items} == {"validation", "test"}


def test_manifest_records_every_stage(fast_build):
    manifest = json.loads((fast_build / "manifest.json").read_text())
    assert manifest["schema_version"] == "1.0"
    for name in ("parse", "pages", "embed", "topics", "folds", "generate", "filter", "splits"):
        entry = manifest["stages"][name]
        assert entry["status"] == "ok" and len(entry["fingerprint"]) == 64
        assert entry["outputs"]
    assert manifest["stages"]["parse"]["counts"]["parsed"] == 15


def test_rerun_skips_every_stage_and_force_reruns(fast_build, tmp_path):
    before = artifact_bytes(fast_build)
    result = build(EXAMPLES, fast_build, overrides=FAST)
    assert result.ran == []
    assert set(result.skipped) >= {"parse", "generate", "splits"}
    assert artifact_bytes(fast_build) == before
    result = build(EXAMPLES, fast_build, overrides=FAST, force=["generate"])
    assert result.ran[0] == "generate"
    assert artifact_bytes(fast_build) == before


def test_config_change_reruns_from_the_changed_stage(fast_build, tmp_path):
    out = tmp_path / "out"
    build(EXAMPLES, out, overrides=FAST, until="folds")
    result = build(EXAMPLES, out, overrides=[*FAST, "filter.keep_per_section=2"])
    assert "parse" in result.skipped and "topics" in result.skipped
    assert "filter" in result.ran


def test_same_seed_gives_byte_identical_artifacts(fast_build, tmp_path):
    other = tmp_path / "again"
    build(EXAMPLES, other, overrides=FAST)
    assert artifact_bytes(other) == artifact_bytes(fast_build)


def test_different_seed_changes_the_folds(fast_build, tmp_path):
    other = tmp_path / "seed"
    build(EXAMPLES, other, overrides=[*FAST, "seed=1"], until="folds")
    assert (other / "assignments.jsonl").read_bytes() != (fast_build / "assignments.jsonl").read_bytes()


def _cli(out: Path, *extra: str) -> list[str]:
    args = [sys.executable, "-m", "qagen.cli", "build", str(EXAMPLES), "-o", str(out), "-q"]
    for item in FAST:
        args += ["--set", item]
    return args + list(extra)


def _wait_for_stage(out: Path, proc: subprocess.Popen, stage: str, timeout: float = 120) -> None:
    manifest = out / "manifest.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if manifest.is_file():
            try:
                if stage in json.loads(manifest.read_text())["stages"]:
                    return
            except (ValueError, KeyError):
                pass
        time.sleep(0.02)


# Ctrl-C (SIGINT) between stages; tests/test_faults.py sends SIGKILL inside every stage.
@pytest.mark.parametrize(("after_stage", "sig"), [("pages", signal.SIGINT)])
def test_killed_build_resumes_to_identical_artifacts(fast_build, tmp_path, after_stage, sig):
    out = tmp_path / "out"
    proc = subprocess.Popen(_cli(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_stage(out, proc, after_stage)
    os.kill(proc.pid, sig)
    proc.wait(timeout=60)
    # nothing half-written: every JSONL line that exists parses
    for path in out.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line)
    rerun = subprocess.run(_cli(out), capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert artifact_bytes(out) == artifact_bytes(fast_build)
    assert not list(out.rglob(".*.tmp"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stages"][after_stage]["skipped"] is True


def test_dry_run_with_extractive_makes_no_requests(tmp_path):
    result = build(EXAMPLES, tmp_path / "out", overrides=FAST, dry_run=True)
    assert result.estimate == {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    assert not (tmp_path / "out" / "candidates.jsonl").exists()


@pytest.mark.slow
def test_real_components_end_to_end(tmp_path):
    """Default path: MiniLM embeddings, UMAP + HDBSCAN topics, on the examples."""
    out = tmp_path / "out"
    build(EXAMPLES, out, overrides=["folds.samples_total=80"])
    topics = json.loads((out / "topics.json").read_text())
    assert len(topics["topics"]) >= 2
    assert topics["params"]["reducer"] == "umap"
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    assert {it["type"] for it in items} == {"long_form", "factoid", "mcq"}
    crosseval = json.loads((out / "crosseval.json").read_text())
    assert len(crosseval["iterations"]) == 4
    # same input + config + seed with the offline defaults (MiniLM, UMAP, HDBSCAN): every stage
    # again, byte for byte (the embedding cache spares the model's time, not the stages' work)
    first = artifact_bytes(out)
    again = build(EXAMPLES, out, overrides=["folds.samples_total=80"], force=True)
    assert set(again.ran) == set(STAGE_NAMES)
    second = artifact_bytes(out)
    assert second.keys() == first.keys()
    assert [name for name in first if first[name] != second[name]] == []  # (report.html shows timings: not compared)


def test_changing_a_prompt_reruns_generation_and_only_what_follows(tmp_path):
    import shutil

    from qagen.generate.prompts import default_prompts_dir

    prompts = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), prompts)
    out = tmp_path / "out"
    overrides = [*FAST, f'generate.prompts_dir="{prompts}"']
    build(EXAMPLES, out, overrides=overrides, until="filter")
    (prompts / "mcq.md").write_text((prompts / "mcq.md").read_text() + "\nBe concise.\n")
    result = build(EXAMPLES, out, overrides=overrides, until="filter")
    assert result.ran[0] == "generate"
    assert {"parse", "pages", "embed", "topics", "folds"} <= set(result.skipped)


def test_deleted_or_edited_split_file_is_rebuilt(fast_build, tmp_path):
    import shutil

    out = tmp_path / "out"
    shutil.copytree(fast_build, out)
    recorded = json.loads((out / "manifest.json").read_text())["stages"]["splits"]["outputs"]
    assert "splits/test/fold_1/items.jsonl" in recorded and "splits/leakage.json" in recorded
    before = artifact_bytes(out)
    target = out / "splits" / "test" / "fold_1" / "items.jsonl"
    target.unlink()
    result = build(EXAMPLES, out, overrides=FAST)
    assert "splits" in result.ran and "generate" in result.skipped
    assert artifact_bytes(out) == before
    (out / "splits" / "validation" / "fold_2" / "questions.jsonl").write_text("{}\n")
    assert "splits" in build(EXAMPLES, out, overrides=FAST).ran
    assert artifact_bytes(out) == before


def test_topic_model_is_saved_on_request(fast_build, tmp_path):
    import shutil

    from bertopic import BERTopic

    out = tmp_path / "out"
    shutil.copytree(fast_build, out)
    topics_before = (out / "topics.json").read_bytes()
    result = build(EXAMPLES, out, overrides=[*FAST, "topics.save_model=true"], until="topics")
    assert result.ran == ["topics"]
    assert (out / "topics.json").read_bytes() == topics_before
    outputs = json.loads((out / "manifest.json").read_text())["stages"]["topics"]["outputs"]
    saved = sorted(p for p in outputs if p.startswith("topic_model/"))
    assert saved and all((out / p).is_file() for p in saved)
    assert not list(out.glob(".topic_model*"))  # the temporary folder was renamed into place
    loaded = BERTopic.load(str(out / "topic_model"))
    first = json.loads(topics_before)["topics"][0]
    assert [w for w, _ in loaded.get_topic(first["id"])][:3] == first["keywords"][:3]
    (out / saved[0]).unlink()  # a missing model file reruns the stage
    assert build(EXAMPLES, out, overrides=[*FAST, "topics.save_model=true"], until="topics").ran == ["topics"]
    assert (out / saved[0]).is_file()
    build(EXAMPLES, out, overrides=FAST, until="topics")  # turned off: the stale model is removed
    assert not (out / "topic_model").exists()
