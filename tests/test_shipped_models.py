"""The models deid-hf ships in ``deid_hf/hub``: Hub layout, integrity, recipe; the demo on a clean copy."""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from deid_hf import models
from deid_hf.errors import ModelUnavailableError

REPO = Path(__file__).resolve().parent.parent
DETECTOR = models.HUB_DIR / models.LEARNED_MODEL
PARAPHRASER = models.HUB_DIR / "smollm2-135m-paraphraser"
#: what one model version may add to the repository
MAX_BYTES = 60_000_000


@pytest.mark.parametrize("folder", [DETECTOR, PARAPHRASER], ids=lambda f: f.name)
def test_shipped_folder_matches_its_manifest_and_stays_small(folder):
    manifest = json.loads((folder / models.MANIFEST).read_text())["files"]
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert on_disk == set(manifest) | {models.MANIFEST}  # nothing unlisted, nothing missing
    assert models.verified_folder(folder) == folder
    assert sum(entry["bytes"] for entry in manifest.values()) <= MAX_BYTES


def test_models_command_lists_version_size_digest_and_path(capsys, tmp_path):
    from deid_hf.cli import main

    assert main(["models", "--json", str(tmp_path / "models.json")]) == 0
    rows = {r["name"]: r for r in json.loads((tmp_path / "models.json").read_text())}
    row = rows[models.LEARNED_MODEL]
    assert row["ready"] and row["version"] == models.REGISTRY[models.LEARNED_MODEL].version
    assert row["path"] == str(DETECTOR) and row["digest"] == models.folder_digest(DETECTOR)[:16]
    assert row["bytes"] == sum(p.stat().st_size for p in DETECTOR.rglob("*") if p.is_file())
    assert models.LEARNED_MODEL in capsys.readouterr().out


@pytest.mark.parametrize("damage", ["truncate", "delete", "flip"])
def test_damaged_folder_names_the_bad_file(tmp_path, monkeypatch, damage):
    from deid_hf.detect import TokenClassificationDetector

    copy = tmp_path / "hub" / models.LEARNED_MODEL
    shutil.copytree(DETECTOR, copy)
    target = copy / "model_quantized.onnx"
    if damage == "truncate":
        target.write_bytes(target.read_bytes()[:1000])
    elif damage == "delete":
        target.unlink()
    else:  # same size, one byte changed
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    with pytest.raises(ModelUnavailableError, match="model_quantized.onnx") as caught:
        TokenClassificationDetector(str(copy), backend="onnx", int8=True)
    assert "\n" not in str(caught.value)
    monkeypatch.setattr(models.registry, "HUB_DIR", tmp_path / "hub")  # the registry name refuses it too
    with pytest.raises(ModelUnavailableError, match="model_quantized.onnx"):
        models.model_path(models.LEARNED_MODEL)
    row = next(r for r in models.status() if r["name"] == models.LEARNED_MODEL)
    assert not row["ready"] and "model_quantized.onnx" in row["note"]


def test_card_metadata_is_a_hub_card_with_held_out_results():
    from huggingface_hub import ModelCard

    card = ModelCard.load(DETECTOR / "README.md")
    data = card.data
    assert data.license == "apache-2.0" and data.pipeline_tag == "token-classification"
    assert data.base_model == "sentence-transformers/all-MiniLM-L6-v2"
    results = data.eval_results
    assert results and all(r.dataset_split == "held out" for r in results)
    assert {r.metric_name for r in results} >= {"token precision", "token recall"}
    assert all(0 < r.metric_value <= 1 for r in results)
    assert not any(r.dataset_name.startswith("physionet") for r in results)  # every dev patient is trained on


def test_shipped_detector_was_trained_with_the_recipe_in_the_code():
    """A change of `DetectorConfig`'s defaults must come with a retrained model (`deid-hf train-detector`)."""
    from huggingface_hub import ModelCard

    from deid_hf.models import TRAINING_FILE
    from deid_hf.train.detector import DetectorConfig
    from deid_hf.train.loop import recipe_digest, recipe_fields

    record = json.loads((DETECTOR / TRAINING_FILE).read_text())
    assert record["config"] == json.loads(json.dumps(recipe_fields(DetectorConfig())))
    assert record["recipe"] == recipe_digest(DetectorConfig())
    assert ModelCard.load(DETECTOR / "README.md").data.deid_hf_recipe == recipe_digest(DetectorConfig())


