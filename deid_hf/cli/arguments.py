"""Argument types and flag helpers shared by the command modules."""

from __future__ import annotations

import argparse

from ..errors import DeidError


def detector_names(value: str) -> str:
    """argparse type of ``--detector``: comma-separated registered detector names."""
    from ..detect import check_detector_name

    try:
        for part in value.split(","):
            check_detector_name(part)
    except DeidError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def positive_int(value: str) -> int:
    """argparse type of a count or a size: an integer of at least 1."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def strategy_name(value: str) -> str:
    """argparse type of ``--strategy``: a registered strategy a command line can run (else why not)."""
    from ..replace import STRATEGIES, offered_strategies, unavailable

    if value not in STRATEGIES:
        raise argparse.ArgumentTypeError(
            f"unknown strategy {value!r}; choose one of {', '.join(offered_strategies())}"
        )
    reason = unavailable(value)
    if reason:
        raise argparse.ArgumentTypeError(reason)
    return value


def detector_help() -> str:
    """The help of ``--detector``: every registered detector with its usage."""
    from ..detect import DETECTORS

    return "comma-separated: " + "; ".join(f"{e.usage}: {e.help}" for e in DETECTORS.values())


def add_config_flags(parser: argparse.ArgumentParser, defaults) -> None:
    """The flags of a training config's `deid_hf.train.loop.flag` fields, with its defaults."""
    from ..train.loop import config_flags

    for flag, field, parse, help in config_flags(type(defaults)):
        parser.add_argument(flag, dest=field, type=parse, default=getattr(defaults, field), help=help)


def config_values(args: argparse.Namespace, config_class) -> dict:
    """The values of a training config's flag fields as parsed from the command line."""
    from ..train.loop import config_flags

    return {field: getattr(args, field) for _, field, _, _ in config_flags(config_class)}
