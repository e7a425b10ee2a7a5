"""Typed placeholder ``<PERSON>`` (value-class membership); epsilon = 0 at p = 1."""

from __future__ import annotations

import random

from .base import Strategy


class TypedPlaceholder(Strategy):
    name = "typed"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return f"<{label}>"

    def replacement_distribution(self, label: str) -> dict[str, float]:
        return {f"<{label}>": 1.0}
