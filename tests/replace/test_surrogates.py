"""Keyed pseudonyms across a group's documents, natural surrogates, dates shifted by default (issue 34)."""

import random
import re
from datetime import date, datetime

import pytest

from deid_hf.errors import InputError
from deid_hf.replace import get_strategy, offered_strategies, unavailable
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.replace.names import name_lists
from deid_hf.replace.per_label import with_operators
from deid_hf.spans import Span


def spans_of(text: str, label: str, *mentions: str) -> list[Span]:
    """A span of ``label`` at each occurrence of each mention (as a detector would give them)."""
    found = []
    for mention in mentions:
        found += [Span(m.start(), m.end(), label) for m in re.finditer(re.escape(mention), text)]
    return sorted(found, key=lambda s: s.start)


def replace_in(
    text: str, spans: list[Span], group: str | None, rng_seed: int, strategy=None
) -> tuple[str, dict]:
    """The output and original -> replacement of one document, in a group's table (or its own)."""
    table = SubstitutionTable()
    if group is not None:
        table.state["group_seed"] = f"group-{group}"
    strategy = strategy or get_strategy("full_entity")
    out, records = apply_strategy(text, spans, strategy, 1.0, random.Random(rng_seed), table)
    return out, {text[r.start : r.end]: r.replacement for r in records}


# one patient's notes: every way a note names the same two people (a given name the lists know, a surname
# they do not)
NOTES = [
    ("Mr. James Okafor seen today; his wife Yuki Okafor at bedside.", ["James Okafor", "Yuki Okafor"]),
    ("OKAFOR, James. Dr. Okafor's son visited.", ["OKAFOR, James", "Okafor's"]),
    ("James slept well. J. Okafor afebrile.", ["James", "J. Okafor"]),
    ("Spoke with Yuki about JAMES OKAFOR.", ["Yuki", "JAMES OKAFOR"]),
]


def _parts(mapping: dict) -> dict[str, set[str]]:
    """Original name word (case-folded) -> the surrogate words it got, read by position."""
    seen: dict[str, set[str]] = {}
    for original, new in mapping.items():
        old_words = re.findall(r"[^\W\d_]+", re.sub(r"['’]s\b", "", original))
        new_words = re.findall(r"[^\W\d_]+", re.sub(r"['’]s\b", "", new))
        assert len(old_words) == len(new_words), (original, new)
        for old, word in zip(old_words, new_words):
            if old.casefold() not in {"mr", "dr"}:
                seen.setdefault(old.casefold() if len(old) > 1 else old, set()).add(word.casefold())
    return seen


@pytest.mark.parametrize("place", ["Lakeview General Hospital", "MGH"])
def test_a_facility_read_as_an_organisation_in_one_note_and_a_place_in_another_keeps_its_surrogate(place):
    first, second = f"Admitted to {place} today.", f"Discharged from {place}."
    _, as_org = replace_in(first, spans_of(first, "ORG", place), "p1", 0)
    _, as_place = replace_in(second, spans_of(second, "LOCATION", place), "p1", 1)
    assert as_org[place] == as_place[place] != place
    both = f"{first} {second}"  # one document: the first reading's surrogate
    starts = [m.start() for m in re.finditer(re.escape(place), both)]
    spans = [
        Span(starts[0], starts[0] + len(place), "ORG"),
        Span(starts[1], starts[1] + len(place), "LOCATION"),
    ]
    out, _ = replace_in(both, spans, None, 0)
    assert re.fullmatch(r"Admitted to (.+) today\. Discharged from \1\.", out) and place not in out


def test_a_group_gives_each_person_one_surrogate_in_every_document_and_order():
    mappings = [
        replace_in(text, spans_of(text, "PERSON", *m), "p1", n)[1] for n, (text, m) in enumerate(NOTES)
    ]
    merged: dict[str, str] = {}
    for mapping in mappings:
        merged.update({f"{len(merged)}:{k}": v for k, v in mapping.items()})
    seen = _parts(merged)
    assert all(len(words) == 1 for words in seen.values()), seen
    assert seen["james"] != seen["okafor"] and seen["yuki"] != seen["james"]
    assert next(iter(seen["J"]))[0] == next(iter(seen["james"]))[0]  # "J." -> the given name's initial
    # another process, another order, other document streams: the same surrogates
    again = [
        replace_in(text, spans_of(text, "PERSON", *m), "p1", 99 - n)[1]
        for n, (text, m) in reversed(list(enumerate(NOTES)))
    ]
    assert again[::-1] == mappings
    # another group: other surrogates
    other = replace_in(NOTES[0][0], spans_of(NOTES[0][0], "PERSON", *NOTES[0][1]), "p2", 0)[1]
    assert other != mappings[0]


