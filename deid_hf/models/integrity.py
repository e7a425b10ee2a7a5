"""A shipped model folder's manifest (every file's size and SHA-256), written when the folder is packaged and
checked on first load."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from ..errors import ModelUnavailableError

#: a shipped folder's list of its files: ``{"files": {relative path: {"bytes", "sha256"}}}``
MANIFEST = "deid_hf_manifest.json"


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path) -> dict:
    """Write `MANIFEST` listing every file of ``folder`` (sizes and SHA-256), and return it."""
    files = {
        path.relative_to(folder).as_posix(): {"bytes": path.stat().st_size, "sha256": file_digest(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }
    manifest = {"files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def folder_digest(folder: Path) -> str:
    """One SHA-256 for a shipped folder: the digest of its manifest."""
    return file_digest(folder / MANIFEST)


def verified_folder(folder: Path) -> Path:
    """``folder`` when every file its manifest lists is there with the listed size and digest, else
    ModelUnavailableError naming the first bad file. A folder that passed is not checked again in this
    process (a file damaged later is found by the next process)."""
    _verify(str(folder))
    return folder


@functools.cache
def _verify(folder_name: str) -> None:
    folder = Path(folder_name)
    fix = "reinstall deid-hf (or `git checkout -- deid_hf/hub` in a clone)"
    try:
        files = json.loads((folder / MANIFEST).read_text())["files"]
        checks = [(name, int(entry["bytes"]), str(entry["sha256"])) for name, entry in files.items()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        checks = []
    if not checks:
        raise ModelUnavailableError(f"model folder {folder}: {MANIFEST} is missing or unreadable; {fix}")
    for name, size, sha256 in checks:
        path = folder / name
        if not path.is_file():
            raise ModelUnavailableError(f"model folder {folder}: {name} is missing; {fix}")
        if path.stat().st_size != size or file_digest(path) != sha256:
            raise ModelUnavailableError(
                f"model folder {folder}: {name} is damaged (size or SHA-256 differs from {MANIFEST}: a "
                f"partial copy or a checkout without its binary files); {fix}"
            )
