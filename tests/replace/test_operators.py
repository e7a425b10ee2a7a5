import math
import random
import re
from datetime import date, timedelta

import phonenumbers
import pytest

from deid_hf.errors import InputError
from deid_hf.replace import get_strategy
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.replace.dates import rewrite_dates
from deid_hf.replace.encrypt import decrypt_envelopes
from deid_hf.replace.keys import resolve_key, seal, unseal
from deid_hf.replace.shape import random_like, random_phone_like
from deid_hf.spans import Span

KEY = "a test key of 32 characters...."


def spans_of(text: str, items: list[tuple[str, str]]) -> list[Span]:
    """Spans for (surface, label) pairs: every non-overlapping occurrence, first listed first."""
    out = []
    for surface, label in items:
        for m in re.finditer(re.escape(surface), text):
            if not any(s.start < m.end() and m.start() < s.end for s in out):
                out.append(Span(m.start(), m.end(), label))
    return sorted(out, key=lambda s: s.start)


def run(strategy, text, items, seed=0, table=None, p=1.0):
    out, records = apply_strategy(
        text, spans_of(text, items), strategy, p, random.Random(seed), table or SubstitutionTable()
    )
    return out, {text[r.start : r.end]: r for r in records}


def test_mask_keeps_the_last_characters_and_the_shape():
    mask = get_strategy("mask", keep_last=4)
    assert mask.surrogate("(217) 555-0143", "PHONE", random.Random(0)) == "(***) ***-0143"
    assert get_strategy("mask", keep_last=0, char="#").surrogate("AB-12", "ID", None) == "##-##"
    with pytest.raises(InputError, match="keep_last"):
        get_strategy("mask", keep_last=-1)


def test_mask_masks_a_letter_with_its_combining_marks():
    mask = get_strategy("mask")
    assert mask.surrogate("राहुल शर्मा", "PERSON", None) == "*** ***"  # no vowel sign left in clear
    assert mask.surrogate("Mu\u0308ller", "PERSON", None) == "******"  # a decomposed "ü"


def test_hash_refuses_to_run_without_a_secret(monkeypatch):
    monkeypatch.delenv("DEID_HF_KEY", raising=False)
    with pytest.raises(InputError, match="needs a secret key.*DEID_HF_KEY"):
        get_strategy("hash")
    with pytest.raises(InputError, match="too short"):
        get_strategy("hash", key="short")


def test_hash_is_keyed_and_deterministic(monkeypatch):
    one, same = get_strategy("hash", key=KEY), get_strategy("hash", key=KEY)
    other = get_strategy("hash", key=KEY[::-1])
    h = one.surrogate("Maria Gonzalez", "PERSON", None)
    assert re.fullmatch(r"[0-9a-f]{16}", h) and h == same.surrogate("Maria Gonzalez", "PERSON", None)
    assert h != other.surrogate("Maria Gonzalez", "PERSON", None)
    monkeypatch.setenv("MY_SECRET", KEY)
    assert get_strategy("hash", key_env="MY_SECRET").surrogate("Maria Gonzalez", "PERSON", None) == h


def test_encrypt_is_deterministic_and_reversible():
    enc = get_strategy("encrypt", key=KEY)
    a, b = enc.surrogate("Maria Gonzalez", "PERSON", None), enc.surrogate("Maria Gonzalez", "ORG", None)
    assert a == b and re.fullmatch(r"\[ENC:[A-Za-z0-9_-]+\]", a) and "Maria" not in a
    assert a != enc.surrogate("Maria Gonzales", "PERSON", None)
    text = f"Seen by {a} and {enc.surrogate('Dr. Ōtani', 'PERSON', None)}."
    assert decrypt_envelopes(text, KEY) == "Seen by Maria Gonzalez and Dr. Ōtani."
    with pytest.raises(InputError, match="does not decrypt with this key"):
        decrypt_envelopes(text, KEY[::-1])


def test_sealed_blob_needs_the_key():
    blob = seal(resolve_key(KEY, None, "test"), b"secret mapping")
    assert b"secret" not in blob and blob != seal(resolve_key(KEY, None, "test"), b"secret mapping")
    assert unseal(resolve_key(KEY, None, "test"), blob) == b"secret mapping"
    with pytest.raises(InputError, match="does not decrypt"):
        unseal(resolve_key(KEY[::-1], None, "test"), blob)


