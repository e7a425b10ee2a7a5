"""Custom: a user function ``f(original, label) -> str`` (Presidio's ``custom``). Python only: a pipeline
using it cannot be saved (a function has no portable form)."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..errors import InputError
from .base import Strategy


class Custom(Strategy):
    name = "custom"
    python_only = "a Python function (function=...)"

    def __init__(self, function: Callable[[str, str], str] | None = None):
        if not callable(function):
            raise InputError(
                f"the custom operator needs function=<callable(original, label) -> str>, got {function!r}"
            )
        self.function = function

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        out = self.function(original, label)
        if not isinstance(out, str):
            raise InputError(f"the custom operator's function returned {type(out).__name__}, not a string")
        return out

    def no_guarantee_reason(self) -> str:
        return "a user function: its dependence on the original is unknown"
