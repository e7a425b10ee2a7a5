import random
import re
from datetime import datetime

import pytest

from deid_hf.replace import get_strategy
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.spans import Span


@pytest.fixture(scope="module")
def full():
    return get_strategy("full_entity")


def test_surrogates_keep_the_format_of_the_original(full):
    rng = random.Random(0)
    assert len(full.surrogate("Maria Del Gonzalez", "PERSON", rng).split()) == 3
    phone = full.surrogate("(217) 555-0143", "PHONE", rng)
    assert re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", phone) and phone != "(217) 555-0143"
    datetime.strptime(full.surrogate("March 3, 2024", "DATE_TIME", rng), "%B %d, %Y")


def test_untyped_spans_get_a_surrogate_of_the_same_kind(full):
    rng = random.Random(1)
    for honorific in ("Dr.", "Mrs.", "Mr"):
        out = full.surrogate(honorific, "OTHER", rng)
        assert re.fullmatch(r"(Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?", out) and out.endswith(
            "."
        ) == honorific.endswith(".")
    proper = full.surrogate("Qaqortoq Nuuk", "OTHER", rng)
    assert len(proper.split()) == 2 and all(w[0].isupper() for w in proper.split())
    assert full.surrogate("OULU", "OTHER", rng).isupper()
    assert full.surrogate("zorbing", "OTHER", rng).islower()


def test_a_facility_gets_a_facility_surrogate(full):
    rng = random.Random(2)
    for original, ending in (("GH", "H"), ("GBMC", "MC"), ("JHH", "H"), ("UMMS", "")):
        out = full.surrogate(original, "LOCATION", rng)
        assert len(out) == len(original) and out.isupper() and out.isalpha() and out != original
        assert out.endswith(ending)
    assert not full.surrogate("Baltimore", "LOCATION", rng).isupper()  # a name gets a Faker city
    for original, head in (("St. Jude Medical Center", " Medical Center"), ("Harbor Hospital", " Hospital")):
        for label in ("ORG", "LOCATION"):
            out = full.surrogate(original, label, rng)
            assert out.endswith(head) and out[: -len(head)] not in original


def test_the_kind_alone_names_no_one(full):
    for original in ("The Court", "the Tribunal", "Police"):
        assert full.surrogate(original, "ORG", random.Random(0)) == original
    # a kind's words that are a name ("National Bank", "State Prison") are replaced
    for original, kind in (("National Bank", " Bank"), ("State Prison", " Prison")):
        out = full.surrogate(original, "ORG", random.Random(0))
        assert out.endswith(kind) and original.split()[0] not in out


@pytest.mark.parametrize(
    ("original", "kind"),
    [
        ("Tbilisi City Court", "City Court"),
        ("Ankara State Security Court", "State Security Court"),
        ("Ege University", "University"),
        ("Izmir Court of Appeal", "Court of Appeal"),
        ("The Izmir Regional Administrative Court", "Regional Administrative Court"),
        ("Kartal Prison", "Prison"),
        ("Baltimore County Police Department", "County Police Department"),
    ],
)
def test_an_institution_keeps_its_kind_and_loses_its_place(full, original, kind):
    for label in ("ORG", "LOCATION"):
        out = full.surrogate(original, label, random.Random(3))
        place = original.removeprefix("The ").removesuffix(kind).split()
        assert out.endswith(f" {kind}") and out.startswith("The ") == original.startswith("The ")
        assert not set(place) & set(out.split())


@pytest.mark.parametrize(
    ("original", "kind"),
    [
        ("University of Bucharest", "University of"),
        ("the Bank of Ireland", "Bank of"),
        ("Regional Court of Ostrava", "Regional Court of"),
    ],
)
def test_an_institution_of_a_place_keeps_its_kind(full, original, kind):
    for label in ("ORG", "LOCATION"):
        out = full.surrogate(original, label, random.Random(3))
        assert out.removeprefix("the ").startswith(f"{kind} ")
        assert out.startswith("the ") == original.startswith("the ")
        assert original.split()[-1] not in out


@pytest.mark.parametrize(
    ("original", "initials"),
    [
        ("GH", True),
        ("MGH", True),
        ("BIDMC", True),
        ("USA", True),  # three letters or fewer: initials, whatever they spell
        ("UCLA", True),  # an acronym, however often it is written
        ("NASA", True),
        ("PERU", False),  # a country
        ("PARIS", False),  # a place in an ALL-CAPS note
        ("OHIO", False),
        ("TEXAS", False),  # a US state
        ("Paris", False),
        ("BOSTON", False),  # longer than initials are written
    ],
)
def test_initials_are_told_from_a_name_in_capitals(original, initials):
    from deid_hf.replace.full_entity import is_initialism

    assert is_initialism(original) is initials


