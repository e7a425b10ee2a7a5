"""The user's detection options (Presidio's AnalyzerEngine options): custom regex recognizers, a deny
list (always detected), an allow list (never replaced), an entity filter and a score threshold; and every
further mention of a detected person's name parts ("Tanaka" after "Dr. Kenji Tanaka").

Custom patterns are refused when they nest unbounded quantifiers (``(a+)+``, the classic catastrophic
backtracking shape) and every match runs under a time limit (the ``regex`` package's ``timeout``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from re import _constants as c
from re import _parser as sre_parse

from ..errors import InputError
from ..policies import Policy
from ..spans import Span
from .base import Detector
from .mentions import add_name_mentions
from .stages import Document, run_stages
from .user_filters import trim_allowed

PATTERN_TIMEOUT_S = 1.0


def _unbounded_repeats(parsed) -> Iterable[tuple]:
    """(op, av) of every repeat in a parsed pattern, recursively."""
    for op, av in parsed:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            yield op, av
            yield from _unbounded_repeats(av[2])
        elif op == c.SUBPATTERN:
            yield from _unbounded_repeats(av[-1])
        elif op == c.BRANCH:
            for branch in av[1]:
                yield from _unbounded_repeats(branch)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            yield from _unbounded_repeats(av[1])


def check_pattern(regex: str, name: str):
    """Compile a user pattern; refuse an invalid one or one with a nested unbounded quantifier."""
    if not isinstance(regex, str) or not regex:
        raise InputError(f"pattern {name!r}: regex must be a non-empty string")
    try:
        parsed = sre_parse.parse(regex)
    except re.error as exc:
        raise InputError(f"pattern {name!r} is not a valid regular expression: {exc}") from None
    for _, (_low, high, body) in _unbounded_repeats(parsed):
        if high == c.MAXREPEAT and any(inner[1] == c.MAXREPEAT for _, inner in _unbounded_repeats(body)):
            raise InputError(
                f"pattern {name!r} nests unbounded quantifiers (like (a+)+), which can backtrack "
                f"catastrophically; rewrite it without the nesting"
            )
    import regex as regex_module

    return regex_module.compile(regex)


class RegexRecognizer(Detector):
    """User patterns: ``[{"label": "ID", "regex": "MRN-\\d{6}", "score": 0.9, "name": "mrn"}, ...]``."""

    name = "custom"

    def __init__(self, patterns: Sequence[Mapping], timeout: float = PATTERN_TIMEOUT_S):
        self.timeout = timeout
        self.patterns = []
        for i, pattern in enumerate(patterns):
            name = pattern.get("name") or f"pattern {i}"
            compiled = check_pattern(pattern.get("regex"), name)
            self.patterns.append((name, pattern["label"], float(pattern.get("score", 0.9)), compiled))

    def detect(self, text: str) -> list[Span]:
        spans = []
        for name, label, score, compiled in self.patterns:
            try:
                matches = list(compiled.finditer(text, timeout=self.timeout))
            except TimeoutError:
                raise InputError(
                    f"custom pattern {name!r} ran past its {self.timeout}s limit on this text"
                ) from None
            spans += [
                Span(m.start(), m.end(), label, score, self.name) for m in matches if m.end() > m.start()
            ]
        return spans


class DenyList(Detector):
    """Terms always detected (whole words, case-insensitive), with their label (OTHER for a plain list)."""

    name = "deny_list"

    def __init__(self, terms: Mapping[str, Sequence[str]]):
        self.regexes = [
            (label, re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE))
            for label, words in terms.items()
            for term in words
        ]

    def detect(self, text: str) -> list[Span]:
        return [
            Span(m.start(), m.end(), label, 1.0, self.name)
            for label, rx in self.regexes
            for m in rx.finditer(text)
        ]


class UserOptionsDetector(Detector):
    """A detector with the user's options applied: additions and filters: the ``user options`` stages of
    `stages.DETECTION_STAGES` (score threshold, letterless names relabelled, custom patterns and deny list,
    further mentions, allow list, entity filter) on the base detector's spans."""

    def __init__(
        self,
        base: Detector,
        patterns: Sequence[Mapping] = (),
        deny_list: Mapping[str, Sequence[str]] | None = None,
        allow_list: Sequence[str] = (),
        entities: Sequence[str] | None = None,
        score_threshold: float | None = None,
    ):
        self.base = base
        self.name = base.name
        self.extra = ([RegexRecognizer(patterns)] if patterns else []) + (
            [DenyList(deny_list)] if deny_list else []
        )
        self.allow_list = list(allow_list or ())
        self.entities = set(entities) if entities else None
        self.score_threshold = score_threshold

    @property
    def fit(self):
        """The base detector's `fit` (None when it learns nothing from a corpus)."""
        return self.base.fit

    @property
    def trained_policy(self) -> Policy | str | None:
        return self.base.trained_policy

    @property
    def policy(self) -> Policy | str | None:
        """The base detector's policy (None for a detector without one)."""
        return getattr(self.base, "policy", None)

    @property
    def vocabulary(self):
        return self.base.vocabulary

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        """The base detector, then the user options' part of `stages.DETECTION_STAGES`."""
        documents = [Document(text, spans=spans) for text, spans in zip(texts, self.base.detect_batch(texts))]
        return [document.spans for document in run_stages(self, "user options", documents)]


__all__ = [
    "DenyList",
    "RegexRecognizer",
    "UserOptionsDetector",
    "add_name_mentions",
    "check_pattern",
    "trim_allowed",
]
