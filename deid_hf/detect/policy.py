"""What counts as identifying: the identifier policy applied to every detector's spans.

``strict``: every span any detector finds is kept (every number, time and capitalised word).
``hipaa`` (default; HIPAA Safe Harbor as the PhysioNet deid corpus applies it):
- kept: names of persons (PERSON), organisations (ORG), locations and addresses (LOCATION, ADDRESS), other
  named groups (OTHER), trimmed to their words with identifier evidence (`evidence`: a known person name,
  a word rarer than `lexicon.COMMON_ZIPF` that is not corpus vocabulary nor a clinical term, or a
  capitalised frequent word used as a proper noun), dropped without any; dates (numeric day/month with or
  without year, month names with a day or year, a year in a date context, "'84"), wherever they occur;
  ages over 89; phone (also any phone-shaped number of 8+ digits, `find_phones`), e-mail, URL (with a scheme,
  ``www.`` or a common top-level domain), IP; apartments, suites and P.O. boxes; identifying
  numbers: a validated ID (score >= STRONG_ID), a run of 5+ digits, or a number of 4+ characters after
  ``#``/``no.``/``MRN``/``ref``/``account``/``policy``/``license``/``record`` or a support chat's
  ``order``/``ticket``/``booking``/``tracking``/... (labelled ID whatever another detector calls it), unless
  it is a measurement ("order 1000 mL").
- removed from the detections: times of day ("0800", "8pm", "10:26AM"), durations and relative days
  ("2 days", "today", "tonight"), ages of 89 and under, measurements (vital signs such as "120/80", doses,
  lab values, percentages, scores, counts with units, bed and room numbers), clinical abbreviations and
  drug names (corpus vocabulary), and frequent English words written as common words.

`PolicyDetector` runs the detectors of an ensemble on an offset-preserving case-restored copy of the text
(`casing.restore_case`), adds the clinical context rules (`clinical.ClinicalContextDetector`) and the policy's
date rule, applies the policy to each detector's spans, then merges.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from pathlib import Path

import regex

from ..errors import InputError
from ..spans import Span, merge_spans, trim_edge_words
from .base import Detector, EnsembleDetector
from .casing import in_caps_line, restore_case
from .clinical import ClinicalContextDetector, extend_places
from .lexicon import (
    CLITIC,
    COMMON_ZIPF,
    VOCABULARY_FILE,
    DocumentFrequency,
    Vocabulary,
    is_clinical_term,
    is_misspelling,
    is_name_word,
    person_names,
    stop_words,
    uses_capitals,
    zipf,
)

POLICIES = ("hipaa", "strict")
DEFAULT_POLICY = "hipaa"

_MONTH_ANY = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
#: month names that are dates on their own (not "may", "march", "dec" = decreased, "aug" = augmentation)
_MONTH_ALONE = (
    r"(?:january|february|april|june|july|august|september|sept|october|november|december|jan|feb|apr|"
    r"oct|nov)\.?"
)
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_MM = r"(?:0?[1-9]|1[0-2])"
DATE_PATTERNS = [
    # 10/16, 10/16/03, 8/28/1995, 6-17-21 (a hyphenated date needs its year: "3-5" is a range)
    # (not the fractions 1/2, 1/3, 2/3, 1/4, 3/4 nor the strength score 5/5 without a year)
    # (nor pain scores x/10, pupil and strength scores 2/2, 4/4, nor ventilator settings "PS 10/5")
    rf"(?<![\d/.])(?<!(?i:ps ))(?<!(?i:psv ))(?<!(?i:peep ))(?<!(?i:cpap ))(?<!(?i:imv ))(?<!(?i:ps/))"
    rf"(?<!(?i:peep/ps ))"
    rf"(?!(?:1/[234]|2/3|3/4|[1-5]/5|([1-5])/\1)(?![\d/]))"
    rf"{_MM}/{_DAY}(?:/(?:\d{{4}}|\d{{2}}))?(?![\d/]|\.\d)",
    rf"(?<![\d/.-]){_MM}-{_DAY}-(?:\d{{4}}|\d{{2}})(?![\d/-])",
    # ISO and year-first dates: 2020-06-20, 2020/6/20, 2020.06.20
    rf"(?<![\d/.-])(?:18|19|20)\d\d([-/.]){_MM}\1{_DAY}(?![\d/.-]\d|\d)",
    # 8/84, 6/85, 7/81, 10/2003: month/year (a 2-digit year above 31)
    r"(?<![\d/.-])(?:0?[1-9]|1[0-2])/(?:3[2-9]|[4-9]\d|(?:19|20)\d\d)(?![\d/]|\.\d)",
    # month names with a day and/or year, a day before a month, a month name alone
    rf"(?i)\b{_MONTH_ANY}[ \t]+{_DAY}(?:st|nd|rd|th)?\b(?:,?[ \t]+(?:18|19|20)\d\d\b)?",
    rf"(?i)\b{_MONTH_ANY},?[ \t]+(?:of[ \t]+)?(?:19|20)\d\d\b",
    rf"(?i)(?<![\d/.]){_DAY}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTH_ANY}(?:,?[ \t]+(?:19|20)\d\d)?\b",
    rf"(?i)\b{_MONTH_ALONE}(?![\w])",
    # a year in a date context, and 2-digit years with an apostrophe ('84, 74')
    r"(?i)(?:(?<=\bin )|(?<=\bof )|(?<=since )|(?<=year ))(?:18|19|20)\d\d\b",
    # 1960-1999 cannot be a time of day (minutes above 59): a year wherever it stands
    r"(?<![\d.,/:-])19[6-9]\d(?![\d.,/:]\d|\d)",
    r"(?<![\w'’])['’]\d\d\b|\b\d\d['’](?!\w)",
]
_DATE = [re.compile(p) for p in DATE_PATTERNS]
_WEEKDAYS = frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
#: words of a time of day, a duration or a relative day: no date by themselves ("Tuesday", "8 pm", "2 days")
_NOT_A_DATE = _WEEKDAYS | frozenset(
    "am pm morning afternoon evening night tonight today yesterday tomorrow noon midnight ago "  # noqa: SIM905
    "minute minutes hour hours day days week weeks month months year years".split()
)
_ID_CONTEXT = re.compile(
    r"(?i)(?:#|\bno\.|\bmrn\b|\bref\b|\baccount\b|\bacct\b|\bpolicy\b|\blicen[cs]e\b|\brecord\b|\bid\b|"
    r"\bsocial security\b|\bssn\b|\bmedicaid\b|\bmedicare\b|"
    r"\b(?:order|ticket|booking|tracking|invoice|reservation|confirmation(?=[ \t]+(?:number|code)))"
    r"(?:[ \t]+(?:number|code))?\b)[ \t:#.]*$"
)
#: a measurement, not an identifier, whatever the context ("order 1000 mL", "per order 10.5 mg", "order 2.5")
_MEASUREMENT = re.compile(
    r"(?i)\d+(?:[.,]\d+)?\s*(?:mg|mcg|g|kg|ml|cc|l|units?|iu|meq|mmol|%|kcal|hrs?|mins?|mmhg|bpm|lbs?|oz)\b"
    r"|\d+[.,]\d+(?!\S)"
)
_LONG_DIGITS = re.compile(r"(?<![\d.,])\d{5,}(?![\d.,]\d)")
_URL_OK = re.compile(r"(?i)://|\bwww\.|\w{3,}\.(?:com|org|net|edu|gov|io|info|biz)\b")
#: a phone span that is a blood pressure, a range or a lab series ("129/78--140/88", "174/26/7.42/17")
_NOT_PHONE = re.compile(r"^(?!\(?\d{3}\)?/\d{3}/\d{4}$).*(?:/|\.\d{1,2}$|--)")
_AGE = re.compile(r"\d+")
#: a hospital location alone ("Rm 5", "bed 12", "unit 4"): not an address (an apartment, suite or P.O. box is)
_UNIT_ONLY = re.compile(r"(?i)^(?:unit|floor|fl|room|rm|bed)\.?\s*#?\s*\d+[a-z]?$")
#: an apartment, suite or P.O. box: part of a postal address
_POSTAL_UNIT = re.compile(r"(?i)\b(?:apt|apartment|suite|ste|p\.?\s?o\.?\s*box|box)\b\.?\s*#?\s*\d")
#: a number written like a phone number: a leading "+", 3/3/4 digits between slashes, or 3+ digit groups with
#: one kind of separator
_PHONE_SHAPE = re.compile(
    r"\+\d[\d ().-]{6,}\d|\d{3}/\d{3}/\d{4}|(?:\d{1,3}[ -])?\(?\d{2,4}\)?([ .-])\d{2,4}(?:\1\d{2,4})+"
)
#: a phone-shaped number inside running text (`find_phones` keeps those with `PHONE_DIGITS` digits)
PHONE_IN_TEXT = re.compile(rf"(?<![\w.+/-])(?:{_PHONE_SHAPE.pattern})(?![\w/]|[ .-]\d)")
#: digits a phone-shaped number needs (fewer: a date, a range or a short series)
PHONE_DIGITS = 8
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-])*")  # letters of any script ("Møller", "Sörös")
#: labels whose spans need identifier evidence under hipaa
NAMED = {"PERSON", "ORG", "LOCATION", "OTHER"}
#: an ID span scored at least this by its recognizer (checksum, SSN, credit card) is kept as it is; weaker
#: ones (presidio's licence/passport/bank patterns match "O2", "x2") need 5+ digits or an ID context
STRONG_ID = 0.5
#: score of a number kept for its ID context ("MRN", "account"): above a token classifier's usual scores, so
#: that the merged span is an ID (its surrogate an ID) rather than, say, a model's ADDRESS
CONTEXT_ID_SCORE = 0.95


def check_policy(policy) -> str:
    if policy not in POLICIES:
        raise InputError(f"unknown identifier policy {policy!r}; use one of {', '.join(POLICIES)}")
    return policy


_PAIN = re.compile(r"(?i)pain|\bc/o\b|\bcp\b|discomfort|scale|rated|\bha\b|ache")


def find_dates(text: str) -> list[Span]:
    """Date spans by `DATE_PATTERNS` (label DATE_TIME, source ``policy``); "n/10" next to a pain word is
    a pain score, not a date."""
    found = []
    for pattern in _DATE:
        for m in pattern.finditer(text):
            if m.group().endswith("/10") and _PAIN.search(text[max(0, m.start() - 25) : m.end() + 20]):
                continue
            found.append(Span(*m.span(), "DATE_TIME", 0.7, "policy"))
    return merge_spans(found)


def find_phones(text: str) -> list[Span]:
    """Phone-shaped numbers over the whole text (label PHONE, source ``policy``): `_PHONE_SHAPE` with at
    least `PHONE_DIGITS` digits, also where a detector split it into separate numbers ("723 813 266")."""
    return [
        Span(*m.span(), "PHONE", 0.6, "policy")
        for m in PHONE_IN_TEXT.finditer(text)
        if _phone_digits(m.group())
    ]


def _phone_digits(piece: str) -> bool:
    return sum(c.isdigit() for c in piece) >= PHONE_DIGITS


_TITLE_END = re.compile(r"(?i)\b(?:dr|drs|mr|mrs|ms|prof|st)\.$")


def _sentence_start(text: str, start: int, reach: int = 200) -> bool:
    """Only the ``reach`` characters before ``start`` are read (linear on long documents); blank ones all
    the way count as a break."""
    before = text[max(0, start - reach) : start].rstrip(" \t\"'(")
    if _TITLE_END.search(before[-6:]):  # "Dr. Turgeon": the full stop of a title ends no sentence
        return False
    return not before or before[-1] in ".!?:;\n-*"


@functools.lru_cache(maxsize=8)  # asked once per word of a document: computed once per document
def lowercase_style(text: str) -> bool:
    """Written without capitals (`lexicon.uses_capitals` is False): lower case says nothing."""
    return any(ch.isalpha() for ch in text) and not uses_capitals(text)


def _in_vocabulary(word: str, vocabulary: Vocabulary | None) -> bool:
    return vocabulary is not None and vocabulary.is_vocabulary(word)


def _known_name(word: str, vocabulary: Vocabulary | None) -> bool:
    return is_name_word(word) and not _in_vocabulary(word, vocabulary)


def evidence(
    text: str, start: int, end: int, vocabulary: Vocabulary | None = None, original: str | None = None
) -> bool:
    """Does the word ``text[start:end]`` identify: a known person name, a word rarer than COMMON_ZIPF (not
    corpus vocabulary, nor a common noun of the corpus: `DocumentFrequency.is_common_noun`), or a frequent
    word written capitalised inside a sentence (a proper noun: "Baltimore"). Never: upper-case words of at
    most 3 letters (abbreviations), longer upper-case words other than known names (acronyms: "COPD"),
    clinical terms and drug names (`lexicon.is_clinical_term`), typos
    (`lexicon.is_misspelling`; lower-case or sentence-initial words only). Where casing says nothing it
    counts only as a known person name (of 3+ letters): in a text without capitals (`lowercase_style`;
    lower-case words elsewhere never count) and on an ALL-CAPS line of ``original`` (`casing.in_caps_line`),
    where a word the restorer left upper case is an abbreviation."""
    word = CLITIC.sub("", text[start:end].strip("'’-"))  # "BP's", "SBP'S", "sx'd": the word itself
    if (
        len(word) < 2
        or (word.isupper() and len(word) <= 3)
        or word.lower() in _WEEKDAYS  # "for Thursday": a weekday alone identifies nobody
        or is_clinical_term(word)
        # a typo; but a capitalised word inside a sentence is a name ("Turgeon" is one edit from "surgeon")
        or ((word.islower() or _sentence_start(text, start)) and is_misspelling(word))
    ):
        return False
    if original is not None and in_caps_line(original, start):
        # written in capitals: casing says nothing, and a word the restorer left upper case is an abbreviation
        return not word.isupper() and _known_name(word, vocabulary)
    if word.isupper():  # an acronym amid lower case ("COPD", "PTCA"), unless a known name ("ROBERT")
        return _known_name(word, vocabulary)
    if word.islower():  # lower case: no name in a text that uses capitals; only a known name in one without
        return lowercase_style(text) and len(word) > 2 and _known_name(word, vocabulary)
    if _in_vocabulary(word, vocabulary):
        return False
    if is_name_word(word):
        return True
    if zipf(word) < COMMON_ZIPF:  # a rare word, unless the corpus writes it as a common noun ("flovent")
        return not (vocabulary is not None and vocabulary.is_common_noun(word))
    return word[0].isupper() and not _sentence_start(text, start)


def _rare(word: str, vocabulary: Vocabulary | None) -> bool:
    """Rarer than COMMON_ZIPF, not a clinical term, not corpus vocabulary."""
    word = CLITIC.sub("", word.strip("'’-"))
    return zipf(word) < COMMON_ZIPF and not is_clinical_term(word) and not _in_vocabulary(word, vocabulary)


def evidence_span(
    text: str, span: Span, vocabulary: Vocabulary | None = None, original: str | None = None
) -> Span | None:
    """``span`` trimmed to its first and last identifying words (`evidence`), widened over the PERSON span's
    capitalised known person names next to them ("John" of "John Smith": too frequent in English to be
    evidence alone) and, in a text without capitals (`lowercase_style`), over its rare words next to them
    ("patty hoeller"); None if it has none."""
    words = [m.span() for m in _WORD.finditer(text, span.start, span.end)]
    found = [i for i, w in enumerate(words) if evidence(text, *w, vocabulary, original)]
    if not found:
        return None
    person = span.label == "PERSON"
    unmarked = person and lowercase_style(text)
    first, last = found[0], found[-1]

    def beside_name(i: int) -> bool:  # written so by the author (not case-restored), in a PERSON span
        start, end = words[i]
        word = text[start:end]
        if not person or (original is not None and original[start:end] != word):
            return False
        if word.istitle():
            return word.lower() in person_names()
        return unmarked and word.islower() and _rare(word, vocabulary)  # "patty hoeller"

    while first > 0 and beside_name(first - 1):
        first -= 1
    while last < len(words) - 1 and beside_name(last + 1):
        last += 1
    return Span(words[first][0], words[last][1], span.label, span.score, span.source)


def _over_89(age: str) -> bool:
    """An age span with a number over 89 (HIPAA Safe Harbor names ages over 89 only)."""
    return any(int(n) > 89 for n in _AGE.findall(age))


def _keep(text: str, span: Span, vocabulary, original: str | None = None) -> list[Span]:
    """The parts of one detector's span that the hipaa policy keeps."""
    label, piece = span.label, text[span.start : span.end]
    if "clinical" in span.source or label in ("EMAIL", "IP"):
        return [span]
    if label == "PHONE":
        return [] if _NOT_PHONE.match(piece.strip()) else [span]
    if label in NAMED:
        trimmed = evidence_span(text, span, vocabulary, original)
        return [trimmed] if trimmed else []
    if label == "ADDRESS":  # a hospital unit alone, or no identifying word written other than in capitals
        if _UNIT_ONLY.match(piece.strip()):
            return []
        if _POSTAL_UNIT.search(piece):
            return [span]
        words = [m.span() for m in _WORD.finditer(text, span.start, span.end)]
        return (
            [span]
            if any(evidence(text, *w, vocabulary) and not text[w[0] : w[1]].isupper() for w in words)
            else []
        )
    if label == "URL":
        return [span] if _URL_OK.search(piece) else []
    if label == "AGE":
        return [span] if _over_89(piece) else []
    if label == "ID" and span.score >= STRONG_ID:
        return [span]
    if label in ("NUMBER", "ID") and _PHONE_SHAPE.fullmatch(piece.strip()) and _phone_digits(piece):
        return [Span(span.start, span.end, "PHONE", span.score, span.source)]
    if label in ("NUMBER", "DATE_TIME", "ID"):
        kept = [
            Span(span.start + m.start(), span.start + m.end(), "ID", span.score, span.source)
            for m in _LONG_DIGITS.finditer(piece)
        ]
        if (
            label in ("NUMBER", "ID")
            and len(piece.strip(".,;:")) >= 4
            and _ID_CONTEXT.search(text[max(0, span.start - 24) : span.start])
            and not _MEASUREMENT.match(text, span.start, span.end + 12)
        ):
            # the context types it: an ID outranks another detector's guess in the merge ("MRN 4839201")
            kept.append(Span(span.start, span.end, "ID", max(span.score, CONTEXT_ID_SCORE), span.source))
        return kept  # dates inside come from find_dates over the whole text
    return [span]