def test_shipped_paraphraser_was_trained_with_the_recipe_in_the_code():
    from deid_hf.models import TRAINING_FILE
    from deid_hf.train.paraphraser import ParaphraserConfig

    record = json.loads((PARAPHRASER / TRAINING_FILE).read_text())
    assert record["config"] == json.loads(json.dumps(asdict(ParaphraserConfig())))
    adapter = json.loads((PARAPHRASER / "adapter_config.json").read_text())
    assert adapter["r"] == ParaphraserConfig().lora_rank


def test_transformers_pipeline_loads_the_shipped_folder_and_finds_a_name():
    from transformers import pipeline

    found = pipeline("token-classification", model=str(DETECTOR), aggregation_strategy="simple")(
        "Patient Maria Gonzalez was seen by Dr. Hiroshi Tanaka in Boston on March 3, 2024."
    )
    labels = {f["entity_group"] for f in found}
    assert {"PERSON", "DATE_TIME"} <= labels


def test_the_learned_detector_runs_the_shipped_int8_graph(registered_learned):
    from deid_hf.detect.lexicon import VOCABULARY_FILE, Vocabulary

    assert models.model_path(models.LEARNED_MODEL) == str(DETECTOR)
    detector = registered_learned.build(None, None, None, None)
    text = "Call Ann Lee at (217) 555-0143 before May 2, 2021."
    spans = detector.detect(text)
    assert {"Ann Lee", "(217) 555-0143"} <= {text[s.start : s.end] for s in spans}
    shipped = Vocabulary.from_json((DETECTOR / VOCABULARY_FILE).read_text())
    assert detector.vocabulary == shipped and shipped.words  # the policy's corpus vocabulary


#: words beside an identifier that the default keeps, through the plain pipeline call with the shipped
#: model: the cue of an ID, a greeting, a title or role (rules `learned.identifier-cue-alone`,
#: `learned.greeting-alone`, `learned.title-alone`, titles never evidence) and a date the model read in part
#: as an ID (`learned.piece-of-a-date`)
WORDS_BESIDE_IDENTIFIERS = [
    ("Seen by Dr. Ann Lee on 3/4/2024, MRN 4839201.", "Seen by Dr. <PERSON> on <DATE_TIME>, MRN <ID>."),
    ("Customer: Hi Priya, my name is Daniel Okafor.", "Customer: Hi <PERSON>, my name is <PERSON>."),
    ("Weight up 3 lb since 07/03/2024. Call 773-555-0142.", "Weight up 3 lb since <DATE_TIME>. Call "),
    ("Hi, this is Nurse Priya Castellanos.", "Hi, this is Nurse <PERSON>."),
    ("Spoke with Professor Ann Lee.", "Spoke with Professor <PERSON>."),
]


def test_words_beside_identifiers_stay_and_a_batch_keeps_every_record(registered_learned, monkeypatch):
    import deid_hf
    from deid_hf.detect import DETECTORS

    # the shipped model, not the tests' tiny one
    monkeypatch.setitem(DETECTORS, "learned", registered_learned)
    texts = [text for text, _ in WORDS_BESIDE_IDENTIFIERS]
    outputs = deid_hf.pipeline("deid-substitution", strategy="typed")([*texts, ""], p=1.0)
    assert len(outputs) == len(texts) + 1 and outputs[-1]["error"]
    for (_, expected), out in zip(WORDS_BESIDE_IDENTIFIERS, outputs):
        assert out["text"].startswith(expected), out["text"]
    assert not any(
        digits in out["text"] for out in outputs[:-1] for digits in ("4839201", "555-0142", "2024")
    )


