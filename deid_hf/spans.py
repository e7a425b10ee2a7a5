"""Character spans shared by every detector and replacer, with one overlap/merge rule.

A span is the half-open interval [start, end) of the original text. Two spans overlap iff
``a.start < b.end and b.start < a.end``. Merging replaces every connected group of overlapping spans
by their union; the union keeps the label of the highest-scoring member with a typed label (OTHER only when
every member is OTHER: an untyped p-filter hit never hides an NER type; ties: the longer, then the earlier
one), the maximum score, and the sorted set of sources joined by ``+``.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

import regex  # type: ignore[import-untyped]  # no stubs; Unicode script classes

from .errors import InputError

#: Common label schema of all detectors (docs: concepts/detectors.md, "Label schema").
LABELS = (
    "PERSON",
    "ORG",
    "LOCATION",
    "ADDRESS",
    "DATE_TIME",
    "PHONE",
    "EMAIL",
    "URL",
    "IP",
    "ID",
    "NUMBER",
    "AGE",
    "OTHER",
    "DEMOGRAPHIC",
    "OCCUPATION",
    "QUANTITY",
    "HEALTH",
)
#: the labels the learned token classifier is trained on (the quasi-identifier labels of the gdpr policy,
#: ``DEMOGRAPHIC``, ``OCCUPATION``, ``QUANTITY`` and ``HEALTH``, come from spaCy and the occupation and
#: health lists only)
MODEL_LABELS = LABELS[: LABELS.index("OTHER") + 1]
#: the token-classification tags of the learned model: "O" and B-/I- of every label of `MODEL_LABELS`
BIO_LABELS = ("O", *(f"{prefix}-{label}" for label in MODEL_LABELS for prefix in ("B", "I")))


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    label: str = "OTHER"
    score: float = 1.0
    source: str = ""

    def __post_init__(self) -> None:
        if not (isinstance(self.start, int) and isinstance(self.end, int)) or not 0 <= self.start < self.end:
            raise InputError(f"invalid span [{self.start}, {self.end}): need 0 <= start < end")
        if self.label not in LABELS:
            raise InputError(f"unknown span label {self.label!r}; expected one of {', '.join(LABELS)}")

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def text(self, document: str) -> str:
        return document[self.start : self.end]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def label_priority(span: Span) -> tuple[bool, float, int, int]:
    """Which of several spans' labels wins: typed before OTHER, then higher score, longer, earlier."""
    return (span.label != "OTHER", span.score, span.end - span.start, -span.start)


def _union(group: list[Span]) -> Span:
    best = max(group, key=label_priority)
    if best.label == "DATE_TIME":  # a date is rewritten in place, the rest of its span kept as written:
        # a part that reaches beyond the group's dates ("May Smith" of "on 3 May Smith") gives the label
        dates = [s for s in group if s.label == "DATE_TIME"]
        beyond = [s for s in group if not any(d.start <= s.start and s.end <= d.end for d in dates)]
        best = max(beyond, key=label_priority, default=best)
    sources = sorted({part for s in group for part in s.source.split("+") if part})
    return Span(
        start=min(s.start for s in group),
        end=max(s.end for s in group),
        label=best.label,
        score=max(s.score for s in group),
        source="+".join(sources),
    )


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Sorted, pairwise non-overlapping spans covering exactly the characters the input covers."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    merged: list[Span] = []
    group: list[Span] = []
    group_end = -1
    for span in ordered:
        if group and span.start >= group_end:
            merged.append(_union(group))
            group = []
        group.append(span)
        group_end = max(group_end, span.end) if len(group) > 1 else span.end
    if group:
        merged.append(_union(group))
    return merged


def trim_edge_words(text: str, span: Span, unwanted: Callable[[str], bool]) -> Span | None:
    """``span`` without the space-separated words at its edges for which ``unwanted`` (called with the word
    as written) holds; None when what is left has no letter or digit."""
    words = [(span.start + m.start(), span.start + m.end()) for m in re.finditer(r"\S+", span.text(text))]
    first, last = 0, len(words) - 1
    while first <= last and unwanted(text[words[first][0] : words[first][1]]):
        first += 1
    while last >= first and unwanted(text[words[last][0] : words[last][1]]):
        last -= 1
    if first > last:
        return None
    start = words[first][0] if first else span.start
    end = words[last][1] if last < len(words) - 1 else span.end
    if not any(ch.isalnum() for ch in text[start:end]):
        return None
    return span if (start, end) == (span.start, span.end) else dataclasses.replace(span, start=start, end=end)


