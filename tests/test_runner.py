"""The stage runner on toy stages: skip when unchanged, force, until, atomicity, lock."""

from __future__ import annotations

import os

import pytest

from qagen.artifacts import Artifact
from qagen.config import Config, load_config
from qagen.io import atomic_open, read_json, write_json
from qagen.runner import BuildError, Runner, Stage, StageOutput

ARTS = {n: Artifact(n, write_json, read_json) for n in ("a.json", "b.json", "c.json")}


class Counting:
    """Stage functions that count their calls."""

    def __init__(self):
        self.calls: list[str] = []

    def first(self, ctx):
        self.calls.append("first")
        return StageOutput(
            {"a.json": {"seed": ctx.config.seed, "n": ctx.config.topics.min_cluster_size}}, counts={"n": 1}
        )

    def second(self, ctx):
        self.calls.append("second")
        return StageOutput({"b.json": {"from_a": ctx.inputs["a.json"]["seed"] * 2}})

    def third(self, ctx):
        self.calls.append("third")
        return StageOutput({"c.json": {"b": ctx.inputs["b.json"], "pages": ctx.config.pages.target_tokens}})


def make(tmp_path, counter, config=None):
    stages = (
        Stage(name="first", inputs=(), outputs=("a.json",), config=("topics",), run=counter.first),
        Stage(name="second", inputs=("a.json",), outputs=("b.json",), config=(), run=counter.second),
        Stage(name="third", inputs=("b.json",), outputs=("c.json",), config=("pages",), run=counter.third),
    )
    return Runner(stages, ARTS, tmp_path / "out", config or Config())


def test_second_run_skips_everything(tmp_path):
    c = Counting()
    make(tmp_path, c).run()
    assert c.calls == ["first", "second", "third"]
    reports = make(tmp_path, c).run()
    assert [r.status for r in reports] == ["skipped"] * 3
    assert c.calls == ["first", "second", "third"]
    manifest = read_json(tmp_path / "out" / "manifest.json")
    assert all(s["skipped"] for s in manifest["stages"].values())
    assert manifest["stages"]["first"]["counts"] == {"n": 1}


def test_config_change_reruns_only_dependent_stages(tmp_path):
    c = Counting()
    make(tmp_path, c).run()
    c.calls.clear()
    make(tmp_path, c, load_config(None, ["pages.target_tokens=500"])).run()
    assert c.calls == ["third"]
    c.calls.clear()
    # a topics change reruns first; a.json changes, so second reruns; b.json comes out identical,
    # so third (whose inputs and config are unchanged) is skipped
    make(tmp_path, c, load_config(None, ["topics.min_cluster_size=5", "pages.target_tokens=500"])).run()
    assert c.calls == ["first", "second"]


def test_seed_change_reruns_all_that_depends_on_it(tmp_path):
    c = Counting()
    make(tmp_path, c).run()
    c.calls.clear()
    make(tmp_path, c, load_config(None, ["seed=3"])).run()
    # first and third fingerprint the seed; second reruns because a.json changed
    assert c.calls == ["first", "second", "third"]


def test_force_and_until(tmp_path):
    c = Counting()
    make(tmp_path, c).run(until="second")
    assert c.calls == ["first", "second"]
    assert not (tmp_path / "out" / "c.json").exists()
    c.calls.clear()
    make(tmp_path, c).run(force=["second"])
    assert c.calls == ["second", "third"]
    c.calls.clear()
    make(tmp_path, c).run(force=True)
    assert c.calls == ["first", "second", "third"]
    with pytest.raises(BuildError, match="--until takes a stage name"):
        make(tmp_path, c).run(until="nope")


def test_tampered_or_deleted_output_is_rebuilt(tmp_path):
    c = Counting()
    make(tmp_path, c).run()
    c.calls.clear()
    (tmp_path / "out" / "b.json").write_text('{"from_a": 999}')
    make(tmp_path, c).run()
    assert c.calls == ["second"]
    assert read_json(tmp_path / "out" / "b.json") == {"from_a": 0}
    c.calls.clear()
    (tmp_path / "out" / "c.json").unlink()
    make(tmp_path, c).run()
    assert c.calls == ["third"]


