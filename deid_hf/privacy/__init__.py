"""Privacy accounting, pure math kept apart from the stateful replacers: randomized response (Adelani et al.
2020) and the exponential mechanism of clamped-logit sampling (Mattern et al. 2022); `PrivacyReport`."""

from .exponential import epsilon_per_token, max_tokens_for_budget, sensitivity, temperature_for, total_epsilon
from .randomized_response import normalise, randomized_response_epsilon, token_epsilon

__all__ = [
    "epsilon_per_token",
    "max_tokens_for_budget",
    "normalise",
    "randomized_response_epsilon",
    "sensitivity",
    "temperature_for",
    "token_epsilon",
    "total_epsilon",
]