def test_a_place_in_capitals_gets_a_place_not_initials(full):
    """In an ALL-CAPS note "PARIS" is a city written in capitals: it gets a city, in capitals, where it
    became five random capitals; "MGH" stays initials."""
    from deid_hf.spans import Span

    text = "PT TRANSFERRED TO MGH FROM PARIS."
    spans = [Span(text.index(s), text.index(s) + len(s), "LOCATION", 1.0, "test") for s in ("MGH", "PARIS")]
    for seed in range(20):
        _, records = apply_strategy(text, spans, full, 1.0, random.Random(seed), SubstitutionTable())
        initials, city = (r.replacement for r in records)
        assert re.fullmatch(r"[A-Z]{2}H", initials) and initials != "MGH"
        assert city.isupper() and (len(city) > 5 or " " in city), city


def test_an_initial_starts_as_the_given_name_it_stands_for(full):
    """ "Ilija" is drawn from another locale's lists than the mention's own culture: its initial, "I.", must
    still become the surrogate given name's first letter."""
    from deid_hf.spans import Span

    text = "Mr Ilija Velkovski was born in Skopje. Mr I. Velkovski was detained."
    spans = [
        Span(text.index(s), text.index(s) + len(s), "PERSON", 1.0, "test")
        for s in ("Ilija Velkovski", "I. Velkovski")
    ]
    for seed in range(10):
        _, records = apply_strategy(text, spans, full, 1.0, random.Random(seed), SubstitutionTable())
        whole, short = (r.replacement for r in records)
        assert short == f"{whole[0]}. {whole.split()[-1]}", (whole, short)


def test_a_persons_short_name_becomes_the_initials_of_the_surrogate(full):
    from deid_hf.spans import Span

    text = "Teodora Vasileva (TV): I sewed. TV: yes."
    spans = [
        Span(0, 16, "PERSON", 1.0, "t"),
        Span(18, 20, "PERSON", 1.0, "t"),
        Span(32, 34, "PERSON", 1.0, "t"),
    ]
    for seed in range(10):
        _, records = apply_strategy(text, spans, full, 1.0, random.Random(seed), SubstitutionTable())
        whole, short, again = (r.replacement for r in records)
        assert short == again == "".join(w[0] for w in whole.split()).upper() != "TV", (whole, short)


def test_surrogates_never_carry_a_name_of_the_document(full):
    """Faker builds places, companies, streets and e-mails from surnames ("Gonzalezhaven" once replaced
    "Paris" in a note about Maria Gonzalez); such a draw is redrawn."""
    from deid_hf.spans import Span

    text = "Ann Smith lives in Paris at 12 Elm Street, works at Acme Corp; mail ann@acme.org."
    labels = {"Ann Smith": "PERSON", "Paris": "LOCATION", "12 Elm Street": "ADDRESS", "Acme Corp": "ORG"}
    labels["ann@acme.org"] = "EMAIL"
    spans = [Span(text.index(s), text.index(s) + len(s), label, 1.0, "test") for s, label in labels.items()]
    carried = 0
    for seed in range(300):
        out, records = apply_strategy(text, spans, full, 1.0, random.Random(seed), SubstitutionTable())
        assert all(r.replaced for r in records)
        surrogates = " ".join(r.replacement for r in records if r.label != "PERSON").casefold()
        carried += "smith" in surrogates or "ann" in surrogates
    assert carried == 0


def test_no_person_surrogate_is_a_word_of_another_surrogate(full):
    """A company drawn from surnames ("Hill-Rocha") and a person's surrogate ("Ms Hill") would read as one
    family: whichever is drawn first, the other avoids its words."""
    from deid_hf.spans import Span

    text = "Tom Ng works at Acme Corp and Baker Ltd; Ms Okafor and Mr Diaz of Zeta Inc called."
    labels = {"Tom Ng": "PERSON", "Acme Corp": "ORG", "Baker Ltd": "ORG", "Ms Okafor": "PERSON"}
    labels |= {"Mr Diaz": "PERSON", "Zeta Inc": "ORG"}
    spans = [Span(text.index(s), text.index(s) + len(s), label, 1.0, "test") for s, label in labels.items()]
    shared = 0
    for seed in range(300):
        _, records = apply_strategy(text, spans, full, 1.0, random.Random(seed), SubstitutionTable())
        people = {w.casefold() for r in records if r.label == "PERSON" for w in r.replacement.split()[-1:]}
        others = " ".join(r.replacement for r in records if r.label == "ORG").casefold()
        shared += any(re.search(rf"\b{re.escape(p)}\b", others) for p in people)
    assert shared == 0


