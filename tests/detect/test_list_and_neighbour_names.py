"""Names beside a detected name: the other items of a list (`mentions.add_listed_names`) and a rare
capitalised word right before or after it (`mentions.add_name_neighbours`)."""

import pytest

from deid_hf.detect.mentions import add_listed_names, add_name_neighbours
from deid_hf.spans import Span


def _span(text, piece, label="PERSON"):
    start = text.index(piece)
    return Span(start, start + len(piece), label, 0.8, "token-classification")


# (text, the detected names, what is marked afterwards)
LIST_CASES = [
    ("Attendees: Quvanost Enrow, Josh Herbert.", ["Josh Herbert"], {"Quvanost Enrow", "Josh Herbert"}),
    ("cc: Rikwind Gatear; Nath Lemoine", ["Nath Lemoine"], {"Rikwind Gatear", "Nath Lemoine"}),
    ("They had 3: Efimiya, Mary and Ostkamp.", ["Mary"], {"Efimiya", "Mary", "Ostkamp"}),
    ("cc: Kevin da Luz; Nath Lemoine", ["Nath Lemoine"], {"Kevin da Luz", "Nath Lemoine"}),  # a particle
    # a person found in part is the whole item
    (
        "Attendees: Quvanost Enrow, Josh Herbert.",
        ["Quvanost", "Josh Herbert"],
        {"Quvanost Enrow", "Josh Herbert"},
    ),
    # everyday words, places and services, clinical terms, or no list's end after the item
    ("Seen by Ann Lee, Cardiology and Neuro.", ["Ann Lee"], {"Ann Lee"}),
    ("Ann Lee, Boston, MA", ["Ann Lee"], {"Ann Lee"}),
    ("Meds: Lasix, Heparin, Ann Lee", ["Ann Lee"], {"Ann Lee"}),
    ("Ann Lee, Marrowind was here today.", ["Ann Lee"], {"Ann Lee"}),
    ("Present: John Smith, CCRN. John Smith, PharmD, Jane Roe", ["John Smith"], {"John Smith"}),
    ("他和Ann Lee, Ólafsson一起去了医院. Ann Lee, élève.", ["Ann Lee"], {"Ann Lee"}),
    # an item found as something else stays that
    ("Ann Lee, Marrowind Ltd.", ["Ann Lee", ("Marrowind Ltd", "ORG")], {"Ann Lee", "Marrowind Ltd"}),
]


def test_a_known_name_in_a_list_of_persons_is_a_person():
    text = "our 3 founders: Eklund, Michael and Hodge. Ann Lee, Marrowind Ltd."
    spans = [
        _span(text, "Michael"),
        _span(text, "Hodge", "ORG"),
        _span(text, "Ann Lee"),
        _span(text, "Marrowind Ltd", "ORG"),
    ]
    out = {(s.text(text), s.label) for s in add_listed_names(text, spans)}
    assert {("Eklund", "PERSON"), ("Hodge", "PERSON"), ("Marrowind Ltd", "ORG")} <= out
    assert ("Hodge", "ORG") not in out


@pytest.mark.parametrize(("text", "detected", "marked"), LIST_CASES)
def test_add_listed_names(text, detected, marked):
    spans = [_span(text, *d) if isinstance(d, tuple) else _span(text, d) for d in detected]
    out = add_listed_names(text, spans)
    merged = {text[a:b] for a, b in _merged(out)}
    assert merged == marked


def _merged(spans):
    out = []
    for s in sorted(spans, key=lambda s: s.start):
        if out and s.start < out[-1][1]:
            out[-1][1] = max(out[-1][1], s.end)
        else:
            out.append([s.start, s.end])
    return out


NEIGHBOUR_CASES = [
    ("I am writing about my client Saost Wright.", "Wright", "PERSON", "Saost Wright"),
    ("I am writing about my client Saost Rowkamp.", "Rowkamp", "OTHER", "Saost Rowkamp"),
    ("Josh Ostkampel called.", "Josh", "PERSON", "Josh Ostkampel"),
    # a frequent word, a clinical term, lower case, another span's word
    ("Told Smith Tuesday.", "Smith", "PERSON", "Smith"),
    ("Gave Smith Lasix.", "Smith", "PERSON", "Smith"),
    (
        "Ann Lee Afebrile overnight. Mr Smith Somnolent, Dr Jones Intensivist",
        "Ann Lee",
        "PERSON",
        "Ann Lee",
    ),
    ("saw smith ostkampel today, i think", "smith", "PERSON", "smith"),
    # a person's given name of any culture before it, however frequent its word is in English up to a point
    ("RE: Agathe Rey - discharge summary", "Rey", "PERSON", "Agathe Rey"),
    ("The patient, Thiago Costa, is 54.", "Costa", "PERSON", "Thiago Costa"),
    ("Then Will Smith and Mark Rey left.", "Rey", "PERSON", "Rey"),  # everyday English words
    ("The Agathe Hotel", "Hotel", "ORG", "Hotel"),  # only before a person
    # a surname after its particles after a person's name; not an organisation's
    ("Attendees: Sven van den Brink; Ann Lee", "Sven", "PERSON", "Sven van den Brink"),
    ("Dr. Ana da Silva saw him.", "Ana", "PERSON", "Ana da Silva"),
    ("Bank of America de Mexico", "Bank of America", "ORG", "Bank of America"),
    # where casing says nothing (a text begun in lower case), no given name is taken either
    ("cc: agathe rey; Agathe Rey", "Rey", "PERSON", "Rey"),
    # a lower-case word after "et al." or "e.g." says nothing of the text's casing
    ("RE: Agathe Rey. Per Smith et al. the plan, e.g. the dose, stands.", "Rey", "PERSON", "Agathe Rey"),
    ("RE: Agathe Rey. Give 5 mg b.i.d. then stop.", "Rey", "PERSON", "Rey"),  # "b.i.d. then": careless
]


@pytest.mark.parametrize(("text", "found", "label", "marked"), NEIGHBOUR_CASES)
def test_add_name_neighbours(text, found, label, marked):
    out = add_name_neighbours(text, [_span(text, found, label)])
    assert {s.text(text) for s in out} == {found, marked}  # the span as found stays beside the widened one
    assert {s.label for s in out} == {label}


def test_a_neighbour_inside_another_span_is_not_taken():
    text = "I met Saost Wright."
    out = add_name_neighbours(text, [_span(text, "Saost", "LOCATION"), _span(text, "Wright")])
    assert [s.text(text) for s in out] == ["Saost", "Wright"]


def test_a_persons_first_name_read_as_untyped_is_the_persons():
    text = "Attendees: Wulf Hofig; Eldortes Dorwindost"
    out = add_name_neighbours(text, [_span(text, "Eldortes", "OTHER"), _span(text, "Dorwindost")])
    assert {(s.text(text), s.label) for s in out} == {
        ("Eldortes", "OTHER"),
        ("Dorwindost", "PERSON"),
        ("Eldortes Dorwindost", "PERSON"),
    }
    # an organisation's word is not (only an untyped one), nor is an untyped word before another label
    text = "I met Saost Wright at Elmwick Kamport."
    spans = [_span(text, "Saost", "ORG"), _span(text, "Wright"), _span(text, "Elmwick", "OTHER")]
    spans.append(_span(text, "Kamport", "LOCATION"))
    found = {s.text(text) for s in add_name_neighbours(text, spans)}
    assert found == {"Saost", "Wright", "Elmwick", "Kamport"}