def test_keep_and_custom():
    assert get_strategy("keep").surrogate("Boston", "LOCATION", None) == "Boston"
    custom = get_strategy("custom", function=lambda original, label: f"<{label.lower()}>")
    assert custom.surrogate("Boston", "LOCATION", None) == "<location>"
    with pytest.raises(InputError, match="needs function"):
        get_strategy("custom")


@pytest.mark.parametrize(
    "original, expected",
    [
        ("March 3, 2024", "March 13, 2024"),
        ("3/14/2024", "3/24/2024"),
        ("03/04/24", "03/14/24"),
        ("2024-03-14", "2024-03-24"),
        ("14.03.2024", "24.03.2024"),
        ("03/29/2024", "04/08/2024"),
        ("2024-03-29", "2024-04-08"),
        ("29.03.2024", "08.04.2024"),
        ("3/29/2024", "4/8/2024"),
        ("Mar. 3rd", "Mar. 13th"),
        ("21st of MARCH 2024", "31st of MARCH 2024"),
        ("March 30, 2024 at 10:30", "April 9, 2024 at 10:30"),
        ("Wednesday", "Saturday"),
        ("14-JUL-1931", "24-JUL-1931"),
        ("03-Mar-24", "13-Mar-24"),
        ("in two weeks", None),
        ("120/80", None),
    ],
)
def test_dates_are_rewritten_in_their_own_format(original, expected):
    assert rewrite_dates(original, lambda d, has_year: d + (date(2000, 1, 11) - date(2000, 1, 1))) == expected


@pytest.mark.parametrize(
    "original, before, expected",
    [
        ("8/84", "", "3/85"),  # month/2-digit year (day-month would need a day <= 31)
        ("10/2003", "", "5/2004"),
        ("2/31/14", "", "9/16/14"),  # a day past the month's end: its last day
        ("10/15-10/16", "", "5/3-5/4"),  # a range of two dates
        ("'81", "", "'82"),
        ("74'", "", "75'"),
        ("1977", "", "1978"),  # cannot be a time of day (minutes above 59)
        ("2022", "in ", "2023"),  # reads as 20:22 alone; a year after "in"
        ("2022", "", None),
        ("1930", "at ", None),
        ("march of 2022", "", "october of 2022"),
        ("sept", "", "apr"),
        ("0800", "", None),
        ("3-5", "", None),
        ("10/15/2020-10/16/2020", "", "5/3/2021-5/4/2021"),  # each side of a range
        ("1977 - 1980", "", "1978 - 1981"),
        ("Dec ’84", "", "Jul ’85"),
        ("I may go", "", None),  # "may", "march", "dec", "aug" alone are words
    ],
)
def test_partial_dates_are_rewritten(original, before, expected):
    """Months, years and month/year dates alone (the hipaa policy keeps them as dates): from the middle of
    the month or year, moved here by 200 days."""
    assert rewrite_dates(original, lambda d, has_year: d + timedelta(days=200), before) == expected


@pytest.mark.parametrize(
    ("written", "shifted"),
    [
        ("March 3-5, 2024", "February 2-4, 2024"),  # the last day of a range in one month moves too
        ("3–5 March 2024", "2–4 February 2024"),
        ("Mar 3 - 5", "Feb 2 - 4"),
        ("March 30-31, 2024", "February 29-1, 2024"),  # into the next month: its length kept
        ("March 3 to 5, 2024", "February 2 to 4, 2024"),
        ("MAR 3RD THROUGH 5TH", "FEB 2ND THROUGH 4TH"),  # each ordinal written for its new day
        ("1st-3rd of May", "1st-3rd of April"),
        ("10/15-16/2024", "9/15-16/2024"),  # digits, month first
        ("04/14-15/24", "03/15-16/24"),
        ("15-16/10/2024", "15-16/9/2024"),  # digits, day first: the first day moves with the date
        ("Oct 1 to 12/2024", "Sep 1 to 11/2024"),  # a day and a month/year: two dates
        ("14th", "15th"),  # a day of the month alone: a day of a 31-day month
        ("the 22ND", "the 23RD"),
        ("6th to the 9th", "7th to the 10th"),
        ("2/6-9", "1/7-10"),  # no year
        ("5-6/10/2024", "5-6/9/2024"),  # days first whatever their size
        ("10/5-6/2024", "9/5-6/2024"),  # days of one month, not October to June
        ("13/5-6/2024", "13/4-5/2024"),  # day first: the 13th of May, then June 2024
        ("28th to the 2nd", "29th to the 3rd"),  # into the next month: five days
        ("March 28-3, 2024", "February 27-4, 2024"),
    ],
)
def test_a_range_of_days_in_one_month_is_rewritten_whole(written, shifted):
    assert rewrite_dates(written, lambda d, has_year: d - timedelta(days=30)) == shifted


