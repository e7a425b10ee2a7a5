"""Fine-tune an encoder for token classification over the label schema (BIO) with the shared accelerate loop.

Labels: ``O`` plus ``B-``/``I-`` of every label of `deid_hf.spans.LABELS`; special tokens get -100 (no
loss). Long documents are cut into overlapping windows (``stride`` tokens shared). Data: `deid_hf.corpora`'s
corpora and folds (`default_documents`), the training-data engine (`deid_hf.train.augment`) and silver
text (`deid_hf.train.silver`); the folder written has the shipped layout (`deid_hf.train.shipped_folder`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..corpora import (
    PHYSIONET_FILE,
    PRESIDIO_FILE,
    PRESIDIO_HELD_OUT,
    PRESIDIO_TUNING,
    LabelledDocument,
    note_folds,
    physionet_documents,
    presidio_documents,
)
from ..errors import InputError
from ..spans import BIO_LABELS
from ..validate import check_positive_ints, check_training_rates
from .loop import flag


@dataclass
class DetectorConfig:
    model: str = "minilm"
    epochs: int = flag(4)
    batch_size: int = flag(16)
    gradient_accumulation_steps: int = flag(1, name="--grad-accum")
    learning_rate: float = flag(1.5e-4, name="--lr")
    warmup_ratio: float = flag(0.1)
    max_length: int = flag(256)
    stride: int = flag(64)
    eval_fraction: float = flag(0.05)
    eval_every: int = flag(40)
    save_every: int = flag(20)
    seed: int = flag(0)
    #: patient-level folds of the PhysioNet dev notes; ``held_out_fold`` is left out and measured (None: train
    #: on every dev patient, as the shipped model is: the corpus' other patients are measured separately)
    folds: int = flag(5)
    held_out_fold: int | None = None
    #: a fold neither trained on nor measured (tuning runs keep `deid_hf.corpora.SEALED_FOLD` unread)
    sealed_fold: int | None = field(default=None, metadata={"neutral": None})
    presidio_records: int = flag(
        750, help="presidio_synth_pii records 0..N-1 are trained on (at most 750: 750-1499 are held out)"
    )
    max_windows: int | None = flag(
        None, parse=int, help="at most this many training windows, a seeded sample (0: every window)"
    )
    #: share of the training windows without any gold span that is kept (seeded); < 1 counters the rarity
    #: of PHI in clinical notes (negative down-sampling)
    negative_windows: float = flag(0.5)
    #: the operating point written into the model's config (``deid_hf_threshold``): a token is an entity
    #: when its best label e has p(e) / (p(e) + p(O)) >= threshold (`detect.ner.outside_bias_of`)
    threshold: float = flag(
        0.5,
        neutral=0.5,
        help="operating point written into the model (0.5: the plain argmax; lower: more recall)",
    )
    silver_per_source: int = flag(
        400,
        name="--silver",
        help="silver (distilled) texts per source, labelled by the zsts ensemble under --silver-policy and "
        "cached, added to the default data (0: gold only; see deid_hf.train.silver)",
    )
    silver_detector: str = "zsts"
    silver_policy: str = flag(
        "strict-names",
        help="policy of the silver labels: strict-names (names, places, organisations and addresses as "
        "strict finds them, every other span as hipaa keeps it), strict (every span) or hipaa (what the "
        "clinical gold marks)",
    )
    silver_whole: tuple[str, ...] = flag(
        ("gum", "wikigold"),
        parse=lambda names: tuple(filter(None, names.split(","))),
        help="comma-separated silver sources taken whole rather than sampled ('' for none)",
    )
    refills: int = flag(
        0,
        neutral=0,
        help="surrogate re-filled copies of every gold document with spans (deid_hf.train.augment)",
    )
    look_alikes: int = flag(
        0, neutral=0, help="copies of every clinical note with look-alike clinical sentences inserted"
    )
    line_pieces: int = flag(
        1,
        neutral=0,
        help="copies of every clinical note cut into pieces of 1-3 lines, each piece a training text",
    )
    case_variants: bool = flag(
        False,
        neutral=False,
        parse=lambda value: value.lower() in ("1", "true", "yes"),
        help="true: one copy of every training text in ALL CAPS or lower case",
    )
    layers: int | None = flag(
        4,
        neutral=None,
        parse=int,
        help="keep only the base encoder's first N layers, a --model base's too (its count: all of them)",
    )
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
        if not all(isinstance(n, int) and n >= 0 for n in (self.refills, self.look_alikes, self.line_pieces)):
            raise InputError(
                "refills, look_alikes and line_pieces must be non-negative integers, got "
                f"{self.refills!r}, {self.look_alikes!r}, {self.line_pieces!r}"
            )
        check_training_rates(self.eval_fraction, self.learning_rate)
        if self.layers is not None and (
            isinstance(self.layers, bool) or not isinstance(self.layers, int) or self.layers < 1
        ):
            raise InputError(f"layers must be a positive integer or None, got {self.layers!r}")
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
        from ..detect.ner import outside_bias_of

        outside_bias_of(self.threshold)  # refuses a threshold outside (0, 1)
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
    return train, held_out_sets(root, config, held_notes)


def held_out_sets(data_root: str | Path, config: DetectorConfig, held_notes=None) -> dict:
    """{name: documents} of the sets a default-mix model is measured on: presidio records 750-1499 and the
    dev notes of ``config.held_out_fold`` (``held_notes`` when the caller has read them)."""
    root = Path(data_root)
    if held_notes is None and config.held_out_fold is not None:
        notes = physionet_documents(root / PHYSIONET_FILE)
        fold_of = note_folds(notes, config.folds)
        held_notes = [d for d in notes if fold_of[d.group] == config.held_out_fold]
    held_out = {
        f"presidio_synth_pii {PRESIDIO_HELD_OUT.start}-{PRESIDIO_HELD_OUT.stop - 1}": presidio_documents(
            root / PRESIDIO_FILE, PRESIDIO_HELD_OUT
        )
    }
    if held_notes:
        held_out[f"physionet_deid_dev fold {config.held_out_fold}/{config.folds}"] = held_notes
    return held_out


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


def training_rows(tokenizer, train_docs, eval_docs, config: DetectorConfig):
    """(training documents after the data engine, training windows, evaluation windows): the engine
    (`deid_hf.train.augment`) on the training split only, negative windows down-sampled, at most
    ``config.max_windows`` (a seeded sample)."""
    if config.refills or config.look_alikes or config.line_pieces or config.case_variants:
        from .augment import augmented

        train_docs = augmented(
            train_docs,
            refills=config.refills,
            case_variants=config.case_variants,
            look_alikes=config.look_alikes,
            seed=config.seed,
            pieces=config.line_pieces,
        )
    window = (config.max_length, config.stride)
    train_rows = [r for d in train_docs for r in encode_document(tokenizer, d, *window)]
    eval_rows = [r for d in eval_docs for r in encode_document(tokenizer, d, *window)]
    if config.negative_windows < 1:
        rng = random.Random(config.seed)
        train_rows = [
            r for r in train_rows if any(x > 0 for x in r["labels"]) or rng.random() < config.negative_windows
        ]
    if config.max_windows is not None and len(train_rows) > config.max_windows:
        keep = sorted(random.Random(config.seed).sample(range(len(train_rows)), config.max_windows))
        train_rows = [train_rows[i] for i in keep]
    return train_docs, train_rows, eval_rows


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
    ``resume`` as in `deid_hf.training_loop.run_training`. The folder is written when training completes, or
    with ``write_stopped=True`` also from a run stopped early (``--resume --stop-after N`` at the newest
    checkpoint's step writes that checkpoint; the card states the steps done of the schedule).
    """
    from accelerate.utils import set_seed

    from ..training_loop import LoopSettings, length_grouped_order, padding_collate, run_training

    config = config or DetectorConfig()
    documents = [d for d in documents if d.text.strip()]
    if not documents:
        raise InputError("no documents to train the detector on")
    from ..models import TRAINING_FILE
    from ..paths import check_model_output

    output_dir = check_model_output(output_dir, "train-detector", (TRAINING_FILE, "checkpoints"))
    checkpoints = Path(checkpoint_dir) if checkpoint_dir else output_dir / "checkpoints"
    set_seed(config.seed)
    model, tokenizer = base_model_and_tokenizer(config.model, model, tokenizer, config.layers)
    train_docs, eval_docs = split_documents(documents, config.eval_fraction, config.seed)
    train_docs, train_rows, eval_rows = training_rows(tokenizer, train_docs, eval_docs, config)
    run = run_training(
        model,
        train_rows,
        eval_rows,
        padding_collate(tokenizer.pad_token_id),
        LoopSettings.of(config),
        checkpoints,
        # the operating point is written into the folder after training: a checkpoint resumes under another
        identity={
            "config": {k: v for k, v in asdict(config).items() if k != "threshold"},
            "documents": len(documents),
            "windows": len(train_rows),
        },
        resume=resume,
        stop_after=stop_after,
        progress=progress,
        description="fine-tuning detector",
        label_shift=0,
        order=length_grouped_order([len(r["input_ids"]) for r in train_rows], config.batch_size),
    )
    metrics = run.metrics(
        train_documents=len(train_docs), train_windows=len(train_rows), eval_documents=len(eval_docs)
    )
    if run.stopped and not write_stopped:
        return metrics
    from .shipped_folder import write_model

    write_model(run.model, tokenizer, output_dir, config, metrics, held_out or {}, documents, export_onnx)
    return metrics


