"""The rubric grader through a real local OpenAI-compatible server: valid, invalid and faulty replies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qagen.config import Config
from qagen.score import score
from tests.support.llm_server import FakeOpenAIServer, fast_config, invalid_json, server_error
from tests.support.score_data import ANSWERS, IT1, IT2, BagOfWords, make_out, write_answers


def grading(body: dict) -> str:
    """A careful grader: correct when the answer shares most of the reference's words; no passages, no faithfulness
    and no context relevance; a false premise is corrected when the reply says no or gives the documents' value."""
    premise = next((m["content"] for m in body["messages"] if "The false premise:" in str(m["content"])), None)
    if premise is not None:
        reply = premise.split("Chatbot's reply: ", 1)[1].split("\n\n")[0]
        number = re.search(r"\+31 20 794 3120", premise.split("What the documents say: ", 1)[1].split("\n\n")[0])
        corrected = reply.lower().startswith("no") or (number is not None and number.group(0) in reply)
        return json.dumps({"corrected": corrected})
    # the grading prompt (a repair request adds a message after it)
    user = next(m["content"] for m in body["messages"] if "Reference answer:" in str(m["content"]))
    pattern = r"Reference answer: (.*?)\n\nChatbot's answer: (.*?)\n\nRetrieved passages:\n(.*)\n\nGrade"
    reference = re.search(pattern, user, re.S)
    assert reference is not None, user
    ref_words = set(re.findall(r"\w+", reference.group(1).lower()))
    answer_words = set(re.findall(r"\w+", reference.group(2).lower()))
    share = len(ref_words & answer_words) / max(len(ref_words), 1)
    grade = 5 if share >= 0.7 else 3 if share >= 0.3 else 1
    faithful = None if "(none given)" in reference.group(3) else 4
    relevant = None if faithful is None else 5 if "helpdesk" in reference.group(3) else 2
    return json.dumps(
        {
            "correctness": grade,
            "completeness": grade,
            "relevance": 5,
            "faithfulness": faithful,
            "context_relevance": relevant,
        }
    )


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return make_out(tmp_path / "out")


def run(out: Path, server: FakeOpenAIServer, answers: list[dict] = ANSWERS, **llm: object) -> dict:
    config = Config()
    config.llm = fast_config(**llm)
    answers = write_answers(out / "answers.jsonl", answers)
    return score(out, answers, judge="embedding", embedder=BagOfWords(), config=config,
                 grader=f"openai:fake-model@{server.url}")  # fmt: skip


def rows(out: Path) -> dict[tuple[str, str], dict]:
    return {(r["item_id"], r["iteration"]): r for r in map(json.loads, (out / "scores.items.jsonl").open())}