@pytest.mark.parametrize(
    ("written", "shifted"),
    [
        ("9.26.17", "8.27.17"),
        ("Mar '01", "Feb '01"),
        ("25APR2002", "26MAR2002"),
        ("Christmas 2021", "November 25, 2021"),  # a holiday is written as its day
        ("MEMORIAL DAY 2019", "APRIL 27, 2019"),  # the last Monday of May 2019 (May 27)
        ("Easter Sunday, 2024", "March 1, 2024"),  # Easter 2024: March 31
        ("Thanksgiving", "October 24"),  # no year: read in a leap year (2000: November 23)
        ("Fourth of July 2019", "June 4, 2019"),  # the holiday whole, not "July 2019"
        ("Christmas\n2021", "November 25,\n2021"),
        ("Christmas '99", "November 25, '99"),
    ],
)
def test_more_date_forms_are_rewritten(written, shifted):
    assert rewrite_dates(written, lambda d, has_year: d - timedelta(days=30)) == shifted


@pytest.mark.parametrize(
    "written", ["30-1/3/2024", "31-30/10/2024", "0-5/10/2024", "99-5/10/2024", "March 5-40", "March 5-0"]
)
def test_a_range_with_a_day_its_month_does_not_have_is_not_rewritten_as_one(written):
    """No day is invented: such a range is no date of one month (its parts are read alone, if at all)."""
    same = rewrite_dates(written, lambda d, has_year: d)
    assert same is None or same == written


def test_a_month_and_year_never_turns_into_a_month_and_day():
    assert rewrite_dates("8/84", lambda d, has_year: date(2012, 3, 1)) == "3/2012"


def test_date_shift_moves_every_date_of_a_document_by_one_offset():
    shift = get_strategy({"DATE_TIME": "date_shift", "default": "redact"})
    text = "Admitted 3/1/2024, discharged March 5, 2024; seen by Tanaka; follow-up 2024-04-01, in two weeks."
    items = [("3/1/2024", "DATE_TIME"), ("March 5, 2024", "DATE_TIME"), ("2024-04-01", "DATE_TIME")]
    items += [("Tanaka", "PERSON"), ("in two weeks", "DATE_TIME")]
    out, records = run(shift, text, items, seed=3)
    from datetime import datetime

    new = [
        datetime.strptime(records[o].replacement, f)
        for o, f in (("3/1/2024", "%m/%d/%Y"), ("March 5, 2024", "%B %d, %Y"), ("2024-04-01", "%Y-%m-%d"))
    ]
    assert (new[1] - new[0]).days == 4 and (new[2] - new[0]).days == 31 and new[0] != datetime(2024, 3, 1)
    assert "[REDACTED]" in out and "in two weeks" in out and not records["in two weeks"].replaced
    other_doc, _ = run(shift, text, items, seed=4)
    assert other_doc != out  # another document (another stream) gets another offset
    with pytest.raises(InputError, match="date_shift applies to dates only"):
        get_strategy("date_shift")


@pytest.mark.parametrize("seed", range(6))
def test_a_date_at_the_ends_of_the_calendar_is_shifted_the_other_way(seed):
    shift = get_strategy({"DATE_TIME": "date_shift", "default": "redact"})
    text = "Seen on 12/31/9999 and on 01/01/0001."
    out, records = run(shift, text, [("12/31/9999", "DATE_TIME"), ("01/01/0001", "DATE_TIME")], seed=seed)
    assert records["12/31/9999"].replaced and records["01/01/0001"].replaced  # no OverflowError


