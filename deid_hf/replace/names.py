"""One pseudonym per person: every mention of a name maps to the same surrogate within a table.

A mention is split into a title (kept: "Dr.", "Ms."), name parts and a possessive ("'s", kept). Each name
part is replaced part by part through ``state["parts"]`` (case-folded original -> surrogate), so "Dr. Kenji
Tanaka", "Dr. Tanaka", "Kenji", "TANAKA" and "Tanaka's" share one surrogate. A part's role (first or last
name) comes from the multi-word mentions of the document (`register`), else from Faker's en_US name
lists; a first name keeps its gender where the title or those lists tell it. Case is kept (ALL CAPS stays
ALL CAPS), an initial ("K.") becomes the initial of the first name's surrogate. A surrogate never equals
any part of the original mention.
"""

from __future__ import annotations

import random

from ..detect.mentions import split_mention

FEMALE_TITLES = {"mrs", "ms", "miss", "madam"}
MALE_TITLES = {"mr", "sir", "fr"}


def _name_lists():
    from faker.providers.person.en_US import Provider

    return set(Provider.first_names_female), set(Provider.first_names_male), set(Provider.last_names)


_LISTS: tuple[set, set, set] | None = None


def name_lists() -> tuple[set, set, set]:
    global _LISTS
    if _LISTS is None:
        _LISTS = _name_lists()
    return _LISTS


def _gender(title: str | None, first: str | None) -> str | None:
    if title and title.lower().rstrip(".") in FEMALE_TITLES:
        return "female"
    if title and title.lower().rstrip(".") in MALE_TITLES:
        return "male"
    if first:
        female, male, _ = name_lists()
        name = first.capitalize()
        if name in female and name not in male:
            return "female"
        if name in male and name not in female:
            return "male"
    return None


def register(state: dict, mention: str) -> None:
    """Learn roles from one mention: in a multi-part name the first part is a first name, the last a last
    name; a title alone before one part makes it a last name ("Dr. Tanaka")."""
    roles = state.setdefault("roles", {})
    words = split_mention(mention)
    names = [mention[s:e] for s, e, kind in words if kind == "name"]
    titled = any(kind == "title" for _, _, kind in words)
    if len(names) >= 2:
        roles.setdefault(names[0].casefold(), "first")
        roles[names[-1].casefold()] = "last"
    elif len(names) == 1 and titled:
        roles.setdefault(names[0].casefold(), "last")
    title = next((mention[s:e] for s, e, kind in words if kind == "title"), None)
    if len(names) >= 2 and (gender := _gender(title, names[0])):
        state.setdefault("genders", {}).setdefault(names[0].casefold(), gender)


def _role(state: dict, part: str) -> str:
    known = state.get("roles", {}).get(part.casefold())
    if known:
        return known
    female, male, last = name_lists()
    name = part.capitalize()
    return "first" if (name in female or name in male) and name not in last else "last"


def _fresh(fake, role: str, gender: str | None, avoid: set[str]) -> str:
    for _ in range(50):
        if role == "first":
            value = (
                fake.first_name_female()
                if gender == "female"
                else fake.first_name_male()
                if gender == "male"
                else fake.first_name()
            )
        else:
            value = fake.last_name()
        if value.casefold() not in avoid:
            return value
    return value


def _cased(original: str, surrogate: str) -> str:
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    if original.islower():
        return surrogate.lower()
    return surrogate


def pseudonym(mention: str, state: dict, fake, rng: random.Random) -> str:
    """The consistent surrogate of one person mention (see module docstring)."""
    parts = state.setdefault("parts", {})
    initials = state.setdefault("initials", {})
    words = split_mention(mention)
    avoid = {mention[s:e].casefold() for s, e, _ in words}
    title = next((mention[s:e] for s, e, kind in words if kind == "title"), None)
    names = [(s, e) for s, e, kind in words if kind == "name"]
    out, cursor = [], 0
    for start, end, kind in words:
        original = mention[start:end]
        if kind == "title":
            value = original
        elif kind == "initial":
            letter = original[0].upper()
            if letter not in initials:
                initials[letter] = rng.choice([c for c in "ABCDEFGHIJKLMNOPRSTW" if c != letter])
            value = initials[letter] + original[1:]
            value = value if original[0].isupper() else value.lower()
        else:
            key = original.casefold()
            if key not in parts:
                role = "first" if len(names) >= 2 and (start, end) == names[0] else _role(state, original)
                if len(names) >= 2 and (start, end) == names[-1]:
                    role = "last"
                gender = state.get("genders", {}).get(key) or _gender(
                    title, original if role == "first" else None
                )
                fake.seed_instance(rng.getrandbits(64))
                taken = avoid | set(parts) | {v.casefold() for v in parts.values()}
                parts[key] = _fresh(fake, role, gender, taken)
                if role == "first":
                    initials.setdefault(original[0].upper(), parts[key][0].upper())
            value = _cased(original, parts[key])
        out += [mention[cursor:start], value]
        cursor = end
    out.append(mention[cursor:])
    return "".join(out)
