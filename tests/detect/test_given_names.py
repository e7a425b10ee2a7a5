"""Given names after a detected surname and a comma ("NGUYEN, THI HOA"): `mentions.add_given_names`."""

import pytest

from deid_hf.detect.mentions import add_given_names
from deid_hf.spans import Span


def _person(text, piece):
    start = text.index(piece)
    return Span(start, start + len(piece), "PERSON", 0.8, "token-classification")


# (text, the detected surname, what is marked afterwards)
GIVEN_NAME_CASES = [
    # given names of any culture, ALL CAPS or title case, up to the line's end or punctuation
    # one mention, as a pseudonym reads it ("Last, First")
    ("PATIENT: NGUYEN, THI HOA\nDOB: 03/04/1951", "NGUYEN", {"NGUYEN, THI HOA"}),
    ("Pt is NGUYEN, THI HOA, 71 yo F.", "NGUYEN", {"NGUYEN, THI HOA"}),
    ("Seen by Petrova, Svetlana today.", "Petrova", {"Petrova, Svetlana"}),
    ("Signed: Smith, J.", "Smith", {"Smith, J."}),
    ("Reviewed with Garcia, Maria Elena at bedside.", "Garcia", {"Garcia, Maria Elena"}),
    # what follows the comma is no given name: a credential, an everyday word, a clinical abbreviation
    ("Seen by SMITH, RN.", "SMITH", {"SMITH"}),
    ("Called JONES, PLAN to follow up.", "JONES", {"JONES"}),
    ("Pt NGUYEN, CHF stable.", "NGUYEN", {"NGUYEN"}),
    ("Hx JONES, CABG x3.", "JONES", {"JONES"}),
    ("Seen by JONES, MAY CALL BACK later.", "JONES", {"JONES"}),
    # a first word no list gives as a name: a service, a product; an everyday word; a lone initial of a term
    ("Discussed with Dr. Jones, Neuro ICU.", "Jones", {"Jones"}),
    ("Dr. Ahmed, Pulm, will follow.", "Ahmed", {"Ahmed"}),
    ("Ticket owner: Kaur, Jira.", "Kaur", {"Kaur"}),
    ("PT SEEN BY SMITH, CALM.", "SMITH", {"SMITH"}),
    ("Seen by Dr. Patel, April 3, 2024.", "Patel", {"Patel"}),
    ("SEEN BY DR JONES, C DIFF.", "JONES", {"JONES"}),
    # a form's field after the names is no name
    ("PATIENT: NGUYEN, THI DOB 01/02/1950", "NGUYEN", {"NGUYEN, THI"}),
    # the names stop at a word that is none: taken unless one of them is an everyday English word
    ("FAMILY: NGUYEN, THI AT BEDSIDE", "NGUYEN", {"NGUYEN, THI"}),
    ("Pt: NGUYEN, THI HOA Seen today for f/u.", "NGUYEN", {"NGUYEN, THI HOA"}),
    # accents, no blank after the comma, hyphenated given names
    ("Pt Nguyễn, Thị Hoa seen.", "Nguyễn", {"Nguyễn, Thị Hoa"}),
    ("NGUYEN,THI HOA\nDOB 1/2/1950", "NGUYEN", {"NGUYEN,THI HOA"}),
    ("Seen by Dupont, Jean-Pierre today.", "Dupont", {"Dupont, Jean-Pierre"}),
    # a first given name no list holds, rare in English
    ("Senwindel, Brinkamp was admitted on the ward.", "Senwindel", {"Senwindel, Brinkamp"}),
    ("Seen by Dr. Jones, Intensivist.", "Jones", {"Jones"}),  # a role, and a full stop
    ("Attendees: Quvanost, Brelind, Ostkamp.", "Quvanost", {"Quvanost"}),  # a list
    ("Signed ZAWADZKI, Maria.", "ZAWADZKI", {"ZAWADZKI, Maria."}),  # a listed name before a full stop
    # no comma, or a surname of two words: not the "Last, First" form
    ("Spoke with Nguyen Thi about it.", "Nguyen", {"Nguyen"}),
    ("Spoke with Van Nguyen, Hoa about it.", "Van Nguyen", {"Van Nguyen"}),
]


@pytest.mark.parametrize(("text", "surname", "marked"), GIVEN_NAME_CASES)
def test_add_given_names(text, surname, marked):
    spans = add_given_names(text, [_person(text, surname)])
    assert {s.text(text) for s in spans} == marked
    assert {s.label for s in spans} == {"PERSON"}


def test_only_a_person_surname_takes_given_names():
    text = "Admitted to MERCY, THI HOA ward"
    spans = add_given_names(text, [Span(12, 17, "ORG", 0.8, "spacy")])
    assert [s.text(text) for s in spans] == ["MERCY"]
