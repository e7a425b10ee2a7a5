"""Validators of user-given parameters: a clear `InputError` naming the parameter, else the value as float."""

from __future__ import annotations

import math

from .errors import InputError


def check_probability(p: float, name: str = "p") -> float:
    """``p`` as a float in (0, 1]."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
        raise InputError(f"{name} must be a number in (0, 1], got {p!r}")
    return float(p)


def check_positive(value: float, name: str) -> float:
    """``value`` as a positive finite float."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not value > 0
        or not math.isfinite(value)
    ):
        raise InputError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)