def test_every_date_the_hipaa_policy_keeps_is_replaced(full):
    """Partial dates (a month, a year, month/year, an impossible day) were detected under hipaa and then
    left in the text because no calendar date could be read from them; a time of day stays as it is."""
    from deid_hf.detect.policy import find_dates

    text = (
        "PMH: AMI 7/81, CAD 8/84; ON 2/31/14 PT; CVA 74'. MI in '81, resection 1977; cx from 10/15-10/16; "
        "in march of 2022 and in 2022; home in sept. Seen at 2000."
    )
    spans = find_dates(text)
    found = {text[s.start : s.end] for s in spans}
    assert {"7/81", "8/84", "2/31/14", "74'", "'81", "1977", "march of 2022", "2022", "sept."} <= found
    assert "2000" not in found
    out, records = apply_strategy(text, spans, full, 1.0, random.Random(0), SubstitutionTable())
    assert all(r.replaced for r in records), [r.label for r in records if not r.replaced]
    assert out.endswith("Seen at 2000.") and out.count("2022") <= 2  # a redraw may repeat a year by chance
    loose = get_strategy("full_entity", consistent=False)  # the same dates without a substitution table
    assert loose.replace("moved in 2022", 9, 13, "DATE_TIME", random.Random(0), None).isdigit()
    # four digits the date writer cannot read (a year or a clock) are kept, as written
    assert loose.replace("seen at 1930", 8, 12, "DATE_TIME", random.Random(0), None) is None


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("He spent 118 days in detention.", "He spent  days in detention."),
        ("It lasted 3 hours 12 minutes.", "It lasted  hours  minutes."),
        ("Held for 1 day.", "Held for  days."),  # another number, a plural unit
        ("On the 2nd day.", "On the  day."),  # an ordinal keeps a suffix of its own
    ],
)
def test_a_length_of_time_gets_other_numbers(text, kept):
    full = get_strategy("full_entity", consistent=False)
    start = next(i for i, ch in enumerate(text) if ch.isdigit())
    end = re.search(r"(?:days?|minutes|day)(?=[ .])", text[start:]).end() + start
    for seed in range(5):
        out = full.replace(text, start, end, "DATE_TIME", random.Random(seed), None)
        whole = text[:start] + out + text[end:]
        numbers = re.findall(r"\d+", out)
        assert re.sub(r"\d+(?:st|nd|rd|th)?", "", whole) == kept, whole
        assert len(numbers) == len(re.findall(r"\d+", text[start:end]))
        assert all(n != o and int(n) >= 2 for n, o in zip(numbers, re.findall(r"\d+", text[start:end])))
        ordinal = re.search(r"(\d+)(st|nd|rd|th)", whole)
        if ordinal:
            n = int(ordinal.group(1))
            assert ordinal.group(2) == (
                "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
            )


@pytest.mark.parametrize(
    ("piece", "value"),
    [
        ("eleven days", 11),
        ("four years", 4),
        ("Twenty-one months", 21),
        ("forty two weeks", 42),
        ("a hundred days", 100),
        ("one hundred and twenty days", 120),
        ("a dozen years", 12),
        ("two thousand days", 2000),
        ("four years'", 4),  # "four years' imprisonment"
    ],
)
def test_a_length_of_time_in_words_gets_another_number(piece, value):
    """A length of time written in words that a policy masks (gdpr) is not kept: its number is redrawn, in
    digits, with as many digits."""
    full = get_strategy("full_entity", consistent=False)
    text = f"held for {piece} in custody"
    for seed in range(5):
        out = full.replace(text, 9, 9 + len(piece), "DATE_TIME", random.Random(seed), None)
        number, unit = out.split(" ", 1)
        number = number.replace(",", "")
        assert number.isdigit() and int(number) != value and len(number) == len(str(value))
        assert unit == piece.split()[-1]


def test_a_range_of_time_keeps_its_order_and_a_table_its_surrogate():
    full = get_strategy("full_entity")
    for seed in range(20):
        low, high = map(
            int,
            re.findall(r"\d+", full.replace("for 3-4 hours", 4, 13, "DATE_TIME", random.Random(seed), None)),
        )
        assert low < high and (low, high) != (3, 4)
    table = SubstitutionTable()
    text = "held 118 days, then 118 days more"
    first = full.replace(text, 5, 13, "DATE_TIME", random.Random(0), table)
    assert full.replace(text, 20, 28, "DATE_TIME", random.Random(1), table) == first != "118 days"


