"""Full entity: the whole span replaced by a realistic same-type surrogate from Faker.

The original's format is kept where it can be read off: identifiers keep their shape but lose every original
letter and digit (units such as "5mg" stay in numbers), phone numbers stay valid for their country code
(phonenumbers), dates keep their format (`deid_hf.replace.dates`), single- vs multi-line addresses,
IPv4 vs IPv6. Through a pipeline the mapping is consistent within a substitution table: one pseudonym per
person (`deid_hf.replace.names`: "Dr. Kenji Tanaka", "Tanaka", "TANAKA's" share one surname), organisations
and places case-insensitively and by their acronym. Both make the surrogate depend on the original, so this
strategy carries no DP guarantee (Adelani et al. 2020, "Full entity replacement").
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from ..detect.clinical import FACILITY_END
from ..detect.mentions import TITLE
from .base import Strategy
from .dates import rewrite_date_span, rewrite_dates
from .names import pseudonym, register
from .shape import random_like, random_phone_like

_NAMED = ("ORG", "LOCATION")
#: labels whose Faker surrogates are made from person names
_COMPOSED = ("ORG", "LOCATION", "ADDRESS", "EMAIL", "URL", "OTHER")
_NAME_WORD = re.compile(r"[^\W\d_]{3,}")
REDRAWS = 20


def _random_date(old: date, has_year: bool, rng: random.Random) -> date:
    return (date(1960, 1, 1) if has_year else date(old.year, 1, 1)) + timedelta(
        days=rng.randrange(365 * 60 if has_year else 365)
    )


def _acronym(text: str) -> str:
    return "".join(w[0] for w in text.split() if w[:1].isupper())


_INITIALISM = re.compile(r"[A-Z]{2,5}")
_INITIALISM_END = re.compile(r"(?:MC|H)$")  # "...H" hospital, "...MC" medical center: a kind, not a name


def _random_initialism(original: str, rng: random.Random) -> str:
    """Random capitals of the original's length, keeping a facility ending ("GBMC" -> "KTMC", "GH" -> "RH");
    never the original."""
    end = _INITIALISM_END.search(original[1:])
    kept = end.group(0) if end else ""
    while True:
        drawn = "".join(rng.choice("ABCDEFGHIJKLMNOPRSTVW") for _ in range(len(original) - len(kept)))
        if drawn + kept != original:
            return drawn + kept


class FullEntity(Strategy):
    name = "full_entity"

    def __init__(self, consistent: bool = True, locale: str = "en_US"):
        from faker import Faker

        self.consistent = consistent
        self.fake = Faker(locale)

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        fake = self.fake
        fake.seed_instance(rng.getrandbits(64))
        if label == "PERSON":  # a fresh pseudonym sharing no word with the original
            return pseudonym(original, {}, fake, rng)
        if label in _NAMED and _INITIALISM.fullmatch(original):  # "transferred to GH": an initialism
            return _random_initialism(original, rng)
        facility = FACILITY_END.search(original) if label in _NAMED else None
        if facility:  # a facility stays one of its kind: "St. Jude Medical Center" -> "Lopez Medical Center"
            return f"{fake.last_name()} {facility.group(1)}"
        if label == "ORG":
            return fake.company()
        if label == "LOCATION":
            return fake.city()
        if label == "ADDRESS":
            return fake.address() if "\n" in original else fake.street_address()
        if label == "EMAIL":
            return fake.email()
        if label == "URL":
            return fake.url()
        if label == "IP":
            return fake.ipv6() if ":" in original else fake.ipv4()
        if label == "AGE":
            return re.sub(r"\d+", lambda m: str(rng.randint(18, 89)), original, count=1)
        if label == "DATE_TIME":
            rewritten = rewrite_dates(original, lambda old, has_year: _random_date(old, has_year, rng))
            if rewritten is not None:
                return rewritten
        if label == "PHONE":
            return random_phone_like(original, rng)
        if any(ch.isdigit() for ch in original):
            return random_like(original, rng, keep_units=label == "NUMBER")
        return _untyped(original, fake)

    def prepare(self, text: str, spans: list, table) -> None:
        name_words = table.state.setdefault("name_words", set())
        for span in spans:
            if span.label == "PERSON":
                register(table.state.setdefault("names", {}), text[span.start : span.end])
                name_words.update(w.casefold() for w in _NAME_WORD.findall(text[span.start : span.end]))

    def _draw(self, original: str, label: str, rng: random.Random, table) -> str:
        """A surrogate holding none of the document's person-name words: Faker builds places, companies,
        streets and e-mails from names ("Gonzalezhaven" in a note about Maria Gonzalez); redrawn up to
        `REDRAWS` times."""
        avoid = table.state.get("name_words", ()) if label in _COMPOSED else ()
        for _ in range(REDRAWS):
            surrogate = self.surrogate(original, label, rng)
            if not any(word in surrogate.casefold() for word in avoid):
                break
        return surrogate

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        original = text[start:end]
        if label == "DATE_TIME":  # no calendar date (a relative expression, a time of day): None, kept
            cached = table.entries.get((label, original)) if self.consistent else None
            if cached is not None:  # the same text may read as a year in one place, a time in another
                return cached if rewrite_date_span(text, start, end, lambda old, has_year: old) else None
            surrogate = rewrite_date_span(
                text, start, end, lambda old, has_year: _random_date(old, has_year, rng)
            )
            if surrogate is not None and self.consistent:
                table.entries[(label, original)] = surrogate
            return surrogate
        if not self.consistent:
            return self._draw(original, label, rng, table)
        names = table.state.setdefault("names", {})
        if TITLE.fullmatch(original.strip()):
            return None  # a title alone is not an identifier; it is kept, as in "Dr. <pseudonym>"
        known = names.get("parts", {})
        is_name_part = original[:1].isupper() and all(
            w.casefold() in known for w in re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", original)
        )
        if label == "PERSON" or (label == "OTHER" and is_name_part and known):
            self.fake.seed_instance(rng.getrandbits(64))
            return pseudonym(original, names, self.fake, rng)
        if label in _NAMED or label == "OTHER":
            return self._named(original, label, rng, table)
        if (label, original) not in table.entries:
            table.entries[(label, original)] = self._draw(original, label, rng, table)
        return table.entries[(label, original)]

    def _named(self, original: str, label: str, rng: random.Random, table) -> str | None:
        """Organisations, places, untyped words: one surrogate per case-folded original (a possessive kept
        outside); a short form (the words of a replaced name, "Marcil" after "Pinabel Marcil") gets that
        name's surrogate; the acronym of a replaced multi-word name becomes the acronym of its surrogate."""
        folded = table.state.setdefault("folded", {})
        acronyms = table.state.setdefault("acronyms", {})
        possessive = re.search(r"['’]s$", original)
        core = original[: possessive.start()] if possessive else original
        suffix = possessive.group(0) if possessive else ""
        key = (label, core.casefold())
        if key not in folded and core.isupper() and core in acronyms:
            return acronyms[core] + suffix
        if key not in folded and len(core) >= 3:
            words = core.casefold().split()
            for (known_label, known), surrogate in folded.items():
                known_words = known.split()
                if (
                    known_label == label
                    and len(words) < len(known_words)
                    and any(
                        known_words[i : i + len(words)] == words
                        for i in range(len(known_words) - len(words) + 1)
                    )
                ):
                    return _case_like(core, surrogate) + suffix
        if key not in folded:
            surrogate = self._draw(core, label, rng, table)
            folded[key] = surrogate
            if len(core.split()) >= 2 and len(_acronym(core)) >= 2:
                acronyms.setdefault(_acronym(core), _acronym(surrogate) or surrogate.upper())
        return _case_like(core, folded[key]) + suffix


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