def test_failing_stage_keeps_previous_artifacts_and_reruns_next_time(tmp_path):
    c = Counting()
    make(tmp_path, c).run()
    before = (tmp_path / "out" / "b.json").read_bytes()

    def boom(ctx):
        raise RuntimeError("disk on fire")

    stages = (
        Stage(name="first", inputs=(), outputs=("a.json",), config=("topics",), run=c.first),
        Stage(name="second", inputs=("a.json",), outputs=("b.json",), config=(), run=boom),
    )
    with pytest.raises(RuntimeError):
        Runner(stages, ARTS, tmp_path / "out", load_config(None, ["seed=1"])).run()
    assert (tmp_path / "out" / "b.json").read_bytes() == before
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]


def test_atomic_open_leaves_old_file_on_error(tmp_path):
    target = tmp_path / "x.txt"
    target.write_text("old")
    with pytest.raises(ValueError), atomic_open(target) as fh:
        fh.write("half")
        raise ValueError("interrupted")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["x.txt"]


def test_lock_refuses_a_second_writer(tmp_path):
    from filelock import FileLock

    c = Counting()
    out = tmp_path / "out"
    out.mkdir()
    with FileLock(str(out / ".qagen.lock")), pytest.raises(BuildError, match="another qagen build"):
        make(tmp_path, c).run()
    assert c.calls == []


def test_unknown_artifact_is_a_declaration_error(tmp_path):
    with pytest.raises(ValueError, match="unknown artifact"):
        Runner(
            (Stage(name="x", inputs=("nope.json",), outputs=(), config=(), run=lambda ctx: StageOutput({})),),
            ARTS,
            tmp_path,
            Config(),
        )


def test_failed_stage_is_recorded_in_one_line_and_reruns_next_time(tmp_path, monkeypatch):
    monkeypatch.setenv("QAGEN_TEST_API_KEY", "not-a-real-key-0123456789")
    c = Counting()
    make(tmp_path, c).run()
    c.calls.clear()

    def boom(ctx):
        raise RuntimeError("disk on fire with not-a-real-key-0123456789\n  File 'x.py', line 3\nsecond line")

    stages = (
        Stage(name="first", inputs=(), outputs=("a.json",), config=("topics",), run=c.first),
        Stage(name="second", inputs=("a.json",), outputs=("b.json",), config=(), run=boom),
    )
    with pytest.raises(RuntimeError, match="disk on fire"):
        Runner(stages, ARTS, tmp_path / "out", Config()).run(force=["second"])
    entry = read_json(tmp_path / "out" / "manifest.json")["stages"]["second"]
    assert entry["status"] == "failed" and "fingerprint" not in entry and "outputs" not in entry
    assert entry["error"] == "RuntimeError: disk on fire with ***"
    assert entry["finished_at"].endswith("Z")
    make(tmp_path, c).run()
    assert c.calls == ["second"]  # first unchanged; third's input came out identical
    assert read_json(tmp_path / "out" / "manifest.json")["stages"]["second"]["status"] == "ok"


def test_interrupted_stage_is_recorded_and_reruns(tmp_path):
    c = Counting()

    def interrupt(ctx):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Runner(
            (Stage(name="first", inputs=(), outputs=("a.json",), config=(), run=interrupt),),
            ARTS,
            tmp_path / "out",
            Config(),
        ).run()
    entry = read_json(tmp_path / "out" / "manifest.json")["stages"]["first"]
    assert entry["status"] == "interrupted" and "fingerprint" not in entry
    make(tmp_path, c).run()
    assert c.calls == ["first", "second", "third"]


def test_files_written_beside_an_artifact_and_declared_folders_are_outputs_too(tmp_path):
    """A writer's extra files and a stage's folder are hashed: deleting or editing one reruns the stage."""
    out = tmp_path / "out"

    def write_with_side_file(path, value):
        write_json(path, value)
        write_json(path.parent / "side" / "copy.json", value)
        return ["side/copy.json"]

    arts = {**ARTS, "a.json": Artifact("a.json", write_with_side_file, read_json)}
    calls = []

    def first(ctx):
        calls.append("first")
        n = len(calls)
        return StageOutput(
            {"a.json": {"x": 1}}, folders={"own": lambda folder: write_json(folder / "note.json", {"n": n})}
        )

    def run():
        stage = Stage(name="first", inputs=(), outputs=("a.json",), config=(), run=first, folders=("own",))
        return Runner((stage,), arts, out, Config()).run()

    run()
    outputs = read_json(out / "manifest.json")["stages"]["first"]["outputs"]
    assert list(outputs) == ["a.json", "side/copy.json", "own/note.json"]
    assert [r.status for r in run()] == ["skipped"]
    (out / "side" / "copy.json").unlink()
    run()
    assert calls == ["first", "first"] and read_json(out / "side" / "copy.json") == {"x": 1}
    (out / "own" / "note.json").write_text("{}")
    run()
    assert len(calls) == 3 and read_json(out / "own" / "note.json") == {"n": 3}
    assert not list(out.glob(".own.*"))  # the temporary folders are gone