@pytest.mark.data
def test_shipped_vocabulary_holds_no_word_of_a_gold_identifier():
    from deid_hf.corpora import physionet_documents
    from deid_hf.detect.lexicon import VOCABULARY_FILE, Vocabulary, words
    from tests.conftest import shared_data

    vocabulary = Vocabulary.from_json((DETECTOR / VOCABULARY_FILE).read_text())
    notes = physionet_documents(shared_data("physionet_deid_dev") / "notes.jsonl")
    in_gold = {w.lower() for d in notes for s, e, _ in d.spans for w in words(d.text[s:e])}
    assert not in_gold & (vocabulary.words | vocabulary.common_nouns)


#: what the bundled examples name that must not survive the demo: names, dates, phone numbers
IDENTIFIERS = {
    "support-chat": ["Daniel Okafor", "(217) 555-0143", "daniel.okafor@example.com"],
    "clinical-note": ["Maria Gonzalez", "Hiroshi Tanaka", "March 3, 2024", "00481923"],
    "dialogue": ["4111 1111 1111 1111"],
    "review": ["Tom Becker", "+1 503 555 0199"],
}


def _clean_copy(target: Path) -> Path:
    """The repository's files as a fresh clone has them (tracked and untracked-not-ignored), nothing else."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.mark.slow
def test_demo_on_a_clean_copy_without_shared_data_or_cache(tmp_path):
    """The main job on a machine that never saw ../shared: no data, an empty model cache, no Hub."""
    repo = _clean_copy(tmp_path / "clone" / "deid-hf")
    assert not (repo.parent / "shared").exists()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DEID_HF_", "PYTEST_")) and key != "PYTHONPATH"
    }
    env.update(
        PYTHONPATH=str(repo),
        DEID_HF_CACHE=str(tmp_path / "empty-cache"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        COLUMNS="200",
    )
    script = (
        "import json, deid_hf\n"
        "from deid_hf.demo import deidentify_examples\n"
        "from deid_hf.paths import bundled_examples, data_root\n"
        f"assert deid_hf.__file__.startswith({str(repo)!r}), deid_hf.__file__\n"
        "assert not data_root().exists()\n"
        "print(json.dumps({e['id']: r['text'] for e, r in deidentify_examples(bundled_examples())}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = json.loads(done.stdout.strip().splitlines()[-1])
    for example, identifiers in IDENTIFIERS.items():
        for identifier in identifiers:
            assert identifier not in outputs[example], (example, identifier)
    cli = subprocess.run(
        [sys.executable, "-m", "deid_hf.cli", "demo"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert cli.returncode == 0, cli.stderr[-3000:]
    assert "privacy:" in cli.stdout and "Daniel Okafor" in cli.stdout  # the original beside its replacement


#: names the shipped model reads poorly in these shapes (a rare name in capitals inside a sentence, a
#: surname alone after "spoke with" or before "called", "Last, First" in a name field, one item of a list,
#: a given name no list holds beside a found surname, a message's sign-off or subject line): the default
#: pipeline replaces them all
NAMES_IN_HARD_SHAPES = [
    ("Reviewed the chart of ILSABET MARROWIND today, no changes.", ["ILSABET", "MARROWIND"]),
    ("Spoke with Marrowind about the results.", ["Marrowind"]),
    ("Ostkampel called about the results.", ["Ostkampel"]),
    ("Patient: Dorel, Ostkamptes\nAge 54", ["Dorel", "Ostkamptes"]),
    ("Attendees: Quvanost Enrow, Josh Herbert.", ["Quvanost", "Enrow", "Josh", "Herbert"]),
    ("I am writing about my client Saost Rowkamp.", ["Saost", "Rowkamp"]),
    ("Best regards,\nWiktor", ["Wiktor"]),
]


def test_names_in_hard_shapes_are_replaced(registered_learned, monkeypatch):
    import deid_hf
    from deid_hf.detect import DETECTORS

    monkeypatch.setitem(DETECTORS, "learned", registered_learned)
    outputs = deid_hf.pipeline("deid-substitution")([text for text, _ in NAMES_IN_HARD_SHAPES])
    for (_, names), out in zip(NAMES_IN_HARD_SHAPES, outputs):
        assert not [name for name in names if name in out["text"]], out["text"]
