"""`deid-hf serve`: an HTTP service (FastAPI + uvicorn) with dynamic batching and a Gradio UI at ``/ui``.

Needs the ``serve`` extra (``pip install deid-hf[serve]``); `require` names it when a package is missing.
``config`` and ``batching`` import no web framework.
"""

from __future__ import annotations

import importlib

from ..errors import MissingDependencyError


def require(*modules: str, extra: str = "serve"):
    """Import ``modules`` or raise a deid-hf error naming the extra that installs them."""
    loaded = []
    for name in modules:
        try:
            loaded.append(importlib.import_module(name))
        except ImportError:
            raise MissingDependencyError(f"{name} is not installed: pip install 'deid-hf[{extra}]'") from None
    return loaded[0] if len(loaded) == 1 else loaded


__all__ = ["require"]
