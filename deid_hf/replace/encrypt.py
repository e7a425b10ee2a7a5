"""Encrypt: deterministic AES-SIV under the user's key (Presidio's ``encrypt``), reversible with
`decrypt_envelopes` (``pipe.reidentify``, ``deid-hf reidentify``). The ciphertext is written as
``[ENC:<urlsafe base64>]`` so it can be found again in the text; equal originals give equal envelopes."""

from __future__ import annotations

import base64
import random
import re

from ..errors import InputError
from .base import Strategy
from .keys import DEFAULT_KEY_ENV, resolve_key, siv_cipher

ENVELOPE = re.compile(r"\[ENC:([A-Za-z0-9_-]+)\]")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Encrypt(Strategy):
    name = "encrypt"
    needs_key = True
    #: the output hides the original and `reidentify` restores it exactly (`Strategy.reversible`)
    reversible = True

    def __init__(self, key: str | bytes | None = None, key_env: str = DEFAULT_KEY_ENV):
        self.cipher = siv_cipher(resolve_key(key, key_env, "encrypt"))

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return f"[ENC:{_b64(self.cipher.encrypt(original.encode(), None))}]"

    def no_guarantee_reason(self) -> str:
        return (
            "reversible encryption: whoever holds the key recovers the original, and equal originals give "
            "equal ciphertexts (linkable)"
        )


def decrypt_envelopes(text: str, key: str | bytes | None = None, key_env: str = DEFAULT_KEY_ENV) -> str:
    """``text`` with every ``[ENC:...]`` envelope replaced by its plaintext."""
    from cryptography.exceptions import InvalidTag

    cipher = siv_cipher(resolve_key(key, key_env, "encrypt"))

    def plain(match: re.Match) -> str:
        try:
            return cipher.decrypt(_unb64(match.group(1)), None).decode()
        except (InvalidTag, ValueError):
            raise InputError(
                f"the envelope at character {match.start()} does not decrypt with this key "
                f"(wrong key or altered text)"
            ) from None

    return ENVELOPE.sub(plain, text)
