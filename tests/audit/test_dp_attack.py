"""The distinguishing attack on the DP paraphraser: its statistics, and the accounting it checks."""

import math

import pytest

from deid_hf.audit.dp_attack import distinguishing_attack, epsilon_lower_bound, sampled_mask
from deid_hf.audit.stats import clopper_pearson_upper
from deid_hf.errors import InputError

SOURCE, NEIGHBOUR = "Ann Lee called the clinic.", "Bob Kim called the clinic."


@pytest.mark.parametrize(
    ("hits", "total", "alpha", "expected"), [(0, 10, 0.05, 1 - 0.05**0.1), (5, 5, 0.05, 1.0)]
)
def test_clopper_pearson_closed_forms(hits, total, alpha, expected):
    assert clopper_pearson_upper(hits, total, alpha) == pytest.approx(expected, abs=1e-9)


def test_clopper_pearson_upper_bound_covers_the_share_and_shrinks_with_draws():
    assert clopper_pearson_upper(3, 20, 0.05) > 3 / 20
    assert clopper_pearson_upper(30, 200, 0.05) < clopper_pearson_upper(3, 20, 0.05)


def test_epsilon_lower_bound():
    # a perfect test on 100 outputs each proves about log(100 / 3): never more than the trials allow
    perfect = epsilon_lower_bound(0, 0, 100, 0.95)
    assert 3.0 < perfect < math.log(100)
    assert epsilon_lower_bound(50, 50, 100, 0.95) == 0.0  # a coin flip proves nothing
    assert epsilon_lower_bound(10, 10, 100, 0.95) < perfect


def test_sampled_mask_counts_up_to_the_first_stop():
    import torch

    outputs = torch.tensor([[5, 6, 2, 7, 2], [5, 6, 7, 8, 9]])
    assert sampled_mask(outputs, [2]).tolist() == [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]


@pytest.fixture(scope="module")
def tiny_paraphraser(tiny_llama):
    import deid_hf

    model, tokenizer = tiny_llama
    return deid_hf.pipeline("deid-paraphrase", model=model, tokenizer=tokenizer, bounds=(-1.0, 1.0))


def test_the_attack_respects_the_accounting_at_a_small_epsilon(tiny_llama):
    import deid_hf

    model, tokenizer = tiny_llama
    # bounds inside the tiny model's logit range: the clamp is what keeps the ratio within epsilon
    narrow = deid_hf.pipeline("deid-paraphrase", model=model, tokenizer=tokenizer, bounds=(-0.01, 0.01))
    result = distinguishing_attack(narrow, SOURCE, NEIGHBOUR, epsilon_token=0.05, trials=40, max_new_tokens=4)
    # each token's log-likelihood ratio between the two inputs is at most epsilon_token (2 * Delta / T)
    assert result.largest_ratio_per_token <= 0.05 + 1e-4
    assert result.epsilon_lower_bound <= result.epsilon_nominal
    assert result.epsilon_lower_bound == 0.0  # 0.2 in all cannot be told apart on 20 outputs each


def test_the_attack_tells_inputs_apart_when_epsilon_is_large(tiny_paraphraser):
    result = distinguishing_attack(
        tiny_paraphraser, SOURCE, NEIGHBOUR, epsilon_token=500.0, trials=40, max_new_tokens=4
    )
    assert result.epsilon_lower_bound > 0.5
    assert result.false_positive_rate + result.false_negative_rate < 0.5


def test_bad_attack_arguments_are_clear_errors(tiny_paraphraser):
    with pytest.raises(InputError, match="must differ"):
        distinguishing_attack(tiny_paraphraser, SOURCE, SOURCE, epsilon_token=1.0)
    with pytest.raises(InputError, match="trials"):
        distinguishing_attack(tiny_paraphraser, SOURCE, NEIGHBOUR, epsilon_token=1.0, trials=2)


def test_deid_hf_audit_dp_writes_a_report_without_the_sentences(tmp_path, tiny_llama, capsys):
    import json

    from deid_hf.audit.dp_attack import SYNTHETIC_PAIRS
    from deid_hf.cli import main

    model, tokenizer = tiny_llama
    model.save_pretrained(tmp_path / "tiny")
    tokenizer.save_pretrained(tmp_path / "tiny")
    out = tmp_path / "report"
    args = ["audit", "dp", "--model", str(tmp_path / "tiny"), "--epsilons", "0.5,500", "--trials", "8"]
    assert main([*args, "--max-new-tokens", "3", "--out", str(out)]) == 0
    report = json.loads((out / "audit.json").read_text())
    assert [r["epsilon_token"] for r in report["dp"]["results"]] == [0.5, 0.5, 500.0, 500.0]
    assert all(r["epsilon_lower_bound"] <= r["epsilon_nominal"] for r in report["dp"]["results"])
    assert "DP paraphraser: distinguishing attack" in (out / "audit.md").read_text()
    written = "".join(p.read_text(errors="ignore") for p in out.iterdir()) + capsys.readouterr().out
    names = {word for pair in SYNTHETIC_PAIRS for sentence in pair for word in sentence.split()[:2]}
    assert names and not any(name in written for name in names - {"Please", "call"})


def test_deid_hf_audit_dp_refuses_bad_epsilons(capsys):
    from deid_hf.cli import main

    assert main(["audit", "dp", "--epsilons", "1,x"]) != 0
    assert "--epsilons must be comma-separated numbers" in capsys.readouterr().err
