"""How sure a figure is: Wilson intervals for shares, bootstrap intervals for means and paired differences.

Every share in ``scores.json`` comes with its ``n`` and a 95 % Wilson score interval (scipy's
``binomtest(...).proportion_ci(method="wilson")``); every mean (ROUGE, the CRAG-style score) with a
percentile bootstrap interval (``scipy.stats.bootstrap``, 2,000 resamples, a fixed seed so the
same answers give the same interval). Two chatbots answering the same questions are compared on
the paired differences (one resampling of the questions for both), so a difference whose interval
holds 0 is not one the data can tell apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 0
DIGITS = 4


def wilson(k: int, n: int) -> list[float] | None:
    """The 95 % Wilson score interval of the share ``k / n``; None when ``n`` is 0."""
    if n <= 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return [round(float(ci.low), DIGITS), round(float(ci.high), DIGITS)]


def bootstrap_mean(values: Sequence[float]) -> list[float] | None:
    """The 95 % percentile bootstrap interval of the mean of ``values``; None with fewer than two."""
    if len(values) < 2:
        return None
    import numpy as np

    data = np.asarray(values, dtype=float)
    if np.all(data == data[0]):
        return [round(float(data[0]), DIGITS)] * 2  # no spread to resample
    from scipy.stats import bootstrap

    res = bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(SEED),
    )
    return [round(float(res.confidence_interval.low), DIGITS), round(float(res.confidence_interval.high), DIGITS)]


def paired_difference(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Mean of ``b - a`` over paired values (the same questions), with its bootstrap interval.

    ``separated`` is True when the interval leaves out 0: the two differ beyond what resampling
    the questions explains.
    """
    if len(a) != len(b):
        raise ValueError(f"paired values differ in length: {len(a)} and {len(b)}")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    ci = bootstrap_mean(diffs)
    mean = round(sum(diffs) / len(diffs), DIGITS) if diffs else None
    return {
        "n": len(diffs),
        "a": round(sum(a) / len(a), DIGITS) if a else None,
        "b": round(sum(b) / len(b), DIGITS) if b else None,
        "difference": mean,
        "ci": ci,
        "separated": bool(ci and (ci[0] > 0 or ci[1] < 0)),
    }