def apply_policy(
    text: str,
    spans: Sequence[Span],
    policy: str = DEFAULT_POLICY,
    vocabulary: Vocabulary | None = None,
    original: str | None = None,
) -> list[Span]:
    """The spans ``policy`` keeps (hipaa: module docstring; strict: all), not merged. ``text``: what the
    detectors saw; ``original``: the text before case restoration, if it differs."""
    if check_policy(policy) == "strict":
        return list(spans)
    return [kept for span in spans for kept in _keep(text, span, vocabulary, original)]


#: titles and honorifics alone ("Dr.", "Mrs", "Prof. Dr."): no identifier (a model trained on synthetic
#: records that mark job titles learns to mark them)
_HONORIFICS = re.compile(
    r"(?:(?:dr|drs|mr|mrs|ms|miss|mx|prof|rev|fr|sir|madam|mme|mlle)\.?\s*)+", re.IGNORECASE
)


def _function_words(piece: str) -> bool:
    """Every token of ``piece`` is a lower-case English stop word ("from", "of the"; not "May", "US")."""
    tokens = [t.strip(".,:;'’\"()") for t in piece.split()]
    return bool(tokens) and all(t.islower() and t in stop_words() for t in tokens)


#: letters of scripts that separate words with spaces, and digits: what a word is widened over
_WORD_CHAR = regex.compile(r"[\p{Latin}\p{Greek}\p{Cyrillic}\p{Hangul}\p{Nd}]")
#: at most this many characters added on each side
WIDEN_MAX = 24


