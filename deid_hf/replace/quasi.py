"""Readable surrogates of the gdpr policy's quasi-identifiers: a nationality for a nationality ("a Turkish
national" -> "a Peruvian national"), a religion for a religion, an occupation for an occupation, a common
health condition for a health condition ("diabetes" -> "asthma"), an amount of the same shape for an amount
("5,000 euros" -> "7,318 euros")."""

from __future__ import annotations

import random
import re

from ..detect.quasi import is_degree, job_titles, languages, occupations
from ..detect.text_shape import COUNT_WORDS
from .shape import cased_like, fresh_digits

#: nationality and ethnic adjectives a DEMOGRAPHIC surrogate is drawn from
NATIONALITIES = (
    "Argentine",
    "Austrian",
    "Belgian",
    "Brazilian",
    "Canadian",
    "Chilean",
    "Danish",
    "Dutch",
    "Estonian",
    "Finnish",
    "Ghanaian",
    "Greek",
    "Icelandic",
    "Irish",
    "Kenyan",
    "Latvian",
    "Mexican",
    "Norwegian",
    "Peruvian",
    "Portuguese",
    "Swedish",
    "Uruguayan",
)
#: nationalities that also name a language: a language's surrogate reads in either sense ("speaks Finnish",
#: "a Finnish national")
SPOKEN_NATIONALITIES = tuple(n for n in NATIONALITIES if n in languages())
#: religions a religion's surrogate is drawn from (each reads as a noun and as an adjective)
RELIGIONS = (
    "Anglican",
    "Buddhist",
    "Christian",
    "Evangelical",
    "Hindu",
    "Muslim",
    "Sikh",
    "Catholic",
    "Protestant",
)
#: words read as a religion
_RELIGIONS = {r.casefold() for r in (*RELIGIONS, "Jewish", "Jew", "Orthodox")}
#: common health conditions a condition's surrogate is drawn from (a noun without an article: "suffered
#: from asthma")
CONDITIONS = (
    "anaemia",
    "angina",
    "arthritis",
    "asthma",
    "bronchitis",
    "diabetes",
    "eczema",
    "epilepsy",
    "glaucoma",
    "gout",
    "hepatitis",
    "insomnia",
    "migraine",
    "osteoporosis",
    "psoriasis",
    "scoliosis",
    "tinnitus",
    "tuberculosis",
)
#: conditions counted, as events or growths ("a stroke", "two heart attacks", "a tumour")...
COUNTED = frozenset(
    {
        "stroke",
        "attack",
        "seizure",
        "tumour",
        "tumor",
        "migraine",
        "infection",
        "ulcer",
        "aneurysm",
        "breakdown",
    }
)
#: ...and the counted conditions their surrogate is drawn from ("a migraine", "an ulcer")
COUNTED_CONDITIONS = ("migraine", "seizure", "infection", "ulcer")
#: conditions written as adjectives, for a test's result ("HIV-positive")
CONDITION_ADJECTIVES = ("anaemic", "asthmatic", "diabetic", "epileptic")
#: an eponym's possessive ("Parkinson's", "Graves'")
_APOSTROPHE_S = re.compile("[\u2019'](?:s\\b|$)")
#: the longest condition in capitals read as an acronym ("HIV", "COPD"; "ASTHMA" is a word in capitals)
ACRONYM_LENGTH = 5
#: an article that starts a span ("a Roman Catholic": kept before the surrogate)
_ARTICLE = re.compile(r"(?i)(?:an?|the)[ \t]+(?=\w)")
#: number words of an amount written without digits ("two million dollars")
NUMBER_WORDS = COUNT_WORDS
_NUMBER_WORD = re.compile(rf"(?i)\b(?:one|{'|'.join(NUMBER_WORDS)})\b")


def _singular(word: str) -> tuple[str, str]:
    """(word without a plural "s", the "s" or "")."""
    return (
        (word[:-1], word[-1])
        if len(word) > 3 and word[-1:] in "sS" and word[-2:].casefold() != "ss"
        else (word, "")
    )


def _takes_s(word: str) -> bool:
    """Whether a people's adjective makes a plural noun with "s" ("Peruvians"; not "Irish", "Portuguese")."""
    return not word.endswith(("sh", "ch", "se", "ese"))


