"""Per-label operators: ``{"PERSON": "full_entity", "ID": "redact", "DATE_TIME": "date_shift",
"default": "typed"}``; a value is an operator name, ``{"type": name, **options}`` or (Python only) a
callable ``f(original, label) -> str`` (the ``custom`` operator). Labels without an entry use ``default``
(``full_entity`` when absent). Under ``policy="hipaa"`` ages over 89 become "90+" and a date more than 89
years back comes out in the year 89 years back (HIPAA Safe Harbor, 45 CFR 164.514(b)(2)(i)(C)) unless the
operator is a placeholder, which hides every age and date anyway."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from datetime import date

from ..detect.text_shape import AGE_IN_WORDS, AGE_OVER_89_IN_WORDS, AGE_OVER_89_NOUNS, AGE_OVER_89_STATED
from ..errors import InputError
from ..spans import LABELS
from .base import Strategy
from .dates import CONTEXT_CHARS, rewrite_dates

DEFAULT_OPERATOR = "full_entity"
HIPAA_AGE_LIMIT = 89
_AGE_NOUN = re.compile(AGE_OVER_89_NOUNS, re.IGNORECASE)


class PerLabel(Strategy):
    name = "per_label"

    def __init__(self, operators: Mapping[str, Strategy], default: Strategy):
        self.operators, self.default = dict(operators), default

    def for_label(self, label: str) -> Strategy:
        return self.operators.get(label, self.default)

    def prepare(self, text: str, spans: list, table) -> None:
        operators = (getattr(op, "inner", op) for op in [*self.operators.values(), self.default])  # unwrapped
        for operator in {id(op): op for op in operators}.values():
            operator.prepare(text, spans, table)

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return self.for_label(label).surrogate(original, label, rng)


class HipaaCap(Strategy):
    """A wrapped operator with HIPAA's rule for ages over 89 on top (`HipaaAge`, `HipaaOldDate`)."""

    def __init__(self, inner: Strategy):
        self.inner = inner
        self.name = inner.name
        self.per_word, self.consistent = inner.per_word, inner.consistent

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return self.inner.surrogate(original, label, rng)


def stated_age(stated: str, age: str, decade: str) -> str:
    """What replaces a decade or a word that states an age (`AGE_OVER_89_STATED`): ``decade`` for a decade
    ("late 90s"), "``age``-year-old(s)" for a word ("centenarians" -> "90+-year-olds")."""
    if _AGE_NOUN.fullmatch(stated) is None:
        return decade
    return f"{age}-year-old" + ("s" if stated[-1] in "sS" else "")


class HipaaAge(HipaaCap):
    """Ages over 89 -> "90+" (the number inside the span, in digits or words; "92 years old", "ninety-two
    years old" -> "90+ years old"; a decade, "late 90s" -> "90+"; "a nonagenarian" -> "a 90+-year-old");
    other ages go to the wrapped operator."""

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        original = text[start:end]
        stated = AGE_OVER_89_STATED.search(original)  # no single number to cap
        if stated:
            return (
                original[: stated.start()]
                + stated_age(stated.group(), "90+", "90+")
                + original[stated.end() :]
            )
        number = re.search(r"\d+", original)
        if number and int(number.group(0)) > HIPAA_AGE_LIMIT:
            return original[: number.start()] + "90+" + original[number.end() :]
        words = AGE_IN_WORDS.search(original)  # "ninety-seven years old" -> "90+ years old"
        if words and AGE_OVER_89_IN_WORDS.match(original, words.start()):
            return original[: words.start()] + "90+" + original[words.end() :]
        return self.inner.replace(text, start, end, label, rng, table)

    def privacy_terms(self, label: str):
        name, pi, reason = self.inner.privacy_terms(label)
        return (
            name,
            None,
            "ages over 89 are capped to 90+ (HIPAA Safe Harbor), the output depends on the original",
        )


#: a span that is a 4-digit year alone ("DOB: 1925"), which the date reader leaves to its context
_BARE_YEAR = re.compile(r"\s*((?:18|19|20)\d\d)\s*")


class HipaaOldDate(HipaaCap):
    """After the wrapped operator, a date more than 89 years back comes out in the year 89 years before
    today, so that no date tells an age over 89 ("DOB 07/14/1931" -> "DOB 06/14/1937" in 2026: a shift of a
    year at most kept its year); a 2-digit year that would lie in the future is read as the last century's
    ("7/14/31"). Other dates are the operator's."""

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        this_year = date.today().year
        earliest = this_year - HIPAA_AGE_LIMIT
        written = self.inner.replace(text, start, end, label, rng, table)
        if written is None:  # kept by the operator: a year alone is still capped
            original = text[start:end]
            bare = _BARE_YEAR.fullmatch(original)
            if bare and int(bare[1]) < earliest:
                return original[: bare.start(1)] + str(earliest) + original[bare.end(1) :]
            return None

        two_digit = not re.search(r"\d{4}", written)  # "7/14/31" read as 2031: its writer meant 1931

        def capped(day: date, has_year: bool) -> date:
            year = day.year - 100 if two_digit and day.year > this_year else day.year
            if not has_year or year >= earliest:
                return day
            return day.replace(year=earliest, day=min(day.day, 28) if day.month == 2 else day.day)

        return rewrite_dates(written, capped, text[max(0, start - CONTEXT_CHARS) : start]) or written

    def privacy_terms(self, label: str):
        return self.inner.privacy_terms(label)


def operator_spec(value) -> tuple[str, dict]:
    """(operator name, options) of one per-label entry."""
    if isinstance(value, str):
        return value, {}
    if callable(value) and not isinstance(value, Strategy):
        return "custom", {"function": value}
    if isinstance(value, Mapping):
        if "type" not in value:
            raise InputError(
                f"operator {dict(value)!r} needs a 'type' (e.g. {{'type': 'mask', 'keep_last': 4}})"
            )
        return value["type"], {k: v for k, v in value.items() if k != "type"}
    raise InputError(f"an operator is a name, a {{'type': ...}} dict or a callable, got {value!r}")


def check_operator_keys(spec: Mapping) -> None:
    for label in spec:
        if label != "default" and label not in LABELS:
            raise InputError(
                f"unknown label {label!r} in the per-label strategy; use 'default' or one of "
                f"{', '.join(LABELS)}"
            )
    if "date_shift" in [operator_spec(v)[0] for k, v in spec.items() if k != "DATE_TIME"]:
        raise InputError("the date_shift operator applies to DATE_TIME only (it leaves non-dates unchanged)")


def with_operators(strategy, flags: list[str]):
    """``strategy`` (a name, a per-label dict or None) with ``LABEL=OPERATOR`` flags merged in, as a
    per-label dict (``--operator DATE_TIME=date_shift --operator ID=mask:keep_last=4``); options after ":"
    are ``name=value`` pairs separated by ",", values read as JSON where they parse (numbers, true/false)."""
    if not flags:
        return strategy
    spec = (
        dict(strategy) if isinstance(strategy, Mapping) else {} if strategy is None else {"default": strategy}
    )
    for flag in flags:
        label, sep, operator = flag.partition("=")
        if not sep or not label.strip() or not operator.strip():
            raise InputError(f"--operator expects LABEL=OPERATOR (e.g. DATE_TIME=date_shift), got {flag!r}")
        name, _, options = operator.partition(":")
        entry = {"type": name.strip(), **_options(flag, options)} if options else name.strip()
        spec[label.strip()] = entry
    check_operator_keys(spec)
    return spec


def _options(flag: str, text: str) -> dict:
    import json

    options = {}
    for pair in text.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--operator {flag!r}: options are name=value pairs separated by ','")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options
