"""Bloom level x scenario allocation for multiple-choice requests.

Levels are assigned per request from a target mix so that the dataset is balanced by
construction (asking a model to balance gave 17/43/30/10 over B1-B4 in the Leadinfo thesis).
Counts per (level, scenario) cell come from the product of the two mixes by the largest
remainder method, so every cell is within one of its exact quota; which cells get the
remainder is chosen to keep the level and scenario totals within one of theirs too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

BLOOM_LEVELS = ("B1", "B2", "B3", "B4")
SCENARIOS = ("S1", "S2", "S3")
BLOOM_NAMES = {"B1": "remember", "B2": "understand", "B3": "apply", "B4": "analyze"}
BLOOM_DESCRIPTIONS = {
    "B1": "recall one fact exactly as stated (a number, time, name, place or rule).",
    "B2": "show understanding: explain what a statement means or why something is done, in other words than "
    "the passages use.",
    "B3": 'apply the information to a concrete, realistic situation ("A patient who ... wants to ...: what '
    'should she do?"); the situation itself is not described in the passages.',
    "B4": "analyze: compare, distinguish or relate several pieces of information (differences, conditions, "
    "exceptions, which case applies).",
}
# Facts combined for a question belong to one need: two unrelated tools compared because they share a key or a
# menu make a question nobody asks (the LLM path's readers, issue 42).
_ONE_NEED = (
    " The facts are about one task or one thing, as one user with one need would ask them together; never compare"
    " or join two tools, features or tasks only because they share a key, a menu or a word."
)
SCENARIO_DESCRIPTIONS = {
    "S1": "the question needs one single fact from one passage.",
    "S2": "the question needs at least two different facts, all from the same document; combine them." + _ONE_NEED,
    "S3": "the question needs facts from at least two different documents (the passages are labelled with "
    "their document); the correct answer must combine information from both, so that neither document "
    "alone answers it." + _ONE_NEED + " If the documents share no such need, ask about the first document's"
    " passages only: a question nobody would ask is worse than one that needs a single document.",
}

# The question's task in the user message, one phrase per scenario and level, so that the
# instruction a (small) model follows is the one its labels promise.
SCENARIO_TASKS = {
    "S1": "a question about one fact in the passages",
    "S2": "a question that needs two or more facts from the passages",
    "S3": "a question that needs facts from the passages of two different documents",
}
BLOOM_TASKS = {
    "B1": "asking to recall it as stated",
    "B2": "asking what it means or why, in your own words",
    "B3": "set in a concrete situation of a reader, asking what to do",
    "B4": "asking to compare or relate them",
}


def question_task(bloom: str, scenario: str) -> str:
    """The question's task for one (level, scenario) cell, e.g. "a question that needs two or
    more facts from the passages, asking to compare or relate them"."""
    return f"{SCENARIO_TASKS[scenario]}, {BLOOM_TASKS[bloom]}"


def check_mix(mix: dict[str, float], allowed: Sequence[str], name: str) -> dict[str, float]:
    """Validate a mix: known keys, weights >= 0, a positive total. Returns it with every key present."""
    unknown = sorted(set(mix) - set(allowed))
    if unknown:
        raise ValueError(f"generate.{name} keys must be among {list(allowed)}; got {unknown}")
    bad = {k: v for k, v in mix.items() if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0)}
    if bad:
        raise ValueError(f"generate.{name} weights must be finite numbers >= 0; got {bad}")
    if sum(mix.values()) <= 0:
        raise ValueError(f"generate.{name} needs at least one positive weight; got {mix}")
    return {k: float(mix.get(k, 0.0)) for k in allowed}


# Which levels a scenario can be asked at without contradicting itself: one fact is not compared or related
# (no B4 at S1); several facts are not "recalled as stated" (no B1 at S2/S3: that glues facts with "and").
COMPATIBLE: dict[str, tuple[str, ...]] = {"S1": ("B1", "B2", "B3"), "S2": ("B2", "B3", "B4"), "S3": ("B2", "B3", "B4")}


def _quotas(n: int, b: dict[str, float], s: dict[str, float]) -> dict[tuple[str, str], float]:
    """Real-valued counts on the compatible cells whose level and scenario totals follow the mixes (iterative
    proportional fitting); a level or scenario with no compatible partner in the mixes is an error."""
    cells = [(x, y) for y in SCENARIOS for x in COMPATIBLE[y] if b[x] > 0 and s[y] > 0]
    for x in (x for x in BLOOM_LEVELS if b[x] > 0):
        if not any(c[0] == x for c in cells):
            raise ValueError(
                f"generate.bloom_mix level {x} pairs with no scenario of generate.scenario_mix "
                f"({x} fits {', '.join(y for y in SCENARIOS if x in COMPATIBLE[y])})"
            )
    for y in (y for y in SCENARIOS if s[y] > 0):
        if not any(c[1] == y for c in cells):
            raise ValueError(
                f"generate.scenario_mix {y} pairs with no level of generate.bloom_mix ({y} fits "
                f"{', '.join(COMPATIBLE[y])})"
            )
    bt, st = sum(b.values()), sum(s.values())
    rows = {x: n * b[x] / bt for x in BLOOM_LEVELS}
    cols = {y: n * s[y] / st for y in SCENARIOS}
    q = {c: b[c[0]] * s[c[1]] for c in cells}
    for _ in range(200):
        for target, axis in ((rows, 0), (cols, 1)):
            for key, want in target.items():
                have = sum(v for c, v in q.items() if c[axis] == key)
                if have > 0:
                    for c in q:
                        if c[axis] == key:
                            q[c] *= want / have
    return q


