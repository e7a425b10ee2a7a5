"""Named detection rules, their registry and the record of what each decided.

A rule is a small object with a ``name``, the ``labels`` it decides, ``examples`` and a ``reason`` (Presidio's
``Pattern(name, regex, score)`` and ``invalidate_result`` are the model). Families: ``dates`` and ``phones``
(spans found by a pattern), ``identifiers`` (which detector spans the hipaa policy keeps: the first rule that
applies to a span decides), ``learned`` (drops from a policy-trained model's spans) and ``context`` (the
clinical context rules). Each decision is written to the active `recording` as a `Decision`, so "why did
this span survive or vanish?" is a lookup.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import InputError
from ...spans import Overlaps, Span

if TYPE_CHECKING:
    from ..lexicon import Vocabulary


@dataclass(frozen=True, kw_only=True)
class Rule:
    """A named rule: what it decides (``labels``; empty: any label), why, and texts it decides."""

    name: str
    family: str
    labels: tuple[str, ...] = ()
    reason: str
    #: texts on which the rule decides (what it finds, keeps or drops)
    examples: tuple[str, ...] = ()

    def covers(self, label: str) -> bool:
        return not self.labels or label in self.labels


@dataclass(frozen=True)
class Seen:
    """What a rule reads besides the span: the text the detectors saw, the corpus vocabulary, the text
    before case restoration where it differs, and what the model trained on the policy's gold finds at its
    support threshold (`ner.SUPPORT_THRESHOLD`; None where no such model reads the text)."""

    text: str
    vocabulary: Vocabulary | None = None
    original: str | None = None
    support: Sequence[Span] | None = None

    @functools.cached_property
    def _support_index(self) -> Overlaps:  # built once per text: a bisection per span, not a scan
        return Overlaps(self.support or ())

    def supported(self, span: Span) -> bool:
        """Whether the model's support spans (`support`, not None) overlap ``span``."""
        return self._support_index(span.start, span.end)


@dataclass(frozen=True, kw_only=True)
class SpanRule(Rule):
    """Decides a span of its labels when ``applies(seen, span, piece)`` (``piece``: the span's text):
    ``keep(seen, span)`` gives what stays."""

    applies: Callable[[Seen, Span, str], bool] = lambda seen, span, piece: True
    keep: Callable[[Seen, Span], list[Span]]


class RuleRegistry:
    """Rules by family, in the order they apply; a name is registered once (``replace=True`` to swap)."""

    def __init__(self) -> None:
        self._families: dict[str, list[Rule]] = {}

    def add(self, rule: Rule, *, before: str | None = None, replace: bool = False) -> Rule:
        """Register ``rule`` at the end of its family, or ``before`` the rule of that name."""
        family = self._families.setdefault(rule.family, [])
        taken = [i for i, r in enumerate(family) if r.name == rule.name]
        if taken and not replace:
            raise InputError(f"a {rule.family} rule named {rule.name!r} is already registered")
        if taken:
            family[taken[0]] = rule
            return rule
        if self.find(rule.name) is not None:
            raise InputError(f"a rule named {rule.name!r} is already registered in another family")
        names = [r.name for r in family]
        if before is not None and before not in names:
            raise InputError(f"no {rule.family} rule named {before!r} to insert {rule.name!r} before")
        family.insert(names.index(before) if before is not None else len(family), rule)
        return rule

    def remove(self, name: str) -> None:
        for family in self._families.values():
            family[:] = [r for r in family if r.name != name]

    def family(self, name: str) -> list[Rule]:
        return list(self._families.get(name, ()))

    def find(self, name: str) -> Rule | None:
        return next((r for rules in self._families.values() for r in rules if r.name == name), None)

    def __iter__(self) -> Iterator[Rule]:
        return (rule for rules in self._families.values() for rule in rules)


#: every named rule of the detection policy
RULES = RuleRegistry()


def register_rule(rule: Rule, *, before: str | None = None, replace: bool = False) -> Rule:
    """Add ``rule`` to `RULES` (a duplicate name is refused unless ``replace``)."""
    return RULES.add(rule, before=before, replace=replace)


@dataclass(frozen=True)
class Decision:
    """What a rule or stage did to a span: ``kept`` (found, kept, trimmed or relabelled) or dropped."""

    start: int
    end: int
    label: str
    source: str
    rule: str
    kept: bool

    def to_dict(self, text: str) -> dict:
        return {
            "start": self.start,
            "end": self.end,
            "text": text[self.start : self.end],
            "label": self.label,
            "source": self.source,
            "rule": self.rule,
            "kept": self.kept,
        }


_DECISIONS: contextvars.ContextVar[list[Decision] | None] = contextvars.ContextVar(
    "deid_hf_decisions", default=None
)


@contextlib.contextmanager
def recording() -> Iterator[list[Decision]]:
    """Collect the `Decision`s made inside the block (one document at a time: offsets are its own)."""
    log: list[Decision] = []
    token = _DECISIONS.set(log)
    try:
        yield log
    finally:
        _DECISIONS.reset(token)


def decided(rule: str, span: Span, kept: bool) -> None:
    """Note that ``rule`` kept or dropped ``span`` (nothing happens outside `recording`)."""
    log = _DECISIONS.get()
    if log is not None:
        log.append(Decision(span.start, span.end, span.label, span.source, rule, kept))


def decided_all(rule: str, spans: Sequence[Span], kept: bool) -> None:
    if _DECISIONS.get() is not None:
        for span in spans:
            decided(rule, span, kept)


def recording_active() -> bool:
    return _DECISIONS.get() is not None


@dataclass(frozen=True, kw_only=True)
class PatternRule(Rule):
    """A rule that finds spans of its one label by a regular expression (Presidio's ``Pattern``)."""

    pattern: str
    score: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern))

    def find(self, text: str, source: str) -> list[Span]:
        return [Span(*m.span(), self.labels[0], self.score, source) for m in self.compiled.finditer(text)]
