"""Full entity: the whole span replaced by a realistic same-type surrogate from Faker.

The original's format is kept where it can be read off: identifiers keep their shape but lose every original
letter and digit (units such as "5mg" stay in numbers), phone numbers stay valid for their country code
(phonenumbers), addresses keep their street, city, state and ZIP pieces, IPv4 vs IPv6; a nationality,
religion, occupation or amount becomes another of its kind (`deid_hf.replace.quasi`). Dates move by the
table's one offset in their own format (`deid_hf.replace.date_shift`; ``dates="random"``: drawn one by one);
a time or a length of time that a policy masks gets other numbers ("118 days" -> "217 days", "9:40" ->
"17:05"); under hipaa no such span is masked.
A place's institution keeps its kind ("Tbilisi City Court" -> "Reno City Court"), as a care facility does.
Through a pipeline the mapping is consistent within a substitution table: one pseudonym per person
(`deid_hf.replace.names`: "Dr. Kenji Tanaka", "Tanaka", "TANAKA's" share one surname), organisations and
places case-insensitively and by their acronym; in a group's table every surrogate is drawn from HMAC(group
seed, original), so a group's documents agree. Both make the surrogate depend on the original, so this
strategy carries no DP guarantee (Adelani et al. 2020, "Full entity replacement").
"""

from __future__ import annotations

import functools
import random
import re
import string
from datetime import date, timedelta

from ..detect.lexicon import is_name_word, zipf
from ..detect.mentions import TITLE, split_mention
from ..detect.text_shape import (
    AGE_IN_WORDS,
    AGE_OVER_89_STATED,
    DECADE,
    DECADE_WORDS,
    FACILITY_END,
    INSTITUTION_END,
    INSTITUTION_MODIFIERS,
    INSTITUTION_OF,
    INSTITUTION_WORDS,
    SHORT_WORD_LOWERCASE_ZIPF,
    acronym,
    bracketed_initials,
)
from ..errors import InputError
from .base import Strategy
from .date_shift import check_max_days, shift_date_span
from .dates import MONTHS, rewrite_date_span, rewrite_dates, unread_date_redrawn
from .names import drawn_once, keyed_rng, locale_lists, pseudonym, register
from .per_label import stated_age
from .quasi import QUASI_SURROGATES
from .shape import fresh_digits, random_like, random_phone_like

_NAMED = ("ORG", "LOCATION")
#: labels whose Faker surrogates are made from person names
_COMPOSED = ("ORG", "LOCATION", "ADDRESS", "EMAIL", "URL", "OTHER")
_NAME_WORD = re.compile(r"[^\W\d_]{3,}")
_DIGIT = re.compile(r"\d")
_NUMBER_RUN = re.compile(r"\d+")
_UNITS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "  # noqa: SIM905
    "seventeen eighteen nineteen".split()
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()  # noqa: SIM905
_MULTIPLIERS = {"dozen": 12, "hundred": 100, "thousand": 1000}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, *_MULTIPLIERS], key=len, reverse=True))
#: a number in words ("eleven", "twenty-one", "a hundred and twenty", "two dozen")
_NUMBER_IN_WORDS = re.compile(
    rf"(?i)\b(?:(?:a|an)[ -])?(?:{_NUMBER_WORD})(?:(?:[ -]|[ -]and[ -])(?:{_NUMBER_WORD}))*\b"
)
#: a time of day ("9:40", "21:15", "9:40pm"; "10.30" only before "am" or "pm", see `_fresh_numbers`)
_TIME_OF_DAY = re.compile(r"(?<!\d)(?P<hour>[01]?\d|2[0-3])(?P<sep>[:.h])[0-5]\d(?![\d:])")
#: what a time or a length of time is written with: numbers (a clock, an ordinal, "4pm"), units of time
#: and the small words around them ("the 12th", "4pm on", "about 3 hours", "24"); not "SpO2", which a
#: model may read as a date and a policy keep
_TIME_WORDS = re.compile(
    r"(?i)(?:\d+(?:st|nd|rd|th|s|am|pm|h|hrs?)?\b|[\s:.,\-–'’]|\b(?:[ap]\.?m\.?|the|on|at|for|about|around|of|"
    r"to|and|until|from|by|some|over|under|nearly|almost|a|an|half|secs?|seconds?|mins?|minutes?|hrs?|"
    r"hours?|days?|nights?|weeks?|wks?|months?|mos?|years?|yrs?|old|working|calendar|ago|later|earlier|"
    r"past|last|next|previous|within|since|after|before|in|his|her|their|early|mid|late)\b)+"
)
#: six digits or more that the date writer could not read: an identifier (a National Insurance number)
_IDENTIFIER_DIGITS = re.compile(r"(?:\d[ \t-]?){6,}")
_SHORT_CAPITALS = re.compile(r"\b[A-Z]{1,3}\b")
#: a year, a decade or a four-digit clock, a month, a slash: a time span that `_fresh_numbers` keeps
_KEPT_AS_WRITTEN = re.compile(
    rf"\d{{4}}|/|(?i:\b(?:{'|'.join(m[:3] for m in MONTHS)})[a-z]*\b|spring|summer|autumn|fall|winter)"
)
_AM_PM = re.compile(r"[ \t]*(?i:[ap]\.?m\b)")
#: what joins the two numbers of a range ("3-4 hours", "2 to 3 days")
_RANGE = re.compile(r"(?i:st|nd|rd|th)?[ \t]*(?:[-–]|to)[ \t]*")
_ORDINAL = re.compile(r"(?i)(?:st|nd|rd|th)\b")
#: a unit of time in the singular after a number and a blank ("1 day"; not "24-hour", an adjective)
_SINGULAR_UNIT = re.compile(r"[ \t]+(?:second|minute|hour|day|night|week|month|year)(?!\w)")
#: a name's leading article ("The Izmir Court of Appeal"), kept before a facility's or institution's surrogate
_THE = re.compile(r"(?i)the[ \t]+")
REDRAWS = 20
DATE_MODES = ("shift", "random")
_DOTTED_DATE = re.compile(r"(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:\d{4}|\d{2})")