def _whole_words(text: str, span: Span) -> Span:
    """``span`` without leading or trailing punctuation and spaces (", IL"), widened to the word boundaries
    around it (a subword model's "Feli" of "Feliciano"), only in scripts written with spaces and by at most
    WIDEN_MAX characters a side."""
    start, end = span.start, span.end
    while start < end - 1 and not text[start].isalnum() and text[start] not in "+(#$£€":  # ", IL" -> "IL"
        start += 1
    while end > start + 1 and not text[end - 1].isalnum() and text[end - 1] not in ")%.":
        end -= 1
    inside = _WORD_CHAR.match
    while start > max(0, span.start - WIDEN_MAX) and inside(text, start - 1) and inside(text, start):
        start -= 1
    while end < min(len(text), span.end + WIDEN_MAX) and inside(text, end - 1) and inside(text, end):
        end += 1
    return span if (start, end) == (span.start, span.end) else dataclasses.replace(span, start=start, end=end)


#: a numeric date with dots ("04.03.2021", "3.4.21"), which the date rules leave to context
_DOTTED_DATE = re.compile(r"^\d{1,2}\.\d{1,2}\.(?:\d{2}|\d{4})$")


#: lower-case words of a name ("Staël de Holstein", "van Gogh"): kept in a learned name span
_NAME_PARTICLES = frozenset(
    "al bin da das de dei del della den der des di dos du ibn la le ten ter van von".split()  # noqa: SIM905
)
#: a possessive that ends a span ("Budjana 's", "CHICAGO'S", "Chicago's.")
_POSSESSIVE = re.compile(r"\s*['’][sS][.)]*$")
#: a possessive written apart ("Macy 's"): part of the word before it
_APART_POSSESSIVE = re.compile(r"['’][sS]")
_EDGE_PUNCTUATION = ".,;:!?\"'’()[]"
#: a lower-case letter after a full stop, "!" or "?" (or at the start), or a lone "i": writing whose lower
#: case may say little (chats, tweets; also "e.g. the", "b.i.d.": when in doubt, casing is not trusted)
_CARELESS = re.compile(r"(?:^|[.!?]\s+)[a-z]|\bi\b")


