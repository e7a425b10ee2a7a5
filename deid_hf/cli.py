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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deid-hf", description="De-identify free text with HF models.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help=cmd_demo.__doc__)
    demo.add_argument("--seed", type=int, default=0, help="seed for reproducible replacements")
    demo.set_defaults(func=cmd_demo)
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
