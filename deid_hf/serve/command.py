"""`deid-hf serve` arguments and entry (imports no web framework until it runs)."""

from __future__ import annotations

import argparse
import os
import sys

from .config import ServeConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ServeConfig()
    parser.add_argument("--host", default="127.0.0.1", help="interface (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--config",
        default=None,
        help="YAML/JSON pipeline configuration (docs/guides/configuration.md): per-label operators, policy, "
        "allow and deny lists, patterns; the flags below override it",
    )
    parser.add_argument(
        "--model",
        default=None,
        help="LM of the LM-based detectors and strategies (default: smollm2-135m, loaded only when needed)",
    )
    parser.add_argument(
        "--detector", default=None, help=f"default detector of requests ({defaults.detector})"
    )
    parser.add_argument(
        "--strategy", default=None, help=f"default strategy of requests ({defaults.strategy})"
    )
    parser.add_argument(
        "--operator",
        action="append",
        default=[],
        metavar="LABEL=OPERATOR",
        help="the server's operator of one label (repeatable): DATE_TIME=date_shift, default=typed",
    )
    parser.add_argument("--pool", default=None, help="word_by_word pool: distortion or dissociation")
    parser.add_argument(
        "--p", type=float, default=None, help=f"default replacement probability ({defaults.p})"
    )
    parser.add_argument("--min-p", type=float, default=None, help="lowest p a request may ask (default: --p)")
    parser.add_argument(
        "--detectors",
        default=None,
        help="comma-separated detectors requests may pick, besides the server's own (default: built-in)",
    )
    parser.add_argument(
        "--allow-strategies",
        "--strategies",
        dest="strategies",
        default=None,
        help="comma-separated strategies requests may pick (default: those that replace whole spans; "
        "name keep, mask or date_shift here to allow them)",
    )
    parser.add_argument("--allow-seed", action="store_true", help="accept per-request seeds (tests only)")
    parser.add_argument("--allow-mapping", action="store_true", help="accept return_mapping=true")
    parser.add_argument("--allow-reidentify", action="store_true", help="enable /v1/reidentify")
    add_limits(parser, defaults)
    parser.add_argument(
        "--api-key-env",
        default=None,
        help="name of the environment variable holding the API key (never on the command line)",
    )
    parser.add_argument(
        "--no-ui",
        action="store_true",
        help="do not mount the Gradio UI at /ui nor the review page at /review",
    )
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")


def add_limits(parser: argparse.ArgumentParser, defaults: ServeConfig) -> None:
    """Batching, queue, size and time limits."""
    parser.add_argument("--max-batch", type=int, default=defaults.max_batch, help="texts per model call")
    parser.add_argument(
        "--max-wait-ms", type=float, default=defaults.max_wait_ms, help="wait to fill a batch"
    )
    parser.add_argument("--max-queue", type=int, default=defaults.max_queue, help="waiting texts; then 503")
    parser.add_argument(
        "--item-budget-s",
        type=float,
        default=defaults.item_budget_s,
        help="model seconds per text; a batch past it gets 504 (or per-item errors)",
    )
    parser.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes, help="then 413")
    parser.add_argument("--max-text-chars", type=int, default=defaults.max_text_chars, help="then 413")
    parser.add_argument("--max-items", type=int, default=defaults.max_items, help="texts per request")
    parser.add_argument(
        "--body-timeout-s", type=float, default=defaults.body_timeout_s, help="to send a body; then 408"
    )


def _pipeline_config(args: argparse.Namespace) -> dict:
    """The --config file's options with the flags over them (model, detector, strategy, operators, p)."""
    from ..config import load_config
    from ..errors import InputError
    from ..replace.per_label import with_operators
    from .config import SERVICE_CONFIG_REFUSED

    options = load_config(args.config) if args.config else {}
    if options.get("shared_table") is False:  # the service's own behaviour: one table per request
        del options["shared_table"]
    for key in SERVICE_CONFIG_REFUSED:
        if options.get(key) is not None:
            raise InputError(
                f"config {key}: not a service option (a seed makes outputs guessable, a shared table would "
                "link the texts of different clients)"
            )
    given = {"model": args.model, "detector": args.detector, "strategy": args.strategy, "p": args.p}
    options.update({k: v for k, v in given.items() if v is not None})
    options["strategy"] = with_operators(options.get("strategy"), args.operator)
    if args.pool:
        options["strategy_options"] = {**(options.get("strategy_options") or {}), "pool": args.pool}
    if isinstance(options.get("detector"), list):
        options["detector"] = ",".join(options["detector"])
    return {k: v for k, v in options.items() if v is not None}


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    from ..errors import InputError

    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be between 0 and 65535, got {args.port}")
    if args.detectors:
        from ..detect import check_detector_name

        for name in args.detectors.split(","):
            check_detector_name(name)
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise InputError(f"--api-key-env {args.api_key_env}: that environment variable is not set")
    options = _pipeline_config(args)
    own = {
        key: options.pop(key)
        for key in ("model", "detector", "strategy", "strategy_options", "p")
        if key in options
    }
    return ServeConfig(
        **own,
        pipeline_options=options or None,
        min_p=args.min_p,
        detectors=tuple(args.detectors.split(",")) if args.detectors else None,
        strategies=tuple(args.strategies.split(",")) if args.strategies else None,
        allow_seed=args.allow_seed,
        allow_mapping=args.allow_mapping,
        allow_reidentify=args.allow_reidentify,
        max_batch=args.max_batch,
        max_wait_ms=args.max_wait_ms,
        max_queue=args.max_queue,
        item_budget_s=args.item_budget_s,
        max_body_bytes=args.max_body_bytes,
        max_text_chars=args.max_text_chars,
        max_items=args.max_items,
        body_timeout_s=args.body_timeout_s,
        api_key=api_key,
        ui=not args.no_ui,
    )


#: hosts that only this machine reaches
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def exposure_warning(host: str, config: ServeConfig) -> str | None:
    """A warning when the service listens beyond this machine with no API key."""
    if config.api_key is None and host not in LOOPBACK and not host.startswith("127."):
        return (
            f"warning: serving on {host} with no API key: anyone who reaches this address can use the "
            "service; set one with --api-key-env"
        )
    return None


def run(args: argparse.Namespace) -> None:
    """Serve the HTTP API (and the UI at /ui) until interrupted."""
    config = config_from_args(args)
    from .app import serve

    warning = exposure_warning(args.host, config)
    if warning:
        print(warning, file=sys.stderr, flush=True)

    serve(config, host=args.host, port=args.port, log_level=args.log_level)
