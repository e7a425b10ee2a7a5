"""Downstream utility (Adelani et al. 2020, Table 2; NDD paper): de-identify a training split, fine-tune a
classifier on it, test on the original test split, over seeds, beside the classifier trained on the
original split.

Data: SNIPS intent detection (slot values are the gold sensitive spans) and BTC / WNUT17 NER (entities are
the gold spans). The training split is de-identified through `deid-hf run` (`run_corpus`) with either the
gold spans (the paper's p = 1 setting) or a detector. The classifier is the offline MiniLM encoder with a
fresh head, trained by deid-hf's one accelerate loop (`deid_hf.training_loop`: AdamW, linear warm-up/decay
schedule) for a fixed number of optimizer steps and tested at the end, deterministic under a seed.
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..detect.base import Detector
from ..errors import InputError
from ..extras import extra
from ..spans import Span
from ..text import model_text

SNIPS_SLOT_LABELS = {
    "artist": "PERSON",
    "city": "LOCATION",
    "country": "LOCATION",
    "state": "LOCATION",
    "geographic_poi": "LOCATION",
    "timeRange": "DATE_TIME",
    "restaurant_name": "ORG",
    "party_size_number": "NUMBER",
}
NER_LABELS = {
    "PER": "PERSON",
    "PERSON": "PERSON",
    "LOC": "LOCATION",
    "LOCATION": "LOCATION",
    "ORG": "ORG",
    "CORPORATION": "ORG",
    "GROUP": "ORG",
}


@dataclass
class Example:
    tokens: list[str]
    tags: list[str]  # BIO tags, one per token
    label: str | None = None  # sequence label (intent)
    text: str = field(init=False)
    spans: list[Span] = field(init=False)

    def __post_init__(self):
        self.text = " ".join(self.tokens)
        self.spans = bio_spans(self.tokens, self.tags)


def bio_entities(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """(first token, last token + 1, type) of each BIO entity; an I- tag without its B- starts one."""
    entities, current = [], None
    for i, tag in enumerate(list(tags) + ["O"]):
        kind = tag[2:] if tag[:2] in ("B-", "I-") else None
        if current and (kind != current[2] or tag.startswith("B-")):
            entities.append(tuple(current))
            current = None
        if kind and current is None:
            current = [i, i + 1, kind]
        elif kind:
            current[1] = i + 1
    return entities


def bio_spans(tokens: Sequence[str], tags: Sequence[str]) -> list[Span]:
    """Character spans of the BIO entities of ``" ".join(tokens)``, labels mapped to the common schema."""
    starts, pos = [], 0
    for token in tokens:
        starts.append(pos)
        pos += len(token) + 1
    mapping = {**SNIPS_SLOT_LABELS, **NER_LABELS}
    return [
        Span(
            starts[a],
            starts[b - 1] + len(tokens[b - 1]),
            mapping.get(kind, mapping.get(kind.upper(), "OTHER")),
            1.0,
            "gold",
        )
        for a, b, kind in bio_entities(tags)
    ]


def load_snips(folder: str | Path, split: str) -> list[Example]:
    folder = Path(folder) / split
    lines = [
        (folder / name).read_text(encoding="utf-8").splitlines() for name in ("seq.in", "seq.out", "label")
    ]
    return [Example(seq.split(), tags.split(), label) for seq, tags, label in zip(*lines)]


def load_conll(paths: Sequence[str | Path]) -> list[Example]:
    examples, tokens, tags = [], [], []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines() + [""]:
            parts = line.split()
            if len(parts) >= 2:
                tokens.append(parts[0])
                tags.append(parts[-1])
            elif tokens:
                examples.append(Example(tokens, tags))
                tokens, tags = [], []
    return examples


class GoldSpanDetector(Detector):
    """The gold spans of known texts: the paper's p = 1 identification setting."""

    name = "gold"

    def __init__(self, examples: Sequence[Example]):
        # the pipeline's detectors read the text as the models see it (`text.model_text`: emoji blanked)
        self.spans = {text: ex.spans for ex in examples for text in (ex.text, model_text(ex.text))}

    def detect(self, text: str) -> list[Span]:
        if text not in self.spans:
            raise InputError("the gold-span detector only knows the texts it was built with")
        return self.spans[text]


