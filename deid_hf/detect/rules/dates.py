"""Date rules of the hipaa policy: named patterns for dates written with digits or month names, wherever
they occur, and the exclusions that are no date (fractions, scores, ventilator settings, pain scores)."""

from __future__ import annotations

import re

from ...spans import Span, merge_spans
from ..text_shape import DAY_RANGE_JOINT, HOLIDAY
from . import RULES, PatternRule, Rule, decided, register_rule

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
#: the space before a date's year, which a hard-wrapped line may put on the next line ("June 9,\n2020")
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*)"
_MM = r"(?:0?[1-9]|1[0-2])"
#: fractions (1/2, 1/3, 2/3, 1/4, 3/4) and strength, pupil and equal scores (5/5, 2/2, 4/4) without a year
_NOT_FRACTION_OR_SCORE = r"(?!(?:1/[234]|2/3|3/4|[1-5]/5|([1-5])/\1)(?![\d/]))"

DATE = ("DATE_TIME",)


def _date(*, name: str, reason: str, examples: tuple[str, ...], pattern: str) -> PatternRule:
    """A rule of the dates family: its pattern's matches are DATE_TIME spans of score 0.7."""
    return PatternRule(
        name=name, family="dates", labels=DATE, reason=reason, examples=examples, pattern=pattern, score=0.7
    )


#: "in 1950 and " / "since 1870 or ": a year in context joined to the next one (lookbehinds of fixed widths)
_AFTER_A_YEAR_IN_CONTEXT = "|".join(
    rf"(?<=\b{cue} (?:18|19|20)\d\d {joint} )"
    for cue in ("in", "of", "since", "year")
    for joint in ("and", "or")
)

