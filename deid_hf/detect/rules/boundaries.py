"""Exact span boundaries, whatever detector or rule found a span (`exact_boundaries`, the ``word boundaries``
detection stage): edges snapped out to whole words (`spans.snap_to_words`: "Swan-Gan|z|", "Hod|gkin|" never
stay cut), then a name's edges without the frequent lower-case words and the possessive no name has
(`learned_spans.trim_common_words`: "Tanaka reviewed", "Tanaka's"). A boundary rule moves edges; it never
drops a span (where nothing of a name would be left, the span stays as found)."""

from __future__ import annotations

from collections.abc import Sequence

from ...spans import Span, merge_spans, snap_to_words
from ..learned_spans import trim_common_words
from . import Rule, decided, register_rule
from .identifiers import NAMED

WHOLE_WORDS = register_rule(
    Rule(
        name="boundary.whole-words",
        family="boundaries",
        reason="a span edge inside a word is moved out to the word's edge: words are never cut",
        examples=("Swan-Ganz", "Hodgkin lymphoma", "Jean-Luc"),
    )
)
NAME_EDGES = register_rule(
    Rule(
        name="boundary.name-edge-words",
        family="boundaries",
        labels=tuple(sorted(NAMED)),
        reason="a frequent lower-case word at a name's edge (in a text that capitalises names) and a "
        "person's or place's possessive are no part of the name",
        examples=("Dr. Tanaka reviewed the chart.", "Tanaka's wife"),
    )
)


def exact_boundaries(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with whole-word edges (`WHOLE_WORDS`) and names without common edge words (`NAME_EDGES`),
    merged where snapping made them overlap ("Jean" and "Luc" of "Jean-Luc")."""
    out = []
    for found in spans:
        span = snap_to_words(text, found)
        if span is not found:
            decided(WHOLE_WORDS.name, span, True)
        if NAME_EDGES.covers(span.label):
            trimmed = trim_common_words(text, span)
            if trimmed is not None and trimmed != span:
                decided(NAME_EDGES.name, trimmed, True)
                span = trimmed
        out.append(span)
    return merge_spans(out)
