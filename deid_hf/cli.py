"""`deid-hf` command line: demo, models (more sub-commands register themselves in ``COMMANDS``)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

from rich.console import Console
from rich.table import Table

from .errors import DeidError

console = Console()


def _examples() -> list[dict]:
    text = resources.files("deid_hf").joinpath("data/examples.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cmd_demo(args: argparse.Namespace) -> None:
    """De-identify the bundled examples with the offline defaults and show them side by side."""
    from .demo import deidentify_examples

    for example, result in deidentify_examples(_examples(), seed=args.seed):
        table = Table(title=f"{example['id']} ({example['kind']})", show_lines=True, expand=True)
        table.add_column("original")
        table.add_column("de-identified")
        table.add_row(example["text"], result["text"])
        console.print(table)
        found = Table(show_header=True, box=None)
        for column in ("span", "label", "source", "replacement"):
            found.add_column(column)
        for span in result["spans"]:
            found.add_row(f"{span['start']}-{span['end']}", span["label"], span["source"], span["replacement"])
        console.print(found)
        console.print(f"[dim]privacy: {result['privacy']['guarantee']}[/dim]\n")


def cmd_models(args: argparse.Namespace) -> None:
    """List the offline default models, where they are cached and whether they are ready."""
    from . import models

    if args.rebuild:
        for name, spec in models.REGISTRY.items():
            if spec.kind == "causal-lm":
                console.print(f"rebuilding {name} ...")
                models.model_path(name, rebuild=True)
    table = Table(title=f"deid-hf offline models (cache: {models.cache_dir()})")
    for column in ("name", "kind", "package", "ready", "path", "note"):
        table.add_column(column, overflow="fold")
    for row in models.status():
        table.add_row(row["name"], row["kind"], row["package"], "yes" if row["ready"] else "no",
                      row["path"] or "-", row["note"])
    console.print(table)


def cmd_run(args: argparse.Namespace) -> None:
    """De-identify a corpus (JSONL, CSV, Parquet or a saved dataset) into OUTPUT, resumably."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .corpus import run_corpus
    from .pipelines import pipeline

    options = {"pool": args.pool} if args.strategy == "word_by_word" else {}
    pipe = pipeline("deid-substitution", model=args.model, detector=args.detector.split(","),
                    strategy=args.strategy, strategy_options=options, shared_table=args.shared_table)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("de-identifying", total=None)
        report = run_corpus(pipe, args.input, args.output, text_field=args.text_field, batch_size=args.batch_size,
                            p=args.p, seed=args.seed, split=args.split,
                            progress=lambda done, total: bar.update(task, completed=done, total=total))
    console.print(f"wrote {report['written']} of {report['records']} records to {report['output']}; "
                  f"{len(report['errors'])} error(s); privacy: {report['privacy']['guarantee']}")
    for error in report["errors"][:20]:
        console.print(f"  record {error['index']}: {error['error']}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deid-hf", description="De-identify free text with HF models.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help=cmd_demo.__doc__)
    demo.add_argument("--seed", type=int, default=0, help="seed for reproducible replacements")
    demo.set_defaults(func=cmd_demo)
    run = sub.add_parser("run", help=cmd_run.__doc__)
    run.add_argument("input")
    run.add_argument("output", help="output file: .jsonl, .csv or .parquet")
    run.add_argument("--text-field", default="text")
    run.add_argument("--split", default="train", help="split of a saved DatasetDict")
    run.add_argument("--strategy", default="full_entity",
                     help="redact, typed, named, word_by_word, full_entity")
    run.add_argument("--pool", default="distortion", help="word_by_word pool: distortion or dissociation")
    run.add_argument("--detector", default="default",
                     help="comma-separated: default, patterns, spacy, token-classification:<model>")
    run.add_argument("--model", default="smollm2-135m", help="LM of the pipeline (offline name or path)")
    run.add_argument("--p", type=float, default=1.0, help="probability that a detected item is replaced")
    run.add_argument("--seed", type=int, default=None, help="reproducible run (default: secure randomness)")
    run.add_argument("--batch-size", type=int, default=32)
    run.add_argument("--shared-table", action="store_true", help="one substitution table for the corpus")
    run.set_defaults(func=cmd_run)
    models_cmd = sub.add_parser("models", help=cmd_models.__doc__)
    models_cmd.add_argument("--rebuild", action="store_true", help="reconvert cached models")
    models_cmd.set_defaults(func=cmd_models)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except DeidError as exc:
        print(f"deid-hf: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
