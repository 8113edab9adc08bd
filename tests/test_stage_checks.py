"""Stage glue: what an offline build says it cannot do, and what reruns the splits stage."""

from __future__ import annotations

from qagen.config import Config, GenerateConfig
from qagen.generate.offline import offline_mix_warning
from qagen.generate.prompts import default_prompts_dir
from qagen.runner import BuildInputs
from qagen.stages.splits import fingerprint as splits_fingerprint


def test_offline_mix_warning_names_the_levels_and_scenarios_it_cannot_write() -> None:
    message = offline_mix_warning(GenerateConfig())
    assert message and "B2, B3, B4, S2, S3" in message and "LLM" in message
    assert offline_mix_warning(GenerateConfig(bloom_mix={"B1": 1}, scenario_mix={"S1": 1})) is None
    assert offline_mix_warning(GenerateConfig(types=["long_form", "factoid"])) is None
    assert offline_mix_warning(GenerateConfig(mcq_per_section=0)) is None


def test_splits_rerun_when_the_judge_model_or_its_prompt_changes(tmp_path) -> None:
    offline = splits_fingerprint(Config(), BuildInputs())
    assert set(offline) == {"embedder"}  # no judge offline: the LLM does not matter
    one = splits_fingerprint(Config.model_validate({"llm": {"backend": "openai:model-a"}}), BuildInputs())
    two = splits_fingerprint(Config.model_validate({"llm": {"backend": "openai:model-b"}}), BuildInputs())
    assert one["llm"] == "openai:model-a" and one != two and one["prompt"]
    off = Config.model_validate({"llm": {"backend": "openai:model-a"}, "splits": {"answerability_judge": "off"}})
    assert set(splits_fingerprint(off, BuildInputs())) == {"embedder"}
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    bundled = (default_prompts_dir() / "answerability.md").read_text(encoding="utf-8")
    assert "word for word" in bundled
    (prompts / "answerability.md").write_text(bundled.replace("word for word", "exactly"), encoding="utf-8")
    edited = splits_fingerprint(
        Config.model_validate({"llm": {"backend": "openai:model-a"}}), BuildInputs(prompts_dir=prompts)
    )
    assert edited["prompt"] != one["prompt"]
