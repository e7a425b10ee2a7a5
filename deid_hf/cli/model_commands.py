"""`deid-hf models` (the offline models and their state) and `deid-hf export` (ONNX)."""

from __future__ import annotations

import argparse

from rich.table import Table

from .console import console, show_rows


def cmd_models(args: argparse.Namespace) -> None:
    """List the offline default models: shipped ones with version, size and digest, where each lives and
    whether it is ready."""
    from .. import models
    from ..paths import cache_dir

    if args.rebuild:
        for name, spec in models.REGISTRY.items():
            if spec.kind == "causal-lm":
                console.print(f"rebuilding {name} ...")
                models.model_path(name, rebuild=True)
    if args.build:
        for row in models.status():
            if not row["ready"]:
                console.print(f"building {row['name']}: {row['note']}")
                models.model_path(row["name"])
    table = Table(title=f"deid-hf offline models (cache: {cache_dir()})")
    for column in ("name", "kind", "package", "size", "digest", "ready", "path", "note"):
        # names are what users type: never wrapped; long paths and notes fold instead
        table.add_column(column, overflow="fold", no_wrap=column in ("name", "ready", "size"))
    rows = models.status()
    for row in rows:
        table.add_row(
            row["name"],
            row["kind"],
            row["package"],
            f"{row['bytes'] / 1e6:.1f} MB" if "bytes" in row else "-",
            row.get("digest", "-"),
            "yes" if row["ready"] else "no",
            row["path"] or "-",
            row["note"],
        )
    show_rows(table, rows, args.json)


def add_models(sub) -> None:
    models_cmd = sub.add_parser("models", help=cmd_models.__doc__)
    models_cmd.add_argument("--rebuild", action="store_true", help="reconvert cached models")
    models_cmd.add_argument(
        "--build",
        action="store_true",
        help="build every cached model that is not ready (incl. the ~20 min paraphraser)",
    )
    models_cmd.add_argument("--json", default=None, help="also write the rows as JSON here")
    models_cmd.set_defaults(func=cmd_models)


def cmd_export(args: argparse.Namespace) -> None:
    """Export a model (offline name, path or Hub id) to ONNX with Optimum, optionally int8 / optimised."""
    from ..export.onnx import export

    folder = export(args.model, args.output, args.kind, int8=args.int8, optimize=args.optimize)
    console.print(
        f"exported {args.model} ({args.kind}) to {folder}"
        f"{' with model_quantized.onnx (int8)' if args.int8 else ''}; model card: {folder / 'README.md'}"
    )


def add_export(sub) -> None:
    export_cmd = sub.add_parser("export", help=cmd_export.__doc__)
    export_cmd.add_argument("model", help="offline name (smollm2-135m, minilm), local path or Hub id")
    export_cmd.add_argument("output")
    export_cmd.add_argument(
        "--kind", required=True, help="fill-mask, causal-lm, token-classification or feature-extraction"
    )
    export_cmd.add_argument("--int8", action="store_true", help="also write int8 dynamic quantization")
    export_cmd.add_argument("--optimize", default=None, help="ORTOptimizer level O1, O2 or O3")
    export_cmd.set_defaults(func=cmd_export)
