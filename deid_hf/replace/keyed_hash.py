"""Keyed hash: HMAC-SHA256 of the original under the user's secret (Presidio's ``hash``, but never
unsalted: without a key it refuses to run). Equal originals give equal hashes, so records stay linkable."""

from __future__ import annotations

import hashlib
import hmac
import random

from ..errors import InputError
from .base import Strategy
from .keys import DEFAULT_KEY_ENV, resolve_key, subkey


class KeyedHash(Strategy):
    name = "hash"
    needs_key = True

    def __init__(self, key: str | bytes | None = None, key_env: str = DEFAULT_KEY_ENV, length: int = 16):
        if isinstance(length, bool) or not isinstance(length, int) or not 8 <= length <= 64:
            raise InputError(f"hash length must be an integer from 8 to 64 hex digits, got {length!r}")
        self.key = subkey(resolve_key(key, key_env, "hash"), "deid-hf hmac")
        self.length = length

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return hmac.new(self.key, original.encode(), hashlib.sha256).hexdigest()[: self.length]

    def no_guarantee_reason(self) -> str:
        return (
            "deterministic keyed hash: equal originals give equal outputs (linkable), and whoever holds the "
            "key can confirm a guessed original"
        )
