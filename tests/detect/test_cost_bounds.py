"""No input shape costs more than linear time in our code or in the libraries it calls (quadratic edits of
long words, presidio's URL pattern on dotted runs, spaCy's tokenizer on bracket runs). Timings are compared
with each other in the same test, never with a wall-clock figure, so a busy machine does not fail them: four
times the input must cost well under the sixteen times a quadratic path takes, and a pathological shape must
cost about what ordinary prose of the same size costs."""

import random
import string
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid_hf.detect import get_detector
from deid_hf.detect.clinical import ClinicalContextDetector
from deid_hf.detect.lexicon import is_misspelling
from deid_hf.detect.patterns import PatternDetector, url_text
from deid_hf.text import FILLER_EDGE, FILLER_MIN, MAX_RUN, filler_blanked, model_text

SIZE = 100_000
#: a shape may cost this many times ordinary prose of its size (a quadratic path costs hundreds of times)
PROSE_FACTOR = 5
#: four times the input may cost this many times as much (linear: 4, quadratic: 16)
GROWTH = 8
#: text the models read whole may cost this many times prose of its size: it holds up to twice prose's
#: tokens and many more spans (a quadratic path costs tens of times)
DENSE_FACTOR = 8
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


@pytest.mark.parametrize("unit", ["+1 ", "ab\n", "a.", "(", "1", "a", "0x"])
def test_fast_detector_grows_linearly_on_pathological_shapes(unit):
    """The whole `fast` detector (spaCy and every pattern, phone matching included) grows linearly on each
    shape ("+1 " runs, many short lines and "0x" runs, whose blanked inside the phone matcher read as one
    candidate, were slow in phone matching). Every run gets a text of its own: detectors cache their
    results by text."""
    fast = get_detector("fast")
    runs = iter(range(1_000))

    def cost(size: int) -> float:  # the least of three runs: a loaded machine only adds time
        return min(
            seconds(fast.detect_batch, [f"{next(runs)} " + model_text(shaped(unit, size))]) for _ in range(3)
        )

    # sizes large enough that linear work outweighs a scheduler's noise; quadratic work grows 16 times
    assert cost(4 * 20_000) < GROWTH * cost(20_000) + 0.1


#: the filler units: no letter or digit, or one short unit repeated (`deid_hf.text.filler_blanked`)
FILLER_UNITS = ["a.", "1.", "(", "((", "([{", "(a)", "+1 ", "ab\n", "-", "'", "1"]
#: a sentence with a name, a date and a phone, put inside each shape
SENTENCE = " Maria Gonzalez was admitted on March 3, 2024; call her at (217) 555-0143. "
IDENTIFIERS = ("Maria", "Gonzalez", "2024", "555-0143")


@pytest.mark.parametrize("unit", FILLER_UNITS)
def test_filler_runs_blanked_inside_only(unit):
    """A long filler run keeps its edges and loses its inside; what lies beside it is left as it is."""
    run = shaped(unit, 5_000)
    text = run + SENTENCE + run
    seen = model_text(text)
    assert len(seen) == len(text)
    assert seen.startswith(run[:FILLER_EDGE]) and seen.endswith(run[-FILLER_EDGE:])
    # the sentence and the run's ends beside it (a run without letters or digits takes in the blanks and
    # punctuation next to it, so a few characters fewer of it)
    assert run[-FILLER_EDGE + 4 :] + SENTENCE + run[: FILLER_EDGE - 4] in seen
    # a unit cut at the run's end is outside the repeated run: a few characters of margin
    inside = seen[FILLER_EDGE + 4 : len(run) - FILLER_EDGE - 4]
    assert not inside.strip()


def test_ordinary_text_is_not_blanked():
    """Prose, a short separator line, a repeated sentence and a long varied run are read as written."""
    for text in (
        shaped(PROSE, 20_000),
        "Plan:\n" + "-" * 80 + "\nfollow up",
        "x" + "-" * (FILLER_MIN - 1) + "x",
        shaped("Ann Lee, ", 2_000),  # a unit of more than four characters
        "x " + shaped("(a(b(c)", 1_000),
    ):
        assert filler_blanked(text) == text


@pytest.mark.parametrize("unit", ["a" * 14 + "b", "ab" * 14 + "c", "abcd" * 15 + "e", "(" * 255 + "a"])
def test_near_filler_shapes_cost_the_blanking_what_prose_costs(unit):
    """Runs one repeat or one character short of a filler run (the blanking's own worst case) cost its
    patterns about what prose costs."""
    prose = min(seconds(model_text, shaped(PROSE)) for _ in range(3))
    assert min(seconds(model_text, shaped(unit)) for _ in range(2)) < PROSE_FACTOR * prose + 0.05
    assert filler_blanked(shaped(unit, 5_000)) == shaped(unit, 5_000)


