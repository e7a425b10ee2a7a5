"""Format-preserving random digits (ZSTS numbers; phones, IDs in full-entity replacement)."""

from __future__ import annotations

import random
import re

from ..detect.text_shape import DIGIT_WORD, DIGIT_WORDS


def random_digits_like(original: str, rng: random.Random) -> str:
    """Every digit replaced by a uniform random digit; letters, separators and length kept.

    A leading digit stays non-zero so a number keeps its magnitude.
    """
    out = []
    for i, ch in enumerate(original):
        if ch.isdigit():
            first = i == 0 or not original[i - 1].isdigit()
            out.append(str(rng.randint(1, 9) if first and ch != "0" else rng.randint(0, 9)))
        else:
            out.append(ch)
    return "".join(out)


#: letter runs that are units or clinical shorthand, kept inside NUMBER spans ("5mg", "q4h", "2L")
UNITS = frozenset(
    [
        "mg",
        "mcg",
        "ug",
        "g",
        "kg",
        "lb",
        "lbs",
        "oz",
        "ml",
        "cc",
        "l",
        "dl",
        "mm",
        "cm",
        "m",
        "km",
        "in",
        "ft",
        "mmhg",
        "bpm",
        "hr",
        "hrs",
        "h",
        "min",
        "mins",
        "s",
        "sec",
        "d",
        "wk",
        "wks",
        "mo",
        "yr",
        "yrs",
        "y",
        "yo",
        "am",
        "pm",
        "st",
        "nd",
        "rd",
        "th",
        "x",
        "q",
        "qd",
        "bid",
        "tid",
        "qid",
        "prn",
        "u",
        "iu",
        "meq",
        "mmol",
        "mol",
        "mcl",
        "k",
    ]
)


def fresh_digits(original: str, rng: random.Random) -> str:
    """``original`` with another digit at every digit's place (a leading non-zero digit stays non-zero)."""
    digits = []
    for i, ch in enumerate(original):
        if ch.isdigit():
            first = i == 0 or not original[i - 1].isdigit()
            pool = "123456789" if first and ch != "0" else "0123456789"
            digits.append(rng.choice(pool.replace(ch, "")))
        else:
            digits.append(ch)
    return "".join(digits)


def random_like(original: str, rng: random.Random, keep_units: bool = False) -> str:
    """Same shape, no original letter or digit left in place: each digit becomes another digit, each letter
    another letter of the same case; with ``keep_units``, letter runs that are units ("5mg") stay."""
    import re

    out = fresh_digits(original, rng)

    def letters(match: re.Match) -> str:
        run = match.group(0)
        if keep_units and run.lower() in UNITS:
            return run
        fresh = []
        for ch in run:
            pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch.isupper() else "abcdefghijklmnopqrstuvwxyz"
            new = rng.choice(pool.replace(ch, ""))
            fresh.append(new)
        return "".join(fresh)

    return re.sub(r"[^\W\d_]+", letters, out)


#: draws of fresh digits before a phone surrogate falls back to random digits: a layout that can hold a valid
#: number gives one within a few draws, one that cannot ("555-0143" in the US) would take every draw
PHONE_DRAWS = 40


#: a digit said in words
_DIGIT_WORD = re.compile(rf"(?i)\b{DIGIT_WORD}\b")


def random_phone_like(original: str, rng: random.Random, region: str = "US") -> str:
    """A number valid for the original's country (phonenumbers), written in the original's layout: the
    country code and separators are kept, the other digits change (random digits in that layout when no
    draw gives a valid number, or the original cannot be read as one); a number said in words gets other
    digit words ("oh seven seven" -> "four two nine")."""
    import phonenumbers

    if not any(ch.isdigit() for ch in original) and _DIGIT_WORD.search(original):
        return _DIGIT_WORD.sub(lambda m: cased_like(m.group(), rng.choice(DIGIT_WORDS)), original)

    try:
        parsed = phonenumbers.parse(original, region)
    except phonenumbers.NumberParseException:
        return random_digits_like(original, rng)
    if not phonenumbers.is_possible_number(parsed):  # its length fits no number: no draw would be valid
        return random_digits_like(original, rng)
    country = str(parsed.country_code)
    digits = [i for i, ch in enumerate(original) if ch.isdigit()]
    written, national = "".join(original[i] for i in digits), str(parsed.national_number)
    stripped = original.lstrip()
    before = written[: len(written) - len(national)] if written.endswith(national) else ""
    if country in before:  # the prefixes written before the number, its country code among them
        keep = len(before)  # ("1-800-...", "+44 (0)20 ...", "011 44 20 ...")
    else:
        keep = len(country) if stripped.startswith("+") or stripped.startswith("00") else 0
        keep += 2 if stripped.startswith("00") else 0
    free, drawn = digits[keep:], None
    for _ in range(PHONE_DRAWS):
        candidate = list(original)
        for i in free:
            candidate[i] = str(rng.randint(0, 9))
        text = "".join(candidate)
        if text == original:
            continue
        drawn = text
        try:
            number = phonenumbers.parse(text, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number) and number.country_code == parsed.country_code:
            return text
    return drawn or random_digits_like(original, rng)  # the last draw keeps the country code


def cased_like(original: str, surrogate: str) -> str:
    """``surrogate`` in the casing of ``original``: in capitals, in lower case, or with its first letter
    capitalised."""
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    if original[:1].islower():
        return surrogate.lower()
    return surrogate[:1].upper() + surrogate[1:]
