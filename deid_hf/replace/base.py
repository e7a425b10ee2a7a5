"""Replacement strategy interface (one strategy per module, registered in `deid_hf.replace`)."""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from ..privacy import randomized_response_epsilon
from ..privacy.report import PrivacyReport


class Strategy(ABC):
    #: registry name
    name: ClassVar[str]
    #: randomized response and replacement per word of a span (word-by-word) instead of per span
    per_word: ClassVar[bool] = False
    #: the same original gets the same surrogate within a substitution table (document or corpus)
    consistent: bool = False
    #: constructed with the pipeline's language model (``model=``, ``tokenizer=``)
    needs_lm: ClassVar[bool] = False

    @abstractmethod
    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        """Replacement for ``original`` (a span or, with ``per_word``, one word) of type ``label``."""

    def surrogate_in_context(self, text: str, start: int, end: int, label: str, rng: random.Random) -> str:
        """Replacement for ``text[start:end]``; strategies that use the surrounding text override this."""
        return self.surrogate(text[start:end], label, rng)

    def policy(self, label: str) -> Mapping[str, float] | None:
        """The replacement distribution pi for ``label`` when it is independent of the original, else None."""
        return None

    def no_guarantee_reason(self) -> str:
        if self.consistent:
            return "consistent mapping: the surrogate depends on the original, so the lemma does not apply"
        return "the surrogate depends on the original (its format or similarity), so the lemma does not apply"

    def privacy(self, p: float, private: Mapping[str, set[str]]) -> PrivacyReport:
        """Privacy report for replacement probability ``p`` over the private units seen, by label."""
        policies = {label: self.policy(label) for label in private}
        if self.consistent or any(pi is None for pi in policies.values()):
            return PrivacyReport(
                mechanism="none",
                dp=False,
                epsilon=None,
                guarantee=f"no DP guarantee ({self.no_guarantee_reason()})",
                p=p,
                strategy=self.name,
            )
        epsilon = max(
            (randomized_response_epsilon(p, pi, private[label]) for label, pi in policies.items()),
            default=0.0,
        )
        finite = math.isfinite(epsilon)
        text = (
            f"epsilon = {epsilon:.4g} (randomized response, Adelani et al. 2020 lemma, p = {p})"
            if finite
            else f"epsilon = infinity: with p = {p} < 1 some private units outside the support of pi "
            f"survive unreplaced and are then certainly original"
        )
        return PrivacyReport(
            mechanism="randomized_response",
            dp=finite,
            epsilon=epsilon if finite else None,
            guarantee=text,
            p=p,
            strategy=self.name,
            details={"pi_support": {label: len(pi) for label, pi in policies.items()}},
        )
