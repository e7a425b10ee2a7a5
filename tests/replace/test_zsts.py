import random

import pytest

import deid_hf
from deid_hf.errors import InputError
from deid_hf.replace import get_strategy
from deid_hf.replace.apply import SubstitutionTable, apply_strategy
from deid_hf.replace.shape import random_digits_like
from deid_hf.replace.zsts import ZSTSSubstitution
from deid_hf.spans import Span

from ..conftest import tiny_bert as make_tiny_bert


@pytest.fixture(scope="module")
def tiny_bert(minilm_tokenizer):
    return make_tiny_bert(
        minilm_tokenizer, num_hidden_layers=1, max_position_embeddings=512
    ), minilm_tokenizer


def test_numbers_keep_their_shape():
    rng = random.Random(0)
    for original in ["742", "(217) 555-0143", "4111-1111", "MRN00481923", "03/04/2024"]:
        out = random_digits_like(original, rng)
        assert len(out) == len(original)
        assert out[0] != "0" or not original[0].isdigit()
        assert [c.isdigit() for c in out] == [c.isdigit() for c in original]
        assert [c for c in out if not c.isdigit()] == [c for c in original if not c.isdigit()]


def test_masked_candidates_are_in_radius_and_consistent(tiny_bert):
    model, tok = tiny_bert
    strategy = ZSTSSubstitution(model, tok, n=50, k=2, s=2.0)  # radius 2: every candidate qualifies
    text = "Daniel met Okafor and Daniel left."
    spans = [Span(0, 6), Span(11, 17), Span(22, 28)]
    _, records = apply_strategy(text, spans, strategy, 1.0, random.Random(0), SubstitutionTable())
    assert records[0].replacement == records[2].replacement != "Daniel"
    assert all(r.replacement.isalpha() for r in records)


def test_empty_radius_redacts(tiny_bert):
    model, tok = tiny_bert
    strategy = ZSTSSubstitution(model, tok, n=5, k=3, s=1e-6)
    assert (
        strategy.surrogate_in_context("Daniel met Okafor.", 11, 17, "OTHER", random.Random(0)) == "[REDACTED]"
    )


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n": 0}, "n must be"),
        ({"k": 30}, "cannot exceed"),
        ({"s": 0}, "radius s"),
        ({"embeddings": "w2v"}, "embeddings"),
    ],
)
def test_invalid_hyper_parameters(tiny_bert, options, message):
    with pytest.raises(InputError, match=message):
        ZSTSSubstitution(*tiny_bert, **options)


def test_zsts_needs_a_language_model():
    with pytest.raises(InputError, match="needs the pipeline's language model"):
        get_strategy("zsts")


@pytest.mark.slow
def test_zsts_substitution_pipeline_on_the_offline_default():
    pipe = deid_hf.pipeline("deid-substitution", strategy="zsts")
    text = "My name is Daniel Okafor and my code is 4471. Daniel again."
    out = pipe(text, seed=3, return_mapping=True)
    assert out["privacy"]["dp"] is False and "no DP guarantee" in out["privacy"]["guarantee"]
    assert "Okafor" not in out["text"] and "4471" not in out["text"] and "Daniel" not in out["text"]
    assert out == pipe(text, seed=3, return_mapping=True)


def test_zsts_pipeline_on_a_tiny_masked_lm(tiny_bert):
    from transformers import pipeline

    model, tok = tiny_bert
    pipe = pipeline(
        "deid-substitution",
        model=model,
        tokenizer=tok,
        strategy="zsts",
        detector="pfilter:0.5",
        strategy_options={"s": 2.0},
    )
    out = pipe("Daniel Okafor lives in Springfield.", seed=0)
    assert out["spans"] and out["privacy"]["strategy"] == "zsts"


@pytest.mark.parametrize("path", ["naive", "exact", "fast"])
def test_zsts_pipeline_takes_the_scorer_path(tiny_bert, path):
    from transformers import pipeline

    model, tok = tiny_bert
    pipe = pipeline(
        "deid-substitution",
        model=model,
        tokenizer=tok,
        strategy="zsts",
        detector="pfilter:0.5",
        scorer_options={"path": path},
    )
    assert pipe.detector.base.members[0].scorer.path == path  # the p-filter under the hipaa policy
    out = pipe(["Daniel Okafor lives in Springfield.", "Tom Becker called."], seed=0, batch_size=2)
    assert len(out) == 2 and all(o["privacy"]["strategy"] == "zsts" for o in out)
    with pytest.raises(InputError, match="path must be"):
        pipeline(
            "deid-substitution", model=model, tokenizer=tok, strategy="zsts", scorer_options={"path": "quick"}
        )