def _random_date(old: date, has_year: bool, rng: random.Random) -> date:
    return (date(1960, 1, 1) if has_year else date(old.year, 1, 1)) + timedelta(
        days=rng.randrange(365 * 60 if has_year else 365)
    )


#: "GH", "BIDMC": a place or an organisation written as its initials, re-filled as initials (`is_initialism`)
_INITIALISM = re.compile(r"[A-Z]{2,5}")
#: capitals this long or longer can spell a name ("OHIO"); shorter ones are initials whatever they spell
_SPELLED_LENGTH = 4
_INITIALISM_END = re.compile(r"(?:MC|H)$")  # "...H" hospital, "...MC" medical center: a kind, not a name


def is_initialism(original: str) -> bool:
    """Whether a place or organisation is written as its initials ("GH", "BIDMC", "UCLA"), not as a name in
    capitals ("PARIS", "OHIO" in an ALL-CAPS note): four letters or more that are a person's name, a country
    or US state, or a word as frequent as those `restore_case` writes in lower case are a name."""
    if not _INITIALISM.fullmatch(original):
        return False
    return len(original) < _SPELLED_LENGTH or not (
        is_name_word(original)
        or zipf(original) >= SHORT_WORD_LOWERCASE_ZIPF
        or original.casefold() in _places()
    )


def _random_initialism(original: str, rng: random.Random) -> str:
    """Random capitals of the original's length, keeping a facility ending ("GBMC" -> "KTMC", "GH" -> "RH");
    never the original."""
    end = _INITIALISM_END.search(original[1:])
    kept = end.group(0) if end else ""
    while True:
        drawn = "".join(rng.choice("ABCDEFGHIJKLMNOPRSTVW") for _ in range(len(original) - len(kept)))
        if drawn + kept != original:
            return drawn + kept


#: stages of life an age in years is redrawn within ("aged 7" stays a child's age, "aged 34" an adult's);
#: the last holds every age over 89 too, so that no surrogate tells one
AGE_BANDS = ((1, 17), (18, 64), (65, 110))
#: an age's decade under 90 ("in her forties", "in his early 30s"; 90 or more is `AGE_OVER_89_STATED`)
_DECADE = re.compile(rf"(?i)(?<!\w){DECADE}(?!\w)")
#: decades redrawn within one another's stage of life: adults', then older people's
DECADE_BANDS = ((20, 30, 40, 50), (60, 70, 80))
#: an age in days, weeks or months ("a 3-day-old", "6 months old"): redrawn from 1 to 11
_AGE_IN_SMALL_UNITS = re.compile(r"(?i)\b(?:days?|weeks?|wks?|months?|mos?)\b")


