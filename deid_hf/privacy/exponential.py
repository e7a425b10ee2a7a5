"""Privacy accounting of clamped-logit temperature sampling (Mattern et al. 2022, section 4.2), pure math.

Sampling the next token from softmax(u / T) with logits clamped to [a, b] is an exponential mechanism with
quality function u and sensitivity Delta = b - a, hence epsilon_token = 2 * Delta / T. Generating n tokens
composes sequentially: epsilon_total = epsilon_token * n.
"""

from __future__ import annotations

import math

from ..errors import InputError
from ..validate import check_positive


def sensitivity(low: float, high: float) -> float:
    """Delta = b - a for logits clamped to [a, b]."""
    if not high > low:
        raise InputError(f"clamp bounds need low < high, got [{low}, {high}]")
    return float(high - low)


def temperature_for(epsilon_token: float, delta: float) -> float:
    """T = 2 * Delta / epsilon_token."""
    return 2 * check_positive(delta, "sensitivity") / check_positive(epsilon_token, "epsilon per token")


def epsilon_per_token(temperature: float, delta: float) -> float:
    """epsilon_token = 2 * Delta / T."""
    return 2 * check_positive(delta, "sensitivity") / check_positive(temperature, "temperature")


def total_epsilon(epsilon_token: float, tokens: int) -> float:
    """epsilon_token * n (sequential composition over n generated tokens)."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise InputError(f"token count must be a non-negative integer, got {tokens!r}")
    return check_positive(epsilon_token, "epsilon per token") * tokens


def max_tokens_for_budget(total_budget: float, epsilon_token: float) -> int:
    """The longest generation whose total epsilon stays within ``total_budget``."""
    return math.floor(
        check_positive(total_budget, "total budget") / check_positive(epsilon_token, "epsilon per token")
        + 1e-9
    )
