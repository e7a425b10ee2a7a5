"""Clean-up of the spans of a model trained on the policy's own gold (`keep_trained`): spans widened to whole
words, names without the frequent lower-case words at their edges, and the named drops of the ``learned``
rule family (function words or a title alone, ages of 89 and under, dates that are no date)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from ..spans import SPACED_SCRIPT_CHAR, Span, trim_edge_words
from .evidence import TITLES, evidence_span
from .lexicon import Vocabulary, is_clinical_term, is_known_name, person_names, stop_words, zipf
from .rules import RULES, Rule, Seen, decided, register_rule
from .rules.identifiers import NAMED, over_89
from .rules.phones import clock_time_alone
from .text_shape import (
    CLINICIAN_TITLE_ABBREVIATIONS,
    CLITIC,
    COMMON_WORD_ZIPF,
    KINSHIP_WORDS,
    NAME_EDGE_PUNCTUATION,
    WORD_ANY_SCRIPT,
    careless_casing,
    lowercase_style,
)

#: at most this many characters added on each side when a span is widened to whole words
WIDEN_MAX = 24
#: titles and honorifics alone ("Dr.", "Mrs", "Prof. Dr.", "Professor"): no identifier (a model trained on
#: synthetic records that mark job titles learns to mark them)
_HONORIFICS = re.compile(rf"(?:(?:{'|'.join(sorted(TITLES))})\.?\s*)+", re.IGNORECASE)
#: a word that announces an identifier on a form or in a note ("MRN 4839201", "DOB: 3/4/1950"), not one itself
_IDENTIFIER_CUE = re.compile(
    r"(?:mrn|mr\s*#|ss\s*#|ssn|d\.?o\.?b|acct|tel|fax|e-?mail|phone|pager|cell|(?:medical\s+)?record\s+"
    r"(?:no|number)|account\s+(?:no|number))[\s.:#]*",
    re.IGNORECASE,
)
#: a greeting or thanks that opens a message or a turn ("Hi Priya,", "Dear Ms. Lee"), not a name itself
_GREETING = re.compile(
    r"(?:hi|hello|hey|dear|thanks?(?:\s+you)?|regards|cheers|good\s+(?:morning|afternoon|evening))[\s,.!:]*",
    re.IGNORECASE,
)
#: a numeric date with dots ("04.03.2021", "3.4.21"), which the date rules leave to context
_DOTTED_DATE = re.compile(r"^\d{1,2}\.\d{1,2}\.(?:\d{2}|\d{4})$")
#: lower-case words of a name ("Staël de Holstein", "van Gogh"): kept in a learned name span
NAME_PARTICLES = frozenset(
    "al bin da das de dei del della den der des di dos du ibn la le ten ter van von".split()  # noqa: SIM905
)
#: a possessive that ends a span ("Budjana 's", "CHICAGO'S", "Chicago's."), tried only where a run of blanks
#: begins (else every blank of a long run scans the rest of it)
_POSSESSIVE = re.compile(r"(?<!\s)\s*['’][sS][.)]*$")
#: a possessive written apart ("Macy 's"): part of the word before it
_APART_POSSESSIVE = re.compile(r"['’][sS]")
_WEEKDAYS = frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
#: words of a time of day, a duration or a relative day: no date by themselves ("Tuesday", "8 pm", "2 days")
_NOT_A_DATE = _WEEKDAYS | frozenset(
    "am pm morning afternoon evening night tonight today yesterday tomorrow noon midnight ago "  # noqa: SIM905
    "minute minutes hour hours day days week weeks month months year years".split()
)


def whole_words(text: str, span: Span) -> Span:
    """``span`` without leading or trailing punctuation and spaces (", IL"), widened to the word boundaries
    around it (a subword model's "Feli" of "Feliciano"), only in scripts written with spaces and by at most
    WIDEN_MAX characters a side."""
    start, end = span.start, span.end
    while start < end - 1 and not text[start].isalnum() and text[start] not in "+(#$£€":  # ", IL" -> "IL"
        start += 1
    while end > start + 1 and not text[end - 1].isalnum() and text[end - 1] not in ")%.":
        end -= 1
    inside = SPACED_SCRIPT_CHAR.match
    while start > max(0, span.start - WIDEN_MAX) and inside(text, start - 1) and inside(text, start):
        start -= 1
    while end < min(len(text), span.end + WIDEN_MAX) and inside(text, end - 1) and inside(text, end):
        end += 1
    return span if (start, end) == (span.start, span.end) else dataclasses.replace(span, start=start, end=end)


#: lower-case words that are never part of a name however rare they are ("Smith [et] al.")
NEVER_NAME_WORDS = frozenset(("et", "etc"))


def _never_a_name_word(written: str) -> bool:
    return written.strip(NAME_EDGE_PUNCTUATION).casefold() in NEVER_NAME_WORDS


def _is_common_edge_word(written: str) -> bool:
    """A lower-case frequent word, no known person name nor name particle, or one of `NEVER_NAME_WORDS`: cut
    from a name's edges."""
    if _APART_POSSESSIVE.fullmatch(written):
        return False
    word = CLITIC.sub("", written.strip(NAME_EDGE_PUNCTUATION))
    return _never_a_name_word(word) or (
        word.isalpha()
        and word.islower()
        and zipf(word) >= COMMON_WORD_ZIPF
        and word not in person_names()
        and word not in NAME_PARTICLES
    )


def trim_common_words(text: str, span: Span) -> Span | None:
    """A learned name span without the lower-case frequent words at its edges ("pianist", "a South Korean
    company") and, for a PERSON or LOCATION, its possessive ("Chicago's"; an ORG keeps it: "Macy's"). Words
    are space-separated tokens (`spans.trim_edge_words`: "3M", "7-Eleven" are never cut). None if nothing
    with a letter or digit is left. Where lower case may say little only the possessive and
    `NEVER_NAME_WORDS` go."""
    if _APART_POSSESSIVE.fullmatch(text[max(0, span.start - 1) : span.end]):  # a possessive alone ("'S")
        return None
    cased = not lowercase_style(text) and not careless_casing(text)
    trimmed = trim_edge_words(text, span, _is_common_edge_word if cased else _never_a_name_word)
    if trimmed is None:
        return None
    start, end = trimmed.start, trimmed.end
    if span.label in ("PERSON", "LOCATION"):
        end = start + len(_POSSESSIVE.sub("", text[start:end]))
    if not any(ch.isalnum() for ch in text[start:end]):
        return None
    if (start, end) == (span.start, span.end):
        return span
    return whole_words(text, dataclasses.replace(span, start=start, end=end))


def only_function_words(piece: str) -> bool:
    """Every token of ``piece`` is a lower-case English stop word ("from", "of the"; not "May", "US")."""
    tokens = [t.strip(".,:;'’\"()") for t in piece.split()]
    return bool(tokens) and all(t.islower() and t in stop_words() for t in tokens)


def _no_date_word(piece: str) -> bool:
    return not (
        _DOTTED_DATE.match(piece.strip())
        or any(w.lower() not in _NOT_A_DATE for w in WORD_ANY_SCRIPT.findall(piece))
    )


#: a word after which a name is expected: a kinship word or a title ("son art", "dtr kendrick", "dr min")
_NAME_CUE_BEFORE = re.compile(
    rf"(?i)\b(?:{KINSHIP_WORDS}|{'|'.join(sorted(TITLES))}|{CLINICIAN_TITLE_ABBREVIATIONS}|rn|attending|"
    r"resident)\.?[ \t,:]*$"
)


def vocabulary_word_alone(seen: Seen, span: Span) -> bool:
    """``span`` is one lower-case word that is corpus vocabulary (or, for a person, a clinical term: "sonoma"
    ends like one), no known person name of any culture (`lexicon.is_known_name`) and not after a kinship
    word or a title."""
    text = seen.text
    word = text[span.start : span.end].strip(NAME_EDGE_PUNCTUATION)
    if not (word.isalpha() and word.islower()) or is_known_name(word):
        return False
    if _NAME_CUE_BEFORE.search(text, max(0, span.start - 30), span.start):
        return False
    vocabulary = seen.vocabulary is not None and seen.vocabulary.is_vocabulary(word)
    return vocabulary or (span.label == "PERSON" and is_clinical_term(word))  # a place may end like a term


@dataclasses.dataclass(frozen=True, kw_only=True)
class DropRule(Rule):
    """Drops a learned span of its labels when ``drops(seen, span, dates)`` (``seen``: the text and the
    corpus vocabulary; ``dates``: the date rules' spans)."""

    drops: Callable[[Seen, Span, Sequence[Span]], bool]


def _drop_rule(name, labels, reason, examples, drops) -> DropRule:
    return register_rule(
        DropRule(name=name, family="learned", labels=labels, reason=reason, examples=examples, drops=drops)
    )


NO_NAME_LEFT = register_rule(
    Rule(
        name="learned.no-name-left",
        family="learned outcomes",
        labels=tuple(sorted(NAMED)),
        reason="nothing with a letter or digit is left once the frequent lower-case edge words are cut",
        examples=("the pianist",),
    )
)
NAME_ACROSS_LINES = register_rule(
    Rule(
        name="learned.name-across-lines",
        family="learned outcomes",
        labels=("PERSON",),
        reason="a name does not run on into the next line of a form: a person span across a line break keeps "
        "its first line's part and the later lines' parts with an identifying word (`evidence.has_evidence`)",
        examples=("Patient: John Miller\nDOB: 1951-04-12",),
    )
)
ONE_LINE_ACROSS_LINES = register_rule(
    Rule(
        name="learned.one-line-item-across-lines",
        family="learned outcomes",
        labels=("AGE", "EMAIL", "ID", "IP", "PHONE", "URL"),
        reason="a phone number, ID, e-mail, URL, IP or age is written on one line: a span across a line "
        "break is each line's part, every one kept (the line break stays in the text)",
        examples=("src=192.168.1.104\n2021-05-03 14:25",),
    )
)
KEPT_AS_FOUND = register_rule(
    Rule(
        name="learned.kept",
        family="learned outcomes",
        reason="no learned rule drops it: kept as the model found it (widened to whole words, names trimmed)",
        examples=("Ann Lee",),
    )
)
_drop_rule(
    "learned.function-words-alone",
    (),
    "function words alone ('from', 'of the') name nothing",
    ("Sam from Contoso",),
    lambda seen, span, dates: only_function_words(seen.text[span.start : span.end]),
)
_drop_rule(
    "learned.title-alone",
    (),
    "a title or honorific alone ('Dr.', 'Mrs') names no one",
    ("Dr.",),
    lambda seen, span, dates: _HONORIFICS.fullmatch(seen.text[span.start : span.end].strip()) is not None,
)
_drop_rule(
    "learned.greeting-alone",
    (),
    "a greeting or thanks alone ('Hi', 'Dear', 'Thank you') names no one: a model reads the word before a "
    "name as part of it",
    ("Hi", "Thank you"),
    lambda seen, span, dates: _GREETING.fullmatch(seen.text[span.start : span.end].strip()) is not None,
)
_drop_rule(
    "learned.identifier-cue-alone",
    (),
    "a word that announces an identifier ('MRN', 'DOB', 'Fax') alone is no identifier (an uncased model "
    "reads 'MRN' as 'mr' + 'n': a title and a name)",
    ("MRN", "DOB:", "Email"),
    lambda seen, span, dates: _IDENTIFIER_CUE.fullmatch(seen.text[span.start : span.end].strip()) is not None,
)
_drop_rule(
    "learned.age-89-or-under",
    ("AGE",),
    "the policy's age rule: a synthetic gold that marks every age teaches a model '67 years old'",
    ("67 years old",),
    lambda seen, span, dates: not over_89(seen.text[span.start : span.end]),
)
_drop_rule(
    "learned.date-under-a-date-rule",
    ("DATE_TIME",),
    "a date rule's span overlaps it and stands for it, as for every other detector",
    ("10/16/2003",),
    lambda seen, span, dates: any(d.start < span.end and span.start < d.end for d in dates),
)
_drop_rule(
    "learned.piece-of-a-date",
    (),
    "a piece of a date that a date rule finds whole ('2024' of '07/03/2024' read as an ID or a phone): the "
    "date rule's span stands for it and keeps the date's label",
    ("2024",),
    lambda seen, span, dates: any(d.start <= span.start and span.end <= d.end for d in dates),
)
_drop_rule(
    "learned.clock-time-alone",
    ("PHONE",),
    "a four-digit time of day alone ('2200', '0600') with no word of phones shortly before it ('pager is "
    "2145') is a nurse's clock, no phone (an address keeps such numbers: house numbers and postal codes)",
    ("no calls between 2200 and 0600",),
    lambda seen, span, dates: clock_time_alone(seen.text, span.start, span.end),
)
_drop_rule(
    "learned.date-without-a-date-word",
    ("DATE_TIME",),
    "no dotted date and no word but a weekday, a time of day or a duration ('9', '/7', 'Tuesday', '8 pm')",
    ("Tuesday", "8 pm"),
    lambda seen, span, dates: _no_date_word(seen.text[span.start : span.end]),
)
_drop_rule(
    "learned.vocabulary-word-alone",
    tuple(sorted(NAMED)),
    "a name of one lower-case word that the corpus uses as a common word (its vocabulary: 'bolus', 'cxr'), "
    "or a person's that is a clinical term, no known person name and not after a kinship word or a title: "
    "the model reads clinical shorthand as a name",
    ("Amiod bolus and gtt as ordered",),
    lambda seen, span, dates: vocabulary_word_alone(seen, span),
)


#: what a span holds on one line, without the spaces at its ends
_LINE_PART = re.compile(r"[^\s](?:[^\n]*[^\s])?")


def line_parts(text: str, span: Span) -> list[Span]:
    """``span`` as the parts it has on each line, each a span of its own."""
    return [
        dataclasses.replace(span, start=m.start(), end=m.end())
        for m in _LINE_PART.finditer(text, span.start, span.end)
    ]


def split_at_line_breaks(text: str, span: Span) -> list[Span]:
    """A PERSON ``span`` across a line break as its first line's part (where the model found the name) and
    the later lines' parts that hold an identifying word or no word at all, each a span of its own; a
    one-line item (`ONE_LINE_ACROSS_LINES`) as every line's part (`line_parts`); any other span, and one
    without a line break, as it is."""
    if "\n" not in text[span.start : span.end]:
        return [span]
    if ONE_LINE_ACROSS_LINES.covers(span.label):
        return line_parts(text, span)
    if span.label != "PERSON":
        return [span]
    parts = line_parts(text, span)
    return parts[:1] + [part for part in parts[1:] if _may_name(text, part)]


def _may_name(text: str, part: Span) -> bool:
    """A later line's part of a name: one with an identifying word, or without any word to judge."""
    return WORD_ANY_SCRIPT.search(text, part.start, part.end) is None or evidence_span(text, part) is not None


def keep_trained(
    text: str,
    spans: Sequence[Span],
    dates: Sequence[Span],
    skip: Sequence[str] = (),
    vocabulary: Vocabulary | None = None,
) -> list[Span]:
    """The spans of a model trained on this policy's gold, widened to whole words (`whole_words`), names
    trimmed (`trim_common_words`), kept as found unless a ``learned`` rule (not named in ``skip``) drops
    them; ``dates``: the spans of the date rules (`rules.dates.find_dates`); ``vocabulary``: the corpus
    vocabulary the policy reads."""
    rules = [r for r in RULES.family("learned") if r.name not in skip]
    seen = Seen(text, vocabulary)
    kept = []
    for widened in (whole_words(text, found) for found in spans):
        parts = split_at_line_breaks(text, widened)
        if parts != [widened]:
            split = NAME_ACROSS_LINES if widened.label == "PERSON" else ONE_LINE_ACROSS_LINES
            decided(split.name, widened, False)
        kept += _kept_parts(seen, parts, rules, dates)
    return kept


def _kept_parts(
    seen: Seen, parts: Sequence[Span], rules: Sequence[Rule], dates: Sequence[Span]
) -> list[Span]:
    kept = []
    for found in parts:
        span = found
        if span.label in NAMED:
            span = trim_common_words(seen.text, span)
            if span is None:
                decided(NO_NAME_LEFT.name, found, False)
                continue
        rule = next((r for r in rules if r.covers(span.label) and r.drops(seen, span, dates)), None)
        if rule is not None:
            decided(rule.name, span, False)
            continue
        decided(KEPT_AS_FOUND.name, span, True)
        kept.append(span)
    return kept
