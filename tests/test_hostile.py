"""Hostile folders and careless use (issue 23): names, links, encodings, formulas, secrets, output targets.

A documents folder that came from somewhere else (a zip, a share, a checkout) is built end to
end: a file name that is not UTF-8, symbolic links out of the folder (to a file, to a folder),
a dangling link, a link loop, a link inside the folder, UTF-16 and cp1252 text, spreadsheet
formulas and script markup in the text, a qagen report, an old export folder, a named pipe, and
the build's own output folder inside the documents. Each case is asserted on its one-line
message, and on what was read (nothing from outside the folder reaches any artifact) and written
(nothing outside the output folder changes). Then: every output-target mistake is one line; every
CSV writer guards formulas; credentials in an endpoint URL and the API key appear in no file a
build, a dry run, ``inspect``, ``report`` or ``score`` writes and nothing they print;
``scores.json`` and its rows are one unit; the review hint is shell-quoted.
``test_zz_hostile_report`` prints what each case gave, like the fault suite's report.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qagen.ingest.text import decode_text
from qagen.io import read_json
from tests.support.grounded import grounded_responder
from tests.support.llm_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
FAST = ["embed.backend=tfidf", "topics.reducer=pca", "topics.clusterer=kmeans", "topics.n_clusters=4"]
GOOD_DOCS = ("patient_rights_and_complaints.md", "remote_work_policy.md", "linkhaven_faq.txt", "it_helpdesk.pdf")
OUTSIDE_MARK = "Zanzibar-7F3A-outside"  # text only the files outside the documents folder hold
NON_UTF8_NAME = b"caf\xe9-menu.txt"
SECRET_PW = "hunter2pw"
SECRET_KEY = "sk-test-4b1d-SECRETKEY"
TFIDF_JUDGE = ("--judge", "embedding:tfidf", "--set", "score.embedder=tfidf")

CAFE = (
    "Cafe menu\n\nOpening hours\n\nThe caf\xe9 on the ground floor opens at 8 am every weekday and closes at 6 pm. "
    "On Saturdays it opens at 9 am and closes at 2 pm.\n\nPayment\n\nThe caf\xe9 takes cards and "
    "contactless payment; cash is not accepted after 4 pm.\n"
)
PRINTER = (
    "Printer guide\n\nPaper jams\n\nIf the paper jams, open the rear cover and pull the sheet out slowly with "
    "both hands. Close the cover and press the green button to resume printing.\n\nToner\n\nReplace the toner "
    "cartridge when the orange light blinks twice; used cartridges go in the recycling box at reception.\n"
)
FORMULAS = """# Spreadsheet help desk

## Closing tickets

=HYPERLINK("http://evil.example/x","click") is the link the help desk pastes when a ticket is closed.

## Pasted commands

+cmd|' /C calc'!A0 is a string that attackers paste into a cell to start a program.

## Sums