def test_blank_runs_cost_linear_in_the_context_rules():
    """The credential rule read a long blank run in every split around its optional comma (cubic)."""
    context = ClinicalContextDetector()
    for blank in (" ", "\t"):
        assert grows_linearly(
            context.detect, lambda n, b=blank: "Dr. Ann Lee, RN." + b * n + "a. Smith MD", 300
        )


@pytest.fixture(scope="module")
def default_pipe():
    import deid_hf

    return deid_hf.pipeline("deid-substitution", strategy="typed")


@pytest.mark.parametrize("unit", UNITS + ["([{", "(a)"])
def test_identifiers_inside_each_pathological_shape_are_replaced(default_pipe, unit):
    """A name, a date and a phone between two runs of a pathological shape are replaced."""
    run = shaped(unit, 5_000)
    out = default_pipe(run + SENTENCE + run)["text"]
    assert not [word for word in IDENTIFIERS if word in out]


def test_identifiers_glued_to_bracket_runs_are_replaced(default_pipe):
    out = default_pipe("(" * 5_000 + "Maria Gonzalez" + ")" * 5_000 + " " + "[" * 5_000 + "217-555-0143]")
    assert "Gonzalez" not in out["text"] and "555-0143" not in out["text"]


def test_filler_shapes_cost_the_learned_model_few_tokens(minilm_tokenizer):
    """The learned model's cost grows with the tokens it reads: a filler shape of 100 KB gives it fewer
    tokens than prose of that size (before the blanking: one or two per character)."""

    def tokens(text: str) -> int:
        return len(minilm_tokenizer(model_text(text), add_special_tokens=False)["input_ids"])

    prose = tokens(shaped(PROSE, SIZE))
    for unit in FILLER_UNITS:
        assert tokens(shaped(unit, SIZE)) < prose / 10, unit


_runs = iter(range(1_000_000))


def pipeline_seconds(pipe, text: str) -> float:
    """Seconds of one call on ``text`` numbered first (no detector answers it from its cache)."""
    return seconds(pipe, f"{next(_runs)} {text}"[: len(text)])


@pytest.fixture(scope="module")
def prose_seconds(default_pipe) -> float:
    """The default pipeline on prose of `SIZE` characters: the best of two calls."""
    return min(pipeline_seconds(default_pipe, shaped(PROSE, SIZE)) for _ in range(2))


@pytest.mark.slow
def test_pathological_shapes_of_100kb_cost_less_than_prose(default_pipe, prose_seconds):
    """The whole default pipeline on each filler shape of 100 KB costs less than on prose of 100 KB,
    measured in the same module (a ratio: a loaded machine slows both). Before the blanking, dotted and
    bracket runs cost several times prose."""
    ratios = {u: pipeline_seconds(default_pipe, shaped(u, SIZE)) / prose_seconds for u in FILLER_UNITS}
    assert max(ratios.values()) < 1, {unit: round(ratio, 2) for unit, ratio in ratios.items()}


def token_dense(shape: str, size: int = SIZE) -> str:
    """Text the models must read whole (it can hold names) at about one token per character or word."""
    rng = random.Random(0)
    if shape == "short lines":
        words = ["ab", "Ann", "12", "+1", "Lee", "x", "Dr.", "(", "a.b"]
        return "\n".join(" ".join(rng.choices(words, k=rng.randint(1, 3))) for _ in range(size // 4))[:size]
    if shape == "letters between brackets":
        return "".join(rng.choice("([{") + rng.choice(string.ascii_letters) for _ in range(size // 2))
    scripts = [(0x41, 0x7A), (0x400, 0x4FF), (0x4E00, 0x4FFF), (0x1F300, 0x1F6FF), (0x300, 0x36F)]
    return "".join(chr(rng.randint(*rng.choice(scripts))) for _ in range(size))  # "random unicode"


#: the size of the token-dense texts: the model reads all of it, so a quadratic path shows at this size
#: already, and the three shapes cost the suite a third of what 100 KB each would
DENSE_SIZE = 40_000


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["short lines", "letters between brackets", "random unicode"])
def test_token_dense_shapes_cost_a_few_times_prose(default_pipe, shape):
    """Text that can hold names is read whole: its cost is its tokens and spans, linear (a quarter of it
    costs about a quarter) and a few times prose of its size at most, never the tens of times of a
    quadratic path. Each comparison is timed back to back: the load of a shared machine drifts within a
    module, and a ratio must compare two timings under the same load."""
    quarter = pipeline_seconds(default_pipe, token_dense(shape, DENSE_SIZE // 4))
    prose = pipeline_seconds(default_pipe, shaped(PROSE, DENSE_SIZE))
    cost = pipeline_seconds(default_pipe, token_dense(shape, DENSE_SIZE))
    prose = max(prose, pipeline_seconds(default_pipe, shaped(PROSE, DENSE_SIZE)))
    assert cost < GROWTH * quarter
    assert cost < DENSE_FACTOR * prose