def base_model_and_tokenizer(name: str, model, tokenizer, layers: int | None = None):
    """The given model and tokenizer, or ``name``'s base encoder (its first ``layers`` layers; None: all)
    with a fresh BIO head and its tokenizer."""
    from transformers import AutoConfig, AutoModelForTokenClassification

    from ..models import load_tokenizer, model_path

    if model is None:
        base = AutoConfig.from_pretrained(model_path(name))
        if layers is not None and layers > base.num_hidden_layers:
            raise InputError(
                f"layers must be at most the base encoder's {base.num_hidden_layers}, got {layers} "
                f"(--layers {base.num_hidden_layers} keeps all of them)"
            )
        model = AutoModelForTokenClassification.from_pretrained(
            model_path(name),
            num_labels=len(BIO_LABELS),
            id2label=dict(enumerate(BIO_LABELS)),
            label2id={label: i for i, label in enumerate(BIO_LABELS)},
            num_hidden_layers=layers or base.num_hidden_layers,
        )
        tokenizer = load_tokenizer(name)
    elif layers is not None:
        raise InputError("layers cuts the base encoder: set it to None when you pass a model")
    elif tokenizer is None:
        raise InputError("pass the tokenizer together with the model")
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("the detector trainer needs a fast tokenizer (offsets for windows and labels)")
    return model, tokenizer
