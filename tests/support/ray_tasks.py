"""Functions the Ray executor's tests run as Ray tasks (importable by the cluster's workers)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def slow_square(x: int, marker_dir: str, seconds: float) -> int:
    """Write a marker with this worker's pid (one per attempt), wait, return x * x."""
    Path(marker_dir, f"{x}-{os.getpid()}").write_text(str(os.getpid()))
    time.sleep(seconds)
    return x * x


def fails(x: int) -> int:
    raise ValueError(f"bad input {x}")
