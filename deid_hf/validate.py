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


def check_positive_ints(obj: object, *names: str) -> None:
    """Each attribute ``names`` of ``obj`` (a config dataclass) is an integer >= 1, else InputError."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value!r}")


def check_training_rates(eval_fraction: float, learning_rate: float) -> None:
    """The held-out share in (0, 1) and a positive learning rate of a training config."""
    if not 0 < eval_fraction < 1:
        raise InputError(f"eval_fraction must be in (0, 1), got {eval_fraction!r}")
    if not learning_rate > 0:
        raise InputError(f"learning_rate must be positive, got {learning_rate!r}")
