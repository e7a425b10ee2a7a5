"""The gdpr policy's quasi-identifiers: the occupation and health lists, the detector, and hipaa left as it
was."""

import re

import pytest

from deid_hf.detect import get_detector
from deid_hf.detect.ner import SpacyDetector
from deid_hf.detect.quasi import (
    NOT_OCCUPATIONS,
    QuasiIdentifierDetector,
    find_degrees,
    find_family_counts,
    find_health_conditions,
    find_languages,
    find_occupations,
    find_origins,
    health_conditions,
    job_titles,
    occupations,
    quasi_labels_win,
)
from deid_hf.spans import Span

QUASI_LABELS = {"DEMOGRAPHIC", "OCCUPATION", "QUANTITY", "HEALTH"}


def test_job_titles_come_from_fakers_job_titles():
    from faker.providers.job.en_US import Provider

    words = {w for title in Provider.jobs for w in re.findall(r"[a-z']+", title.lower())}
    found = job_titles()
    assert {"police officer", "journalist", "newspaper journalist", "teacher", "lawyer"} <= set(found)
    assert not NOT_OCCUPATIONS & set(found)
    assert all(set(o.split()) <= words for o in found)
    assert list(found) == sorted(found, key=lambda o: (-len(o), o))


def test_occupations_add_wordnets_and_leave_out_its_other_words():
    found = set(occupations())
    assert set(job_titles()) <= found
    assert {"poet", "novelist", "politician", "composer", "biologist", "fisherman", "bishop"} <= found
    # a parent first ("father"), an adjective ("major", "general"), more often a verb ("hire"): left out
    assert not {"father", "major", "general", "official", "hire", "sweep", "printer", "server"} & found
    assert not {"prosecutor", "counsel", "attorney", "notary", "registrar", "minister"} & found  # proceedings
    # business people, students, managers, coaches, engineers, religious leaders, carers of others
    assert {
        "businessman",
        "student",
        "manager",
        "football coach",
        "engineer",
        "imam",
        "rabbi",
        "nun",
    } <= found
    assert {"accountant", "cashier", "consultant", "janitor", "interpreter", "security guard"} <= found
    # a party to a deal, a public function, something else first
    assert not {"owner", "supplier", "seller", "director", "guard", "scout", "keeper", "lessor"} & found
    # everyday jobs WordNet files under another sense or lacks; words for anyone at work are none
    assert {"cleaner", "bus driver", "carer", "care worker", "teaching assistant", "supervisor"} <= found
    assert not {"employee", "worker", "candidate", "driver"} & found
    assert list(occupations()) == sorted(found, key=lambda o: (-len(o), o))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("two teachers and a police officer met", {"teachers", "police officer"}),
        ("She is a Journalist.", {"Journalist"}),
        ("the teacher-training college", set()),
        ("a British molecular biologist and author", {"molecular biologist", "author"}),
        ("Poets, NOVELISTS and a Police Officers' union", {"Poets", "NOVELISTS", "Police Officers"}),
        ("a police\nofficer, a bus driver2, my co-author", {"officer"}),  # one line; whole words
        ("a teacher's pay; the Poles and the printer", {"teacher"}),  # possessive; no "pol"; a thing
        ("a businessman and a law student; the owner and the supplier", {"businessman", "law student"}),
        ("nothing here at all", set()),
    ],
)
def test_find_occupations(text, found):
    assert {s.text(text) for s in find_occupations(text)} == found