def test_a_group_gives_a_part_one_surrogate_whatever_is_written_beside_it():
    """A surname written beside a given name of another culture, alone with a title, or surname first; a
    given name no list knows, beside the surname and alone: one surrogate each in every note."""
    notes = [
        ("Tomasz Wojcik seen today.", "Tomasz Wojcik"),
        ("WOJCIK, TOMASZ called.", "WOJCIK, TOMASZ"),
        ("Mr. Wojcik called back.", "Wojcik"),
        ("Aiko Tanaka seen.", "Aiko Tanaka"),
        ("Aiko called.", "Aiko"),
    ]
    merged: dict[str, str] = {}
    for n, (text, mention) in enumerate(notes):
        for original, new in replace_in(text, spans_of(text, "PERSON", mention), "p7", n)[1].items():
            merged[f"{n}:{original}"] = new
    seen = _parts(merged)
    assert all(len(words) == 1 for words in seen.values()), seen


def test_without_a_group_each_document_draws_its_own():
    text, mentions = NOTES[0]
    drawn = {
        replace_in(text, spans_of(text, "PERSON", *mentions), None, seed)[1]["James Okafor"]
        for seed in range(5)
    }
    assert len(drawn) > 1


def test_given_names_stay_given_names_surnames_surnames_and_titles_keep_gender():
    female, male, last = name_lists()
    text = "Mrs. Maria Gonzalez and Mr. James Smith; GONZALEZ, MARIA called. Dr. Lee and his wife Yuki."
    out, mapping = replace_in(
        text,
        spans_of(text, "PERSON", "Maria Gonzalez", "James Smith", "GONZALEZ, MARIA", "Lee", "Yuki"),
        None,
        3,
    )
    maria, gonzalez = mapping["Maria Gonzalez"].split()
    james, smith = mapping["James Smith"].split()
    assert maria in female and james in male and gonzalez in last and smith in last
    assert mapping["GONZALEZ, MARIA"] == f"{gonzalez.upper()}, {maria.upper()}"
    assert mapping["Lee"] in last  # "Dr. Lee": a surname
    assert mapping["Yuki"] not in last  # an unlisted name alone, without a title: a given name
    assert out.startswith("Mrs. ") and "Mr. " in out


@pytest.mark.parametrize(
    ("original", "shape"),
    [
        ("123 Main St, Springfield, IL 62704", r"\d+ [^,]+, [^,\d]+, [A-Z]{2} \d{5}"),
        ("4 Elm Road, Apt 5, Boston, MA 02115-1234", r"\d+ [^,]+, [^,]+, [^,\d]+, [A-Z]{2} \d{5}-\d{4}"),
        ("500 W 5th St\nAustin, Texas 78701", r"\d+ [^\n]+\n[^,\d]+, [A-Z][a-z]+(?: [A-Z][a-z]+)? \d{5}"),
        ("77 Oak Avenue", r"\d+ [A-Za-z ]+"),
        # a postcode before its city, after a street line, stays a postcode and a city, not a second street
        (
            "Hauptstrasse 7, 10115 Berlin",
            r"[A-Z][A-Za-z' -]+ \d, \d{5} (?![^,]*(?:Street|Avenue|Road)$)[^,\d]+",
        ),
        (
            "Storgata 3B, 0155 Oslo",
            r"[A-Z][A-Za-z' -]+ \d[A-Z], \d{4} (?![^,]*(?:Street|Avenue|Road)$)[^,\d]+",
        ),
        (
            "Rua do Arenque 25, 4000-100 Porto",
            r"[A-Z][A-Za-z' -]+ \d\d, \d{4}-\d{3} (?![^,]*(?:Street|Avenue|Road)$)[^,\d]+",
        ),
        (
            "Marszalkowska 10, 00-950 Warszawa",
            r"[A-Z][A-Za-z' -]+ \d\d, \d\d-\d{3} (?![^,]*(?:Street|Avenue|Road)$)[^,\d]+",
        ),
        (
            "Damrak 1, 1011 AB Amsterdam",
            r"[A-Z][A-Za-z' -]+ \d, \d{4} [A-Z]{2} (?![^,]*(?:Street|Avenue|Road)$)[^,\d]+",
        ),
        # a street line after a secondary unit stays a street line; "Flat" is a unit, "Flatbush" a street
        ("Flat 4, 19 Rue de Rivoli", r"(?:Apt\.|Suite) \d+, \d\d [A-Z][A-Za-z' -]+ (?:Street|Avenue|Road)"),
        ("Apt 4, 2000 Broadway", r"(?:Apt\.|Suite) \d+, \d{4} [A-Z][A-Za-z' -]+ (?:Street|Avenue|Road)"),
        ("10 Flatbush Avenue", r"\d\d [A-Z][A-Za-z'-]+ Avenue"),
        # a US street line after another piece is no postcode and city, whatever its quadrant or kind
        ("PO Box 12, 1234 NE Broadway", r"PO Box \d\d, \d{4} [A-Z][A-Za-z' -]+ (?:Street|Avenue|Road)"),
        (
            "100 Main St, 1234 ST Marys",
            r"\d{3} [A-Z][A-Za-z' -]+ St, \d{4} [A-Z][A-Za-z' -]+ (?:Street|Avenue|Road)",
        ),
        (
            "PO Box 5, 45-123 Kamehameha Hwy",
            r"PO Box \d, \d\d-\d{3} [A-Z][A-Za-z' -]+ (?:Street|Avenue|Road)",
        ),
    ],
)
def test_an_address_keeps_its_street_city_state_and_zip(original, shape):
    text = f"Lives at {original}."
    out, mapping = replace_in(text, spans_of(text, "ADDRESS", original), None, 1)
    assert re.fullmatch(shape, mapping[original]), mapping[original]
    assert mapping[original] != original


