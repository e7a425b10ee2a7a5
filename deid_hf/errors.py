"""Exceptions with one-line, actionable messages (the CLI prints them without a traceback)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


class DeidError(Exception):
    """Base class: every error deid-hf raises on purpose."""


class InputError(DeidError, ValueError):
    """Bad input: empty text, wrong type, out-of-range parameter, unknown strategy."""


class ModelUnavailableError(DeidError, OSError):
    """A model name that cannot be resolved, or a model package that is not installed."""


class CacheError(DeidError, OSError):
    """The deid-hf cache directory or one of its entries cannot be read or written."""


class MissingExtraError(DeidError, ImportError):
    """A feature whose optional dependencies (an extra of deid-hf: onnx, train, eval) are not installed."""


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of an exception's message, at most ``limit`` characters (for one-line reports)."""
    return (str(exc).splitlines() or [""])[0][:limit]


def each_alone_on_failure(process: Callable[[list[T]], Sequence[R]], items: list[T]) -> list[R | Exception]:
    """``process(items)`` (one result per item); when that call raises, ``process([item])`` for each item
    alone, so that a bad item fails only itself: its exception takes its place among the results (returned,
    not raised). The one helper behind every batch of the pipelines, the service and the corpus run."""
    try:
        return list(process(items))
    except Exception as exc:  # noqa: BLE001 - the caller reports it per item
        if len(items) == 1:
            return [exc]
    results: list[R | Exception] = []
    for item in items:
        try:
            results.append(process([item])[0])
        except Exception as exc:  # noqa: BLE001 - reported for this item only
            results.append(exc)
    return results
