"""Re-identification (Presidio's DeanonymizeEngine): put the originals back into de-identified text.

Two exact routes: the ``[ENC:...]`` envelopes of the encrypt operator, decrypted with the key; or a
``restore`` list ([start, end, surrogate, original] in the de-identified text, from ``return_mapping=True``)
for any operator. Restore lists reach disk only sealed with the key, record by record
(`SealedMappingPipe`, `write_mapping`, `read_mapping`: AES-256-GCM), never in clear.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .replace.encrypt import ENVELOPE, decrypt_envelopes
from .replace.keys import DEFAULT_KEY_ENV, resolve_key, seal, unseal
from .text import utf8_safe


def restore_text(text: str, restore: list) -> str:
    """``text`` with each [start, end, surrogate, original] put back; refuses a list that does not fit."""
    pieces, cursor = [], 0
    for entry in sorted(restore, key=lambda e: e[0]):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 4):
            raise InputError(f"a restore entry is [start, end, surrogate, original], got {entry!r}")
        start, end, surrogate, original = entry
        if start < cursor or text[start:end] != surrogate:
            raise InputError(
                f"the text does not match its mapping at characters {start}-{end}: "
                f"was it edited after de-identification?"
            )
        pieces += [text[cursor:start], original]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def reidentify(text: str, restore: list | None = None, key=None, key_env: str = DEFAULT_KEY_ENV) -> str:
    """The original of a de-identified ``text`` (see module docstring)."""
    if not isinstance(text, str):
        raise InputError(f"expected a de-identified string, got {type(text).__name__}")
    if restore is not None:
        return restore_text(text, restore)
    if not ENVELOPE.search(text):
        raise InputError(
            "nothing to re-identify: the text holds no [ENC:...] envelope (use the encrypt operator, or "
            "pass the record's restore list / an encrypted mapping file)"
        )
    return decrypt_envelopes(text, key, key_env)


#: the mapping file's format: each entry seals the record's restore list with the SHA-256 of its
#: de-identified text (format 1 sealed the list alone, and is still read)
MAPPING_FORMAT = "deid-hf-mapping-2"
READABLE_FORMATS = ("deid-hf-mapping-1", MAPPING_FORMAT)


@dataclass(frozen=True)
class MappingEntry:
    """One record's entry of a mapping file: its restore list and the digest of the de-identified text it was
    written for (None in a format-1 file)."""

    restore: list
    text_sha256: str | None = None


def text_digest(text: str) -> str:
    """SHA-256 of ``text`` as every output format holds it (a lone surrogate as U+FFFD, `text.utf8_safe`)."""
    return hashlib.sha256(utf8_safe(text).encode("utf-8")).hexdigest()


def seal_restore(restore: list, key: bytes, text: str | None = None) -> str:
    """One record's restore list, with the digest of its de-identified ``text``, sealed (AES-256-GCM) and
    base64-encoded."""
    payload = {"restore": restore, "text_sha256": text_digest(text)} if text is not None else restore
    return base64.b64encode(seal(key, json.dumps(payload, ensure_ascii=False).encode())).decode()


def open_restore(token: str, key: bytes) -> MappingEntry:
    damaged = "a mapping entry does not hold a restore list: is the file damaged?"
    try:
        blob = base64.b64decode(token, validate=True)
    except (ValueError, TypeError):
        raise InputError("a mapping entry is not base64: is this a deid-hf mapping file?") from None
    try:
        payload = json.loads(unseal(key, blob))
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(damaged) from None
    if isinstance(payload, dict) and isinstance(payload.get("restore"), list):
        return MappingEntry(payload["restore"], payload.get("text_sha256"))
    if not isinstance(payload, list):
        raise InputError(damaged)
    return MappingEntry(payload)


def restore_entry(text: str, entry: MappingEntry, row: int) -> str:
    """``text`` (record ``row`` of a de-identified corpus) restored from its mapping entry; refuses a text
    that is not the one the entry was written for (rows reordered, filtered or edited). Two rows whose
    de-identified texts are the same cannot be told apart: keep the rows in the order the run wrote them."""
    if entry.text_sha256 is not None and text_digest(text) != entry.text_sha256:
        raise InputError(
            f"record {row} is not the record its mapping entry was written for: were the rows of the "
            "de-identified file reordered, filtered or edited? Restore the file as the run wrote it"
        )
    return restore_text(text, entry.restore)


class SealedMappingPipe:
    """Wraps a `deid-substitution` pipeline for corpus runs: every result carries its restore list sealed
    with the key (``restore``, a string) and no clear mapping, so partial and final files hold only
    ciphertext."""

    #: a corpus run fingerprints it: a resume must seal every row's mapping or none
    seals_mapping = True

    def __init__(self, pipe, key=None, key_env: str = DEFAULT_KEY_ENV):
        self.pipe, self.key = pipe, resolve_key(key, key_env, "mapping file")

    def __getattr__(self, name: str):
        """The rest (options, detector, model: what a corpus run fingerprints and fits) is the pipe's."""
        return getattr(self.__dict__["pipe"], name)

    def __call__(self, inputs, **options):
        results = self.pipe(inputs, return_mapping=True, **options)
        for result in results if isinstance(results, list) else [results]:
            result.pop("mapping", None)
            result["restore"] = seal_restore(result["restore"], self.key, result.get("text"))
        return results


def write_mapping(path: str | Path, sealed: dict[int, str]) -> None:
    """Write record index -> sealed restore list (each entry already encrypted) atomically."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({"format": MAPPING_FORMAT, "records": {str(i): t for i, t in sealed.items()}}))
    with open(tmp, "rb+") as written:
        os.fsync(written.fileno())
    os.replace(tmp, path)


def read_mapping(path: str | Path, key=None, key_env: str = DEFAULT_KEY_ENV) -> dict[int, MappingEntry]:
    """Record index -> its entry (`restore_entry` puts the originals back), decrypted with the key."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"mapping file {path} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        data = None
    if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
        raise InputError(f"{path} is not a deid-hf mapping file")
    records = data.get("records")
    if not isinstance(records, dict) or not all(
        isinstance(i, str) and i.isdigit() and isinstance(t, str) for i, t in records.items()
    ):
        raise InputError(f"{path} is damaged: its records are not row number -> sealed entry")
    raw = resolve_key(key, key_env, "mapping file")
    return {int(i): open_restore(token, raw) for i, token in records.items()}