@pytest.mark.parametrize("strategy", ["full_entity", {"DATE_TIME": "date_shift", "default": "redact"}])
@pytest.mark.parametrize(
    "piece",
    [
        "12 janvier 1956",
        "3. März 2024",
        "15 de marzo de 2023",
        "1 мая 2021",
        "2024年3月14日",
        "20240314",
        "12 janvier",
    ],
)
def test_a_date_the_writer_cannot_read_has_its_numbers_redrawn(strategy, piece):
    text = f"Née le {piece} à Lyon."
    for seed in range(4):
        _, records = run(get_strategy(strategy), text, [(piece, "DATE_TIME")], seed=seed)
        written = records[piece].replacement
        assert records[piece].replaced and written != piece
        assert not set(re.findall(r"\d+", piece)) & set(re.findall(r"\d+", written))  # no number kept


def test_date_shift_keeps_what_it_cannot_read_as_a_date():
    shift = get_strategy({"DATE_TIME": "date_shift", "default": "redact"})
    text = "She stayed 118 days in the 1990s, back in two weeks at 0900."
    items = [("118 days", "DATE_TIME"), ("in the 1990s", "DATE_TIME"), ("in two weeks", "DATE_TIME")]
    _, records = run(shift, text, items + [("0900", "DATE_TIME")], seed=0)
    assert not any(r.replaced for r in records.values())  # lengths of time, decades, times: no date to shift


def test_an_unread_date_gets_one_surrogate_per_document():
    for strategy in ("full_entity", {"DATE_TIME": "date_shift", "default": "redact"}):
        text = "Née le 12 janvier 1956; née le 12 janvier 1956."
        spans = [Span(7, 22, "DATE_TIME", 1.0, "test"), Span(31, 46, "DATE_TIME", 1.0, "test")]
        _, records = apply_strategy(
            text, spans, get_strategy(strategy), 1.0, random.Random(0), SubstitutionTable()
        )
        assert records[0].replacement == records[1].replacement != "12 janvier 1956"


@pytest.mark.parametrize("locale", ["en_US", "fr_FR", "pl_PL", "ru_RU", "no_NO", "pt_PT", "hr_HR", "vi_VN"])
def test_an_initial_maps_to_another_letter_that_starts_enough_names(locale):
    from deid_hf.replace.names import MIN_INITIALS, initial_letters, initial_surrogate

    letters = initial_letters(locale)
    assert len(letters) >= min(MIN_INITIALS, 5)  # not one letter for every given name of a short list
    for letter in {*letters, "O", "Z"}:  # its own letters, and letters that start few names or none
        assert initial_surrogate({}, letter, random.Random(0), locale) != letter


def test_one_pseudonym_per_person():
    text = (
        "Dr. Kenji Tanaka saw Maria Gonzalez. Dr. Tanaka called Kenji; TANAKA's note said Tanaka would "
        "return. K. Tanaka signed. Ms. Gonzalez and her daughter Ana Gonzalez agreed."
    )
    items = [
        ("Dr. Kenji Tanaka", "PERSON"),
        ("Maria Gonzalez", "PERSON"),
        ("Ana Gonzalez", "PERSON"),
        ("K. Tanaka", "PERSON"),
        ("Dr. Tanaka", "PERSON"),
        ("TANAKA's", "PERSON"),
        ("Kenji", "PERSON"),
        ("Tanaka", "OTHER"),
        ("Ms.", "OTHER"),
        ("Gonzalez", "PERSON"),
    ]
    out, r = run(get_strategy("full_entity"), text, items, seed=5)
    first, last = r["Dr. Kenji Tanaka"].replacement.split()[1:]
    assert r["Dr. Kenji Tanaka"].replacement.startswith("Dr. ")
    assert r["Dr. Tanaka"].replacement == f"Dr. {last}" and r["Kenji"].replacement == first
    assert r["TANAKA's"].replacement == f"{last.upper()}'s" and r["Tanaka"].replacement == last
    assert r["K. Tanaka"].replacement == f"{first[0]}. {last}"
    maria_first, gonzalez = r["Maria Gonzalez"].replacement.split()
    assert r["Gonzalez"].replacement == gonzalez and r["Ana Gonzalez"].replacement.split()[1] == gonzalez
    assert "Ms. " + gonzalez in out and not r["Ms."].replaced  # the title stays, the name changes
    from faker.providers.person.en_US import Provider

    assert maria_first in Provider.first_names_female  # Maria is female in Faker's lists
    assert not {"Kenji", "Tanaka", "TANAKA", "Maria", "Gonzalez", "Ana"} & set(re.findall(r"\w+", out))


