"""Randomized-response application of a strategy to the detected spans of one document."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from ..spans import Span
from .base import Strategy

_WORD = re.compile(r"\S+")


@dataclass
class Replacement:
    """One detected unit (a span, or a word of it for per-word strategies) and what became of it."""

    start: int
    end: int
    label: str
    score: float
    source: str
    replaced: bool
    replacement: str | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class SubstitutionTable:
    """(label, original) -> surrogate; kept per document, or shared across a corpus by passing one in."""

    entries: dict[tuple[str, str], str] = field(default_factory=dict)
    #: strategy state shared by the documents of this table (name parts, date offset)
    state: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {f"{label}:{original}": surrogate for (label, original), surrogate in self.entries.items()}


def units(text: str, span: Span, per_word: bool) -> list[tuple[int, int]]:
    if not per_word:
        return [(span.start, span.end)]
    return [
        (span.start + m.start(), span.start + m.end()) for m in _WORD.finditer(text[span.start : span.end])
    ]


def apply_strategy(
    text: str,
    spans: list[Span],
    strategy: Strategy,
    p: float,
    rng: random.Random,
    table: SubstitutionTable,
    original: str | None = None,
) -> tuple[str, list[Replacement]]:
    """Replace each unit with probability ``p`` (randomized response); ``spans`` must not overlap.
    ``original``: the text before `deid_hf.text.model_text` (same offsets), which a reversible operator
    reads so that it restores every character exactly."""
    pieces, records, cursor = [], [], 0
    strategy.prepare(text, spans, table)
    for span in sorted(spans, key=lambda s: s.start):
        operator = strategy.for_label(span.label)
        for start, end in units(text, span, operator.per_word):
            unit = text[start:end]
            replaced = rng.random() < p
            source = original if original is not None and operator.reversible else text
            surrogate = operator.replace(source, start, end, span.label, rng, table) if replaced else None
            replaced = surrogate is not None
            pieces.append(text[cursor:start])
            pieces.append(surrogate if replaced else unit)
            cursor = end
            records.append(Replacement(start, end, span.label, span.score, span.source, replaced, surrogate))
    pieces.append(text[cursor:])
    return "".join(pieces), records
