"""`deid-hf` command line: one module per family of sub-commands, each declaring its flags beside its
command (``add_<command>(sub)``); `COMMANDS` lists them in the order ``deid-hf --help`` shows."""

from __future__ import annotations

import argparse
import sys

from ..errors import DeidError
from .console import console
from .corpus_commands import add_keygen, add_reidentify, add_run
from .demo_command import add_demo
from .evaluate_commands import add_evaluate
from .model_commands import add_export, add_models
from .service_commands import add_audit, add_serve
from .train_commands import add_train_detector, add_train_paraphraser

#: every sub-command's ``add_<command>(sub)``, in the order of ``deid-hf --help``
COMMANDS = [
    add_demo,
    add_run,
    add_serve,
    add_reidentify,
    add_audit,
    add_keygen,
    add_evaluate,
    add_export,
    add_train_paraphraser,
    add_train_detector,
    add_models,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deid-hf", description="De-identify free text with HF models.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add_command in COMMANDS:
        add_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except DeidError as exc:
        print(f"deid-hf: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or folder the command was pointed at: missing, a file, not writable
        where = f": {exc.filename}" if exc.filename else ""
        reason = exc.strerror or (str(exc).splitlines() or [""])[0] or type(exc).__name__
        print(f"deid-hf: error: {reason}{where}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"deid-hf: error: a file is not UTF-8 (byte {exc.start}: {exc.reason})", file=sys.stderr)
        return 2


__all__ = ["COMMANDS", "build_parser", "console", "main"]