@functools.lru_cache(maxsize=8)  # asked once per span of a document: computed once per document
def careless_casing(text: str) -> bool:
    """``text`` may write names in lower case (`_CARELESS`): a sentence begun in lower case, the pronoun
    "i", or a lower-case word after an abbreviation's full stop."""
    return _CARELESS.search(text) is not None


def _trim_common_words(text: str, span: Span) -> Span | None:
    """A learned name span without the lower-case frequent words (zipf >= COMMON_ZIPF) at its edges
    ("pianist", "a South Korean company", "Catholic Bishop of"), bar known person names ("anita morris") and
    name particles ("van Gogh"); a PERSON or LOCATION then also loses its possessive ("Budjana 's",
    "Chicago's": a genitive; an ORG or OTHER keeps it: "Macy's"). Words are the span's space-separated
    tokens (`spans.trim_edge_words`), so one with a digit is never cut ("3M", "7-Eleven", "42nd"). None if
    nothing with a letter or digit is left. Where lower case may say little (a text without capitals,
    `lowercase_style`, or `careless_casing`) only the possessive goes."""
    if _APART_POSSESSIVE.fullmatch(text[max(0, span.start - 1) : span.end]):  # a possessive alone ("'S")
        return None

    def common(written: str) -> bool:
        if _APART_POSSESSIVE.fullmatch(written):
            return False
        word = CLITIC.sub("", written.strip(_EDGE_PUNCTUATION))
        return (
            word.isalpha()
            and word.islower()
            and zipf(word) >= COMMON_ZIPF
            and word not in person_names()
            and word not in _NAME_PARTICLES
        )

    cased = not lowercase_style(text) and not careless_casing(text)
    trimmed = trim_edge_words(text, span, common) if cased else span
    if trimmed is None:
        return None
    start, end = trimmed.start, trimmed.end
    if span.label in ("PERSON", "LOCATION"):
        end = start + len(_POSSESSIVE.sub("", text[start:end]))
    if not any(ch.isalnum() for ch in text[start:end]):
        return None
    if (start, end) == (span.start, span.end):
        return span
    return _whole_words(text, dataclasses.replace(span, start=start, end=end))


