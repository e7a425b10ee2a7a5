"""Privacy accounting: pure math, kept apart from the stateful replacers."""

from .per_label import aggregate_per_label, per_label_privacy
from .randomized_response import normalise, randomized_response_epsilon, token_epsilon

__all__ = [
    "aggregate_per_label",
    "normalise",
    "per_label_privacy",
    "randomized_response_epsilon",
    "token_epsilon",
]