def deidentify_examples(
    pipe, examples: Sequence[Example], *, p: float, seed: int
) -> tuple[list[Example], dict]:
    """De-identify through `run_corpus` (the `deid-hf run` path); tags follow the replaced words
    (a replaced entity's surrogate words get B-/I- of the entity, other replaced words O).
    Returns the examples and the run's privacy report."""
    from ..corpus import run_corpus

    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "train.jsonl", Path(tmp) / "deid.jsonl"
        source.write_text(
            "".join(json.dumps({"text": ex.text, "i": i}) + "\n" for i, ex in enumerate(examples))
        )
        report = run_corpus(pipe, source, target, p=p, seed=seed, batch_size=64)
        if report["errors"]:
            raise InputError(f"{len(report['errors'])} training records could not be de-identified")
        records = [json.loads(line) for line in target.read_text().splitlines()]
    return [_retag(ex, rec["deid_spans"]) for ex, rec in zip(examples, records)], report["privacy"]


def _retag(example: Example, spans: list[dict]) -> Example:
    offsets, pos = [], 0
    for token in example.tokens:
        offsets.append((pos, pos + len(token)))
        pos += len(token) + 1
    replaced = sorted((s for s in spans if s["replaced"]), key=lambda s: s["start"])
    tokens, tags, i = [], [], 0
    while i < len(example.tokens):
        start, end = offsets[i]
        span = next((s for s in replaced if s["start"] < end and start < s["end"]), None)
        if span is None:
            tokens.append(example.tokens[i])
            tags.append(example.tags[i])
            i += 1
            continue
        covered = [j for j in range(i, len(offsets)) if offsets[j][0] < span["end"]]
        kinds = [example.tags[j][2:] for j in covered if example.tags[j] != "O"]
        words = span["replacement"].split() or ["[REDACTED]"]
        tokens.extend(words)
        tags.extend([f"B-{kinds[0]}"] + [f"I-{kinds[0]}"] * (len(words) - 1) if kinds else ["O"] * len(words))
        i = covered[-1] + 1
    return Example(tokens, tags, example.label)


