"""`deid-hf evaluate detection|utility|report`: detection metrics and downstream utility."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from ..policies import POLICIES
from .arguments import detector_help, detector_names, positive_int, strategy_name
from .console import console, show_rows

#: the detection metrics `deid-hf evaluate detection` prints, in order
DETECTION_METRICS = (
    "token_precision",
    "token_recall",
    "token_f1",
    "entities_fully_protected",
    "entities_partially_protected",
    "leakage",
)


def _print_detection(args: argparse.Namespace, report: dict, documents: int) -> None:
    table = Table(title=f"detection on {args.data} ({documents} documents, detector {args.detector})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in DETECTION_METRICS:
        value = report[key]
        table.add_row(key, "-" if value is None else f"{value:.3f}")
    for label, value in report["per_type_recall"].items():
        table.add_row(f"recall {label}", f"{value:.3f}")
    console.print(table)


def cmd_evaluate_detection(args: argparse.Namespace) -> None:
    """Detection metrics of shared/EVALUATION.md against gold spans (JSON/JSONL), printed and as JSON."""
    from rich.progress import Progress

    from ..evaluation.detection import evaluate_pipeline, load_gold
    from ..pipelines import pipeline

    docs = load_gold(args.data, text_field=args.text_field, limit=args.limit)
    pipe = pipeline(
        "deid-substitution",
        model=args.model,
        detector=args.detector.split(","),
        strategy=args.strategy,
        policy=args.policy,
    )
    fit = pipe.detector.fit
    if args.fit_corpus and fit is not None:  # the identifier policy's vocabulary from the whole gold corpus
        fit([d.text for d in docs])
    with Progress(console=console) as bar:
        task = bar.add_task("evaluating", total=len(docs))
        report = evaluate_pipeline(
            pipe, docs, seed=args.seed, progress=lambda done, total: bar.update(task, completed=done)
        )
    _print_detection(args, report, len(docs))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"data": str(args.data), "detector": args.detector, "strategy": args.strategy, **report},
                indent=2,
            )
        )
        console.print(f"wrote {args.json}")


def _add_detection(evaluate_sub) -> None:
    from ..replace import offered_strategies

    detection = evaluate_sub.add_parser("detection", help=cmd_evaluate_detection.__doc__)
    detection.add_argument("--data", required=True, help="gold JSON/JSONL (presidio_synth_pii schema works)")
    detection.add_argument("--text-field", default="full_text")
    detection.add_argument("--detector", default="default", type=detector_names, help=detector_help())
    detection.add_argument(
        "--policy",
        default="hipaa",
        choices=[str(p) for p in POLICIES],
        help="identifier policy: hipaa (names, places, dates, contact details, ID numbers; not measurements "
        "or times of day), strict (every span any detector finds) or gdpr (people in general text, with "
        "their quasi-identifiers)",
    )
    detection.add_argument(
        "--strategy",
        default="full_entity",
        type=strategy_name,
        metavar="STRATEGY",
        help=f"replacement used for leakage: {', '.join(offered_strategies())}",
    )
    detection.add_argument("--model", default="smollm2-135m")
    detection.add_argument("--limit", type=positive_int, default=None, help="only the first N documents")
    detection.add_argument(
        "--fit-corpus",
        action="store_true",
        help="fit the identifier policy's corpus vocabulary on the gold texts first (as `run --fit-corpus`)",
    )
    detection.add_argument("--seed", type=int, default=0)
    detection.add_argument("--json", default=None, help="write the metrics as JSON here")
    detection.set_defaults(func=cmd_evaluate_detection)


def _utility_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-root",
        default=None,
        help="folder holding the evaluation data (default: $DEID_HF_DATA or ../shared/data)",
    )
    parser.add_argument("--strategies", default="redact,typed,full_entity")
    parser.add_argument(
        "--detectors", default="gold,default", help="gold spans (p = 1 setting) and/or detectors"
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--train-size", type=int, default=800, help="subsample the training split")
    parser.add_argument("--test-size", type=int, default=300, help="subsample the test split")
    parser.add_argument("--max-steps", type=int, default=50, help="optimizer steps per run")
    parser.add_argument("--batch-size", type=int, default=16)


def _utility_runs(args, datasets: list[str], detectors_for: dict[str, list[str]]):
    from ..evaluation.report import load_setup, utility_rows
    from ..evaluation.utility import TrainConfig
    from ..paths import data_root
    from ..pipelines import pipeline

    config = TrainConfig(max_steps=args.max_steps, batch_size=args.batch_size)
    seeds = list(range(args.seeds))

    def make_pipe(strategy, detector):
        return pipeline(
            "deid-substitution",
            model="smollm2-135m",
            strategy=strategy,
            detector=detector if not isinstance(detector, str) else detector.split("+"),
        )

    rows, setups = [], {}
    for name in datasets:
        setups[name] = load_setup(name, data_root(args.data_root), args.train_size, args.test_size)
        rows += utility_rows(
            setups[name],
            make_pipe,
            args.strategies.split(","),
            detectors_for[name],
            seeds,
            config,
            progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
        )
    return rows, setups, make_pipe, config


def cmd_evaluate_utility(args: argparse.Namespace) -> None:
    """Downstream utility: train on de-identified data, test on original data, beside the original model."""
    rows, *_ = _utility_runs(args, [args.dataset], {args.dataset: args.detectors.split(",")})
    table = Table(title="downstream utility (mean ± std over seeds)")
    for column in ("data", "strategy", "detector", "privacy", "score"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["data"], r["strategy"], r["detector"], r["privacy"], f"{r['mean']:.3f} ± {r['std']:.3f}"
        )
    show_rows(table, rows, args.json)


def _add_utility(evaluate_sub) -> None:
    utility = evaluate_sub.add_parser("utility", help=cmd_evaluate_utility.__doc__)
    utility.add_argument("--dataset", default="snips", help="snips, btc or wnut17")
    _utility_arguments(utility)
    utility.add_argument("--json", default=None)
    utility.set_defaults(func=cmd_evaluate_utility)


def _tradeoff_curve(snips, make_pipe, config) -> list[dict]:
    """Utility over p with word-by-word value dissociation: pi = word frequencies of the training split's
    gold entities, so every private word has pi > 0 and epsilon stays finite for p < 1 (Adelani et al.
    Fig. 1)."""
    from ..evaluation.report import utility_rows
    from ..replace.word_by_word import WordByWord

    strategy = WordByWord(pool="dissociation").fit(
        (span.label, word)
        for ex in snips.train
        for span in ex.spans
        for word in ex.text[span.start : span.end].split()
    )
    curve = []
    for p in (0.25, 0.5, 0.75, 1.0):
        curve += utility_rows(
            snips,
            lambda _, detector: make_pipe(strategy, detector),
            ["word_by_word"],
            ["gold"],
            [0],
            config,
            p=p,
            with_original=False,
            progress=lambda msg: console.print(f"[dim]{msg}[/dim]"),
        )
    return curve


def cmd_evaluate_report(args: argparse.Namespace) -> None:
    """One command: detection table, utility tables (SNIPS intent, BTC NER), trade-off plot over p."""
    from ..corpora import PRESIDIO_FILE, PRESIDIO_HELD_OUT
    from ..evaluation.detection import evaluate_pipeline, load_gold
    from ..evaluation.report import screenshot, write_report
    from ..paths import data_root
    from ..pipelines import pipeline

    held = PRESIDIO_HELD_OUT  # the default's learned model trains on records of PRESIDIO_TUNING
    docs = load_gold(data_root(args.data_root) / PRESIDIO_FILE)[held.start : held.stop]
    docs = docs[: args.detection_limit]
    console.print(
        f"[dim]detection on {len(docs)} held-out presidio_synth_pii records "
        f"({held.start}-{held.stop - 1})[/dim]"
    )
    detection = evaluate_pipeline(pipeline("deid-substitution", strategy="full_entity"), docs)
    detectors = args.detectors.split(",")
    rows, setups, make_pipe, config = _utility_runs(
        args, ["snips", "btc"], {"snips": detectors, "btc": ["gold"]}
    )
    curve = _tradeoff_curve(setups["snips"], make_pipe, config)
    out = Path(args.out)
    write_report(out, detection, rows, curve)
    console.print(f"wrote {out / 'report.md'}, {out / 'report.html'}, {out / 'tradeoff.png'}")
    if args.screenshot:
        console.print(f"wrote {screenshot(out / 'report.html', out / 'report.png')}")


def _add_report(evaluate_sub) -> None:
    report = evaluate_sub.add_parser("report", help=cmd_evaluate_report.__doc__)
    _utility_arguments(report)
    report.add_argument(
        "--detection-limit", type=int, default=None, help="held-out presidio records 750-1499 (default: all)"
    )
    report.add_argument("--out", default="report")
    report.add_argument(
        "--screenshot", action="store_true", help="render report.html to report.png (Chromium)"
    )
    report.set_defaults(func=cmd_evaluate_report)


def add_evaluate(sub) -> None:
    evaluate = sub.add_parser("evaluate", help="detection metrics and downstream utility")
    evaluate_sub = evaluate.add_subparsers(dest="what", required=True)
    _add_detection(evaluate_sub)
    _add_utility(evaluate_sub)
    _add_report(evaluate_sub)
