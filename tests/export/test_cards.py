import importlib.metadata
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from huggingface_hub import ModelCard
from huggingface_hub.inference_api import ALL_TASKS

import deid_hf
from deid_hf.export.cards import hub_base_model, write_card

REPO = Path(__file__).resolve().parents[2]
SMOLLM2 = "HuggingFaceTB/SmolLM2-135M-Instruct"


def check_hub_card(path: Path, *, forbidden: tuple[str, ...] = ()) -> dict:
    """The card's metadata, after the checks the Hub makes of it and ours: a pipeline tag the Hub knows, a
    licence with a name when it is ``other``, a base model that is a Hub id, versions, no local paths."""
    text = path.read_text()
    data = ModelCard.load(path).data.to_dict()
    assert data["pipeline_tag"] in ALL_TASKS
    assert data["license"] and (data["license"] != "other" or data.get("license_name"))
    base = data.get("base_model")
    assert base is None or (re.fullmatch(r"[\w.-]+/[\w.-]+", base) and not Path(base).exists())
    assert data["deid_hf_version"] == deid_hf.__version__
    assert data["faker_version"] == importlib.metadata.version("faker")
    for path_text in (str(Path.home()), *forbidden):
        assert path_text not in text
    return data


def test_cards_name_the_hub_base_model_and_its_licence(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "smollm2-135m").mkdir(parents=True)
    (tmp_path / "cache" / "onnx-smollm2-135m-paraphraser-causal-lm").mkdir()
    assert hub_base_model("smollm2-135m") == SMOLLM2
    assert hub_base_model(tmp_path / "cache" / "smollm2-135m") == SMOLLM2
    assert hub_base_model(tmp_path / "cache" / "onnx-smollm2-135m-paraphraser-causal-lm") == SMOLLM2
    assert hub_base_model("org/model") == "org/model" and hub_base_model(tmp_path) is None
    for i, base in enumerate(["smollm2-135m", str(tmp_path / "cache" / "smollm2-135m")]):
        out = tmp_path / f"card{i}"
        out.mkdir()
        data = check_hub_card(write_card(out, kind="causal-lm", base_model=base), forbidden=(str(tmp_path),))
        assert (data["base_model"], data["license"], data["pipeline_tag"]) == (
            SMOLLM2,
            "apache-2.0",
            "text-generation",
        )
    local = tmp_path / "my-model"
    local.mkdir()
    data = check_hub_card(write_card(local, kind="fill-mask", base_model=local), forbidden=(str(tmp_path),))
    assert "base_model" not in data and data["license"] == "other" and data["license_name"] == "unknown"
    assert data["pipeline_tag"] == "fill-mask"
    derived = tmp_path / "derived"  # a model built on `local`, which now carries a card naming its base
    derived.mkdir()
    write_card(local, kind="fill-mask", base_model="org/bert")
    assert check_hub_card(write_card(derived, kind="fill-mask", base_model=local))["base_model"] == "org/bert"


def test_card_has_hub_metadata_and_the_privacy_text(tmp_path):
    card = write_card(
        tmp_path,
        kind="causal-lm",
        base_model="org/base",
        license="apache-2.0",
        tags=["x"],
        text={"title": "T", "summary": "S", "usage": "U"},
    ).read_text()
    assert card.startswith("---\n") and "pipeline_tag: text-generation" in card and "- x" in card
    assert "epsilon per generated token" in card and "# T" in card


@pytest.mark.slow
def test_the_card_template_ships_inside_the_wheel(tmp_path):
    source = tmp_path / "source"  # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(
        REPO,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".*", "build", "*.egg-info", "__pycache__", "tests", "benchmarks", "docs", "out", "report"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(source),
            "-w",
            str(tmp_path),
        ],
        check=True,
        cwd=tmp_path,
    )
    wheel = next(tmp_path.glob("deid_hf-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "deid_hf/export/model_cards/export.md" in names
    assert not any(name.startswith("model_cards/") for name in names)  # nothing else at top level
