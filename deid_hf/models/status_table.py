"""The rows of `deid-hf models`: every offline default, where it lives and whether it is ready to load."""

from __future__ import annotations

from pathlib import Path

from ..errors import CacheError, ModelUnavailableError
from ..paths import cache_dir
from .cache import is_fresh, read_cache_meta
from .integrity import folder_digest
from .registry import REGISTRY, SHIPPED, ModelSpec, package_file


def _shipped_row(spec: ModelSpec, located: Path) -> dict:
    """The `status` fields of a shipped folder: version, size, digest; an adapter's path is its merged
    model in the cache."""
    shipped = {
        "package": f"{SHIPPED} ({'adapter' if spec.kind == 'paraphraser' else 'model'} {spec.version})",
        "version": spec.version,
        "bytes": sum(p.stat().st_size for p in located.rglob("*") if p.is_file()),
        "digest": folder_digest(located)[:16],
    }
    if spec.kind != "paraphraser":
        return {**shipped, "path": str(located), "ready": True, "note": "shipped"}
    entry = cache_dir() / spec.name
    try:
        fresh = is_fresh(read_cache_meta(entry), folder_digest(located))
    except CacheError:
        fresh = False
    where = f"adapter in {located}"
    note = f"cached ({where})" if fresh else f"merged into smollm2-135m on first use ({where})"
    return {**shipped, "path": str(entry), "ready": fresh, "note": note}


def status() -> list[dict]:
    """One row per offline default: installed, where it lives, whether it is ready to load."""
    rows = []
    for spec in REGISTRY.values():
        row = {
            "name": spec.name,
            "kind": spec.kind,
            "package": f"{spec.distribution}=={spec.version}",
            "description": spec.description,
        }
        try:
            located = package_file(spec)
        except ModelUnavailableError as exc:
            shipped = spec.distribution == SHIPPED
            note = str(exc) if shipped else f"run `{spec.install_command}`"
            package = f"{SHIPPED} (model {spec.version})" if shipped else row["package"]
            rows.append({**row, "package": package, "path": None, "ready": False, "note": note})
            continue
        if spec.distribution == SHIPPED:
            rows.append({**row, **_shipped_row(spec, located)})
        elif spec.kind == "causal-lm":
            entry = cache_dir() / spec.name
            try:
                meta = read_cache_meta(entry)
            except CacheError as exc:
                rows.append({**row, "path": str(entry), "ready": False, "note": str(exc)})
                continue
            fresh = is_fresh(meta)
            note = "cached" if fresh else "converted on first use (about 30 s)"
            rows.append({**row, "path": str(entry), "ready": fresh, "note": note})
        else:
            rows.append({**row, "path": str(located), "ready": True, "note": "in package"})
    return rows