def test_grades_every_answered_answerable_question_and_lets_long_form_into_the_crag_score(out, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAIServer(grading) as server:
        s = run(out, server)
        # answered where answerable: f1, l1, m1 in iteration 1; f2, m2 in iteration 2 (l2 declined there)
        assert server.count() == 5
        prompt = server.user_texts()[0]
        assert "Reference answer:" in prompt and "Retrieved passages:" in prompt
    got = rows(out)
    assert got[("l1", IT1)]["grade_correctness"] == 5  # "open from 9 to 5" against "... 9 to 5 on weekdays"
    assert got[("l1", IT1)]["grade_faithfulness"] == 4  # it retrieved d1-p0: passages shown
    assert got[("m1", IT1)]["grade_faithfulness"] is None  # no pages retrieved: nothing to be faithful to
    assert got[("l1", IT1)]["grade_context_relevance"] == 5 and got[("f2", IT2)]["grade_context_relevance"] == 2
    assert got[("m1", IT1)]["grade_context_relevance"] is None
    assert "grade_correctness" not in got[("l2", IT2)]  # declined: not graded
    grades = s["overall"]["grades"]
    assert grades["correctness"]["n"] == 5 and grades["faithfulness"]["n"] == 3 and grades["relevance"]["mean"] == 5
    assert grades["context_relevance"] == {**grades["context_relevance"], "n": 3, "mean": round((5 + 5 + 2) / 3, 4)}
    assert s["overall"]["crag"]["left_out"] == 0  # the graded long-form answer now counts
    assert got[("l1", IT1)]["crag"] == 1
    assert s["judge"]["grader"].startswith("llm:openai:fake-model") and s["refusal"]["grade_failed"] == 0


def test_an_invalid_reply_is_repaired_and_a_server_error_retried(out, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAIServer(grading) as server:
        server.script(invalid_json(), server_error(503))
        s = run(out, server, max_concurrency=1)
        assert server.count() == 5 + 2  # one repair request, one retry
    assert s["overall"]["grades"]["correctness"]["n"] == 5 and s["refusal"]["grade_failed"] == 0


def test_a_grade_that_never_comes_is_recorded_not_guessed(out, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAIServer(lambda body: "no grades here") as server:
        s = run(out, server, repair_attempts=1)
    assert s["refusal"]["grade_failed"] == 5 and s["overall"].get("grades") is None
    assert all("grade_correctness" not in r for r in rows(out).values())
    assert s["overall"]["crag"]["left_out"] == 1  # l1 stays out: no grade, no ROUGE threshold


def test_the_grader_judges_whether_a_false_premise_is_corrected(tmp_path: Path, monkeypatch):
    from tests.support.score_data import FALSE_PREMISE, ITEMS

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = make_out(tmp_path / "out", [*ITEMS, FALSE_PREMISE])
    fp = {"item_id": "p1", "iteration": IT1, "retrieved_page_ids": ["d1-p0"]}
    # the rule finds the right number in neither answer; the judge reads the first as a correction
    cases = [
        ("No, that is not the helpdesk's number; the documents give another one.", True, False),
        ("Yes, call +31 20 555 0199 when it is urgent.", False, False),
    ]
    for answer, judged, rule in cases:
        with FakeOpenAIServer(grading) as server:
            s = run(out, server, [*ANSWERS, {**fp, "answer": answer}])
            premise_prompts = [t for t in server.user_texts() if "The false premise: +31 20 555 0199" in t]
        assert len(premise_prompts) == 1 and "What the documents say: Call the helpdesk" in premise_prompts[0]
        row = rows(out)[("p1", IT1)]
        assert (row["premise_corrected"], row["premise_corrected_rule"]) == (judged, rule)
        assert s["refusal"]["premise_judge"] == {"judged": 1, "failed": 0, "rule_agreement": float(judged == rule)}
        assert s["overall"]["false_premise"]["corrected"] == int(judged)


def test_a_premise_verdict_that_never_comes_leaves_the_rule_standing(tmp_path: Path, monkeypatch):
    from tests.support.score_data import FALSE_PREMISE, ITEMS

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = make_out(tmp_path / "out", [*ITEMS, FALSE_PREMISE])
    answer = {"item_id": "p1", "iteration": IT1, "answer": "The number is +31 20 794 3120, not the one you gave."}

    def no_premise_verdicts(body: dict) -> str:
        return "no idea" if any("The false premise:" in str(m["content"]) for m in body["messages"]) else grading(body)

    with FakeOpenAIServer(no_premise_verdicts) as server:
        s = run(out, server, [*ANSWERS, answer], repair_attempts=1)
    assert s["refusal"]["premise_judge"] == {"judged": 0, "failed": 1, "rule_agreement": None}
    row = rows(out)[("p1", IT1)]
    assert row["premise_corrected"] is True and row["premise_corrected_rule"] is True  # the value is there


def test_the_judge_prompts_are_files_no_build_depends_on(tmp_path: Path):
    import shutil

    from qagen.generate.prompts import default_prompts_dir, prompt_fingerprint
    from qagen.score.judge import judge_prompt

    for name in ("judge_mcq", "judge_refusal", "judge_grade", "judge_premise"):
        system, user = judge_prompt(name)
        assert system and "$question" in user.template  # a rubric, and a template of the case
    assert "context_relevance" in judge_prompt("judge_grade")[0]
    prompts = shutil.copytree(default_prompts_dir(), tmp_path / "prompts")
    before = prompt_fingerprint(prompts)
    grade = prompts / "judge_grade.md"
    grade.write_text(grade.read_text(encoding="utf-8").replace("Grade what", "Judge what"), encoding="utf-8")
    assert prompt_fingerprint(prompts) == before  # scoring's prompts never invalidate a build
    assert not any(name.startswith("judge_") for name in before)
