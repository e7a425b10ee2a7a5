"""Odd characters: the same-length normalisation models see, and the detection holes it closes."""

import pytest

import deid_hf
from deid_hf.text import model_text


def test_model_text_keeps_length_and_offsets():
    text = "a\ud800b\x00c\u200bd\ufeffe\x1bf\tg\nh\ri\u00adj\x85k é 日本"
    safe = model_text(text)
    assert len(safe) == len(text)
    assert safe == "a b c d e f\tg\nh\ri j k é 日本"
    safe.encode("utf-8")  # no lone surrogate is left
    assert model_text("plain text") == "plain text"


@pytest.fixture(scope="module")
def pipe():
    return deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed")


def covered(out, start, end):
    spans = [(s["start"], s["end"]) for s in out["spans"] if s["replaced"]]
    return all(any(a <= i < b for a, b in spans) for i in range(start, end))


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("John Smith\x00", 0, 10),
        ("Call John Smith\x00 now.", 5, 15),
        ("Mary\u200bJones called yesterday.", 0, 10),
        ("!?John.Smith@x.com", 2, 18),
        ("Write to:!?John.Smith@x.com!?", 11, 27),
        ("John Smith \ud800 called 555-123-4567", 20, 32),
        ("John Smith \ud800 called 555-123-4567", 0, 10),
    ],
)
def test_names_and_emails_next_to_odd_characters_are_covered(pipe, text, start, end):
    out = pipe(text, seed=1)
    assert covered(out, start, end), out["spans"]
    # the output is the original with the replaced spans substituted: odd characters outside them survive
    rebuilt, cursor = [], 0
    for s in sorted(out["spans"], key=lambda s: s["start"]):
        rebuilt += [
            text[cursor : s["start"]],
            s["replacement"] if s["replaced"] else text[s["start"] : s["end"]],
        ]
        cursor = s["end"]
    assert out["text"] == "".join(rebuilt) + text[cursor:]
