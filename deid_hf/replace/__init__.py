"""Replacement strategies and their registry: add a strategy = one module + one `register_strategy` call.

A registered name parses in `get_strategy`, the pipelines' ``strategy=``, the CLI's ``--strategy`` (its
``choices``) and error messages; the README test checks that it is documented.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError
from ..policies import Policy
from .base import Strategy
from .custom import Custom
from .date_shift import DateShift
from .encrypt import Encrypt
from .full_entity import FullEntity
from .keep import Keep
from .keyed_hash import KeyedHash
from .mask import Mask
from .named_placeholder import NamedPlaceholder
from .per_label import (
    DEFAULT_OPERATOR,
    HipaaAge,
    HipaaOldDate,
    PerLabel,
    check_operator_keys,
    operator_spec,
)
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


def unavailable(name: str, has_key: bool = True) -> str | None:
    """Why the registered strategy ``name`` cannot be offered on a command line or to a request (it needs a
    Python object, or a key the process lacks); None when it can."""
    cls = STRATEGIES[name]
    if cls.python_only:
        return f"{name} needs {cls.python_only}: use it from Python"
    if cls.needs_key and not has_key:
        return f"{name} needs a secret key (set DEID_HF_KEY, e.g. to the output of `deid-hf keygen`)"
    return None


def offered_strategies(has_key: bool = True) -> list[str]:
    """The registered strategies a command line or a request can use (see `unavailable`)."""
    return [name for name in STRATEGIES if unavailable(name, has_key) is None]


def needs_language_model(strategy) -> bool:
    """True when ``strategy`` (a name, a per-label mapping or a `Strategy`) draws its replacements with the
    pipeline's language model; unknown names count as not (`get_strategy` rejects them)."""
    if isinstance(strategy, Strategy):
        return strategy.needs_lm
    if isinstance(strategy, Mapping):
        return any(needs_language_model(_operator_name(value)) for value in strategy.values())
    return isinstance(strategy, str) and strategy in STRATEGIES and STRATEGIES[strategy].needs_lm


def _operator_name(value):
    """The registry name of one per-label entry (the entry itself when it is a `Strategy` or malformed)."""
    if isinstance(value, Strategy):
        return value
    try:
        return operator_spec(value)[0]
    except InputError:
        return value


def get_strategy(
    strategy: str | Strategy | Mapping, model=None, tokenizer=None, key=None, policy=None, **options
) -> Strategy:
    """A strategy by registry name (LM-based ones get ``model``/``tokenizer``, keyed ones ``key``), the
    instance itself, or a per-label mapping (`PerLabel`; ``options`` then go to the default operator)."""
    if isinstance(strategy, Strategy):
        return strategy
    if isinstance(strategy, Mapping):
        check_operator_keys(strategy)
        built = {}
        for label, value in strategy.items():
            name, own = operator_spec(value)
            extra = options if label == "default" else {}
            built[label] = _build(name, model, tokenizer, key, {**extra, **own})
        default = built.pop("default", None) or _build(DEFAULT_OPERATOR, model, tokenizer, key, options)
        if policy == Policy.HIPAA:
            for label, wrapper in (("AGE", HipaaAge), ("DATE_TIME", HipaaOldDate)):
                operator = built.get(label, default)
                if operator.replacement_distribution(label) is None and not operator.reversible:
                    built[label] = wrapper(operator)
        return PerLabel(built, default)
    if strategy == "date_shift":
        raise InputError(
            "date_shift applies to dates only: use it per label, e.g. "
            "strategy={'DATE_TIME': 'date_shift', 'default': 'full_entity'}"
        )
    single = _build(strategy, model, tokenizer, key, options)
    # placeholders already hide every age and date; encryption hides them and must restore them exactly
    if policy == Policy.HIPAA and not single.reversible:
        wrapped = {
            label: wrapper(single)
            for label, wrapper in (("AGE", HipaaAge), ("DATE_TIME", HipaaOldDate))
            if single.replacement_distribution(label) is None
        }
        return PerLabel(wrapped, single) if wrapped else single
    return single


def _build(strategy, model, tokenizer, key, options: dict) -> Strategy:
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    cls = STRATEGIES[strategy]
    if cls.needs_lm:
        options = {"model": model, "tokenizer": tokenizer, **options}
    if cls.needs_key:
        options = {"key": key, **options}
    try:
        return cls(**options)
    except TypeError as exc:
        raise InputError(f"invalid options for strategy {strategy!r}: {exc}") from None


for _cls in (
    Redact,
    TypedPlaceholder,
    NamedPlaceholder,
    WordByWord,
    FullEntity,
    ZSTSSubstitution,
    Mask,
    KeyedHash,
    Encrypt,
    Keep,
    Custom,
    DateShift,
):
    register_strategy(_cls)

__all__ = [
    "STRATEGIES",
    "Strategy",
    "get_strategy",
    "needs_language_model",
    "offered_strategies",
    "register_strategy",
    "strategy_names",
    "unavailable",
]
