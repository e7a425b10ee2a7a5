"""Privacy accounting: pure math, kept apart from the stateful replacers."""

from .randomized_response import normalise, randomized_response_epsilon, token_epsilon

__all__ = ["normalise", "randomized_response_epsilon", "token_epsilon"]
