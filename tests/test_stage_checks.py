"""Stage glue: what an offline build says it cannot do, and what reruns the splits stage."""

from __future__ import annotations

from qagen.config import Config, GenerateConfig
from qagen.generate.prompts import default_prompts_dir
from qagen.stages import _offline_mix_warning, _splits_fingerprint


def test_offline_mix_warning_names_the_levels_and_scenarios_it_cannot_write() -> None:
    message = _offline_mix_warning(GenerateConfig())
    assert message and "B2, B3, B4, S2, S3" in message and "LLM" in message
    assert _offline_mix_warning(GenerateConfig(bloom_mix={"B1": 1}, scenario_mix={"S1": 1})) is None
    assert _offline_mix_warning(GenerateConfig(types=["long_form", "factoid"])) is None
    assert _offline_mix_warning(GenerateConfig(mcq_per_section=0)) is None


def test_splits_rerun_when_the_judge_model_or_its_prompt_changes(tmp_path) -> None:
    offline = _splits_fingerprint(Config(), {})
    assert set(offline) == {"embedder"}  # no judge offline: the LLM does not matter
    one = _splits_fingerprint(Config.model_validate({"llm": {"backend": "openai:model-a"}}), {})
    two = _splits_fingerprint(Config.model_validate({"llm": {"backend": "openai:model-b"}}), {})
    assert one["llm"] == "openai:model-a" and one != two and one["prompt"]
    off = Config.model_validate({"llm": {"backend": "openai:model-a"}, "splits": {"answerability_judge": "off"}})
    assert set(_splits_fingerprint(off, {})) == {"embedder"}
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    bundled = (default_prompts_dir() / "answerability.md").read_text(encoding="utf-8")
    assert "word for word" in bundled
    (prompts / "answerability.md").write_text(bundled.replace("word for word", "exactly"), encoding="utf-8")
    edited = _splits_fingerprint(
        Config.model_validate({"llm": {"backend": "openai:model-a"}}), {"prompts_dir": prompts}
    )
    assert edited["prompt"] != one["prompt"]
