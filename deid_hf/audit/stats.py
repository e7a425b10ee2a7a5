"""Confidence intervals of the audits: Wilson score for a share, document-level bootstrap for a ratio of
sums (canary tokens cluster within documents, so tokens are not independent draws)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: two-sided 95% normal quantile
Z95 = 1.959963984540054


def wilson_interval(hits: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of ``hits / total`` (None when ``total`` is 0)."""
    if total <= 0:
        return None
    share = hits / total
    denominator = 1 + z * z / total
    centre = (share + z * z / (2 * total)) / denominator
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / denominator
    # rounded: at 0 or 1 hits the bound is 0 or 1, not a float's residue of it (2.8e-17)
    return max(0.0, round(centre - half, 12)), min(1.0, round(centre + half, 12))


def bootstrap_interval(
    clusters: Sequence[T], statistic: Callable[[list[T]], float | None], rounds: int = 1000, seed: int = 0
) -> tuple[float, float] | None:
    """95% percentile interval of ``statistic`` over ``clusters`` (one per document) resampled with
    replacement; None without clusters or when the statistic is undefined."""
    if not clusters:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(rounds):
        value = statistic([clusters[rng.randrange(len(clusters))] for _ in clusters])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[math.ceil(0.975 * (len(values) - 1))]


def clopper_pearson_upper(hits: int, total: int, alpha: float) -> float:
    """The exact (Clopper-Pearson) one-sided upper confidence bound at level ``1 - alpha`` of a share of
    ``hits`` in ``total`` draws: the p at which seeing ``hits`` or fewer has probability ``alpha``."""
    if total <= 0 or not 0 <= hits <= total:
        raise ValueError(f"need 0 <= hits <= total and total > 0, got {hits} of {total}")
    if hits == total:
        return 1.0
    low, high = hits / total, 1.0
    for _ in range(100):  # bisection: the binomial CDF falls as p grows
        middle = (low + high) / 2
        if _binomial_cdf(hits, total, middle) > alpha:
            low = middle
        else:
            high = middle
    return high


def _binomial_cdf(hits: int, total: int, p: float) -> float:
    """P(X <= hits) for X ~ Binomial(total, p), summed in log space."""
    if p <= 0:
        return 1.0
    if p >= 1:
        return 0.0 if hits < total else 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(total + 1)
        - math.lgamma(k + 1)
        - math.lgamma(total - k + 1)
        + k * log_p
        + (total - k) * log_q
        for k in range(hits + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))
