"""One interface for every detector: text in, `Span`s in the common label schema out."""

from __future__ import annotations

import bisect
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace

from ..spans import Span, label_priority, merge_spans


class Detector(ABC):
    #: short name written into ``Span.source``
    name: str

    @abstractmethod
    def detect(self, text: str) -> list[Span]:
        """Spans of ``text`` this detector considers sensitive."""

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        return [self.detect(text) for text in texts]


class EnsembleDetector(Detector):
    """Union of several detectors under the shared overlap rule (`merge_spans`)."""

    name = "ensemble"

    def __init__(self, detectors: Sequence[Detector]):
        self.detectors = list(detectors)

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        per_detector = [detector.detect_batch(texts) for detector in self.detectors]
        return [merge_spans(span for found in per_detector for span in found[i]) for i in range(len(texts))]


def add_repeated_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Also mark every other whole-word occurrence of a detected item (a name detected once is protected
    everywhere in the document; ZSTS's substitution table then replaces it consistently).

    One pass over the text (candidates indexed by their first two characters), so that a long document
    with thousands of distinct items stays linear instead of one search per item."""
    surfaces = {text[s.start : s.end]: s for s in spans if len(text[s.start : s.end].strip()) > 1}
    if not surfaces:
        return merge_spans(spans)
    by_prefix: dict[str, list[str]] = {}
    for surface in surfaces:
        by_prefix.setdefault(surface[:2], []).append(surface)
    covered = merge_spans(spans)
    starts = [s.start for s in covered]
    found = list(spans)
    for match in _WORD_START.finditer(text):
        i = match.start()
        for surface in by_prefix.get(text[i : i + 2], ()):
            end = i + len(surface)
            if text.startswith(surface, i) and not _WORD.match(text, end):
                k = bisect.bisect_right(starts, i) - 1
                if k < 0 or covered[k].end < end:
                    span = surfaces[surface]
                    found.append(Span(i, end, span.label, span.score, "repeat"))
    return merge_spans(found)


def consistent_mentions(text: str, spans: list[Span]) -> list[Span]:
    """What a replacement reads: `add_repeated_mentions`, then one label per surface (one type, so one
    surrogate: "Priya" is not a company in one sentence and a person in the next)."""
    return one_label_per_surface(text, add_repeated_mentions(text, spans))


def one_label_per_surface(text: str, spans: list[Span]) -> list[Span]:
    """Merged ``spans``, every occurrence of one surface labelled as its best-scored typed occurrence (the
    merged span's score, the highest of its group's)."""
    best: dict[str, Span] = {}
    for span in spans:
        surface = span.text(text)
        if surface not in best or label_priority(span) > label_priority(best[surface]):
            best[surface] = span
    labels = [best[span.text(text)].label for span in spans]
    return [
        span if label in ("OTHER", span.label) else replace(span, label=label)
        for span, label in zip(spans, labels)
    ]


#: every position not preceded by a word character (the ``(?<!\w)`` of a whole-word occurrence)
_WORD_START = re.compile(r"(?<!\w)(?=.)", re.DOTALL)
_WORD = re.compile(r"\w")