def test_health_conditions_come_from_wordnet_and_leave_out_its_other_words():
    found = set(health_conditions())
    assert {"diabetes", "schizophrenia", "epilepsy", "tuberculosis", "Parkinson's disease", "asthma"} <= found
    assert {"depression", "stroke", "HIV", "AIDS", "PTSD"} <= found  # another first sense, or acronyms
    # the roots and generic words, a court's complaint, words mostly meant otherwise, plants' and animals'
    assert not {"disease", "illness", "disorder", "complaint", "plague", "frenzy", "fugue"} & found
    assert not {"cold", "sore", "boil", "Cupid's itch", "foot rot", "black disease"} & found
    assert list(health_conditions()) == sorted(found, key=lambda c: (-len(c), c))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("He suffered from diabetes and Parkinson's disease.", {"diabetes", "Parkinson's disease"}),
        ("a history of Parkinson’s disease", {"Parkinson’s disease"}),  # a typographic apostrophe
        ("Graves' disease and asthma attacks", {"Graves' disease", "asthma attacks"}),
        ("She had a Stroke; SCHIZOPHRENIA", {"Stroke", "SCHIZOPHRENIA"}),  # any casing
        ("AIDS and HIV, not hearing aids or hiv", {"AIDS", "HIV"}),  # an acronym in capitals only
        ("is HIV-positive; an anti-epilepsy drug", {"HIV-positive"}),  # whole words
        ("post-traumatic stress disorder (PTSD)", {"post-traumatic stress disorder", "PTSD"}),
        ("the complaint was lodged in a frenzy", set()),
        # a word that is also something else, unless a word of that other sense is beside it
        ("she had a stroke; off work with depression; PMH: Shingles", {"stroke", "depression", "Shingles"}),
        ("brush strokes, a market depression, the shingles on my roof, a stroke of luck", set()),
        # a word of illness before it outweighs a word of the other sense beside it
        ("she had a single stroke; treated for depression in the market town", {"stroke", "depression"}),
        ("nothing here at all", set()),
    ],
)
def test_find_health_conditions(text, found):
    assert {s.text(text) for s in find_health_conditions(text)} == found
    assert {s.label for s in find_health_conditions(text)} <= {"HEALTH"}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("He is a father of five and the youngest of seven siblings.", {"five", "seven"}),
        ("She has three children and 4 grandchildren; his two young sons", {"three", "4", "two"}),
        ("Mother of 2, one of twelve siblings", {"2", "twelve"}),
        ("one of the children; a mother of 30 years; two cars; father of the bride", set()),
        ("one of two men arrested; one of 20 applicants; the middle of two sessions; a father of 10%", set()),
        ("She teaches grade 2 children and wrote 5 children's books.", set()),
    ],
)
def test_find_family_counts(text, found):
    assert {s.text(text) for s in find_family_counts(text)} == found
    assert {s.label for s in find_family_counts(text)} <= {"QUANTITY"}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("He holds a PhD in physics from MIT and an MBA.", {"PhD in physics", "MBA"}),
        (
            "a master's degree in economics in 1998; a Bachelor of Science in nursing",
            {"master's degree in economics", "Bachelor of Science in nursing"},
        ),
        ("a BA in English literature and history from Yale", {"BA in English literature and history"}),
        (
            "a degree in law and economics from; an M.S. in biology",
            {"degree in law and economics", "M.S. in biology"},
        ),
        (
            "an M.Sc. in computer science; a doctorate in theology",
            {"M.Sc. in computer science", "doctorate in theology"},
        ),
        (
            "two PhDs, a phd in maths and an MPH in epidemiology",
            {"PhDs", "phd in maths", "MPH in epidemiology"},
        ),
        # the field ends at a comma, a stop word or a verb
        ("The plaintiff, a PhD in economics, argued", {"PhD in economics"}),
        (
            "a degree in law and then worked; a degree in political science and worked",
            {"degree in law", "degree in political science"},
        ),
        ("a PhD in applied mathematics he later taught", {"PhD in applied mathematics"}),
        # a full stop that ends the sentence is the sentence's, one inside it the abbreviation's
        (
            "She got her Ph.D. She left. A Ph.D. student and an LL.M. from Harvard.",
            {"Ph.D", "Ph.D.", "LL.M."},
        ),
        # a degree's word in another sense; "degree" without an article; MS, an illness; LLM, a language model
        ("the degree of the burn; the degree in question; a degree in 2010; third degree in severity", set()),
        ("burns of the second degree in the left arm; MS in remission; an LLM in our pipeline", set()),
        # a field's second word is a field's last word ("computer science"), no verb nor possessive
        (
            "A PhD in physics helps. An MBA in finance pays well. Her PhD in Kowalski's lab.",
            {
                "PhD in physics",
                "MBA in finance",
                "PhD",
            },
        ),
        ("MY DEGREE IN LAW; OUR DIPLOMA IN NURSING", {"DEGREE IN LAW", "DIPLOMA IN NURSING"}),
        # the field ends before a word of time ("an MBA in finance last year", "in June")
        ("She got an MBA in finance last year and an MSc in June.", {"MBA in finance", "MSc"}),
        ("HE HAS A PHD IN PHYSICS; she has a PhD In Physics", {"PHD IN PHYSICS", "PhD In Physics"}),
        (
            "Her diploma in nursing. A degree in law. His master's in law.",
            {
                "diploma in nursing",
                "degree in law",
                "master's in law",
            },
        ),
        # dotted medical and law degrees, nursing and pharmacy
        (
            "Mark Olsen, M.D., and Ann Ruiz, J.D.; Kim Lee, BSN; a PharmD; a Psy.D. in clinical psychology",
            {"M.D.", "J.D.", "BSN", "PharmD", "Psy.D. in clinical psychology"},
        ),
        # "MD" and "JD" without dots: a physician, a state ("see an MD", "my MD", "an MD appointment")
        ("You should see an MD. My MD told me; an MD appointment; a JD from Yale", set()),
        ("He lives in Baltimore, MD. The MD said so; he is a DO. Chat on MSN; a DDS file.", set()),
        (
            "an associate degree in nursing; an MS in biology; a PhD in molecular and cellular biology",
            {
                "associate degree in nursing",
                "MS in biology",
                "PhD in molecular and cellular biology",
            },
        ),
    ],
)
def test_find_degrees(text, found):
    assert {s.text(text) for s in find_degrees(text)} == found
    assert {s.label for s in find_degrees(text)} <= {"OCCUPATION"}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The applicant, who speaks only Kurdish, had no interpreter.", {"Kurdish"}),
        ("Her native language is Chechen and she does not understand Russian.", {"Chechen", "Russian"}),
        ("an interpreter in Georgian; fluent in Swahili and Arabic", {"Georgian", "Swahili", "Arabic"}),
        (
            "She speaks Kurdish, Turkish or Arabic. He speaks Norwegian Bokmål.",
            {
                "Kurdish",
                "Turkish",
                "Arabic",
                "Norwegian Bokmål",
            },
        ),
        # no word of speaking before it, no language after it
        ("The judgment was delivered in French and English. He speaks to Anna daily.", set()),
    ],
)
def test_find_languages(text, found):
    assert {s.text(text) for s in find_languages(text)} == found
    assert {s.label for s in find_languages(text)} <= {"DEMOGRAPHIC"}


