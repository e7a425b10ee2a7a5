"""Odd characters: the same-length normalisation models see, and the detection holes it closes."""

import pytest

import deid_hf
from deid_hf.text import model_text


def test_model_text_keeps_length_and_offsets():
    text = "a\ud800b\x00c\u200bd\ufeffe\x1bf\tg\nh\ri\u00adj\x85k é 日本"
    safe = model_text(text)
    assert len(safe) == len(text)
    # a soft hyphen, a zero-width space or a byte order mark inside a word keeps the word whole
    assert safe == "a b ccdde f\tg\nh\riij k é 日本"
    safe.encode("utf-8")  # no lone surrogate is left
    assert model_text("plain text") == "plain text"


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("Kowal\u00adska", "Kowallska"),  # soft hyphen, joiners and word joiner inside a word
        ("Kowal\u200dska", "Kowallska"),
        ("ab\u200c\u200dcd", "ab  cd"),  # two in a row: no word's inside
        ("Mary\u200bJones", "Mary Jones"),  # a zero-width space separates capitalised words
        ("Harrow\u200bgate", "Harrowwgate"),  # not a word split before a lower-case letter
        ("Ilsabet \u2066Marrowind\u2069;", "Ilsabet MMarrowindd;"),  # bidi isolates around a word
        ("\u200eAnn \ufeffLee\u200f.", "AAnn LLeee."),  # marks at words' edges
        ("Phone\u200b0199\u200bThen", "Phone 0199 Then"),  # between a letter and a digit: a space
        ("\U0001f600Marek Dyja\U0001f600", " Marek Dyja "),  # emoji would make "😀Marek" an unknown token
        ("\u2764\ufe0fRafael", "  Rafael"),  # with its variation selector
        ("\U0001f44d\U0001f3fd ok", "   ok"),  # and its skin tone
        ("\U0001f1f5\U0001f1f1Marek", "  Marek"),  # a flag's letters
        ("617-555\u00ad0143", "617-555 0143"),  # between digits: a space
        ("98.6°F", "98.6°F"),  # a degree sign is no pictograph
        ("92\u00a0yo\u202fF\u3000ok", "92 yo F ok"),  # no-break, narrow and ideographic spaces
        ("a\u2028b\u2029c", "a\nb\nc"),  # line and paragraph separators
        ("\uff12\uff10\uff12\uff14年 \uff2d\uff41\uff52\uff59", "2024年 Mary"),  # full-width forms
    ],
)
def test_model_text_joins_words_across_format_characters_and_blanks_pictographs(text, seen):
    assert model_text(text) == seen


def test_a_long_run_is_broken_at_a_separator_where_it_has_one():
    run = "ref=" + "x" * 100 + ";email=kenji.tanaka@example.com;phone=+1-217-555-0143"
    assert model_text(run).split() == ["ref=" + "x" * 100, run[105:]]  # not inside the e-mail address
    assert max(map(len, model_text("y" * 1000).split())) <= 128  # without one, every MAX_RUN characters


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
        ("ref=" + "x" * 100 + ";mail=kenji.tanaka@example.com end", 110, 134),
        ("Mail \U0001f600kenji.tanaka@example.com\U0001f600 now", 6, 30),
        ("Seen\u00a0on\u00a0March\u00a03,\u00a02024.", 8, 21),  # no-break spaces inside a date
        ("Call\u00a0617\u202f555\u202f0199 now", 5, 17),
        ("Born \uff13/\uff11\uff14/\uff11\uff19\uff15\uff16 here", 5, 14),  # full-width digits
        ("Seen by Dr. Quenby Harrow\u200bgate today.", 12, 29),  # a zero-width space inside the surname
        ("Seen by Dr. Quenby \u2066Harrowgate\u2069 today.", 12, 30),  # bidi isolates around it
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
