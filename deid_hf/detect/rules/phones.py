"""Phone rules of the hipaa policy: a phone-shaped number of enough digits is a phone wherever it stands,
one in a Social Security number's layout an ID; a detector's "phone" that is a blood pressure, a range or a
lab series is none."""

from __future__ import annotations

import re

from ...spans import Span
from ..text_shape import DIGIT_VALUES, DIGIT_WORD
from . import RULES, PatternRule, decided, register_rule

#: the layout of a US Social Security number (3-2-4 digits), which no phone number is written in
SSN_SHAPE = re.compile(r"\d{3}(?:-\d{2}-| \d{2} )\d{4}")
#: a number written like a phone number: a leading "+", 3/3/4 digits between slashes, or 3+ digit groups with
#: one kind of separator; never an IPv4 address ("10.24.117.3": an IP, which the IP recognizer finds) nor an
#: SSN's layout (an ID, `id.ssn-layout-number`)
PHONE_SHAPE = re.compile(
    r"(?!(?:\d{1,3}\.){3}\d{1,3}(?![\d.]|-\d))"
    rf"(?!{SSN_SHAPE.pattern}(?![\d]|[ .-]\d))"
    r"(?:\+\d[\d ().-]{6,}\d|\d{3}/\d{3}/\d{4}|(?:\d{1,3}[ -])?\(?\d{2,4}\)?([ .-])\d{2,4}(?:\1\d{2,4})+)"
)
#: a phone-shaped number inside running text (`find_phones` keeps those with `PHONE_DIGITS` digits)
PHONE_IN_TEXT = re.compile(rf"(?<![\w.+/-])(?:{PHONE_SHAPE.pattern})(?![\w/]|[ .-]\d)")
#: digits a phone-shaped number needs (fewer: a date, a range or a short series)
PHONE_DIGITS = 8
#: a phone span that is a blood pressure, a range or a lab series ("129/78--140/88", "174/26/7.42/17")
NOT_PHONE = re.compile(r"^(?!\(?\d{3}\)?/\d{3}/\d{4}$).*(?:/|\.\d{1,2}$|--)")

#: a digit said in words, maybe doubled or tripled ("oh", "double four")
_SPOKEN_DIGIT = rf"(?:(?:double|triple)[ -])?{DIGIT_WORD}"
#: a phone number said digit by digit, as a transcript or a chat writes it ("oh seven seven oh oh nine double
#: oh four one seven"): seven digit words or more in a row
SPOKEN_PHONE = re.compile(rf"(?i)(?<![\w-]){_SPOKEN_DIGIT}(?:[ ,-]+{_SPOKEN_DIGIT}){{6,}}(?![\w-])")
#: words only a number said aloud holds
_NUMBER_ONLY_WORDS = frozenset({"oh", "zero", "nought", "double", "triple"})
#: a word of phones before a number said aloud ("telephone", "phoned", "calling", "reached", "landline")
_SAID_PHONE_CUE = re.compile(
    r"(?i)\b(?:number|tele?phone\w*|phon\w*|tel|call\w*|reach\w*|mobile|cell|contact|text|ring|landline|fax|"
    r"whatsapp|extension|ext)\b\W*(?:\w+\W+){0,4}$"
)
#: a 24-hour clock time written with four digits ("0600", "2215")
CLOCK_TIME = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
#: two 24-hour clock times joined by a hyphen ("0400-0600", "2300 - 0700", "2000-2400"): a time range
TIME_RANGE = re.compile(rf"{CLOCK_TIME.pattern}\s*-\s*(?:{CLOCK_TIME.pattern}|2400)")
#: the fewest digits of a phone number written without a country code (a local number, "555-1234")
LOCAL_PHONE_DIGITS = 7
#: a word that says a phone number follows ("tel", "call", "pager", "x" of an extension), read before a number
_PHONE_WORD = re.compile(r"(?i)\b(?:tel|phone|telephone|call|fax|pager|page|beeper|cell|mobile|ext|x)\b\W*$")
#: characters read before a number for a phone word
PHONE_WORD_BEFORE = 16


