"""Deprecation aliases of renamed public names: the old name keeps working and warns (transformers' style).

A module that renamed a name defines ``RENAMED = {"OldName": "NewName"}`` and
``__getattr__ = renamed_getattr(__name__, RENAMED, globals())``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

#: the release that removes the deprecated aliases
REMOVED_IN = "0.2.0"


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """A DeprecationWarning saying that ``old`` is now ``new``."""
    warnings.warn(
        f"{old} is deprecated and will be removed in deid-hf {REMOVED_IN}; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_getattr(module: str, renamed: Mapping[str, str], namespace: Mapping) -> Callable[[str], object]:
    """A module-level ``__getattr__`` that serves each old name of ``renamed`` as its new name, warning."""

    def __getattr__(name: str):
        if name in renamed:
            warn_renamed(f"{module}.{name}", f"{module}.{renamed[name]}")
            return namespace[renamed[name]]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
