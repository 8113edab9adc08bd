"""Optional test dependencies (Chromium, the ragas/DeepEval environment): skipped locally, required in CI.

``.ci/run`` sets ``CI=1`` and installs them, so a missing one there is a failure, not a silent skip.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail when running in CI (where the dependency must be present)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI=1: .ci/run should have installed it)")
    pytest.skip(reason)