def _age(original: str, rng: random.Random) -> str:
    """The age's number, in digits or in words, redrawn in digits within its stage of life (`AGE_BANDS`:
    "aged 7" -> "aged 12", not 74; "aged sixty-seven" -> "aged 81"; "94" -> one from 65 to 110); so is a
    decade or a word that states an age ("in his late 90s" -> "in his 40s", "a nonagenarian" -> "a
    41-year-old")."""
    drawn_age = rng.randint(18, 89)
    stated = AGE_OVER_89_STATED.search(original)
    if stated:
        written = stated_age(stated.group(), str(drawn_age), f"{max(20, drawn_age // 10 * 10)}s")
        return original[: stated.start()] + written + original[stated.end() :]
    decade = _DECADE.search(original)
    if decade:
        return original[: decade.start()] + _another_decade(decade.group(), rng) + original[decade.end() :]
    if not _DIGIT.search(original):
        original = _in_digits(original)  # "at the age of nine" -> "at the age of 9" -> redrawn from 1 to 17
    number = re.search(r"\d+", original)
    if number:
        age = int(number.group())
        low, high = next(
            ((lo, hi) for lo, hi in AGE_BANDS if lo <= age <= hi), AGE_BANDS[0 if age < 1 else -1]
        )
        if _AGE_IN_SMALL_UNITS.search(original) and not re.search(r"(?i)\b(?:years?|yrs?|y/?o)\b", original):
            low, high = 1, 11
        drawn = rng.choice([a for a in range(low, high + 1) if a != age])
        return original[: number.start()] + str(drawn) + original[number.end() :]
    return AGE_IN_WORDS.sub(str(drawn_age), original, count=1)


def _another_decade(written: str, rng: random.Random) -> str:
    """Another decade of the same stage of life (`DECADE_BANDS`), in digits ("forties" -> "30s", "70s" ->
    "60s"); "teens" stay teens."""
    word = written.casefold()
    value = (
        10 * DECADE_WORDS.index(word) + 10 if word in DECADE_WORDS else int(re.match(r"\d+", word).group())
    )
    band = next((b for b in DECADE_BANDS if value in b), None)
    if band is None:
        return written
    return f"{rng.choice([d for d in band if d != value])}s"


