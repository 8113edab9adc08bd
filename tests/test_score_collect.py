"""qagen.score.collect (progress, resume, errors), the CLI helper, the report section and the example baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qagen.score import Reply, collect, score
from tests.support.score_data import ANSWERS, IT1, IT2, REFUSAL, BagOfWords, make_out, write_answers

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {(a["iteration"], a["item_id"]): a["answer"] for a in ANSWERS}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return make_out(tmp_path / "out")


class Bot:
    """Answers from ANSWERS; records the corpus it was given; can fail on chosen calls."""

    def __init__(self, fail_on: set[int] = frozenset()) -> None:
        self.fail_on = fail_on
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def __call__(self, question, corpus_pages):
        self.calls.append((question, tuple(p.id for p in corpus_pages)))
        if len(self.calls) in self.fail_on:
            raise RuntimeError("chatbot down")
        from tests.support.score_data import ITEMS

        item = next(i for i in ITEMS if i.question == question)
        iteration = IT1 if corpus_pages[0].id.startswith("d1") else IT2
        return Reply(EXPECTED[(iteration, item.id)], [corpus_pages[0].id], {"model": "bot"})


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_collect_writes_every_question_with_its_corpus(out):
    bot = Bot()
    result = collect(out, bot, progress=False)
    assert (result.answered, result.resumed, result.failed) == (12, 0, [])
    rows = lines(out / "answers.jsonl")
    assert {(r["iteration"], r["item_id"]) for r in rows} == set(EXPECTED)
    assert all(r["latency_s"] >= 0 and r["meta"] == {"model": "bot"} for r in rows)
    corpora = {pages for _, pages in bot.calls}
    assert corpora == {("d1-p0", "d1-p1"), ("d2-p0", "d2-p1")}  # each iteration sees its own fold's pages only
    s = score(out, out / "answers.jsonl", embedder=BagOfWords())
    assert s["coverage"]["missing"] == 0 and s["overall"]["unanswerable_detection"]["tp"] == 5


def test_collect_resumes_after_an_interruption(out):
    with pytest.raises(RuntimeError, match="chatbot down"):
        collect(out, Bot(fail_on={4}), progress=False)
    assert len(lines(out / "answers.jsonl")) == 3
    with (out / "answers.jsonl").open("a") as fh:
        fh.write('{"item_id": "zz", "iterat')  # a line cut off by a crash
    bot = Bot()
    result = collect(out, bot, progress=False)
    assert (result.answered, result.resumed) == (9, 3) and len(bot.calls) == 9
    rows = lines(out / "answers.jsonl")
    assert len(rows) == 12 and {(r["iteration"], r["item_id"]) for r in rows} == set(EXPECTED)
    assert collect(out, Bot(), progress=False).answered == 0  # nothing left to ask


def test_collect_refuses_to_resume_answers_made_for_another_build(out):
    from qagen.score import ScoreError

    collect(out, Bot(fail_on={4}), progress=False, on_error="skip")
    rows = lines(out / "answers.jsonl")
    rows[0]["item_id"] = "gone-since-the-rebuild"
    write_answers(out / "answers.jsonl", rows)
    bot = Bot()
    with pytest.raises(ScoreError, match="1 answer\\(s\\) are for questions this build does not have"):
        collect(out, bot, progress=False)
    assert bot.calls == []  # refused before asking anything
    assert lines(out / "answers.jsonl") == rows  # and the file is left as it was


def test_collect_skips_failures_when_asked_and_score_reports_them(out):
    result = collect(out, Bot(fail_on={2}), progress=False, on_error="skip")
    assert result.answered == 11 and len(result.failed) == 1
    iteration, item_id, error = result.failed[0]
    assert error == "RuntimeError: chatbot down"
    s = score(out, out / "answers.jsonl", embedder=BagOfWords())
    assert s["coverage"]["missing_ids"] == {iteration: [item_id]}


def test_collect_accepts_strings_and_dicts_and_refuses_other_replies(out):
    collect(out, lambda q, pages: {"answer": REFUSAL, "retrieved_page_ids": [pages[0].id]}, out / "a.jsonl",
            progress=False)  # fmt: skip
    assert lines(out / "a.jsonl")[0]["retrieved_page_ids"] in (["d1-p0"], ["d2-p0"])
    collect(out, lambda q, pages: {"answer": "x", "cost_usd": 0.0004}, out / "e.jsonl", progress=False)
    assert {line["cost_usd"] for line in lines(out / "e.jsonl")} == {0.0004}  # what the reply cost, kept
    collect(out, lambda q, pages: "plain text", out / "b.jsonl", progress=False, sets=("test",))
    assert not (out / "b.jsonl").read_text()  # the test set has no questions here
    with pytest.raises(TypeError, match="ask must return a str, a Reply or a dict; got int"):
        collect(out, lambda q, pages: 42, out / "c.jsonl", progress=False)
    with pytest.raises(TypeError, match="it needs 'answer'"):
        collect(out, lambda q, pages: {"text": "x"}, out / "d.jsonl", progress=False)


def test_collect_refuses_to_append_to_an_invalid_file(out):
    from qagen.score import ScoreError

    write_answers(out / "answers.jsonl", [{"item_id": "f1"}])
    with pytest.raises(ScoreError, match="line 1: 'iteration' is a required property"):
        collect(out, Bot(), progress=False)


def test_score_command_prints_a_summary(out):
    from qagen.commands.score import score_command

    path = write_answers(out / "answers.jsonl", ANSWERS)
    text = score_command(out, path, "embedding", overrides=["score.embedder=tfidf"], progress=False)
    lines_ = text.splitlines()
    assert lines_[0].startswith("scored 12 answers (0 questions unanswered); MCQ judge embedding:tfidf")
    assert lines_[0].endswith("refusals by phrases")
    row = next(x for x in lines_ if x.startswith("overall"))
    assert row.split()[1:5] == ["83.3%*", "16.7%*", "83.3%", "83.3%"]  # * 6 questions, fewer than score.min_n
    assert f"wrote {out / 'scores.json'}" in text and (out / "scores.json").is_file()


def test_report_section_shows_scores_and_escapes_labels(out):
    from qagen.io import read_json, write_json
    from qagen.report.render import _environment
    from qagen.report.scores import scores_view

    topics = read_json(out / "topics.json")
    topics["topics"][0]["label"] = "<script>alert(1)</script>"
    write_json(out / "topics.json", topics)
    s = score(out, write_answers(out / "answers.jsonl", ANSWERS), embedder=BagOfWords())
    view = scores_view(s)
    assert view["overall"]["answered_in_fold"] == 0.8333
    assert view["verdicts"]["answered_in_fold"]["state"] == "better"
    assert view["verdicts"]["answered_out_of_fold"]["state"] == "worse"  # 16.7% hallucinated; Twente: 7.5-12%
    html = _environment(True).get_template("scores.html.j2").render(scores=view)
    assert 'id="scores-iterations"' in html and '<td class="nowrap">validation_iteration_1</td>' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "83.3%" in html and '5 <span class="muted">TP</span>' in html
    # the measures beyond the tables, each with its n; on 4 answers with retrieved pages, greyed as uncertain
    names = [m["name"] for m in view["measures"]]
    assert "Context precision@5 (TF-IDF ≥ 0.3)" in names and "Semantic similarity (answered)" in names
    assert all(m["small"] for m in view["measures"]) and 'id="scores-measures"' in html
    assert '<tr class="small-n"' in html
    assert scores_view(None) is None


def _baseline():
    from tests.support.scripts import load_example

    return load_example("baseline_rag")


def test_example_baseline_answers_in_fold_and_declines_out_of_fold(out):
    baseline = _baseline()
    collect(out, baseline.BaselineRAG(k=2, threshold=0.09, refusal=REFUSAL), progress=False)
    rows = {(r["iteration"], r["item_id"]): r for r in lines(out / "answers.jsonl")}
    assert rows[(IT1, "l1")]["answer"].startswith("The IT helpdesk is open from 9 to 5 on weekdays.")
    assert rows[(IT1, "l1")]["retrieved_page_ids"][0] == "d1-p0"
    assert rows[(IT2, "l1")]["answer"] == REFUSAL  # asked of the parking pages: declined
    s = score(out, out / "answers.jsonl", embedder=BagOfWords())
    assert s["overall"]["unanswerable"]["answered_share"] == 0.0
    assert s["overall"]["answerable"]["answered_share"] == 1.0
    assert s["overall"]["retrieval"]["recall@1"] == 1.0


def test_example_baseline_main_runs_end_to_end(out, capsys):
    baseline = _baseline()
    config = out / "qagen.toml"
    config.write_text('[score]\nembedder = "tfidf"\n')
    assert baseline.main([str(out), "--judge", "embedding:tfidf", "--config", str(config)]) == 0
    printed = capsys.readouterr().out
    assert "12 new answers" in printed and "overall" in printed and (out / "scores.json").is_file()


def test_openai_judge_over_real_http_with_a_fault(out):
    from qagen.config import Config
    from tests.support.llm_server import FakeOpenAIServer, fast_config, last_user_text, rate_limit

    def respond(body):
        text = last_user_text(body)
        if "Options:" in text:
            return {"option": "A"}
        reply = text.split("Reply: ", 1)[1].lower()
        return {"declined": any(w in reply for w in ("cannot", "know", "no details", "contain inform"))}

    config = Config(llm=fast_config())
    with FakeOpenAIServer(respond) as server:
        server.script(rate_limit(retry_after=0.01))
        s = score(out, write_answers(out / "answers.jsonl", ANSWERS), judge=f"openai:judge@{server.url}",
                  config=config, embedder=BagOfWords())  # fmt: skip
        assert server.count(status=200) == 13 and server.count(status=429) == 1  # 11 refusals, 2 MCQs
    det = s["overall"]["unanswerable_detection"]
    assert (det["tp"], det["fn"], det["fp"], det["tn"]) == (6, 0, 1, 5)
    assert s["overall"]["mcq"]["judge"]["accuracy"] == 1.0
    assert s["judge"]["llm_stats"]["retries"] == 1 and s["judge"]["mcq"].startswith("llm:openai")


def _refusal_responder(body):
    from tests.support.llm_server import last_user_text

    text = last_user_text(body)
    if "Options:" in text:
        return {"option": "B"}  # 20 days: wrong, so an MCQ decided by the LLM shows
    reply = text.split("Reply: ", 1)[1].lower()
    return {"declined": any(w in reply for w in ("cannot", "know", "no details", "contain inform"))}


def test_embedding_mcq_judge_with_an_llm_refusal_judge_over_real_http(out):
    from click.testing import CliRunner

    from qagen.cli import cli
    from tests.support.llm_server import FakeOpenAIServer

    path = write_answers(out / "answers.jsonl", ANSWERS)
    with FakeOpenAIServer(_refusal_responder) as server:
        args = ["score", str(out), "--answers", str(path), "--judge", "embedding:tfidf", "--refusal-judge",
                f"openai:judge@{server.url}", "--set", "score.embedder=tfidf", "-q"]  # fmt: skip
        result = CliRunner().invoke(cli, args, prog_name="qagen", catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert server.count(status=200) == 11  # every non-empty answer once; no MCQ request
        assert all("Reply: " in text for text in server.user_texts())
    s = json.loads((out / "scores.json").read_text())
    det = s["overall"]["unanswerable_detection"]  # the LLM catches l2@1's "no details": TP 6, FP 1, TN 5
    assert (det["tp"], det["fn"], det["fp"], det["tn"]) == (6, 0, 1, 5)
    assert s["refusal"]["decided_by"] == "llm judge" and s["refusal"]["judge"].startswith("llm:openai")
    assert s["judge"]["mcq"].startswith("embedding:tfidf") and s["overall"]["mcq"]["judge"]["accuracy"] == 0.5
    assert "llm_stats" not in s["judge"] and s["judge"]["refusal_llm_stats"]["succeeded"] == 11
    assert "refusals by llm judge (llm:openai" in result.output


def test_llm_mcq_judge_with_phrase_refusals_over_real_http(out):
    from qagen.config import Config, ScoreConfig
    from tests.support.llm_server import FakeOpenAIServer, fast_config

    config = Config(llm=fast_config(), score=ScoreConfig(refusal_judge="phrases"))
    with FakeOpenAIServer(_refusal_responder) as server:
        s = score(out, write_answers(out / "answers.jsonl", ANSWERS), judge=f"openai:judge@{server.url}",
                  config=config, embedder=BagOfWords())  # fmt: skip
        assert server.count(status=200) == 2  # the two answered MCQs, nothing else
        assert all("Options:" in text for text in server.user_texts())
    det = s["overall"]["unanswerable_detection"]  # phrases miss l2@1's "no details": TP 5, FN 1
    assert (det["tp"], det["fn"], det["fp"], det["tn"]) == (5, 1, 1, 5)
    assert s["refusal"]["decided_by"] == "phrases" and s["judge"]["refusal"] == "phrases"
    assert s["overall"]["mcq"]["judge"]["accuracy"] == 0.0 and s["overall"]["mcq"]["embedding"]["accuracy"] == 0.5
    assert s["judge"]["llm_stats"]["succeeded"] == 2 and "refusal_llm_stats" not in s["judge"]


def test_refusal_judge_auto_follows_the_judge_and_rejects_non_llms(out):
    from qagen.config import Config, ScoreConfig
    from qagen.score import ScoreError

    path = write_answers(out / "answers.jsonl", ANSWERS)
    s = score(out, path, judge="embedding", embedder=BagOfWords())
    assert s["refusal"]["decided_by"] == "phrases" and s["judge"]["refusal"] == "phrases"
    for bad in ("embedding", "extractive", " "):
        with pytest.raises(ScoreError, match=r"score.refusal_judge \(--refusal-judge\) must be auto, phrases or an"):
            score(out, path, config=Config(score=ScoreConfig(refusal_judge=bad)), embedder=BagOfWords())
