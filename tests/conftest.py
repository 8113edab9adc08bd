"""Shared fixtures: paths to the repo's examples and to ../shared (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
SHARED = ROOT.parent / "shared"

# Tests never reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def shared_dir() -> Path:
    if not (SHARED / "corpora").is_dir():
        pytest.skip(f"{SHARED / 'corpora'} is absent (real PDFs live beside the repo)")
    return SHARED


@pytest.fixture(scope="session")
def fast_example_build(tmp_path_factory) -> Path:
    """One build of the examples with the fast stand-ins (tests/support/fast.py), shared by the modules
    that only read it; a test that changes files works on a copy."""
    from qagen import build
    from tests.support.fast import FAST

    out = tmp_path_factory.mktemp("fast-example-build") / "out"
    build(EXAMPLES, out, overrides=FAST)
    return out