def test_a_name_read_with_and_without_its_article_gets_one_surrogate():
    text = "The Johns Hopkins Hospital admitted him. He left the Johns Hopkins Hospital."
    spans = [Span(0, 26, "ORG", 0.9, "t"), Span(text.rindex("Johns"), len(text) - 1, "ORG", 0.9, "t")]
    out, _ = apply_strategy(
        text, spans, get_strategy("full_entity"), 1.0, random.Random(0), SubstitutionTable()
    )
    first = re.match(r"The (\w+) Hospital admitted", out)
    assert first and out.endswith(f"left the {first.group(1)} Hospital."), out


@pytest.mark.parametrize("time", ["9:40", "21:15", "9:40pm", "10.30am", "24:00"])
def test_a_time_of_day_a_policy_masks_gets_another_valid_time(time):
    full = get_strategy("full_entity", consistent=False)
    text = f"seen at {time} today"
    for seed in range(10):
        out = full.replace(text, 8, 8 + len(time), "DATE_TIME", random.Random(seed), None)
        clock = re.fullmatch(r"(\d{1,2})[:.](\d{2})([ap]m)?", out)
        assert clock and out != time, out
        assert int(clock.group(1)) <= (12 if clock.group(3) else 23) and int(clock.group(2)) < 60
    # a decimal, a year, a month, other words: not a clock, kept or counted
    assert full.replace("SpO2 96%", 0, 4, "DATE_TIME", random.Random(0), None) is None
    assert full.replace("for 1.25 hours", 4, 14, "DATE_TIME", random.Random(0), None).endswith(" hours")
    assert full.replace("in Spring 2019", 3, 14, "DATE_TIME", random.Random(0), None) is None


@pytest.mark.parametrize(
    ("original", "low", "high"),
    [
        ("aged 7", 1, 17),
        ("34", 18, 64),
        ("aged 71", 65, 110),
        ("94 years old", 65, 110),
        ("a 3-day-old", 1, 11),
        ("aged 0", 1, 17),
        ("aged 112", 65, 110),
        # in words: read as a number first ("nine" is a child's age, not an adult's)
        ("at the age of nine", 1, 17),
        ("aged sixty-three", 18, 64),
        ("a seventy year old", 65, 110),
    ],
)
def test_an_age_is_redrawn_within_its_stage_of_life(full, original, low, high):
    for seed in range(20):
        age = int(re.search(r"\d+", full.surrogate(original, "AGE", random.Random(seed))).group())
        assert low <= age <= high and str(age) not in original


@pytest.mark.parametrize(
    ("original", "decades"),
    [
        ("forties", {"20s", "30s", "50s"}),
        ("early 30s", {"early 20s", "early 40s", "early 50s"}),
        ("70's", {"60s", "80s"}),
        ("late teens", {"late teens"}),  # no other decade of a child
    ],
)
def test_an_age_decade_is_redrawn_within_its_stage_of_life(full, original, decades):
    assert {full.surrogate(original, "AGE", random.Random(seed)) for seed in range(20)} == decades


def test_a_phone_number_said_in_words_gets_other_digit_words(full):
    original = "oh seven seven oh oh nine double oh four one seven"
    for seed in range(10):
        out = full.surrogate(original, "PHONE", random.Random(seed))
        assert out != original and len(out.split()) == len(original.split()) and "double" in out
    assert full.surrogate("Seven Seven Zero", "PHONE", random.Random(0)).istitle()


def test_an_identifier_read_as_a_date_is_replaced():
    full = get_strategy("full_entity", consistent=False)
    text = "NI: JG 10 37 59 A, lives"
    out = full.replace(text, 4, 17, "DATE_TIME", random.Random(0), None)
    assert out and len(out) == 13 and not set(re.findall(r"\d\d", out)) & {"10", "37", "59"}


def test_an_identifier_read_as_a_date_gets_one_surrogate_and_keeps_its_words():
    full = get_strategy("full_entity")
    table = SubstitutionTable()
    text = "on 12 03 19 and on 12 03 19; worked 10 11 12 hour shifts"
    first = full.replace(text, 3, 11, "DATE_TIME", random.Random(0), table)
    assert full.replace(text, 19, 27, "DATE_TIME", random.Random(1), table) == first != "12 03 19"
    shifts = full.replace(text, 36, 49, "DATE_TIME", random.Random(0), table)
    assert shifts.endswith(" hour") and shifts != "10 11 12 hour", shifts


def test_two_kind_words_are_a_name():
    out = get_strategy("full_entity").surrogate("University College", "ORG", random.Random(0))
    assert out.endswith(" University College") and out != "University College"