class FullEntity(Strategy):
    """``dates``: "shift" (default: one offset per table, intervals kept, `deid_hf.replace.date_shift`) or
    "random" (each date drawn on its own, 1960-2019); ``max_days``: the largest shift."""

    name = "full_entity"

    def __init__(
        self, consistent: bool = True, locale: str = "en_US", dates: str = "shift", max_days: int = 365
    ):
        from faker import Faker

        if dates not in DATE_MODES:
            raise InputError(f"full_entity dates must be one of {', '.join(DATE_MODES)}, got {dates!r}")
        self.consistent, self.dates, self.max_days = consistent, dates, check_max_days(max_days)
        self.fake = Faker(locale)
        try:
            locale_lists(locale)
            self.name_locale = locale
        except ModuleNotFoundError:  # a locale without its own name lists
            self.name_locale = "en_US"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        fake = self.fake
        fake.seed_instance(rng.getrandbits(64))
        if label == "PERSON":  # a fresh pseudonym sharing no word with the original
            return pseudonym(original, {}, rng, self.name_locale)
        if label in _NAMED and (state := _another_state(original, rng)):  # "OH" -> "NM", "Ohio" -> "Utah"
            return state
        if label in _NAMED and is_initialism(original):  # "transferred to GH"
            return _random_initialism(original, rng)
        if label in _NAMED and (of_its_kind := _of_its_kind(original, fake)):
            return of_its_kind
        drawn = {
            "ORG": lambda: company(fake),
            "LOCATION": fake.city,
            "EMAIL": fake.email,
            "URL": fake.url,
        }.get(label)
        if drawn is not None:
            return drawn()
        if label == "ADDRESS":
            return address_like(original, fake, rng)
        if label == "IP":
            return fake.ipv6() if ":" in original else fake.ipv4()
        if label == "AGE":
            return _age(original, rng)
        if label == "DATE_TIME":
            rewritten = rewrite_dates(original, lambda old, has_year: _random_date(old, has_year, rng))
            if rewritten is not None:
                return rewritten
        if label == "PHONE":
            return random_phone_like(original, rng)
        if label in QUASI_SURROGATES:
            return QUASI_SURROGATES[label](original, rng)
        if any(ch.isdigit() for ch in original):
            return random_like(original, rng, keep_units=label == "NUMBER")
        return _untyped(original, fake)

    def prepare(self, text: str, spans: list, table) -> None:
        name_words = table.state.setdefault("name_words", set())
        short_names = table.state.setdefault("short_names", {})
        for span in spans:
            if span.label == "PERSON":
                mention = text[span.start : span.end]
                register(table.state, mention, title_before(text, span.start))
                name_words.update(w.casefold() for w in _NAME_WORD.findall(mention))
                names = [mention[s:e] for s, e, kind in split_mention(mention) if kind == "name"]
                short = bracketed_initials(text, span.end, names)
                if short:  # "Teodora Vasileva (TV)": "TV" becomes the initials of the name's surrogate
                    short_names[short] = names

    def _draw(self, original: str, label: str, rng: random.Random, table) -> str:
        """A surrogate holding none of the document's person-name words nor its person surrogates: Faker
        builds places, companies, streets and e-mails from names ("Gonzalezhaven" in a note about Maria
        Gonzalez; "Hill-Rocha" beside a "Ms Hill" who stands for another person); redrawn up to `REDRAWS`
        times. Its words are kept (``surrogate_words``) so that no later person surrogate takes one."""
        if label not in _COMPOSED:
            return self.surrogate(original, label, rng)
        people = {name.casefold() for name in table.state.get("parts", {}).values()}
        avoid = set(table.state.get("name_words", ())) | people
        for _ in range(REDRAWS):
            surrogate = self.surrogate(original, label, rng)
            if not any(word in surrogate.casefold() for word in avoid):
                break
        table.state.setdefault("surrogate_words", set()).update(
            w.casefold() for w in _NAME_WORD.findall(surrogate)
        )
        return surrogate

    def _date(self, text: str, start: int, end: int, rng: random.Random, table) -> str | None:
        """A date span shifted by the table's offset, or (``dates="random"``) redrawn; None without a
        calendar date (a relative expression, a time of day), which is kept."""
        if self.dates == "shift":
            return shift_date_span(text, start, end, rng, table, self.max_days)
        original = text[start:end]
        cached = table.entries.get(("DATE_TIME", original)) if self.consistent else None
        if cached is not None:  # the same text may read as a year in one place, a time in another
            return cached if rewrite_date_span(text, start, end, lambda old, has_year: old) else None
        surrogate = rewrite_date_span(
            text, start, end, lambda old, has_year: _random_date(old, has_year, rng)
        )
        if surrogate is not None and self.consistent:
            table.entries[("DATE_TIME", original)] = surrogate
        return surrogate

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        original = text[start:end]
        if label == "DATE_TIME" or (label in ("PHONE", "ID", "NUMBER") and _DOTTED_DATE.fullmatch(original)):
            # a dotted date ("12.05.1961") read as a phone or an ID is still a date
            dated = self._date(text, start, end, rng, table)
            if dated is None and label == "DATE_TIME" and not _DIGIT.search(original):
                original = _in_digits(
                    original
                )  # "for eleven days" (a policy masks) -> "for 11 days" -> redrawn
            if dated is None and label == "DATE_TIME" and _DIGIT.search(original):
                # a time or a length of time that a policy masks: "118 days" -> "870 days", once per table
                identifier = _IDENTIFIER_DIGITS.search(original) and not _KEPT_AS_WRITTEN.search(
                    original.replace("/", "")
                )
                fresh = _fresh_identifier if identifier else _fresh_numbers  # "JG 10 37 59 A" read as a date

                def redraw(original: str, rng: random.Random) -> str | None:  # "12 janvier 1956": redrawn
                    return fresh(original, rng) or unread_date_redrawn(original, rng)

                if table is None or not self.consistent:
                    return redraw(original, rng)
                key = ("DATE_TIME numbers", original)  # not the date writer's key (``dates="random"``)
                return drawn_once(table, key, lambda r: redraw(original, r), rng)
            if dated is not None or label == "DATE_TIME":
                return dated
        if not self.consistent:
            return self._draw(original, label, rng, table)
        state = table.state
        if TITLE.fullmatch(original.strip()) and label != "OCCUPATION":
            return (
                None  # a title alone is not an identifier; it is kept, as in "Dr. <pseudonym>" (a degree is)
            )
        known = state.get("parts", {})
        is_name_part = original[:1].isupper() and all(
            w.casefold() in known for w in re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", original)
        )
        names = state.get("short_names", {}).get(original.strip()) if label == "PERSON" else None
        if names and all(n.casefold() in known for n in names):
            return "".join(known[n.casefold()][0] for n in names).upper()
        if label == "PERSON" or (label == "OTHER" and is_name_part and known):
            return pseudonym(original, state, rng, self.name_locale, title_before(text, start))
        if label in _NAMED or label == "OTHER":
            return self._named(original, label, rng, table)
        return drawn_once(table, (label, original), lambda r: self._draw(original, label, r, table), rng)

    def _named(self, original: str, label: str, rng: random.Random, table) -> str | None:
        """Organisations, places, untyped words: one surrogate per case-folded original (a possessive kept
        outside); a short form (the words of a replaced name, "Marcil" after "Pinabel Marcil") gets that
        name's surrogate; the acronym of a replaced multi-word name becomes the acronym of its surrogate."""
        folded = table.state.setdefault("folded", {})
        acronyms = table.state.setdefault("acronyms", {})
        possessive = re.search(r"['’]s$", original)
        core = original[: possessive.start()] if possessive else original
        suffix = possessive.group(0) if possessive else ""
        article = (
            _THE.match(core) if len(core.split()) >= 2 else None
        )  # "The Johns Hopkins Hospital", "the ..."
        lead = article.group() if article else ""
        core = core[len(lead) :]
        # one key for an organisation and a place: a name read as either keeps one surrogate in a document;
        # in the other documents of its group a facility, an initialism or a state does (their keyed draw
        # does not depend on the label), another name only where it is read alike
        kind = "/".join(_NAMED) if label in _NAMED else label
        key = (kind, core.casefold())
        if key not in folded and core.isupper() and core in acronyms:
            return lead + acronyms[core] + suffix
        if key not in folded and len(core) >= 3:
            words = core.casefold().split()
            for (known_kind, known), surrogate in folded.items():
                known_words = known.split()
                if (
                    known_kind == kind
                    and len(words) < len(known_words)
                    and any(
                        known_words[i : i + len(words)] == words
                        for i in range(len(known_words) - len(words) + 1)
                    )
                ):
                    return lead + _case_like(core, surrogate) + suffix
        if key not in folded:
            own = keyed_rng(table.state, kind, core.casefold()) or rng
            surrogate = self._draw(core, label, own, table)
            folded[key] = surrogate
            if len(core.split()) >= 2 and len(acronym(core)) >= 2:
                acronyms.setdefault(acronym(core), acronym(surrogate) or surrogate.upper())
        return lead + _case_like(core, folded[key]) + suffix


