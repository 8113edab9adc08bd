"""One error root: every error a user can act on is a QagenError, and the CLI turns it into one line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import qagen
from qagen.cli import cli
from qagen.config import ConfigError
from qagen.embed.base import EmbedError
from qagen.errors import QagenError, UsageError
from qagen.generate.prompts import PromptError
from qagen.ingest import IngestError, NoUsableDocumentsError
from qagen.io import OutputFolderError
from qagen.llm.base import AuthLLMError, LLMError, TransientLLMError
from qagen.llm.registry import LLMSpecError
from qagen.review.labels import ReviewError
from qagen.runner import BuildError
from qagen.score.answers import ScoreError
from qagen.topics.grid import GridError

USER_ERRORS = {
    ConfigError: ValueError,
    GridError: ValueError,
    IngestError: ValueError,
    NoUsableDocumentsError: ValueError,
    OutputFolderError: ValueError,
    PromptError: ValueError,
    ReviewError: ValueError,
    ScoreError: ValueError,
    LLMSpecError: ValueError,
    BuildError: RuntimeError,
    EmbedError: RuntimeError,
    LLMError: Exception,
    AuthLLMError: Exception,
    TransientLLMError: Exception,
}


@pytest.mark.parametrize("cls", list(USER_ERRORS), ids=lambda c: c.__name__)
def test_every_user_facing_error_is_a_qagen_error_and_keeps_its_old_base(cls):
    assert issubclass(cls, QagenError) and issubclass(cls, USER_ERRORS[cls])
    assert cls.exit_code == (2 if cls in (ConfigError, GridError) else 1)
    assert issubclass(ConfigError, UsageError) and qagen.QagenError is QagenError


def test_the_cli_prints_one_line_and_the_exit_code_of_any_qagen_error(tmp_path):
    runner = CliRunner()
    done = runner.invoke(cli, ["build", str(tmp_path / "nowhere"), "-o", str(tmp_path / "out")])
    assert done.exit_code == 1 and done.output.startswith("error: documents folder not found")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text about a thing that is long enough.\n")
    done = runner.invoke(cli, ["build", str(docs), "-o", str(tmp_path / "out"), "--set", "pages.nonsense=1"])
    assert done.exit_code == 2 and done.output.startswith("error: ") and len(done.output.strip().splitlines()) == 1


def test_a_cost_limit_without_a_price_stops_before_anything_runs(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    docs = Path(__file__).resolve().parents[1] / "examples" / "docs"
    out = tmp_path / "out"
    args = ["build", str(docs), "-o", str(out), "--llm", "openai:mystery-model@http://127.0.0.1:9/v1",
            "--set", "llm.max_cost_usd=1"]  # fmt: skip
    result = CliRunner().invoke(cli, args, prog_name="qagen")
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert result.exit_code != 0 and len(lines) == 1, result.output
    assert lines[0].startswith("error: llm.max_cost_usd needs a price for model 'mystery-model'")
    assert "Traceback" not in result.output and not (out / "manifest.json").exists()  # nothing parsed or written
    priced = ["--set", "llm.prices.mystery-model=[0.1, 0.2]", "--dry-run"]
    assert "needs a price" not in CliRunner().invoke(cli, [*args, *priced], prog_name="qagen").output
