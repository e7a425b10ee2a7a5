"""Train detector models on a lent GPU machine that lacks deid-hf's dependency stack (spaCy, Faker, ...).

The work is split in three steps, so that only plain PyTorch and transformers run on the GPU machine:

1. ``prepare`` (here, with deid-hf installed and the data): the training and evaluation windows of each
   run, built by `deid_hf.train.detector.training_rows` exactly as ``deid-hf train-detector`` builds them,
   packed as numpy arrays under ``--carry`` with the loop settings, the recipe and the base encoder in fp16.
2. ``train`` (on the GPU machine, ``python3 benchmarks/device_training.py train TAG OUT``): the loop
   ``deid-hf train-detector`` runs (`deid_hf.training_loop.run_training`, imported without the rest of
   deid-hf), from the fp16-rounded base; the weights are written as int8 per-row differences from that base,
   so that two or three models fit in what one device call returns.
3. ``assemble`` (here): base + differences, written by the trainer's own `write_model` (ONNX int8, card,
   vocabulary of the training corpora).

A model made this way follows the recipe but is not bit-identical to a ``deid-hf train-detector`` run (other
hardware and library versions, fp16-rounded base, int8 differences); the figures it gives compare recipes, and
the shipped model is still made by ``deid-hf train-detector``.

Usage:
  python benchmarks/device_training.py prepare TAG:FOLD[:FIELD=VALUE,...] ... [--carry .devcarry]
  python3 benchmarks/device_training.py train TAG OUT [--carry .devcarry]     # on the GPU machine
  python benchmarks/device_training.py assemble TAG RESULTS OUT [--carry .devcarry]
FOLD is the held-out dev fold (fold 4 stays sealed) or ``all``. The carry folder must be git-ignored
(e.g. listed in .git/info/exclude) and named in the device call's ``carry``.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "base16.safetensors"


def _parse_value(text: str):
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _config(spec: str):
    """(tag, DetectorConfig) of ``TAG:FOLD[:FIELD=VALUE,...]``."""
    from deid_hf.train.detector import DetectorConfig

    tag, fold, *rest = spec.split(":", 2)
    overrides = dict(item.split("=", 1) for item in rest[0].split(",")) if rest else {}
    held = {} if fold == "all" else {"held_out_fold": int(fold), "sealed_fold": 4}
    return tag, DetectorConfig(**held, **{k: _parse_value(v) for k, v in overrides.items()})


def _pack(rows: list[dict]):
    import numpy as np

    return (
        np.array([len(r["input_ids"]) for r in rows], dtype=np.int32),
        np.concatenate([np.array(r["input_ids"], dtype=np.int32) for r in rows]),
        np.concatenate([np.array(r["labels"], dtype=np.int16) for r in rows]),
    )


def _rows(config):
    """(documents, training windows, evaluation windows, tokenizer) as `train_detector` builds them."""
    from deid_hf.models import load_tokenizer
    from deid_hf.paths import data_root
    from deid_hf.train.detector import default_documents, split_documents, training_rows

    tokenizer = load_tokenizer(config.model)
    documents, _ = default_documents(data_root(), config)
    documents = [d for d in documents if d.text.strip()]
    train, held = split_documents(documents, config.eval_fraction, config.seed)
    train, train_rows, eval_rows = training_rows(tokenizer, train, held, config)
    return documents, train, held, train_rows, eval_rows, tokenizer


def prepare(specs: list[str], carry: Path) -> None:
    import numpy as np
    from safetensors.torch import load_file, save_file

    from deid_hf.models import model_path
    from deid_hf.spans import BIO_LABELS
    from deid_hf.training_loop import LoopSettings

    carry.mkdir(parents=True, exist_ok=True)
    base = Path(model_path("minilm"))
    weights = load_file(str(base / "model.safetensors"))
    save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, str(carry / BASE))
    (carry / "config.json").write_text((base / "config.json").read_text())
    for spec in specs:
        tag, config = _config(spec)
        _, _, _, train_rows, eval_rows, tokenizer = _rows(config)
        train, evaluation = _pack(train_rows), _pack(eval_rows)
        np.savez_compressed(carry / f"{tag}.npz", *train, *evaluation)
        record = {
            "settings": asdict(LoopSettings.of(config)),
            "config": asdict(config),
            "pad": tokenizer.pad_token_id,
            "labels": list(BIO_LABELS),
        }
        (carry / f"{tag}.json").write_text(json.dumps(record))
        print(f"{tag}: {len(train_rows)} training windows, {len(eval_rows)} evaluation windows", flush=True)


def _unpack(lengths, ids, labels) -> list[dict]:
    rows, at = [], 0
    for n in lengths.tolist():
        rows.append(
            {
                "input_ids": ids[at : at + n].tolist(),
                "attention_mask": [1] * n,
                "labels": labels[at : at + n].tolist(),
            }
        )
        at += n
    return rows


def train(tag: str, out: Path, carry: Path, max_steps: int | None = None) -> None:
    import numpy as np
    import torch
    from accelerate.utils import set_seed
    from safetensors.torch import save_file
    from transformers import BertConfig, BertForTokenClassification

    package = types.ModuleType("deid_hf")  # the loop alone: deid_hf/__init__ imports the whole stack
    package.__path__ = [str(ROOT / "deid_hf")]
    sys.modules["deid_hf"] = package
    from deid_hf.training_loop import LoopSettings, length_grouped_order, padding_collate, run_training

    record = json.loads((carry / f"{tag}.json").read_text())
    arrays = np.load(carry / f"{tag}.npz")
    train_rows = _unpack(*(arrays[f"arr_{i}"] for i in range(3)))
    eval_rows = _unpack(*(arrays[f"arr_{i}"] for i in range(3, 6)))
    labels = record["labels"]

    settings = LoopSettings(**{**record["settings"], "max_steps": max_steps})
    set_seed(settings.seed)
    config = BertConfig.from_json_file(carry / "config.json")
    config.num_labels = len(labels)
    config.id2label = dict(enumerate(labels))
    config.label2id = {label: i for i, label in enumerate(labels)}
    model = BertForTokenClassification(config)
    missing, unexpected = model.load_state_dict(_base(carry), strict=False)
    if unexpected or set(missing) - {"classifier.weight", "classifier.bias"}:
        raise SystemExit(f"{tag}: the base weights do not fit the model ({missing}, {unexpected})")
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    run = run_training(
        model,
        train_rows,
        eval_rows,
        padding_collate(record["pad"]),
        settings,
        None,
        identity={"tag": tag},
        progress=False,
        description="fine-tuning detector",
        label_shift=0,
        order=length_grouped_order([len(r["input_ids"]) for r in train_rows], settings.batch_size),
    )
    differences = {}
    for name, weight in run.model.state_dict().items():
        weight = weight.detach().float().cpu()
        if name.startswith("classifier.") or weight.dim() == 1:
            differences[f"{name}.full"] = weight.contiguous()
            continue
        delta = weight - start[name].cpu()
        scale = (delta.abs().amax(dim=1, keepdim=True) / 127).clamp_min(1e-20)
        differences[f"{name}.q"] = torch.round(delta / scale).to(torch.int8).contiguous()
        differences[f"{name}.scale"] = scale.contiguous()
    out.mkdir(parents=True, exist_ok=True)
    embeddings = {k: v for k, v in differences.items() if "word_embeddings" in k}
    save_file(embeddings, str(out / f"{tag}_emb.safetensors"))  # two files under 16 MiB each
    save_file(
        {k: v for k, v in differences.items() if k not in embeddings}, str(out / f"{tag}_rest.safetensors")
    )
    metrics = run.metrics(train_windows=len(train_rows))
    metrics["trained_on"] = (
        f"{torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'CPU'} (torch {torch.__version__})"
    )
    (out / f"{tag}_metrics.json").write_text(json.dumps(metrics))
    print(f"{tag}: {metrics['steps']} steps, held-out loss {metrics['eval_loss']:.3f}", flush=True)


def _base(carry: Path) -> dict:
    from safetensors.torch import load_file

    return {
        f"bert.{k}": v.float()
        for k, v in load_file(str(carry / BASE)).items()
        if "position_ids" not in k and "pooler" not in k
    }


def assemble(tag: str, results: Path, out: Path, carry: Path) -> None:
    from safetensors.torch import load_file
    from transformers import AutoModelForTokenClassification

    from deid_hf.models import model_path
    from deid_hf.spans import BIO_LABELS
    from deid_hf.train.detector import DetectorConfig
    from deid_hf.train.loop import config_of_record
    from deid_hf.train.shipped_folder import write_model

    config = config_of_record(DetectorConfig, json.loads((carry / f"{tag}.json").read_text())["config"])
    documents, train_docs, eval_docs, train_rows, _, tokenizer = _rows(config)
    metrics = json.loads((results / f"{tag}_metrics.json").read_text())
    if len(train_rows) != metrics["train_windows"]:
        raise SystemExit(f"{tag}: the windows built here differ from the ones trained on")
    parts = {
        **load_file(str(results / f"{tag}_emb.safetensors")),
        **load_file(str(results / f"{tag}_rest.safetensors")),
    }
    base = _base(carry)
    model = AutoModelForTokenClassification.from_pretrained(
        model_path(config.model),
        num_labels=len(BIO_LABELS),
        id2label=dict(enumerate(BIO_LABELS)),
        label2id={label: i for i, label in enumerate(BIO_LABELS)},
    )
    state = {
        name: parts[f"{name}.full"]
        if f"{name}.full" in parts
        else base[name] + parts[f"{name}.q"].float() * parts[f"{name}.scale"]
        for name in model.state_dict()
    }
    model.load_state_dict(state, strict=True)
    metrics.update(train_documents=len(train_docs), eval_documents=len(eval_docs))
    write_model(model, tokenizer, out, config, metrics, {}, documents, True)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("prepare", "train", "assemble"))
    parser.add_argument("arguments", nargs="+")
    parser.add_argument("--carry", type=Path, default=ROOT / ".devcarry")
    parser.add_argument(
        "--max-steps", type=int, default=None, help="train: stop after N steps (a smoke test)"
    )
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.arguments, args.carry)
    elif args.step == "train":
        train(args.arguments[0], Path(args.arguments[1]), args.carry, args.max_steps)
    else:
        assemble(args.arguments[0], Path(args.arguments[1]), Path(args.arguments[2]), args.carry)


if __name__ == "__main__":
    main()
