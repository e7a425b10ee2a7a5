"""DP paraphrasing (Mattern et al. 2022): clamped-logit temperature sampling as an exponential mechanism."""

from .accounting import epsilon_per_token, max_tokens_for_budget, sensitivity, temperature_for, total_epsilon
from .mechanism import ClampBounds, ClampedTemperatureLogitsProcessor, dp_generate
from .prompt import completion, prompt

__all__ = [
    "ClampBounds",
    "ClampedTemperatureLogitsProcessor",
    "completion",
    "dp_generate",
    "epsilon_per_token",
    "max_tokens_for_budget",
    "prompt",
    "sensitivity",
    "temperature_for",
    "total_epsilon",
]
