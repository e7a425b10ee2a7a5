"""Exact span boundaries (`rules.boundaries`, the ``word boundaries`` stage): a case table of what a detector
found and what is replaced, the issue's sentences through the fast detector, and a property over a
synthetic corpus: no span starts or ends inside a word."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import deid_hf
from deid_hf.detect.learned_spans import trim_common_words
from deid_hf.detect.rules import recording
from deid_hf.detect.rules.boundaries import before_form_label, exact_boundaries
from deid_hf.detect.user_options import UserOptionsDetector
from deid_hf.spans import Span

from .fixed import FixedDetector

# (case, text, what a detector found: (piece, label) pairs, what is replaced)
BOUNDARY_CASES = [
    ("title kept", "Dr. Tanaka reviewed the chart.", [("Dr. Tanaka", "PERSON")], ["Dr. Tanaka"]),
    ("verb after a name", "Dr. Tanaka reviewed the chart.", [("Tanaka reviewed", "PERSON")], ["Tanaka"]),
    ("verb after a full name", "Then Ann Lee said no.", [("Ann Lee said", "PERSON")], ["Ann Lee"]),
    ("title and verb", "Seen by Dr. Tanaka today.", [("Dr. Tanaka today", "PERSON")], ["Dr. Tanaka"]),
    ("verb after a place", "He lives in Chicago now.", [("Chicago now", "LOCATION")], ["Chicago"]),
    ("possessive", "Tanaka's wife called.", [("Tanaka's", "PERSON")], ["Tanaka"]),
    (
        "possessive of a full name",
        "Kenji Tanaka's wife came.",
        [("Kenji Tanaka's", "PERSON")],
        ["Kenji Tanaka"],
    ),
    ("a shop keeps its possessive", "Shop at Macy's today.", [("Macy's", "ORG")], ["Macy's"]),
    ("eponym", "A Foley catheter was placed.", [("Foley catheter", "PERSON")], ["Foley"]),
    ("hyphenated eponym", "The Swan-Ganz was placed.", [("Ganz", "OTHER")], ["Swan-Ganz"]),
    ("a name before a modifier", "A Boston-based firm.", [("Boston", "LOCATION")], ["Boston"]),
    ("ALL-CAPS modifier is taken", "A BOSTON-BASED FIRM", [("BOSTON", "LOCATION")], ["BOSTON-BASED"]),
    ("cut word", "She has Hodgkin lymphoma.", [("gkin", "OTHER")], ["Hodgkin"]),
    ("apostrophe name", "Dr. O'Brien called.", [("Brien", "PERSON")], ["O'Brien"]),
    ("hyphenated name", "Jean-Luc Picard came.", [("Luc Picard", "PERSON")], ["Jean-Luc Picard"]),
    ("hyphenated name in parts", "Jean-Luc came.", [("Jean", "PERSON"), ("Luc", "PERSON")], ["Jean-Luc"]),
    (
        "further mention in a hyphenated word",
        "Kenji Tanaka came. Tanaka-Smith left.",
        [("Kenji Tanaka", "PERSON")],
        ["Kenji Tanaka", "Tanaka-Smith"],
    ),
    ("name particle", "Vincent van Gogh painted it.", [("Vincent van Gogh", "PERSON")], ["Vincent van Gogh"]),
    ("ALL-CAPS line", "PT SEEN BY DR TANAKA TODAY", [("TANAKA", "PERSON")], ["TANAKA"]),
    ("ALL-CAPS possessive", "PT TANAKA'S WIFE CALLED", [("TANAKA'S", "PERSON")], ["TANAKA"]),
    ("digits in a word", "MRN12345678 noted.", [("12345678", "ID")], ["MRN12345678"]),
    ("date range", "seen 3/4-3/6 again", [("3/4", "DATE_TIME"), ("3/6", "DATE_TIME")], ["3/4", "3/6"]),
    ("a lower-case text says nothing", "pt seen by dr tanaka today", [("tanaka", "PERSON")], ["tanaka"]),
    ("a modifier never begins a span", "Seen LEE, Min-jun today.", [("jun", "PERSON")], ["Min-jun"]),
    (
        "a form's next line",
        "Name: Alistair J.\nDate of Birth: 1 May",
        [("Alistair J.\nDate of Birth", "PERSON")],
        ["Alistair J."],
    ),
    (
        "a form's next column",
        "Patient name: Marcus Lee   Age: 94",
        [("Marcus Lee   Age", "PERSON")],
        ["Marcus Lee"],
    ),
    (
        "a label's own colon",
        "Tel: 617 555 0199\nFax: none",
        [("617 555 0199\nFax:", "PHONE")],
        ["617 555 0199"],
    ),
    ("a name as a label stays", "Hi Kevin\nGrace: hello", [("Kevin\nGrace", "PERSON")], ["Kevin", "Grace"]),
    ("a credential is no initial", "Seen by Lee, M.D. today", [("Lee", "PERSON")], ["Lee"]),
    (
        "a wrapped name is no label",
        "seen by John\nSmith today: ok",
        [("John\nSmith", "PERSON")],
        ["John", "Smith"],  # both kept, one name per line (boundary.name-per-line)
    ),
]


@pytest.mark.parametrize(
    ("case", "text", "found", "replaced"), BOUNDARY_CASES, ids=[c[0] for c in BOUNDARY_CASES]
)
def test_span_boundaries(case, text, found, replaced):
    spans = UserOptionsDetector(FixedDetector(found)).detect(text)
    assert [text[s.start : s.end] for s in spans] == replaced


def test_the_boundary_rules_record_what_they_moved():
    text = "Dr. Tanaka reviewed the Swan-Ganz."
    with recording() as log:
        exact_boundaries(text, [Span(4, 19, "PERSON"), Span(29, 33, "OTHER")])
    assert {(text[d.start : d.end], d.rule) for d in log} == {
        ("Tanaka", "boundary.name-edge-words"),
        ("Swan-Ganz", "boundary.whole-words"),
    }


@pytest.fixture(scope="module")
def fast_pipe():
    return deid_hf.pipeline("deid-substitution", detector="fast", strategy="redact")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Dr. Tanaka reviewed the chart.", "reviewed the chart."),
        ("Visited Mayo Clinic yesterday.", "Visited "),
        ("Kenji Tanaka's wife Yuki called.", "'s wife "),
        ("SEEN BY DR RONAYNE GOOD PEDAL PULSES", " GOOD PEDAL PULSES"),
    ],
)
def test_the_issue_sentences_keep_their_neighbouring_words(fast_pipe, text, kept):
    result = fast_pipe(text)
    assert result["spans"] and kept in result["text"]


# a synthetic corpus: words (hyphenated, with apostrophes, digits), possessives, punctuation and spaces
WORDS = [
    "Tanaka", "reviewed", "the", "chart", "O'Brien", "Jean-Luc", "Swan-Ganz", "Foley", "catheter", "Hodgkin",
    "lymphoma", "Mayo", "Clinic", "visited", "MRN12345678", "3/4", "2021", "Ann", "Lee", "said", "TANAKA",
]  # fmt: skip
PIECES = st.lists(
    st.tuples(st.sampled_from(WORDS), st.booleans(), st.sampled_from([" ", ", ", ". ", "\n", " - "])),
    min_size=1,
    max_size=12,
)


def _corpus_text(pieces):
    """The text and the positions strictly inside its words (where no span may start or end; a slash
    separates two words: "3/4")."""
    text, inside = "", set()
    for word, possessive, gap in pieces:
        inside |= {len(text) + i for i in range(1, len(word)) if "/" not in word[i - 1 : i + 1]}
        text += word + ("'s" if possessive else "") + gap
    return text, inside


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES, st.data())
def test_no_span_starts_or_ends_inside_a_word(pieces, data):
    text, inside = _corpus_text(pieces)
    cuts = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(text) - 1), st.integers(1, 12), st.sampled_from(["PERSON", "ID"]))
        )
    )
    spans = [Span(a, min(a + n, len(text)), label) for a, n, label in cuts]
    for span in exact_boundaries(text, spans):
        assert span.start not in inside and span.end not in inside, (text, span)
    for span in spans:  # nothing found is given up but a name's common edge word
        if span.label == "ID":
            assert any(s.start <= span.start and span.end <= s.end for s in exact_boundaries(text, spans))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES)
def test_no_replaced_span_cuts_a_word_with_the_fast_detector(fast_pipe, pieces):
    text, inside = _corpus_text(pieces)
    for span in fast_pipe(text)["spans"]:
        assert span["start"] not in inside and span["end"] not in inside, (text, span)


#: a run of blanks far longer than any form's column gap
LONG_RUN = 200_000


@pytest.mark.parametrize("gap", [" ", "\t", " \t"])
def test_a_long_blank_run_before_a_label_costs_linear_time(hang_guard, gap):
    """A span over a long run of blanks or tabs, then a colon, is cut in linear time (the former label
    pattern was cubic in the run's length)."""
    text = "Patient: John" + gap * LONG_RUN + "Smith Lee Ann Bo Cy Dee:"  # six words: no label
    assert before_form_label(text, Span(9, len(text) - 1, "PERSON")) == [Span(9, len(text) - 1, "PERSON")]
    text = "Patient: John" + gap * LONG_RUN + "Date of Birth:"
    assert before_form_label(text, Span(9, len(text), "PERSON")) == [Span(9, 13, "PERSON")]


def test_a_long_blank_run_inside_a_name_costs_linear_time(hang_guard):
    """A name over a long run of blanks keeps its edges in linear time (the possessive pattern was tried
    at every blank of the run)."""
    text = "Patient John" + " " * LONG_RUN + "Smith's chart"
    span = Span(8, len(text) - len(" chart"), "PERSON")
    assert trim_common_words(text, span) == Span(8, len(text) - len("'s chart"), "PERSON")


@pytest.mark.parametrize(
    "text",
    [
        "As Smith et al. report, it holds.",
        "as smith et al. report, it holds.",  # where casing says nothing too
        "As Smith et al. today the",  # a lower-case word after "al." (careless casing)
        "AS SMITH ET AL. REPORTED",  # in capitals
    ],
)
def test_et_of_et_al_is_no_part_of_a_name(text):
    start = text.lower().index("smith")
    assert trim_common_words(text, Span(start, start + len("Smith et"), "PERSON")) == Span(
        start, start + len("Smith"), "PERSON"
    )
