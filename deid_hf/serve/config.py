"""What a `deid-hf serve` instance allows: defaults, per-request overrides, limits, authentication."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
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
#: strategies a request may pick by default: each replaces a whole detected span. "keep" (returns the
#: original), "mask" (keeps part of it), "custom" and "date_shift" only where the server lists them
#: (--strategies)
REQUEST_STRATEGIES = ("redact", "typed", "named", "word_by_word", "full_entity", "zsts", "hash", "encrypt")


def _default_strategies() -> tuple[str, ...]:
    from ..replace import STRATEGIES

    return tuple(name for name in STRATEGIES if name in REQUEST_STRATEGIES)


@dataclass
class ServeConfig:
    model: str = "smollm2-135m"
    detector: str = "default"
    strategy: str = "full_entity"
    strategy_options: dict | None = None
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
    #: limits answered with 413
    max_body_bytes: int = 10_000_000
    max_text_chars: int = 100_000
    max_items: int = 256
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
        if self.api_key is not None and len(self.api_key) < 16:
            raise InputError("the API key must have at least 16 characters")

    @property
    def allowed_detectors(self) -> tuple[str, ...]:
        base = self.detectors if self.detectors is not None else REQUEST_DETECTORS
        return tuple(dict.fromkeys((*base, *self.detector.split(","))))

    @property
    def allowed_strategies(self) -> tuple[str, ...]:
        base = self.strategies if self.strategies is not None else _default_strategies()
        return tuple(dict.fromkeys((*base, self.strategy)))

    def check_detector(self, spec: str | None) -> str:
        spec = spec or self.detector
        allowed = self.allowed_detectors
        for part in spec.split(","):
            # pfilter thresholds ("pfilter:1e-4") are numbers, safe to take from a request
            if part not in allowed and part.split(":")[0] not in {"pfilter", "pfilter-propn"} & set(allowed):
                raise InputError(f"detector {part!r} is not allowed here; allowed: {', '.join(allowed)}")
        return spec

    def check_strategy(self, name: str | None) -> str:
        name = name or self.strategy
        if name not in self.allowed_strategies:
            raise InputError(
                f"strategy {name!r} is not allowed here; allowed: {', '.join(self.allowed_strategies)}"
            )
        return name

    def check_p(self, p: float | None) -> float:
        if p is None:
            return self.p
        if not self.min_p <= p <= 1.0:
            raise InputError(f"p must be between {self.min_p} (this server's minimum) and 1, got {p}")
        return p
