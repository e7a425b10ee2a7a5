"""Deprecated: renamed `deid_hf.detect.user_options` (``SteeredDetector`` is now ``UserOptionsDetector``).
Every name it had still works from here, with a DeprecationWarning."""

from __future__ import annotations

import importlib

from ..deprecation import warn_renamed

#: each name this module had -> where it lives now
MOVED = {
    "SteeredDetector": "deid_hf.detect.user_options.UserOptionsDetector",
    "DenyList": "deid_hf.detect.user_options.DenyList",
    "RegexRecognizer": "deid_hf.detect.user_options.RegexRecognizer",
    "PATTERN_TIMEOUT_S": "deid_hf.detect.user_options.PATTERN_TIMEOUT_S",
    "check_pattern": "deid_hf.detect.user_options.check_pattern",
    "add_name_mentions": "deid_hf.detect.mentions.add_name_mentions",
    "trim_allowed": "deid_hf.detect.user_filters.trim_allowed",
    "LABELS": "deid_hf.spans.LABELS",
}


def __getattr__(name: str):
    if name not in MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, new = MOVED[name].rpartition(".")
    warn_renamed(f"{__name__}.{name}", MOVED[name])
    return getattr(importlib.import_module(module), new)
