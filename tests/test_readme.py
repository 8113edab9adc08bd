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
