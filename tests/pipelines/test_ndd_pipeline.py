import json

import pytest
from transformers import pipeline

import deid_hf
from deid_hf.errors import InputError

from ..conftest import tiny_bert as make_tiny_bert
from ..conftest import tiny_llama as make_tiny_llama

TEXT = "Patient Maria Gonzalez was seen in Boston. Tom Becker called on Tuesday."


@pytest.fixture(scope="module")
def tiny_llama(smollm2):
    _, tokenizer = smollm2
    return make_tiny_llama(tokenizer, max_position_embeddings=256), tokenizer


@pytest.fixture(scope="module")
def tiny_bert(minilm_tokenizer):
    return make_tiny_bert(
        minilm_tokenizer, num_hidden_layers=1, max_position_embeddings=512
    ), minilm_tokenizer


@pytest.mark.parametrize("mode", ["substitutive", "generative"])
@pytest.mark.parametrize("lm", ["tiny_llama", "tiny_bert"])
def test_keeps_the_candidate_with_minimal_ndd(request, lm, mode):
    model, tokenizer = request.getfixturevalue(lm)
    pipe = pipeline(
        "deid-ndd", model=model, tokenizer=tokenizer, mode=mode, k=4, detector=["patterns", "spacy"]
    )
    out = pipe(TEXT, seed=0)
    json.dumps(out)
    assert out["spans"] and out["privacy"]["dp"] is False and "no DP guarantee" in out["privacy"]["guarantee"]
    for span in out["spans"]:
        assert len(span["rejected"]) == 3
        assert all(span["ndd"] <= r["ndd"] for r in span["rejected"])
        assert span["replacement"] in out["text"]
    assert "Maria Gonzalez" not in out["text"]
    assert out == pipe(TEXT, seed=0)


def test_paper_weighting_is_an_option(tiny_llama):
    model, tokenizer = tiny_llama
    pipe = pipeline(
        "deid-ndd",
        model=model,
        tokenizer=tokenizer,
        k=3,
        detector="patterns",
        weights="mean",
        divergence="hellinger",
    )
    assert (pipe.ndd.weights, pipe.ndd.divergence) == ("mean", "hellinger")
    span = pipe("Write to tom.becker@example.com today.", seed=0)["spans"][0]
    assert all(0 <= span["ndd"] <= r["ndd"] <= 1 for r in span["rejected"])


def test_one_batched_ndd_pass_per_span(tiny_llama, monkeypatch):
    model, tokenizer = tiny_llama
    pipe = pipeline("deid-ndd", model=model, tokenizer=tokenizer, k=6)
    calls = []
    original = pipe.ndd.batch
    monkeypatch.setattr(pipe.ndd, "batch", lambda *a: calls.append(len(a[3])) or original(*a))
    out = pipe(TEXT, seed=1)
    assert calls == [6] * len(out["spans"])


def test_batches_and_long_documents(tiny_llama):
    model, tokenizer = tiny_llama
    pipe = pipeline("deid-ndd", model=model, tokenizer=tokenizer, k=2)
    texts = [TEXT, "Anna lives in Paris."]
    assert pipe(texts, seed=2, batch_size=2) == [pipe(t, seed=2) for t in texts]
    long_text = "Nothing to see here. " * 60 + TEXT
    assert "Maria Gonzalez" not in pipe(long_text, seed=0)["text"]


def test_offline_default_end_to_end():
    pipe = deid_hf.pipeline("deid-ndd", k=3)
    out = pipe("Tom Becker lives in Springfield.", seed=0)
    assert "Tom Becker" not in out["text"] and out["spans"][0]["ndd"] >= 0


@pytest.mark.parametrize(
    "options, message",
    [
        ({"mode": "swap"}, "mode must be"),
        ({"k": 0}, "k must be"),
        ({"mu": 2.0}, "mu must be"),
        ({"weights": "max"}, "weights must be"),
    ],
)
def test_bad_options(tiny_llama, options, message):
    model, tokenizer = tiny_llama
    with pytest.raises(InputError, match=message):
        pipeline("deid-ndd", model=model, tokenizer=tokenizer, **options)


def test_bad_input(tiny_llama):
    model, tokenizer = tiny_llama
    pipe = pipeline("deid-ndd", model=model, tokenizer=tokenizer)
    with pytest.raises(InputError, match="empty text"):
        pipe("  ")
    with pytest.raises(InputError, match="unknown option"):
        pipe(TEXT, temperature=2)


def test_corpus_bank_takes_phrases_from_the_other_texts_only(tiny_llama):
    model, tokenizer = tiny_llama
    pipe = pipeline("deid-ndd", model=model, tokenizer=tokenizer, k=3, bank="corpus", detector="spacy")
    out = pipe(["Maria Gonzalez met Tom Becker.", "Anna Schmidt lives in Paris."], seed=0, batch_size=2)
    first = {r["candidate"] for s in out[0]["spans"] for r in s["rejected"]} | {
        s["replacement"] for s in out[0]["spans"]
    }
    assert "Anna Schmidt" in first and not first & {"Maria Gonzalez", "Tom Becker"}
