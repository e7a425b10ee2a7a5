"""Format-preserving random digits (ZSTS numbers; phones, IDs in full-entity replacement)."""

from __future__ import annotations

import random


def random_digits_like(original: str, rng: random.Random) -> str:
    """Every digit replaced by a uniform random digit; letters, separators and length kept.

    A leading digit stays non-zero so a number keeps its magnitude.
    """
    out = []
    for i, ch in enumerate(original):
        if ch.isdigit():
            first = i == 0 or not original[i - 1].isdigit()
            out.append(str(rng.randint(1, 9) if first and ch != "0" else rng.randint(0, 9)))
        else:
            out.append(ch)
    return "".join(out)
