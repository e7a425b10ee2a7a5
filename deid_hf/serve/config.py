"""What a `deid-hf serve` instance allows: defaults, per-request overrides, limits, authentication."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InputError
from ..replace.keys import DEFAULT_KEY_ENV
from ..validate import check_positive_ints

#: detectors a request may pick by default (no model path from a request is ever loaded): ensembles that find
#: names and structured identifiers; "patterns" (no names) or "spacy" (no structured identifiers) alone only
#: where the server lists them (--detectors)
REQUEST_DETECTORS = (
    "default",
    "fast",
    "zsts",
    "pfilter",
    "pfilter-propn",
)
#: the p-filter detectors, whose threshold a request may raise (never lower)
_PFILTERS = ("pfilter", "pfilter-propn")
#: strategies a request may pick by default: each replaces a whole detected span. "keep" (returns the
#: original), "mask" (keeps the shape) and "date_shift" only where the server lists them (--strategies);
#: "hash" and "encrypt" only where the server has a key; "custom" never (it needs a Python function)
REQUEST_STRATEGIES = ("redact", "typed", "named", "word_by_word", "full_entity", "zsts", "hash", "encrypt")
#: options of a --config file the service takes (call defaults and corpus tables are not service options)
SERVICE_CONFIG_REFUSED = ("seed", "shared_table")


def _default_strategies() -> tuple[str, ...]:
    from ..replace import STRATEGIES

    return tuple(name for name in STRATEGIES if name in REQUEST_STRATEGIES)


def strategy_key(spec: str | Mapping) -> str:
    """The hashable form of a strategy: its name, or the canonical JSON of a per-label dict."""
    return spec if isinstance(spec, str) else json.dumps(dict(spec), sort_keys=True)


def strategy_spec(key: str) -> str | dict:
    """The strategy a `strategy_key` stands for."""
    return json.loads(key) if key.startswith("{") else key


@dataclass
class ServeConfig:
    #: language model of the LM-based detectors and strategies (None: smollm2-135m, loaded only when a
    #: pipeline needs one)
    model: str | None = None
    detector: str = "default"
    #: an operator name or a per-label dict (``{"DATE_TIME": "date_shift", "default": "full_entity"}``)
    strategy: str | dict = "full_entity"
    strategy_options: dict | None = None
    #: further pipeline options of every pipeline (policy, entities, allow and deny lists, patterns...)
    pipeline_options: dict | None = None
    #: whether the keyed operators have their key (the environment variable DEID_HF_KEY)
    has_key: bool = field(default_factory=lambda: bool(os.environ.get(DEFAULT_KEY_ENV)))
    #: replacement probability used when a request gives none; a request may only ask for p >= min_p
    p: float = 1.0
    min_p: float | None = None
    #: what a request may choose (None: REQUEST_DETECTORS / every registered strategy, plus the defaults)
    detectors: tuple[str, ...] | None = None
    strategies: tuple[str, ...] | None = None
    #: a seeded output can be reproduced by anyone who guesses the original: off unless allowed
    allow_seed: bool = False
    #: original -> surrogate mappings in responses: off unless allowed
    allow_mapping: bool = False
    #: /v1/reidentify: off unless allowed (and the pipeline must be able to reidentify)
    allow_reidentify: bool = False
    #: dynamic batching: a batch holds up to max_batch texts, collected for up to max_wait_ms
    max_batch: int = 32
    max_wait_ms: float = 10.0
    #: texts waiting at most; beyond it requests get 503
    max_queue: int = 1024
    #: seconds of model time per text: a batch of n texts past n times this gets 504 (one text) or a
    #: per-item error, and the next batches run in a fresh model thread (`batching.DynamicBatcher`)
    item_budget_s: float = 30.0
    #: limits answered with 413
    max_body_bytes: int = 10_000_000
    max_text_chars: int = 100_000
    max_items: int = 256
    #: seconds a client has to send its whole request body; then 408
    body_timeout_s: float = 60.0
    #: clients must send it in the X-API-Key header (or Authorization: Bearer); None: no authentication
    api_key: str | None = field(default=None, repr=False)
    ui: bool = True

    def __post_init__(self):
        if self.min_p is None:
            self.min_p = self.p
        if not 0.0 <= self.min_p <= self.p <= 1.0:
            raise InputError(f"need 0 <= min_p <= p <= 1, got min_p={self.min_p}, p={self.p}")
        check_positive_ints(self, "max_batch", "max_queue", "max_body_bytes", "max_text_chars", "max_items")
        if self.max_wait_ms < 0:
            raise InputError(f"max_wait_ms must be >= 0, got {self.max_wait_ms}")
        if not self.body_timeout_s > 0:
            raise InputError(f"body_timeout_s must be > 0, got {self.body_timeout_s}")
        if not self.item_budget_s > 0:
            raise InputError(f"item_budget_s must be > 0, got {self.item_budget_s}")
        if self.api_key is not None and len(self.api_key) < 16:
            raise InputError("the API key must have at least 16 characters")
        from ..config import validate
        from ..replace import STRATEGIES, unavailable

        validate({"strategy": self.strategy, **(self.pipeline_options or {})})
        for name in (*(self.strategies or ()), *self._operator_names(self.strategy)):
            reason = unavailable(name, self.has_key) if name in STRATEGIES else f"unknown strategy {name!r}"
            if reason:
                raise InputError(f"this server cannot offer {name!r}: {reason}")

    @staticmethod
    def _operator_names(spec) -> list[str]:
        from ..replace.per_label import operator_spec

        if isinstance(spec, Mapping):
            return [operator_spec(value)[0] for value in spec.values()]
        return [spec]

    @property
    def strategy_key(self) -> str:
        """The batching key of the server's own strategy."""
        return strategy_key(self.strategy)

    @property
    def allowed_detectors(self) -> tuple[str, ...]:
        base = self.detectors if self.detectors is not None else REQUEST_DETECTORS
        return tuple(dict.fromkeys((*base, *self.detector.split(","))))

    @property
    def allowed_strategies(self) -> tuple[str, ...]:
        """Operator names a request may pick: the listed (or default) ones the server can run, and its own."""
        from ..replace import unavailable

        base = self.strategies if self.strategies is not None else _default_strategies()
        offered = [name for name in base if unavailable(name, self.has_key) is None]
        return tuple(dict.fromkeys((*offered, *self._operator_names(self.strategy))))

    def check_detector(self, spec: str | None) -> str:
        """A request's detector: an allowed one; a p-filter (with or without a threshold) only where its
        threshold masks at least as much as the server's own ("pfilter:1e-2"; a lower one flags fewer words
        and is refused, and plain "pfilter" means the default threshold)."""
        spec = spec or self.detector
        allowed = self.allowed_detectors
        listed = {*(self.detectors or ()), *self.detector.split(",")}  # the operator's own, as written
        for part in spec.split(","):
            name, _, threshold = part.partition(":")
            pfilter = name in _PFILTERS and (name in allowed or part in allowed)
            if (
                part in listed
                or (part in allowed and not pfilter)
                or (pfilter and self._stricter_pfilter(threshold))
            ):
                continue
            from ..detect import DETECTORS

            shown = repr(name) if name in DETECTORS else "this detector"  # no text a client made up
            raise InputError(
                f"detector {shown} is not allowed here (a p-filter's threshold may only be raised); allowed: "
                f"{', '.join(allowed)}"
            )
        return spec

    def _stricter_pfilter(self, threshold: str) -> bool:
        """Whether ``threshold`` (empty: the default) is a number at least the server's own p-filter
        threshold (either p-filter's; the default where the server runs none)."""
        from ..detect import PFILTER_THRESHOLD

        own = [p.partition(":")[2] for p in self.detector.split(",") if p.partition(":")[0] in _PFILTERS]
        try:
            floor = max(float(t) if t else PFILTER_THRESHOLD for t in own) if own else PFILTER_THRESHOLD
            return float(threshold) >= floor if threshold else floor <= PFILTER_THRESHOLD
        except ValueError:
            return False

    def check_strategy(self, spec: str | Mapping | None) -> str:
        """The `strategy_key` of a request's strategy: an operator name or a per-label dict of names (options
        come from the server's configuration only); None: the server's own."""
        if spec is None or spec == "":
            return self.strategy_key
        if isinstance(spec, Mapping):
            from ..replace.per_label import check_operator_keys

            check_operator_keys(spec)
            if not all(isinstance(v, str) for v in spec.values()):
                raise InputError("a request's per-label strategy names operators only (no options)")
            names = list(spec.values())
        elif isinstance(spec, str):
            names = [spec]
        else:
            raise InputError(f"strategy must be an operator name or a per-label dict, got {spec!r}")
        for name in names:
            if name not in self.allowed_strategies:
                raise InputError(self._refusal(name))
        return strategy_key(spec)

    def _refusal(self, name: str) -> str:
        from ..replace import STRATEGIES, unavailable

        allowed = f"allowed: {', '.join(self.allowed_strategies)}"
        reason = unavailable(name, self.has_key) if name in STRATEGIES else None
        if reason:
            return f"strategy {name!r} is not offered here: {reason}; {allowed}"
        return f"strategy {name!r} is not allowed here; {allowed}"

    def check_p(self, p: float | None) -> float:
        if p is None:
            return self.p
        if not self.min_p <= p <= 1.0:
            raise InputError(f"p must be between {self.min_p} (this server's minimum) and 1, got {p}")
        return p
