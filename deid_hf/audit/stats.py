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
    return max(0.0, centre - half), min(1.0, centre + half)


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