@SUM(A1:A2) adds the two cells above it in the shared budget sheet.
"""
MARKUP = """<!DOCTYPE html><html><head><title>Parking rules</title></head><body>
<h1>Parking rules</h1>
<script>alert('pwned-by-script')</script>
<h2>Visitor parking</h2>
<p>Visitors park in garage P2 on level minus one; the first two hours are free with a stamped ticket.</p>
<img src="x" onerror="alert('pwned-by-onerror')">
<h2>Staff parking</h2>
<p>Staff park in garage P4 and show their badge at the barrier; night shifts may use P2 after 8 pm.</p>
</body></html>
"""


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def write_hostile_corpus(root: Path) -> dict[str, Any]:
    """The documents folder ``root/docs`` and, beside it, ``root/outside`` that links point into."""
    docs, outside = root / "docs", root / "outside"
    for name in GOOD_DOCS:
        _write(docs / name, (EXAMPLES / name).read_bytes())
    _write(outside / "passwd", f"root:x:0:0:{OUTSIDE_MARK}:/root:/bin/bash\n")
    _write(outside / "etc" / "secrets.md", f"# Secrets\n\n## Keys\n\nThe vault code is {OUTSIDE_MARK}.\n")
    os.symlink(outside / "passwd", docs / "notes.txt")
    os.symlink(outside / "etc", docs / "etc-link")
    os.symlink(root / "nowhere" / "file.md", docs / "dangling.md")
    (docs / "sub").mkdir()
    os.symlink(docs, docs / "sub" / "loop")
    os.symlink(docs / "remote_work_policy.md", docs / "sub" / "policy-link.md")
    _write(Path(os.fsdecode(bytes(docs) + b"/" + NON_UTF8_NAME)), CAFE.encode("cp1252"))
    _write(docs / "printer-utf16.txt", PRINTER.encode("utf-16"))  # with a byte order mark
    _write(docs / "cafe-cp1252.txt", CAFE.replace("Cafe menu", "Staff cafe").encode("cp1252"))
    _write(docs / "formulas.md", FORMULAS)
    _write(docs / "parking.html", MARKUP)
    _write(docs / "old-report.html", '<!DOCTYPE html><html><head><meta name="generator" content="qagen 0.1">'
           "<title>qagen report</title></head><body><h1>Items</h1><p>What is a fold?</p></body></html>")  # fmt: skip
    _write(docs / "old-export" / "exports.json", json.dumps({"format": "hf", "iterations": []}))
    _write(docs / "old-export" / "README.md", "# qagen export\n\n## Loading\n\nload_dataset(DIR) loads it.\n")
    os.mkfifo(docs / "pipe.txt")
    return {"docs": docs, "outside": outside}


def tree_state(folder: Path, skip: Path | None = None) -> dict[str, str]:
    """Every entry under ``folder`` (links not followed) with its content hash or link target."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        if skip is not None and here == skip:
            dirnames[:] = []
            continue
        dirnames[:] = [d for d in dirnames if skip is None or here / d != skip]
        for name in sorted(dirnames + filenames):
            path = here / name
            key = os.fsencode(path.relative_to(folder)).hex()
            if path.is_symlink():
                state[key] = "link:" + os.readlink(path)
            elif path.is_file():  # never a named pipe: opening one would wait for a writer
                state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                state[key] = "folder, pipe or socket"
    return state


def all_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def qagen(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "qagen.cli", *args],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def sets(overrides: list[str]) -> list[str]:
    return [arg for item in overrides for arg in ("--set", item)]


def one_error_line(done: subprocess.CompletedProcess) -> str:
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert done.returncode in (1, 2), done.stderr[-2000:]
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def tally() -> dict[str, Any]:
    return {"cases": []}


def record(tally: dict[str, Any], case: str, outcome: str) -> None:
    tally["cases"].append({"case": case, "outcome": outcome})


# --------------------------------------------------------------------------- 1. the hostile folder


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("hostile")
    corpus = write_hostile_corpus(root)
    docs = corpus["docs"]
    out = docs / "qagen-out"  # the build's own output folder inside the documents folder
    before = {"docs": tree_state(docs, skip=out), "outside": tree_state(corpus["outside"])}
    # short pages, so that these small documents are not one page each (a page may not straddle two folds)
    args = ["build", str(docs), "-o", str(out), *sets([*FAST, "folds.samples_total=80", "pages.target_tokens=60"])]
    first = qagen(*args, "-v")
    second = qagen(*args)  # a rerun: nothing crashes, nothing of the first build is read as a document
    return {**corpus, "out": out, "first": first, "second": second, "before": before, "args": args}


def skipped(out: Path) -> dict[str, str]:
    return {x["path"]: x["reason"] for x in read_json(out / "manifest.json")["stages"]["parse"]["skipped_files"]}


def documents(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["path"]: r for r in rows}


