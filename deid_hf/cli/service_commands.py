"""`deid-hf serve` and `deid-hf audit`: their flags and work live in `deid_hf.serve.command` and
`deid_hf.audit.command`."""

from __future__ import annotations

import argparse

from .console import console


def cmd_serve(args: argparse.Namespace) -> None:
    """HTTP service (FastAPI): /v1/deidentify, /v1/detect, /v1/reidentify, /health, /docs; UI at /ui."""
    from ..serve.command import run

    run(args)


def add_serve(sub) -> None:
    from ..serve.command import add_arguments

    serve = sub.add_parser("serve", help=cmd_serve.__doc__)
    add_arguments(serve)
    serve.set_defaults(func=cmd_serve)


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a corpus without gold labels: canary recall, re-identification risk (docs/guides/audit.md)."""
    from ..audit.command import run

    return run(args, console)


def add_audit(sub) -> None:
    from ..audit.command import add_arguments

    audit = sub.add_parser("audit", help=cmd_audit.__doc__)
    add_arguments(audit)
    audit.set_defaults(func=cmd_audit)