#: "1997 to " / "1998-": a year that cannot be a time of day joined to the next one
_AFTER_A_YEAR_1960_1999 = "|".join(
    rf"(?<=\b19[6-9]\d{joint})" for joint in (" to ", " until ", " till ", " and ", " or ", "-", " - ")
)
#: a day of the month alone after a word that dates it: "on the 14th", "since the 3rd", "Sat the 12th"
_DAY_ALONE_CUES = ("on", "since", "until", "till", "by", "from", "before", "after")
_DAY_ALONE_CUES += ("mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun")
_DAY_ALONE_CUES += tuple(f"{day}day" for day in ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun"))
_AFTER_A_DAY_CUE = "|".join(rf"(?<=\b{cue} the )" for cue in _DAY_ALONE_CUES)
#: what may follow a day of the month alone: not a noun ("on the 3rd day", "by the 2nd attempt", "the 4th
#: floor") nor another ordinal ("on the 4th and 5th fingers"), only punctuation, a line's end or a small
#: word ("on the 14th w/ Dr. Hale", "the 22nd at noon")
_AFTER_A_DAY = (
    r"(?![ \t]+(?!(?:at|w|and|or|of|when|while|then|but|so|because|before|after|since|until|till|as|for|"
    r"with|per|in|to|am|pm|a\.m|p\.m|she|he|they|we|pt|patient)\b)[A-Za-z])"
    r"(?![ \t]+(?:and|or)[ \t]+\d)"
)


#: what no date is written before: a unit ("2/6-9 mg")
_NO_UNIT = r"(?![ \t]*(?i:mg|mcg|ml|cc|l|g|kg|units?|u|iu|meq|mmol|%|mm|cm|mmhg|min|mins|h|hrs?|x)\b)"

DATE_RULES = [
    _date(
        name="date.numeric",
        reason="month/day with or without a year; not a fraction, a score or a ventilator setting (nor a "
        "percentage's numbers: 'SIMV 600x12/5/40%')",
        examples=("10/16", "10/16/03", "8/28/1995"),
        pattern=rf"(?<![\d/.]){_NOT_FRACTION_OR_SCORE}"
        rf"{_MM}/{_DAY}(?:/(?:\d{{4}}|\d{{2}})(?!%))?(?![\d/]|\.\d)",
    ),
    _date(
        name="date.numeric-hyphenated",
        reason="month-day-year; without its year a hyphenated pair is a range ('3-5')",
        examples=("6-17-21",),
        pattern=rf"(?<![\d/.-]){_MM}-{_DAY}-(?:\d{{4}}|\d{{2}})(?![\d/-])",
    ),
    _date(
        name="date.day-first",
        reason="day/month/year or day.month.year with a year: a day above 12 first, or dots between "
        "(month/day/year reads the rest); not a version number of 2-digit parts without leading zeros",
        examples=("14/05/2021", "30/04/21", "4.2.2002", "05.03.21"),
        pattern=rf"(?<![\d/.-])(?:(?:1[3-9]|2\d|3[01])/{_MM}/(?:\d{{4}}|\d{{2}})(?![\d/]|\.\d)"
        rf"|{_DAY}\.{_MM}\.(?:18|19|20)\d\d|(?:0[1-9]|[12]\d|3[01])\.(?:0[1-9]|1[0-2])\.\d\d)"
        r"(?![\d.]\d|\d)",
    ),
    _date(
        name="date.year-first",
        reason="ISO and other year-first dates, with an ISO time of day written onto them ('T14:22')",
        examples=("2020-06-20", "2020/6/20", "2020.06.20", "2021-05-03T14:22"),
        pattern=rf"(?<![\d/.-])(?:18|19|20)\d\d([-/.]){_MM}\1{_DAY}"
        r"(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?![\d/.-]\d|\d)",
    ),
    _date(
        name="date.month-year",
        reason="month/year, a 2-digit year above 31 or a 4-digit one",
        examples=("8/84", "10/2003"),
        pattern=r"(?<![\d/.-])(?:0?[1-9]|1[0-2])/(?:3[2-9]|[4-9]\d|(?:19|20)\d\d)(?![\d/]|\.\d)",
    ),
    _date(
        name="date.day-range",
        reason="a range of days in one month: with a month name ('March 3-5, 2024', 'Mar 3 to 5', '3rd-5th "
        "of May'; not before a noun, as 'March 3 to 5 days'), written with digits ('10/15-16/2024', "
        "'15-16/10/2024', '2/6-9': not a fraction, a score or before a unit), or days alone after a cue "
        "('from the 6th to the 9th')",
        examples=("March 3-5, 2024", "3 to 5 March", "10/15-16/2024", "2/6-9"),
        pattern=rf"(?i)\b{_MONTH_ANY}[ \t]+{_DAY}(?:st|nd|rd|th)?{DAY_RANGE_JOINT}{_DAY}(?:st|nd|rd|th)?"
        rf"\b(?!/)(?:,?{_GAP}(?:18|19|20)\d\d\b|{_AFTER_A_DAY})"
        rf"|(?<![\d/.]){_DAY}(?:st|nd|rd|th)?{DAY_RANGE_JOINT}{_DAY}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?"
        rf"{_MONTH_ANY}(?:,?{_GAP}(?:19|20)\d\d)?\b"
        rf"|(?<![\d/.-]){_MM}/{_DAY}[ \t]*[-–][ \t]*{_DAY}/(?:\d{{4}}|\d{{2}})(?![\d/]|\.\d)"
        rf"|(?<![\d/.-]){_DAY}[ \t]*[-–][ \t]*{_DAY}/{_MM}/(?:\d{{4}}|\d{{2}})(?![\d/]|\.\d)"
        rf"|(?<![\d/.-]){_NOT_FRACTION_OR_SCORE}{_MM}/{_DAY}[ \t]*[-–][ \t]*{_DAY}(?![\d/]|\.\d){_NO_UNIT}"
        rf"|(?:{_AFTER_A_DAY_CUE}){_DAY}(?:st|nd|rd|th){DAY_RANGE_JOINT}(?:the[ \t]+)?{_DAY}"
        rf"(?:st|nd|rd|th)\b{_AFTER_A_DAY}",
    ),
    _date(
        name="date.month-name-day",
        reason="a month name with a day, and a year if one follows (also on the next line)",
        examples=("Oct 20th", "March 3, 2001"),
        pattern=rf"(?i)\b{_MONTH_ANY}[ \t]+{_DAY}(?:st|nd|rd|th)?\b(?:,?{_GAP}(?:18|19|20)\d\d\b)?",
    ),
    _date(
        name="date.month-name-year",
        reason="a month name with a year, also of two digits after an apostrophe",
        examples=("march of 2022", "Oct, 1989", "Mar '01"),
        pattern=rf"(?i)\b{_MONTH_ANY},?{_GAP}(?:of{_GAP})?(?:(?:19|20)\d\d\b|['’]\d\d(?!\w))",
    ),
    _date(
        name="date.day-month-name",
        reason="a day before a month name, and a year if one follows; with hyphens or run together: day, "
        "month and year",
        examples=("20th Oct, 1989", "3 of May", "03-May-2021", "25APR2002"),
        # a day range's last day is found ("1-3 May"), a hyphenated date's day only at a token start
        pattern=rf"(?i)(?:(?<![\d/.]){_DAY}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTH_ANY}"
        rf"(?:,?{_GAP}(?:19|20)\d\d)?|(?<![\d/.-]){_DAY}-{_MONTH_ANY}-(?:(?:19|20)\d\d|\d\d)"
        rf"|(?<![\w/.-]){_DAY}{_MONTH_ANY}(?:(?:19|20)\d\d|\d\d))\b",
    ),
    _date(
        name="date.day-of-month-alone",
        reason="an ordinal day of the month after 'on the', 'since the', 'until the' or a weekday and 'the', "
        "not before a noun or another ordinal ('on the 3rd day', 'on the 4th and 5th fingers')",
        examples=("on the 14th", "Sat the 12th"),
        pattern=rf"(?i)(?:{_AFTER_A_DAY_CUE})(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)\b{_AFTER_A_DAY}",
    ),
    _date(
        name="date.holiday",
        reason="a holiday names its day ('Christmas 2021', 'on Thanksgiving', 'New Year's Eve'), with its "
        "year",
        examples=("Christmas 2021", "Thanksgiving", "New Year's Eve"),
        pattern=rf"\b(?:{HOLIDAY})(?!\w)(?:,?{_GAP}(?:19|20)\d\d\b)?",
    ),
    _date(
        name="date.month-name-alone",
        reason="a month name that is no common word ('may', 'march', 'dec' and 'aug' alone are not dates)",
        examples=("January", "Sept."),
        pattern=rf"(?i)\b{_MONTH_ALONE}(?![\w])",
    ),
    _date(
        name="date.year-in-context",
        reason="a year after 'in', 'of', 'since' or 'year', and one joined to such a year by 'and' or 'or'",
        examples=("in 2003", "since 1870", "born in 1950 and 1953"),
        pattern=rf"(?i)(?:(?<=\bin )|(?<=\bof )|(?<=since )|(?<=year ))(?:18|19|20)\d\d\b"
        rf"|(?:{_AFTER_A_YEAR_IN_CONTEXT})(?:18|19|20)\d\d\b",
    ),
    _date(
        name="date.year-of-birth",
        reason="a year after a word of birth or death ('born', 'b.', 'DOB', 'YOB', 'birth year', 'died', "
        "'d.'), and a lifespan in brackets ('(1931-2024)'): also a year that reads as a time of day",
        examples=("born 1931", "DOB: 1925", "(1931-2024)"),
        pattern=r"(?i)(?:(?<=\bborn )|(?<=\bb\. )|(?<=\bdob )|(?<=\bdob: )|(?<=\byob )|(?<=\byob: )"
        r"|(?<=\bbirth year )|(?<=\bbirth year: )|(?<=\byear of birth )|(?<=\byear of birth: )|(?<=\bdied )"
        r"|(?<=\bd\. ))(?:18|19|20)\d\d\b"
        r"|(?<=\()(?:18|19|20)\d\d[ ]?[-–][ ]?(?:(?:18|19|20)\d\d)?(?=\))",
    ),
    _date(
        name="date.year-range",
        reason="two years joined by an en or em dash ('2005–2011', '1998—2004', '2019–20'): a span of years "
        "in edited prose (times of day are written with a hyphen); not before a unit ('1800–2000 units')",
        examples=("2005–2011",),
        pattern=r"(?<![\d.,/:–—-])(?:18|19|20)\d\d[ ]?[–—][ ]?(?:(?:18|19|20)\d\d|\d\d)(?![\d.,/:–—-]?\d)"
        r"(?![ \t]*(?i:units?|u|iu|ml|mg|mcg|µg|cc|kg|g|km|m|mi|miles?|mmhg|cal|kcal|calories?|people)\b)",
    ),
    _date(
        name="date.year-1960-1999",
        reason="1960-1999 cannot be a time of day (minutes above 59): a year wherever it stands, and so is a "
        "year joined to it by 'to', 'until', 'and', 'or' or a hyphen ('from 1997 to 2002', '1998-2003')",
        examples=("1975", "1997 to 2002"),
        pattern=rf"(?:(?<![\d.,/:-])19[6-9]\d|(?:{_AFTER_A_YEAR_1960_1999})(?:18|19|20)\d\d)(?![\d.,/:]\d|\d)",
    ),
    _date(
        name="date.apostrophe-year",
        reason="a 2-digit year with an apostrophe",
        examples=("'84", "74'"),
        pattern=r"(?<![\w'’])['’]\d\d\b|\b\d\d['’](?!\w)",
    ),
]
for _rule in DATE_RULES:
    register_rule(_rule)
#: the date rules' regular expressions, in order
DATE_PATTERNS = [rule.pattern for rule in DATE_RULES]

_PAIN = re.compile(r"(?i)pain|\bc/o\b|\bcp\b|discomfort|scale|rated|\bha\b|ache")


def _exclusion(name: str, reason: str, examples: tuple[str, ...]) -> Rule:
    """A rule of the date exclusions family: a date rule's span it applies to is no date."""
    return register_rule(
        Rule(name=name, family="date exclusions", labels=DATE, reason=reason, examples=examples)
    )


NOT_A_PAIN_SCORE = _exclusion(
    "date.not-a-pain-score",
    "'n/10' within 25 characters before or 20 after a pain word is a pain score",
    ("pain 8/10",),
)
#: characters read before and after an "n/10" for a pain word
PAIN_WORD_BEFORE, PAIN_WORD_AFTER = 25, 20


def _pain_score(text: str, span: Span) -> bool:
    window = text[max(0, span.start - PAIN_WORD_BEFORE) : span.end + PAIN_WORD_AFTER]
    return text[span.start : span.end].endswith("/10") and _PAIN.search(window) is not None


#: a ventilator mode, then no clause break (",", ";", ":", a line break or a full stop and a space) up to the
#: pair: the words before a pressure pair written like a date
_VENTILATOR_MODE = re.compile(r"(?i)\b(?:ps|psv|peep|cpap|bipap|imv|simv|prvc)\b(?:(?![,;:\n]|\.\s).)*$")
#: a pair of pressures (cmH2O) without a year: both numbers up to 30 ("10/5", "PEEP/PS 5/10"; not "9/87")
_PRESSURE_PAIR = re.compile(r"(?:[12]?\d|30)/(?:[12]?\d|30)")
NOT_A_VENTILATOR_SETTING = _exclusion(
    "date.not-a-ventilator-setting",
    "a pair of pressures without a year within 25 characters after a ventilator mode, in the same clause, is "
    "a setting",
    ("PS 10/5", "changed to PSV of 10/5", "cpap/ps mode decreased to 8/5"),
)
#: characters read before a pair for a ventilator mode
VENTILATOR_MODE_BEFORE = 25


def _ventilator_setting(text: str, span: Span) -> bool:
    before = text[max(0, span.start - VENTILATOR_MODE_BEFORE) : span.start]
    return (
        _PRESSURE_PAIR.fullmatch(text, span.start, span.end) is not None
        and _VENTILATOR_MODE.search(before) is not None
    )


NOT_A_NEWBORN_SCORE = _exclusion(
    "date.not-a-newborn-measure",
    "'n/n' after 'Apgar(s)' is a pair of Apgar scores; 'n/7' after a number of weeks is a gestational age",
    ("Apgars 8/9", "born at 33 2/7 weeks"),
)
#: "Apgar" and only score words and other pairs before a pair ("Apgar scores of 8/9 and 9/9"; not "Apgar 9/9,
#: f/u 12/15")
_APGAR = re.compile(
    r"(?i)\bapgars?\b(?:[ \t]*(?:scores?|of|were|was|at|and|[:,;]|\d{1,2}/\d{1,2}|\d+[ \t]*min(?:utes?)?))*"
    r"[ \t]*$"
)
_WEEKS_BEFORE = re.compile(r"(?<![\d/.])\d{2}[ \t]+$")


def _newborn_measure(text: str, span: Span) -> bool:
    before = text[max(0, span.start - 40) : span.start]
    piece = text[span.start : span.end]
    return (re.fullmatch(r"\d{1,2}/\d{1,2}", piece) is not None and _APGAR.search(before) is not None) or (
        re.fullmatch(r"[0-6]/7", piece) is not None and _WEEKS_BEFORE.search(before) is not None
    )


#: the exclusions tried on every date rule's span, in order
_EXCLUSIONS = (
    (NOT_A_PAIN_SCORE, _pain_score),
    (NOT_A_VENTILATOR_SETTING, _ventilator_setting),
    (NOT_A_NEWBORN_SCORE, _newborn_measure),
)


def find_dates(text: str) -> list[Span]:
    """Date spans of the registered date rules (label DATE_TIME, source ``policy``), merged."""
    found = []
    for rule in RULES.family("dates"):
        for span in rule.find(text, "policy"):
            excluded = next((exclusion for exclusion, applies in _EXCLUSIONS if applies(text, span)), None)
            if excluded is not None:
                decided(excluded.name, span, False)
                continue
            decided(rule.name, span, True)
            found.append(span)
    return merge_spans(found)
