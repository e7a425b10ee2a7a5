"""Helpers shared by the detection tests."""

from deid_hf.detect.base import Detector
from deid_hf.spans import Span


class FixedDetector(Detector):
    """Finds the given (piece, label) pairs, each at its first occurrence."""

    name = "fixed"

    def __init__(self, pieces):
        self.pieces = pieces

    def detect(self, text):
        return [
            Span(text.index(p), text.index(p) + len(p), label, 0.8, self.name) for p, label in self.pieces
        ]
