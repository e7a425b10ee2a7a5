"""Fine-tune an encoder for token classification over the label schema (BIO) with the shared accelerate loop.

Labels: ``O`` plus ``B-``/``I-`` of every label of `deid_hf.spans.LABELS`. A WordPiece token is labelled
with the span it overlaps (``B-`` when the previous token of its window is not in the same span); special
tokens get -100 (no loss). Documents longer than ``max_length`` are cut into overlapping windows (``stride``
tokens shared by consecutive windows, the tokenizers' ``return_overflowing_tokens``).

Gold data: presidio_synth_pii records 0-749 (types mapped by ``PRESIDIO_LABELS``) and the PhysioNet deid
dev notes (``PHYSIONET_LABELS``), split into patient-level folds: ``held_out_fold=k`` trains on the other
folds and reports held-out metrics (shared/EVALUATION.md) on fold k's notes and on presidio records 750-1499.
The result folder has the shipped layout (`finish_folder`): the checkpoint with int8 linear weights, its
tokenizer, the int8 ONNX export (Optimum), the corpus vocabulary, the training record, a manifest and a
model card.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..data import (
    PHYSIONET_FILE,
    PRESIDIO_FILE,
    PRESIDIO_HELD_OUT,
    PRESIDIO_TUNING,
    LabelledDocument,
    case_group,
    note_folds,
    physionet_documents,
    presidio_documents,
)
from ..errors import InputError
from ..models import write_manifest
from ..spans import LABELS
from ..validate import check_positive_ints, check_training_rates

TRAINING_FILE = "deid_hf_training.json"
BIO_LABELS = ("O", *(f"{prefix}-{label}" for label in LABELS for prefix in ("B", "I")))


@dataclass
class DetectorConfig:
    model: str = "minilm"
    epochs: int = 4
    batch_size: int = 16
    gradient_accumulation_steps: int = 1
    learning_rate: float = 1.5e-4
    warmup_ratio: float = 0.1
    max_length: int = 256
    stride: int = 64
    eval_fraction: float = 0.05
    eval_every: int = 40
    save_every: int = 20
    seed: int = 0
    #: patient-level folds of the PhysioNet dev notes; ``held_out_fold`` is left out and measured (None: train
    #: on every dev patient, as the shipped model is: the corpus' other patients are measured separately)
    folds: int = 5
    held_out_fold: int | None = None
    #: a fold neither trained on nor measured (tuning runs keep `deid_hf.data.SEALED_FOLD` unread)
    sealed_fold: int | None = field(default=None, metadata={"neutral": None})
    #: presidio_synth_pii records 0..presidio_records-1 are trained on (at most 750: 750-1499 are held out)
    presidio_records: int = 750
    #: at most this many training windows (a seeded sample), to bound the run's time
    max_windows: int | None = None
    #: share of the training windows without any gold span that is kept (seeded); < 1 counters the rarity
    #: of PHI in clinical notes (negative down-sampling)
    negative_windows: float = 0.5
    #: silver (distilled) documents: at most this many texts per source of `silver.SILVER_SOURCES`, labelled
    #: by the ``silver_detector`` ensemble under ``silver_policy`` (0: gold only)
    silver_per_source: int = 400
    silver_detector: str = "zsts"
    #: policy of the silver labels (`silver.SILVER_POLICIES`): "strict-names" (names, places, organisations
    #: and addresses as strict finds them, every other span as hipaa keeps it), "strict" (every span) or
    #: "hipaa" (what the clinical gold marks: trims general text's organisations)
    silver_policy: str = "strict-names"
    #: silver sources taken whole rather than sampled: GUM's and wikigold's encyclopedic, news and
    #: biographical sentences, where general-text organisations and places are
    silver_whole: tuple[str, ...] = ("gum", "wikigold")
    #: training-data engine (`deid_hf.train.augment`), applied to the training split only: surrogate
    #: re-filled copies of every gold document with spans, look-alike copies of every clinical note, and
    #: one copy of every training text in another casing
    refills: int = field(default=0, metadata={"neutral": 0})
    look_alikes: int = field(default=0, metadata={"neutral": 0})
    case_variants: bool = field(default=False, metadata={"neutral": False})
    #: where the documents came from, for the model card: "default" or a file name
    data: str = "default"

    def __post_init__(self):
        check_positive_ints(
            self,
            "epochs",
            "batch_size",
            "gradient_accumulation_steps",
            "max_length",
            "eval_every",
            "save_every",
            "folds",
        )
        if not all(isinstance(n, int) and n >= 0 for n in (self.refills, self.look_alikes)):
            raise InputError(
                f"refills and look_alikes must be non-negative integers, got {self.refills!r}, "
                f"{self.look_alikes!r}"
            )
        check_training_rates(self.eval_fraction, self.learning_rate)
        if self.max_windows is not None and (not isinstance(self.max_windows, int) or self.max_windows < 1):
            raise InputError(f"max_windows must be a positive integer or None, got {self.max_windows!r}")
        if not 0 <= self.stride < self.max_length - 2:
            raise InputError(f"stride must be in [0, max_length - 2), got {self.stride!r}")
        most = len(PRESIDIO_TUNING)
        if not isinstance(self.presidio_records, int) or not 0 <= self.presidio_records <= most:
            raise InputError(f"presidio_records must be in [0, {most}], got {self.presidio_records!r}")
        if not isinstance(self.silver_per_source, int) or self.silver_per_source < 0:
            raise InputError(
                f"silver_per_source must be a non-negative integer, got {self.silver_per_source!r}"
            )
        from .silver import SILVER_POLICIES, SILVER_SOURCES

        if self.silver_policy not in SILVER_POLICIES:
            raise InputError(
                f"silver_policy must be one of {', '.join(SILVER_POLICIES)}, got {self.silver_policy!r}"
            )

        if not isinstance(self.silver_whole, (list, tuple)) or set(self.silver_whole) - set(SILVER_SOURCES):
            raise InputError(
                f"silver_whole must name silver sources ({', '.join(SILVER_SOURCES)}), "
                f"got {self.silver_whole!r}"
            )
        self.silver_whole = tuple(self.silver_whole)
        if not 0 <= self.negative_windows <= 1:
            raise InputError(f"negative_windows must be in [0, 1], got {self.negative_windows!r}")
        for name in ("held_out_fold", "sealed_fold"):
            fold = getattr(self, name)
            if fold is not None and (not isinstance(fold, int) or not 0 <= fold < self.folds):
                raise InputError(f"{name} must be in [0, {self.folds}), got {fold!r}")


def default_documents(data_root: str | Path, config: DetectorConfig):
    """(training documents, {held-out set name: documents}) of the default mix: gold, plus silver documents
    when ``config.silver_per_source`` > 0."""
    root = Path(data_root)
    for relative in (PRESIDIO_FILE, PHYSIONET_FILE):
        if not (root / relative).is_file():
            raise InputError(
                f"training the detector needs {root / relative}; set DEID_HF_DATA / --data-root to the "
                f"folder holding presidio_synth_pii/ and physionet_deid_dev/, or pass --documents FILE.jsonl"
            )
    tuning = presidio_documents(root / PRESIDIO_FILE, PRESIDIO_TUNING)
    notes = physionet_documents(root / PHYSIONET_FILE)
    fold_of = note_folds(notes, config.folds)
    held_notes = [d for d in notes if fold_of[d.group] == config.held_out_fold]
    left_out = {config.held_out_fold, config.sealed_fold}
    train = tuning[: config.presidio_records] + [d for d in notes if fold_of[d.group] not in left_out]
    if config.silver_per_source:
        from .silver import silver_documents

        train += silver_documents(
            root,
            config.silver_per_source,
            seed=config.seed,
            detector=config.silver_detector,
            policy=config.silver_policy,
            whole=config.silver_whole,
        )
    held_out = {
        f"presidio_synth_pii {PRESIDIO_HELD_OUT.start}-{PRESIDIO_HELD_OUT.stop - 1}": presidio_documents(
            root / PRESIDIO_FILE, PRESIDIO_HELD_OUT
        )
    }
    if held_notes:
        held_out[f"physionet_deid_dev fold {config.held_out_fold}/{config.folds}"] = held_notes
    return train, held_out


def encode_document(tokenizer, document: LabelledDocument, max_length: int, stride: int) -> list[dict]:
    """One row per window: ``input_ids``, ``attention_mask`` and BIO ``labels`` (ids of `BIO_LABELS`)."""
    encoded = tokenizer(
        document.text,
        truncation=True,
        max_length=max_length,
        stride=stride,
        return_overflowing_tokens=True,
        return_offsets_mapping=True,
    )
    index = {label: i for i, label in enumerate(BIO_LABELS)}
    rows = []
    for window, ids in enumerate(encoded["input_ids"]):
        special = set(
            i
            for i, flag in enumerate(tokenizer.get_special_tokens_mask(ids, already_has_special_tokens=True))
            if flag
        )
        labels, previous = [], None
        for i, (start, end) in enumerate(encoded["offset_mapping"][window]):
            if i in special or start == end:
                labels.append(-100)
                continue
            span = next((s for s in document.spans if start < s[1] and s[0] < end), None)
            if span is None:
                labels.append(index["O"])
            else:
                labels.append(index[("I-" if span == previous else "B-") + span[2]])
            previous = span
        rows.append({"input_ids": list(ids), "attention_mask": [1] * len(ids), "labels": labels})
    return rows


def _collate(pad_id: int):
    import torch

    def collate(rows: list[dict]) -> dict:
        width = max(len(r["input_ids"]) for r in rows)
        pad = [width - len(r["input_ids"]) for r in rows]
        return {
            "input_ids": torch.tensor([r["input_ids"] + [pad_id] * n for r, n in zip(rows, pad)]),
            "attention_mask": torch.tensor([r["attention_mask"] + [0] * n for r, n in zip(rows, pad)]),
            "labels": torch.tensor([r["labels"] + [-100] * n for r, n in zip(rows, pad)]),
        }

    return collate


def length_grouped_order(lengths: Sequence[int], batch_size: int, group: int = 32):
    """An epoch order (pure function of seed and epoch) that batches rows of similar length: the seeded
    permutation cut into chunks of ``batch_size * group`` rows, each sorted by length, then the batches of
    the epoch shuffled (less padding, same randomness across batches)."""
    from .loop import epoch_order

    def order(size: int, seed: int, epoch: int) -> list[int]:
        permutation = epoch_order(size, seed, epoch)
        chunk = batch_size * group
        ordered = [
            j
            for i in range(0, size, chunk)
            for j in sorted(permutation[i : i + chunk], key=lambda k: -lengths[k])
        ]
        batches = [ordered[i : i + batch_size] for i in range(0, size, batch_size)]
        random.Random(seed * 1000 + epoch).shuffle(batches)
        return [j for batch in batches for j in batch]

    return order


def split_documents(docs: Sequence[LabelledDocument], eval_fraction: float, seed: int):
    """(train, eval) by group: a seeded ``eval_fraction`` of the groups for the evaluation loss."""
    groups = sorted({d.group for d in docs})
    random.Random(seed).shuffle(groups)
    held = set(groups[: max(1, round(eval_fraction * len(groups)))])
    train = [d for d in docs if d.group not in held]
    if not train:
        raise InputError(
            f"{len(docs)} documents leave nothing to train on after holding out {eval_fraction:.0%}"
        )
    return train, [d for d in docs if d.group in held]


def held_out_metrics(detector, held_out: dict[str, Sequence[LabelledDocument]]) -> dict:
    """EVALUATION.md token metrics of ``detector`` on each held-out set, also per case group, with docs/s."""
    import time

    from ..evaluation.detection import DetectionCounts, GoldDocument, GoldSpan

    results = {}
    for name, docs in held_out.items():
        if not docs:
            continue
        start = time.perf_counter()
        predicted = detector.detect_batch([d.text for d in docs])
        seconds = time.perf_counter() - start
        counts = {"all": DetectionCounts()}
        for doc, spans in zip(docs, predicted):
            gold = GoldDocument(
                doc.text,
                tuple(
                    GoldSpan(s, e, original) for (s, e, _), original in zip(doc.spans, doc.original_labels)
                ),
            )
            for key in ("all", case_group(doc.text)):
                counts.setdefault(key, DetectionCounts()).add(gold, spans)
        results[name] = {
            "documents": len(docs),
            "docs_per_s": len(docs) / seconds,
            **{key: c.report() for key, c in counts.items()},
        }
    return results


def train_detector(
    documents: Sequence[LabelledDocument],
    output_dir: str | Path,
    config: DetectorConfig | None = None,
    *,
    held_out: dict[str, Sequence[LabelledDocument]] | None = None,
    model=None,
    tokenizer=None,
    checkpoint_dir: str | Path | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    progress: bool = True,
    export_onnx: bool = True,
    write_stopped: bool = False,
) -> dict:
    """Fine-tune ``config.model`` (or the given ``model`` / ``tokenizer``) on ``documents``; returns metrics.

    ``held_out`` sets are measured after training (PyTorch backend) and go into the card; ``stop_after`` /
    ``resume`` as in `deid_hf.train.loop.run_training`. The folder is written when training completes, or
    with ``write_stopped=True`` also from a run stopped early (``--resume --stop-after N`` at the newest
    checkpoint's step writes that checkpoint; the card states the steps done of the schedule).
    """
    from accelerate.utils import set_seed

    from .loop import LoopSettings, run_training

    config = config or DetectorConfig()
    documents = [d for d in documents if d.text.strip()]
    if not documents:
        raise InputError("no documents to train the detector on")
    output_dir = Path(output_dir)
    checkpoints = Path(checkpoint_dir) if checkpoint_dir else output_dir / "checkpoints"
    set_seed(config.seed)
    if model is None:
        model, tokenizer = _base_model(config.model)
    elif tokenizer is None:
        raise InputError("pass the tokenizer together with the model")
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("the detector trainer needs a fast tokenizer (offsets for windows and labels)")
    train_docs, eval_docs = split_documents(documents, config.eval_fraction, config.seed)
    if config.refills or config.look_alikes or config.case_variants:
        from .augment import augmented

        train_docs = augmented(
            train_docs,
            refills=config.refills,
            case_variants=config.case_variants,
            look_alikes=config.look_alikes,
            seed=config.seed,
        )
    train_rows = [
        r for d in train_docs for r in encode_document(tokenizer, d, config.max_length, config.stride)
    ]
    eval_rows = [
        r for d in eval_docs for r in encode_document(tokenizer, d, config.max_length, config.stride)
    ]
    if config.negative_windows < 1:
        rng = random.Random(config.seed)
        train_rows = [
            r for r in train_rows if any(x > 0 for x in r["labels"]) or rng.random() < config.negative_windows
        ]
    if config.max_windows is not None and len(train_rows) > config.max_windows:
        keep = sorted(random.Random(config.seed).sample(range(len(train_rows)), config.max_windows))
        train_rows = [train_rows[i] for i in keep]
    run = run_training(
        model,
        train_rows,
        eval_rows,
        _collate(tokenizer.pad_token_id),
        LoopSettings.of(config),
        checkpoints,
        identity={"config": asdict(config), "documents": len(documents), "windows": len(train_rows)},
        resume=resume,
        stop_after=stop_after,
        progress=progress,
        description="fine-tuning detector",
        label_shift=0,
        order=length_grouped_order([len(r["input_ids"]) for r in train_rows], config.batch_size),
    )
    state = run.state
    metrics = {
        "steps": state["step"],
        "total_steps": run.total_steps,
        "train_documents": len(train_docs),
        "train_windows": len(train_rows),
        "eval_documents": len(eval_docs),
        "train_loss": state["train_loss"],
        "eval_loss": state["eval_loss"][-1][1],
        "eval_loss_before": state["eval_loss"][0][1],
        "eval_loss_curve": state["eval_loss"],
        "resumed_from": run.resumed_from,
        "completed": not run.stopped,
    }
    if run.stopped and not write_stopped:
        return metrics
    _write_model(run.model, tokenizer, output_dir, config, metrics, held_out or {}, documents, export_onnx)
    return metrics


def _base_model(name: str):
    from transformers import AutoModelForTokenClassification

    from ..models import load_tokenizer, model_path

    model = AutoModelForTokenClassification.from_pretrained(
        model_path(name),
        num_labels=len(BIO_LABELS),
        id2label=dict(enumerate(BIO_LABELS)),
        label2id={label: i for i, label in enumerate(BIO_LABELS)},
    )
    return model, load_tokenizer(name)


def _write_model(
    model,
    tokenizer,
    output_dir: Path,
    config: DetectorConfig,
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
    model.eval()
    model.config.id2label = dict(enumerate(BIO_LABELS))
    model.config.label2id = {label: i for i, label in enumerate(BIO_LABELS)}
    model.config.deid_hf_window = {"max_length": config.max_length, "stride": config.stride}
    if config.data == "default":  # PhysioNet gold follows HIPAA Safe Harbor (README "Identifier policy")
        model.config.deid_hf_policy = "hipaa"
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    settings = json.loads((tmp / "tokenizer_config.json").read_text())  # inference windows = training ones
    settings["model_max_length"] = config.max_length
    (tmp / "tokenizer_config.json").write_text(json.dumps(settings, indent=2))
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
    if output_dir.exists():  # e.g. the checkpoints of a completed run, no longer needed
        stale = output_dir.parent / f".old-{output_dir.name}"
        shutil.rmtree(stale, ignore_errors=True)
        output_dir.rename(stale)
        shutil.rmtree(stale, ignore_errors=True)
    tmp.rename(output_dir)


def finish_folder(
    folder: Path,
    config: DetectorConfig,
    metrics: dict,
    held_out: dict,
    documents: Sequence[LabelledDocument],
) -> None:
    """The shipped layout of a folder holding fp32 weights (and their ONNX export): int8 linear weights
    (`export.weights`) measured on the held-out sets, no fp32 graph, the vocabulary of the training corpora
    (`training_vocabulary`), the training record with the recipe digest, the card and the manifest."""
    from transformers import AutoModelForTokenClassification

    from ..detect.lexicon import VOCABULARY_FILE
    from ..detect.ner import TokenClassificationDetector
    from ..export.weights import save_int8_weights
    from .loop import recipe_digest

    save_int8_weights(AutoModelForTokenClassification.from_pretrained(folder), folder)
    (folder / "model.onnx").unlink(missing_ok=True)  # `deid-hf export FOLDER OUT` writes it again
    metrics["held_out"] = (
        held_out_metrics(TokenClassificationDetector(str(folder)), held_out) if held_out else {}
    )
    (folder / VOCABULARY_FILE).write_text(training_vocabulary(documents).to_json(), encoding="utf-8")
    sources = sorted({d.source for d in documents})
    record = {
        "config": asdict(config),
        "recipe": recipe_digest(config),
        "metrics": metrics,
        "sources": sources,
    }
    (folder / TRAINING_FILE).write_text(json.dumps(record, indent=2))
    _write_card(folder, config, metrics, sources)
    write_manifest(folder)


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


def _default_data(config: DetectorConfig, held: str) -> str:
    return (
        f": presidio_synth_pii records 0-{config.presidio_records - 1} and PhysioNet deid dev ICU nursing "
        f"notes ({held})"
    )


def _write_card(folder: Path, config: DetectorConfig, metrics: dict, sources: list[str]) -> None:
    from ..export.cards import write_card
    from ..models import REGISTRY
    from .loop import recipe_digest
    from .silver import WIKIGOLD_SILVER_ARTICLES

    base = REGISTRY[config.model].base_model if config.model in REGISTRY else config.model
    name = f"deid-detector-{Path(config.model).name}"
    schedule = "" if metrics["completed"] else f" (stopped early, of {metrics['total_steps']} planned)"
    held = (
        f"patients of fold {config.held_out_fold} of {config.folds} (patient-level folds) held out"
        if config.held_out_fold is not None
        else "every dev patient trained on; the held-out patients of the corpus are measured separately"
    )
    silver = (
        f"Silver (distilled) data: up to {config.silver_per_source} texts per source"
        f"{' (all texts of ' + ', '.join(config.silver_whole) + ')' if config.silver_whole else ''} labelled "
        f"by the `{config.silver_detector}` detector under the {config.silver_policy} policy "
        f"(deid_hf.train.silver; wikigold's silver text is its first {WIKIGOLD_SILVER_ARTICLES} articles, "
        f"the others are held out)."
        if config.silver_per_source and config.data == "default"
        else "No silver (distilled) data."
    )
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
            "summary": (
                f"`{config.model}` fine-tuned for token classification over the deid-hf label schema in BIO "
                f"({len(BIO_LABELS)} labels: {', '.join(LABELS)}) on {metrics['train_documents']} "
                f"documents ({metrics['train_windows']} windows of {config.max_length} tokens, stride "
                f"{config.stride}), {metrics['steps']} optimizer steps"
                f"{schedule}"
                f", seed {config.seed}. Training data: {', '.join(sources)}"
                f"{_default_data(config, held) if config.data == 'default' else ''}. {silver}\n\n"
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
            ),
            "usage": (
                f"from transformers import pipeline\n"
                f'pipe = pipeline("token-classification", model="{name}", '
                f'aggregation_strategy="simple", stride={config.stride})\n'
                f"# in deid-hf, ONNX Runtime int8:\n"
                f'deid_hf.pipeline("deid-substitution", detector=deid_hf.detect.TokenClassificationDetector('
                f'"{name}", backend="onnx", int8=True))'
            ),
            "limits": (
                "Intended use: finding personal information (names, places, dates, contact details, "
                "identifying numbers) in English free text before replacement, as one detector of a "
                "deid-hf ensemble or alone where speed matters. Limits: the tokenizer is uncased, so "
                "capitalisation carries no signal (see the per case-group figures); trained on synthetic "
                "records and on the notes of one hospital's ICU (MIMIC-II, surrogate PHI), so other "
                "note types, institutions and languages will see lower recall; the clinical training set "
                "is small (a few hundred PHI spans). Detection is never perfect and a privacy guarantee "
                "holds only for what is detected: review a sample."
            ),
        },
    )
