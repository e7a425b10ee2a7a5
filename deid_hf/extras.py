"""Optional dependencies, grouped as the extras of pyproject.toml: a missing one is a `MissingExtraError`
naming the ``pip install deid-hf[...]`` that adds it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .errors import MissingExtraError

#: extra -> the top-level modules it provides
EXTRAS = {
    "eval": ("accelerate", "evaluate", "matplotlib"),
    "serve": ("fastapi", "uvicorn", "httpx", "gradio"),
    "ray": ("ray",),
}


@contextmanager
def extra(name: str, feature: str) -> Iterator[None]:
    """Imports inside the block that fail for a module of extra ``name`` raise `MissingExtraError`."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRAS[name]:
            raise
        raise MissingExtraError(
            f"{feature} needs {exc.name}, which is not installed: pip install 'deid-hf[{name}]'"
        ) from None
