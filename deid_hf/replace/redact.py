"""Redact: a fixed non-word token (Adelani et al. 2020, "Redact"); epsilon = 0 at p = 1."""

from __future__ import annotations

import random

from .base import Strategy

REDACTED = "[REDACTED]"


class Redact(Strategy):
    name = "redact"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return REDACTED

    def replacement_distribution(self, label: str) -> dict[str, float]:
        return {REDACTED: 1.0}