def test_the_hostile_folder_builds_and_reruns(hostile, tally):
    first, second = hostile["first"], hostile["second"]
    assert first.returncode == 0, first.stderr[-3000:]
    assert second.returncode == 0, second.stderr[-3000:]
    assert "Traceback" not in first.stderr + second.stderr
    assert "9 unchanged and skipped" in second.stderr, second.stderr[-2000:]
    items = (hostile["out"] / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(items) >= 20
    record(tally, "whole build, then a rerun", f"exit 0 twice; {len(items)} items; the rerun skipped all 9 stages")


def test_a_name_that_is_not_utf8_is_parsed_under_a_safe_name(hostile, tally):
    docs = documents(hostile["out"])
    assert "caf\\xe9-menu.txt" in docs and docs["caf\\xe9-menu.txt"]["status"] == "ok"
    sections = (hostile["out"] / "sections.jsonl").read_text(encoding="utf-8")
    assert '"doc_path":"caf\\\\xe9-menu.txt"' in sections and "opens at 8 am" in sections
    record(tally, "file name not UTF-8", "parsed as caf\\xe9-menu.txt (display name); the file is read by its bytes")


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("notes.txt", "symbolic link to a file outside the documents folder"),
        ("etc-link", "symbolic link to a folder outside the documents folder"),
        ("dangling.md", "dangling symbolic link"),
        ("sub/loop", "symbolic link loop"),
        ("pipe.txt", "not a regular file"),
        ("old-report.html", "a qagen report or review form"),
    ],
)
def test_each_left_out_entry_is_listed_once_with_its_reason(hostile, tally, path, says):
    reasons = skipped(hostile["out"])
    assert says in reasons[path], reasons
    line = f"skipped {path}: {reasons[path]}"
    assert hostile["first"].stderr.count(line) == 1, hostile["first"].stderr[-3000:]
    assert "\n" not in reasons[path]
    record(tally, path, reasons[path])


def test_nothing_from_outside_the_folder_is_read_into_any_output(hostile, tally):
    out = hostile["out"]
    leaked = [name for name, data in all_bytes(out).items() if OUTSIDE_MARK.encode() in data]
    assert leaked == []
    assert OUTSIDE_MARK not in hostile["first"].stdout + hostile["first"].stderr
    # the old export folder and the build's own outputs are no documents, on the first build or the rerun
    paths = set(documents(out))
    assert not any(p.startswith(("old-export/", "qagen-out/")) for p in paths), paths
    assert not any(p.startswith(("old-export/", "qagen-out/")) for p in skipped(out))
    record(tally, "links out, own output, old export", "nothing of them in any artifact or message")


def test_nothing_outside_the_output_folder_was_written(hostile, tally):
    docs, out = hostile["docs"], hostile["out"]
    assert tree_state(docs, skip=out) == hostile["before"]["docs"]
    assert tree_state(hostile["outside"]) == hostile["before"]["outside"]
    record(tally, "writes", "the documents folder and the link targets are unchanged")


def test_a_link_inside_the_folder_is_followed_and_its_copy_reported(hostile, tally):
    problems = {p["path"]: p for p in read_json(hostile["out"] / "manifest.json")["stages"]["parse"]["errors"]}
    assert problems["sub/policy-link.md"]["reason"] == "duplicate"
    assert "remote_work_policy.md" in problems["sub/policy-link.md"]["detail"]
    record(tally, "sub/policy-link.md", problems["sub/policy-link.md"]["detail"])


