"""The replay backend, and the LLM path end to end on a capable model's recorded replies."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from qagen.llm import get_llm
from qagen.llm.base import LLMRequest, LLMSpecError, Message
from qagen.llm.replay import MISSING, NoRecordedReply, ReplayLLM, content_key
from tests.support.fast import FAST_COMPONENTS

RECORDED = Path(__file__).resolve().parent / "data" / "recorded"
HELPDESK = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "helpdesk"
MANUALS = HELPDESK.parent / "manuals"
MULTILINGUAL = HELPDESK.parent / "multilingual"
SHORT_DOCS = HELPDESK.parent / "short-docs"


def _request(text: str, temperature: float = 0.7) -> LLMRequest:
    return LLMRequest((Message("user", text),), schema={"type": "object"}, temperature=temperature)


def test_replies_are_served_by_what_the_model_reads(tmp_path: Path) -> None:
    asked = _request("Which port takes the fibre box?")
    row = {"key": content_key(asked), "reply": '{"answer": "the WAN port"}'}
    (tmp_path / "replies.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    llm = get_llm(f"replay:{tmp_path}")
    assert isinstance(llm, ReplayLLM)
    # sampling settings are not part of what the model reads
    done = asyncio.run(llm.complete(_request("Which port takes the fibre box?", temperature=0.0)))
    assert done.text == '{"answer": "the WAN port"}' and done.usage.completion_tokens > 0


def test_a_request_with_no_reply_fails_and_is_listed_once(tmp_path: Path) -> None:
    llm = ReplayLLM(tmp_path)
    for _ in range(2):
        with pytest.raises(NoRecordedReply, match="no recorded reply"):
            asyncio.run(llm.complete(_request("Unrecorded?")))
    listed = [json.loads(line) for line in (tmp_path / MISSING).read_text().splitlines()]
    assert len(listed) == 1 and listed[0]["key"] == content_key(_request("Unrecorded?"))
    assert listed[0]["messages"] == [{"role": "user", "content": "Unrecorded?"}]
    # a second backend on the same folder does not list it again
    with pytest.raises(NoRecordedReply):
        asyncio.run(ReplayLLM(tmp_path).complete(_request("Unrecorded?")))
    assert len((tmp_path / MISSING).read_text().splitlines()) == 1


def test_a_bad_recording_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LLMSpecError, match="no recording folder"):
        ReplayLLM(tmp_path / "absent")
    (tmp_path / "replies.jsonl").write_text("not json\n")
    with pytest.raises(LLMSpecError, match="line 1 is not a recorded reply"):
        ReplayLLM(tmp_path)


# recording folder: corpus folder, build settings (the recording's README), generation-stage requests (with the
# label judge's), answerability judge requests, least items, languages. The fifth round (tests/data/recorded/
# PROVENANCE.md); the recordings of earlier prompts are in benchmarks/data/recorded/.
RECORDINGS = {
    "manuals_81": (MANUALS, ["folds.samples_total=20"], 45, 1, 40, {"en"}),
    "manuals_82": (MANUALS, ["folds.samples_total=20"], 44, 0, 40, {"en"}),
    "manuals_83": (MANUALS, ["folds.samples_total=20"], 44, 1, 40, {"en"}),
    "manuals_84": (MANUALS, ["folds.samples_total=30"], 66, 0, 60, {"en"}),
    "shortdocs_r5": (SHORT_DOCS, ["folds.samples_total=30"], 60, 1, 55, {"en"}),
    "helpdesk_b_r5": (HELPDESK, ["folds.samples_total=24"], 42, 0, 35, {"en", "de", "fr"}),
    "multilingual_r5": (MULTILINGUAL, ["folds.samples_total=30"], 67, 14, 60, {"nl", "it", "es", "en"}),
    # a size target (issue 43): every section the folds keep is asked in one round
    "helpdesk_en_size50": (HELPDESK, ["generate.questions=50"], 188, 19, 190, {"en"}),
}


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_the_llm_path_end_to_end_on_recorded_replies(tmp_path: Path, name: str) -> None:
    """Every request the build sends (generation and the splits' answerability judge) has a recorded reply of a
    capable model; the build makes items from them, none failed (tests/data/recorded/*/README.md)."""
    from qagen import build

    corpus, settings, n_requests, n_judge, least, languages = RECORDINGS[name]
    if not corpus.is_dir():
        pytest.skip(f"needs {corpus}")
    recording = tmp_path / "recording"
    shutil.copytree(RECORDED / name, recording)
    docs = tmp_path / "docs"
    docs.mkdir()
    for doc in (recording / "documents.txt").read_text().split():
        shutil.copyfile(corpus / doc, docs / doc)
    result = build(docs, tmp_path / "out", llm=f"replay:{recording}", overrides=[*settings, *FAST_COMPONENTS])
    missing = recording / MISSING
    unanswered = [json.loads(line) for line in missing.read_text().splitlines()] if missing.exists() else []
    assert not unanswered, f"{len(unanswered)} request(s) have no recorded reply (see {MISSING})"
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    stats = manifest["stages"]["generate"]["llm"]
    assert stats["failures"] == 0 and stats["requests"] == n_requests
    judge = manifest["stages"]["splits"].get("llm") or {}  # the answerability judge's requests, replayed too
    assert judge.get("failures", 0) == 0 and judge.get("succeeded", 0) == judge.get("requests", 0) == n_judge
    items = [json.loads(line) for line in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    assert len(items) >= least and {"long_form", "mcq"} <= {i["type"] for i in items}
    mcq = [i for i in items if i["type"] == "mcq"]
    assert not any((i["bloom"], i["scenario"]) in {("B4", "S1"), ("B1", "S2"), ("B1", "S3")} for i in mcq)
    assert {i["generator"]["backend"] for i in items} == {"replay:recording"}
    assert {i["language"] for i in items} == languages
    # each request asks for what the filters keep: nothing is generated only to be cut by the per-section quota
    rejected = [json.loads(line) for line in (tmp_path / "out" / "rejected.jsonl").read_text().splitlines()]
    assert not [r for r in rejected if r["filter"] == "top_per_section"]
    target = manifest["stages"]["generate"].get("size_target")
    if target:  # the ceiling is reached and said why in one line, naming the sections in no fold
        assert target["sections_asked"] == target["sections_usable"] and target["accepted_test"] < target["questions"]
        assert "fold conflicts" in target["shortfall"] and "\n" not in target["shortfall"]
    assert result is not None
