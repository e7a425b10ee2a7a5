"""No input shape costs more than linear time in our code or in the libraries it calls (quadratic edits of
long words, presidio's URL pattern on dotted runs, spaCy's tokenizer on bracket runs). Timings are compared
with each other in the same test, never with a wall-clock figure, so a busy machine does not fail them: four
times the input must cost well under the sixteen times a quadratic path takes, and a pathological shape must
cost about what ordinary prose of the same size costs."""

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_hf.detect import get_detector
from deid_hf.detect.lexicon import is_misspelling
from deid_hf.detect.patterns import PatternDetector, url_text
from deid_hf.text import MAX_RUN, model_text

SIZE = 100_000
#: a shape may cost this many times ordinary prose of its size (a quadratic path costs hundreds of times)
PROSE_FACTOR = 5
#: four times the input may cost this many times as much (linear: 4, quadratic: 16)
GROWTH = 8
PROSE = "The patient was seen in the clinic today and reports feeling better after the new medication. "
#: the pathological units of the issue: long words, dotted runs, bracket runs, digit runs, short lines
UNITS = ["a", "a.", "1.", "(", ")", "((", "1", "+1 ", "ab\n", "x-", "'"]


def seconds(call, *args) -> float:
    start = time.perf_counter()
    call(*args)
    return time.perf_counter() - start


def shaped(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


@pytest.fixture(scope="module")
def patterns():
    return PatternDetector()


def grows_linearly(call, make, size: int) -> bool:
    """``call(make(4 * size))`` costs less than `GROWTH` times ``call(make(size))`` (best of two runs)."""
    small = min(seconds(call, make(size)) for _ in range(2))
    large = min(seconds(call, make(4 * size)) for _ in range(2))
    return large < GROWTH * small + 0.05


def test_long_word_misspelling_check_is_bounded():
    assert grows_linearly(is_misspelling, lambda n: "a" * n, 2_400)
    assert (
        seconds(is_misspelling, "b" * SIZE)
        < 100 * min(seconds(is_misspelling, "defecits") for _ in range(3)) + 0.05
    )
    assert is_misspelling("defecits")  # still finds typos of ordinary length


def test_dotted_run_url_pattern_is_bounded(patterns):
    assert grows_linearly(patterns.detect, lambda n: model_text(shaped("a.", n)), 5_000)
    prose = min(seconds(patterns.detect, shaped(PROSE, 20_000)) for _ in range(2))
    assert seconds(patterns.detect, model_text(shaped("a.", 20_000))) < PROSE_FACTOR * prose + 0.05


def test_urls_are_still_found_after_bounding_dots(patterns):
    text = "see www.a.b.example.co.uk today"
    assert url_text(text) == text
    urls = [text[s.start : s.end] for s in patterns.detect(text) if s.label == "URL"]
    assert urls == ["www.a.b.example.co.uk"]


def test_bracket_run_spacy_is_bounded():
    spacy = get_detector("spacy")
    assert grows_linearly(spacy.detect, lambda n: model_text("(" * n + ")" * n), 750)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    units=st.lists(st.sampled_from(UNITS), min_size=1, max_size=3),
    size=st.sampled_from([1_000, 10_000, SIZE]),
)
def test_pathological_shapes_cost_bounded_in_our_code(units, size):
    """Our own text passes (normalisation, URL shaping, the misspelling check on every word) cost about what
    prose of the same size costs, and keep offsets."""
    text = "".join(shaped(unit, size // len(units)) for unit in units)

    def passes(text: str):
        seen = model_text(text)
        for word in seen.split()[:20_000]:
            is_misspelling(word)
        return seen, url_text(seen)

    start = time.perf_counter()
    seen, bounded = passes(text)
    cost = time.perf_counter() - start
    prose = min(seconds(passes, shaped(PROSE, size)) for _ in range(2))
    assert cost < PROSE_FACTOR * prose + 0.2
    assert len(seen) == len(bounded) == len(text)
    assert max(map(len, seen.split()), default=0) <= MAX_RUN


@pytest.mark.parametrize("unit", ["+1 ", "ab\n", "a.", "(", "1", "a"])
def test_fast_detector_grows_linearly_on_pathological_shapes(unit):
    """The whole `fast` detector (spaCy and every pattern, phone matching included) grows linearly on each
    shape ("+1 " runs and many short lines were slow in phone matching). Every run gets a text of its own:
    detectors cache their results by text."""
    fast = get_detector("fast")
    runs = iter(range(1_000))

    def cost(size: int) -> float:
        return min(
            seconds(fast.detect_batch, [f"{next(runs)} " + model_text(shaped(unit, size))]) for _ in range(2)
        )

    assert cost(4 * 5_000) < GROWTH * cost(5_000) + 0.05