def test_text_encodings_are_found_and_reported_per_file(hostile, tally):
    docs = documents(hostile["out"])
    assert docs["printer-utf16.txt"]["encoding"] == "utf-16-le (BOM)"
    assert docs["cafe-cp1252.txt"]["encoding"] == "cp1252 (detected)"
    assert docs["formulas.md"]["encoding"] == "utf-8"
    sections = [json.loads(x) for x in (hostile["out"] / "sections.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not any("\x00" in s["heading"] + s["text"] for s in sections)
    printer = " ".join(s["text"] for s in sections if s["doc_path"] == "printer-utf16.txt")
    assert "pull the sheet out slowly" in printer
    cafe = " ".join(s["text"] for s in sections if s["doc_path"] == "cafe-cp1252.txt")
    assert "The café on the ground floor" in cafe
    assert "parse: printer-utf16.txt: ok" in hostile["first"].stderr and "utf-16-le (BOM)" in hostile["first"].stderr
    found = [f"{k}: {docs[k]['encoding']}" for k in ("printer-utf16.txt", "cafe-cp1252.txt")]
    record(tally, "encodings", ", ".join(found))


def test_script_markup_never_reaches_the_report_as_markup(hostile, tally):
    report = (hostile["out"] / "report.html").read_text(encoding="utf-8")
    assert "alert('pwned" not in report
    sections = (hostile["out"] / "sections.jsonl").read_text(encoding="utf-8")
    assert "pwned" not in sections and "garage P2" in sections
    record(tally, "parking.html", "script and event handlers dropped; its text kept")


def test_the_csv_export_of_the_hostile_build_has_no_live_formula(hostile, tmp_path, tally):
    dest = tmp_path / "csv"
    done = qagen("export", str(hostile["out"]), "--format", "csv", "-o", str(dest))
    assert done.returncode == 0, done.stderr
    cells = [cell for f in dest.glob("*.csv") for row in csv.reader(f.open(encoding="utf-8")) for cell in row]
    assert any(c.startswith("'=HYPERLINK") or "=HYPERLINK" in c for c in cells)  # the text is there ...
    live = [c for c in cells if c.startswith(("=", "+", "@", "\t", "\r")) or (c.startswith("-") and not _number(c))]
    assert live == []  # ... but never as a formula
    record(tally, "formulas.md → qagen export --format csv", f"{len(cells)} cells, 0 starting with = + - @")


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- 2. output targets


def test_output_target_mistakes_are_one_line_and_create_nothing(tmp_path, tally):
    docs = tmp_path / "docs"
    for name in GOOD_DOCS[:2]:
        _write(docs / name, (EXAMPLES / name).read_bytes())
    (tmp_path / "afile").write_text("not a folder\n")
    before = tree_state(tmp_path)
    cases = {
        "-o DOCS": (str(docs), "is the documents folder"),
        "-o FILE": (str(tmp_path / "afile"), "is a file, not a folder"),
        "-o FILE/sub": (str(tmp_path / "afile" / "sub"), "afile is a file, not a folder"),
    }
    for case, (target, says) in cases.items():
        line = one_error_line(qagen("build", str(docs), "-o", target, "-q"))
        assert says in line, line
        record(tally, f"build {case}", line)
    line = one_error_line(qagen("export", str(tmp_path / "nothing"), "--format", "csv", "-o", str(tmp_path / "afile")))
    assert "export folder" in line and "is a file" in line, line
    record(tally, "export -o FILE", line)
    line = one_error_line(
        qagen("review", "export", str(tmp_path / "nothing"), "--to", str(tmp_path / "afile" / "r.csv"))
    )
    assert "review file" in line and "afile is a file" in line, line
    record(tally, "review export --to FILE/r.csv", line)
    assert tree_state(tmp_path) == before


@pytest.fixture()
def read_only_folder(tmp_path: Path):
    """A folder this process cannot write in: a read-only tmpfs for root, else mode 0555."""
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"root, and no read-only mount here: {done.stderr.strip()}")
        yield ro
        subprocess.run(["umount", str(ro)], check=False)
    else:
        ro.chmod(0o555)
        yield ro
        ro.chmod(0o755)


def test_an_output_folder_without_permission_is_one_line(tmp_path, read_only_folder, tally):
    docs = tmp_path / "docs"
    _write(docs / GOOD_DOCS[0], (EXAMPLES / GOOD_DOCS[0]).read_bytes())
    line = one_error_line(qagen("build", str(docs), "-o", str(read_only_folder / "out"), "-q"))
    assert "no permission to create" in line and str(read_only_folder) in line, line
    assert list(read_only_folder.iterdir()) == []
    record(tally, "build -o READ-ONLY/out", line)


# --------------------------------------------------------------------------- 3. CSV writers


FORMULA_CELLS = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "\t=1+1"]