def demographic_like(original: str, rng: random.Random) -> str:
    """Another religion for a religion ("Muslims" -> "Sikhs", "a Roman Catholic" -> "a Hindu"), a language
    that is also a nationality for a language ("speaks Kurdish" -> "speaks Finnish", "a Polish national" ->
    "a Danish national"; `SPOKEN_NATIONALITIES`), else another nationality ("Peruvian" -> "Chilean"),
    starting with a vowel where the original does (an article before it still reads; an article inside the
    span is kept); a plural stays plural."""
    stripped = original.strip()
    article = _ARTICLE.match(stripped)
    written = stripped[article.end() :] if article else stripped
    core, plural = _singular(written)
    last = core.split()[-1].casefold() if core.split() else ""
    religion = core.casefold() in _RELIGIONS or written.casefold() in _RELIGIONS or last in _RELIGIONS
    language = written in languages() or written.title() in languages()
    pool = RELIGIONS if religion else SPOKEN_NATIONALITIES if language else NATIONALITIES
    vowel = written[:1].casefold() in "aeiou"  # "a Turkish" stays "a ...", "an Irish" "an ..."
    others = [
        w
        for w in pool
        if w.casefold() not in (core.casefold(), written.casefold(), last) and (_takes_s(w) or not plural)
    ]
    choices = [w for w in others if (w[:1].casefold() in "aeiou") == vowel] or others
    drawn = cased_like(written, rng.choice(choices) + plural)
    if not article:
        return drawn
    said = stripped[: article.end()]
    if said.strip().casefold() in ("a", "an"):  # the article agrees with the word drawn
        said = ("an" if drawn[:1].casefold() in "aeiou" else "a") + said[len(said.strip()) :]
        said = said[:1].upper() + said[1:] if stripped[:1].isupper() else said
    return said + drawn


#: degrees a surrogate degree is drawn from, where the original names no field of study ("an MBA")
DEGREES = (
    "PhD",
    "MBA",
    "MSc",
    "BSc",
    "BA",
    "BEng",
    "LLB",
    "master's degree",
    "bachelor's degree",
    "doctorate",
    "engineering degree",
    "law degree",
    "undergraduate degree",
)
#: degrees that read with a field of study after them ("a PhD in physics")
DEGREES_IN = (
    "PhD",
    "MSc",
    "BSc",
    "MA",
    "BA",
    "master's degree",
    "bachelor's degree",
    "doctorate",
    "diploma",
    "undergraduate degree",
)
#: fields of study a surrogate degree's field is drawn from
FIELDS = (
    "history",
    "chemistry",
    "economics",
    "law",
    "nursing",
    "music",
    "geography",
    "mathematics",
    "engineering",
    "architecture",
    "education",
    "accounting",
)
#: letters whose name starts with a vowel sound ("an MBA", "an LLB"; "a BSc")
_VOWEL_LETTERS = "AEFHILMNORSX"
#: beginnings of words read with "a" although written with a vowel ("a university degree")
_CONSONANT_SOUND = ("uni", "use", "usu", "eu", "one")


def _written_short(degree: str) -> bool:
    """Whether a degree is written as an abbreviation: one word with two capitals or more ("MBA", "M.Sc.",
    "PhD", "EdD"; not "Doctorate")."""
    return len(degree.split()) == 1 and sum(c.isupper() for c in degree) >= 2


def _vowel_sound(written: str) -> bool:
    """Whether ``written`` is read with "an" before it: a vowel or a silent "h" ("an honours degree"; not "a
    university degree"), or an abbreviation whose first letter's name starts with one ("an MBA", "an
    M.Sc."; "a PhD")."""
    head = written.split()[0] if written.split() else ""
    if _written_short(head):
        return head[0] in _VOWEL_LETTERS
    folded = head.casefold()
    return (folded[:1] in "aeiou" and not folded.startswith(_CONSONANT_SOUND)) or folded.startswith(
        ("hono", "hour")
    )


def _same_degree(a: str, b: str) -> bool:
    """Whether two degrees are one however written ("Ph.D" and "PhD", "masters degree" and "master's
    degree")."""
    return re.sub(r"[\W_]", "", a).casefold() == re.sub(r"[\W_]", "", b).casefold()


#: the "in" between a degree and its field, in any case ("PHD IN PHYSICS", "PhD In Physics")
_IN = re.compile(r"[ \t]+in[ \t]+", re.IGNORECASE)


