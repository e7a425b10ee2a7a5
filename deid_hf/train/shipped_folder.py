"""The shipped layout of a trained detector folder (`write_model`, `finish_folder`): int8 linear weights,
the int8 ONNX export, the corpus vocabulary, the training record with the recipe digest, the model card
with held-out metrics, and the manifest; assembled in a temporary folder renamed into place."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..corpora import LabelledDocument
from ..models import TRAINING_FILE, replace_folder, write_manifest
from ..spans import BIO_LABELS, MODEL_LABELS
from .measure import held_out_metrics


def write_model(
    model,
    tokenizer,
    output_dir: Path,
    config,
    metrics: dict,
    held_out: dict,
    documents: Sequence[LabelledDocument],
    export_onnx: bool,
) -> None:
    """Checkpoint + tokenizer, ONNX int8 with its held-out metrics, then `finish_folder`; assembled in a
    temporary folder renamed into place."""
    from ..detect.ner import TokenClassificationDetector

    output_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = output_dir.parent / f".tmp-{output_dir.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    save_checkpoint(model, tokenizer, tmp, config)
    if export_onnx:
        from ..export.onnx import export_token_classifier

        metrics["onnx"] = export_token_classifier(tmp)
        if held_out:  # what the "learned" detector runs: the int8 graph
            int8 = TokenClassificationDetector(str(tmp), backend="onnx", int8=True)
            metrics["held_out_int8"] = held_out_metrics(int8, held_out)
    finish_folder(tmp, config, metrics, held_out, documents)
    if not metrics["completed"] and (output_dir / "checkpoints").is_dir():  # a stopped run can go on
        (output_dir / "checkpoints").rename(tmp / "checkpoints")
        write_manifest(tmp)
    replace_folder(tmp, output_dir)  # replaces e.g. the checkpoints of a completed run, no longer needed


def save_checkpoint(model, tokenizer, folder: Path, config) -> None:
    """The model (in eval mode) and its tokenizer saved into ``folder`` with what the detector reads from
    them: the BIO labels, the training window (also the tokenizer's maximum length), the operating point and
    the identifier policy of the gold labels."""
    model.eval()
    model.config.id2label = dict(enumerate(BIO_LABELS))
    model.config.label2id = {label: i for i, label in enumerate(BIO_LABELS)}
    model.config.deid_hf_window = {"max_length": config.max_length, "stride": config.stride}
    model.config.deid_hf_threshold = config.threshold
    if config.data == "default":  # PhysioNet gold follows HIPAA Safe Harbor (README "Identifier policy")
        model.config.deid_hf_policy = "hipaa"
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    settings = json.loads((folder / "tokenizer_config.json").read_text())  # inference windows = training ones
    settings["model_max_length"] = config.max_length
    (folder / "tokenizer_config.json").write_text(json.dumps(settings, indent=2))


def finish_folder(
    folder: Path,
    config,
    metrics: dict,
    held_out: dict,
    documents: Sequence[LabelledDocument],
) -> None:
    """The shipped layout of a folder holding fp32 weights (and their ONNX export): int8 linear weights
    (`export.weights`) measured on the held-out sets, no fp32 graph, the vocabulary of the training corpora
    (`training_vocabulary`), the training record with the recipe digest, the card and the manifest."""
    from transformers import AutoModelForTokenClassification

    from ..detect.ner import TokenClassificationDetector
    from ..export.weights import save_int8_weights

    save_int8_weights(AutoModelForTokenClassification.from_pretrained(folder), folder)
    (folder / "model.onnx").unlink(missing_ok=True)  # `deid-hf export FOLDER OUT` writes it again
    metrics["held_out"] = (
        held_out_metrics(TokenClassificationDetector(str(folder)), held_out) if held_out else {}
    )
    sources = write_record(folder, config, metrics, documents)
    _write_card(folder, config, metrics, sources)
    write_manifest(folder)


def write_record(folder: Path, config, metrics: dict, documents: Sequence[LabelledDocument]) -> list[str]:
    """The corpus vocabulary of the training documents (`training_vocabulary`) and the training record
    (recipe, digest, metrics, sources) into ``folder``; returns the sources."""
    from ..detect.lexicon import VOCABULARY_FILE
    from .loop import recipe_digest, recipe_fields

    (folder / VOCABULARY_FILE).write_text(training_vocabulary(documents).to_json(), encoding="utf-8")
    sources = sorted({d.source for d in documents})
    record = {
        "config": recipe_fields(config),
        "recipe": recipe_digest(config),
        "metrics": metrics,
        "sources": sources,
    }
    (folder / TRAINING_FILE).write_text(json.dumps(record, indent=2))
    return sources


def requantize(folder: Path, config, held_out: dict) -> None:
    """A shipped folder's int8 graph made again from its weights by `export.onnx.quantize` (after a change of
    `INT8_RECIPE`), measured again on ``held_out``; the training record, card and manifest rewritten
    (``config``: the folder's `DetectorConfig`, from its training record). The folder is assembled in a
    temporary copy (removed on failure) renamed into place."""
    import tempfile
    import uuid

    from ..detect.ner import TokenClassificationDetector
    from ..export.onnx import INT8_RECIPE, QUANTIZED_FILE, export

    folder = Path(folder)
    record = json.loads((folder / TRAINING_FILE).read_text())
    tmp = folder.parent / f".tmp-{folder.name}-{uuid.uuid4().hex}"
    try:
        shutil.copytree(folder, tmp)
        with tempfile.TemporaryDirectory() as graphs:  # the fp32 graph of the shipped (int8 linear) weights
            export(str(folder), graphs, "token-classification", int8=True)
            shutil.copyfile(Path(graphs) / QUANTIZED_FILE, tmp / QUANTIZED_FILE)
        (tmp / "ort_config.json").unlink(missing_ok=True)  # Optimum's quantizer record: not what made it
        write_manifest(tmp)  # the detector loads a folder that matches its manifest
        metrics = record["metrics"]
        metrics["onnx"] = {"files": [QUANTIZED_FILE], "quantization": INT8_RECIPE}
        if held_out:
            int8 = TokenClassificationDetector(str(tmp), backend="onnx", int8=True)
            metrics["held_out_int8"] = held_out_metrics(int8, held_out)
        (tmp / TRAINING_FILE).write_text(json.dumps(record, indent=2))
        _write_card(tmp, config, metrics, record["sources"])
        write_manifest(tmp)
        replace_folder(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def training_vocabulary(documents: Sequence[LabelledDocument]):
    """The corpus vocabulary (`detect.lexicon.Vocabulary`) of the gold training documents, each source
    counted on its own (silver text left out): every gold span is blanked before counting, and every word
    found inside a gold span (with or without its possessive) and every known person name is dropped, so
    no identifier of the training data, and no name, becomes vocabulary."""
    from ..detect.lexicon import CLITIC, DocumentFrequency, Vocabulary, is_name_word, words

    by_source: dict[str, list[str]] = {}
    in_spans: set[str] = set()
    for doc in documents:
        if doc.source.startswith("silver:"):
            continue
        text = doc.text
        for start, end, _ in doc.spans:
            for word in words(doc.text[start:end]):
                in_spans.update({word.lower(), CLITIC.sub("", word).lower()})
            text = text[:start] + " " * (end - start) + text[end:]
        by_source.setdefault(doc.source, []).append(text)
    found = [DocumentFrequency().fit(texts).vocabulary() for texts in by_source.values()]
    union = Vocabulary(
        frozenset().union(*(v.words for v in found)), frozenset().union(*(v.common_nouns for v in found))
    )
    names = {w for w in union.words | union.common_nouns if is_name_word(CLITIC.sub("", w))}
    return union.without(in_spans | names)


def _metrics_table(metrics: dict) -> str:
    lines = [
        "| held-out set | backend | case group | documents | token P | token R | entities fully protected |"
    ]
    lines.append("|---|---|---|---|---|---|---|")
    for key, backend in (("held_out_int8", "ONNX Runtime int8"), ("held_out", "PyTorch (int8 weights)")):
        for name, result in metrics.get(key, {}).items():
            for group in ("all", "mixed", "upper"):
                if group in result:
                    r = result[group]
                    docs = result["documents"] if group == "all" else "-"
                    lines.append(
                        f"| {name} | {backend} | {group} | {docs} | {r['token_precision']:.3f} | "
                        f"{r['token_recall']:.3f} | {r['entities_fully_protected']:.3f} |"
                    )
    return "\n".join(lines)


#: EVALUATION.md metric -> the model-index metric it is published as
CARD_METRICS = {
    "token_precision": ("precision", "token precision"),
    "token_recall": ("recall", "token recall"),
    "entities_fully_protected": ("recall", "entities fully protected"),
}


def eval_results(metrics: dict) -> list:
    """The held-out figures of the deid-hf backend (ONNX int8 where measured) as Hub ``EvalResult``s."""
    from huggingface_hub import EvalResult

    measured = metrics.get("held_out_int8") or metrics.get("held_out") or {}
    return [
        EvalResult(
            task_type="token-classification",
            task_name="PII/PHI detection",
            dataset_type=name.split()[0],
            dataset_name=name,
            dataset_split="held out",
            metric_type=kind,
            metric_name=label,
            metric_value=round(result["all"][key], 4),
        )
        for name, result in measured.items()
        for key, (kind, label) in CARD_METRICS.items()
    ]


def _default_data(config, held: str) -> str:
    return (
        f": presidio_synth_pii records 0-{config.presidio_records - 1} and PhysioNet deid dev ICU nursing "
        f"notes ({held})"
    )


def _silver_note(config) -> str:
    """The card's sentence on the silver (distilled) training data."""
    from .silver import WIKIGOLD_SILVER_ARTICLES

    if not (config.silver_per_source and config.data == "default"):
        return "No silver (distilled) data."
    return (
        f"Silver (distilled) data: up to {config.silver_per_source} texts per source"
        f"{' (all texts of ' + ', '.join(config.silver_whole) + ')' if config.silver_whole else ''} labelled "
        f"by the `{config.silver_detector}` detector under the {config.silver_policy} policy "
        f"(deid_hf.train.silver; wikigold's silver text is its first {WIKIGOLD_SILVER_ARTICLES} articles, "
        f"the others are held out)."
    )


def _card_summary(config, metrics: dict, sources: list[str]) -> str:
    """The card's summary: the base, the data, the schedule, the recipe, the held-out metrics, the files."""
    from .loop import recipe_digest

    schedule = "" if metrics["completed"] else f" (stopped early, of {metrics['total_steps']} planned)"
    held = (
        f"patients of fold {config.held_out_fold} of {config.folds} (patient-level folds) held out"
        if config.held_out_fold is not None
        else "every dev patient trained on; the held-out patients of the corpus are measured separately"
    )
    layers = "" if getattr(config, "layers", None) is None else f" (its first {config.layers} layers)"
    return (
        f"`{config.model}`{layers} fine-tuned for token classification over the deid-hf label schema in BIO "
        f"({len(BIO_LABELS)} labels: {', '.join(MODEL_LABELS)}) on {metrics['train_documents']} "
        f"documents ({metrics['train_windows']} windows of {config.max_length} tokens, stride "
        f"{config.stride}), {metrics['steps']} optimizer steps"
        f"{schedule}"
        f", seed {config.seed}. Training data: {', '.join(sources)}"
        f"{_default_data(config, held) if config.data == 'default' else ''}. {_silver_note(config)}\n\n"
        f"Recipe: `deid-hf train-detector OUT` with the defaults of `DetectorConfig` (digest "
        f"`{recipe_digest(config)}`; the full config is in `{TRAINING_FILE}`).\n\n"
        f"Held-out token metrics (EVALUATION.md of deid-hf, label-agnostic; the model alone, no "
        f"identifier policy):\n\n{_metrics_table(metrics)}\n\n"
        f"Files: `model_quantized.onnx` (ONNX, int8 dynamic quantization: what deid-hf runs; config "
        f"{metrics.get('onnx', {}).get('quantization', 'not exported')}), `model.safetensors` "
        f"(PyTorch: linear layers int8 per output channel in the compressed-tensors format, the rest "
        f"fp16; transformers loads it with `compressed-tensors` installed), the tokenizer, "
        f"`deid_hf_vocabulary.json` (words frequent across the gold training corpora outside any "
        f"identifier: the identifier policy's corpus vocabulary), `{TRAINING_FILE}` and "
        f"`deid_hf_manifest.json` (size and SHA-256 of every file)."
    )


#: the card's intended use and limits
CARD_LIMITS = (
    "Intended use: finding personal information (names, places, dates, contact details, "
    "identifying numbers) in English free text before replacement, as one detector of a "
    "deid-hf ensemble or alone where speed matters. Limits: the tokenizer is uncased, so "
    "capitalisation carries no signal (see the per case-group figures); trained on synthetic "
    "records and on the notes of one hospital's ICU (MIMIC-II, surrogate PHI), so other "
    "note types, institutions and languages will see lower recall; the clinical training set "
    "is small (a few hundred PHI spans). The labels are the model's own reading: read alone, it "
    "may call an age an ADDRESS or a year a PHONE, which deid-hf's identifier policy corrects; the "
    "figures above count a span found whatever its label. Detection is never perfect and a privacy "
    "guarantee holds only for what is detected: review a sample."
)


def _write_card(folder: Path, config, metrics: dict, sources: list[str]) -> None:
    from ..export.cards import write_card
    from ..models import REGISTRY
    from .loop import recipe_digest

    base = REGISTRY[config.model].base_model if config.model in REGISTRY else config.model
    name = f"deid-detector-{Path(config.model).name}"
    write_card(
        folder,
        kind="token-classification",
        base_model=base,
        license="apache-2.0",
        datasets=None,
        tags=["token-classification", "ner", "phi", "onnx", "compressed-tensors"],
        eval_results=eval_results(metrics),
        model_name=name,
        extra={"deid_hf_recipe": recipe_digest(config)},
        text={
            "title": f"{Path(config.model).name} fine-tuned as a PII/PHI token classifier for deid-hf",
            "summary": _card_summary(config, metrics, sources),
            "usage": (
                f"from transformers import pipeline\n"
                f"from deid_hf.models import model_path  # this folder, where deid-hf installed it\n"
                f'pipe = pipeline("token-classification", model=model_path("{name}"), '
                f'aggregation_strategy="simple", stride={config.stride})\n'
                f"# in deid-hf, ONNX Runtime int8:\n"
                f'deid_hf.pipeline("deid-substitution", detector=deid_hf.detect.TokenClassificationDetector('
                f'"{name}", backend="onnx", int8=True))'
            ),
            "limits": CARD_LIMITS,
        },
    )
