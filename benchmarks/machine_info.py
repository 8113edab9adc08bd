"""What a benchmark result records about where it ran (shared by the benchmark scripts)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def machine() -> dict[str, Any]:
    """Cores, Python, the commit and its modified files, and the load average now."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    return {
        "nproc": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "commit": git("rev-parse", "--short", "HEAD").strip(),
        "modified_files": [ln[3:] for ln in git("status", "--porcelain", "--untracked-files=no").splitlines()],
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }
