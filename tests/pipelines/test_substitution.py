import json

import pytest
from datasets import Dataset
from transformers.pipelines.pt_utils import KeyDataset

import deid_hf
from deid_hf.corpus import dataset_map_function
from deid_hf.errors import InputError
from deid_hf.replace import STRATEGIES

KEY = "a test key of 32 characters...."
#: operators that replace every label on their own (keep, custom and date_shift are tested per label)
END_TO_END = [name for name in STRATEGIES if name not in ("keep", "custom", "date_shift")]
TEXT = "Patient Maria Gonzalez, 67 years old, saw Dr. Tanaka in Boston on March 3, 2024. Call (217) 555-0143."


@pytest.fixture(scope="module")
def pipes():
    return {name: deid_hf.pipeline("deid-substitution", strategy=name, key=KEY) for name in END_TO_END}


@pytest.mark.parametrize(
    "strategy",  # zsts scores every word with the LM: minutes on 2 CPU cores
    [pytest.param(s, marks=pytest.mark.slow) if s == "zsts" else s for s in END_TO_END],
)
def test_every_strategy_end_to_end(pipes, strategy):
    out = pipes[strategy](TEXT, seed=7, return_mapping=True)
    json.dumps(out)
    assert "Maria Gonzalez" not in out["text"] and "555-0143" not in out["text"]
    assert out["privacy"]["strategy"] == strategy and out["privacy"]["caveats"]
    # full_entity keeps a title standing alone ("Dr" before a replaced surname) and says so
    kept = [TEXT[s["start"] : s["end"]] for s in out["spans"] if not s["replaced"]]
    assert kept == (["Dr"] if strategy == "full_entity" and "Dr" in kept else [])
    assert out == pipes[strategy](TEXT, seed=7, return_mapping=True)


def test_mapping_only_when_asked(pipes):
    assert "mapping" not in pipes["typed"](TEXT)
    assert pipes["typed"](TEXT, return_mapping=True)["mapping"]["Maria Gonzalez"] == "<PERSON>"


@pytest.mark.slow
def test_p_below_one_keeps_some_items(pipes):
    outs = [pipes["typed"](TEXT, p=0.5, seed=s) for s in range(20)]
    kept = sum(not s["replaced"] for o in outs for s in o["spans"])
    assert 0 < kept < sum(len(o["spans"]) for o in outs)
    assert all(o["privacy"]["epsilon"] is None for o in outs)  # placeholders at p < 1: infinite


def _rounded(outputs: list[dict]) -> list[dict]:
    """Outputs with span scores rounded: padded batches move LM probabilities by float noise (~1e-12)."""
    return [{**o, "spans": [{**s, "score": round(s["score"], 6)} for s in o["spans"]]} for o in outputs]


@pytest.mark.slow
def test_lists_batches_and_key_dataset(pipes):
    texts = [TEXT, "Tom lives in Paris.", "Email anna@example.org please."]
    single = _rounded([pipes["redact"](t, seed=1) for t in texts])
    assert _rounded(pipes["redact"](texts, seed=1, batch_size=2)) == single
    data = Dataset.from_dict({"text": texts})
    assert _rounded(list(pipes["redact"](KeyDataset(data, "text"), seed=1, batch_size=2))) == single


def test_dataset_map_batched(pipes):
    data = Dataset.from_dict({"text": [TEXT, "Tom lives in Paris."], "label": [0, 1]})
    mapped = data.map(dataset_map_function(pipes["typed"], seed=1), batched=True, batch_size=2)
    assert mapped["label"] == [0, 1] and "<PERSON>" in mapped["text"][1]
    assert json.loads(mapped["deid_spans"][0])


def test_dataset_map_keeps_a_patients_pseudonym_across_rows_and_batches():
    notes = ["Maria Gonzalez admitted on 03/04/2021.", "Maria Gonzalez discharged on 03/09/2021."]
    data = Dataset.from_dict({"text": [*notes, notes[0]], "patient": ["p1", "p1", None]})
    options = {"detector": "fast", "key": KEY}
    mapped = data.map(dataset_map_function(options, group_field="patient"), batched=True, batch_size=1)
    first, second = (json.loads(mapped["deid_spans"][i]) for i in (0, 1))
    assert first[0]["replacement"] == second[0]["replacement"] != "Maria Gonzalez"
    assert mapped["text"][2] is None and "'patient' (the group) is missing" in mapped["deid_error"][2]
    with pytest.raises(InputError, match="needs a key"):
        dataset_map_function({"detector": "fast"}, group_field="patient")
    dataset_map_function({"detector": "fast", "seed": 3}, group_field="patient")  # a seed in the options


def test_dataset_map_refuses_to_overwrite_an_earlier_pass(pipes):
    data = Dataset.from_dict({"text": [TEXT], "comment": ["Call Tom Lee."]})
    once = data.map(dataset_map_function(pipes["typed"]), batched=True)
    with pytest.raises(InputError, match="already has deid_spans, deid_error"):
        once.map(dataset_map_function(pipes["typed"], "comment"), batched=True)
    renamed = once.rename_columns({"deid_spans": "text_deid_spans", "deid_error": "text_deid_error"})
    twice = renamed.map(dataset_map_function(pipes["typed"], "comment"), batched=True)
    assert twice["comment"] == ["Call <PERSON>."] and json.loads(twice["text_deid_spans"][0])


@pytest.mark.parametrize("bad, message", [(3, "expected a string"), ("   ", "empty text")])
def test_bad_input(pipes, bad, message):
    with pytest.raises(InputError, match=message):
        pipes["typed"](bad)


@pytest.mark.parametrize(
    "option, message",
    [({"p": 0}, "p must be"), ({"seed": "x"}, "seed must"), ({"temperature": 1}, "unknown option")],
)
def test_bad_options(pipes, option, message):
    with pytest.raises(InputError, match=message):
        pipes["typed"](TEXT, **option)


def test_unknown_strategy():
    with pytest.raises(InputError, match="unknown strategy 'shuffle'; choose one of redact"):
        deid_hf.pipeline("deid-substitution", strategy="shuffle")


def test_options_given_at_construction_hold_for_every_call():
    pipe = deid_hf.pipeline("deid-substitution", strategy="typed", p=0.5, seed=3, detector="fast")
    first, again = pipe(TEXT), pipe(TEXT)
    assert first["privacy"]["p"] == 0.5 and first == again  # p and seed kept, not reset by the call
    assert pipe(TEXT, p=1.0)["privacy"]["p"] == 1.0  # a call still overrides


def test_a_key_in_strategy_options_is_refused_with_where_it_goes():
    with pytest.raises(InputError, match="pass it as key="):
        deid_hf.pipeline(
            "deid-substitution", detector="fast", strategy="hash", strategy_options={"key": "k" * 32}
        )


def test_encrypt_restores_control_characters_inside_a_span_exactly():
    pipe = deid_hf.pipeline("deid-substitution", detector="fast", strategy="encrypt", key="k" * 32)
    text = "Call Ann\x01Lee at home."
    out = pipe(text)
    assert "Ann" not in out["text"]
    assert pipe.reidentify(out["text"]) == text


def test_transformers_pipeline_needs_no_model_and_gives_what_deid_hf_pipeline_gives():
    """The task's default model is the shipped detector: the same detections and surrogates."""
    from transformers import pipeline

    text = "Spoke with Maria Gonzalez on 03/04/2021 at (617) 555-0143."
    pipe = pipeline("deid-substitution")
    assert pipe(text, seed=3) == deid_hf.pipeline("deid-substitution")(text, seed=3)
    assert "Maria" not in pipe(text, seed=3)["text"]


@pytest.mark.slow
def test_transformers_pipeline_without_a_model_loads_the_default_lm_where_the_options_need_one():
    from transformers import pipeline

    from deid_hf.lm import lm_kind

    pipe = pipeline("deid-substitution", strategy="zsts", detector="fast")
    assert lm_kind(pipe.model) == "causal"
    assert "Gonzalez" not in pipe("Spoke with Maria Gonzalez today.", seed=0)["text"]


def test_a_short_key_is_refused_when_the_pipeline_is_built():
    with pytest.raises(InputError, match="key is too short: at least 16 bytes"):
        deid_hf.pipeline("deid-substitution", detector="fast", key="k1")


def test_another_token_classifier_as_the_model_is_refused_not_ignored(tmp_path, minilm_tokenizer):
    from transformers import pipeline

    from tests.conftest import tiny_token_classifier

    tiny_token_classifier(minilm_tokenizer).save_pretrained(tmp_path / "ner")
    minilm_tokenizer.save_pretrained(tmp_path / "ner")
    with pytest.raises(InputError, match="is a token classifier.*detector='token-classification:"):
        pipeline("deid-substitution", model=str(tmp_path / "ner"))
