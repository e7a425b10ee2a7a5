"""The model cache (``$DEID_HF_CACHE``): entries built once into a temporary folder and renamed into
place, rebuilt when the transformers version, the format or the recipe that built them changes."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from ..errors import CacheError
from ..paths import cache_dir

CACHE_META = "deid_hf_cache.json"
#: bump when what a conversion writes changes; entries of another format are rebuilt
CACHE_FORMAT = 2


def transformers_version() -> str:
    """The running transformers version: a cache entry records the one that wrote it."""
    return importlib.metadata.version("transformers")


def read_cache_meta(entry: Path) -> dict | None:
    """The metadata a cache entry was written with (None: no entry); CacheError when unreadable."""
    meta = entry / CACHE_META
    if not meta.is_file():
        return None
    try:
        return json.loads(meta.read_text())
    except (OSError, ValueError) as exc:
        raise CacheError(
            f"cache entry {entry} is unreadable ({exc.__class__.__name__}); delete it or run "
            f"`deid-hf models --rebuild`"
        ) from None


def is_fresh(meta: dict | None, recipe: str = "") -> bool:
    """Whether an entry's metadata matches this transformers version, the cache format and ``recipe``."""
    return (
        meta is not None
        and meta.get("transformers_version") == transformers_version()
        and meta.get("format") == CACHE_FORMAT
        and meta.get("recipe", "") == recipe
    )


def cached_entry(
    name: str, build: Callable[[Path], dict], *, rebuild: bool = False, recipe: str = ""
) -> Path:
    """Directory ``<cache>/<name>`` built by ``build(tmp_dir)``; rebuilt when the transformers version or the
    ``recipe`` changed.

    ``build`` writes into a fresh temporary directory and returns metadata; the directory is renamed into
    place only when it is complete, so an interrupted build never leaves a broken entry behind.
    """
    root = cache_dir()
    entry = root / name
    meta = None if rebuild else read_cache_meta(entry)
    if is_fresh(meta, recipe):
        return entry
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".tmp-{name}-{uuid.uuid4().hex}"
        tmp.mkdir()
    except OSError as exc:
        raise CacheError(
            f"cannot write the deid-hf cache at {root} ({exc.strerror or exc}); set DEID_HF_CACHE to a "
            f"writable directory"
        ) from None
    try:
        info = build(tmp)
        (tmp / CACHE_META).write_text(
            json.dumps(
                {
                    **info,
                    "transformers_version": transformers_version(),
                    "format": CACHE_FORMAT,
                    "recipe": recipe,
                }
            )
        )
        replace_folder(tmp, entry)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return entry


def replace_folder(complete: Path, target: Path) -> None:
    """``complete`` (a folder assembled beside ``target``) renamed into place; a folder already at ``target``
    is renamed aside first and removed after, so ``target`` is never left half-written."""
    if not target.exists():
        complete.rename(target)
        return
    stale = target.parent / f".old-{target.name}-{uuid.uuid4().hex}"
    target.rename(stale)
    complete.rename(target)
    shutil.rmtree(stale, ignore_errors=True)
