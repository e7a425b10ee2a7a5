"""What the detection rules read from the shape of a word or a text, in one place: word-frequency
thresholds (wordfreq Zipf: log10 of the frequency per billion words, plus 9), word patterns and casing
helpers, each named for what it decides."""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable
from datetime import date, timedelta

from dateutil.easter import easter

# --- word-frequency thresholds -------------------------------------------------------------------------
#: a word at least this frequent is common English: no identifier evidence by itself
COMMON_WORD_ZIPF = 3.0
#: a known person name at least this frequent is a common word first ("Will", "Long"): no known name
NAME_IS_COMMON_WORD_ZIPF = 5.0
#: a rare word one edit from a word at least this frequent is a typo of it ("defecits")
TYPO_TARGET_ZIPF = 3.5
#: a word at least this frequent is a word in its own right ("harbor", "eastern"), never a typo
TYPO_MAX_ZIPF = 2.5
#: on an ALL-CAPS line a word of at most 4 letters is lower-cased only this frequent ("ON", "THE"); rarer
#: ones ("PT", "GH") stay upper case as abbreviations
SHORT_WORD_LOWERCASE_ZIPF = 4.5
#: where casing says nothing, a word before a facility word at least this frequent names no facility
FACILITY_NAME_MAX_ZIPF = 5.2
#: a name word after a weak context (a credential, "per", a kinship word in lower case) is rarer than this
CONTEXT_NAME_MAX_ZIPF = 3.5
#: a name word after a title ("Dr.", "Mrs") or capitalised after a kinship word is rarer than this
TITLE_NAME_MAX_ZIPF = 4.5
#: capitalised words before a credential, none a known name, are a signature when each is rarer than this
SIGNATURE_NAME_MAX_ZIPF = 3.0
#: a word rarer than this is no acronym or everyday word, so a name where a name may stand ("MARROWIND",
#: "Ostkamptes"; "MRSA", "PICC", "Neuro" are more frequent)
RARE_NAME_ZIPF = 2.0
#: a person's name part at least this frequent is not propagated at the start of a sentence ("Will")
PROPAGATED_NAME_COMMON_ZIPF = 5.0

# --- casing thresholds ---------------------------------------------------------------------------------
#: a line with at least this share of upper-case letters is ALL CAPS (and case-restored)...
ALL_CAPS_SHARE = 0.9
#: ...when it has at least this many letters
ALL_CAPS_MIN_LETTERS = 6
#: a text with a smaller share of upper-case letters is written without capitals: lower case says nothing
LOWERCASE_TEXT_SHARE = 0.05

# --- word patterns -------------------------------------------------------------------------------------
#: a word of letters of any script, with inner apostrophes and hyphens ("Møller", "O'Neil")
WORD_ANY_SCRIPT = re.compile(r"[^\W\d_](?:[^\W\d_]|['’-])*")
#: an ASCII word with apostrophes and hyphens, as a pattern fragment (the context rules' name word)
ASCII_WORD = r"[A-Za-z][A-Za-z'’-]*"
#: `ASCII_WORD` that never gives back a letter or hyphen once matched (a possessive quantifier: no
#: backtracking into words)
ASCII_WORD_NO_BACKTRACK = ASCII_WORD + "+"
#: an ASCII word with apostrophes (the case restorer's word)
ASCII_WORD_WITH_APOSTROPHES = re.compile(r"[A-Za-z][A-Za-z'’]*")
#: letters with at most one apostrophe inside ("don't"; corpus statistics' word)
ASCII_LETTERS = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
#: a trailing possessive or clitic: "BP's", "SBP'S", "sx'd" are "BP", "SBP", "sx"
CLITIC = re.compile(r"['’](?:s|d)$", re.IGNORECASE)
#: punctuation stripped from the edges of a word before a lexicon lookup
WORD_EDGE_PUNCTUATION = ".,:;'’\"()"
#: punctuation stripped from the edges of a learned name span's words
NAME_EDGE_PUNCTUATION = ".,;:!?\"'’()[]"

