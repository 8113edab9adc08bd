"""The CLI's error paths: one line, the fix, exit code 1 or 2, nothing written outside OUT."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def qagen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qagen.cli", *args], capture_output=True, text=True, cwd=cwd)


def _assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "docs").mkdir()
    return tmp_path


def _only(path: Path) -> set[str]:
    return {p.name for p in path.iterdir()}


def test_missing_docs_folder(workdir):
    proc = qagen("build", "nope", "-o", "out", cwd=workdir)
    _assert_one_line_error(proc, 1, "nope", "not found")
    assert _only(workdir) == {"docs"}


def test_empty_docs_folder(workdir):
    proc = qagen("build", "docs", "-o", "out", cwd=workdir)
    _assert_one_line_error(proc, 1, "docs")
    assert _only(workdir) == {"docs"}


def test_no_supported_files(workdir):
    (workdir / "docs" / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not text")
    (workdir / "docs" / "data.bin").write_bytes(bytes(range(256)))
    proc = qagen("build", "docs", "-o", "out", cwd=workdir)
    _assert_one_line_error(proc, 1, "no supported")
    assert _only(workdir) == {"docs"}


def test_unknown_config_key_is_a_usage_error(workdir):
    (workdir / "docs" / "a.md").write_text("# Title\n\nSome text.\n")
    proc = qagen("build", "docs", "-o", "out", "--set", "topics.min_clustr_size=3", cwd=workdir)
    _assert_one_line_error(proc, 2, "topics.min_clustr_size", "min_cluster_size")
    assert _only(workdir) == {"docs"}


def test_bad_config_value(workdir):
    (workdir / "docs" / "a.md").write_text("# Title\n\nSome text.\n")
    proc = qagen("build", "docs", "-o", "out", "--set", "folds.test_size=1.5", cwd=workdir)
    _assert_one_line_error(proc, 2, "folds.test_size", "1.5")


def test_bad_config_file(workdir):
    (workdir / "qagen.toml").write_text("[pages]\ntarget_tokens = 'many'\n")
    (workdir / "docs" / "a.md").write_text("# Title\n\nSome text.\n")
    proc = qagen("build", "docs", "-o", "out", "-c", "qagen.toml", cwd=workdir)
    _assert_one_line_error(proc, 2, "pages.target_tokens", "many")


def test_unknown_stage_is_a_usage_error(workdir):
    proc = qagen("build", "docs", "-o", "out", "--until", "nope", cwd=workdir)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_init_writes_a_loadable_file_and_refuses_to_overwrite(workdir):
    proc = qagen("init", cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    from qagen.config import Config, load_config

    assert load_config(workdir / "qagen.toml") == Config()
    _assert_one_line_error(qagen("init", cwd=workdir), 1, "exists", "--force")


def test_inspect_without_a_build(workdir):
    _assert_one_line_error(qagen("inspect", "docs", cwd=workdir), 1, "manifest.json", "qagen build")


def test_too_small_corpus_is_one_line_not_a_traceback(workdir):
    (workdir / "docs" / "a.md").write_text("# Parking\n\nGarage P2 costs 3 euro per hour.\n\n# Visits\n\nFrom 14:00.\n")
    (workdir / "docs" / "b.md").write_text("# Leave\n\n25 days a year.\n\n# Expenses\n\nWithin 30 days.\n")
    proc = qagen("build", "docs", "-o", "out", "--set", "embed.backend=tfidf", "--set", "topics.reducer=pca",
                 "--set", "topics.clusterer=kmeans", "-q", cwd=workdir)  # fmt: skip
    _assert_one_line_error(proc, 1, "topics", "add documents")


@pytest.fixture(scope="module")
def small_docs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    docs = root / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Parking\n\nGarage P2 costs 3 euro per hour.\n\n# Visits\n\nFrom 14:00 to 20:00.\n")
    (docs / "b.md").write_text("# Leave\n\n25 days a year.\n\n# Expenses\n\nClaim them within 30 days.\n")
    (docs / "notes").write_text("text without an extension is listed as skipped, not parsed\n")
    return root


def _build_until(root: Path, out: str, *flags: str, until: str = "parse") -> subprocess.CompletedProcess:
    return qagen("build", "docs", "-o", out, "--until", until, "--set", "parse.workers=1", *flags, cwd=root)


def test_verbose_shows_details_that_default_and_quiet_do_not(small_docs):
    default, verbose, quiet = (_build_until(small_docs, f"out{k}", *f) for k, f in enumerate(([], ["-v"], ["-q"])))
    for proc in (default, verbose, quiet):
        assert proc.returncode == 0, proc.stderr
    assert "parse: a.md: ok, 2 sections" in verbose.stderr
    assert "parse: ran in" in verbose.stderr and "sections=4" in verbose.stderr
    assert "parse: a.md: ok" not in default.stderr and "parse: ran in" not in default.stderr
    assert "skipped notes: no extension" in default.stderr and "skipped notes" in verbose.stderr
    assert quiet.stderr == ""


def test_verbose_and_quiet_together_is_a_usage_error(small_docs):
    _assert_one_line_error(_build_until(small_docs, "outvq", "-v", "-q"), 2, "-v", "-q")


def test_help_lists_the_exit_codes():
    proc = subprocess.run([sys.executable, "-m", "qagen.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for code in ("0 ok", "1 error", "2 usage", "3 finished but incomplete", "130 interrupted"):
        assert code in text


@pytest.mark.slow
def test_quiet_silences_third_party_progress_bars(small_docs):
    from qagen.embed.sentence import minilm_available

    if not minilm_available():
        pytest.skip("sentence-transformers or the bundled MiniLM is not installed")
    # without -q, loading MiniLM prints transformers' "Loading weights" bar
    quiet = _build_until(small_docs, "out-quiet", "-q", until="embed")
    assert quiet.returncode == 0, quiet.stderr
    assert "Loading weights" not in quiet.stderr and quiet.stderr == ""


def test_control_characters_in_names_never_reach_the_terminal(tmp_path):
    """A folder or file named with escape sequences (set the title, clear the screen) is printed escaped."""
    from click.testing import CliRunner

    from qagen.cli import cli

    hostile = tmp_path / "bad\x1b]0;PWNED\x07\x1b[2J"
    result = CliRunner().invoke(cli, ["inspect", str(hostile)], prog_name="qagen")
    assert result.exit_code != 0
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "bad\\x1b]0;PWNED\\x07\\x1b[2J" in result.output  # still there, readable


def test_a_path_the_system_refuses_is_one_line_naming_it(tmp_path):
    """An OSError with a path (here: making a folder under /proc) is one line with the path and the errno."""
    from click.testing import CliRunner

    from qagen.cli import cli

    if not Path("/proc/self").exists():
        pytest.skip("needs /proc")
    docs = Path(__file__).resolve().parents[1] / "examples" / "docs"
    result = CliRunner().invoke(cli, ["build", str(docs), "-o", "/proc/qagen-out"], prog_name="qagen")
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert lines[-1].startswith("error: cannot use /proc/qagen-out: ") and "(ENOENT)" in lines[-1]