def degree_like(original: str, rng: random.Random) -> str:
    """Another degree (`DEGREES`, `DEGREES_IN`) read with the same article ("an MBA" -> "an MSc", "a PhD"
    -> "a doctorate"), an abbreviation for an abbreviation ("Kim Ng, MBA" -> "Kim Ng, MSc"), a plural for a
    plural ("PhDs"), in capitals where the original is, capitalised where a word of it is, with another
    field (`FIELDS`, none of the original's words) where the original names one ("a PhD in physics" -> "a
    master's degree in law")."""
    written = original.strip()
    degree, *rest = _IN.split(written, maxsplit=1)
    field = rest[0] if rest else ""
    plural = degree.endswith(("s", "S")) and _written_short(degree[:-1])
    degree = degree[:-1] if plural else degree
    short = _written_short(degree)
    vowel = _vowel_sound(written)
    pool = [
        d
        for d in (DEGREES_IN if field else DEGREES)
        if not _same_degree(d, degree) and _vowel_sound(d) == vowel
    ]
    if short:
        pool = [d for d in pool if _written_short(d)] or pool
    drawn = rng.choice(pool) + ("s" if plural else "")
    if field:
        words = set(field.casefold().split())
        drawn += " in " + rng.choice([f for f in FIELDS if f not in words])
    if written.isupper() and not _written_short(written):  # "PHD IN PHYSICS"; "MBA" is an abbreviation
        return drawn.upper()
    return drawn[:1].upper() + drawn[1:] if written[:1].isupper() and not short else drawn


def occupation_like(original: str, rng: random.Random) -> str:
    """Another occupation of Faker's job titles (`detect.quasi.job_titles`), starting with a vowel where the
    original does (so "a"/"an" before it still reads); plural stays plural; a degree another degree
    (`degree_like`)."""
    if is_degree(original):
        return degree_like(original, rng)
    folded = original.strip().casefold()
    known = set(occupations())
    plural = folded not in known and any(
        plural_of(k) == folded for k in (folded[:-1], folded[:-2], folded[:-3] + "y") if k in known
    )
    vowel = folded[:1] in "aeiou"
    drawn = rng.choice(
        [o for o in job_titles() if o not in (folded, folded[:-1]) and (o[:1] in "aeiou") == vowel]
    )
    return cased_like(original, plural_of(drawn) if plural else drawn)


def health_like(original: str, rng: random.Random) -> str:
    """Another common health condition (`CONDITIONS`), starting with a vowel where the original does (so
    "an" before it still reads), a counted one for a counted one ("a stroke" -> "a migraine", `COUNTED`),
    or an adjective for a test's result ("HIV-positive" -> "diabetic"); cased
    as the original, but in lower case for an acronym or an eponym ("HIV", "Parkinson's disease" ->
    "asthma")."""
    written = original.strip() or "illness"
    folded = written.casefold()
    head, plural = _singular(folded.split()[-1])
    pool = CONDITIONS
    if folded.endswith(("-positive", "-negative")):
        pool = CONDITION_ADJECTIVES
    elif head in COUNTED:  # "a stroke", "two heart attacks": one that reads with "a" or a number
        pool = tuple(c + plural for c in COUNTED_CONDITIONS)
    vowel = folded[:1] in "aeiou"
    drawn = rng.choice([c for c in pool if c != folded and (c[:1] in "aeiou") == vowel] or pool)
    first = written.split()[0].split("-")[0]
    named = (first.isupper() and len(first) <= ACRONYM_LENGTH) or _APOSTROPHE_S.search(first) is not None
    return drawn if named else cased_like(written, drawn)


def plural_of(noun: str) -> str:
    """The regular English plural of a noun phrase's last word ("actuary" -> "actuaries", "coach" ->
    "coaches", "engineer" -> "engineers")."""
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    return noun + ("es" if re.search(r"(?:s|x|z|ch|sh)$", noun) else "s")


def quantity_like(original: str, rng: random.Random) -> str:
    """An amount of the same shape: every digit another digit (a leading one non-zero), a number word another
    number word, the unit or currency kept."""
    out = fresh_digits(original, rng)
    if out == "1" and original != "1":  # a count of several stays several ("2 daughters", not "1 daughters")
        out = rng.choice([d for d in "23456789" if d != original])
    return _NUMBER_WORD.sub(
        lambda m: cased_like(m.group(0), rng.choice([w for w in NUMBER_WORDS if w != m.group(0).lower()])),
        out,
    )


#: label -> its surrogate of the same kind
QUASI_SURROGATES = {
    "DEMOGRAPHIC": demographic_like,
    "OCCUPATION": occupation_like,
    "QUANTITY": quantity_like,
    "HEALTH": health_like,
}
