import pytest

import deid_hf
from deid_hf.errors import InputError


def test_paraphrase_pipeline_reports_privacy():
    pipe = deid_hf.pipeline("deid-paraphrase", model="smollm2-135m", bounds=(0.0, 1.0))
    out = pipe("I live in Springfield. My dog is called Rex.", epsilon=2.0, max_new_tokens=5)
    assert len(out["sentences"]) == 2 and all(1 <= s["tokens"] <= 5 for s in out["sentences"])
    assert out["privacy"]["details"]["temperature"] == pytest.approx(1.0)  # T = 2 * 1 / 2
    assert out["privacy"]["epsilon"] == pytest.approx(2.0 * out["privacy"]["details"]["tokens"])
    with pytest.raises(InputError, match="would break"):
        pipe("Hello.", top_k=5)


def test_ort_generation_honours_the_processor(monkeypatch):
    from deid_hf.export.onnx import cached_export, load_ort_model
    from deid_hf.paraphrase import mechanism

    ort = load_ort_model(cached_export("smollm2-135m", "causal-lm"))
    calls = []
    original = mechanism.ClampedTemperatureLogitsProcessor.__call__

    def spy(self, input_ids, scores):
        out = original(self, input_ids, scores)
        calls.append((float(out.max()), float(out.min())))
        return out

    monkeypatch.setattr(mechanism.ClampedTemperatureLogitsProcessor, "__call__", spy)
    pipe = deid_hf.pipeline(
        "deid-paraphrase",
        model=ort,
        tokenizer=deid_hf.models.load_tokenizer("smollm2-135m"),
        bounds=(0.0, 1.0),
    )
    out = pipe("I live in Springfield.", epsilon=4.0, max_new_tokens=4)
    assert len(calls) == out["privacy"]["details"]["tokens"]
    assert all(high <= 2.0 + 1e-6 and low >= 0.0 for high, low in calls)  # clamp to [0, 1], / T = 0.5


@pytest.mark.slow
def test_batches_of_texts_are_sampled_together_and_seeded():
    pipe = deid_hf.pipeline("deid-paraphrase", model="smollm2-135m")
    texts = ["The meeting is on Monday. Bring the report.", "I like green tea.", "Call me later."]
    first = pipe(texts, epsilon=200.0, max_new_tokens=12, seed=3, batch_size=3)
    again = pipe(texts, epsilon=200.0, max_new_tokens=12, seed=3, batch_size=3)
    assert [o["paraphrase"] for o in first] == [o["paraphrase"] for o in again]
    assert [len(o["sentences"]) for o in first] == [2, 1, 1]
    assert [s["source"] for s in first[0]["sentences"]] == ["The meeting is on Monday.", "Bring the report."]
    details = first[0]["privacy"]["details"]
    bounds = details["clamp"]
    assert details["temperature"] == pytest.approx(2 * (bounds["high"] - bounds["low"]) / 200.0)
    with pytest.raises(InputError, match="seed"):
        pipe("Hello.", seed="x")


def test_plain_sampling_reports_no_guarantee():
    pipe = deid_hf.pipeline("deid-paraphrase", model="smollm2-135m", bounds=(0.0, 1.0))
    out = pipe("I like green tea.", epsilon=None, allow_non_dp=True, max_new_tokens=6, seed=0)
    assert not out["privacy"]["dp"] and out["privacy"]["epsilon"] is None
    assert out["sentences"][0]["epsilon"] is None and "no DP guarantee" in out["privacy"]["guarantee"]


def test_epsilon_given_at_construction_holds():
    pipe = deid_hf.pipeline(
        "deid-paraphrase", model="smollm2-135m", bounds=(0.0, 1.0), epsilon=4.0, max_new_tokens=3
    )
    out = pipe("I like green tea.", seed=0)
    assert out["privacy"]["epsilon_per_token"] == pytest.approx(4.0)
    assert out["privacy"]["details"]["max_new_tokens"] == 3
