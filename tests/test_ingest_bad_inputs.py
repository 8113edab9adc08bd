"""Every kind of unusable input is reported with its reason and skipped; the build goes on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from qagen.config import ParseConfig
from qagen.ingest import IngestError, NoUsableDocumentsError, parse_documents
from qagen.ingest.parallel import run_isolated
from tests.support.bad_files import raw_pdf

pytest.importorskip("reportlab")

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

TOPICS = ["Parking", "Visiting hours", "Pharmacy", "Emergencies"]


def good_pdf(path: Path, encrypt: str | None = None, text: bool = True) -> Path:
    """A small real PDF: one topic per page, or only drawings when ``text`` is False."""
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    for i, topic in enumerate(TOPICS):
        if text:
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, 760, topic)
            c.setFont("Helvetica", 11)
            for k in range(12):
                c.drawString(72, 730 - 14 * k, f"{topic} rule {k + 1}: ask at the desk about {topic.lower()} ({i}).")
        else:  # what a scan looks like to a text extractor: pictures only
            c.rect(72, 300 + 10 * i, 400, 300, fill=1)
        c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad")
    good = good_pdf(root / "good.pdf")
    data = good.read_bytes()
    good_pdf(root / "encrypted.pdf", encrypt="secret")
    good_pdf(root / "scanned.pdf", text=False)
    (root / "truncated.pdf").write_bytes(data[: len(data) * 6 // 10])
    (root / "corrupt.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n")
    (root / "empty.pdf").write_bytes(b"")
    (root / "login-page.pdf").write_bytes(b"<!DOCTYPE html><html><body><p>Please sign in</p></body></html>")
    (root / "photo.pdf").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 200)
    # A MediaBox holding a string where a number must be: pdfplumber raises on the page; PDFium
    # falls back to a Letter page and reads its text (one letter here, so there is no body text).
    (root / "bad-mediabox.pdf").write_bytes(raw_pdf([b"BT /F1 12 Tf 72 700 Td (x) Tj ET"]).replace(b"612", b"(a)"))
    (root / "second-copy-of-good.pdf").write_bytes(data)
    return root


@pytest.fixture(scope="module", params=["pdfium", "pdfplumber"])
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def result(folder: Path, engine: str):
    paths = sorted(folder.glob("*.pdf"))
    return parse_documents(paths, folder, ParseConfig(workers=2, timeout_s=60, engine=engine))


def reason_of(result, name: str) -> str:
    return next(p.reason for p in result.problems if p.path == name)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("encrypted.pdf", "encrypted"),
        ("scanned.pdf", "no-text"),
        ("truncated.pdf", "truncated"),
        ("corrupt.pdf", "corrupt"),
        ("empty.pdf", "empty"),
        ("login-page.pdf", "not-pdf"),
        ("photo.pdf", "not-pdf"),
        ("bad-mediabox.pdf", "parser-error"),
        ("second-copy-of-good.pdf", "duplicate"),
    ],
)
def test_each_bad_input_is_reported_with_its_reason(result, engine: str, name: str, reason: str):
    if name == "bad-mediabox.pdf" and engine == "pdfium":
        reason = "no-text"  # read past the bad box: its single letter is no body text
    assert reason_of(result, name) == reason
    problem = next(p for p in result.problems if p.path == name)
    assert problem.detail  # a sentence saying what is wrong and what to do
    if reason != "duplicate":  # a duplicate is skipped, not failed
        doc = next(d for d in result.documents if d.path == name)
        assert doc.status == "failed"
        assert doc.error is not None and doc.error.startswith(reason)
        assert not [s for s in result.sections if s.doc_id == doc.id]


def test_the_good_document_still_parses(result):
    ok = [d for d in result.documents if d.status == "ok"]
    assert [d.path for d in ok] == ["good.pdf"]
    headings = [s.heading for s in result.sections]
    assert headings == TOPICS
    assert ok[0].n_pages == 4 and ok[0].n_sections == 4


def test_messages_say_what_to_do(result):
    details = {p.reason: p.detail for p in result.problems}
    assert "decrypt" in details["encrypted"]
    assert "OCR" in details["no-text"]
    assert "HTML" in details["not-pdf"] or "PNG" in details["not-pdf"]


def sleep_forever(_: int) -> int:
    time.sleep(3600)
    return 0


def echo(x: int) -> int:
    return x


def test_a_hung_task_is_stopped_and_the_others_finish():
    outcomes = run_isolated(sleep_forever, [(1,)], workers=1, timeout_s=1.0)
    assert outcomes[0].status == "timeout"
    outcomes = run_isolated(echo, [(1,), (2,), (3,)], workers=2, timeout_s=30)
    assert [o.value for o in outcomes] == [1, 2, 3]


def test_a_pdf_that_makes_the_parser_hang_times_out(tmp_path: Path):
    # Two million text operators compressed into a few kB: pdfminer would grind for minutes.
    slow = tmp_path / "slow.pdf"
    slow.write_bytes(raw_pdf([b"BT /F1 1 Tf 10 10 Td " + b"(ab) Tj " * 2_000_000 + b"ET"]))
    good = good_pdf(tmp_path / "good.pdf")
    # pdfplumber is the engine that grinds on it (PDFium reads it in about a second); the limit
    # is the worker's, whichever engine runs in it.
    config = ParseConfig(workers=2, timeout_s=2, timeout_per_page_s=0.5, engine="pdfplumber")
    result = parse_documents([slow, good], tmp_path, config)
    assert reason_of(result, "slow.pdf") == "timeout"
    assert "2.5 s" in next(p.detail for p in result.problems)  # 2 s + 0.5 s for its one page
    assert [d.status for d in result.documents] == ["failed", "ok"]


def test_no_usable_document_is_an_error_naming_the_reasons(folder: Path):
    paths = [folder / "encrypted.pdf", folder / "empty.pdf"]
    with pytest.raises(NoUsableDocumentsError, match=r"none of the 2 document\(s\) could be used") as info:
        parse_documents(paths, folder, ParseConfig(workers=1))
    assert "1 encrypted" in str(info.value) and "1 empty" in str(info.value)
    assert len(info.value.result.problems) == 2
    assert isinstance(info.value, IngestError) and isinstance(info.value, ValueError)


def test_empty_path_list_is_an_error(tmp_path: Path):
    with pytest.raises(IngestError, match="no documents"):
        parse_documents([], tmp_path, ParseConfig())


def _run_parse(docs: Path, paths: list[Path], cache: Path) -> tuple[object, list[str]]:
    """The parse stage as the runner calls it; returns its output and the console lines."""
    from qagen.config import Config
    from qagen.runner import BuildInputs, StageContext
    from qagen.stages.parse import run as run_parse

    lines: list[str] = []
    from qagen.ingest import scan

    config = Config(parse=ParseConfig(workers=1))
    skipped = tuple(scan(docs, config.parse.formats).skipped)  # as qagen.build finds them
    build = BuildInputs(docs_dir=docs, doc_paths=tuple(paths), skipped_files=skipped)
    ctx = StageContext({}, config, cache, build, log=lines.append)
    return run_parse(ctx), lines


def test_console_warnings_give_the_reason_and_its_detail(folder: Path, result, tmp_path: Path):
    paths = [folder / "good.pdf", folder / "truncated.pdf", folder / "encrypted.pdf"]
    _, lines = _run_parse(folder, paths, tmp_path / ".cache")
    for name in ("truncated.pdf", "encrypted.pdf"):
        problem = next(p for p in result.problems if p.path == name)
        assert f"warning: {name}: {problem.reason}: {problem.detail}" in lines


@pytest.fixture()
def mixed(tmp_path: Path) -> Path:
    """Documents named oddly, files that are no documents, and files that must not even be listed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "helpdesk").write_bytes(good_pdf(tmp_path / "g.pdf").read_bytes())  # a PDF without its extension
    (docs / "page.aspx").write_text("<!DOCTYPE html><html><body><h1>Parking</h1><p>Garage P2.</p></body></html>")
    (docs / "a.md").write_text("# Visiting hours\n\nFrom two to eight.\n")
    (docs / "notes").write_text("plain text without an extension\n")
    (docs / "data.csv").write_text("a,b\n1,2\n")
    (docs / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    (docs / "slides.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    (docs / ".hidden.pdf").write_bytes(good_pdf(tmp_path / "h.pdf").read_bytes())
    (docs / ".git").mkdir()
    (docs / ".git" / "x.html").write_text("<html><body>x</body></html>")
    (docs / "out").mkdir()  # an earlier build's output folder inside the documents folder
    (docs / "out" / "manifest.json").write_text('{\n  "schema_version": "1.0",\n  "stages": {}\n}\n')
    (docs / "out" / "report.html").write_text("<html><body>report</body></html>")
    (docs / "out" / "data.bin").write_bytes(b"\x00\x01")
    (docs / "running").mkdir()
    (docs / "running" / ".qagen.lock").write_text("")
    (docs / "running" / "report.html").write_text("<html><body>report</body></html>")
    return docs


def test_files_are_taken_by_content_and_the_rest_is_listed_with_a_reason(mixed: Path):
    from qagen.ingest import discover, scan_documents

    found = scan_documents(mixed, ["pdf", "txt", "md", "html"])
    assert [p.name for p in found.paths] == ["a.md", "helpdesk", "page.aspx"]
    reasons = dict(found.skipped)
    assert sorted(reasons) == ["data.csv", "notes", "photo.jpg", "slides.docx"]
    assert "rename it to .txt" in reasons["notes"] and "rename it to .txt" in reasons["data.csv"]
    assert "JPEG" in reasons["photo.jpg"] and "ZIP" in reasons["slides.docx"]
    assert [p.name for p in discover(mixed, ["pdf", "md"])] == ["a.md", "helpdesk"]
    skipped_html = dict(scan_documents(mixed, ["pdf", "md"]).skipped)["page.aspx"]
    assert "html" in skipped_html and "parse.formats" in skipped_html
    parsed = parse_documents(found.paths, mixed, ParseConfig(workers=1))
    assert [(d.path, d.format, d.status) for d in parsed.documents] == [
        ("a.md", "md", "ok"),
        ("helpdesk", "pdf", "ok"),
        ("page.aspx", "html", "ok"),
    ]


def test_the_parse_stage_lists_skipped_files_in_the_manifest_and_on_the_console(mixed: Path, tmp_path: Path):
    from qagen.ingest import discover

    out, lines = _run_parse(mixed, discover(mixed, ["pdf", "txt", "md", "html"]), tmp_path / ".cache")
    listed = out.info["skipped_files"]
    assert [x["path"] for x in listed] == ["data.csv", "notes", "photo.jpg", "slides.docx"]
    assert out.counts["skipped_files"] == 4
    assert f"skipped notes: {listed[1]['reason']}" in lines


def test_an_alarm_the_parser_swallowed_still_counts_as_a_timeout(tmp_path: Path):
    # Python prints and drops an exception raised inside __del__ or a callback; a parse the alarm
    # interrupted there runs on to the end, and must not be reported as a success.
    from qagen.ingest import worker

    def parse_swallowing_the_alarm(path, config, on_page_error=None, on_page_count=None):
        import signal
        import time

        try:
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            time.sleep(0.2)
        except BaseException:  # what a parser's broad handler (or Python's __del__ guard) does
            pass
        return "parsed anyway"

    out = worker.parse_file(str(tmp_path / "x.pdf"), ParseConfig(timeout_s=5).model_dump(), parse_swallowing_the_alarm)
    assert out["ok"] is False and out["reason"] == "timeout"