@pytest.mark.parametrize(
    ("original", "shape"),
    [
        ("10 Downing Street", r"[1-9]\d [A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* Street"),
        ("7 Elm Ave.", r"[1-9] [A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* Ave\."),
        ("250 Rue Royale", r"[1-9]\d\d [A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road)"),
        # the house number after the street, as much of Europe writes it, stays after it
        ("Koskikatu 25", r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road) [1-9]\d"),
        ("Via Franscini 071", r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road) \d{3}"),
        # a staircase letter and a flat number after the house number stay after it
        (
            "Koskikatu 25 A 3",
            r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road) [1-9]\d [A-Z] [1-9]",
        ),
        # a house number alone (a detector split it from its street) stays a number
        ("3520", r"[1-9]\d{3}"),
        # a letter after the house number stays one
        ("12B Elm Street", r"[1-9]\d[A-Z] [A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* Street"),
        ("Storgata 3b", r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road) [1-9][a-z]"),
        # a range stays a range; a numbered place keeps its kind
        ("Rua Augusta 25-27", r"[A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* (?:Street|Avenue|Road) \d\d-\d\d"),
        ("PO Box 12", r"PO Box \d\d"),
        ("Route 66", r"Route \d\d"),
        # a compass point after the street stays
        ("Route 66 W", r"Route \d\d W"),
        ("1600 Pennsylvania Avenue NW", r"[1-9]\d{3} [A-Z][A-Za-z'-]+(?: [A-Z][A-Za-z'-]+)* Avenue NW"),
    ],
)
def test_a_street_reads_as_one_with_a_house_number_of_as_many_digits(original, shape):
    """No leading zero and no rare suffix ("033 David Stream"): a common suffix, the original's if common."""
    for seed in range(20):
        text = f"Lives at {original}."
        out, mapping = replace_in(text, spans_of(text, "ADDRESS", original), None, seed)
        assert re.fullmatch(shape, mapping[original]), mapping[original]


@pytest.mark.parametrize(
    ("state", "shape"), [("OH", r"[A-Z]{2}"), ("Ohio", r"[A-Z][a-z]+(?: [A-Z][a-z]+)*"), ("OHIO", r"[A-Z ]+")]
)
def test_a_us_state_read_as_a_place_becomes_another_state_written_alike(state, shape):
    from faker.providers.address.en_US import Provider

    states = {*Provider.states_abbr, *(n.casefold() for n in Provider.states)}
    full = get_strategy("full_entity")
    for seed in range(20):
        drawn = full.surrogate(state, "LOCATION", random.Random(seed))
        assert re.fullmatch(shape, drawn) and drawn.casefold() != state.casefold()
        assert drawn in states or drawn.casefold() in states


def test_a_company_surrogate_is_never_law_firm_shaped():
    """Faker's "Ward, Reed and Goodman" reads oddly in place of a shop or an employer."""
    text = "Sam from Contoso Travel confirmed it."
    drawn = {
        replace_in(text, spans_of(text, "ORG", "Contoso Travel"), None, seed)[1]["Contoso Travel"]
        for seed in range(40)
    }
    assert len(drawn) > 20
    assert not any("," in name or " and " in name or "&" in name for name in drawn), drawn


FORMATS = {
    "03/02/2024": "%m/%d/%Y",
    "12.05.1961": "%d.%m.%Y",
    "March 9, 2024": "%B %d, %Y",
    "14.03.2024": "%d.%m.%Y",
}


