"""Bloom x scenario allocation: exact proportions, balanced totals, S3 placement."""

from __future__ import annotations

import itertools

import pytest

from qagen.generate.mix import BLOOM_LEVELS, COMPATIBLE, SCENARIOS, allocate, assign, check_mix

UNIFORM_B = {"B1": 1, "B2": 1, "B3": 1, "B4": 1}
UNIFORM_S = {"S1": 1, "S2": 1, "S3": 1}


@pytest.mark.parametrize("n", [0, 1, 2, 5, 7, 11, 12, 13, 50, 199, 200])
@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize(
    ("bmix", "smix"),
    [(UNIFORM_B, UNIFORM_S), ({"B1": 2, "B2": 1, "B3": 1, "B4": 0}, {"S1": 1, "S2": 2}), ({"B4": 1}, {"S3": 1})],
)
def test_no_request_pairs_a_level_with_a_scenario_that_contradicts_it(
    n: int, seed: int, bmix: dict, smix: dict
) -> None:
    counts = allocate(n, bmix, smix, seed)
    assert sum(counts.values()) == n
    for (b, s), count in counts.items():
        if count:
            assert b in COMPATIBLE[s] and bmix.get(b, 0) > 0 and smix.get(s, 0) > 0, (b, s)
    assert counts[("B4", "S1")] == counts[("B1", "S2")] == counts[("B1", "S3")] == 0


@pytest.mark.parametrize("n", range(0, 40))
def test_uniform_mix_keeps_level_and_scenario_totals_within_one(n: int) -> None:
    counts = allocate(n, UNIFORM_B, UNIFORM_S, seed=3)
    for b in BLOOM_LEVELS:
        assert abs(sum(counts[(b, s)] for s in SCENARIOS) - n / 4) < 1.5
    for s in SCENARIOS:
        assert abs(sum(counts[(b, s)] for b in BLOOM_LEVELS) - n / 3) < 1.5


def test_a_mix_whose_level_fits_no_scenario_is_refused() -> None:
    with pytest.raises(ValueError, match="level B1 pairs with no scenario"):
        allocate(10, {"B1": 1}, {"S3": 1}, 0)
    with pytest.raises(ValueError, match="pairs with no"):
        allocate(10, {"B4": 1}, {"S1": 1}, 0)


def test_assign_is_deterministic_and_matches_allocation() -> None:
    ok = [i % 2 == 0 for i in range(30)]
    first = assign(30, UNIFORM_B, UNIFORM_S, 5, ok)
    assert first == assign(30, UNIFORM_B, UNIFORM_S, 5, ok)
    assert first != assign(30, UNIFORM_B, UNIFORM_S, 6, ok)
    counts = allocate(30, UNIFORM_B, UNIFORM_S, 5)
    assert {c: first.count(c) for c in counts} == counts


def test_s3_goes_to_requests_that_can_have_it() -> None:
    ok = [i < 12 for i in range(24)]  # 12 can be S3; 8 S3 requests are needed
    cells = assign(24, UNIFORM_B, UNIFORM_S, 0, ok)
    s3 = [i for i, (_, s) in enumerate(cells) if s == "S3"]
    assert len(s3) == 8 and all(ok[i] for i in s3)


def test_too_few_s3_candidates_still_keeps_the_mix() -> None:
    ok = [i == 0 for i in range(12)]
    cells = assign(12, UNIFORM_B, UNIFORM_S, 0, ok)
    s3 = [i for i, (_, s) in enumerate(cells) if s == "S3"]
    assert len(s3) == 4 and 0 in s3  # the planner records a fallback for the other three


@pytest.mark.parametrize(
    ("mix", "message"),
    [({"B5": 1}, "keys must be among"), ({"B1": -1}, "weights must be finite"), ({"B1": 0}, "at least one positive")],
)
def test_bad_mixes_are_rejected(mix: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_mix(mix, BLOOM_LEVELS, "bloom_mix")


def test_all_cells_present() -> None:
    counts = allocate(12, UNIFORM_B, UNIFORM_S, 0)
    assert set(counts) == set(itertools.product(BLOOM_LEVELS, SCENARIOS))