def _of_its_kind(original: str, fake) -> str | None:
    """A care facility or an institution of another name ("St. Jude Medical Center" -> "Lopez Medical
    Center", "Tbilisi City Court" -> "Reno City Court", "National Bank" -> "Reno Bank", "University of
    Bucharest" -> "University of Reno"), its "The" kept;
    one word of a kind alone ("The Court") as it is, since it names no one; None for other names."""
    the = _THE.match(original)
    lead = the.group() if the else ""
    facility = FACILITY_END.search(original)
    if facility:
        return f"{lead}{fake.last_name()} {facility.group(1)}"
    core = original[len(lead) :]
    if _KIND_ALONE.fullmatch(core.strip()):  # "The Court", "the Court of Appeal"
        return original
    of = INSTITUTION_OF.match(core)
    if of:  # "University of Bucharest" -> "University of Reno"
        return f"{lead}{of.group(1)} of {fake.city()}"
    institution = INSTITUTION_END.search(core)
    if institution and institution.start() == 0:  # "National Bank", "University College": the kind's words
        kind = INSTITUTION_MODIFIERS.sub("", core).strip()
        return f"{lead}{fake.city()} {kind}"
    return f"{lead}{fake.city()} {institution.group(1)}" if institution else None


#: one word of an institution's kind alone, maybe with its court's "of Appeal" ("Court", "Court of Appeal")
_KIND_ALONE = re.compile(
    rf"(?i)(?:{'|'.join(sorted(INSTITUTION_WORDS))})(?:[ \t]+of[ \t]+(?:appeals?|cassation|justice))?"
)


_LAST_WORD = re.compile(r"(\S+)[ \t]+$")


def _fresh_identifier(original: str, rng: random.Random) -> str:
    """Another digit at every digit's place and another capital for each run of up to three capitals (the
    letters of "JG 10 37 59 A"); words stay ("10 11 12 hour shifts")."""
    return _SHORT_CAPITALS.sub(
        lambda m: "".join(rng.choice(string.ascii_uppercase.replace(c, "")) for c in m.group()),
        fresh_digits(original, rng),
    )


def _in_digits(original: str) -> str:
    """``original`` with its numbers in words written in digits ("eleven days" -> "11 days", "a hundred
    and twenty days" -> "120 days", "two thousand days" -> "2,000 days")."""

    def digits(m: re.Match) -> str:
        total, current = 0, 0
        for word in re.findall(r"[a-z]+", m.group().lower()):
            if word in _UNITS:
                current += _UNITS.index(word) + 1
            elif word in _TENS:
                current += 10 * (_TENS.index(word) + 2)
            elif word in _MULTIPLIERS:
                current = max(current, 1) * _MULTIPLIERS[word]
                if word == "thousand":
                    total, current = total + current, 0
        return f"{total + current:,}"  # "2,000 days": not four digits kept as a year or a clock

    return _NUMBER_IN_WORDS.sub(digits, original)