def test_organisations_and_places_keep_one_surrogate_and_their_acronym():
    text = "Massachusetts General Hospital (MGH) sent her to BOSTON; Boston and MGH agreed."
    items = [("Massachusetts General Hospital", "ORG"), ("MGH", "OTHER"), ("BOSTON", "LOCATION")]
    items += [("Boston", "LOCATION")]
    _, r = run(get_strategy("full_entity"), text, items, seed=2)
    assert r["BOSTON"].replacement == r["Boston"].replacement.upper()
    acronym = "".join(w[0] for w in r["Massachusetts General Hospital"].replacement.split() if w[0].isupper())
    assert r["MGH"].replacement == acronym and acronym != "MGH"
    text = "Pinabel Marcil's shop sold out; Marcil said the Marcil brand would return."
    _, r = run(get_strategy("full_entity"), text, [("Pinabel Marcil's", "ORG"), ("Marcil", "ORG")], seed=1)
    full = r["Pinabel Marcil's"].replacement
    assert full.endswith("'s") and r["Marcil"].replacement == full[:-2]


def test_identifiers_lose_every_original_character():
    rng = random.Random(0)
    for original in ("mgonzalez1957", "MRN A12-3456", "X9Y8"):
        new = random_like(original, rng)
        assert len(new) == len(original) and all(a != b for a, b in zip(original, new) if a.isalnum())
        assert [c.isdigit() for c in new] == [c.isdigit() for c in original]
        assert [c.isupper() for c in new] == [c.isupper() for c in original]
    assert random_like("5mg", rng, keep_units=True).endswith("mg")
    _, r = run(get_strategy("full_entity"), "user mgonzalez1957 logged in", [("mgonzalez1957", "NUMBER")])
    assert "gonzalez" not in r["mgonzalez1957"].replacement and re.fullmatch(
        r"[a-z]{9}\d{4}", r["mgonzalez1957"].replacement
    )


@pytest.mark.parametrize(
    "original",
    [
        "+1 503 555 0199",
        "(217) 555-0143",
        "+44 20 7946 0958",
        "+44 (0)20 7946 0958",
        "1-800-555-0199",
        "011 44 20 7946 0958",
    ],
)
def test_phone_numbers_stay_valid_for_their_country(original):
    """The country code written before the number stays ("1-800-...": a fresh area code after it)."""
    for seed in range(20):
        new = random_phone_like(original, random.Random(seed))
        region = None if original.startswith("+") else "US"
        old_number, new_number = phonenumbers.parse(original, region), phonenumbers.parse(new, region)
        assert new != original and phonenumbers.is_valid_number(new_number)
        assert new_number.country_code == old_number.country_code
        assert re.sub(r"\d", "0", new) == re.sub(r"\d", "0", original)


@pytest.mark.parametrize(("original", "most_parses"), [("0400-0600", 1), ("12345", 1), ("555-0143", 41)])
def test_a_phone_layout_that_holds_no_valid_number_costs_few_draws(monkeypatch, original, most_parses):
    """No valid number has this layout (too short, or a US local number): a surrogate of random digits in
    its layout comes after at most `PHONE_DRAWS` tries, none where its length fits no number at all."""
    from deid_hf.replace import shape

    parses = []
    real_parse = phonenumbers.parse
    monkeypatch.setattr(phonenumbers, "parse", lambda *a, **k: parses.append(1) or real_parse(*a, **k))
    new = random_phone_like(original, random.Random(0))
    assert len(parses) <= most_parses <= shape.PHONE_DRAWS + 1
    assert new != original and re.sub(r"\d", "0", new) == re.sub(r"\d", "0", original)


def test_relative_dates_are_not_replaced_by_full_entity():
    """A relative date without a number is kept (a policy that masks a length of time in words, gdpr,
    leaves out the relative ones: `rules.gdpr.calendar_date`)."""
    _, r = run(get_strategy("full_entity"), "Come back next week.", [("next week", "DATE_TIME")])
    assert not r["next week"].replaced and r["next week"].replacement is None


