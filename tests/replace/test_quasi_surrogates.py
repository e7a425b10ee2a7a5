"""Readable surrogates of the gdpr policy's quasi-identifiers (`deid_hf.replace.quasi`)."""

import random
import re

import pytest

from deid_hf.detect.quasi import job_titles
from deid_hf.replace.quasi import (
    CONDITION_ADJECTIVES,
    CONDITIONS,
    COUNTED_CONDITIONS,
    DEGREES,
    DEGREES_IN,
    FIELDS,
    NATIONALITIES,
    RELIGIONS,
    SPOKEN_NATIONALITIES,
    demographic_like,
    health_like,
    occupation_like,
    plural_of,
    quantity_like,
)

SEEDS = range(20)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nationality_becomes_another_and_a_religion_another_religion(seed):
    rng = random.Random(seed)
    nationality = demographic_like("Turkish", rng)
    assert nationality in NATIONALITIES and nationality != "Turkish"
    religion = demographic_like("Muslims", rng)
    assert religion.endswith("s") and religion[:-1] in RELIGIONS and religion != "Muslims"
    assert demographic_like("KURDISH", rng).isupper()
    # the article before it still reads: "an Irish" stays "an ...", "a Turkish" "a ..."
    assert demographic_like("Irish", rng)[0] in "AEIOU" and demographic_like("Turkish", rng)[0] not in "AEIOU"
    # a religion of two words, with its article inside the span: the article kept, the religion another
    roman = demographic_like("a Roman Catholic", rng)
    assert roman.startswith("a ") and roman[2:] in RELIGIONS and roman[2] not in "AEIOU"
    jew = demographic_like("an Orthodox Jew", rng)  # raised IndexError: no religion of a vowel then
    assert jew.startswith("an ") and jew[3:] in RELIGIONS
    jews = demographic_like("JEWS", rng)  # a plural in capitals is a plural: a religion's, in capitals
    assert jews.isupper() and jews.endswith("S") and jews[:-1].capitalize() in RELIGIONS


@pytest.mark.parametrize("seed", SEEDS)
def test_a_language_becomes_a_language_that_is_also_a_nationality(seed):
    rng = random.Random(seed)
    for original in ("Kurdish", "Swahili", "Chechen", "Polish"):  # "speaks Kurdish", "a Polish national"
        drawn = demographic_like(original, rng)
        assert drawn in SPOKEN_NATIONALITIES and drawn != original
    assert demographic_like("Peruvian", rng) in NATIONALITIES  # a nationality that names no language


@pytest.mark.parametrize("seed", SEEDS)
def test_an_occupation_becomes_another_with_its_article_and_number(seed):
    rng = random.Random(seed)
    known = set(job_titles())
    one = occupation_like("journalist", rng)
    assert one in known and one != "journalist" and one[0] not in "aeiou"
    assert occupation_like("engineer", rng)[0] in "aeiou"
    many = occupation_like("teachers", rng)
    assert many in {plural_of(k) for k in known} and many != "teachers"
    assert occupation_like("Lawyer", rng)[0].isupper()


@pytest.mark.parametrize("seed", SEEDS)
def test_a_degree_becomes_another_degree_with_its_article_and_field(seed):
    rng = random.Random(seed)
    degree, _, field = occupation_like("PhD in physics", rng).partition(" in ")
    assert degree in DEGREES_IN and degree != "PhD" and field in FIELDS
    alone = occupation_like("MBA", rng)  # "an MBA": an abbreviation read with "an", no field
    assert alone in DEGREES and alone != "MBA" and " " not in alone and alone[0] in "AEFHILMNORSX"
    assert occupation_like("Ph.D", rng) not in ("PhD", "Ph.D")  # one degree however it is written
    assert " " not in occupation_like("Ph.D", rng)  # an abbreviation for an abbreviation ("Kim Ng, MBA,")
    assert occupation_like("masters degree", rng).replace("'", "") != "masters degree"
    vowels = "AEFHILMNORSXaeiou"
    assert occupation_like("master's degree", rng)[0] not in vowels
    assert occupation_like("honours degree in law", rng)[0] in vowels  # "an honours degree"
    assert occupation_like("university degree", rng)[0] not in vowels  # "a university degree"
    assert occupation_like("Doctorate in theology", rng)[0].isupper()  # a sentence's start
    assert occupation_like("PhDs", rng).endswith("s")
    caps, _, caps_field = occupation_like("PHD IN PHYSICS", rng).partition(" IN ")  # an ALL-CAPS text
    assert caps in {d.upper() for d in DEGREES_IN} and caps_field in {f.upper() for f in FIELDS}
    _, _, other = occupation_like("degree in law and economics", rng).partition(" in ")
    assert other in FIELDS and other not in ("law", "economics")
    # a dotted degree whose last full stop ends the sentence ("a J.D."), a nursing degree after a name
    assert occupation_like("J.D", rng) in DEGREES and occupation_like("BSN", rng) in DEGREES


@pytest.mark.parametrize(
    ("noun", "plural"),
    [
        ("actuary", "actuaries"),
        ("coach", "coaches"),
        ("tax inspector", "tax inspectors"),
        ("envoy", "envoys"),
    ],
)
def test_a_drawn_occupation_takes_a_regular_plural(noun, plural):
    assert plural_of(noun) == plural


@pytest.mark.parametrize("seed", SEEDS)
def test_an_amount_keeps_its_shape_and_unit(seed):
    rng = random.Random(seed)
    money = quantity_like("5,000 euros", rng)
    assert re.fullmatch(r"[1-9],\d{3} euros", money) and money[0] != "5"
    words = quantity_like("two million dollars", rng)
    assert words.endswith(" million dollars") and not words.startswith("two ")
    several = quantity_like("2", rng)  # "2 daughters" never "1 daughters"
    assert several.isdigit() and several not in ("1", "2")
    for word in ("twelve", "fifteen", "twenty"):  # every count a family's size is read in gets another
        assert quantity_like(word, rng) != word


@pytest.mark.parametrize("seed", SEEDS)
def test_a_health_condition_becomes_another_with_its_article_and_case(seed):
    rng = random.Random(seed)
    one = health_like("diabetes", rng)
    assert one in CONDITIONS and one != "diabetes" and one[0] not in "aeiou"
    assert health_like("epilepsy", rng)[0] in "aeiou"  # "an epilepsy drug" still reads
    assert health_like("Diabetes", rng)[0].isupper() and health_like("DIABETES", rng).isupper()
    # an acronym or an eponym gives a common noun, in lower case; a test's result an adjective
    assert health_like("HIV", rng) in CONDITIONS and health_like("Parkinson's disease", rng) in CONDITIONS
    assert health_like("HIV-positive", rng) in CONDITION_ADJECTIVES
    # a counted condition for a counted one: "had a stroke" -> "had a migraine", not "had a diabetes"
    assert health_like("heart attack", rng) in COUNTED_CONDITIONS
    assert health_like("strokes", rng).endswith("s")
    assert health_like(" ", rng) in CONDITIONS  # a blank span gets a condition, not an IndexError
