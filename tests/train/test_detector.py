import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from deid_hf.cli import build_parser, main
from deid_hf.corpora import LabelledDocument, patient_folds, read_documents
from deid_hf.errors import InputError
from deid_hf.spans import LABELS
from deid_hf.train.detector import (
    BIO_LABELS,
    DetectorConfig,
    default_documents,
    encode_document,
    train_detector,
)
from deid_hf.train.loop import config_of_record
from tests.conftest import CONFIG, DOCS, shared_data, tiny_token_classifier


def _train(tmp_path, tokenizer, name, **kwargs):
    held = {"held": DOCS[:4]}
    return train_detector(
        DOCS,
        tmp_path / name,
        CONFIG,
        held_out=held,
        model=tiny_token_classifier(tokenizer),
        tokenizer=tokenizer,
        progress=False,
        **kwargs,
    )


def test_bio_labels_follow_spans_across_overlapping_windows(minilm_tokenizer):
    text = "Seen by Dr Maria Gonzalez Okafor today at the clinic on Elm Street in Boston again."
    name = "Maria Gonzalez Okafor"
    where = text.index("Boston")
    doc = LabelledDocument(
        text,
        ((text.index(name), text.index(name) + len(name), "PERSON"), (where, where + 6, "LOCATION")),
        "g",
    )
    rows = encode_document(minilm_tokenizer, doc, max_length=10, stride=3)
    assert len(rows) > 2
    full = minilm_tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    pieces = [minilm_tokenizer.convert_ids_to_tokens(r["input_ids"]) for r in rows]
    for row, tokens in zip(rows, pieces):
        assert len(row["input_ids"]) <= 10 and len(row["labels"]) == len(row["input_ids"])
        assert (
            row["labels"][0] == row["labels"][-1] == -100 and tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
        )
    for first, second in zip(rows, rows[1:]):  # consecutive windows share `stride` tokens
        assert first["input_ids"][-4:-1] == second["input_ids"][1:4]
    # every window's labels agree with the spans the token overlaps; B- on a span's first token in the window
    start = 0
    for row in rows:
        inner = row["labels"][1:-1]
        offsets = full["offset_mapping"][start : start + len(inner)]
        previous = None
        for label, (s, e) in zip(inner, offsets):
            span = next((sp for sp in doc.spans if s < sp[1] and sp[0] < e), None)
            expected = "O" if span is None else ("I-" if span == previous else "B-") + span[2]
            assert BIO_LABELS[label] == expected
            previous = span
        start += len(inner) - 3
    assert start + 3 == len(full["input_ids"])
    labelled = [BIO_LABELS[x] for r in rows for x in r["labels"] if x >= 0]
    assert labelled.count("B-LOCATION") >= 1 and "B-PERSON" in labelled and "I-PERSON" in labelled


def test_patient_folds_keep_a_patient_in_one_fold():
    groups = [f"patient-{i % 13}" for i in range(100)]
    folds = patient_folds(groups, 5, seed=0)
    assert set(folds) == set(groups) and set(folds.values()) == set(range(5))
    assert folds == patient_folds(reversed(groups), 5, seed=0)


def test_default_documents_hold_out_a_patient_fold():
    root = shared_data("physionet_deid_dev").parent
    shared_data("presidio_synth_pii")
    train, held = default_documents(root, DetectorConfig(held_out_fold=2, silver_per_source=0))
    notes = held["physionet_deid_dev fold 2/5"]
    assert len(held["presidio_synth_pii 750-1499"]) == 750
    train_patients = {d.group for d in train if d.source == "physionet_deid_dev"}
    assert notes and not train_patients & {d.group for d in notes}
    assert len([d for d in train if d.source == "presidio_synth_pii"]) == 750  # the default recipe
    train, held = default_documents(root, DetectorConfig(presidio_records=400, silver_per_source=0))
    assert len([d for d in train if d.source == "presidio_synth_pii"]) == 400
    assert len(held["presidio_synth_pii 750-1499"]) == 750  # never 750-1499, whatever is trained on
    train, held = default_documents(root, DetectorConfig(silver_per_source=0))  # the shipped recipe
    assert list(held) == ["presidio_synth_pii 750-1499"]  # every dev patient is trained on
    assert len({d.group for d in train if d.source == "physionet_deid_dev"}) == 65
    assert {label for d in train for _, _, label in d.spans} <= set(LABELS)


def test_config_and_documents_are_checked(tmp_path):
    with pytest.raises(InputError, match="stride"):
        DetectorConfig(max_length=16, stride=20)
    with pytest.raises(InputError, match="held_out_fold"):
        DetectorConfig(folds=3, held_out_fold=3)
    with pytest.raises(InputError, match="negative_windows"):
        DetectorConfig(negative_windows=1.5)
    for threshold in (0, 1, "0.3", True):
        with pytest.raises(InputError, match="threshold"):
            DetectorConfig(threshold=threshold)
    with pytest.raises(InputError, match="presidio_records"):
        DetectorConfig(presidio_records=751)  # 750-1499 are the held-out records
    for layers in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="layers"):
            DetectorConfig(layers=layers)
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "Ann", "spans": [{"start": 0, "end": 3, "label": "PTName"}]}\n{"spans": []}\n')
    with pytest.raises(InputError, match=":2:"):
        read_documents(path)
    path.write_text('{"text": "Ann", "spans": [{"start": 0, "end": 9, "label": "PERSON"}]}\n')
    with pytest.raises(InputError, match="outside"):
        read_documents(path)
    for start in ("0.7", "true", '"0"'):  # never truncated or read as a number
        path.write_text(f'{{"text": "Ann", "spans": [{{"start": {start}, "end": 3, "label": "PERSON"}}]}}\n')
        with pytest.raises(InputError, match="expected a JSON object with 'text' and 'spans'"):
            read_documents(path)
    path.write_text('{"text": "Ann", "spans": [{"start": 0, "end": 3, "label": "PTName"}]}\n')
    assert read_documents(path)[0].spans == ((0, 3, "PERSON"),)


def test_trained_folder_loads_in_transformers_and_as_a_detector(tmp_path, minilm_tokenizer):
    from transformers import pipeline

    from deid_hf.detect import TokenClassificationDetector, get_detector

    metrics = _train(tmp_path, minilm_tokenizer, "out")
    out = tmp_path / "out"
    assert metrics["completed"] and metrics["eval_loss"] < metrics["eval_loss_before"]
    assert not (out / "checkpoints").exists()
    config = json.loads((out / "config.json").read_text())
    assert [config["id2label"][str(i)] for i in range(len(BIO_LABELS))] == list(BIO_LABELS)
    assert config["deid_hf_window"] == {"max_length": 16, "stride": 4}
    assert config["deid_hf_threshold"] == CONFIG.threshold  # the recipe's operating point, recorded
    assert config["deid_hf_policy"] == "hipaa"  # the default gold follows HIPAA Safe Harbor
    recorded = json.loads((out / "deid_hf_training.json").read_text())["metrics"]
    held = recorded["held_out"]["held"]
    assert held["documents"] == 4 and "mixed" in held and 0 <= held["all"]["token_recall"] <= 1
    assert recorded["held_out_int8"]["held"]["documents"] == 4  # the exported int8 graph, measured too
    assert "| held | ONNX Runtime int8 | all | 4 |" in (out / "README.md").read_text()
    # the shipped layout: int8 graph, compact weights, vocabulary, manifest, a card with a model-index
    names = {p.name for p in out.iterdir()}
    assert {
        "model_quantized.onnx",
        "model.safetensors",
        "deid_hf_vocabulary.json",
        "deid_hf_manifest.json",
    } <= names
    assert "model.onnx" not in names  # the fp32 graph is not kept: `deid-hf export` writes it
    assert json.loads((out / "config.json").read_text())["quantization_config"]["format"] == "int-quantized"
    from huggingface_hub import ModelCard

    results = ModelCard.load(out / "README.md").data.eval_results
    assert {(r.dataset_name, r.metric_name) for r in results} >= {
        ("held", "token recall"),
        ("held", "token precision"),
    }
    long_text = " ".join(d.text for d in DOCS[:6])  # longer than one window
    found = pipeline("token-classification", model=str(out), aggregation_strategy="simple", stride=4)(
        long_text
    )
    assert found and all(f["entity_group"] in {label[2:] for label in BIO_LABELS[1:]} for f in found)
    assert found[-1]["end"] > len(long_text) - 30  # the stride windows reach the end of the text
    detector = get_detector(f"token-classification:{out}")
    texts = [long_text, "Ana Lima", ""]
    spans = detector.detect_batch(texts)
    # batched (length-sorted) = one by one: the same spans, scores up to float rounding (padding)
    one_by_one = [detector.detect(t) for t in texts]
    assert [[(s.start, s.end, s.label) for s in f] for f in one_by_one] == [
        [(s.start, s.end, s.label) for s in f] for f in spans
    ]
    assert [s.score for f in one_by_one for s in f] == pytest.approx([s.score for f in spans for s in f])
    assert spans[0] and all(s.end <= len(long_text) for s in spans[0]) and spans[2] == []
    ort = TokenClassificationDetector(str(out), backend="onnx", int8=True, provider="cpu")
    assert len(ort.detect_batch(texts)) == 3
    assert ort.trained_policy == "hipaa"
    # a low threshold lowers the "O" logit: far more of the text becomes entities, on both backends
    plain = "The patient was calm and slept well overnight without any pain."
    covered = lambda spans: sum(s.end - s.start for s in spans)  # noqa: E731
    for backend, int8 in (("pytorch", False), ("onnx", True)):
        base = TokenClassificationDetector(str(out), backend=backend, int8=int8).detect(plain)
        biased = TokenClassificationDetector(str(out), backend=backend, int8=int8, threshold=1e-20).detect(
            plain
        )
        assert covered(biased) > covered(base) and covered(biased) >= len(plain) - plain.count(" ") - 1
    for wrong in ("high", 0, 1.0, True):
        with pytest.raises(InputError, match="threshold"):
            TokenClassificationDetector(str(out), threshold=wrong)
    with pytest.raises(InputError, match="backend"):
        TokenClassificationDetector(str(out), backend="tensorflow")
    with pytest.raises(InputError, match="int8"):
        TokenClassificationDetector(str(out), int8=True)


