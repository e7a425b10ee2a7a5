"""`deid-hf demo`: the bundled examples, de-identified side by side."""

from __future__ import annotations

import argparse

from rich.table import Table

from .console import console


def cmd_demo(args: argparse.Namespace) -> None:
    """De-identify the bundled examples with the offline defaults and show them side by side."""
    from ..demo import deidentify_examples
    from ..paths import bundled_examples

    for example, result in deidentify_examples(bundled_examples(), seed=args.seed):
        table = Table(title=f"{example['id']} ({example['kind']})", show_lines=True, expand=True)
        table.add_column("original")
        table.add_column("de-identified")
        table.add_row(example["text"], result["text"])
        console.print(table)
        found = Table(show_header=True, box=None)
        for column in ("span", "label", "source", "replacement"):
            found.add_column(column)
        for span in result["spans"]:
            found.add_row(
                f"{span['start']}-{span['end']}", span["label"], span["source"], span["replacement"]
            )
        console.print(found)
        console.print(f"[dim]privacy: {result['privacy']['guarantee']}[/dim]\n")


def add_demo(sub) -> None:
    demo = sub.add_parser("demo", help=cmd_demo.__doc__)
    demo.add_argument("--seed", type=int, default=0, help="seed for reproducible replacements")
    demo.set_defaults(func=cmd_demo)
