"""Randomized-response replacement (Adelani et al. 2020, Lemma 1) as pure functions.

A detected private token t' is replaced with probability p by a token t ~ pi, pi independent of t'.
The mechanism is (epsilon, 0)-DP with epsilon = max_t log((1 - p + p*pi(t)) / (p*pi(t))), the maximum
over the private tokens t that can appear in the output. Conventions used here (paper, case analysis of
eq. 4/5): a private token with pi(t) = 0 is never produced by replacement, so with p = 1 it never appears
and contributes 0; with p < 1 it survives unreplaced and is then certainly original: epsilon = infinity.
Placeholders (redact, typed) are not private tokens, so with p = 1 they give epsilon = 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from ..errors import InputError
from ..validate import check_probability


def token_epsilon(p: float, pi_t: float) -> float:
    """log((1 - p + p*pi(t)) / (p*pi(t))) for one private token, with the pi(t) = 0 convention above."""
    p = check_probability(p)
    if not 0 <= pi_t <= 1:
        raise InputError(f"pi(t) must be in [0, 1], got {pi_t!r}")
    if pi_t == 0:
        return 0.0 if p == 1 else math.inf
    return math.log((1 - p + p * pi_t) / (p * pi_t))


def randomized_response_epsilon(p: float, pi: Mapping[str, float], private_tokens: Iterable[str]) -> float:
    """epsilon = max over private tokens t of `token_epsilon(p, pi(t))` (0 when there are none)."""
    total = sum(pi.values())
    if pi and not math.isclose(total, 1.0, rel_tol=1e-6):
        raise InputError(f"pi must sum to 1, sums to {total:.6f}")
    return max((token_epsilon(p, pi.get(t, 0.0)) for t in set(private_tokens)), default=0.0)


def normalise(counts: Mapping[str, float]) -> dict[str, float]:
    """A probability distribution proportional to ``counts`` (corpus frequencies -> pi)."""
    total = float(sum(counts.values()))
    if total <= 0:
        raise InputError("cannot build a policy from an empty pool")
    return {token: count / total for token, count in counts.items()}
