"""Calendar dates inside a span, read and written back in the span's own format.

Recognised: numeric dates (3/14/2024, 14.03.2024, 2024-03-14, 03-14-24, month/day 3/14, ranges 10/15-10/16;
days of one month: March 3-5, 2024, 3 to 5 March, 10/15-16/2024, 15-16/10/2024, 2/6-9, the other day moved
with the date),
textual dates (March 14, 2024; Mar. 14th; 14 March 2024; 14th of March; March 2024; March of 2024;
14-JUL-1931, 25APR2002), holidays (Christmas 2021, Thanksgiving: written as their day, "December 25,
2021"), weekday names, a day of the month alone as a whole span ("the 14th", "6th to the 9th": a day of a
31-day month), and partial dates: month/year (8/84, 10/2003), a month name alone (not "may",
"march", "dec", "aug"), a year alone ('84, 84', 1977; a year that also reads as a 24-hour time, such as 2022
or 1930, only after a year's context: "in", "of", "since", "year", a word of birth or death, a bracket). A
day past its month's end (2/31/14) is read as the month's last day; a range whose sides are dates is read
side by side. Writing a new date keeps separators, zero-padding (a date with a
field such as "04" pads every field), two- vs four-digit years and their apostrophe (a month/year whose new
2-digit year would read as a day gets four digits), full vs abbreviated month names, ordinal suffixes and
case. Numeric day-month order: year first when the first field has four digits, day first when the first
field exceeds 12 or the date is dotted (14.03.2024, 12.05.1961), else month first (US).
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable
from datetime import date, timedelta

from ..detect.text_shape import DAY_RANGE_JOINT as _JOINT
from ..detect.text_shape import HOLIDAY, holiday_date
from .shape import fresh_digits

MONTHS = [m.lower() for m in calendar.month_name[1:]]
ABBREVIATIONS = [m.lower() for m in calendar.month_abbr[1:]]
WEEKDAYS = [d.lower() for d in calendar.day_name]
_MONTH = (
    r"(?P<month>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?P<dot>\.)?"
)
_DAY = r"(?P<day>\d{1,2})(?P<ord>st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4}|['’]\d{2})"
_LAST = r"(?P<last>\d{1,2})(?P<last_ord>st|nd|rd|th)?(?![/\d])"
PATTERNS = [
    re.compile(r"(?<!\d)(?P<year>\d{4})(?P<sep>[-/.])(?P<a>\d{1,2})(?P=sep)(?P<b>\d{1,2})(?!\d)"),
    re.compile(
        r"(?<![\d/.-])(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4}|\d{2})(?![\d/.-])"
    ),
    # a holiday ("Christmas 2021", "Thanksgiving"): written as its day ("December 25, 2021")
    re.compile(rf"(?<!\w)(?P<holiday>{HOLIDAY})(?:(?P<comma>,?(?:[ \t]+|[ \t]*\n[ \t]*)){_YEAR})?(?!\w)"),
    # a range of days in one month ("March 3-5, 2024", "3 to 5 March 2024", "10/15-16/2024",
    # "15-16/10/2024"): the other day moves with the date
    re.compile(
        rf"(?<!\w){_MONTH}[ \t]+{_DAY}{_JOINT}{_LAST}(?:(?P<comma>,?[ \t]+){_YEAR})?(?!\w)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?<![\w-]){_DAY}{_JOINT}{_LAST}[ \t]+(?:of[ \t]+)?{_MONTH}(?:(?P<comma>,?[ \t]+){_YEAR})?(?!\w)",
        re.IGNORECASE,
    ),
    _DAYS_OF_ONE_MONTH := re.compile(
        r"(?<![\d/.-])(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})[ \t]*[-–][ \t]*(?P<last>\d{1,2})/"
        r"(?P<year>\d{4}|\d{2})(?![\d/.-])"
    ),
    re.compile(
        r"(?<![\d/.-])(?P<first>\d{1,2})[ \t]*[-–][ \t]*(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})/"
        r"(?P<year>\d{4}|\d{2})(?![\d/.-])"
    ),
    re.compile(
        r"(?<![\d/.-])(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})[ \t]*[-–][ \t]*(?P<last>\d{1,2})(?![\d/.-])"
    ),
    re.compile(rf"(?<!\w){_MONTH}[ \t]+{_DAY}(?:(?P<comma>,?[ \t]+){_YEAR})?(?!\w)", re.IGNORECASE),
    re.compile(
        rf"(?<!\w){_DAY}(?P<of>[ \t]+of)?[ \t]+{_MONTH}(?:(?P<comma>,?[ \t]+){_YEAR})?(?!\w)", re.IGNORECASE
    ),
    re.compile(rf"(?<!\w){_MONTH}(?P<comma>,?[ \t]+(?:of[ \t]+)?){_YEAR}(?!\w)", re.IGNORECASE),
    # a form's day-MON-year with hyphens or run together ("14-JUL-1931", "03-Mar-24", "25APR2002")
    re.compile(rf"(?<![\w-]){_DAY}-{_MONTH}-(?P<year>\d{{4}}|\d{{2}})(?![\w-])", re.IGNORECASE),
    re.compile(rf"(?<![\w/.-]){_DAY}{_MONTH}(?P<year>\d{{4}}|\d{{2}})(?![\w-])", re.IGNORECASE),
    re.compile(r"(?<![\d/.])(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})(?![\d/.])"),
    # partial dates: month/year (a 2-digit year above 31), a month name alone, a year alone
    re.compile(r"(?<![\d/.-])(?P<m>0?[1-9]|1[0-2])(?P<sep>/)(?P<year>\d{4}|3[2-9]|[4-9]\d)(?![\d/.])"),
    # (not "may", "march", "dec", "aug" alone: words more often than months, as in `detect.policy`)
    re.compile(rf"(?<!\w)(?!(?:may|march|dec|aug)\.?(?!\w)){_MONTH}(?!\w)", re.IGNORECASE),
    re.compile(r"(?<![\w'’/.,:-])(?P<year>['’]\d{2}|\d{2}['’]|(?:18|19|20)\d{2})(?![\w'’/]|[.,:]\d)"),
]
YEAR_ALONE = PATTERNS[-1]
#: a day of the month alone as the whole span ("the 14th", "6th to the 9th"): a day of a 31-day month
DAY_ALONE = re.compile(
    rf"[ \t]*(?:the[ \t]+)?(?P<day>\d{{1,2}})(?P<ord>st|nd|rd|th)(?:{_JOINT}(?:the[ \t]+)?{_LAST})?[ \t]*",
    re.IGNORECASE,
)
#: what before a 4-digit number that also reads as a 24-hour time makes it a year: a word ("in 2022",
#: "since 1930", "born 1931", "DOB: 1925", "died 2019"), a bracket or a year and a dash ("(1931-2024)")
_YEAR_CONTEXT = re.compile(
    r"(?i)(?:\b(?:in|of|since|year|born|b\.|dob:?|yob:?|birth year:?|died|d\.)[ \t]+|\(|"
    r"(?:18|19|20)\d\d[ \t]*[-–][ \t]*)$"
)
#: characters before a year read for its context (the longest context word and its spacing fit)
CONTEXT_CHARS = 16
#: a range between two dates ("10/15-10/16", "1977-1980", "8/84 - 9/84")
_RANGE = re.compile(r"([ \t]*[-–][ \t]*)")
WEEKDAY = re.compile(
    r"(?<!\w)(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?!\w)", re.I
)
_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
_DEFAULT_YEAR = 2000  # leap year: Feb 29 without a year stays valid


def _month_index(name: str) -> int:
    return ABBREVIATIONS.index(name[:3].lower()) + 1


def _day_first(match: re.Match) -> bool:
    """Whether a numeric date is written day first: its first field exceeds 12, or it is dotted
    ("12.05.1961", the European way) and its second field can be a month."""
    if match.re is PATTERNS[0]:
        return False
    if match.groupdict().get("first"):  # "5-6/10/2024": the days come first
        return True
    a, b = int(match["a"]), int(match["b"])
    return a > 12 or (match["sep"] == "." and b <= 12)


def _numeric_order(match: re.Match) -> tuple[int, int] | None:
    a, b = int(match["a"]), int(match["b"])
    if "year" in match.groupdict() and match["year"] and len(match["year"]) == 4 and match.start("year") == 0:
        return a, b  # year first: Y-M-D
    if a > 12:
        return (b, a) if b <= 12 else None
    return a, b


def _parse(match: re.Match) -> tuple[date, dict] | None:
    """The date a match denotes and how it was written."""
    groups = {k: v for k, v in match.groupdict().items() if v is not None}
    year_text = groups.get("year")
    year = _DEFAULT_YEAR
    if year_text:
        digits = year_text.strip("'’")
        year = (
            int(digits)
            if len(digits) == 4
            else 2000 + int(digits)
            if int(digits) < 50
            else 1900 + int(digits)
        )
    if "m" in groups or match.re is YEAR_ALONE:  # a partial date: the middle of its month or year
        month, day = (int(groups["m"]), 15) if "m" in groups else (7, 1)
        return date(year, month, day), groups
    try:
        if "holiday" in groups:
            return holiday_date(groups["holiday"], year), groups
        if "month" in groups:
            month, day = _month_index(groups["month"]), int(groups.get("day", 15))
        elif match.re is DAY_ALONE:
            month, day = 1, int(groups["day"])
        else:
            order = _numeric_order(match)
            if order is None:
                return None
            month, day = order
            if match.re is PATTERNS[0]:
                month, day = int(groups["a"]), int(groups["b"])
            elif _day_first(match):
                month, day = int(groups["b"]), int(groups["a"])
        if 1 <= month <= 12 and 29 <= day <= 31:  # a day past the month's end: the month's last day
            day = min(day, calendar.monthrange(year, month)[1])
        return _with_range(date(year, month, day), groups), groups
    except ValueError:
        return None


def _with_range(day: date, groups: dict) -> date:
    """``day``, with the days from it to a range's last day (``groups["_after"]``; "March 28-2": into the
    next month) or from its first day (``groups["_before"]``) noted in ``groups``; a range's other day that
    its month does not have ("March 5-40", "30-1/3/2024") raises ValueError (no date is read)."""
    if "last" in groups:
        last = int(groups["last"])
        length = calendar.monthrange(day.year, day.month)[1]
        if not 1 <= last <= length:
            raise ValueError(f"no day {last}")
        groups["_after"] = last - day.day if last >= day.day else length - day.day + last
    if "first" in groups:
        first = int(groups["first"])
        previous = (day.replace(day=1) - timedelta(days=1)).day
        if not 1 <= first <= (day.day if first <= day.day else previous):
            raise ValueError(f"no day {first}")
        groups["_before"] = day.day - first if first <= day.day else previous - first + day.day
    return day


def _write(match: re.Match, groups: dict, new: date) -> str:
    text = match.group(0)
    pieces = {}
    padded = any(groups.get(name, "").startswith("0") for name in ("a", "b", "day"))  # "04/15": both padded
    if "year" in groups:
        old = groups["year"]
        short = f"{new.year % 100:02d}"
        if "m" in groups and len(old) == 2 and new.year % 100 <= 31:
            short = str(new.year)  # "8/12" would read as a month and day
        pieces["year"] = (
            old[0] + short
            if old[0] in "'’"
            else short + old[-1]
            if old[-1] in "'’"
            else str(new.year)
            if len(old) == 4
            else short
        )
    if "month" in groups:
        old = groups["month"]
        full = calendar.month_name[new.month]
        name = (
            full
            if len(old) > 3 and old.lower() in MONTHS
            else full
            if old.lower() == "may"
            else calendar.month_abbr[new.month]
        )
        if old.lower() == "sept":
            name = "Sept" if new.month == 9 else calendar.month_abbr[new.month]
        pieces["month"] = (
            name.upper() if old.isupper() and len(old) > 1 else name.lower() if old.islower() else name
        )
        if "day" in groups:
            pieces["day"] = _pad(new.day, padded)
            if "ord" in groups:
                pieces["ord"] = _ordinal(new.day, groups["ord"])
    elif match.re is DAY_ALONE:
        pieces["day"], pieces["ord"] = _pad(new.day, padded), _ordinal(new.day, groups["ord"])
    elif "holiday" in groups:
        day = f"{calendar.month_name[new.month]} {new.day}" + (
            "," if "year" in groups and "," not in groups["comma"] else ""
        )
        pieces["holiday"] = day.upper() if groups["holiday"].isupper() else day
    elif "m" in groups:
        pieces["m"] = _pad(new.month, groups["m"].startswith("0"))
    elif "a" in groups:
        numeric_month_first = not _day_first(match)
        first, second = (new.month, new.day) if numeric_month_first else (new.day, new.month)
        pieces["a"], pieces["b"] = _pad(first, padded), _pad(second, padded)
    if "_after" in groups:  # the range's length kept (its last day in the next month if it must)
        last = new + timedelta(days=groups["_after"])
        pieces["last"] = _pad(last.day, padded)
        if "last_ord" in groups:
            pieces["last_ord"] = _ordinal(last.day, groups["last_ord"])
    if "_before" in groups:  # the first day of "15-16/10/2024", as far before
        pieces["first"] = _pad((new - timedelta(days=groups["_before"])).day, padded)
    out, cursor = [], 0
    spans = sorted((match.span(name), value) for name, value in pieces.items())
    base = match.start()
    for (start, end), value in spans:
        out += [text[cursor : start - base], value]
        cursor = end - base
    out.append(text[cursor:])
    return "".join(out)


def _ordinal(day: int, written: str) -> str:
    """The ordinal suffix of ``day`` in the case of the one ``written``."""
    suffix = _ORDINAL.get(day, "th")
    return suffix.upper() if written.isupper() else suffix


def _pad(value: int, padded: bool) -> str:
    return f"{value:02d}" if padded else str(value)


def _clock_time(year: str) -> bool:
    """A 4-digit number that also reads as a 24-hour time of day (HHMM: 1930, 2022)."""
    return len(year) == 4 and int(year[:2]) <= 23 and int(year[2:]) <= 59


def rewrite_dates(text: str, new_date: Callable[[date, bool], date], before: str = "") -> str | None:
    """``text`` with every calendar date d replaced by ``new_date(d, has_year)`` in d's format, every weekday
    name by the weekday the callback gives its next occurrence; None when ``text`` holds neither.
    ``before``: the text preceding ``text`` in its document (decides a year that reads as a time). A range
    whose every side is a date ("10/15/2020-10/16/2020", "1977-1980") is rewritten side by side."""
    alone = DAY_ALONE.fullmatch(text)
    if alone:
        old, groups = _parse(alone) or (None, {})
        return _write(alone, groups, new_date(old, False)) if old else None
    pieces = _RANGE.split(text)
    days = _DAYS_OF_ONE_MONTH.fullmatch(text.strip())
    if days and int(days["a"]) <= 12 and int(days["last"]) > int(days["b"]):  # "10/5-6/2024": days of October
        pieces = [text]
    if len(pieces) > 1:
        sides, seen = [], before
        for i, piece in enumerate(pieces):
            if i % 2:
                sides.append(piece)
            else:
                sides.append(_rewrite(piece, new_date, seen))
                if sides[-1] is None:
                    break
            seen = (seen + piece)[-CONTEXT_CHARS:]
        else:
            return "".join(sides)
    return _rewrite(text, new_date, before)


def rewrite_date_span(text: str, start: int, end: int, new_date: Callable[[date, bool], date]) -> str | None:
    """`rewrite_dates` of the span ``text[start:end]`` of a document, read with the text before it."""
    return rewrite_dates(text[start:end], new_date, text[max(0, start - CONTEXT_CHARS) : start])


def _rewrite(text: str, new_date: Callable[[date, bool], date], before: str) -> str | None:
    taken: list[tuple[int, int, str]] = []
    free = bytearray(b"\x01") * len(text)  # characters no rewritten date covers yet

    def is_free(match: re.Match) -> bool:
        return all(free[match.start() : match.end()])

    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            if not is_free(match):
                continue
            if (
                pattern is YEAR_ALONE
                and _clock_time(match["year"])
                and not _YEAR_CONTEXT.search(
                    (before + text[max(0, match.start() - CONTEXT_CHARS) : match.start()])[-CONTEXT_CHARS:]
                )
            ):
                continue
            parsed = _parse(match)
            if parsed is None:
                continue
            old, groups = parsed
            taken.append((match.start(), match.end(), _write(match, groups, new_date(old, "year" in groups))))
            free[match.start() : match.end()] = bytes(match.end() - match.start())
    for match in WEEKDAY.finditer(text):
        if not is_free(match):
            continue
        old = date(_DEFAULT_YEAR, 1, 3) + timedelta(days=WEEKDAYS.index(match["weekday"].lower()))
        name = calendar.day_name[new_date(old, False).weekday()]
        word = match["weekday"]
        name = name.upper() if word.isupper() else name.lower() if word.islower() else name
        taken.append((match.start(), match.end(), name))
    if not taken:
        return None
    out, cursor = [], 0
    for start, end, value in sorted(taken):
        out += [text[cursor:start], value]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


#: languages whose month names mark a date the writer cannot read ("12 janvier 1956", "1 мая 2021")
MONTH_LANGUAGES = (
    "fr", "de", "es", "it", "pt", "nl", "pl", "ru", "tr", "sv", "da", "nb", "fi", "cs", "ro", "hu", "el",
    "uk", "ar", "he", "zh", "ja", "ko", "id", "vi", "hr", "sr", "bg", "sk", "sl", "lt", "lv", "et",
)  # fmt: skip
#: a compact date ("20240314")
_COMPACT_DATE = re.compile(r"(?<!\d)\d{8}(?!\d)")
_WORD = re.compile(r"[^\W\d_]+")


@functools.cache
def foreign_month_names() -> frozenset[str]:
    """Month names of `MONTH_LANGUAGES` (CLDR, via babel; wide and abbreviated, lower case, without digits,
    dots and spaces: "3月" as "月"), but short English words ("ago", "set", "out"; "mars", "mart" stay)."""
    from babel import Locale
    from wordfreq import zipf_frequency

    names = set()
    for language in MONTH_LANGUAGES:
        months = Locale.parse(language).months
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                names.update(re.sub(r"[\d.\s׳']", "", m).lower() for m in months[context][width].values())
    return frozenset(n for n in names if len(n) > 3 or (n and zipf_frequency(n, "en") < ENGLISH_WORD_ZIPF))


#: a month name of three letters or fewer at least this frequent in English is an English word ("ago")
ENGLISH_WORD_ZIPF = 4.0
#: the earliest year an unread date's year is redrawn as (the latest: this year)
UNREAD_DATE_EARLIEST = 1940


def unread_date_redrawn(original: str, rng) -> str | None:
    """A date the writer cannot read ("12 janvier 1956", "3. März", "2024年3月14日", "20240314") with its
    numbers redrawn (a year another year, a day or month a day 1-28, others other digits), so that none is
    kept; None without eight digits or another language's month name beside a number (`foreign_month_names`:
    a time, a length of time, "Spring 2019" are the caller's)."""
    foreign = any(w.lower() in foreign_month_names() for w in _WORD.findall(original))
    if not (_COMPACT_DATE.search(original) or (foreign and any(ch.isdigit() for ch in original))):
        return None

    def number(match: re.Match) -> str:
        digits = match.group()
        if len(digits) == 4 and digits[:2] in ("18", "19", "20"):
            years = range(UNREAD_DATE_EARLIEST, date.today().year + 1)
            return str(rng.choice([y for y in years if y != int(digits)]))
        if len(digits) <= 2:
            return str(rng.choice([d for d in range(1, 29) if d != int(digits)])).zfill(len(digits))
        return fresh_digits(digits, rng)

    return re.sub(r"\d+", number, original)