def test_privacy_is_reported_per_label():
    strategy = get_strategy(
        {
            "PERSON": "full_entity",
            "ID": "redact",
            "DATE_TIME": "date_shift",
            "PHONE": {"type": "mask", "keep_last": 4},
            "default": "typed",
        }
    )
    private = {
        "PERSON": {"Maria"},
        "ID": {"123"},
        "DATE_TIME": {"3/1/2024"},
        "PHONE": {"555"},
        "ORG": {"Acme"},
    }
    report = strategy.privacy(1.0, private).to_dict()
    per = report["details"]["per_label"]
    assert report["epsilon"] is None and not report["dp"] and report["strategy"] == "per_label"
    assert per["ID"]["epsilon"] == 0.0 and per["ORG"]["epsilon"] == 0.0 and per["ORG"]["strategy"] == "typed"
    assert "no DP guarantee" in per["PERSON"]["guarantee"]
    assert (
        "date shifting" in per["DATE_TIME"]["guarantee"] and "last 4 characters" in per["PHONE"]["guarantee"]
    )
    only_dp = strategy.privacy(0.5, {"ORG": {"Acme"}, "ID": {"123"}}).to_dict()
    assert only_dp["epsilon"] is None and "infinity" in only_dp["guarantee"]
    named = (
        get_strategy({"LOCATION": "named", "default": "redact"})
        .privacy(0.5, {"LOCATION": {"London"}})
        .to_dict()
    )
    assert named["dp"] and named["epsilon"] == pytest.approx(math.log(2))
    for name, words in (("hash", "keyed hash"), ("encrypt", "reversible"), ("keep", "kept")):
        report = get_strategy(name, key=KEY).privacy(1.0, {"PERSON": {"Maria"}}).to_dict()
        assert not report["dp"] and words in report["guarantee"]


@pytest.mark.parametrize(
    "strategy, name, dp",
    [
        ("full_entity", "full_entity", False),
        ("mask", "mask", False),
        ({"PERSON": "typed", "DATE_TIME": "date_shift", "default": "redact"}, "per_label", False),
        ("typed", "typed", True),
        ("redact", "redact", True),
        ("word_by_word", "word_by_word", True),
    ],
)
def test_a_document_where_nothing_was_replaced_reports_the_strategys_own_guarantee(strategy, name, dp):
    """No private unit is no evidence of privacy: a strategy without a guarantee does not claim epsilon 0."""
    report = get_strategy(strategy, policy="hipaa").privacy(1.0, {}).to_dict()
    assert report["dp"] is dp and report["strategy"] == name and report["details"]["per_label"] == {}
    assert report["guarantee"].startswith("nothing was replaced; ")
    assert ("no DP guarantee" in report["guarantee"]) is not dp
    if dp:
        assert report["epsilon"] == 0.0


def test_word_by_word_reports_the_distribution_it_draws_a_label_without_its_own_pool_from():
    strategy = get_strategy("word_by_word", pool="dissociation").fit([("OTHER", "word"), ("PERSON", "Ann")])
    report = strategy.privacy(1.0, {"ORG": {"Acme"}}).to_dict()  # ORG draws from OTHER's pool
    assert report["dp"] and report["epsilon"] == 0.0


def test_hipaa_policy_caps_ages_over_89():
    strategy = get_strategy({"AGE": "full_entity", "default": "redact"}, policy="hipaa")
    _, r = run(strategy, "She is 92 years old, he is 45.", [("92", "AGE"), ("45", "AGE")])
    assert r["92"].replacement == "90+" and r["45"].replacement != "90+"
    text = "She is ninety-two years old, he is forty-five."
    _, r = run(strategy, text, [("ninety-two years old", "AGE"), ("forty-five", "AGE")])
    assert r["ninety-two years old"].replacement == "90+ years old"
    assert "forty" not in r["forty-five"].replacement  # an age in words is redrawn, not kept
    placeholder = get_strategy("typed", policy="hipaa")
    assert run(placeholder, "She is 92.", [("92", "AGE")])[1]["92"].replacement == "<AGE>"


