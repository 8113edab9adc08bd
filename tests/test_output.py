"""OutputFolder: the one object commands open a build's folder through (paths, readers, manifest, lock)."""

from __future__ import annotations

import pytest
from filelock import FileLock

from qagen.io import write_json, write_jsonl
from qagen.output import LOCK, MANIFEST, FolderBusyError, OutputFolder
from qagen.records import Section


def test_paths_readers_and_manifest(tmp_path):
    folder = OutputFolder(tmp_path)
    assert folder.manifest() == {} and not folder.has("sections.jsonl")
    assert folder.read_if_present("sections.jsonl", []) == []
    write_jsonl(folder.file("sections.jsonl"), [Section("d-s0", "d", "d.md", "Hours", "Open at nine.", 1, 1, 0)])
    write_json(folder.file(MANIFEST), {"schema_version": 1})
    [section] = folder.read("sections.jsonl")
    assert isinstance(section, Section) and section.text == "Open at nine."  # typed by the artifact's reader
    assert folder.manifest() == {"schema_version": 1}
    with pytest.raises(KeyError, match="not a file of an output folder"):
        folder.file("notes.txt")


def test_the_lock_is_one_writer_at_a_time_and_says_who_waits(tmp_path):
    folder = OutputFolder(tmp_path)
    held = folder.lock()
    with held, pytest.raises(FolderBusyError, match="another qagen command is writing"), folder.lock():
        pass
    custom = folder.lock(lambda path: RuntimeError(f"custom {path.name}"))
    with FileLock(str(tmp_path / LOCK)), pytest.raises(RuntimeError, match="custom"), custom:
        pass
    with folder.lock():  # released after each use
        pass


def test_score_and_review_leave_the_report_to_a_build_that_holds_the_folder(tmp_path):
    from qagen.commands.report import rerender_report

    write_json(tmp_path / MANIFEST, {})
    with FileLock(str(tmp_path / LOCK)):
        assert rerender_report(tmp_path) is None
    assert not (tmp_path / "report.html").exists()