def not_a_phone(text: str, start: int, end: int) -> bool:
    """A detector's "phone" ``text[start:end]`` that is a blood pressure, a range or a lab series
    (`NOT_PHONE`), or, with no phone word right before it, a time range (`TIME_RANGE`) or a number without a
    country code too short for a phone ("390-550", a range valid only as some country's local number)."""
    piece = text[start:end].strip()
    if SPOKEN_PHONE.fullmatch(piece):
        return False
    if NOT_PHONE.match(piece):
        return True
    if _PHONE_WORD.search(text, max(0, start - PHONE_WORD_BEFORE), start):
        return False
    return bool(
        TIME_RANGE.fullmatch(piece)
        or (not piece.startswith("+") and sum(c.isdigit() for c in piece) < LOCAL_PHONE_DIGITS)
    )


#: a word of phones anywhere shortly before a number ("pager is 2145", "page Dr. Lee at 2145")
_PHONE_WORD_NEAR = re.compile(
    r"(?i)\b(?:tel|phone|telephone|call|called|fax|pager|page|paged|beeper|beep|cell|mobile|ext|extension|x)\b"
)
#: characters read before a four-digit number for a word of phones
PHONE_WORD_NEAR = 24


def clock_time_alone(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is one four-digit clock time ("2200") with no word of phones in the
    `PHONE_WORD_NEAR` characters before it ("pager is 2145", "call x2145" are phones)."""
    return CLOCK_TIME.fullmatch(text[start:end].strip()) is not None and not _PHONE_WORD_NEAR.search(
        text, max(0, start - PHONE_WORD_NEAR), start
    )


SSN_SHAPED_NUMBER = register_rule(
    PatternRule(
        name="id.ssn-layout-number",
        family="phones",
        labels=("ID",),
        reason="a number in the 3-2-4 layout of a Social Security number is an ID, not a phone",
        examples=("SSN 123-45-6789", "078 05 1120"),
        pattern=rf"(?<![\w.+/-]){SSN_SHAPE.pattern}(?![\w/]|[ .-]\d)",
        score=0.6,
    )
)
SPOKEN_PHONE_NUMBER = register_rule(
    PatternRule(
        name="phone.spoken-digits",
        family="phones",
        labels=("PHONE",),
        reason="a number said digit by digit in words, seven digits or more, is a phone number (not a count: "
        "'one two three four five six seven volunteers', unless a word of phones comes before it)",
        examples=("my number is oh seven seven oh oh nine double oh four one seven",),
        pattern=SPOKEN_PHONE.pattern,
        score=0.6,
    )
)
PHONE_SHAPED_NUMBER = register_rule(
    PatternRule(
        name="phone.shaped-number",
        family="phones",
        labels=("PHONE",),
        reason="a phone-shaped number of at least PHONE_DIGITS digits, also where a detector split it",
        examples=("723 813 266", "+1-984-182-0190"),
        pattern=PHONE_IN_TEXT.pattern,
        score=0.6,
    )
)


def phone_digits(piece: str) -> bool:
    """``piece`` has the digits of a phone number (`PHONE_DIGITS`)."""
    return sum(c.isdigit() for c in piece) >= PHONE_DIGITS


def said_phone(text: str, start: int, piece: str) -> bool:
    """Whether digit words are a phone number said aloud: after a word of phones ("call me on ..."), with a
    word only a number says ("oh", "zero", "double"), or any run that is no count (one step up or down, or
    a digit repeated: "one two three four five six seven volunteers", "one one one two two two three")."""
    if _SAID_PHONE_CUE.search(text, max(0, start - PHONE_WORD_BEFORE * 2), start):
        return True
    words = re.findall(r"[a-z]+", piece.casefold())
    if set(words) & _NUMBER_ONLY_WORDS:
        return True
    values = [DIGIT_VALUES[w] for w in words if w in DIGIT_VALUES]
    steps = {b - a for a, b in zip(values, values[1:])}
    return not (steps <= {0, 1} or steps <= {0, -1})


def find_phones(text: str) -> list[Span]:
    """Spans of the registered phone rules (a phone, or an ID in an SSN's layout; source ``policy``) with
    enough digits, in figures or said in words (`SPOKEN_PHONE`)."""
    found = []
    for rule in RULES.family("phones"):
        for span in rule.find(text, "policy"):
            piece = text[span.start : span.end]
            if (
                phone_digits(piece)
                if rule is not SPOKEN_PHONE_NUMBER
                else said_phone(text, span.start, piece)
            ):
                decided(rule.name, span, True)
                found.append(span)
    return found
