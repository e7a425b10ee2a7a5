"""DP paraphrasing (Mattern et al. 2022): clamped-logit temperature sampling as an exponential mechanism."""

from .mechanism import ClampBounds, ClampedTemperatureLogitsProcessor, dp_generate
from .prompt import completion, prompt

__all__ = [
    "ClampBounds",
    "ClampedTemperatureLogitsProcessor",
    "completion",
    "dp_generate",
    "prompt",
]
