import tomllib

import pytest

from qagen.config import TOP_LEVEL, Config, ConfigError, PagesConfig, apply_overrides, load_config, render_toml


def test_defaults_follow_the_paper():
    cfg = Config()
    assert cfg.topics.n_components == 15
    assert cfg.topics.min_cluster_size == 30
    assert cfg.pages.target_tokens == 1000
    assert cfg.folds.test_size == 0.2
    assert cfg.llm.backend == "extractive"


def test_init_file_round_trips_to_defaults(tmp_path):
    text = render_toml()
    data = tomllib.loads(text)
    path = tmp_path / "qagen.toml"
    path.write_text(text)
    assert load_config(path) == Config()
    assert data["topics"]["min_cluster_size"] == 30
    # every section and every key is written
    for name in Config.model_fields:
        if name not in TOP_LEVEL:
            section = type(getattr(Config(), name))
            missing = [
                k
                for k in section.model_fields
                if getattr(getattr(Config(), name), k) is not None and k not in data[name]
            ]
            assert not missing, (name, missing)


def test_overrides_parse_toml_values():
    cfg = load_config(
        None,
        [
            "topics.min_cluster_size=12",
            "folds.distance=['cosine']",
            "llm.backend=openai:gpt-4o",
            "seed=7",
            "parse.bold_headings=false",
        ],
    )
    assert cfg.topics.min_cluster_size == 12
    assert cfg.folds.distance == ["cosine"]
    assert cfg.llm.backend == "openai:gpt-4o"
    assert cfg.seed == 7
    assert cfg.parse.bold_headings is False


def test_unknown_key_names_it_and_lists_valid_keys():
    with pytest.raises(ConfigError) as exc:
        load_config(None, ["topics.min_cluster=3"])
    msg = str(exc.value)
    assert "topics.min_cluster" in msg and "min_cluster_size" in msg
    assert "\n" not in msg


def test_bad_value_echoes_value_and_constraint():
    with pytest.raises(ConfigError) as exc:
        load_config(None, ["folds.test_size=1.5"])
    msg = str(exc.value)
    assert "folds.test_size" in msg and "1.5" in msg and "less than 1" in msg


def test_unknown_section_and_bad_toml(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[nope]\nx = 1\n")
    with pytest.raises(ConfigError, match="unknown config key 'nope'"):
        load_config(bad)
    bad.write_text("[topics\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.toml")


def test_set_without_equals_is_explained():
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        apply_overrides({}, ["topics.min_cluster_size"])


def test_seed_range():
    with pytest.raises(ConfigError, match="seed"):
        load_config(None, ["seed=-1"])


def _sections() -> list[tuple[str, type]]:
    return [("", Config)] + [
        (name, type(getattr(Config(), name))) for name in Config.model_fields if name not in TOP_LEVEL
    ]


def test_every_config_key_has_a_description():
    missing = [
        f"{name}.{key}".lstrip(".")
        for name, cls in _sections()
        for key, f in cls.model_fields.items()
        if not (f.description or "").strip()
    ]
    assert not missing


def test_init_file_comments_every_key():
    lines = [ln for ln in render_toml().splitlines() if ln and not ln.startswith(("[", "# qagen", "# Override"))]
    keys = [ln for ln in lines if " = " in ln.split("  # ")[0]]
    assert len(keys) == len(TOP_LEVEL) + sum(len(cls.model_fields) for name, cls in _sections() if name)
    uncommented = [ln for ln in keys if "  # " not in ln]
    assert not uncommented


def test_dead_and_new_keys():
    assert "hard_max_tokens" not in PagesConfig.model_fields
    with pytest.raises(ConfigError, match=r"pages\.hard_max_tokens"):
        load_config(None, ["pages.hard_max_tokens=3000"])
    assert Config().topics.save_model is False


def test_the_default_sample_draws_half_from_test_and_sizes_restores_the_old_share() -> None:
    assert Config().folds.sample_test_share == 0.5
    assert load_config(overrides=["folds.sample_test_share=sizes"]).folds.sample_test_share is None
    with pytest.raises(ConfigError, match="sample_test_share"):
        load_config(overrides=["folds.sample_test_share=most"])


def test_every_question_kind_is_on_by_default_and_each_share_can_be_0() -> None:
    cfg = Config()
    assert cfg.generate.formulation_mix == {"natural": 0.8, "noisy": 0.1, "verbose": 0.1}
    assert cfg.generate.premise_mix == {"true": 0.9, "false": 0.1}
    assert cfg.splits.out_of_scope_share == 0.1 and cfg.folds.outliers == "assign"
    off = load_config(
        overrides=["generate.formulation_mix={natural = 1}", "generate.premise_mix={true = 1, false = 0}",
                   "splits.out_of_scope_share=0", "folds.outliers=drop"]
    )  # fmt: skip
    assert off.generate.formulation_mix == {"natural": 1} and off.generate.premise_mix["false"] == 0
    assert off.splits.out_of_scope_share == 0 and off.folds.outliers == "drop"
