"""Whole person mentions under gdpr: titles, initials and particles go with the name, and every further
mention of the person is found (`mentions.whole_person_mentions`)."""

import pytest

from deid_hf.detect.mentions import split_mention, whole_person_mentions
from deid_hf.spans import Span


def _person(text, piece):
    start = text.index(piece)
    return Span(start, start + len(piece), "PERSON", 0.8, "spacy")


# (text, the detected person, every piece masked afterwards)
WHOLE_MENTION_CASES = [
    (
        "Mr S. Esmer was arrested. Esmer denied it and Mr Esmer appealed.",
        "S. Esmer",
        {"Mr S. Esmer", "Esmer", "Mr Esmer"},
    ),
    ("Judge Mahoney dissented; Mahoney wrote alone.", "Mahoney", {"Judge Mahoney", "Mahoney"}),
    ("a letter from Jan van der Berg to the court", "Berg", {"van der Berg"}),
    ("Dr. K. Tanaka signed.", "Tanaka", {"Dr. K. Tanaka"}),
    # a title in lower case is a common noun, and a name without title or initial spreads as before
    ("the judge Mahoney dissented", "Mahoney", {"Mahoney"}),
    ("Esmer left. Kaya stayed with Esmer.", "Kaya", {"Kaya"}),
]


@pytest.mark.parametrize(("text", "found", "masked"), WHOLE_MENTION_CASES)
def test_whole_person_mentions(text, found, masked):
    spans = whole_person_mentions(text, [_person(text, found)])
    assert {s.text(text) for s in spans} == masked
    assert {s.label for s in spans} == {"PERSON"}


def test_other_labels_are_not_widened():
    text = "Mr Ankara Holding"
    span = Span(3, len(text), "ORG", 0.5, "spacy")
    assert whole_person_mentions(text, [span]) == [span]


@pytest.mark.parametrize(
    ("mention", "kinds"),
    [
        ("Mr S. Esmer", ["title", "initial", "name"]),
        ("Judge Mahoney", ["title", "name"]),
        ("Jan van der Berg", ["name", "particle", "particle", "name"]),
        ("Ali de", ["name", "name"]),  # a particle is one only before another word
        ("Mr Ö. Demir", ["title", "initial", "name"]),  # an initial of any script
        ("Mr 王 伟", ["title", "name", "name"]),  # a one-character part of a script without capitals
        ("Ram KC", ["name", "name"]),  # a surname, not a post-nominal
    ],
)
def test_split_mention_kinds(mention, kinds):
    assert [kind for _, _, kind in split_mention(mention)] == kinds


def test_titles_of_office_are_names_to_hipaas_propagation():
    assert [kind for _, _, kind in split_mention("Judge Mahoney", offices=False)] == ["name", "name"]


def test_a_capitalised_occupation_that_is_a_name_part_is_the_person():
    from deid_hf.detect.mentions import add_name_mentions

    text = "Mr John Baker arrived. Baker said the baker was late."
    spans = [Span(3, 13, "PERSON", 0.9, "model"), Span(23, 28, "OCCUPATION", 0.4, "quasi")]
    spans.append(Span(text.index("baker"), text.index("baker") + 5, "OCCUPATION", 0.4, "quasi"))
    found = {s.text(text): s.label for s in add_name_mentions(text, spans, whole=True)}
    assert found["Baker"] == "PERSON" and found["baker"] == "OCCUPATION"
