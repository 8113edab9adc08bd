"""Issue 47's second round of bad inputs: each kind that failed (a traceback, a silent wrong number, lost or
overwritten files) is one clear line now. The table of kinds tried is in benchmarks/README.md."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from qagen.cli import cli
from qagen.config import ConfigError, load_config
from qagen.errors import DamagedFileError
from qagen.io import iter_jsonl, read_bounded, read_json
from qagen.score import ScoreError, score
from qagen.score.answers import load_answers
from tests.support.review_data import make_build
from tests.support.score_data import ANSWERS, BagOfWords, make_out, write_answers

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "docs"


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="qagen")


def one_error_line(result, says: str) -> None:
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith(("error:", "Error:"))]
    assert errors and says in result.output, result.output


def test_a_negative_review_seed_is_refused_by_the_command_line(tmp_path):
    one_error_line(run("review", "export", tmp_path, "--to", tmp_path / "r.csv", "--sample", 5, "--seed", -1), "-1")


def test_more_reviewers_than_items_writes_no_empty_files(tmp_path):
    out = make_build(tmp_path / "out")
    n_items = sum(1 for _ in iter_jsonl(out / "items.jsonl"))
    result = run("review", "export", out, "--to", tmp_path / "rev" / "review.csv", "--reviewers", n_items + 5)
    one_error_line(result, "would get an empty file")
    assert not (tmp_path / "rev").exists() or not any((tmp_path / "rev").iterdir())


def test_an_endless_or_oversized_input_is_refused_before_it_fills_memory(tmp_path):
    with pytest.raises(DamagedFileError, match="larger than"):
        read_bounded("/dev/zero", 1 << 20, "review file")
    small = tmp_path / "a.csv"
    small.write_bytes(b"x" * 10)
    assert read_bounded(small, 10) == b"x" * 10


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("cost_usd", 1e308, "cost_usd"), ("latency_s", 1e308, "latency_s"), ("answer", "\ud800 lone", "surrogate")],
)
def test_answers_a_scorer_cannot_add_up_or_encode_are_invalid_lines(tmp_path, field, value, says):
    out = make_out(tmp_path / "out")
    rows = [dict(a, **{field: value}) for a in ANSWERS]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # ensure_ascii keeps \ud800
    with pytest.raises(ScoreError, match=says):
        score(out, path, judge="embedding", embedder=BagOfWords())
    assert not (out / "scores.items.jsonl").exists()  # nothing half-written


def test_an_infinite_index_time_is_refused(tmp_path):
    one_error_line(run("score", tmp_path, "--answers", tmp_path / "a.jsonl", "--index-seconds", "inf"), "inf")
    with pytest.raises(ConfigError, match="index_cost_usd"):
        load_config(None, ["score.index_cost_usd=inf"])


def test_answers_can_come_through_a_pipe(tmp_path):
    fifo = tmp_path / "answers.pipe"
    os.mkfifo(fifo)
    text = "".join(json.dumps(a) + "\n" for a in ANSWERS)

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert len(load_answers(fifo)) == len(ANSWERS)
    finally:
        writer.join(timeout=10)
    with pytest.raises(FileNotFoundError, match="'-' is no file"):
        load_answers("-")


@pytest.mark.parametrize(("reported", "counted"), [(10**30, 0), (-18_000_000, 0), (float("nan"), 0), (1234, 1234)])
def test_token_counts_no_server_could_mean_are_not_counted(reported, counted):
    from qagen.llm.openai_backend import _usage

    usage = _usage({"prompt_tokens": reported, "completion_tokens": 5})
    assert (usage.prompt_tokens, usage.completion_tokens) == (counted, 5)


def test_a_document_name_cannot_print_a_console_line_of_its_own(tmp_path):
    from qagen.formatting import one_line_name

    assert one_line_name("faq\nerror: fake.txt") == "faq\\nerror: fake.txt"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq\nerror: fake.txt").write_text("# FAQ\n\nPress the reset button for ten seconds.\n", encoding="utf-8")
    (docs / "bad\nskipped everything.bin").write_text("plain text", encoding="utf-8")
    result = run("build", docs, "-o", tmp_path / "out", "--until", "parse", "-v")
    assert result.exit_code == 0, result.output
    assert not any(line.startswith(("error: fake", "skipped everything")) for line in result.output.splitlines())
    assert "faq\\nerror: fake.txt" in result.output


def _zero_page_pdf() -> bytes:
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


def test_a_pdf_with_no_pages_is_named_so_and_never_called_encrypted(tmp_path):
    from qagen.ingest.model import DocumentError
    from qagen.ingest.pdfium import PdfiumReader, _has_encrypt_dictionary

    pdf = tmp_path / "zero.pdf"
    pdf.write_bytes(_zero_page_pdf())
    assert not _has_encrypt_dictionary(pdf)
    with pytest.raises(DocumentError) as caught:
        PdfiumReader(pdf)
    assert "may have no pages" in str(caught.value) and "password" not in str(caught.value)


@pytest.mark.parametrize(
    ("setting", "says"),
    [("parse.timeout_s=1e12", "86400"), ("parse.timeout_s=inf", "86400"), ("parse.workers=100000", "256")],
)
def test_limits_no_machine_can_honour_are_refused_before_parsing(setting, says):
    with pytest.raises(ConfigError, match=says):
        load_config(None, [setting])


def test_a_config_with_a_bom_loads_and_one_nested_too_deeply_is_one_line(tmp_path):
    bom = tmp_path / "bom.toml"
    bom.write_bytes("\ufeff[parse]\nworkers = 2\n".encode())
    assert load_config(bom).parse.workers == 2
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(deep)


def test_an_unknown_embedder_stops_a_build_before_parsing(tmp_path):
    result = run("build", EXAMPLES, "-o", tmp_path / "out", "--set", "embed.backend=nosuch")
    one_error_line(result, "embed.backend must be one of")
    assert not (tmp_path / "out" / "documents.jsonl").exists()
    out = make_out(tmp_path / "scored")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    with pytest.raises(ConfigError, match=r"score\.embedder"):
        score(out, answers, judge="embedding", embedder="nosuch")


def test_exports_of_two_formats_in_turn_into_one_folder(tmp_path):
    out = make_out(tmp_path / "out")
    dest = tmp_path / "exp"
    for fmt in ("csv", "ragas", "csv"):
        result = run("export", out, "--format", fmt, "-o", dest)
        assert result.exit_code == 0 and result.output.startswith("wrote "), result.output
    listed = set(json.loads((dest / "exports.json").read_text())["files"])
    run("export", out, "--format", "csv", "-o", tmp_path / "csv_only")
    csv_only = set(json.loads((tmp_path / "csv_only" / "exports.json").read_text())["files"])
    assert csv_only < listed  # the ragas files are still listed beside the csv ones


@pytest.mark.parametrize("name", ["items.jsonl", "manifest.json"])
def test_a_damaged_artifact_is_one_line_naming_it(tmp_path, name):
    path = tmp_path / name
    path.write_text('{"id": "a"}\n{"id": "b", "question": "cut sho', encoding="utf-8")
    reader = read_json if name.endswith(".json") else (lambda p: list(iter_jsonl(p)))
    with pytest.raises(DamagedFileError, match=f"{name}: line 2 is not valid JSON"):
        reader(path)
    assert issubclass(DamagedFileError, ValueError)  # code that caught ValueError still does


def test_a_damaged_crosseval_is_one_line_for_score(tmp_path):
    out = make_out(tmp_path / "out")
    (out / "crosseval.json").write_text('{"iterations": [', encoding="utf-8")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    one_error_line(run("score", out, "--answers", answers), "crosseval.json: line 1 is not valid JSON")


def test_a_judge_that_fails_every_request_leaves_score_incomplete(tmp_path):
    out = make_out(tmp_path / "out")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    empty = tmp_path / "no_replies"  # a recording with no reply: every judge request fails
    empty.mkdir()
    result = run(
        "score", out, "--answers", answers, "--judge", f"replay:{empty}", "--set", "score.embedder=tfidf", "-q"
    )
    assert result.exit_code == 3 and "Traceback" not in result.output, result.output
    assert "incomplete:" in result.output and "judgement(s) failed" in result.output
    assert (out / "scores.json").is_file()  # the graded part is kept


def test_a_rerun_asks_judgements_whose_replies_were_invalid_again(tmp_path):
    """Case 39: the judge server answers prose, is fixed, and the user reruns as the warning says: the
    failed judgements are asked again and graded (they had been replayed from the cache as failures)."""
    from tests.support.llm_server import FakeOpenAIServer, default_responder

    broken = {"on": True}

    def respond(body):
        return "Sure! I think the answer is the first one." if broken["on"] else default_responder(body)

    out = make_out(tmp_path / "out")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    with FakeOpenAIServer(respond) as server:
        args = ("score", out, "--answers", answers, "--judge", f"openai:fake-model@{server.url}",
                "--set", "score.embedder=tfidf", "--set", "llm.backoff_base_s=0.01", "-q")  # fmt: skip
        first = run(*args)
        assert first.exit_code == 3 and "incomplete:" in first.output, first.output
        judge = json.loads((out / "scores.json").read_text())["overall"]["mcq"]["judge"]
        assert judge["failed"] > 0 and judge["graded"] == 0
        asked = server.count()
        broken["on"] = False
        second = run(*args)
        assert second.exit_code == 0 and "incomplete:" not in second.output, second.output
        assert server.count() > asked  # asked again, not replayed from the cache
        judge = json.loads((out / "scores.json").read_text())["overall"]["mcq"]["judge"]
        assert "failed" not in judge and judge["accuracy"] is not None


def test_a_judge_keeps_invalid_replies_cached_only_when_the_user_says_so():
    from qagen.score.judge import judge_llm_config

    assert judge_llm_config(load_config(None, []).llm).cache_failures is False
    assert judge_llm_config(load_config(None, ["llm.cache_failures=true"]).llm).cache_failures is True
    assert load_config(None, []).llm.cache_failures is True  # a build still replays its invalid replies
