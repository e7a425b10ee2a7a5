"""Privacy accounting, pure math kept apart from the stateful replacers: randomized response (Adelani et al.
2020) and the exponential mechanism of clamped-logit sampling (Mattern et al. 2022); `PrivacyReport`."""

from .exponential import epsilon_per_token, max_tokens_for_budget, sensitivity, temperature_for, total_epsilon
from .per_label import aggregate_per_label, guarantee_without_dp, nothing_replaced_privacy, per_label_privacy
from .randomized_response import normalise, randomized_response_epsilon, token_epsilon

__all__ = [
    "aggregate_per_label",
    "guarantee_without_dp",
    "epsilon_per_token",
    "max_tokens_for_budget",
    "normalise",
    "nothing_replaced_privacy",
    "per_label_privacy",
    "randomized_response_epsilon",
    "sensitivity",
    "temperature_for",
    "token_epsilon",
    "total_epsilon",
]