def _guarded(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text.lstrip("\ufeff"))) for c in row]


def test_every_csv_writer_guards_formula_cells(tmp_path, tally):
    from qagen.commands.export import _csv_text
    from qagen.review.export import csv_text

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from unanswerable_audit import csv_rows
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    writers = {
        "qagen export --format csv": lambda rows: _csv_text(rows, ["question", "answer", "topic_id"]),
        "qagen review export (csv)": lambda rows: csv_text(rows, ["question", "answer", "topic_id"]),
        "benchmarks/unanswerable_audit.py --csv": lambda rows: csv_rows(rows),
    }
    rows = [{"question": cell, "answer": cell, "topic_id": -1} for cell in FORMULA_CELLS]
    for name, write in writers.items():
        cells = _guarded(write(rows))
        for cell in FORMULA_CELLS:
            assert "'" + cell in cells, (name, cell, cells)
            assert cell not in cells, (name, cell)
        assert "-1" in cells  # numbers stay numbers
        record(tally, f"CSV writer: {name}", f"{len(FORMULA_CELLS)} formula cells, each given a leading apostrophe")


@pytest.mark.parametrize("text", [*FORMULA_CELLS, "'=quoted", "'plain", "plain", "-", "'", ""])
def test_a_guarded_cell_reads_back_exactly(text):
    from qagen.io import safe_cell, unguard_cell

    assert unguard_cell(safe_cell(text)) == text
    assert not safe_cell(text).startswith(("=", "+", "-", "@", "\t", "\r"))


# --------------------------------------------------------------------------- 4. secrets


@pytest.fixture(scope="module")
def secret_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("secrets")
    docs = root / "docs"
    for name in GOOD_DOCS:
        _write(docs / name, (EXAMPLES / name).read_bytes())
    out = root / "out"
    # The server checks no key: httpx turns the URL's user:password into a Basic Authorization
    # header, which is what such a URL is for (an endpoint behind a password-protected proxy).
    with FakeOpenAIServer(responder=grounded_responder) as srv:
        url = srv.url.replace("http://", f"http://qagen:{SECRET_PW}@")
        overrides = [*FAST, "folds.samples_total=12", "pages.target_tokens=60", "llm.max_concurrency=2"]
        overrides.append(f'llm.backend="openai:fake-model@{url}"')
        env = {"OPENAI_API_KEY": SECRET_KEY}
        runs = {
            "dry run": qagen("build", str(docs), "-o", str(out), *sets(overrides), "--dry-run", "-v", env=env),
            "build": qagen("build", str(docs), "-o", str(out), *sets(overrides), "-v", env=env),
            "rerun": qagen("build", str(docs), "-o", str(out), *sets(overrides), env=env),
            "inspect": qagen("inspect", str(out), env=env),
            "report": qagen("report", str(out), env=env),
        }
        chat = srv.count("/v1/chat/completions")
    return {"out": out, "runs": runs, "chat": chat, "url": url}


def test_credentials_are_never_stored_or_printed(secret_build, tally):
    runs, out = secret_build["runs"], secret_build["out"]
    for name, done in runs.items():
        assert done.returncode == 0, (name, done.stderr[-2000:])
    assert secret_build["chat"] > 0  # the build really called the endpoint
    assert "would make" in runs["dry run"].stdout
    printed = "".join(d.stdout + d.stderr for d in runs.values())
    files = all_bytes(out)
    assert any(name.endswith("llm.sqlite") for name in files)  # the request cache is among the files searched
    for secret in (SECRET_PW, SECRET_KEY):
        assert secret not in printed
        assert [name for name, data in files.items() if secret.encode() in data] == []
    record(
        tally,
        "password in the base URL, key in the environment",
        f"{len(files)} files (cache included) and {len(runs)} commands' output: neither appears",
    )


