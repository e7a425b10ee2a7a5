"""Long documents: every pattern is linear in the text's length, and spaCy parses long texts in pieces.

No timing is asserted; a generous alarm only guards against a hang (the former postal-block pattern was
cubic on long lines with digits and did not finish on these inputs)."""

import re

import pytest

from deid_hf.detect import ner
from deid_hf.detect.ner import SpacyDetector, chunk_bounds
from deid_hf.detect.patterns import EXTRA_PATTERNS
from deid_hf.detect.policy import DATE_PATTERNS, PHONE_IN_TEXT
from deid_hf.replace.dates import PATTERNS as DATE_REWRITE_PATTERNS

N = 200_000
ADVERSARIAL = {
    "digits": "1" * N,
    "spaced digits then a block": "1 " * (N // 2) + "\nCity\n, CO\n 12345",
    "dashed token": "a-" * (N // 2),
    "dotted capitals": "A." * (N // 2),
    "capitals": "Aa " * (N // 3),
    "long spaces": "1 A" + " " * N + "x",
    "lines": "1 a\n" * (N // 4),
    "slashed digits": "1/" * (N // 2),
    "apostrophes": "1'" * (N // 2),
    "years": "1977 " * (N // 5),
}
#: the detectors' patterns, the policy's date and phone rules and the date rewriter's patterns
LONG_LINE_PATTERNS = [(label, rx) for label, rx, _ in EXTRA_PATTERNS]
LONG_LINE_PATTERNS += [(f"policy date {i}", rx) for i, rx in enumerate(DATE_PATTERNS)]
LONG_LINE_PATTERNS += [("policy phone", PHONE_IN_TEXT.pattern)]
LONG_LINE_PATTERNS += [(f"date rewrite {i}", rx.pattern) for i, rx in enumerate(DATE_REWRITE_PATTERNS)]


@pytest.mark.parametrize("label, regex", LONG_LINE_PATTERNS)
def test_patterns_finish_on_long_adversarial_lines(hang_guard, label, regex):
    compiled = re.compile(regex)
    for text in ADVERSARIAL.values():
        for match in compiled.finditer(text):
            assert match.end() - match.start() <= len(text)


def test_postal_block_starts_at_the_house_number():
    block = next(re.compile(rx) for label, rx, _ in EXTRA_PATTERNS if "\\n," in rx)
    text = "The restaurant is located at 704 1436 Redbud Drive\nCite Essanaouber\n, 32\n 60810, see you."
    assert [m.group() for m in block.finditer(text)] == [
        "704 1436 Redbud Drive\nCite Essanaouber\n, 32\n 60810"
    ]
    text = "The address of Persint is 6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677"
    assert [m.group() for m in block.finditer(text)] == [text[len("The address of Persint is ") :]]


def test_chunk_bounds_cover_the_text_and_cut_at_whitespace():
    text = ("Maria Gonzalez lives in Paris. " * 40 + "\n") * 30 + "x" * 3000
    bounds = chunk_bounds(text, 1000)
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
    assert all(a < b <= a + 1000 for a, b in bounds) and all(p[1] == q[0] for p, q in zip(bounds, bounds[1:]))
    assert all(text[b - 1].isspace() for _, b in bounds[:-4])  # the last pieces cut one long token


def test_spacy_parses_texts_longer_than_max_length(monkeypatch):
    detector = SpacyDetector()
    monkeypatch.setattr(detector.nlp, "max_length", 2_000)
    monkeypatch.setattr(ner, "SPACY_CHUNK", 1_000)
    monkeypatch.setattr(ner.chunk_bounds, "__defaults__", (1_000,))
    ner.parse.cache_clear()
    sentence = "Yesterday Maria Gonzalez flew from Boston to Paris with Tom Becker.\n"
    text = sentence * 80  # 5,440 characters: over max_length
    found = {(text[s.start : s.end], s.label) for s in detector.detect(text)}
    assert ("Maria Gonzalez", "PERSON") in found and ("Boston", "LOCATION") in found
    assert all(text[s.start : s.end].strip() == text[s.start : s.end] for s in detector.detect(text))
    ner.parse.cache_clear()


def test_repeated_mentions_scale_to_many_distinct_items():
    """One pass over the text: 2,000 distinct items in a 100,000-character document (formerly one regex
    search per item, i.e. items x length)."""
    from deid_hf.detect.base import add_repeated_mentions
    from deid_hf.spans import Span

    items = [f"Name{n:04d} Surname{n:04d}" for n in range(2000)]
    text = " and ".join(items * 2)
    spans, offset = [], 0
    for item in items:  # the first occurrence of each item is detected
        spans.append(Span(offset, offset + len(item), "PERSON", 0.9, "spacy"))
        offset += len(item) + len(" and ")
    found = add_repeated_mentions(text, spans)
    assert len(found) == 4000 and sum(s.source == "repeat" for s in found) == 2000
    assert all(text[s.start : s.end] in items for s in found)