def test_a_folder_is_replaced_whole_or_not_at_all_and_removed_when_not_returned(tmp_path):
    out = tmp_path / "out"
    behaviour = {"mode": "write"}

    def write(folder):
        write_json(folder / "part1.json", {"mode": behaviour["mode"]})
        if behaviour["mode"] == "fail":
            raise OSError("disk full halfway")
        write_json(folder / "part2.json", {})

    def first(ctx):
        folders = {} if behaviour["mode"] == "none" else {"model": write}
        return StageOutput({"a.json": {"mode": behaviour["mode"]}}, folders=folders)

    def run():
        stage = Stage(name="first", inputs=(), outputs=("a.json",), config=(), run=first, folders=("model",))
        return Runner((stage,), ARTS, out, Config()).run(force=True)

    run()
    assert sorted(p.name for p in (out / "model").iterdir()) == ["part1.json", "part2.json"]
    behaviour["mode"] = "fail"
    with pytest.raises(OSError, match="halfway"):
        run()
    assert read_json(out / "model" / "part1.json") == {"mode": "write"}  # the old folder, whole
    assert not list(out.glob(".model.*"))
    behaviour["mode"] = "none"
    run()
    assert not (out / "model").exists()  # a folder of an earlier run would not match the new artifacts


def test_a_stage_may_not_write_an_undeclared_folder(tmp_path):
    def first(ctx):
        return StageOutput({"a.json": {}}, folders={"elsewhere": lambda folder: None})

    stage = Stage(name="first", inputs=(), outputs=("a.json",), config=(), run=first)
    with pytest.raises(RuntimeError, match="undeclared folders"):
        Runner((stage,), ARTS, tmp_path, Config()).run()
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "a.json").exists()


def test_a_stage_that_stops_the_build_writes_and_records_nothing(tmp_path):
    c = Counting()

    def stop(ctx):
        return StageOutput({}, stop={"estimate": {"requests": 3}})

    stages = (
        Stage(name="first", inputs=(), outputs=("a.json",), config=(), run=c.first),
        Stage(name="second", inputs=("a.json",), outputs=("b.json",), config=(), run=stop),
        Stage(name="third", inputs=("b.json",), outputs=("c.json",), config=(), run=c.third),
    )
    reports = Runner(stages, ARTS, tmp_path, Config()).run()
    assert [(r.name, r.status) for r in reports] == [("first", "ran"), ("second", "stopped")]
    assert reports[-1].stopped == {"estimate": {"requests": 3}}
    assert not (tmp_path / "b.json").exists() and c.calls == ["first"]
    assert set(read_json(tmp_path / "manifest.json")["stages"]) == {"first"}


def test_stage_fields_are_keywords():
    with pytest.raises(TypeError):
        Stage("first", (), ("a.json",), (), lambda ctx: StageOutput({}))  # type: ignore[misc]


def test_stale_temp_files_go_and_fresh_ones_in_the_cache_stay(tmp_path):
    import os
    import time

    out = tmp_path / "out"
    (out / "splits").mkdir(parents=True)
    (out / ".cache" / "parse" / "ab").mkdir(parents=True)
    killed = out / "splits" / ".questions.jsonl.x1.tmp"  # a build killed while writing
    old_cache = out / ".cache" / "parse" / "ab" / ".abc.json.x2.tmp"  # a cache write killed long ago
    fresh_cache = out / ".cache" / "parse" / "ab" / ".abd.json.x3.tmp"  # maybe `qagen score` writing now
    for path in (killed, old_cache, fresh_cache):
        path.write_text("{")
    two_hours_ago = time.time() - 7200
    os.utime(old_cache, (two_hours_ago, two_hours_ago))
    make(tmp_path, Counting()).run()
    assert not killed.exists() and not old_cache.exists() and fresh_cache.exists()