def test_the_cache_key_does_not_depend_on_the_credentials():
    from qagen.llm import LLMEngine, LLMRequest, Message
    from qagen.llm.cache import request_key

    req = LLMRequest((Message("user", "hi"),))
    keys = set()
    for pw in ("one", "two"):
        eng = LLMEngine(f"openai:m@http://u:{pw}@127.0.0.1:9/v1?key={pw}")
        keys.add(request_key(eng._public_id, "m", req))
        assert pw not in eng.estimate([req])["backend"] and pw not in eng.stats.backend
    assert len(keys) == 1


def test_an_llm_judge_is_named_without_credentials():
    from qagen.score.judge import LLMJudge

    judge = LLMJudge(f"openai:m@http://u:{SECRET_PW}@127.0.0.1:9/v1")
    assert SECRET_PW not in judge.name and "127.0.0.1:9/v1" in judge.name


def test_an_openai_embedder_is_named_without_credentials():
    from qagen.embed.openai_embed import OpenAIEmbedder

    emb = OpenAIEmbedder("e", base_url=f"http://u:{SECRET_PW}@127.0.0.1:9/v1")
    assert emb.id == "openai:e@127.0.0.1:9/v1"


# --------------------------------------------------------------------------- 5. results written as one unit


def _answers(out: Path, text: str) -> Path:
    from qagen.score import collect

    path = out.parent / f"answers-{len(text)}.jsonl"
    collect(out, lambda question, pages: text, path, progress=False)
    return path


def test_scores_and_their_rows_are_one_unit(hostile, tmp_path, tally):
    out = tmp_path / "out"
    shutil.copytree(hostile["out"], out, symlinks=True)
    first = qagen("score", str(out), "--answers", str(_answers(out, "I cannot answer that.")), *TFIDF_JUDGE)
    assert first.returncode == 0, first.stderr[-2000:]
    scores = read_json(out / "scores.json")
    assert scores["rows_file"]["path"] == "scores.items.jsonl"
    assert scores["rows_file"]["rows"] == len((out / "scores.items.jsonl").read_text().splitlines())
    old = (out / "scores.json").read_bytes()
    (out / ".scores.json.k1ll3d.tmp").write_text("{")  # what a kill during a write leaves
    second = qagen("score", str(out), "--answers", str(_answers(out, "Garage P2, two hours free.")), *TFIDF_JUDGE)
    assert second.returncode == 0, second.stderr[-2000:]
    assert not (out / ".scores.json.k1ll3d.tmp").exists()
    assert "does not belong" not in qagen("inspect", str(out)).stdout
    # a kill between the two renames: the new rows beside the old summary
    (out / "scores.json").write_bytes(old)
    shown = qagen("inspect", str(out)).stdout
    assert "warning: scores.items.jsonl does not belong to scores.json" in shown, shown[-1500:]
    assert qagen("report", str(out)).returncode == 0
    assert "The per-answer rows do not match these scores" in (out / "report.html").read_text(encoding="utf-8")
    record(tally, "scores.json beside another run's rows", "inspect and the report say so; stale temp file removed")


