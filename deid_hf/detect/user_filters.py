"""The user's filters of detected spans: allow-listed words trimmed, and a "name" without letters or an IPv4
address under another label relabelled."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..spans import Span
from .rules.phones import SSN_SHAPE


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


#: a dotted IPv4 address: four numbers of 0-255
_IPV4 = re.compile(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)")


def letterless_names(text: str, span: Span) -> Span:
    """A person, organisation or place has letters: an NER reading of "03/01/2024" as PERSON becomes
    DATE_TIME (numeric date shape) or NUMBER; a dotted IPv4 address is an IP whatever a detector called it
    (a model's ADDRESS "172.16.254.1"), and the 3-2-4 layout of a Social Security number an ID."""
    surface = text[span.start : span.end]
    if span.label != "IP" and _IPV4.fullmatch(surface.strip()):
        return Span(span.start, span.end, "IP", span.score, span.source)
    if span.label != "ID" and SSN_SHAPE.fullmatch(surface.strip()):  # pieces a model read as ADDRESS + PHONE
        return Span(span.start, span.end, "ID", span.score, span.source)
    if span.label not in ("PERSON", "ORG", "LOCATION") or any(c.isalpha() for c in surface):
        return span
    label = "DATE_TIME" if _NUMERIC_DATE.fullmatch(surface.strip()) else "NUMBER"
    return Span(span.start, span.end, label, span.score, span.source)
