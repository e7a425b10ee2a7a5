"""Full entity: the whole span replaced by a realistic same-type surrogate from Faker.

The original's format is kept where it can be read off: digit shapes of phones, IDs and numbers, the
number of words of a name, the date format, single- vs multi-line addresses, IPv4 vs IPv6. The mapping is
consistent within a substitution table by default. Both make the surrogate depend on the original, so
this strategy carries no DP guarantee (Adelani et al. 2020, "Full entity replacement").
"""

from __future__ import annotations

import random
import re
from datetime import datetime

from .base import Strategy
from .shape import random_digits_like

DATE_FORMATS = (
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%Y-%m-%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%B %Y",
    "%Y",
    "%B %d",
    "%A",
    "%m/%d/%y",
    "%d.%m.%Y",
)


def _date_format(original: str) -> str | None:
    for fmt in DATE_FORMATS:
        try:
            datetime.strptime(original, fmt)
        except ValueError:
            continue
        return fmt
    return None


class FullEntity(Strategy):
    name = "full_entity"

    def __init__(self, consistent: bool = True, locale: str = "en_US"):
        from faker import Faker

        self.consistent = consistent
        self.fake = Faker(locale)

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        fake = self.fake
        fake.seed_instance(rng.getrandbits(64))
        words = original.split()
        if label == "PERSON":
            return " ".join([fake.first_name()] + [fake.last_name() for _ in words[1:]])
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
            fmt = _date_format(original)
            if fmt:
                return fake.date_time_between("-60y", "now").strftime(fmt)
        if any(ch.isdigit() for ch in original):
            return random_digits_like(original, rng)
        if label == "DATE_TIME":
            return fake.day_of_week()
        return _untyped(original, fake)


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
