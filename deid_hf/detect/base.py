"""One interface for every detector: text in, `Span`s in the common label schema out."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence

from ..spans import Span, merge_spans


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
    everywhere in the document; ZSTS's substitution table then replaces it consistently)."""
    found = list(spans)
    for item in {text[s.start : s.end]: s for s in spans if len(text[s.start : s.end].strip()) > 1}.items():
        surface, span = item
        for match in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", text):
            if not any(s.start <= match.start() and match.end() <= s.end for s in spans):
                found.append(Span(match.start(), match.end(), span.label, span.score, "repeat"))
    return merge_spans(found)
