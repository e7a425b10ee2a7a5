"""Replacement strategies and their registry: add a strategy = one module + one `register_strategy` call.

A registered name parses in `get_strategy`, the pipelines' ``strategy=``, the CLI's ``--strategy`` (its
``choices``) and error messages; the README test checks that it is documented.
"""

from __future__ import annotations

from ..errors import InputError
from .base import Strategy
from .full_entity import FullEntity
from .named_placeholder import NamedPlaceholder
from .redact import Redact
from .typed_placeholder import TypedPlaceholder
from .word_by_word import WordByWord
from .zsts import ZSTSSubstitution

#: name -> Strategy class, in registration order
STRATEGIES: dict[str, type[Strategy]] = {}


def register_strategy(cls: type[Strategy]) -> type[Strategy]:
    """Register ``cls`` under ``cls.name`` (like Presidio's ``add_operator``); usable as a class decorator.
    Re-registering a name replaces it."""
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise InputError(f"register_strategy needs a Strategy subclass, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise InputError(f"{cls.__name__} needs a class attribute `name` (its registry name)")
    STRATEGIES[name] = cls
    return cls


def strategy_names() -> list[str]:
    """The registered strategy names, in registration order."""
    return list(STRATEGIES)


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


for _cls in (Redact, TypedPlaceholder, NamedPlaceholder, WordByWord, FullEntity, ZSTSSubstitution):
    register_strategy(_cls)

__all__ = ["STRATEGIES", "Strategy", "get_strategy", "register_strategy", "strategy_names"]