def allocate(
    n: int, bloom_mix: dict[str, float], scenario_mix: dict[str, float], seed: int
) -> dict[tuple[str, str], int]:
    """Counts per (bloom, scenario) cell summing to ``n``, only on compatible cells (:data:`COMPATIBLE`), with
    level and scenario totals following the mixes as closely as the compatible cells allow."""
    if n < 0:
        raise ValueError(f"number of requests must be >= 0; got {n}")
    b = check_mix(bloom_mix, BLOOM_LEVELS, "bloom_mix")
    s = check_mix(scenario_mix, SCENARIOS, "scenario_mix")
    quota = _quotas(n, b, s)
    counts = {c: math.floor(q + 1e-9) for c, q in quota.items()}
    rng = random.Random(f"{seed}:mix")
    tiebreak = {c: rng.random() for c in quota}
    for _ in range(n - sum(counts.values())):

        def deficit(c: tuple[str, str]) -> tuple[float, float, float]:
            row = sum(quota[k] - counts[k] for k in quota if k[0] == c[0])
            col = sum(quota[k] - counts[k] for k in quota if k[1] == c[1])
            return (row + col, quota[c] - counts[c], tiebreak[c])

        counts[max(quota, key=deficit)] += 1
    return {(x, y): counts.get((x, y), 0) for x in BLOOM_LEVELS for y in SCENARIOS}


def assign(
    n: int, bloom_mix: dict[str, float], scenario_mix: dict[str, float], seed: int, s3_ok: Sequence[bool]
) -> list[tuple[str, str]]:
    """A (bloom, scenario) cell for each of ``n`` requests, in a seeded random order.

    ``s3_ok[i]`` says whether request ``i`` can be an S3 request (its section has partners
    in other documents); S3 cells go to those requests first.
    """
    if len(s3_ok) != n:
        raise ValueError(f"s3_ok must have one entry per request ({n}); got {len(s3_ok)}")
    counts = allocate(n, bloom_mix, scenario_mix, seed)
    cells = [c for c in sorted(counts) for _ in range(counts[c])]
    rng = random.Random(f"{seed}:assign")
    rng.shuffle(cells)
    s3_cells = [c for c in cells if c[1] == "S3"]
    other_cells = [c for c in cells if c[1] != "S3"]
    eligible = [i for i in range(n) if s3_ok[i]]
    rng.shuffle(eligible)
    chosen = set(eligible[: len(s3_cells)])
    rest = [i for i in range(n) if i not in chosen]
    if len(s3_cells) > len(chosen):  # not enough partners: these S3 requests will fall back
        extra = rng.sample(rest, len(s3_cells) - len(chosen))
        chosen |= set(extra)
        rest = [i for i in rest if i not in chosen]
    out: list[tuple[str, str]] = [("", "")] * n
    for i, cell in zip(sorted(chosen, key=lambda i: (not s3_ok[i], i)), s3_cells, strict=True):
        out[i] = cell
    for i, cell in zip(rest, other_cells, strict=True):
        out[i] = cell
    return out


def assign_by_share(keys: Sequence[str], mix: dict[str, float], seed: int) -> dict[str, str]:
    """A label of ``mix`` per key, so the labels' counts follow the mix by construction.

    Counts by the largest remainder method (each within one of ``len(keys) * share``; ties broken by
    the order of ``mix``); which key gets which label is a seeded shuffle, so it does not follow the
    order of the keys (sections of one document would otherwise share a label).
    """
    labels = [k for k, w in mix.items() if w > 0]
    total = sum(mix[k] for k in labels)
    if not keys or not labels:
        return {}
    quota = {k: len(keys) * mix[k] / total for k in labels}
    counts = {k: math.floor(q + 1e-9) for k, q in quota.items()}
    for k in sorted(labels, key=lambda k: (-(quota[k] - counts[k]), labels.index(k)))[
        : len(keys) - sum(counts.values())
    ]:
        counts[k] += 1
    order = list(keys)
    random.Random(f"{seed}:assign").shuffle(order)
    out: dict[str, str] = {}
    start = 0
    for k in labels:
        for key in order[start : start + counts[k]]:
            out[key] = k
        start += counts[k]
    return out


def achieved_shares(labels: Sequence[str | None], mix: Mapping[str, float]) -> dict[str, dict[str, float | int]]:
    """Per label of ``mix``: the share asked, the count and share achieved among ``labels`` (None: no label).

    What a build reports for every mix it meets after filtering: formulations, premises, personas.
    """
    total = sum(w for w in mix.values() if w > 0) or 1.0
    n = len(labels) or 1
    return {
        k: {"asked": round(w / total, 4), "items": labels.count(k), "share": round(labels.count(k) / n, 4)}
        for k, w in mix.items()
    }
