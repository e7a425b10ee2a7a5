"""`deid-hf train-paraphraser` and `deid-hf train-detector`: their configs' flag fields are the flags
(`deid_hf.train.loop.flag`), the rest is declared here."""

from __future__ import annotations

import argparse
from pathlib import Path

from .arguments import add_config_flags, config_values
from .console import console


def _print_stopped(metrics: dict) -> None:
    console.print(
        f"stopped after step {metrics['steps']} of {metrics['total_steps']}; continue with --resume"
    )


def cmd_train_paraphraser(args: argparse.Namespace) -> None:
    """Fine-tune a causal LM to paraphrase ("source => paraphrase"), with accelerate; resumable."""
    from ..models import TRAINING_FILE
    from ..paths import check_model_output, data_root
    from ..train.paraphraser import ParaphraserConfig, default_pairs, read_pairs, train_paraphraser

    reads = [r for r in (args.model, args.pairs) if r]
    check_model_output(args.output, "train-paraphraser", (TRAINING_FILE, "checkpoints"), reads=reads)

    config = ParaphraserConfig(
        model=args.model,
        pairs=Path(args.pairs).name if args.pairs else "default",
        **config_values(args, ParaphraserConfig),
    )
    pairs = read_pairs(args.pairs) if args.pairs else default_pairs(data_root(args.data_root))
    console.print(f"[dim]{len(pairs)} paraphrase pairs[/dim]")
    metrics = train_paraphraser(pairs, args.output, config, resume=args.resume, stop_after=args.stop_after)
    if not metrics["completed"]:
        _print_stopped(metrics)
        return
    console.print(
        f"wrote {args.output}: held-out loss {metrics['eval_loss_before']:.3f} -> "
        f"{metrics['eval_loss']:.3f} after {metrics['steps']} steps; model card {args.output}/README.md"
    )


def _add_resume_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    parser.add_argument(
        "--stop-after", type=int, default=None, help="stop (with a checkpoint) after this step"
    )


def add_train_paraphraser(sub) -> None:
    from ..train.paraphraser import ParaphraserConfig

    train = sub.add_parser("train-paraphraser", help=cmd_train_paraphraser.__doc__)
    train.add_argument(
        "output", help="folder for the fine-tuned checkpoint (checkpoints/ inside while training)"
    )
    train.add_argument(
        "--model", default="smollm2-135m", help="causal LM to fine-tune (offline name or path)"
    )
    train.add_argument(
        "--pairs", default=None, help='JSONL of {"source", "paraphrase"} (default: STS-B + SNLI)'
    )
    train.add_argument("--data-root", default=None, help="folder with stsbenchmark/ and snli_partial/")
    add_config_flags(train, ParaphraserConfig())
    _add_resume_flags(train)
    train.set_defaults(func=cmd_train_paraphraser)


def _detector_config(args: argparse.Namespace):
    """The `DetectorConfig` of the command line (negative folds: none)."""
    from ..train.detector import DetectorConfig

    values = config_values(args, DetectorConfig)
    if args.documents:  # silver texts join the default data only
        values["silver_per_source"] = 0
    return DetectorConfig(
        model=args.model,
        held_out_fold=None if args.held_out_fold < 0 else args.held_out_fold,
        sealed_fold=None if args.sealed_fold < 0 else args.sealed_fold,
        data=Path(args.documents).name if args.documents else "default",
        **{**values, "max_windows": values["max_windows"] or None},
    )


def cmd_train_detector(args: argparse.Namespace) -> None:
    """Fine-tune an encoder as a token classifier over the label schema (BIO), with accelerate; resumable.
    Writes the checkpoint, tokenizer, ONNX fp32 + int8 and a model card with held-out metrics."""
    from ..corpora import read_documents
    from ..models import TRAINING_FILE
    from ..paths import check_model_output, data_root
    from ..train.detector import default_documents, train_detector

    config = _detector_config(args)
    reads = [args.documents] if args.documents else []
    check_model_output(args.output, "train-detector", (TRAINING_FILE, "checkpoints"), reads=reads)
    if args.documents:
        documents, held_out = read_documents(args.documents), {}
    else:
        documents, held_out = default_documents(data_root(args.data_root), config)
    console.print(
        f"[dim]{len(documents)} training documents; held out: {', '.join(held_out) or 'none'}[/dim]"
    )
    metrics = train_detector(
        documents,
        args.output,
        config,
        held_out=held_out,
        resume=args.resume,
        stop_after=args.stop_after,
        export_onnx=not args.no_onnx,
        write_stopped=args.write_stopped,
    )
    if not metrics["completed"] and not args.write_stopped:
        _print_stopped(metrics)
        return
    console.print(
        f"wrote {args.output}: held-out loss {metrics['eval_loss_before']:.3f} -> {metrics['eval_loss']:.3f} "
        f"after {metrics['steps']} steps"
    )
    for name, result in metrics["held_out"].items():
        r = result["all"]
        console.print(f"  {name}: token P {r['token_precision']:.3f} R {r['token_recall']:.3f}")


def _add_detector_folds(detector: argparse.ArgumentParser, defaults) -> None:
    """The patient folds of the dev notes a detector run leaves out."""
    detector.add_argument(
        "--held-out-fold",
        type=int,
        default=-1 if defaults.held_out_fold is None else defaults.held_out_fold,
        help="patient fold of the dev notes left out and measured (-1, the default: train on all patients, "
        "as the shipped model)",
    )
    detector.add_argument(
        "--sealed-fold",
        type=int,
        default=-1,
        help="patient fold of the dev notes neither trained on nor measured, for tuning runs that keep the "
        "sealed fold unread (deid_hf.corpora.SEALED_FOLD; -1, the default: none)",
    )


def add_train_detector(sub) -> None:
    from ..train.detector import DetectorConfig

    detector = sub.add_parser("train-detector", help=cmd_train_detector.__doc__)
    detector.add_argument("output", help="folder for the model (checkpoints/ inside while training)")
    detector.add_argument("--model", default="minilm", help="encoder to fine-tune (offline name or path)")
    detector.add_argument(
        "--documents",
        default=None,
        help='JSONL of {"text", "spans": [{"start", "end", "label"}], "group"} (default: presidio_synth_pii '
        "0-749 + PhysioNet dev notes)",
    )
    detector.add_argument(
        "--data-root", default=None, help="folder with presidio_synth_pii/ and physionet_deid_dev/"
    )
    defaults = DetectorConfig()
    add_config_flags(detector, defaults)
    _add_detector_folds(detector, defaults)
    detector.add_argument("--no-onnx", action="store_true", help="skip the ONNX export")
    detector.add_argument(
        "--write-stopped",
        action="store_true",
        help="also write the model when the run stops at --stop-after (with --resume at the newest "
        "checkpoint's step: write that checkpoint as the model, e.g. when time runs out)",
    )
    _add_resume_flags(detector)
    detector.set_defaults(func=cmd_train_detector)
