import pytest
import torch

from deid_hf.errors import InputError
from deid_hf.ndd import NDD, divergence, reference_ndd

TEXT = "The meeting with Daniel Okafor is on Tuesday in the small office."
EDIT = (17, 30)  # "Daniel Okafor"
CANDIDATES = ["Maria Gonzalez", "Bob", "a very long replacement name", ""]


@pytest.mark.parametrize("weights", ["distance", "mean"])
@pytest.mark.parametrize("kind", ["kl", "hellinger"])
@pytest.mark.parametrize("lm", ["tiny_bert", "tiny_llama"])
def test_batched_ndd_equals_the_slow_reference(request, lm, kind, weights):
    model, tokenizer = request.getfixturevalue(lm)
    scorer = NDD(
        model, tokenizer, mu=0.9, divergence=kind, batch_size=5, max_neighbours=None, weights=weights
    )
    batched = scorer.batch(TEXT, *EDIT, CANDIDATES)
    slow = [
        reference_ndd(
            model, tokenizer, TEXT, *EDIT, c, mu=0.9, kind=kind, causal=lm == "tiny_llama", weights=weights
        )
        for c in CANDIDATES
    ]
    assert batched == pytest.approx(slow, abs=1e-5)
    assert all(v > 0 for v in batched)


def test_identity_edit_has_zero_ndd(tiny_bert):
    assert NDD(*tiny_bert)(TEXT, *EDIT, TEXT[EDIT[0] : EDIT[1]]) == pytest.approx(0.0, abs=1e-6)


def test_divergences():
    p = torch.log_softmax(torch.tensor([[1.0, 2.0, 3.0]]), -1)
    q = torch.log_softmax(torch.tensor([[3.0, 2.0, 1.0]]), -1)
    assert float(divergence(p, p)) == pytest.approx(0.0, abs=1e-7)
    assert float(divergence(p, q, "hellinger")) == pytest.approx(float(divergence(q, p, "hellinger")))
    assert 0 < float(divergence(p, q, "hellinger")) <= 1


def test_long_texts_use_a_window_around_the_edit(tiny_llama):
    model, tokenizer = tiny_llama
    long_text = "word " * 200 + TEXT + " more" * 100
    start = long_text.index("Daniel")
    scorer = NDD(model, tokenizer)
    assert scorer(long_text, start, start + 13, "Maria Gonzalez") > 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("", 0, 0, ["x"]), "non-empty"),
        ((TEXT, 5, 500, ["x"]), "outside"),
        ((TEXT, 0, 3, []), "at least one"),
    ],
)
def test_bad_input(tiny_bert, args, message):
    with pytest.raises(InputError, match=message):
        NDD(*tiny_bert).batch(*args)


def test_bad_parameters(tiny_bert):
    with pytest.raises(InputError, match="mu must be"):
        NDD(*tiny_bert, mu=1.5)
    with pytest.raises(InputError, match="divergence must be"):
        NDD(*tiny_bert, divergence="js")
    with pytest.raises(InputError, match="weights must be"):
        NDD(*tiny_bert, weights="max")