#: scripts that separate words with spaces (not Chinese, Japanese, Thai, Lao, Khmer nor Burmese)
_SPACED_SCRIPTS = (
    r"\p{Latin}\p{Greek}\p{Cyrillic}\p{Armenian}\p{Georgian}\p{Hebrew}\p{Arabic}\p{Syriac}\p{Thaana}"
    r"\p{Devanagari}\p{Bengali}\p{Gurmukhi}\p{Gujarati}\p{Oriya}\p{Tamil}\p{Telugu}\p{Kannada}"
    r"\p{Malayalam}\p{Sinhala}\p{Ethiopic}\p{Hangul}"
)
#: a letter of a script written with spaces, a combining mark (Arabic vowels, Indic signs; not an emoji's
#: variation selector), Arabic's tatweel or a zero-width non-joiner (inside Persian words)
_LETTER_CLASS = rf"[\u0640\u200c[\p{{M}}--\p{{Variation_Selector}}][\p{{L}}&&[{_SPACED_SCRIPTS}]]]"
_LETTER = regex.compile(rf"(?V1){_LETTER_CLASS}")
#: what one word is made of: such letters and marks, and digits
SPACED_SCRIPT_CHAR = regex.compile(rf"(?V1)[\p{{Nd}}{_LETTER_CLASS}]")
#: a hyphen or apostrophe between two letters joins them into one word ("Swan-Ganz", "O'Brien")...
_JOINERS = "-'’"
#: ...but an apostrophe before a clitic ends the word before it ("Tanaka's", "she'll")
_CLITIC = re.compile(r"['’](?:s|d|ll|re|ve|t|m)(?![^\W\d_])", re.IGNORECASE)
#: a capitalised word, a hyphen and a lower-case letter: a name with a modifier ("Boston-based", "Paris-born")
_MODIFIER_AFTER_NAME = regex.compile(r"(?<![\p{L}\p{Nd}])\p{Lu}\p{Ll}*-\p{Ll}$")
#: at most this many characters added on each side when a span is snapped out to whole words
SNAP_MAX = 32


def _letter_at(text: str, position: int) -> bool:
    return 0 <= position < len(text) and _LETTER.match(text, position) is not None


def cuts_word(text: str, position: int) -> bool:
    """Whether ``position`` lies inside one word of ``text``: between two letters or digits of a script
    written with spaces, or at a hyphen or apostrophe between two letters ("Swan-|Ganz", "O'|Brien"; not
    before a clitic: "Tanaka|'s", nor before a lower-case word hyphened to a capitalised one:
    "Boston|-based")."""
    if not 0 < position < len(text):
        return False
    before, after = text[position - 1], text[position]
    if SPACED_SCRIPT_CHAR.match(before) and SPACED_SCRIPT_CHAR.match(after):
        return True
    if after == "-" and _MODIFIER_AFTER_NAME.search(text, max(0, position - SNAP_MAX), position + 2):
        return False
    if after in _JOINERS and _letter_at(text, position - 1) and _letter_at(text, position + 1):
        return not _CLITIC.match(text, position)
    if before in _JOINERS and _letter_at(text, position) and _letter_at(text, position - 2):
        return not _CLITIC.match(text, position - 1)
    return False


def _modifier_start(text: str, position: int) -> bool:
    """A span that starts at the hyphen of "Min-jun" (the "Boston-based" shape) takes the word before it: a
    modifier ends a span on its left, it never begins one."""
    return (
        text[position : position + 1] == "-"
        and _letter_at(text, position - 1)
        and _letter_at(text, position + 1)
    )


def snap_to_words(text: str, span: Span) -> Span:
    """``span`` widened so that neither edge cuts a word (`cuts_word`), by at most SNAP_MAX characters a side
    (a longer run of word characters is left as it is)."""
    start, end = span.start, span.end
    while start > span.start - SNAP_MAX and (cuts_word(text, start) or _modifier_start(text, start)):
        start -= 1
    while end < span.end + SNAP_MAX and cuts_word(text, end):
        end += 1
    if cuts_word(text, start):
        start = span.start
    if cuts_word(text, end):
        end = span.end
    return span if (start, end) == (span.start, span.end) else dataclasses.replace(span, start=start, end=end)


class Overlaps:
    """Whether a range overlaps any of ``spans``: their starts sorted, each with the furthest end up to it,
    so each question is one bisection, not a pass over the spans."""

    def __init__(self, spans: Iterable[Span]):
        ordered = sorted((s.start, s.end) for s in spans)
        self.starts = [start for start, _ in ordered]
        self.reach = list(itertools.accumulate((end for _, end in ordered), max))

    def __call__(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, end)  # the spans that start before ``end``
        return before > 0 and self.reach[before - 1] > start
