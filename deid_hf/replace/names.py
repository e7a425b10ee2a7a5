"""One pseudonym per person: every mention of a name maps to the same surrogate within a table, and within a
group of documents in every document, process and run.

A mention is split into a title (kept: "Dr.", "Ms.", "Judge"), name particles (dropped: "van der"), name
parts and a possessive ("'s", kept). Each name part is replaced part by part through ``state["parts"]``
(case-folded original -> surrogate), so "Dr. Kenji Tanaka", "Dr. Tanaka", "Kenji", "K. Tanaka", "TANAKA"
and "TANAKA, Kenji" share one surrogate. In a group (``state["group_seed"]``) a part's surrogate is drawn
from HMAC(group seed, part) (`keyed_rng`), so the same part gets the same surrogate in every document of
the group; without one, from the document's stream.

A part's role (given name or surname) comes from Faker's English name lists where they give it one (so it
is the same in every document), else from the mention ("Kenji Tanaka", "TANAKA, Kenji", "Dr. Tanaka"),
else from the document's other mentions (`register`), else from other locales' lists (a surname when
unknown). A given name is drawn from the given names of its gender (the title's, else the lists'), a
surname from the surnames, of the locale whose lists know the name (the pipeline's for en_US names; for
another name, that of a known part of its mention: "Kenji Tanaka" -> Japanese names). An initial ("K.")
is mapped letter to letter, and a given name's surrogate starts with its initial's image, so "K. Tanaka"
and "Kenji Tanaka" agree. Case is kept (ALL CAPS stays ALL CAPS). A surrogate never equals a name word of
the mention or of the document.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib
import random
import re
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from ..detect.mentions import split_mention

FEMALE_TITLES = {"mrs", "ms", "miss", "madam"}
MALE_TITLES = {"mr", "sir", "fr"}
#: locales whose name lists tell the role and gender of a name (the first locale that knows it decides);
#: Japanese names are read in their romanized lists
LOOKUP_LOCALES = (
    "en_US",
    "en",
    "en_GB",
    "en_IN",
    "es_ES",
    "it_IT",
    "de_DE",
    "fr_FR",
    "nl_NL",
    "pt_BR",
    "ja_JP",
)
#: English lists: a name they give one role keeps it in every mention; their names are replaced by names of
#: the pipeline's locale (another locale's names by names of that locale)
SHARED_LOCALES = ("en_US", "en", "en_GB", "en_IN")
#: initials a given name's initial may map to where a locale's lists start no names of both genders alike
INITIALS = "ABCDEFGHJKLMNPRSTW"
#: the fewest given names of each gender a letter starts for it to be an initial's surrogate
NAMES_PER_INITIAL = 10
#: the fewest letters an initial's surrogate is drawn from (where the lists allow)
MIN_INITIALS = 8
T = TypeVar("T")


def keyed_rng(state: dict, *purpose: str) -> random.Random | None:
    """A stream from HMAC(the table's group seed, purpose) when the table belongs to a group, else None."""
    group = state.get("group_seed")
    if group is None:
        return None
    message = "\x1f".join(purpose).encode("utf-8", "surrogatepass")
    return random.Random(hmac.new(group.encode(), message, hashlib.sha256).digest())


def drawn_once(table, key: tuple[str, ...], draw: Callable[[random.Random], T], rng: random.Random) -> T:
    """``draw`` once per table and ``key``, from the group's keyed stream where the table has one (the same
    surrogate in every document of the group), else from ``rng``."""
    if key not in table.entries:
        table.entries[key] = draw(keyed_rng(table.state, *key) or rng)
    return table.entries[key]


@functools.cache
def locale_lists(locale: str) -> tuple[dict, dict, dict]:
    """(female given names, male given names, surnames) of a Faker locale, each name -> weight (romanized
    where the locale has romanized lists)."""
    provider = importlib.import_module(f"faker.providers.person.{locale}").Provider

    def names(attribute: str) -> dict:
        romanized = attribute.replace("_names", "_romanized_names")
        found = getattr(provider, romanized, None) or getattr(provider, attribute, ())
        return dict(found) if isinstance(found, dict) else dict.fromkeys(found, 1.0)

    return names("first_names_female"), names("first_names_male"), names("last_names")


def name_lists() -> tuple[set, set, set]:
    """en_US's (female given names, male given names, surnames)."""
    return tuple(set(names) for names in locale_lists("en_US"))


@functools.cache
def _facts() -> dict[str, tuple[bool, bool, str | None, str]]:
    """Case-folded name -> (is a given name, is a surname, gender of the given name or None, locale), from
    the first of `LOOKUP_LOCALES` that lists it."""
    facts: dict = {}
    for locale in LOOKUP_LOCALES:
        female, male, last = locale_lists(locale)
        for name in (*female, *male, *last):
            key = name.casefold()
            if key in facts:
                continue
            is_female, is_male = name in female, name in male
            gender = "female" if is_female and not is_male else "male" if is_male and not is_female else None
            facts[key] = (is_female or is_male, name in last, gender, locale)
    return facts


def name_facts(name: str) -> tuple[bool, bool, str | None, str | None]:
    """(is a given name, is a surname, gender, locale) of ``name`` in Faker's lists; all false if unlisted."""
    return _facts().get(name.casefold(), (False, False, None, None))


def _title_gender(title: str | None) -> str | None:
    word = (title or "").lower().rstrip(".")
    return "female" if word in FEMALE_TITLES else "male" if word in MALE_TITLES else None


def _positional_roles(mention: str, names: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Roles a multi-part mention gives by position: "Kenji Tanaka" (given, surname), "TANAKA, Kenji"
    (surname, given)."""
    if len(names) < 2:
        return {}
    if mention[names[0][1] : names[0][1] + 1] == ",":
        return {names[0]: "last", names[1]: "first"}
    return {names[0]: "first", names[-1]: "last"}


def register(state: dict, mention: str, title: str | None = None) -> None:
    """Learn roles and genders from one mention of the document: a multi-part name gives its parts' roles, a
    title alone before one part makes it a surname ("Dr. Tanaka"). ``title``: one just before the mention."""
    roles = state.setdefault("roles", {})
    words = split_mention(mention)
    names = [(s, e) for s, e, kind in words if kind == "name"]
    title = next((mention[s:e] for s, e, kind in words if kind == "title"), title)
    positional = _positional_roles(mention, names)
    for (s, e), role in positional.items():
        if role == "last":
            roles[mention[s:e].casefold()] = "last"
        else:
            roles.setdefault(mention[s:e].casefold(), "first")
    if len(names) == 1 and title:
        roles.setdefault(mention[names[0][0] : names[0][1]].casefold(), "last")
    gender = _title_gender(title)
    for (s, e), role in positional.items():
        if role == "first" and gender:
            state.setdefault("genders", {}).setdefault(mention[s:e].casefold(), gender)


def _role(state: dict, part: str, position: str | None) -> str:
    """A part's role: the English lists' where they give it one (the same in every document), else its place
    in the mention ("Kenji Tanaka", "TANAKA, Kenji"), else the document's other mentions, else the other
    lists (the likelier role by en_US's frequencies for a name listed as both), else a surname."""
    given, surname, _, locale = name_facts(part)
    if given != surname and locale in SHARED_LOCALES:
        return "first" if given else "last"
    known = position or state.get("roles", {}).get(part.casefold())
    if known:
        return known
    if given and surname:  # "James", "Lee" alone: the role en_US's frequencies make likelier
        female, male, last = locale_lists("en_US")
        name = part.capitalize()
        return "first" if max(female.get(name, 0), male.get(name, 0)) > last.get(name, 0) else "last"
    return "first" if given else "last"


@functools.cache
def _pool(locale: str, role: str, gender: str, initial: str) -> tuple[list[str], list[float]]:
    """The names a surrogate is drawn from: no word in lower case (Faker's de_DE lists hold "Dussen van",
    "van der Dussen" and "auch Schlauchin": a particle would tell the culture, and a pseudonym drops it)."""
    female, male, last = locale_lists(locale)
    source = last if role == "last" else female if gender == "female" else male
    capitalised = [n for n in source if not any(w[:1].islower() for w in n.split())] or list(source)
    names = [n for n in capitalised if not initial or n.startswith(initial)] or capitalised
    return names, [float(source[n]) for n in names]


#: what separates the words of a compound name ("João Guilherme", "Anne-Marie")
_NAME_PARTS = re.compile(r"[\s-]+")


def draw_name(
    rng: random.Random,
    role: str,
    gender: str | None,
    avoid: set[str],
    initial: str = "",
    locale: str = "en_US",
) -> str:
    """A given name (of ``gender``, starting with ``initial`` where the lists have one) or a surname from the
    locale's Faker lists, neither one of ``avoid`` (case-folded) nor holding one as a word where possible
    (pt_BR's "João Guilherme" for a "Guilherme")."""
    if role == "first" and gender is None:
        gender = rng.choice(("female", "male"))
    names, weights = _pool(locale, role, gender or "", initial if role == "first" else "")
    for _ in range(50):
        value = rng.choices(names, weights)[0]
        folded = value.casefold()
        if folded not in avoid and avoid.isdisjoint(_NAME_PARTS.split(folded)):
            return value
    return value


def _cased(original: str, surrogate: str) -> str:
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    if original.islower():
        return surrogate.lower()
    return surrogate


@functools.cache
def initial_letters(locale: str) -> tuple[str, ...]:
    """Letters that start given names of both genders in the locale's lists: those that start at least
    `NAMES_PER_INITIAL` of each (a letter with few, "O" of en_US's "Olivia", would give every given name it
    stands for one surrogate), or, in shorter lists, the `MIN_INITIALS` letters that start the most."""
    female, male, _ = locale_lists(locale)
    starts = [Counter(n[0] for n in names if n[:1].isupper()) for names in (female, male)]
    both = {c: min(starts[0][c], starts[1][c]) for c in starts[0] if starts[1][c]}
    ranked = sorted(both, key=lambda c: (-both[c], c))
    letters = [c for c in ranked if both[c] >= NAMES_PER_INITIAL]
    if len(letters) < MIN_INITIALS:
        letters = ranked[:MIN_INITIALS]
    return tuple(sorted(letters)) or tuple(INITIALS)


def initial_surrogate(state: dict, letter: str, rng: random.Random, locale: str) -> str:
    """The image of an initial: one letter per letter within the table (and, keyed, the group), drawn from
    the letters of the locale it is first met in, so that "I." of "Mr I. Velkovski" and the given name of
    "Ilija Velkovski" (drawn from another locale's lists) start alike."""
    initials = state.setdefault("initials", {})
    if letter not in initials:
        source = keyed_rng(state, "initial", letter, locale) or rng
        letters = [c for c in initial_letters(locale) if c != letter] or [c for c in INITIALS if c != letter]
        initials[letter] = source.choice(letters)
    return initials[letter]


def pseudonym(
    mention: str, state: dict, rng: random.Random, locale: str = "en_US", title: str | None = None
) -> str:
    """The consistent surrogate of one person mention (see module docstring); ``title``: one just before
    the mention ("Mr." outside the span "Kenji Tanaka")."""
    parts = state.setdefault("parts", {})
    words = split_mention(mention)
    title = next((mention[s:e] for s, e, kind in words if kind == "title"), title)
    names = [(s, e) for s, e, kind in words if kind == "name"]
    positional = _positional_roles(mention, names)
    avoid = {mention[s:e].casefold() for s, e, _ in words} | state.get("name_words", set())
    # the culture of the mention: a part another locale's lists know ("Tanaka") lends it to unlisted parts;
    # not in a group, where a part's surrogate must not depend on the words written beside it in one note
    # ("Tomasz Wojcik", "Mr. Wojcik"): there unlisted parts draw from the pipeline's locale
    cultures = [name_facts(mention[s:e])[3] for s, e in names]
    lent = next((c for c in cultures if c is not None and c not in SHARED_LOCALES), locale)
    culture = locale if "group_seed" in state else lent
    out, cursor = [], 0
    for start, end, kind in words:
        original = mention[start:end]
        if kind == "title":
            value = original
        elif kind == "particle":  # "van der Berg" -> one surname: the particles would tell the culture
            out.append(mention[cursor:start])
            cursor = end + len(mention[end:]) - len(mention[end:].lstrip())
            continue
        elif kind == "initial":
            value = initial_surrogate(state, original[0].upper(), rng, culture) + original[1:]
            value = value if original[0].isupper() else value.lower()
        else:
            key = original.casefold()
            if key not in parts:
                role = _role(state, original, positional.get((start, end)))
                if "group_seed" in state and not any(name_facts(original)[:2]):
                    # a word no list knows has no role of its own; in a group it is drawn as a surname
                    # wherever it stands, so "Aiko" alone and "Aiko Tanaka" give it one surrogate
                    role = "last"
                gender = None
                if role == "first":
                    gender = (
                        _title_gender(title) or state.get("genders", {}).get(key) or name_facts(original)[2]
                    )
                listed = name_facts(original)[3]
                draw_locale = listed if listed not in (None, *SHARED_LOCALES) else culture
                draw_locale = locale if listed == "en_US" else draw_locale
                source = keyed_rng(state, "name", key) or rng
                initial = (
                    initial_surrogate(state, original[0].upper(), rng, draw_locale) if role == "first" else ""
                )
                taken = avoid | set(parts)
                if "group_seed" not in state:  # one surrogate per original within a document, and none
                    # that another surrogate of it holds ("Hill" beside a company "Hill-Rocha")
                    taken |= {v.casefold() for v in parts.values()} | state.get("surrogate_words", set())
                parts[key] = draw_name(source, role, gender, taken, initial, draw_locale)
            value = _cased(original, parts[key])
        out += [mention[cursor:start], value]
        cursor = end
    out.append(mention[cursor:])
    return "".join(out)