def test_model_card_states_data_metrics_use_and_limits(tmp_path, minilm_tokenizer):
    _train(tmp_path, minilm_tokenizer, "out", export_onnx=False)
    card = (tmp_path / "out" / "README.md").read_text()
    for field in (
        "pipeline_tag: token-classification",
        "base_model:",
        "Training data",
        "Held-out token metrics",
        "| held | PyTorch (int8 weights) | all | 4 |",
        "Intended use",
        "uncased",
    ):
        assert field in card, field


def test_resumed_training_reaches_the_same_weights(tmp_path, minilm_tokenizer):
    full = _train(tmp_path, minilm_tokenizer, "full", export_onnx=False)
    stopped = _train(tmp_path, minilm_tokenizer, "resumed", stop_after=4, export_onnx=False)
    assert not stopped["completed"] and not (tmp_path / "resumed" / "config.json").exists()
    resumed = _train(tmp_path, minilm_tokenizer, "resumed", resume=True, export_onnx=False)
    assert resumed["resumed_from"] == 4 and resumed["steps"] == full["steps"]
    a = load_file(tmp_path / "full" / "model.safetensors")
    b = load_file(tmp_path / "resumed" / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
    assert resumed["eval_loss"] == pytest.approx(full["eval_loss"], abs=1e-6)


@pytest.mark.slow
def test_int8_graph_agrees_with_the_int8_pytorch_weights(tmp_path, minilm_tokenizer):
    from optimum.onnxruntime import ORTModelForTokenClassification
    from transformers import AutoModelForTokenClassification

    _train(tmp_path, minilm_tokenizer, "out")
    out = tmp_path / "out"
    enc = minilm_tokenizer([d.text for d in DOCS[:3]], padding=True, return_tensors="pt")
    with torch.no_grad():  # the shipped int8 linear weights, run in fp32 as deid-hf runs them
        model = AutoModelForTokenClassification.from_pretrained(out, dtype=torch.float32)
        torch_logits = model(**enc).logits
    assert torch_logits.dtype == torch.float32
    int8 = ORTModelForTokenClassification.from_pretrained(out, file_name="model_quantized.onnx")(**enc).logits
    assert (torch.as_tensor(int8).argmax(-1) == torch_logits.argmax(-1)).float().mean() > 0.9


def test_cli_trains_from_a_documents_file(tmp_path, minilm_tokenizer, capsys):
    tiny_token_classifier(minilm_tokenizer).save_pretrained(tmp_path / "tiny")
    minilm_tokenizer.save_pretrained(tmp_path / "tiny")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(
            json.dumps(
                {"text": d.text, "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in d.spans]}
            )
            + "\n"
            for d in DOCS
        )
    )
    args = [
        "train-detector",
        str(tmp_path / "out"),
        "--model",
        str(tmp_path / "tiny"),
        "--documents",
        str(docs),
    ]
    args += ["--epochs", "1", "--batch-size", "8", "--max-length", "16", "--stride", "4", "--no-onnx"]
    assert main(args) == 2  # the recipe's layers are more than the tiny base has; the error says what to pass
    assert "--layers 2 keeps all" in capsys.readouterr().err
    args += ["--layers", "2"]
    assert main(args) == 0
    assert "wrote" in capsys.readouterr().out and (tmp_path / "out" / "model.safetensors").is_file()
    assert main(["train-detector", str(tmp_path / "x"), "--documents", str(tmp_path / "none.jsonl")]) == 2
    # a second run replaces its earlier output; a folder of other files or holding the documents is refused
    assert main(args) == 0
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("mine")
    assert main([*args[:1], str(tmp_path / "mine"), *args[2:]]) == 2
    assert "holds other files" in capsys.readouterr().err and (tmp_path / "mine" / "keep.txt").is_file()
    assert main([*args[:1], str(tmp_path), *args[2:]]) == 2
    assert "holds what it reads" in capsys.readouterr().err and docs.is_file()


def test_cli_refuses_the_shipped_model_folder_and_any_folder_in_the_package(tmp_path, capsys):
    from deid_hf.models import LEARNED_MODEL, model_path
    from deid_hf.paths import PACKAGE

    shipped = Path(model_path(LEARNED_MODEL))
    before = {f.name: f.stat().st_mtime_ns for f in shipped.iterdir()}
    for output in (shipped, PACKAGE / "hub" / "my-detector", PACKAGE):
        assert main(["train-detector", str(output), "--documents", str(tmp_path / "none.jsonl")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("deid-hf: error: train-detector:") and len(err.splitlines()) == 1
        assert "inside the installed deid_hf package" in err
    assert {f.name: f.stat().st_mtime_ns for f in shipped.iterdir()} == before
    assert not (PACKAGE / "hub" / "my-detector").exists()


def test_cli_reads_the_silver_sources_taken_whole(tmp_path, capsys):
    parse = build_parser().parse_args
    assert parse(["train-detector", "out", "--silver-whole", "gum,sec"]).silver_whole == ("gum", "sec")
    assert parse(["train-detector", "out", "--silver-whole", ""]).silver_whole == ()
    assert main(["train-detector", str(tmp_path / "out"), "--silver-whole", "gum,nowhere"]) == 2
    assert "silver_whole must name silver sources" in capsys.readouterr().err


def test_cli_silver_policy_defaults_to_strict_names_and_names_the_choices(tmp_path, capsys):
    parse = build_parser().parse_args
    assert parse(["train-detector", "out"]).silver_policy == "strict-names"
    assert parse(["train-detector", "out", "--silver-policy", "strict"]).silver_policy == "strict"
    assert main(["train-detector", str(tmp_path / "out"), "--silver-policy", "gdpr"]) == 2
    assert "silver_policy must be one of hipaa, strict, strict-names" in capsys.readouterr().err


def test_a_stopped_run_can_be_written_from_its_checkpoint(tmp_path, minilm_tokenizer):
    _train(tmp_path, minilm_tokenizer, "out", stop_after=4, export_onnx=False)
    metrics = _train(
        tmp_path, minilm_tokenizer, "out", stop_after=4, resume=True, write_stopped=True, export_onnx=False
    )
    out = tmp_path / "out"
    assert metrics["steps"] == 4 and not metrics["completed"] and (out / "model.safetensors").is_file()
    assert f"stopped early, of {metrics['total_steps']} planned" in (out / "README.md").read_text()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step-4"]  # it can still go on


def test_training_vocabulary_counts_gold_text_outside_its_spans_and_no_silver():
    from deid_hf.corpora import LabelledDocument
    from deid_hf.train.shipped_folder import training_vocabulary

    text = "Pt on lasix, seen by Dr. Brakowitz's team {i}. Brakowitz aware. max amber fluids."
    notes = [LabelledDocument(text.format(i=i), ((25, 36, "PERSON"),), f"p{i}", "notes") for i in range(10)]
    assert notes[0].text[25:36] == "Brakowitz's"
    silver = [LabelledDocument("gum text with wikiword", (), f"s{i}", "silver:gum") for i in range(10)]
    vocabulary = training_vocabulary(notes + silver)
    assert vocabulary.is_vocabulary("lasix") and vocabulary.is_vocabulary("aware")
    # inside a gold span once (here with a possessive): never vocabulary, nor a common noun
    assert not vocabulary.is_vocabulary("brakowitz") and not vocabulary.is_common_noun("brakowitz")
    assert not vocabulary.is_vocabulary("max") and not vocabulary.is_common_noun("amber")  # person names
    assert not vocabulary.is_vocabulary("wikiword")  # silver labels are not trusted to blank identifiers


def test_the_recipe_threshold_is_written_and_read_back(tmp_path, minilm_tokenizer):
    """A non-default operating point reaches the folder's config and the detector that loads it, and a
    checkpoint of the same run resumes under another threshold (it is applied after training)."""
    from dataclasses import replace

    from deid_hf.detect import TokenClassificationDetector

    config = replace(CONFIG, threshold=0.3)
    out = tmp_path / "t03"
    kwargs = {"model": tiny_token_classifier(minilm_tokenizer), "tokenizer": minilm_tokenizer}
    train_detector(DOCS, out, config, progress=False, export_onnx=False, stop_after=3, **kwargs)
    train_detector(DOCS, out, CONFIG, progress=False, export_onnx=False, resume=True, **kwargs)
    assert json.loads((out / "config.json").read_text())["deid_hf_threshold"] == CONFIG.threshold
    train_detector(DOCS, out, config, progress=False, export_onnx=False, **kwargs)
    assert json.loads((out / "config.json").read_text())["deid_hf_threshold"] == 0.3
    assert TokenClassificationDetector(str(out)).threshold == 0.3


def test_requantize_remakes_a_shipped_graph_in_place_or_leaves_the_folder_as_it_was(
    tmp_path, tiny_learned_detector
):
    """`requantize` writes the fused int8 graph, the recipe and a manifest that verifies; when it fails
    (here: held-out documents it cannot read) the folder is as it was and no temporary folder is left."""
    import shutil

    import onnx

    from deid_hf.detect import TokenClassificationDetector
    from deid_hf.export.onnx import INT8_RECIPE, QUANTIZED_FILE
    from deid_hf.models import TRAINING_FILE
    from deid_hf.train.shipped_folder import requantize

    folder = tmp_path / "shipped"
    shutil.copytree(tiny_learned_detector, folder)
    before = (folder / QUANTIZED_FILE).read_bytes()
    config = config_of_record(DetectorConfig, json.loads((folder / TRAINING_FILE).read_text())["config"])
    with pytest.raises(AttributeError):
        requantize(folder, config, {"unreadable": [object()]})
    assert (folder / QUANTIZED_FILE).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shipped"]
    requantize(folder, config, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shipped"]
    record = json.loads((folder / TRAINING_FILE).read_text())
    assert record["metrics"]["onnx"]["quantization"] == INT8_RECIPE
    assert "QAttention" in {node.op_type for node in onnx.load(folder / QUANTIZED_FILE).graph.node}
    TokenClassificationDetector(
        str(folder), backend="onnx", int8=True
    )  # refused if its manifest did not verify


def test_layers_keeps_the_base_encoders_first_layers():
    """``--layers N`` builds the base encoder with its first N layers (their weights, not fresh ones) and a
    fresh BIO head; more layers than the base has is refused; a recipe without it (None) keeps its digest."""
    from transformers import AutoModel

    from deid_hf.models import model_path
    from deid_hf.train.detector import base_model_and_tokenizer
    from deid_hf.train.loop import recipe_fields

    base = AutoModel.from_pretrained(model_path("minilm"))
    model, _ = base_model_and_tokenizer("minilm", None, None, layers=2)
    assert model.config.num_hidden_layers == 2 and len(model.bert.encoder.layer) == 2
    for mine, theirs in zip(model.bert.encoder.layer, base.encoder.layer[:2]):
        assert torch.equal(mine.output.dense.weight, theirs.output.dense.weight)
    with pytest.raises(InputError, match="at most"):
        base_model_and_tokenizer("minilm", None, None, layers=base.config.num_hidden_layers + 1)
    with pytest.raises(InputError, match="layers"):
        base_model_and_tokenizer("minilm", model, None, layers=2)
    assert "layers" not in recipe_fields(DetectorConfig(layers=None))
    assert recipe_fields(DetectorConfig())["layers"] == DetectorConfig().layers
    assert recipe_fields(DetectorConfig(layers=3))["layers"] == 3
