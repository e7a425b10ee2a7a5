import json
import os
import subprocess
import sys

import pytest

import deid_hf
from deid_hf.errors import InputError
from deid_hf.paths import cache_dir

from ..conftest import tiny_bert as make_tiny_bert
from ..export.test_cards import check_hub_card

TEXT = "Patient Maria Gonzalez, 67 years old, saw Dr. Tanaka in Boston. Call (217) 555-0143."

RELOAD = """
import json, sys
from transformers import pipeline
task, folder, text = sys.argv[1:4]
pipe = pipeline(task, model=folder, trust_remote_code=True)
options = {"seed": 3} if task != "deid-pfilter" else {"p": 0.01}
print(json.dumps(pipe(text, **options)))
"""


def reload_in_fresh_process(task, folder, text=TEXT):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", RELOAD, task, str(folder), text],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_saved_substitution_pipeline_is_a_hub_repo_and_reloads_identically(tmp_path):
    pipe = deid_hf.pipeline("deid-substitution", strategy="typed", detector=["patterns", "spacy"])
    pipe.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["custom_pipelines"]["deid-substitution"]["impl"] == "substitution.DeidSubstitutionPipeline"
    assert config["deid_hf"]["strategy"] == "typed"
    # no option needs a language model: it holds the shipped detector, reloaded as a token classifier, and
    # names no default model (the task's default is a path on this machine)
    saved_task = config["custom_pipelines"]["deid-substitution"]
    assert saved_task["pt"] == ["AutoModelForTokenClassification"] and "default" not in saved_task
    assert {"substitution.py", "model.safetensors", "tokenizer.json", "README.md"} <= set(
        os.listdir(tmp_path)
    )
    assert "de-identification" in (tmp_path / "README.md").read_text()
    card = check_hub_card(tmp_path / "README.md", forbidden=(str(tmp_path), str(cache_dir())))
    assert card["base_model"] == "sentence-transformers/all-MiniLM-L6-v2" and card["license"] == "apache-2.0"
    assert card["pipeline_tag"] == "token-classification"
    assert reload_in_fresh_process("deid-substitution", tmp_path) == pipe(TEXT, seed=3)


SYNTHETIC = "Pt John Smith seen 03/04/2021 at Mercy Hospital, call 617-555-0199."


@pytest.mark.slow
def test_default_pipeline_saves_no_language_model_and_its_card_counts_the_terms(
    tmp_path, monkeypatch, registered_learned
):
    from deid_hf.detect import DETECTORS
    from deid_hf.models import LEARNED_MODEL, model_path

    monkeypatch.setitem(DETECTORS, "learned", registered_learned)  # the shipped model, as the reload runs it
    deny = ["Smith", "Mercy", "Okonkwo"]
    pipe = deid_hf.pipeline("deid-substitution", deny_list=deny, allow_list=["Pt"])
    pipe.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["architectures"] == ["BertForTokenClassification"]
    shipped = os.path.getsize(os.path.join(model_path(LEARNED_MODEL), "model.safetensors"))
    assert max(f.stat().st_size for f in tmp_path.iterdir()) < 2 * shipped  # no language model's weights
    # config.json holds the terms (the pipeline reloads from it); the card gives their counts only
    assert config["deid_hf"]["deny_list"] == {"OTHER": deny} and config["deid_hf"]["allow_list"] == ["Pt"]
    card = (tmp_path / "README.md").read_text()
    assert not any(term in card for term in ("Smith", "Mercy", "Okonkwo", '"Pt"'))
    assert '"deny_list": {"count": 3}' in card and '"allow_list": {"count": 1}' in card
    assert "config.json holds the terms of deny_list, allow_list in full" in card
    check_hub_card(tmp_path / "README.md", forbidden=(str(tmp_path),))
    assert reload_in_fresh_process("deid-substitution", tmp_path, SYNTHETIC) == pipe(SYNTHETIC, seed=3)


@pytest.fixture(scope="module")
def tiny_bert(minilm_tokenizer):
    return make_tiny_bert(
        minilm_tokenizer, num_hidden_layers=1, max_position_embeddings=512
    ), minilm_tokenizer


@pytest.mark.slow
def test_pfilter_and_ndd_pipelines_reload(tmp_path, tiny_bert):
    from transformers import pipeline

    model, tokenizer = tiny_bert
    pfilter = pipeline("deid-pfilter", model=model, tokenizer=tokenizer)
    pfilter.save_pretrained(tmp_path / "pfilter")
    assert reload_in_fresh_process("deid-pfilter", tmp_path / "pfilter") == pfilter(TEXT, p=0.01)
    ndd = pipeline("deid-ndd", model=model, tokenizer=tokenizer, k=3, detector="patterns")
    ndd.save_pretrained(tmp_path / "ndd")
    # equal up to float noise: a fresh process may sum the NDD scores in another order (threads, load)
    assert rounded(reload_in_fresh_process("deid-ndd", tmp_path / "ndd")) == rounded(ndd(TEXT, seed=3))


def rounded(value, places: int = 4):
    """``value`` with every float rounded (JSON-like structures)."""
    if isinstance(value, float):
        return round(value, places)
    if isinstance(value, dict):
        return {k: rounded(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, places) for v in value]
    return value


def test_unsaveable_option_is_a_clear_error(tmp_path):
    from deid_hf.detect import PatternDetector

    pipe = deid_hf.pipeline("deid-substitution", strategy="typed", detector=PatternDetector())
    with pytest.raises(InputError, match="cannot be saved: pass it by name"):
        pipe.save_pretrained(tmp_path)


def test_push_to_hub_uploads_the_same_layout(tmp_path, monkeypatch):
    """No network here: everything up to the upload call runs; the upload receives the saved folder."""
    from transformers.utils import hub

    uploaded = {}
    monkeypatch.setattr(hub, "create_repo", lambda repo_id, **kw: type("R", (), {"repo_id": repo_id})())

    def capture(self, working_dir, repo_id, files_timestamps, **kwargs):
        uploaded["files"] = set(os.listdir(working_dir))
        with open(os.path.join(working_dir, "config.json")) as config:
            uploaded["config"] = json.load(config)
        uploaded["repo"] = repo_id

    monkeypatch.setattr(hub.PushToHubMixin, "_upload_modified_files", capture)
    pipe = deid_hf.pipeline("deid-substitution", strategy="redact", detector="patterns")
    pipe.push_to_hub("someone/deid-redact")
    assert uploaded["repo"] == "someone/deid-redact"
    assert {"substitution.py", "config.json", "model.safetensors", "README.md"} <= uploaded["files"]
    assert uploaded["config"]["deid_hf"]["strategy"] == "redact"