def test_the_quasi_identifier_detector_types_nationalities_amounts_occupations_and_conditions():
    text = "He is a Turkish journalist with epilepsy; 30% of the shares went to him."
    spans = {s.text(text): s.label for s in QuasiIdentifierDetector().detect(text)}
    assert spans.get("Turkish") == "DEMOGRAPHIC"
    assert spans.get("journalist") == "OCCUPATION"
    assert spans.get("epilepsy") == "HEALTH"
    assert spans.get("30%") == "QUANTITY"


def test_only_gdpr_adds_the_quasi_identifier_detector_on_the_ensembles_spacy():
    gdpr, hipaa = get_detector("fast", policy="gdpr"), get_detector("fast", policy="hipaa")
    quasi = [m for m in gdpr.members if isinstance(m, QuasiIdentifierDetector)]
    spacy = next(m for m in gdpr.members if isinstance(m, SpacyDetector))
    assert len(quasi) == 1 and quasi[0].nlp is spacy.nlp
    assert not any(isinstance(m, QuasiIdentifierDetector) for m in hipaa.members)


HIPAA_TEXTS = [
    "The applicant, aged 34, is a police officer with diabetes and was paid 5,000 euros two years later.",
    "Mr Kaya, a teacher, earned 30% more than the lawyers of Ankara.",
]


@pytest.mark.parametrize("text", HIPAA_TEXTS)
def test_hipaa_keeps_quasi_identifiers_that_gdpr_masks(text):
    hipaa = get_detector("fast", policy="hipaa").detect(text)
    gdpr = get_detector("fast", policy="gdpr").detect(text)
    assert not {s.label for s in hipaa} & QUASI_LABELS
    assert {s.label for s in gdpr} & QUASI_LABELS
    masked = {text[s.start : s.end] for s in hipaa}
    assert not any(
        word in piece for piece in masked for word in ("officer", "teacher", "diabetes", "euros", "%")
    )


def _at(text, piece, label, score):
    start = text.index(piece)
    return Span(start, start + len(piece), label, score, "test")