def test_a_review_import_removes_stale_temp_files(hostile, tmp_path):
    from qagen.commands.review import export_review, import_review

    out = tmp_path / "out"
    shutil.copytree(hostile["out"], out, symlinks=True)
    (out / ".reviews.jsonl.k1ll3d.tmp").write_text("[")
    files = export_review(out, tmp_path / "r.csv", sample=3).files
    rows = list(csv.DictReader(io.StringIO(Path(next(iter(files.values()))).read_text(encoding="utf-8-sig"))))
    label = next(k for k in rows[0] if k.startswith("correct"))
    for row in rows:
        row[label] = "x"
    with (tmp_path / "done.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import_review(out, [tmp_path / "done.csv"], reviewer="ann")
    assert not (out / ".reviews.jsonl.k1ll3d.tmp").exists() and (out / "reviews.jsonl").is_file()


def test_the_review_hint_is_shell_quoted(hostile, tmp_path, tally):
    odd = tmp_path / "my out $HOME; rm -rf x"
    shutil.copytree(hostile["out"], odd, symlinks=True)
    done = qagen("review", "export", str(odd), "--to", str(tmp_path / "it's review.csv"), "--sample", "3")
    assert done.returncode == 0, done.stderr
    hint = next(line for line in done.stdout.splitlines() if line.startswith("Then: "))
    words = shlex.split(hint.removeprefix("Then: "))
    assert words[:3] == ["qagen", "review", "import"] and words[3] == str(odd)
    assert words[4] == str(tmp_path / "it's review.csv")
    record(tally, "review hint", hint)


# --------------------------------------------------------------------------- 6. decoding, case by case


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        ("Grüße aus Köln\n".encode("utf-16-le"), "utf-16-le", "Grüße aus Köln"),
        ("\ufeffGrüße\n".encode("utf-16-be"), "utf-16-be (BOM)", "Grüße"),
        ("\ufeffGrüße\n".encode("utf-32-le"), "utf-32-le (BOM)", "Grüße"),
        ("\ufeffGrüße\n".encode(), "utf-8 (BOM)", "Grüße"),
        ("Grüße\n".encode(), "utf-8", "Grüße"),
        ("Le café est fermé le dimanche et ouvert le lundi à huit heures.\n".encode("cp1252"), None, "café est fermé"),
        ("El niño y la señora comen mañana en el café.\n".encode("cp1252"), "cp1252", "niño y la señora"),
        ("Zażółć gęślą jaźń, pisze pani Krystyna z Łodzi.\n".encode("cp1250"), "cp1250", "Zażółć gęślą jaźń"),
        ("Привет, как дела? Это тестовый текст на русском языке.\n".encode("cp1251"), "cp1251", "тестовый текст"),
        ("Café opening hours\n\nThe café opens at nine, naïve visitors.\n".encode("cp1252"), "cp1252", "naïve"),
    ],
)
def test_decoding_by_mark_then_utf8_then_detection(data, encoding, text):
    decoded, how = decode_text(data)
    assert text in decoded and "\x00" not in decoded
    if encoding is not None:
        assert how.startswith(encoding), how
    else:
        assert how.endswith("(detected)"), how


def test_html_declares_its_encoding():
    page = '<html><head><meta charset="iso-8859-7"></head><body><p>Καλημέρα</p></body></html>'.encode("iso-8859-7")
    decoded, how = decode_text(page, html=True)
    assert "Καλημέρα" in decoded and how == "iso-8859-7 (declared)"


# --------------------------------------------------------------------------- 7. the summary


def test_zz_hostile_report(tally, tmp_path_factory, capsys):
    """Print and save what each hostile case gave (run last; rows come from the tests above)."""
    path = tmp_path_factory.getbasetemp() / "hostile_report.json"
    path.write_text(json.dumps(tally, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    width = max((len(c["case"]) for c in tally["cases"]), default=10)
    lines = ["== qagen hostile-input suite =="]
    lines += [f"{c['case']:<{width}}  {c['outcome']}" for c in tally["cases"]]
    with capsys.disabled():
        print("\n" + "\n".join(lines) + f"\nhostile report written to {path}")
    assert tally["cases"]


def test_a_folder_of_links_to_outside_says_why_none_is_read(tmp_path):
    # a folder of symbolic links to PDFs elsewhere said "reads only .pdf, ..." of its .pdf files
    from qagen.ingest import IngestError, discover

    outside, docs = tmp_path / "outside", tmp_path / "docs"
    outside.mkdir()
    docs.mkdir()
    for name in ("a.pdf", "b.pdf"):
        (outside / name).write_bytes(b"%PDF-1.4\n")
        os.symlink(outside / name, docs / name)
    with pytest.raises(IngestError) as err:
        discover(docs, ["pdf", "txt", "md", "html"])
    message = str(err.value)
    assert "a.pdf: symbolic link to a file outside the documents folder" in message
    assert "parse.symlinks = 'follow'" in message and "reads only" not in message
