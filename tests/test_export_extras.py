"""The ragas and DeepEval exports load in the real libraries.

ragas and DeepEval pin versions of openai, click and pytest plugins that clash with qagen's own
test environment, so they live in a separate virtual environment, ``.venv-exports`` (made by
``.ci/run``; see the README). This test runs the two loading tests of ``test_export.py`` there.
Outside CI it skips, with the command to make that environment, when it is absent.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = Path(os.environ.get("QAGEN_EXPORTS_PYTHON", ROOT / ".venv-exports" / "bin" / "python"))
HINT = "make it with: bash .ci/exports-venv"


def test_ragas_and_deepeval_load_the_exports():
    if not PYTHON.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{PYTHON} is missing in CI; .ci/run should have made it ({HINT})")
        pytest.skip(f"no ragas/DeepEval environment at {PYTHON}; {HINT}")
    env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    proc = subprocess.run(
        [
            str(PYTHON),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_export.py",
            "-k",
            "ragas_evaluation_dataset_loads or deepeval_goldens_load",
            "-rs",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "2 passed" in proc.stdout, proc.stdout[-2000:]