def keep_trained(text: str, spans: Sequence[Span], dates: Sequence[Span]) -> list[Span]:
    """The spans of a model trained on this policy's gold, widened to whole words (`_whole_words`), kept as
    found except: names lose the frequent lower-case words at their edges and a person's or place's
    possessive (`_trim_common_words`); function words or a title alone ("Sam from Contoso": "from"; "Dr.");
    an AGE without a number over 89 (the policy's age rule: a synthetic gold that marks every age teaches the
    model "67 years old"); a DATE_TIME that a date rule (`find_dates`: ``dates``) overlaps (the rule's span
    stands for it, as for every other detector) or that is no dotted date ("04.03.2021") and has no word but
    a weekday, a time of day or a duration: a bare number or fragment ("9", "/7", "2000"), "Tuesday", "8 pm".
    """
    kept = []
    for span in spans:
        span = _whole_words(text, span)
        if span.label in NAMED:
            span = _trim_common_words(text, span)
        if (
            span is None
            or _function_words(text[span.start : span.end])
            or _HONORIFICS.fullmatch(text[span.start : span.end].strip())
        ):
            continue
        piece = text[span.start : span.end]
        if span.label == "AGE" and not _over_89(piece):
            continue
        if span.label == "DATE_TIME" and (
            any(d.start < span.end and span.start < d.end for d in dates)
            or not (
                _DOTTED_DATE.match(piece.strip())
                or any(w.lower() not in _NOT_A_DATE for w in _WORD.findall(piece))
            )
        ):
            continue
        kept.append(span)
    return kept


