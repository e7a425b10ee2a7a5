"""A `deid-substitution` loads a language model only when its detector or strategy uses one."""

import pytest

import deid_hf
from deid_hf.lm import is_language_model
from deid_hf.pipelines import needs_language_model

TEXT = "Dr. Kenji Tanaka saw Maria Gonzalez on March 3, 2024. Call (217) 555-0143."


@pytest.mark.parametrize(
    ("options", "needed"),
    [
        ({}, False),
        ({"strategy": "typed"}, False),
        ({"detector": "default"}, False),
        ({"detector": ["patterns", "spacy"]}, False),
        ({"detector": "fast", "strategy": {"PERSON": "full_entity", "default": "typed"}}, False),
        ({"detector": "zsts"}, True),
        ({"detector": "pfilter:0.01"}, True),
        ({"detector": ["patterns", "pfilter-propn"]}, True),
        ({"strategy": "zsts"}, True),
        ({"strategy": {"PERSON": "zsts", "default": "typed"}}, True),
        ({"strategy": {"PERSON": {"type": "zsts"}}}, True),
        ({"detector": "no-such-detector"}, False),
    ],
)
def test_needs_language_model(options, needed):
    assert needs_language_model(options) is needed


def test_default_pipeline_runs_on_the_detector_graph_without_a_language_model():
    pipe = deid_hf.pipeline("deid-substitution", strategy="typed")
    assert not is_language_model(pipe.model)
    assert pipe.language_model() == (None, None)
    out = pipe(TEXT, p=1.0)
    assert "Tanaka" not in out["text"] and "555-0143" not in out["text"]


def test_pipeline_with_a_language_model_detector_loads_one():
    pipe = deid_hf.pipeline("deid-substitution", detector="zsts", strategy="typed")
    assert is_language_model(pipe.model)
    assert pipe.language_model()[0] is pipe.model


def test_language_model_detector_on_a_non_language_model_is_a_clear_error(minilm_tokenizer):
    from transformers import BertConfig, BertModel

    from deid_hf.errors import InputError

    encoder = BertModel(
        BertConfig(vocab_size=30522, hidden_size=8, num_hidden_layers=1, num_attention_heads=1)
    )
    with pytest.raises(InputError, match="needs a language model"):
        deid_hf.pipeline("deid-substitution", model=encoder, tokenizer=minilm_tokenizer, detector="zsts")


def test_a_pipeline_given_a_device_moves_a_session_of_its_own():
    import torch

    from deid_hf.pipelines import shipped_detector_model

    shared = shipped_detector_model()[0]
    assert deid_hf.pipeline("deid-substitution").model is shared
    moved = deid_hf.pipeline("deid-substitution", device=torch.device("cpu"))
    assert moved.model is not shared
    assert "Ann Lee" not in moved("Ann Lee called.")["text"]
