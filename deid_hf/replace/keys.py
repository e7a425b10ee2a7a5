"""The user's secret key for the keyed operators (hash, encrypt) and encrypted mapping files.

The key never travels with a saved pipeline: it is passed as ``key=`` (str or bytes, at least 16 bytes) or
read from the environment variable named by the operator's ``key_env`` (default ``DEID_HF_KEY``). Each use
gets its own sub-key, HMAC-SHA256(key, purpose), so a hash never reveals the encryption key's output.
`generate_key` gives a fresh random key (``deid-hf keygen``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets

from ..errors import InputError

DEFAULT_KEY_ENV = "DEID_HF_KEY"
MIN_KEY_BYTES = 16
_SEALED_MAGIC = b"DEIDHF-SEALED-1\n"


def generate_key() -> str:
    """A random 256-bit key, urlsafe base64 (paste it into ``DEID_HF_KEY``)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()


def resolve_key(key: str | bytes | None, key_env: str | None, operator: str) -> bytes:
    """The key bytes, from ``key`` or else the environment variable ``key_env``; refuse a missing or short
    key (a hash without a secret can be reversed by hashing guesses)."""
    if key is None and key_env:
        key = os.environ.get(key_env) or None
    if key is None:
        raise InputError(
            f"the {operator} operator needs a secret key: pass key=... or set the environment variable "
            f"{key_env or DEFAULT_KEY_ENV} (e.g. to the output of `deid-hf keygen`); it never runs unkeyed"
        )
    raw = key.encode() if isinstance(key, str) else bytes(key)
    if len(raw) < MIN_KEY_BYTES:
        raise InputError(f"the {operator} key is too short: at least {MIN_KEY_BYTES} bytes are needed")
    return raw


def subkey(key: bytes, purpose: str, length: int = 32) -> bytes:
    """HMAC-SHA256 expansion of ``key`` for one purpose (HKDF-Expand, RFC 5869, with a fixed PRK)."""
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(key, block + purpose.encode() + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def _aead():
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESSIV
    except ImportError:  # pragma: no cover - cryptography is a dependency
        raise InputError("encryption needs the 'cryptography' package: pip install cryptography") from None
    return AESGCM, AESSIV


def siv_cipher(key: bytes):
    """Deterministic AES-SIV (RFC 5297) with a 512-bit sub-key: equal plaintexts, equal ciphertexts."""
    return _aead()[1](subkey(key, "deid-hf aes-siv", 64))


def seal(key: bytes, data: bytes) -> bytes:
    """Randomised authenticated encryption (AES-256-GCM, random 96-bit nonce) of a mapping file."""
    aesgcm = _aead()[0](subkey(key, "deid-hf mapping file"))
    nonce = secrets.token_bytes(12)
    return _SEALED_MAGIC + nonce + aesgcm.encrypt(nonce, data, _SEALED_MAGIC)


def unseal(key: bytes, blob: bytes) -> bytes:
    from cryptography.exceptions import InvalidTag

    if not blob.startswith(_SEALED_MAGIC):
        raise InputError("not a deid-hf encrypted mapping file")
    body = blob[len(_SEALED_MAGIC) :]
    try:
        return _aead()[0](subkey(key, "deid-hf mapping file")).decrypt(body[:12], body[12:], _SEALED_MAGIC)
    except InvalidTag:
        raise InputError(
            "the mapping file does not decrypt with this key (wrong key or altered file)"
        ) from None