def shipped_vocabulary(members: Sequence[Detector]) -> Vocabulary | None:
    """The corpus vocabulary that ships with a model: the first member's that carries one (a trained
    folder's ``VOCABULARY_FILE``), else the default learned model's; None where neither has one."""
    for member in members:
        if getattr(member, "vocabulary", None) is not None:
            return member.vocabulary
    return default_vocabulary()


@functools.cache
def default_vocabulary() -> Vocabulary | None:
    from ..models import LEARNED_MODEL, model_path

    path = Path(model_path(LEARNED_MODEL)) / VOCABULARY_FILE
    return Vocabulary.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


class PolicyDetector(Detector):
    """Detectors under an identifier policy (module docstring). ``restore_case``: run them on the
    case-restored copy; ``context``: add the clinical context rules; ``corpus_vocabulary``: words frequent
    across the documents of a corpus need other evidence: the corpus given to `fit` (opt-in: a name that
    recurs across that corpus is then kept), else the training corpora of the model (`shipped_vocabulary`),
    so a document's output never depends on the other documents of a run."""

    def __init__(
        self,
        detector: Detector,
        policy: str = DEFAULT_POLICY,
        restore_case: bool = True,
        context: bool = True,
        corpus_vocabulary: bool = True,
    ):
        self.policy = check_policy(policy)
        self.members = list(detector.detectors) if isinstance(detector, EnsembleDetector) else [detector]
        self.name = f"{detector.name}[{policy}]"
        self.restore_case = restore_case
        self.context = ClinicalContextDetector() if context else None
        self.corpus_vocabulary = corpus_vocabulary
        self.fitted: Vocabulary | None = None
        self.shipped = shipped_vocabulary(self.members) if corpus_vocabulary else None

    def __getattr__(self, name: str):
        """An attribute of the one detector under the policy (e.g. a p-filter's ``scorer``)."""
        members = self.__dict__.get("members") or []
        if len(members) != 1:
            raise AttributeError(name)
        return getattr(members[0], name)

    def fit(self, texts: Sequence[str]) -> PolicyDetector:
        """Corpus statistics from a whole corpus instead of the model's training corpora: more precision on
        that corpus, less privacy (a name found in many of its documents becomes vocabulary)."""
        self.fitted = DocumentFrequency().fit(texts).vocabulary()
        return self

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        texts = list(texts)
        shown = [restore_case(t) for t in texts] if self.restore_case else texts
        # statistics only of a corpus given to `fit`, never of a call's batch: a document's output must not
        # depend on which other documents share its batch (a service batches unrelated clients together)
        vocabulary = (self.fitted or self.shipped) if self.corpus_vocabulary else None
        # a model trained on gold of this policy sees the text as written and its spans are kept as found
        trained = [getattr(member, "trained_policy", None) == self.policy for member in self.members]
        per_member = [
            member.detect_batch(texts if own else shown) for member, own in zip(self.members, trained)
        ]
        out = []
        for i, (text, seen) in enumerate(zip(texts, shown)):
            dates = find_dates(text) if self.policy == "hipaa" else []
            spans = [
                s
                for found, own in zip(per_member, trained)
                for s in (
                    keep_trained(text, found[i], dates)
                    if own
                    else apply_policy(seen, found[i], self.policy, vocabulary, text)
                )
            ]
            if self.context is not None:
                spans += self.context.detect(text, vocabulary)
            if self.policy == "hipaa":
                spans += dates + find_phones(text)
            out.append(merge_spans(extend_places(text, merge_spans(spans)) if self.context else spans))
        return out
