"""`import qagen` and `qagen --help` stay light: no torch, BERTopic, UMAP, pdfplumber or openai."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ["torch", "bertopic", "umap", "hdbscan", "sentence_transformers", "pdfplumber", "openai", "langchain_core"]


def _loaded_after(code: str) -> list[str]:
    probe = code + f"\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_import_qagen_is_light():
    assert _loaded_after("import qagen, qagen.config, qagen.records, qagen.io") == []


def test_cli_help_is_light():
    code = (
        "from click.testing import CliRunner\nfrom qagen.cli import cli\n"
        "r = CliRunner().invoke(cli, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "r = CliRunner().invoke(cli, ['build', '--help'])\nassert r.exit_code == 0, r.output"
    )
    assert _loaded_after(code) == []


def test_console_script_help_runs():
    out = subprocess.run([sys.executable, "-m", "qagen.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "qagen build" in out.stdout
