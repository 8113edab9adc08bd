"""The README's set-up commands stay true: .ci/run ends with exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    install_and_run, install_and_test = _bash_blocks(quick_start)[:2]
    assert "qagen build examples/docs" in install_and_run and "torch==2.13.0" in install_and_run
    assert install_and_test.endswith("-m pytest") and "torch==2.13.0" in install_and_test
    last = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert last == install_and_test


def test_the_readme_sample_outputs_are_a_fresh_builds(tmp_path):
    """The README's build summary and sample tables are what command 1's build prints and writes (offline
    defaults, MiniLM, UMAP + HDBSCAN); only the build's time may differ. When this fails after a change that
    moves items, regenerate both: qagen build examples/docs -o out 2>&1 | tee build.log, then
    python examples/sample_items.py out --readme README.md --summary build.log."""
    from click.testing import CliRunner

    from qagen.cli import cli
    from tests.support.scripts import load_example

    samples = load_example("sample_items")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(ROOT / "examples" / "docs"), "-o", str(out)], prog_name="qagen")
    assert result.exit_code == 0, result.output
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    def timeless(text: str) -> str:
        return re.sub(r"ran in [0-9][^,]*,", "ran in T,", text)

    fresh = f"```\n{samples.summary(result.output, str(out))}```\n"
    hint = "regenerate with examples/sample_items.py --readme (see this test's docstring)"
    assert timeless(samples.region(readme, "summary")) == timeless(fresh), hint
    assert samples.region(readme, "items") == samples.tables(out), hint
