"""Replacement strategies: one module each; add a strategy = one file + one line in ``STRATEGIES``."""

from __future__ import annotations

from ..errors import InputError
from .base import Strategy
from .full_entity import FullEntity
from .named_placeholder import NamedPlaceholder
from .redact import Redact
from .typed_placeholder import TypedPlaceholder
from .word_by_word import WordByWord
from .zsts import ZSTSSubstitution

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls
    for cls in (Redact, TypedPlaceholder, NamedPlaceholder, WordByWord, FullEntity, ZSTSSubstitution)
}


def get_strategy(strategy: str | Strategy, model=None, tokenizer=None, **options) -> Strategy:
    """A strategy by registry name (LM-based ones get ``model``/``tokenizer``) or the instance itself."""
    if isinstance(strategy, Strategy):
        return strategy
    if strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    cls = STRATEGIES[strategy]
    if cls.needs_lm:
        options = {"model": model, "tokenizer": tokenizer, **options}
    try:
        return cls(**options)
    except TypeError as exc:
        raise InputError(f"invalid options for strategy {strategy!r}: {exc}") from None


__all__ = ["STRATEGIES", "Strategy", "get_strategy"]
