"""Keep: the original stays (Presidio's ``keep``): for labels a user decides not to protect."""

from __future__ import annotations

import random

from .base import Strategy


class Keep(Strategy):
    name = "keep"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return original

    def no_guarantee_reason(self) -> str:
        return "the original is kept"
