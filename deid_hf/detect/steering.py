"""What users steer in detection (Presidio's AnalyzerEngine options): custom regex recognizers, a deny
list (always detected), an allow list (never replaced), an entity filter and a score threshold; and every
further mention of a detected person's name parts ("Tanaka" after "Dr. Kenji Tanaka").

Custom patterns are refused when they nest unbounded quantifiers (``(a+)+``, the classic catastrophic
backtracking shape) and every match runs under a time limit (the ``regex`` package's ``timeout``).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence

from ..errors import InputError
from ..spans import LABELS, Span, merge_spans
from .base import Detector, add_repeated_mentions

PATTERN_TIMEOUT_S = 1.0
_COMMON_ZIPF = (
    5.0  # name parts this frequent in English ("Will", "May") are not propagated sentence-initially
)


def _unbounded_repeats(parsed) -> Iterable[tuple]:
    """(op, av) of every repeat in a parsed pattern, recursively."""
    try:
        from re import _constants as c  # Python >= 3.11
    except ImportError:  # pragma: no cover
        import sre_constants as c
    for op, av in parsed:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
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
    try:
        from re import _constants as c
        from re import _parser as sre_parse
    except ImportError:  # pragma: no cover
        import sre_constants as c
        import sre_parse
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


def _zipf(word: str) -> float:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - wordfreq is a dependency
        return 0.0
    return zipf_frequency(word.lower(), "en")


def add_name_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Also mark every other mention of each name part of a detected person whose mention looks like a
    name (two or more parts, or a title; each part capitalised, not ALL CAPS, so that an NER "FOLEY" or
    "BP" in a clinical note spreads nowhere): the same word in title case or ALL CAPS, optionally
    possessive ("Tanaka", "TANAKA", "Tanaka's"); and relabel a detected span that is exactly such a part
    (spaCy's ORG "TANAKA") as PERSON. A very common English word ("Will") is not marked at the start of a
    sentence."""
    from .mentions import split_mention

    found = list(spans)
    parts = set()
    for span in spans:
        if span.label == "PERSON":
            mention = text[span.start : span.end]
            words = split_mention(mention)
            names = [mention[s:e] for s, e, kind in words if kind == "name"]
            if len(names) >= 2 or any(kind == "title" for _, _, kind in words):
                parts |= {n for n in names if len(n) > 1 and n[0].isupper() and not n.isupper()}
    folded = {part.casefold() for part in parts}
    for i, span in enumerate(found):  # a detector's ORG/LOCATION/OTHER reading of a name part: the person
        surface = re.sub(r"['’]s$", "", text[span.start : span.end])
        if span.label in ("ORG", "LOCATION", "OTHER") and surface.casefold() in folded:
            found[i] = Span(span.start, span.end, "PERSON", span.score, span.source)
    # overlap with a detected span by bisection over starts with a running maximum of ends (linear overall)
    ordered = sorted((s.start, s.end) for s in found)
    starts = [a for a, _ in ordered]
    reach = list(itertools.accumulate((b for _, b in ordered), max))
    forms: dict[str, bool] = {}  # each written form of a part -> whether it is a common English word
    for part in parts:
        if part[:1].isupper():
            common = _zipf(part) >= _COMMON_ZIPF
            for form in {part, part.upper(), part[:1].upper() + part[1:].lower()}:
                forms[form] = forms.get(form, False) or common
    lengths = sorted({len(form) for form in forms})
    ending = re.compile(r"['’]s\b|(?!\w)")  # the form ends a word, or a possessive follows
    for word in re.finditer(r"(?<!\w)\w", text) if forms else ():  # one pass over word starts
        start = word.start()
        for length in lengths:
            end = start + length
            common = forms.get(text[start:end])
            if common is None or not ending.match(text, end):
                continue
            before = bisect.bisect_left(starts, end)  # spans starting before this match ends
            if before and reach[before - 1] > start:
                continue
            if common and re.search(r"(?:^|[.!?]\s+|\n\s*)$", text[max(0, start - 100) : start]):
                continue
            found.append(Span(start, end, "PERSON", 1.0, "repeat"))
    return merge_spans(found)


def _allowed_word(word: str, allowed: set[str]) -> bool:
    return word.casefold().strip(".,;:'’") in allowed


def trim_allowed(text: str, spans: list[Span], allow_list: Iterable[str]) -> list[Span]:
    """Spans without allow-listed words at their edges ("Patient Maria" -> "Maria", "Dr." dropped); a span
    equal to an allow-listed phrase is dropped."""
    allowed = {a.casefold().strip(".,;:'’") for a in allow_list}
    if not allowed:
        return spans
    out = []
    for span in spans:
        words = [m for m in re.finditer(r"\S+", text[span.start : span.end])]
        if text[span.start : span.end].casefold().strip(".,;:'’") in allowed:
            continue
        while words and _allowed_word(words[0].group(0), allowed):
            words.pop(0)
        while words and _allowed_word(words[-1].group(0), allowed):
            words.pop()
        if words:
            start, end = span.start + words[0].start(), span.start + words[-1].end()
            out.append(Span(start, end, span.label, span.score, span.source))
    return out


_NUMERIC_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{2,4})?")


def _letterless_names(text: str, span: Span) -> Span:
    """A person, organisation or place has letters: an NER reading of "03/01/2024" as PERSON becomes
    DATE_TIME (numeric date shape) or NUMBER."""
    surface = text[span.start : span.end]
    if span.label not in ("PERSON", "ORG", "LOCATION") or any(c.isalpha() for c in surface):
        return span
    label = "DATE_TIME" if _NUMERIC_DATE.fullmatch(surface.strip()) else "NUMBER"
    return Span(span.start, span.end, label, span.score, span.source)


class SteeredDetector(Detector):
    """A detector with the user's additions and filters applied in a fixed order: score threshold on the
    base detector's spans, letterless names relabelled, custom patterns and deny list added, overlaps
    merged, repeated mentions and name parts added, allow-listed edges trimmed, then only the ``entities``
    labels kept."""

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

    def __getattr__(self, name: str):
        """Everything else is the base detector's (its scorer, threshold, parts)."""
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        found = self.base.detect_batch(texts)
        out = []
        for text, spans in zip(texts, found):
            if self.score_threshold is not None:
                spans = [s for s in spans if s.score >= self.score_threshold]
            spans = [_letterless_names(text, s) for s in spans]
            spans = merge_spans([*spans, *(s for d in self.extra for s in d.detect(text))])
            spans = add_name_mentions(text, add_repeated_mentions(text, spans))
            spans = trim_allowed(text, spans, self.allow_list)
            if self.entities is not None:
                spans = [s for s in spans if s.label in self.entities]
            out.append(spans)
        return out


__all__ = ["LABELS", "DenyList", "RegexRecognizer", "SteeredDetector", "add_name_mentions", "check_pattern"]