def test_dates_shift_by_one_offset_per_group_in_their_own_format():
    """Dotted dates are European (day first); every date of the group moves by the same number of days."""
    notes = [
        ("Admitted 03/02/2024, born 12.05.1961.", ["03/02/2024", "12.05.1961"]),
        ("Discharged March 9, 2024; seen 14.03.2024.", ["March 9, 2024", "14.03.2024"]),
    ]
    shifts = set()
    for n, (text, found) in enumerate(notes):
        _, mapping = replace_in(text, spans_of(text, "DATE_TIME", *found), "p1", n)
        for original in found:
            new = datetime.strptime(mapping[original], FORMATS[original])  # the original's format
            shifts.add((new - datetime.strptime(original, FORMATS[original])).days)
        assert re.fullmatch(r"\d\d\.\d\d\.\d{4}", mapping[found[1]])  # zero-padded as the original
    assert len(shifts) == 1 and 0 not in shifts


def test_independent_dates_remain_an_option():
    text = "Born 01/02/1958, seen 03/04/2024."
    spans = spans_of(text, "DATE_TIME", "01/02/1958", "03/04/2024")
    shifts = set()
    for seed in range(4):
        _, mapping = replace_in(text, spans, None, seed, get_strategy("full_entity", dates="random"))
        born, seen = (date(*(int(x) for x in (v[-4:], v[:2], v[3:5]))) for v in mapping.values())
        shifts.add((seen - born).days)
    assert len(shifts) > 1  # intervals are not kept
    with pytest.raises(InputError, match="dates must be one of"):
        get_strategy("full_entity", dates="sometimes")


def test_a_dotted_date_labelled_as_a_phone_stays_a_possible_date():
    text = "DOB 12.05.1961."
    _, mapping = replace_in(text, spans_of(text, "PHONE", "12.05.1961"), "p1", 0)
    day, month, year = (int(x) for x in mapping["12.05.1961"].split("."))
    assert date(year, month, day)


def test_mask_masks_the_whole_entity_unless_told_to_keep_some():
    assert get_strategy("mask").surrogate("Ann Lee", "PERSON", None) == "*** ***"
    assert get_strategy("mask", keep_last=4).surrogate("(217) 555-0143", "PHONE", None) == "(***) ***-0143"


def test_operator_flags_make_a_per_label_strategy():
    assert with_operators("typed", ["DATE_TIME=date_shift"]) == {
        "default": "typed",
        "DATE_TIME": "date_shift",
    }
    assert with_operators(None, ["ID=mask:keep_last=4,char=#"]) == {
        "ID": {"type": "mask", "keep_last": 4, "char": "#"}
    }
    assert with_operators({"PERSON": "typed"}, []) == {"PERSON": "typed"}
    for bad, message in [
        ("DATE_TIME", "LABEL=OPERATOR"),
        ("NAME=typed", "unknown label"),
        ("ID=mask:4", "name=value"),
    ]:
        with pytest.raises(InputError, match=message):
            with_operators(None, [bad])


def test_strategies_that_cannot_run_are_not_offered_and_say_why():
    assert "custom" not in offered_strategies() and "Python function" in unavailable("custom")
    assert "hash" in offered_strategies(has_key=True) and "hash" not in offered_strategies(has_key=False)
    assert "secret key" in unavailable("encrypt", has_key=False)


def test_a_drawn_surname_holds_no_particle():
    from deid_hf.replace.names import draw_name, locale_lists

    rng = random.Random(0)
    drawn = {draw_name(rng, "last", None, set(), "", "de_DE") for _ in range(3000)}
    # Faker's de_DE surnames include "Dussen van" and "auch Schlauchin": never drawn
    assert any(" " in name and any(w.islower() for w in name.split()) for name in locale_lists("de_DE")[2])
    assert not [name for name in drawn if any(w[:1].islower() for w in name.split())]
    # names of a script without case are drawn as before
    assert draw_name(random.Random(0), "first", "female", set(), "", "ar_AA")


def test_a_drawn_given_name_holds_no_avoided_name_as_a_word():
    from deid_hf.replace.names import draw_name, locale_lists

    # pt_BR's given names include compounds of a listed name ("João Guilherme" beside "Guilherme")
    males = locale_lists("pt_BR")[1]
    assert "Guilherme" in males and any("Guilherme" in name.split()[1:] for name in males)
    rng = random.Random(0)
    drawn = {draw_name(rng, "first", "male", {"guilherme"}, "", "pt_BR") for _ in range(3000)}
    assert not [name for name in drawn if "guilherme" in name.casefold().replace("-", " ").split()]
    assert any(" " in name for name in drawn)  # compounds are still drawn