def _fresh_numbers(original: str, rng: random.Random) -> str | None:
    """The numbers of a time or a length of time that is no calendar date, redrawn: a time of day another
    valid one ("9:40" -> "17:05", "4pm" -> "7pm"), the other numbers by `_fresh_counts`; None (kept as it
    is) where it holds a year or a four-digit clock ("2019", "the 1990s", "0900"), a month or a slash, which
    the date writer reads or a policy keeps on purpose, or other words (`_TIME_WORDS`: "SpO2")."""
    if _KEPT_AS_WRITTEN.search(original) or not _TIME_WORDS.fullmatch(original):
        return None
    out, cursor = [], 0
    for time in _TIME_OF_DAY.finditer(original):
        if time.group("sep") == "." and not _AM_PM.match(original, time.end()):
            continue  # "1.25 hours" is a decimal
        twelve = bool(_AM_PM.match(original, time.end()))
        hours = [h for h in (range(1, 13) if twelve else range(24)) if h != int(time.group("hour"))]
        hour = str(rng.choice(hours)).zfill(len(time.group("hour")))
        out += [_fresh_counts(original[cursor : time.start()], rng), hour, time.group("sep")]
        out.append(f"{rng.randrange(60):02d}")
        cursor = time.end()
    return "".join(out) + _fresh_counts(original[cursor:], rng)


def _fresh_counts(original: str, rng: random.Random) -> str:
    """Each number of a length of time redrawn with as many digits, at least 2 and never the original ("3
    hours" -> "7 hours"); a range keeps its order ("3-4 hours" -> "5-8 hours"), an ordinal its suffix ("the
    2nd day" -> "the 7th day"; a day of the month stays one), a unit after a one its plural ("1 day" -> "6
    days")."""
    numbers = list(_NUMBER_RUN.finditer(original))
    if not numbers:
        return original
    written = [m.group() for m in numbers]
    bounds = [_count_bounds(original, m) for m in numbers]
    is_range = len(numbers) == 2 and _RANGE.fullmatch(original, numbers[0].end(), numbers[1].start())
    while True:  # at least 8 values for each number: ends within a few draws
        drawn = [rng.randint(low, high) for low, high in bounds]
        if is_range:
            drawn.sort()
        shown = [
            f"{v}0" if (low, high) == (2, 9) and len(n) == 2 else str(v).zfill(len(n)) if low == 0 else str(v)
            for v, n, (low, high) in zip(drawn, written, bounds)
        ]
        if all(v != n for v, n in zip(shown, written)) and not (is_range and drawn[0] == drawn[1]):
            break
    out, cursor = [], 0
    for match, value, text in zip(numbers, drawn, shown):
        out += [original[cursor : match.start()], text]
        cursor = match.end()
        ordinal = _ORDINAL.match(original, cursor)
        if ordinal:
            suffix = _ordinal_suffix(value)
            out.append(suffix.upper() if ordinal.group().isupper() else suffix)
            cursor = ordinal.end()
        elif match.group() == "1" and (unit := _SINGULAR_UNIT.match(original, cursor)):
            out.append(unit.group() + "s")
            cursor = unit.end()
    return "".join(out) + original[cursor:]


def _count_bounds(original: str, number: re.Match) -> tuple[int, int]:
    """The values a number of a time may be redrawn from: a day of the month (an ordinal of at most 31,
    "the 12th") 1 to 28; a decade ("70s") its tens 2 to 9; a clock's minutes or seconds 0 to 59, its hours
    0 to 23; another number as many digits, at least 2."""
    written, before, after = number.group(), original[number.start() - 1 : number.start()], number.end()
    if int(written) <= 31 and _ORDINAL.match(original, after):
        return 1, 28
    if len(written) == 2 and written.endswith("0") and original[after : after + 1] == "s":
        return 2, 9
    if len(written) == 2 and before == ":":
        return 0, 59
    if original[after : after + 1] == ":":
        return 0, 23
    return max(2, 10 ** (len(written) - 1)), 10 ** len(written) - 1


def _ordinal_suffix(value: int) -> str:
    return "th" if 11 <= value % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")


def title_before(text: str, start: int) -> str | None:
    """The title just before ``text[start:]`` ("Mr." in "Mr. Kenji Tanaka" when the span starts at Kenji)."""
    word = _LAST_WORD.search(text[max(0, start - 12) : start])
    return word.group(1) if word and TITLE.fullmatch(word.group(1)) else None


def _case_like(original: str, surrogate: str) -> str:
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    return surrogate