# --- casing helpers ------------------------------------------------------------------------------------
_TITLE_END = re.compile(r"(?i)\b(?:dr|drs|mr|mrs|ms|prof|st)\.$")
#: a lower-case letter after a full stop, "!" or "?" (or at the start), or a lone "i"; not after the full
#: stop of "et al.", "e.g.", "i.e.", "etc.", "vs." or "cf.", which a carefully cased text writes before
#: lower case ("Smith et al. found")
_CARELESS = re.compile(
    r"(?:^|(?<!\bet al)(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)\.\s+|[!?]\s+)[a-z]|\bi\b"
)


def caps_share(text: str) -> float:
    """Share of upper-case letters among the letters of ``text`` (0 without letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    return sum(ch.isupper() for ch in letters) / len(letters) if letters else 0.0


def is_all_caps(text: str) -> bool:
    """At least ALL_CAPS_MIN_LETTERS letters, at least ALL_CAPS_SHARE of them upper case."""
    letters = sum(ch.isalpha() for ch in text)
    return letters >= ALL_CAPS_MIN_LETTERS and caps_share(text) >= ALL_CAPS_SHARE


@functools.lru_cache(maxsize=8)  # asked once per word or rule match of a document: computed once per document
def uses_capitals(text: str) -> bool:
    """At least LOWERCASE_TEXT_SHARE of the letters of ``text`` are upper case (False without letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(ch.isupper() for ch in letters) / len(letters) >= LOWERCASE_TEXT_SHARE


@functools.lru_cache(maxsize=8)  # asked once per word of a document: computed once per document
def lowercase_style(text: str) -> bool:
    """Written without capitals (`uses_capitals` is False): lower case says nothing."""
    return any(ch.isalpha() for ch in text) and not uses_capitals(text)


@functools.lru_cache(maxsize=8)  # asked once per span of a document: computed once per document
def careless_casing(text: str) -> bool:
    """``text`` may write names in lower case: a sentence begun in lower case, the pronoun "i", or a
    lower-case word after an abbreviation's full stop (chats, tweets; "b.i.d. then"; not after "et al.",
    "e.g.", "i.e.", "etc.", "vs.", "cf.")."""
    return _CARELESS.search(text) is not None


def sentence_start(text: str, start: int, reach: int = 200) -> bool:
    """Does a sentence start at ``start``: only the ``reach`` characters before it are read (linear on long
    documents); blank ones all the way count as a break, a title's full stop ("Dr.") does not."""
    before = text[max(0, start - reach) : start].rstrip(" \t\"'(")
    if _TITLE_END.search(before[-6:]):  # "Dr. Turgeon": the full stop of a title ends no sentence
        return False
    return not before or before[-1] in ".!?:;\n-*"


#: a form's field label: up to five capitalised words (or "of", "and", "the", "&" between them) from a line
#: start or a column gap (2+ blanks, a tab) to a colon that ends the line or is followed by a blank; no digit
_FIELD_LABEL = re.compile(
    r"[A-Z][^\W\d_]*(?:[ \t]+(?:[A-Z][^\W\d_]*|of|and|the|&)){0,4}[ \t]*:(?=[ \t]|$)", re.MULTILINE
)
#: characters read before a word for the start of its field label
FIELD_LABEL_REACH = 60


def in_field_label(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` a word of a form's field label ("Birth" of "Date of Birth: 1 May"), where words
    are capitalised as a heading, whatever they are."""
    reach = max(0, start - FIELD_LABEL_REACH)
    breaks = [text.rfind(gap, reach, start) for gap in ("\n", "\t", "  ")]
    label_start = max(breaks) + 1 if max(breaks) >= 0 else (0 if reach == 0 else -1)
    if label_start < 0:
        return False
    while label_start < start and text[label_start] in " \t":
        label_start += 1
    label = _FIELD_LABEL.match(text, label_start)
    return label is not None and label.end() > end


_UNITS = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_TEENS = r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_BELOW_100 = rf"(?:{_TENS}(?:[ -]{_UNITS})?|{_TEENS}|{_UNITS})"
#: an age written in words ("sixty-seven", "ninety", "one hundred and two")
AGE_WORDS = rf"(?:(?:one|a)[ -]hundred(?:(?:[ -]and)?[ -]{_BELOW_100})?|{_BELOW_100})"
#: words that state an age over 89 ("a nonagenarian", "centenarians")
AGE_OVER_89_NOUNS = r"(?:nonagenarians?|(?:super)?centenarians?)"
#: an age decade of 90 or more, maybe narrowed ("90s", "late 90's", "mid-90s", "early nineties")
DECADE_OVER_89 = r"(?:(?:early|mid|late)[ -])?(?:(?:90|1[01]0)['’]?s|nineties)"
#: the decades of a life in words, teens first
DECADE_WORDS = (
    "teens",
    "twenties",
    "thirties",
    "forties",
    "fifties",
    "sixties",
    "seventies",
    "eighties",
    "nineties",
)
#: a decade of a life, in digits or in words ("40s", "20's", "100s", "sixties", "teens")
DECADE = rf"(?:(?:[1-9]|1[01])0['’]?s|{'|'.join(DECADE_WORDS)})"
#: an age's decade, maybe narrowed ("40s", "late 20's", "mid-sixties", "early teens")
DECADE_OF_AGE = rf"(?:(?:early|mid|late)[ -])?{DECADE}"
#: a decade or a word that states an age over 89 and has no single number to cap
AGE_OVER_89_STATED = re.compile(rf"(?i)\b(?:{DECADE_OVER_89}|{AGE_OVER_89_NOUNS})(?!\w)")
#: an age of 90 or more written in words, in running text
AGE_OVER_89_IN_WORDS = re.compile(
    rf"(?i)\b(?:ninety(?:[ -]{_UNITS})?|(?:one|a)[ -]hundred|nineties|{AGE_OVER_89_NOUNS})\b"
)
#: an age written in words, in running text
AGE_IN_WORDS = re.compile(rf"(?i)\b{AGE_WORDS}\b")


def acronym(name: str) -> str:
    """The initials of a name's capitalised words ("Massachusetts General Hospital": "MGH")."""
    return "".join(w[0] for w in name.split() if w[:1].isupper())


#: a kinship or proxy word ("daughter", "Mom", "HCP"): a relative's name or age may follow
KINSHIP_WORDS = (
    r"(?:wife|husband|sons?|daughters?|dtrs?|sisters?|brothers?|mother|father|mom|dad|niece|nephew|friend|grandson|"
    r"granddaughter|grandaughter|sibling|aunt|uncle|cousin|fianc[eé]e?|girlfriend|boyfriend|proxy|hcp|named|"
    r"neighbou?r|son-in-law|daughter-in-law|sil|dil|significant[ \t]+other)"
)

#: a clinician's title written as an abbreviation before a name ("NP Halvorsen", "md wyman")
CLINICIAN_TITLE_ABBREVIATIONS = r"(?:np|ho|md)"

#: words that name a kind of care facility
FACILITY_WORDS = (
    r"(?:hospital|hosp|medical center|med center|rehab|regional|heart center|campus|clinic|rehabilitation)"
)
#: a name ending in a facility word ("St. Jude Medical Center"): the word says what kind of place it is
FACILITY_END = re.compile(rf"[ \t]+({FACILITY_WORDS})\.?$", re.IGNORECASE)

#: words that name a kind of institution ("İzmir Assize Court", "Ege University Hospital"), case-folded: a
#: person span that holds one does not spread it as a name part ("the Court" is no person)
INSTITUTION_WORDS = frozenset(
    "academy agency assembly bank clinic college commission committee council court department government "  # noqa: SIM905
    "hospital institute ministry office parliament police prison school tribunal university".split()
)
#: a name's last words that say what kind of institution it is ("Tbilisi City Court", "Ankara State Security
#: Court", "Ege University", "Izmir Court of Appeal"): the words before it name the place or the founder
_INSTITUTION = "|".join(sorted(INSTITUTION_WORDS))
_MODIFIERS = (
    r"city|regional|district|county|provincial|municipal|supreme|high|constitutional|administrative|criminal|"
    r"civil|assize|appeals?|magistrates['’]?|state|security|labou?r|commercial|military|juvenile|family|"
    r"national|technical|public|prosecutor['’]s|fire"
)
#: the words before an institution's kind that may be part of its own name ("National" of "National Bank")
INSTITUTION_MODIFIERS = re.compile(rf"(?i)^(?:(?:{_MODIFIERS})[ \t]+)+")
INSTITUTION_END = re.compile(
    rf"(?i)(?:^|[ \t]+)((?:(?:{_MODIFIERS}|{_INSTITUTION})[ \t]+)*"
    rf"(?:{_INSTITUTION})(?:[ \t]+of[ \t]+(?:appeals?|cassation|justice))?)$"
)
#: an institution's kind before "of" and the place or founder it names ("University of Bucharest", "the
#: Bank of Ireland", "Regional Court of Ostrava")
INSTITUTION_OF = re.compile(
    rf"(?i)^((?:(?:{_MODIFIERS})[ \t]+)*(?:{_INSTITUTION}))[ \t]+of[ \t]+"
    r"(?!(?:appeals?|cassation|justice)\b)\S"
)

#: words of a form's fields that follow a name on its line ("SMITH, JOHN DOB 1/2/1950"), case-folded: never
#: part of a name
FIELD_CUES = frozenset(("dob", "mrn", "ssn", "yob", "age", "sex", "acct", "tel", "fax", "phone", "email"))


#: what joins the days of a range in one month ("3-5", "3 – 5", "3 to 5", "3rd through 5th")
DAY_RANGE_JOINT = r"(?:[ \t]*[-–][ \t]*|[ \t]+(?:to|through|thru|until|till)[ \t]+)"


def _weekday_of_month(month: int, weekday: int, nth: int) -> Callable[[int], date]:
    """The ``nth`` ``weekday`` (0 = Monday) of ``month`` in a year (``nth`` -1: the last)."""

    def day(year: int) -> date:
        days = [d for d in calendar.Calendar().itermonthdates(year, month) if d.month == month]
        return [d for d in days if d.weekday() == weekday][nth if nth < 0 else nth - 1]

    return day


_S = r"['’]?s"  # "New Year's", "Veterans Day"
#: holidays that name one day of a year (capitalised: "christmas tree", "easter egg" are other words), each
#: with its day in a year (US federal and common observances; Easter's by the Western calendar)
HOLIDAYS: dict[str, Callable[[int], date]] = {
    r"Christmas[ \t]+Eve": lambda y: date(y, 12, 24),
    r"(?:Christmas|Xmas)(?:[ \t]+Day)?": lambda y: date(y, 12, 25),
    r"Boxing[ \t]+Day": lambda y: date(y, 12, 26),
    rf"New[ \t]+Year{_S}[ \t]+Eve": lambda y: date(y, 12, 31),
    rf"New[ \t]+Year{_S}(?:[ \t]+Day)?": lambda y: date(y, 1, 1),
    r"Hallowe['’]?en": lambda y: date(y, 10, 31),
    r"Independence[ \t]+Day|(?:the[ \t]+)?Fourth[ \t]+of[ \t]+July": lambda y: date(y, 7, 4),
    rf"(?:St\.?|Saint)[ \t]+Patrick{_S}[ \t]+Day": lambda y: date(y, 3, 17),
    rf"Valentine{_S}[ \t]+Day": lambda y: date(y, 2, 14),
    rf"Veteran{_S}[ \t]+Day": lambda y: date(y, 11, 11),
    r"Good[ \t]+Friday": lambda y: easter(y) - timedelta(days=2),
    r"Easter[ \t]+Monday": lambda y: easter(y) + timedelta(days=1),
    r"Easter(?:[ \t]+Sunday)?": easter,
    r"Thanksgiving(?:[ \t]+Day)?": _weekday_of_month(11, 3, 4),
    r"Memorial[ \t]+Day": _weekday_of_month(5, 0, -1),
    r"Labou?r[ \t]+Day": _weekday_of_month(9, 0, 1),
    r"Martin[ \t]+Luther[ \t]+King(?:,?[ \t]+Jr\.?)?[ \t]+Day|MLK[ \t]+Day": _weekday_of_month(1, 0, 3),
    rf"President{_S}[ \t]+Day": _weekday_of_month(2, 0, 3),
    r"Columbus[ \t]+Day": _weekday_of_month(10, 0, 2),
    rf"Mother{_S}[ \t]+Day": _weekday_of_month(5, 6, 2),
    rf"Father{_S}[ \t]+Day": _weekday_of_month(6, 6, 3),
}
#: words after a holiday that make it part of another name ("Good Friday Agreement", "Easter eggs"; a
#: capitalised head: "New Year's Eve party" is the day)
_HOLIDAY_NAMES_HEAD = (
    r"Agreement|Accords?|Islands?|Parade|Party|Market|Fair|Tree|Carols?|Cards?|Special|Bowl|Offensive|"
    r"Uprising|Rising|Rebellion|Act|Bill|Sale|Eggs?|eggs?|Bunny|Story|Song|Movie|Show"
)
#: any of `HOLIDAYS`' names, capitalised or in capitals ("CHRISTMAS"; not "christmas"), not a name's part:
#: after a title ("Dr. Christmas", "Father Christmas") or before a name's head word ("Good Friday Agreement")
HOLIDAY = (
    r"(?<!\bDr\. )(?<!\bDr )(?<!\bMr\. )(?<!\bMr )(?<!\bMrs\. )(?<!\bMs\. )(?<!\bFather )"
    "(?=[A-Z])(?i:"
    + "|".join(f"(?:{name})" for name in HOLIDAYS)
    + rf")(?![ \t]+(?:{_HOLIDAY_NAMES_HEAD})\b)"
)


def holiday_date(name: str, year: int) -> date:
    """The day the holiday ``name`` (one of `HOLIDAYS`) falls on in ``year``."""
    return next(day for pattern, day in HOLIDAYS.items() if re.fullmatch(pattern, name, re.IGNORECASE))(year)


#: initials in brackets right after a name ("Teodora Vasileva (TV)"): the person's short name in a transcript
_SHORT_NAME_IN_BRACKETS = re.compile(r"[ \t]*\((?P<short>[A-Z]{2,4})\)")


def bracketed_initials(text: str, end: int, names: list[str]) -> str | None:
    """The initials of a name's words ``names`` written in brackets right after ``end`` ("Teodora Vasileva
    (TV)"), or None."""
    found = _SHORT_NAME_IN_BRACKETS.match(text, end)
    if found and len(names) >= 2 and found.group("short") == "".join(n[0] for n in names).upper():
        return found.group("short")
    return None


#: the digits said in words, by value
DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
#: counts of several in words, two to twenty: a family's size and its surrogates
COUNT_WORDS = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
#: each word of a digit said aloud and its value ("oh" and "nought" are zeros too)
DIGIT_VALUES = {**{word: value for value, word in enumerate(DIGIT_WORDS)}, "oh": 0, "nought": 0}
#: a digit said in words
DIGIT_WORD = rf"(?:{'|'.join(DIGIT_VALUES)})"
