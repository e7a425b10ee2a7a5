"""Identifier evidence: does a word, written as it is where it is, point at a person, place or organisation
(`has_evidence`), and the part of a name span between its identifying words (`evidence_span`)."""

from __future__ import annotations

from ..spans import Span
from .casing import in_caps_line
from .lexicon import Vocabulary, is_clinical_term, is_misspelling, is_name_word, person_names, zipf
from .text_shape import (
    CLITIC,
    COMMON_WORD_ZIPF,
    WORD_ANY_SCRIPT,
    in_field_label,
    lowercase_style,
    sentence_start,
)

_WEEKDAYS = frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
#: titles, honorifics and roles written before a name ("Dr.", "Mme", "Nurse Priya Castellanos"): they point
#: at no one, so a name span is trimmed past them and they stay in the text
TITLES = frozenset(
    "dr drs mr mrs ms mx miss prof rev fr sir madam mme mlle doctor nurse professor officer reverend sister "  # noqa: SIM905
    "father".split()
)


#: in a form's field label, a capitalised word at least this frequent is a heading's word, no person's name
#: ("Date of Birth:"); a rarer one may be a speaker's name ("Agent Minh:")
FIELD_LABEL_WORD_ZIPF = 4.0


def in_vocabulary(word: str, vocabulary: Vocabulary | None) -> bool:
    return vocabulary is not None and vocabulary.is_vocabulary(word)


def is_known_name(word: str, vocabulary: Vocabulary | None) -> bool:
    """A known person name that the corpus does not use as a word."""
    return is_name_word(word) and not in_vocabulary(word, vocabulary)


def _never_evidence(text: str, start: int, word: str) -> bool:
    """Abbreviations of at most 3 capitals, weekdays, titles, clinical terms and typos (a capitalised word
    inside a sentence is a name: "Turgeon" is one edit from "surgeon")."""
    return (
        len(word) < 2
        or (word.isupper() and len(word) <= 3)
        or word.lower() in _WEEKDAYS  # "for Thursday": a weekday alone identifies nobody
        or word.lower().rstrip(".") in TITLES
        or is_clinical_term(word)
        or ((word.islower() or sentence_start(text, start)) and is_misspelling(word))
    )


def has_evidence(
    text: str, start: int, end: int, vocabulary: Vocabulary | None = None, original: str | None = None
) -> bool:
    """Does the word ``text[start:end]`` identify: a known person name, a word rarer than COMMON_WORD_ZIPF
    (not corpus vocabulary, nor a common noun of the corpus), or a frequent word written capitalised inside a
    sentence ("Baltimore"). Never `_never_evidence`; upper-case words only as known names; where casing says
    nothing (a text without capitals: `lowercase_style`, an ALL-CAPS line of ``original``) only known names
    count."""
    word = CLITIC.sub("", text[start:end].strip("'’-"))  # "BP's", "SBP'S", "sx'd": the word itself
    if _never_evidence(text, start, word):
        return False
    if original is not None and in_caps_line(original, start):
        # written in capitals: casing says nothing, and a word the restorer left upper case is an abbreviation
        return not word.isupper() and is_known_name(word, vocabulary)
    if word.isupper():  # an acronym amid lower case ("COPD", "PTCA"), unless a known name ("ROBERT")
        return is_known_name(word, vocabulary)
    if word.islower():  # lower case: no name in a text that uses capitals; only a known name in one without
        return lowercase_style(text) and len(word) > 2 and is_known_name(word, vocabulary)
    if in_vocabulary(word, vocabulary):
        return False
    if is_name_word(word):
        return True
    if zipf(word) < COMMON_WORD_ZIPF:  # a rare word, unless the corpus writes it as a common noun ("flovent")
        return not (vocabulary is not None and vocabulary.is_common_noun(word))
    return word[0].isupper() and not sentence_start(text, start)


def heading_word(text: str, start: int, end: int) -> bool:
    """An everyday word of a form's field label ("Birth" of "Date of Birth:"), capitalised as a heading is:
    no person's name there. A rarer word ("Agent Minh:") or a person name, however frequent ("Crystal:",
    "Agent Brown:"), may be a speaker's."""
    word = text[start:end]
    return (
        zipf(word) >= FIELD_LABEL_WORD_ZIPF
        and word.lower() not in person_names()  # however frequent: "Agent Brown:", "Nurse Young:"
        and in_field_label(text, start, end)
    )


#: the former name of `has_evidence`
evidence = has_evidence


def is_rare_word(word: str, vocabulary: Vocabulary | None) -> bool:
    """Rarer than COMMON_WORD_ZIPF, not a clinical term, not corpus vocabulary."""
    word = CLITIC.sub("", word.strip("'’-"))
    return (
        zipf(word) < COMMON_WORD_ZIPF and not is_clinical_term(word) and not in_vocabulary(word, vocabulary)
    )


def evidence_span(
    text: str, span: Span, vocabulary: Vocabulary | None = None, original: str | None = None
) -> Span | None:
    """``span`` trimmed to its first and last identifying words (`has_evidence`; for a PERSON span not a
    form label's everyday word, `heading_word`), widened over the PERSON span's capitalised known person
    names next to them ("John" of "John Smith") and, in a text without capitals, over its rare words next to
    them ("patty hoeller"); None if it has none."""
    words = [m.span() for m in WORD_ANY_SCRIPT.finditer(text, span.start, span.end)]
    person = span.label == "PERSON"
    found = [
        i
        for i, w in enumerate(words)
        if has_evidence(text, *w, vocabulary, original) and not (person and heading_word(text, *w))
    ]
    if not found:
        return None
    unmarked = person and lowercase_style(text)
    first, last = found[0], found[-1]

    def beside_name(i: int) -> bool:  # written so by the author (not case-restored), in a PERSON span
        start, end = words[i]
        word = text[start:end]
        if not person or (original is not None and original[start:end] != word):
            return False
        if word.istitle():
            return word.lower() in person_names()
        return unmarked and word.islower() and is_rare_word(word, vocabulary)  # "patty hoeller"

    while first > 0 and beside_name(first - 1):
        first -= 1
    while last < len(words) - 1 and beside_name(last + 1):
        last += 1
    return Span(words[first][0], words[last][1], span.label, span.score, span.source)