def test_a_decade_or_a_word_that_states_an_age_is_capped_or_redrawn_whole():
    """hipaa: "late 90s" -> "90+", "nonagenarian" -> "90+-year-old"; otherwise a decade or an age drawn."""
    text = "in his late 90s; a nonagenarian; centenarians; in her nineties."
    items = [("late 90s", "AGE"), ("nonagenarian", "AGE"), ("centenarians", "AGE"), ("nineties", "AGE")]
    _, r = run(get_strategy("full_entity", policy="hipaa"), text, items)
    assert [r[s].replacement for s, _ in items] == ["90+", "90+-year-old", "90+-year-olds", "90+"]
    for seed in range(5):
        _, r = run(get_strategy("full_entity", policy="gdpr"), text, items, seed=seed)
        assert all(re.fullmatch(r"[2-8]0s", r[s].replacement) for s in ("late 90s", "nineties"))
        assert re.fullmatch(r"\d\d-year-old", r["nonagenarian"].replacement)
        assert re.fullmatch(r"\d\d-year-olds", r["centenarians"].replacement)


@pytest.mark.parametrize(
    "strategy",
    ["full_entity", {"DATE_TIME": "date_shift", "default": "full_entity"}, {"DATE_TIME": "full_entity"}],
)
def test_hipaa_policy_writes_a_date_over_89_years_back_in_the_year_89_years_back(strategy):
    """A date of birth would tell an age over 89 (a shift of a year at most keeps its year): it comes out in
    the year 89 years before today, so no date tells an age over 89; a later date keeps the operator's
    output, a year alone ("DOB: 1925") and a 2-digit year ("7/14/31") are capped too."""
    earliest = date.today().year - 89
    recent = date.today().year - 40
    old = earliest - 6
    text = (
        f"Born in {old}, DOB 07/14/{old}; seen 03/04/{recent}, her son born 1/2/{recent}; "
        f"DOB: {old - 1}; b. 7/14/{old % 100:02d}; follow-up 3/4/{date.today().year + 3}; "
        f"Ida Moss ({old - 2}-{recent + 1})."
    )
    items = [(f"07/14/{old}", "DATE_TIME"), (f"in {old}", "DATE_TIME"), (f"{old - 1}", "DATE_TIME")]
    items += [(f"03/04/{recent}", "DATE_TIME"), (f"1/2/{recent}", "DATE_TIME")]
    items += [(f"7/14/{old % 100:02d}", "DATE_TIME"), (f"3/4/{date.today().year + 3}", "DATE_TIME")]
    items += [(f"{old - 2}-{recent + 1}", "DATE_TIME")]
    for seed in range(5):
        _, r = run(get_strategy(strategy, policy="hipaa"), text, items, seed=seed)
        assert r[f"07/14/{old}"].replacement.endswith(f"/{earliest}")
        assert r[f"in {old}"].replacement == f"in {earliest}" and r[f"{old - 1}"].replacement == f"{earliest}"
        assert r[f"7/14/{old % 100:02d}"].replacement.endswith(f"/{earliest % 100:02d}")
        assert abs(int(r[f"03/04/{recent}"].replacement[-4:]) - recent) <= 1  # shifted, not capped
        assert int(r[f"3/4/{date.today().year + 3}"].replacement[-4:]) > date.today().year  # a future date
        assert r[f"{old - 2}-{recent + 1}"].replacement.startswith(f"{earliest}-")  # a lifespan's birth year
    _, plain = run(get_strategy(strategy), text, items, seed=0)  # no policy: no cap
    assert int(plain[f"07/14/{old}"].replacement[-4:]) < earliest
    placeholder = get_strategy("typed", policy="hipaa")
    assert run(placeholder, text, items)[1][f"07/14/{old}"].replacement == "<DATE_TIME>"


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"PERSN": "redact"}, "unknown label 'PERSN'"),
        ({"PERSON": "scramble"}, "unknown strategy 'scramble'"),
        ({"PERSON": {"keep_last": 2}}, "needs a 'type'"),
        ({"PERSON": "date_shift"}, "DATE_TIME only"),
        ({"PHONE": {"type": "mask", "keep": 2}}, "invalid options for strategy 'mask'"),
    ],
)
def test_bad_per_label_specs(spec, message):
    with pytest.raises(InputError, match=message):
        get_strategy(spec)


def test_a_person_surrogate_never_keeps_a_word_of_the_original():
    """deid-ndd drew its candidates here and kept "Gonzalez" (a Faker surname) in "Nicole Gonzalez"."""
    full = get_strategy("full_entity", consistent=False)
    for seed in range(200):
        out = full.surrogate("Maria Gonzalez", "PERSON", random.Random(seed))
        assert len(out.split()) == 2 and not {"maria", "gonzalez"} & {w.casefold() for w in out.split()}
