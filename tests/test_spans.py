import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deid_hf.errors import InputError
from deid_hf.spans import LABELS, Span, merge_spans


@st.composite
def spans(draw):
    start = draw(st.integers(0, 60))
    return Span(
        start,
        start + draw(st.integers(1, 15)),
        draw(st.sampled_from(LABELS)),
        draw(st.floats(0, 1)),
        draw(st.sampled_from(["spacy", "patterns", "pfilter"])),
    )


def covered(items):
    return {i for s in items for i in range(s.start, s.end)}


@given(st.lists(spans(), max_size=12))
def test_merge_keeps_exactly_the_covered_characters(items):
    assert covered(merge_spans(items)) == covered(items)


@given(st.lists(spans(), max_size=12))
def test_merge_is_idempotent_sorted_and_disjoint(items):
    merged = merge_spans(items)
    assert merge_spans(merged) == merged
    for a, b in itertools.pairwise(merged):
        assert a.end <= b.start


def test_union_keeps_best_label_max_score_and_all_sources():
    merged = merge_spans(
        [
            Span(0, 5, "PERSON", 0.9, "spacy"),
            Span(3, 9, "ORG", 0.4, "patterns"),
            Span(20, 22, "AGE", 0.5, "patterns"),
        ]
    )
    assert merged == [Span(0, 9, "PERSON", 0.9, "patterns+spacy"), Span(20, 22, "AGE", 0.5, "patterns")]


def test_a_typed_label_beats_an_untyped_higher_score():
    merged = merge_spans([Span(0, 9, "OTHER", 0.99, "pfilter"), Span(0, 5, "PERSON", 0.85, "spacy")])
    assert merged == [Span(0, 9, "PERSON", 0.99, "pfilter+spacy")]
    assert merge_spans([Span(0, 4, "OTHER", 0.2), Span(2, 6, "OTHER", 0.7)])[0].score == 0.7


def test_a_date_gives_its_label_only_to_what_lies_within_its_dates():
    # a date is rewritten in place and the rest of its span kept: "Smith" of "3 May Smith" would stay
    merged = merge_spans([Span(8, 13, "DATE_TIME", 1.0, "policy"), Span(10, 19, "PERSON", 0.8, "model")])
    assert merged == [Span(8, 19, "PERSON", 1.0, "model+policy")]
    inside = merge_spans([Span(0, 18, "DATE_TIME", 1.0, "policy"), Span(0, 9, "PERSON", 0.8, "model")])
    assert inside[0].label == "DATE_TIME"  # "September" of "September 30, 1972" read as a name


def test_touching_spans_stay_apart():
    assert len(merge_spans([Span(0, 3), Span(3, 6)])) == 2


@pytest.mark.parametrize("args", [(3, 3), (-1, 2), (5, 2)])
def test_invalid_offsets_are_rejected(args):
    with pytest.raises(InputError, match="invalid span"):
        Span(*args)


def test_unknown_label_is_rejected():
    with pytest.raises(InputError, match="unknown span label"):
        Span(0, 1, "NAME")


def test_trim_edge_words_keeps_inner_words_and_whole_tokens():
    from deid_hf.spans import trim_edge_words

    text = "see the 3M company of the year ."
    span = Span(4, len(text), "ORG")

    def lower_or_punctuation(word):
        return word.islower() or not any(ch.isalnum() for ch in word)

    assert trim_edge_words(text, span, lower_or_punctuation).text(text) == "3M"
    kept = trim_edge_words(text, span, lambda w: w in ("the", "."))
    assert kept.text(text) == "3M company of the year" and kept.label == "ORG"
    assert trim_edge_words(text, span, lambda w: True) is None
    assert trim_edge_words(text, span, lambda w: w != ".") is None  # only punctuation left
    assert trim_edge_words(text, span, lambda w: False) is span


def test_overlaps_answers_as_a_scan_of_the_spans_would():
    import random

    from deid_hf.spans import Overlaps, Span

    rng = random.Random(0)
    for _ in range(200):
        spans = [
            Span(a, a + rng.randint(1, 9)) for a in (rng.randint(0, 60) for _ in range(rng.randint(0, 8)))
        ]
        index = Overlaps(spans)
        for start in range(0, 70, 3):
            end = start + rng.randint(1, 6)
            assert index(start, end) == any(s.start < end and start < s.end for s in spans)
