"""Replacement strategies: one module each; add a strategy = one file + one line in ``STRATEGIES``."""

from __future__ import annotations

from ..errors import InputError
from .base import Strategy
from .full_entity import FullEntity
from .named_placeholder import NamedPlaceholder
from .redact import Redact
from .typed_placeholder import TypedPlaceholder
from .word_by_word import WordByWord

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (Redact, TypedPlaceholder, NamedPlaceholder, WordByWord, FullEntity)
}


def get_strategy(strategy: "str | Strategy", **options) -> Strategy:
    if isinstance(strategy, Strategy):
        return strategy
    if strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    return STRATEGIES[strategy](**options)


__all__ = ["STRATEGIES", "Strategy", "get_strategy"]
