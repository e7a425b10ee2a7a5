"""`PrivacyReport`: the one privacy statement every pipeline, the corpus run and the evaluation report use.

``mechanism`` names what the guarantee rests on: ``randomized_response`` (Adelani et al. 2020 lemma),
``exponential`` (clamped-logit sampling, Mattern et al. 2022) or ``none`` (the output depends on the original
in a way no mechanism covers: consistent or similarity-based substitution, NDD, unclamped sampling). ``dp`` is
True when a finite ``epsilon`` holds for this output; a mechanism other than ``none`` with ``dp`` False has
epsilon = infinity (e.g. randomized response with p < 1 and private units outside the support of pi).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..errors import InputError

MECHANISMS = ("randomized_response", "exponential", "none")


@dataclass(frozen=True)
class PrivacyReport:
    mechanism: str
    #: a finite epsilon holds for this output
    dp: bool
    #: the whole output's epsilon (None: no finite bound)
    epsilon: float | None
    #: one sentence a user can read: the bound and what it rests on, or why there is none
    guarantee: str
    #: probability that a detected item is replaced (randomized response)
    p: float | None = None
    #: epsilon per generated token (exponential mechanism)
    epsilon_per_token: float | None = None
    strategy: str | None = None
    detector: str | None = None
    #: what the guarantee does not cover (e.g. items the detector missed)
    caveats: tuple[str, ...] = ()
    #: mechanism parameters (clamp bounds, sensitivity, temperature, tokens, pi support, ...)
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            raise InputError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {self.mechanism!r}")
        if self.dp != (self.epsilon is not None and math.isfinite(self.epsilon)):
            raise InputError(f"dp={self.dp} contradicts epsilon={self.epsilon!r}")
        if self.mechanism == "none" and self.dp:
            raise InputError("a report without a mechanism cannot claim a DP guarantee")
        object.__setattr__(self, "caveats", tuple(self.caveats))

    @property
    def label(self) -> str:
        """Short form for tables: ``epsilon = 0.693``, ``epsilon = inf`` or ``no DP guarantee``."""
        if self.dp:
            return f"epsilon = {self.epsilon:.3g}"
        return "no DP guarantee" if self.mechanism == "none" else "epsilon = inf"

    def with_(self, **changes: Any) -> PrivacyReport:
        """A copy with ``changes`` (e.g. the detector that fed the strategy)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (the ``privacy`` field of pipeline outputs and corpus reports)."""
        out = asdict(self)
        out["caveats"] = list(self.caveats)
        out["details"] = dict(self.details)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PrivacyReport:
        try:
            return cls(**data)
        except TypeError as exc:
            raise InputError(f"not a privacy report: {exc}") from None

    @classmethod
    def combine(cls, reports: Iterable[PrivacyReport | Mapping[str, Any]]) -> PrivacyReport:
        """The report of a corpus: epsilon is the maximum over documents (each record is one individual's
        document; the lemma's max over all private units), the guarantee that of the weakest document where
        something was replaced (of the weakest document when nothing was replaced anywhere)."""
        parsed = [r if isinstance(r, PrivacyReport) else cls.from_dict(r) for r in reports]
        if not parsed:
            return cls("none", False, None, "no records processed")
        caveats = tuple(dict.fromkeys(c for r in parsed for c in r.caveats))
        # a document where nothing was replaced says what would hold: it decides only if every one is such
        parsed = [r for r in parsed if not r.details.get("nothing_replaced")] or parsed
        without = [r for r in parsed if not r.dp]  # no mechanism at all is weaker than epsilon = inf
        without.sort(key=lambda r: r.mechanism != "none")
        worst = without[0] if without else max(parsed, key=lambda r: r.epsilon or 0.0)
        return replace(worst, caveats=caveats, details={})
