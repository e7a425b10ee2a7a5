"""One validated configuration for `deid-substitution`, the frozen dataclass `PipelineConfig`: the same
options in Python (``deid_hf.pipeline("deid-substitution", **config)``), in a YAML/JSON file (``deid-hf run
--config``) and in a saved pipeline (``config.deid_hf``, written by ``save_pretrained``). Every default
and every check lives in its fields; `validate` and `PIPELINE_DEFAULTS` are dict views of it. Schema
(every key optional):

- ``model``: LM of the pipeline (offline name or path; CLI and `load_config` users)
- ``detector``: name or list of names (see `deid_hf.detect.get_detector`); ``scorer_options``: dict
- ``policy``: identifier policy (`deid_hf.policies.Policy`: "hipaa", "strict", "gdpr"), passed to the detector
  (under "hipaa" ages over 89 also become "90+")
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

import dataclasses
import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError
from .policies import Policy, check_policy
from .spans import LABELS

PATTERN_KEYS = {"label", "regex", "score", "name"}
#: options that hold the user's own terms, which may name people (names to always replace, patterns built
#: from them, words to keep): a run's fingerprint holds their digest and a report their count, never them
TERM_OPTIONS = ("deny_list", "allow_list", "patterns")
#: the strategy of a pipeline built without one
DEFAULT_STRATEGY = "full_entity"


def _fail(key: str, message: str):
    raise InputError(f"config {key}: {message}")


def reportable_configuration(value, name: str = ""):
    """The configuration as a report or a saved pipeline's card shows it: a key as "<set>", the deny and
    allow lists and the patterns (`TERM_OPTIONS`) as counts (their terms may name people or hold a patient's
    number), the rest as it is."""
    if name == "key" or name.endswith("_key"):
        return "<set>"
    if name in TERM_OPTIONS and value is not None:
        values = value.values() if isinstance(value, dict) else [value]
        return {"count": sum(len(v) if isinstance(v, (list, tuple, set)) else 1 for v in values)}
    if isinstance(value, dict):
        return {k: reportable_configuration(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [reportable_configuration(v) for v in value]
    return value


def _strings(key: str, value) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        _fail(key, f"expected a list of non-empty strings, got {value!r}")
    return list(value)


def _label(key: str, label) -> str:
    if label not in LABELS:
        _fail(key, f"unknown label {label!r}; labels are {', '.join(LABELS)}")
    return label


def _name(key: str, value) -> str:
    if not isinstance(value, str) or not value:
        _fail(key, f"expected a non-empty string, got {value!r}")
    return value


def _policy(key: str, value) -> str:
    """An identifier policy's name (a plain string, as a config file holds it)."""
    return check_policy(_name(key, value)).value


def _strategy(key: str, value):
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
                _fail(f"{key}.{label}", f"unknown operator {name!r}; choose one of {', '.join(STRATEGIES)}")
        return dict(value)
    if callable(value) or hasattr(value, "surrogate"):
        return value  # a Strategy instance or a custom function (Python only, not savable)
    _fail(key, f"expected an operator name or a per-label dict, got {value!r}")


def _detector(key: str, value):
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    if hasattr(value, "detect_batch") or (
        isinstance(value, (list, tuple)) and all(isinstance(v, str) or hasattr(v, "detect") for v in value)
    ):
        return value  # Detector instances (Python only, not savable)
    _fail(key, f"expected a detector name or a list of names, got {value!r}")


def _options(key: str, value) -> dict:
    if not isinstance(value, Mapping):
        _fail(key, f"expected a mapping of options, got {value!r}")
    if "key" in value:  # a key is never an option: options are saved with a pipeline, a key never is
        _fail(key, "a secret key is not an option: pass it as key= (or set DEID_HF_KEY)")
    return dict(value)


def _flag(key: str, value) -> bool:
    if not isinstance(value, bool):
        _fail(key, f"expected true or false, got {value!r}")
    return value


def _share(key: str, value, low_open: bool = False) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not ((0 < value <= 1) if low_open else (0 <= value <= 1))
    ):
        _fail(key, f"expected a number in {'(0, 1]' if low_open else '[0, 1]'}, got {value!r}")
    return float(value)


def _probability(key: str, value) -> float:
    return _share(key, value, low_open=True)