@pytest.mark.parametrize(
    ("text", "found", "labels"),
    [
        # a group or a lower-case occupation found whole keeps its label over the model's higher-scored type
        (
            "a South African priest",
            [("South African", "LOCATION", 0.9), ("South African", "DEMOGRAPHIC", 0.5)],
            ["DEMOGRAPHIC"],
        ),
        (
            "works as a physiotherapist",
            [("physiotherapist", "ORG", 0.9), ("physiotherapist", "OCCUPATION", 0.4)],
            ["OCCUPATION"],
        ),
        # not a person, not a capitalised occupation (a surname), not a part of a longer name
        ("Christian said", [("Christian", "PERSON", 0.9), ("Christian", "DEMOGRAPHIC", 0.5)], ["PERSON"]),
        ("Baker said", [("Baker", "PERSON", 0.9), ("Baker", "OCCUPATION", 0.4)], ["PERSON"]),
        (
            "the Royal College of Surgeons",
            [("Royal College of Surgeons", "ORG", 0.9), ("Surgeons", "OCCUPATION", 0.4)],
            ["ORG"],
        ),
        # a condition found whole, over an eponym's name read inside it; not a capitalised surname
        (
            "has Parkinson's disease",
            [("Parkinson", "PERSON", 0.9), ("Parkinson's disease", "HEALTH", 0.4)],
            ["HEALTH"],
        ),
        ("has epilepsy", [("epilepsy", "ORG", 0.9), ("epilepsy", "HEALTH", 0.4)], ["HEALTH"]),
        ("Stroke said", [("Stroke", "PERSON", 0.9), ("Stroke", "HEALTH", 0.4)], ["PERSON"]),
    ],
)
def test_a_group_or_occupation_found_whole_keeps_its_label(text, found, labels):
    spans = [_at(text, piece, label, score) for piece, label, score in found]
    assert [s.label for s in quasi_labels_win(text, spans)] == labels


@pytest.mark.parametrize(
    ("text", "found", "kept"),
    [
        # a place where the field starts is no field: the degree ends before "in"
        (
            "She earned a PhD in Paris.",
            [("PhD in Paris", "OCCUPATION"), ("Paris", "LOCATION")],
            [("PhD", "OCCUPATION"), ("Paris", "LOCATION")],
        ),
        # a field that is no place; a degree that is one only with its field keeps it
        (
            "a PhD in physics",
            [("PhD in physics", "OCCUPATION"), ("physics", "ORG")],
            [("PhD in physics", "OCCUPATION")],
        ),
        (
            "a BA in Georgia studies",
            [("BA in Georgia studies", "OCCUPATION"), ("Georgia", "LOCATION")],
            [("BA in Georgia studies", "OCCUPATION")],
        ),
        # a name read over the degree after it ends before the degree
        (
            "Anna Nowak, PhD, said",
            [("Anna Nowak, PhD", "PERSON"), ("PhD", "OCCUPATION")],
            [("Anna Nowak", "PERSON"), ("PhD", "OCCUPATION")],
        ),
        # a degree at a text's end that a model read with the sentence's full stop as a name
        (
            "He works with Mark Olsen, M.D.",
            [("Mark Olsen", "PERSON"), ("M.D.", "PERSON"), ("M.D", "OCCUPATION")],
            [("Mark Olsen", "PERSON"), ("M.D", "OCCUPATION")],
        ),
        # a degree's letters inside a name are the name's
        (
            "Dr. Phd Okafor said",
            [("Dr. Phd Okafor", "PERSON"), ("Phd", "OCCUPATION")],
            [("Dr. Phd Okafor", "PERSON")],
        ),
    ],
)
def test_a_degree_is_told_apart_from_a_place_and_a_name(text, found, kept):
    spans = [_at(text, piece, label, 0.5) for piece, label in found]
    assert [(s.text(text), s.label) for s in quasi_labels_win(text, spans)] == kept


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a Serbian national of Roma origin; of Yoruba descent", {"Roma", "Yoruba"}),
        (
            "an ethnic Chechen, ethnically Uzbek, of Crimean Tatar heritage",
            {"Chechen", "Uzbek", "Crimean Tatar"},
        ),
        # no people: lower case, an acronym, a title's "Ethnic"
        ("a fever of unknown origin; ethnic minorities; goods of EU origin; Ethnic Conflict in Asia", set()),
    ],
)
def test_find_origins(text, found):
    assert {s.text(text) for s in find_origins(text)} == found
    assert {s.label for s in find_origins(text)} <= {"DEMOGRAPHIC"}
