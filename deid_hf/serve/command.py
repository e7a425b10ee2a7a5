"""`deid-hf serve` arguments and entry (imports no web framework until it runs)."""

from __future__ import annotations

import argparse
import os

from .config import ServeConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ServeConfig()
    parser.add_argument("--host", default="127.0.0.1", help="interface (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--model", default=defaults.model, help="LM of the pipeline (offline name or path)")
    parser.add_argument("--detector", default=defaults.detector, help="default detector of requests")
    parser.add_argument("--strategy", default=defaults.strategy, help="default strategy of requests")
    parser.add_argument("--pool", default=None, help="word_by_word pool: distortion or dissociation")
    parser.add_argument("--p", type=float, default=defaults.p, help="default replacement probability")
    parser.add_argument("--min-p", type=float, default=None, help="lowest p a request may ask (default: --p)")
    parser.add_argument(
        "--detectors", default=None, help="comma-separated detectors requests may pick (default: built-in)"
    )
    parser.add_argument(
        "--allow-strategies",
        "--strategies",
        dest="strategies",
        default=None,
        help="comma-separated strategies requests may pick (default: those that replace whole spans; "
        "name keep or mask here to allow them)",
    )
    parser.add_argument("--allow-seed", action="store_true", help="accept per-request seeds (tests only)")
    parser.add_argument("--allow-mapping", action="store_true", help="accept return_mapping=true")
    parser.add_argument("--allow-reidentify", action="store_true", help="enable /v1/reidentify")
    parser.add_argument("--max-batch", type=int, default=defaults.max_batch, help="texts per model call")
    parser.add_argument(
        "--max-wait-ms", type=float, default=defaults.max_wait_ms, help="wait to fill a batch"
    )
    parser.add_argument("--max-queue", type=int, default=defaults.max_queue, help="waiting texts; then 503")
    parser.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes, help="then 413")
    parser.add_argument("--max-text-chars", type=int, default=defaults.max_text_chars, help="then 413")
    parser.add_argument("--max-items", type=int, default=defaults.max_items, help="texts per request")
    parser.add_argument(
        "--api-key-env",
        default=None,
        help="name of the environment variable holding the API key (never on the command line)",
    )
    parser.add_argument("--no-ui", action="store_true", help="do not mount the Gradio UI at /ui")
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    from ..errors import InputError

    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise InputError(f"--api-key-env {args.api_key_env}: that environment variable is not set")
    return ServeConfig(
        model=args.model,
        detector=args.detector,
        strategy=args.strategy,
        strategy_options={"pool": args.pool} if args.pool else None,
        p=args.p,
        min_p=args.min_p,
        detectors=tuple(args.detectors.split(",")) if args.detectors else None,
        strategies=tuple(args.strategies.split(",")) if args.strategies else None,
        allow_seed=args.allow_seed,
        allow_mapping=args.allow_mapping,
        allow_reidentify=args.allow_reidentify,
        max_batch=args.max_batch,
        max_wait_ms=args.max_wait_ms,
        max_queue=args.max_queue,
        max_body_bytes=args.max_body_bytes,
        max_text_chars=args.max_text_chars,
        max_items=args.max_items,
        api_key=api_key,
        ui=not args.no_ui,
    )


def run(args: argparse.Namespace) -> None:
    """Serve the HTTP API (and the UI at /ui) until interrupted."""
    config = config_from_args(args)
    from .app import serve

    serve(config, host=args.host, port=args.port, log_level=args.log_level)