def entity_f1(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Micro entity-level F1 over BIO sequences (exact type and boundaries)."""
    g = {(n, *e) for n, tags in enumerate(gold) for e in bio_entities(tags)}
    p = {(n, *e) for n, tags in enumerate(predicted) for e in bio_entities(tags)}
    tp = len(g & p)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass
class TrainConfig:
    max_steps: int = 150
    batch_size: int = 16
    learning_rate: float = 1e-4
    warmup_ratio: float = 0.1
    max_length: int = 64
    encoder: str = "minilm"


def _classifier(task: str, train: Sequence[Example], test: Sequence[Example], encoder: str):
    """(model, labels): ``encoder`` with a fresh head over the task's labels (intents, or BIO tags of the
    entity types)."""
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification

    from ..models import model_path

    if task == "intent":
        labels = sorted({ex.label for ex in train} | {ex.label for ex in test})
        head = AutoModelForSequenceClassification
    else:
        kinds = sorted({t[2:] for ex in [*train, *test] for t in ex.tags if t != "O"})
        labels = ["O"] + [f"{b}-{k}" for k in kinds for b in ("B", "I")]
        head = AutoModelForTokenClassification
    return head.from_pretrained(model_path(encoder), num_labels=len(labels)), labels


def _batch_encoder(tokenizer, task: str, index: dict[str, int], max_length: int):
    """The collate function: a batch of examples tokenized, with the intent or the first sub-word's tag
    as labels."""
    import torch

    def encode(batch: Sequence[Example]):
        enc = tokenizer(
            [ex.tokens for ex in batch],
            is_split_into_words=True,
            truncation=True,
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        )
        if task == "intent":
            enc["labels"] = torch.tensor([index[ex.label] for ex in batch])
        else:
            enc["labels"] = torch.tensor(
                [
                    [
                        _first_subword_label(enc.word_ids(n), k, ex, index)
                        for k in range(enc["input_ids"].shape[1])
                    ]
                    for n, ex in enumerate(batch)
                ]
            )
        return enc

    return encode


def _test_score(model, device, encode, task: str, test: Sequence[Example], labels: list[str]) -> float:
    """Accuracy (intent) or entity F1 (NER, the first sub-word's tag per word) of ``model`` on ``test``."""
    import torch

    index = {label: i for i, label in enumerate(labels)}
    model.eval()
    gold, predicted = [], []
    for start in range(0, len(test), 64):
        batch = list(test[start : start + 64])
        enc = encode(batch).to(device)
        with torch.no_grad():
            logits = model(**{k: v for k, v in enc.items() if k != "labels"}).logits
        if task == "intent":
            predicted += logits.argmax(-1).tolist()
            gold += [index[ex.label] for ex in batch]
            continue
        for n, ex in enumerate(batch):
            word_ids, best = enc.word_ids(n), logits[n].argmax(-1).tolist()
            tags = ["O"] * len(ex.tags)
            for k, w in enumerate(word_ids):
                if w is not None and (k == 0 or word_ids[k - 1] != w):
                    tags[w] = labels[best[k]]
            gold.append(ex.tags)
            predicted.append(tags)
    if task == "intent":
        return sum(a == b for a, b in zip(gold, predicted)) / len(gold)
    return entity_f1(gold, predicted)


def train_and_test(
    task: str,
    train: Sequence[Example],
    test: Sequence[Example],
    *,
    seed: int,
    config: TrainConfig | None = None,
) -> dict:
    """Fine-tune MiniLM + fresh head on ``train`` through `deid_hf.training_loop` (``config.max_steps``
    optimizer steps, no checkpoints); ``score`` is accuracy (intent) or entity F1 (NER) on ``test``,
    ``final_loss`` the last training loss."""
    with extra("eval", "utility training"):
        from accelerate.utils import set_seed

    from ..models import load_tokenizer
    from ..training_loop import LoopSettings, run_training

    config = config or TrainConfig()
    if task not in ("intent", "ner"):
        raise InputError(f"task must be 'intent' or 'ner', got {task!r}")
    set_seed(seed)
    model, labels = _classifier(task, train, test, config.encoder)
    index = {label: i for i, label in enumerate(labels)}
    encode = _batch_encoder(load_tokenizer(config.encoder), task, index, config.max_length)
    steps_per_epoch = max(math.ceil(len(train) / config.batch_size), 1)
    settings = LoopSettings(
        epochs=math.ceil(config.max_steps / steps_per_epoch),
        batch_size=config.batch_size,
        gradient_accumulation_steps=1,
        learning_rate=config.learning_rate,
        warmup_ratio=config.warmup_ratio,
        eval_every=config.max_steps,
        save_every=config.max_steps,
        seed=seed,
        max_steps=config.max_steps,
    )
    run = run_training(
        model,
        list(train),
        [],
        encode,
        settings,
        None,
        identity={},
        progress=False,
        description="utility training",
        label_shift=0,
    )
    score = _test_score(run.model, run.accelerator.device, encode, task, test, labels)
    return {"score": score, "final_loss": run.state["train_loss"], "steps": run.state["step"]}


def _first_subword_label(word_ids, k, example, index) -> int:
    w = word_ids[k]
    if w is None or (k > 0 and word_ids[k - 1] == w):
        return -100
    return index[example.tags[w]]


def summarise(scores: Sequence[float]) -> dict:
    return {
        "mean": statistics.mean(scores),
        "std": statistics.stdev(scores) if len(scores) > 1 else 0.0,
        "runs": list(scores),
    }
