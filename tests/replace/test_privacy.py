import math
import random
from collections import Counter

import pytest
from scipy.stats import chisquare

from deid_hf.errors import InputError
from deid_hf.privacy import normalise, randomized_response_epsilon, token_epsilon
from deid_hf.replace import get_strategy
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.spans import Span


def test_token_epsilon_matches_hand_computed_values():
    # p = 0.5, pi = 0.25: log((0.5 + 0.125) / 0.125) = log 5
    assert token_epsilon(0.5, 0.25) == pytest.approx(math.log(5))
    # p = 0.9, pi = 0.1: log((0.1 + 0.09) / 0.09)
    assert token_epsilon(0.9, 0.1) == pytest.approx(math.log(0.19 / 0.09))
    assert token_epsilon(1.0, 0.3) == 0.0


def test_zero_probability_convention():
    assert token_epsilon(1.0, 0.0) == 0.0
    assert token_epsilon(0.99, 0.0) == math.inf


def test_epsilon_is_the_maximum_over_private_tokens():
    pi = {"a": 0.5, "b": 0.3, "c": 0.2}
    assert randomized_response_epsilon(0.8, pi, ["a", "c"]) == pytest.approx(math.log((0.2 + 0.16) / 0.16))
    assert randomized_response_epsilon(0.8, pi, []) == 0.0


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, "0.5", True])
def test_p_outside_range_is_rejected(bad):
    with pytest.raises(InputError, match="p must be a number in"):
        token_epsilon(bad, 0.5)


def test_pi_must_be_a_distribution():
    with pytest.raises(InputError, match="sum to 1"):
        randomized_response_epsilon(0.5, {"a": 0.5}, ["a"])
    assert normalise({"a": 3, "b": 1}) == {"a": 0.75, "b": 0.25}


def test_strategy_reports():
    private = {"PERSON": {"Maria"}}
    assert get_strategy("redact").privacy(1.0, private).epsilon == 0.0
    assert get_strategy("typed").privacy(1.0, private).epsilon == 0.0
    assert get_strategy("typed").privacy(0.9, private).epsilon is None
    named = get_strategy("named").privacy(0.5, {"LOCATION": {"London"}})
    assert named.epsilon == pytest.approx(math.log(2))
    full = get_strategy("full_entity").privacy(1.0, private)
    assert full.epsilon is None and "no DP guarantee" in full.guarantee


def _replace_many(strategy, p, words, seed=0):
    rng = random.Random(seed)
    text = " ".join(words)
    spans, pos = [], 0
    for word in words:
        spans.append(Span(pos, pos + len(word), "PERSON"))
        pos += len(word) + 1
    _, records = apply_strategy(text, spans, strategy, p, rng, SubstitutionTable())
    return records


def test_empirical_replacement_rate_matches_p():
    records = _replace_many(get_strategy("typed"), 0.3, ["Ann"] * 4000)
    replaced = sum(r.replaced for r in records)
    assert chisquare([replaced, len(records) - replaced], [0.3 * 4000, 0.7 * 4000]).pvalue > 0.01


def test_word_by_word_draws_follow_pi():
    strategy = get_strategy("word_by_word", pool="dissociation").fit(
        [("PERSON", "Ann")] * 5 + [("PERSON", "Bob")] * 3 + [("PERSON", "Cy")] * 2
    )
    records = _replace_many(strategy, 1.0, ["Zed"] * 3000)
    counts = Counter(r.replacement for r in records)
    pi = strategy.replacement_distribution("PERSON")
    observed = [counts[w] for w in pi]
    assert chisquare(observed, [pi[w] * 3000 for w in pi]).pvalue > 0.01
    report = strategy.privacy(0.5, {"PERSON": {"Ann", "Cy"}})
    assert report.epsilon == pytest.approx(math.log((0.5 + 0.5 * 0.2) / (0.5 * 0.2)))


def test_consistent_mapping_within_a_table():
    text = "Ann met Bob. Ann left."
    spans = [Span(0, 3, "PERSON"), Span(8, 11, "PERSON"), Span(13, 16, "PERSON")]
    out, records = apply_strategy(
        text, spans, get_strategy("full_entity"), 1.0, random.Random(0), SubstitutionTable()
    )
    assert records[0].replacement == records[2].replacement
    assert "Ann" not in out and "Bob" not in out
