"""One validated configuration for `deid-substitution`: the same dict in Python
(``deid_hf.pipeline("deid-substitution", **config)``), in a YAML/JSON file (``deid-hf run --config``) and
in a saved pipeline (``config.deid_hf``, written by ``save_pretrained``). Schema (every key optional):

- ``model``: LM of the pipeline (offline name or path; CLI and `load_config` users)
- ``detector``: name or list of names (see `deid_hf.detect.get_detector`); ``scorer_options``: dict
- ``policy``: identifier policy name, passed to the detector when it takes one (e.g. "hipaa"; under
  "hipaa" ages over 89 also become "90+")
- ``score_threshold``: drop detected spans scoring below it (0..1)
- ``entities``: only these labels are replaced (others are left as they are)
- ``allow_list``: words/phrases never replaced (trimmed off span edges: "Patient", "Dr")
- ``deny_list``: terms always replaced: a list (label OTHER) or ``{label: [terms]}``
- ``patterns``: custom recognizers ``[{"label": "ID", "regex": "MRN-\\d{6}", "score": 0.9, "name": "mrn"}]``
- ``strategy``: one operator name, or per label ``{"PERSON": "full_entity", "ID": {"type": "mask",
  "keep_last": 2}, "default": "typed"}``; ``strategy_options``: options of a single operator
- ``shared_table``: one substitution table (pseudonyms, date offset) for a whole corpus
- ``p``, ``seed``: call defaults (replacement probability, reproducible seed)

A wrong key, label, operator or value raises `InputError` naming it. Secrets are never part of the
configuration: keyed operators read ``key=`` or the environment variable named by their ``key_env``.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from pathlib import Path

from .errors import InputError
from .spans import LABELS

#: construction options of the pipeline (saved by save_pretrained) and their defaults
PIPELINE_DEFAULTS: dict = {
    "detector": None,
    "strategy": "full_entity",
    "strategy_options": None,
    "shared_table": False,
    "scorer_options": None,
    "policy": None,
    "score_threshold": None,
    "entities": None,
    "allow_list": None,
    "deny_list": None,
    "patterns": None,
}
#: further keys a configuration file may hold: the model and call defaults
CALL_KEYS = ("model", "p", "seed")
KEYS = (*PIPELINE_DEFAULTS, *CALL_KEYS)
PATTERN_KEYS = {"label", "regex", "score", "name"}


def _fail(key: str, message: str):
    raise InputError(f"config {key}: {message}")


def _strings(key: str, value) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        _fail(key, f"expected a list of non-empty strings, got {value!r}")
    return list(value)


def _label(key: str, label) -> str:
    if label not in LABELS:
        _fail(key, f"unknown label {label!r}; labels are {', '.join(LABELS)}")
    return label


def _strategy(value):
    from .replace import STRATEGIES
    from .replace.per_label import check_operator_keys, operator_spec

    if isinstance(value, str):
        if value not in STRATEGIES:
            raise InputError(f"unknown strategy {value!r}; choose one of {', '.join(STRATEGIES)}")
        return value
    if isinstance(value, Mapping):
        check_operator_keys(value)
        for label, entry in value.items():
            name, _ = operator_spec(entry)
            if name not in STRATEGIES:
                _fail(
                    f"strategy.{label}", f"unknown operator {name!r}; choose one of {', '.join(STRATEGIES)}"
                )
        return dict(value)
    if callable(value) or hasattr(value, "surrogate"):
        return value  # a Strategy instance or a custom function (Python only, not savable)
    _fail("strategy", f"expected an operator name or a per-label dict, got {value!r}")


def validate(config: Mapping) -> dict:
    """A checked copy of ``config`` (see module docstring); unknown keys and bad values raise InputError."""
    if not isinstance(config, Mapping):
        raise InputError(f"a deid-hf config is a mapping of options, got {type(config).__name__}")
    out = {}
    for key, value in config.items():
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"unknown config key {key!r}{hint}; known keys: {', '.join(KEYS)}")
        if value is None:
            out[key] = None
            continue
        out[key] = _check(key, value)
    allowed = {a.casefold() for a in out.get("allow_list") or ()}
    denied = out.get("deny_list") or {}
    clash = sorted(t for terms in denied.values() for t in terms if t.casefold() in allowed)
    if clash:
        raise InputError(f"config: {', '.join(map(repr, clash))} in both allow_list and deny_list")
    return out


def _check(key: str, value):  # noqa: C901 - one branch per key of the schema
    if key == "strategy":
        return _strategy(value)
    if key in ("model", "policy"):
        if not isinstance(value, str) or not value:
            _fail(key, f"expected a non-empty string, got {value!r}")
        return value
    if key == "detector":
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        if hasattr(value, "detect_batch") or (
            isinstance(value, (list, tuple))
            and all(isinstance(v, str) or hasattr(v, "detect") for v in value)
        ):
            return value  # Detector instances (Python only, not savable)
        _fail(key, f"expected a detector name or a list of names, got {value!r}")
    if key in ("strategy_options", "scorer_options"):
        if not isinstance(value, Mapping):
            _fail(key, f"expected a mapping of options, got {value!r}")
        return dict(value)
    if key == "shared_table":
        if not isinstance(value, bool):
            _fail(key, f"expected true or false, got {value!r}")
        return value
    if key in ("score_threshold", "p"):
        low_open = key == "p"
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not ((0 < value <= 1) if low_open else (0 <= value <= 1))
        ):
            _fail(key, f"expected a number in {'(0, 1]' if low_open else '[0, 1]'}, got {value!r}")
        return float(value)
    if key == "seed":
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(key, f"expected an integer, got {value!r}")
        return value
    if key == "entities":
        return [_label(key, label) for label in _strings(key, value)]
    if key == "allow_list":
        return _strings(key, value)
    if key == "deny_list":
        if isinstance(value, Mapping):
            return {
                _label(f"deny_list.{label}", label): _strings(f"deny_list.{label}", terms)
                for label, terms in value.items()
            }
        return {"OTHER": _strings(key, value)}
    if key == "patterns":
        return _patterns(value)
    raise AssertionError(key)  # pragma: no cover - KEYS and the branches above agree


def _patterns(value) -> list[dict]:
    from .detect.steering import check_pattern

    if not isinstance(value, (list, tuple)):
        _fail("patterns", f"expected a list of {{label, regex, score, name}}, got {value!r}")
    out = []
    for i, pattern in enumerate(value):
        where = f"patterns[{i}]"
        if not isinstance(pattern, Mapping):
            _fail(where, f"expected a mapping with label and regex, got {pattern!r}")
        unknown = set(pattern) - PATTERN_KEYS
        if unknown:
            _fail(
                where,
                f"unknown key(s) {', '.join(sorted(map(repr, unknown)))}; "
                f"use {', '.join(sorted(PATTERN_KEYS))}",
            )
        if "label" not in pattern or "regex" not in pattern:
            _fail(where, "needs both 'label' and 'regex'")
        _label(f"{where}.label", pattern["label"])
        score = pattern.get("score", 0.9)
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            _fail(f"{where}.score", f"expected a number in [0, 1], got {score!r}")
        check_pattern(pattern["regex"], pattern.get("name") or where)
        out.append({**pattern, "score": float(score)})
    return out


def load_config(source: str | Path | Mapping) -> dict:
    """A validated config from a dict or a ``.yaml``/``.yml``/``.json`` file."""
    if isinstance(source, Mapping):
        return validate(source)
    path = Path(source)
    if not path.is_file():
        raise InputError(f"config file {path} does not exist")
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InputError(f"config file {path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    elif path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InputError(f"config file {path} is not valid JSON: {exc}") from None
    else:
        raise InputError(f"config file {path.name}: use .yaml, .yml or .json")
    return validate(data or {})