def _integer(key: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(key, f"expected an integer, got {value!r}")
    return value


def _labels(key: str, value) -> list[str]:
    return [_label(key, label) for label in _strings(key, value)]


def _deny_list(key: str, value) -> dict[str, list[str]]:
    if isinstance(value, Mapping):
        return {
            _label(f"{key}.{label}", label): _strings(f"{key}.{label}", terms)
            for label, terms in value.items()
        }
    return {"OTHER": _strings(key, value)}


def _patterns(key: str, value) -> list[dict]:
    from .detect.user_options import check_pattern

    if not isinstance(value, (list, tuple)):
        _fail(key, f"expected a list of {{label, regex, score, name}}, got {value!r}")
    out = []
    for i, pattern in enumerate(value):
        where = f"{key}[{i}]"
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


def option(default: Any, check: Callable[[str, Any], Any], help: str, construction: bool = True):
    """A `PipelineConfig` field: its default, its check (``check(key, value)`` returns the normalised value
    or raises InputError; None is always allowed) and its help text. ``construction=False``: a call default
    or the model, not a construction option of the pipeline (not in `PIPELINE_DEFAULTS`)."""
    return dataclasses.field(
        default=default, metadata={"check": check, "help": help, "construction": construction}
    )


@dataclass(frozen=True)
class PipelineConfig:
    """The options of a `deid-substitution` pipeline, each checked when the config is made (module
    docstring). ``PipelineConfig.from_dict(d)`` reads a dict (a YAML/JSON file, ``config.deid_hf``);
    ``to_dict()`` gives one back. None means the pipeline's choice (`resolved_detector`,
    `resolved_policy`)."""

    detector: Any = option(None, _detector, "detector name, list of names, or Detector instance(s)")
    strategy: Any = option(DEFAULT_STRATEGY, _strategy, "strategy name, per-label dict, Strategy or function")
    strategy_options: dict | None = option(None, _options, "options of a single strategy")
    shared_table: bool = option(False, _flag, "one substitution table for a whole corpus")
    scorer_options: dict | None = option(None, _options, "options of a p-filter's word scorer")
    policy: str | None = option(None, _policy, "identifier policy (`deid_hf.policies.Policy`)")
    score_threshold: float | None = option(None, _share, "drop detected spans scoring below it")
    entities: list[str] | None = option(None, _labels, "only these labels are replaced")
    allow_list: list[str] | None = option(None, _strings, "words and phrases never replaced")
    deny_list: dict[str, list[str]] | None = option(None, _deny_list, "terms always replaced, by label")
    patterns: list[dict] | None = option(None, _patterns, "custom regex recognizers")
    model: str | None = option(None, _name, "the pipeline's language model", construction=False)
    p: float | None = option(None, _probability, "call default: replacement probability", construction=False)
    seed: int | None = option(None, _integer, "call default: reproducible seed", construction=False)

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                object.__setattr__(self, field.name, field.metadata["check"](field.name, value))
        allowed = {a.casefold() for a in self.allow_list or ()}
        clash = sorted(
            t for terms in (self.deny_list or {}).values() for t in terms if t.casefold() in allowed
        )
        if clash:
            raise InputError(f"config: {', '.join(map(repr, clash))} in both allow_list and deny_list")

    @classmethod
    def from_dict(cls, config: Mapping) -> PipelineConfig:
        """The config of a mapping of options; an unknown key or a bad value raises InputError naming it."""
        if not isinstance(config, Mapping):
            raise InputError(f"a deid-hf config is a mapping of options, got {type(config).__name__}")
        for key in config:
            if key not in KEYS:
                close = difflib.get_close_matches(str(key), KEYS, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InputError(f"unknown config key {key!r}{hint}; known keys: {', '.join(KEYS)}")
        return cls(**config)

    def to_dict(self) -> dict:
        """Every option by name (``from_dict(config.to_dict()) == config``)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def resolved_detector(self):
        """The detector the pipeline runs: the one given, else ZSTS's own p-filter for ``strategy="zsts"``
        and the default ensemble for every other strategy."""
        if self.detector is not None:
            return self.detector
        return "pfilter" if self.strategy == "zsts" else "default"

    def resolved_policy(self) -> Policy:
        """The identifier policy the pipeline applies: the one given, else strict for ZSTS with its own
        p-filter (the paper's method labels no types) and hipaa for everything else."""
        if self.policy is not None:
            return Policy(self.policy)
        return Policy.STRICT if self.detector is None and self.strategy == "zsts" else Policy.HIPAA


#: construction options of the pipeline (saved by save_pretrained) and their defaults
PIPELINE_DEFAULTS: dict = {
    f.name: f.default for f in dataclasses.fields(PipelineConfig) if f.metadata["construction"]
}
#: further keys a configuration file may hold: the model and call defaults
CALL_KEYS = tuple(f.name for f in dataclasses.fields(PipelineConfig) if not f.metadata["construction"])
KEYS = (*PIPELINE_DEFAULTS, *CALL_KEYS)


def validate(config: Mapping) -> dict:
    """A checked copy of ``config`` (see module docstring; the keys it has, normalised): unknown keys and
    bad values raise InputError. A thin wrapper over `PipelineConfig.from_dict`."""
    checked = PipelineConfig.from_dict(config)
    return {key: getattr(checked, key) for key in config}


def load_config(source: str | Path | Mapping) -> dict:
    """A validated config from a dict or a ``.yaml``/``.yml``/``.json`` file."""
    if isinstance(source, Mapping):
        return validate(source)
    path = Path(source)
    if not path.is_file():
        raise InputError(f"config file {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"config file {path} is not UTF-8 text") from None
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
