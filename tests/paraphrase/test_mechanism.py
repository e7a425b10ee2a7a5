import math
from collections import Counter

import pytest
import torch
from scipy.stats import chisquare
from transformers import LlamaConfig, LlamaForCausalLM

from deid_hf.errors import InputError
from deid_hf.paraphrase import ClampBounds, dp_generate
from deid_hf.privacy import (
    epsilon_per_token,
    max_tokens_for_budget,
    sensitivity,
    temperature_for,
    total_epsilon,
)


def test_accounting_is_exact():
    assert sensitivity(-2.0, 3.0) == 5.0
    assert temperature_for(4.0, 5.0) == 2.5  # T = 2 * 5 / 4
    assert epsilon_per_token(2.5, 5.0) == 4.0
    assert total_epsilon(4.0, 12) == 48.0
    assert max_tokens_for_budget(48.0, 4.0) == 12 and max_tokens_for_budget(47.9, 4.0) == 11
    assert epsilon_per_token(temperature_for(0.3, 1.0), 1.0) == pytest.approx(0.3)
    for bad in (
        lambda: sensitivity(1, 1),
        lambda: temperature_for(0, 1),
        lambda: total_epsilon(1.0, -1),
        lambda: temperature_for(math.inf, 1),
    ):
        with pytest.raises(InputError):
            bad()


@pytest.fixture(scope="module")
def tiny_lm():
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=8,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32,
        bos_token_id=0,
        eos_token_id=7,
        pad_token_id=7,
    )
    return LlamaForCausalLM(config).eval()


def test_sampler_matches_softmax_of_clamped_logits(tiny_lm):
    prompt = torch.tensor([[0, 3, 5]])
    with torch.no_grad():
        logits = tiny_lm(input_ids=prompt).logits[0, -1]
    bounds = ClampBounds(float(logits.quantile(0.25)), float(logits.quantile(0.75)))
    epsilon = 3.0
    expected = torch.softmax(
        logits.clamp(bounds.low, bounds.high) / temperature_for(epsilon, bounds.sensitivity), -1
    )
    torch.manual_seed(1234)
    n = 6000
    batch = {"input_ids": prompt.repeat(n, 1), "attention_mask": torch.ones(n, 3, dtype=torch.long)}
    ids, report = dp_generate(
        tiny_lm, batch, epsilon_token=epsilon, bounds=bounds, max_new_tokens=1, pad_token_id=7
    )
    counts = Counter(ids[:, 0].tolist())
    observed = [counts[i] for i in range(8)]
    expected_counts = (expected.double() / expected.double().sum() * n).tolist()
    assert chisquare(observed, expected_counts).pvalue > 0.01
    assert report.dp and report.epsilon_per_token == pytest.approx(epsilon)
    assert report.epsilon == pytest.approx(epsilon)


@pytest.mark.parametrize(
    "option",
    [{"top_k": 50}, {"top_p": 0.9}, {"repetition_penalty": 1.2}, {"num_beams": 2}, {"temperature": 0.7}],
)
def test_options_that_break_the_guarantee_are_refused(tiny_lm, option):
    inputs = {"input_ids": torch.tensor([[0, 3]]), "attention_mask": torch.ones(1, 2, dtype=torch.long)}
    with pytest.raises(InputError, match="would break the DP guarantee"):
        dp_generate(tiny_lm, inputs, epsilon_token=1.0, bounds=ClampBounds(0, 1), max_new_tokens=2, **option)
    if "num_beams" not in option:
        _, report = dp_generate(
            tiny_lm,
            inputs,
            epsilon_token=1.0,
            bounds=ClampBounds(0, 1),
            max_new_tokens=2,
            allow_non_dp=True,
            pad_token_id=7,
            **option,
        )
        assert not report.dp and "no DP guarantee" in report.guarantee


def test_bounds_are_calibrated_and_stored(tiny_lm, smollm2):
    model, tokenizer = smollm2
    bounds = ClampBounds.calibrate(model, tokenizer, ["Hello there.", "My name is Ann."])
    assert bounds.low < bounds.high
    bounds.store(tiny_lm)
    assert ClampBounds.stored(tiny_lm) == bounds


def test_plain_sampling_is_an_explicit_opt_out(tiny_lm):
    inputs = {"input_ids": torch.tensor([[0, 3]]), "attention_mask": torch.ones(1, 2, dtype=torch.long)}
    with pytest.raises(InputError, match="epsilon would break"):
        dp_generate(tiny_lm, inputs, epsilon_token=None, bounds=ClampBounds(0, 1), max_new_tokens=2)
    ids, report = dp_generate(
        tiny_lm,
        inputs,
        epsilon_token=None,
        bounds=ClampBounds(0, 1),
        max_new_tokens=2,
        allow_non_dp=True,
        pad_token_id=7,
    )
    assert ids.shape == (1, 2) and not report.dp and report.details["clamp"] is None
    assert report.details["temperature"] == 1.0
    assert report.guarantee.startswith("no DP guarantee (plain sampling")