HONORIFIC = re.compile(r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?", re.IGNORECASE)


def _untyped(original: str, fake) -> str:
    """OTHER spans (mostly the p-filter's improbable proper nouns): an honorific becomes another honorific,
    a capitalised word a surname-like word in the same case, anything else a random word."""
    if HONORIFIC.fullmatch(original):
        prefix = fake.prefix().rstrip(".")
        return prefix + "." if original.endswith(".") else prefix
    words = original.split()
    if words and all(w[:1].isupper() for w in words):
        surrogate = " ".join(fake.last_name() for _ in words)
        return surrogate.upper() if original.isupper() else surrogate
    return fake.word()


#: street suffixes common in written addresses (Faker also draws rare ones: "Stravenue", "Burg", "Inlet")
STREET_SUFFIXES = frozenset(
    ("street", "st", "avenue", "ave", "road", "rd", "drive", "dr", "lane", "ln", "boulevard", "blvd")
    + ("court", "ct", "place", "pl", "way", "terrace", "circle")
)
#: Faker draws tried for a company name that reads as one in running text
COMPANY_DRAWS = 20


def law_firm_shaped(name: str) -> bool:
    """A company name in Faker's law-firm shape ("Ward, Reed and Goodman"): a comma, "and" or "&"."""
    return "," in name or re.search(r"\band\b|&", name) is not None


def company(fake) -> str:
    """A company name without Faker's law-firm shape (`law_firm_shaped`), which reads oddly in place of a
    shop, a travel agency or an employer."""
    for _ in range(COMPANY_DRAWS):
        name = fake.company()
        if not law_firm_shaped(name):
            return name
    return f"{fake.last_name()} {fake.company_suffix()}"


def street(original: str, fake, rng: random.Random) -> str:
    """A street line of the original's shape: its house number redrawn (`random_like`: as many digits, a
    letter or a range kept), before the street or after it as in the original ("Koskikatu 25"), a surname
    and the original's suffix when it is a common one ("Street", "Ave."), else a common suffix; a house
    number alone stays a number, a numbered place ("PO Box 12", "Route 66") keeps its kind, a compass point
    after the street stays."""
    words = original.split()
    if len(words) == 1 and _HOUSE_NUMBER.fullmatch(original):
        return random_like(original, rng)
    if len(words) > 1 and words[-1].rstrip(".").lower() in _COMPASS:
        return f"{street(' '.join(words[:-1]), fake, rng)} {words[-1]}"
    tail = _house_after(words)
    after = 0 < tail < len(words) and not words[0][:1].isdigit()
    number = " ".join(words[tail:]) if after else (_HOUSE_NUMBER.match(original) or [""])[0]
    named = words[:tail] if after else words
    if after and _NUMBERED_PLACE.fullmatch(" ".join(named)):
        return f"{' '.join(named)} {random_like(number, rng)}"
    last = named[-1] if len(named) > 1 else ""
    suffix = last if last.rstrip(".").lower() in STREET_SUFFIXES else rng.choice(("Street", "Avenue", "Road"))
    house = random_like(number, rng) if number else ""
    parts = (fake.last_name(), suffix, house) if after else (house, fake.last_name(), suffix)
    return " ".join(filter(None, parts))


def _house_after(words: list[str]) -> int:
    """Where the house part after the street begins ("Koskikatu 25 A 3": a house number, then staircase
    letters and numbers), or ``len(words)`` when the line does not end in one."""
    start = len(words)
    while start > 1 and (_HOUSE_NUMBER.fullmatch(words[start - 1]) or _STAIRCASE.fullmatch(words[start - 1])):
        start -= 1
    while start < len(words) and not _HOUSE_NUMBER.fullmatch(words[start]):
        start += 1
    return start


_SECONDARY = re.compile(r"(?i)(?:\b(?:apt|apartment|suite|ste|unit|room|floor|fl|flat)\b|#)\.?\s*\S+")
#: "25", "3B", "12-14": a house number (digits, a letter or a second number after them)
_HOUSE_NUMBER = re.compile(r"\d+(?:[-/]\d+)?[A-Za-z]?(?!\w)")
#: a compass point after a street ("1600 Pennsylvania Avenue NW", "Route 66 W"): kept as it is
_COMPASS = frozenset({"n", "s", "e", "w", "ne", "nw", "se", "sw"})
#: a staircase or entrance letter after the house number ("Koskikatu 25 A 3")
_STAIRCASE = re.compile(r"[A-Z]")
#: places numbered without a street name: the words before the number stay
_NUMBERED_PLACE = re.compile(r"(?i)(?:p\.?\s?o\.?\s+)?box|route|rte\.?|highway|hwy\.?|building|bldg\.?")
#: "10115 Berlin", "0155 Oslo", "4000-100 Porto", "00-950 Warszawa", "1011 AB Amsterdam": a postcode before
#: its city, as much of Europe writes it
_POSTCODE_CITY = re.compile(
    r"(\d{4} ?(?!(?:NE|NW|SE|SW|ST)\b)[A-Z]{2}(?= )|\d{4,5}(?:-\d{3})?|\d{2}-\d{3})\s+([^\W\d_][^\d,]*)"
)
#: words that end or close a street line, never a city ("1600 Pennsylvania Avenue NW")
_STREET_WORDS = STREET_SUFFIXES | {"highway", "hwy", "route", "rte"} | _COMPASS
_ZIP = re.compile(r"\d{5}(?:-\d{4})?")
_STATE_ZIP = re.compile(
    r"(?P<state>[A-Z]{2}|[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:(?P<sep>,?\s+)(?P<zip>\d{5}(?:-\d{4})?))?"
)
_ADDRESS_PIECE = re.compile(r"(,\s*|\n)")


def address_like(original: str, fake, rng: random.Random, local=None) -> str:
    """An address of the original's shape, piece by piece: street (`street`, with its apartment or suite),
    city, state (abbreviated or written out), ZIP (5 or 9 digits) and a postcode before its city after a
    street line ("10115 Berlin"); separators and line breaks kept. ``local``: a Faker of another locale
    that draws the streets, cities and postcodes (the canaries of a corpus' countries)."""
    pieces = _ADDRESS_PIECE.split(original)
    out, street_before = [], False
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append(piece)
            continue
        new, kind = _address_piece(piece, fake, rng, i == 0, street_before, local)
        street_before = street_before or kind == "street"
        out.append(new)
    return "".join(out)


@functools.cache
def _countries() -> frozenset[str]:
    from faker.providers.address.en_US import Provider

    return frozenset(c.casefold() for c in (*Provider.countries, "USA", "US", "UK", "United States"))


@functools.cache
def _places() -> frozenset[str]:
    """Countries and US states, case-folded."""
    from faker.providers.address.en_US import Provider

    return _countries() | frozenset(state.casefold() for state in Provider.states)


def _another_state(original: str, rng: random.Random) -> str | None:
    """Another US state written as ``original`` writes one (its name or its postal abbreviation, in its
    case), or None when ``original`` is no state."""
    from faker.providers.address.en_US import Provider

    names, codes = list(Provider.states), list(Provider.states_abbr)
    if original in codes:
        return rng.choice([c for c in codes if c != original])
    if original.casefold() not in {n.casefold() for n in names}:
        return None
    drawn = rng.choice([n for n in names if n.casefold() != original.casefold()])
    return drawn.upper() if original.isupper() and len(original) > 1 else drawn


def _postcode_city(core: str) -> re.Match | None:
    match = _POSTCODE_CITY.fullmatch(core)
    if match and not any(w.rstrip(".").lower() in _STREET_WORDS for w in match[2].split()):
        return match
    return None


def _address_piece(piece: str, fake, rng: random.Random, first: bool, street_before: bool, local) -> tuple:
    """One piece of `address_like`, redrawn, and its kind ("street" for a street line)."""
    core = piece.strip()
    lead, trail = piece[: len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()) :]
    if not core:
        return piece, ""
    place, kind = local or fake, ""
    postcode_city = _postcode_city(core) if street_before else None
    if _ZIP.fullmatch(core):
        new = local.postcode() if local else fake.zipcode_plus4() if "-" in core else fake.zipcode()
    elif postcode_city:
        new = f"{local.postcode() if local else random_like(postcode_city[1], rng)} {place.city()}"
    elif _SECONDARY.fullmatch(core):
        new = fake.secondary_address()
    elif core[0].isdigit() or first and any(ch.isdigit() for ch in core):
        kind, secondary = "street", _SECONDARY.search(core[1:])
        line = core if secondary is None else core[: secondary.start() + 1].rstrip(" ,")
        if local is not None and not _HOUSE_NUMBER.fullmatch(line):
            line = " ".join(local.street_address().split())
        else:
            line = street(line, fake, rng)
        new = line if secondary is None else f"{line} {fake.secondary_address()}"
    elif (match := _STATE_ZIP.fullmatch(core)) and (len(match["state"]) == 2 or match["zip"]):
        state = fake.state_abbr(include_territories=False) if len(match["state"]) == 2 else fake.state()
        new = (
            state
            if not match["zip"]
            else state + match["sep"] + (fake.zipcode_plus4() if "-" in match["zip"] else fake.zipcode())
        )
    elif not first and core.casefold() in _countries():
        new = fake.country()
    else:
        new = place.city()
    return lead + (new.upper() if core.isupper() and len(core) > 1 else new) + trail, kind
