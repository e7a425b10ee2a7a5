"""Replacement strategy interface (one strategy per module, registered in `deid_hf.replace`). A strategy
applied to one label of a per-label configuration is called an operator (Presidio's word)."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from ..deprecation import warn_renamed
from ..privacy import nothing_replaced_privacy, per_label_privacy
from ..privacy.report import PrivacyReport
from ..spans import LABELS


class Strategy(ABC):
    #: registry name
    name: ClassVar[str]
    #: randomized response and replacement per word of a span (word-by-word) instead of per span
    per_word: ClassVar[bool] = False
    #: the same original gets the same surrogate within a substitution table (document or corpus)
    consistent: bool = False
    #: constructed with the pipeline's language model (``model=``, ``tokenizer=``)
    needs_lm: ClassVar[bool] = False
    #: constructed with the user's secret key (``key=`` or an environment variable)
    needs_key: ClassVar[bool] = False
    #: what only Python can give it (a function), so no command line or request can use it; None: none
    python_only: ClassVar[str | None] = None
    #: `reidentify` restores the original exactly from the output alone (encrypt's envelopes), so no policy
    #: rewrite goes on top (HIPAA's "90+" for ages would make the restore lossy)
    reversible: ClassVar[bool] = False

    @abstractmethod
    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        """Replacement for ``original`` (a span or, with ``per_word``, one word) of type ``label``."""

    def surrogate_in_context(self, text: str, start: int, end: int, label: str, rng: random.Random) -> str:
        """Replacement for ``text[start:end]``; strategies that use the surrounding text override this."""
        return self.surrogate(text[start:end], label, rng)

    def for_label(self, label: str) -> Strategy:
        """The operator that replaces spans of ``label`` (itself; `PerLabel` dispatches)."""
        return self

    def prepare(self, text: str, spans: list, table) -> None:
        """Called once per document before its spans are replaced (document-level state lives in
        ``table.state``: name parts, date offsets)."""
        return None

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        """Replacement of ``text[start:end]`` through the substitution ``table`` (consistent strategies reuse
        an entry); None means the unit is left as it is (not an identifier, e.g. a relative date)."""
        key = (label, text[start:end])
        if self.consistent and key in table.entries:
            return table.entries[key]
        surrogate = self.surrogate_in_context(text, start, end, label, rng)
        if self.consistent and surrogate is not None:
            table.entries[key] = surrogate
        return surrogate

    def replacement_distribution(self, label: str) -> Mapping[str, float] | None:
        """The replacement distribution pi for ``label`` when it is independent of the original, else None."""
        if type(self).policy is not Strategy.policy:  # a subclass written against the deprecated name
            return type(self).policy(self, label)
        return None

    def policy(self, label: str) -> Mapping[str, float] | None:
        """Deprecated name of `replacement_distribution` ("policy" names the identifier policy)."""
        warn_renamed("Strategy.policy", "Strategy.replacement_distribution")
        if type(self).replacement_distribution is Strategy.replacement_distribution:
            return None  # an old-style override calling super(): the base answer, not a loop back into it
        return self.replacement_distribution(label)

    def no_guarantee_reason(self) -> str:
        if self.consistent:
            return "consistent mapping: the surrogate depends on the original, so the lemma does not apply"
        return "the surrogate depends on the original (its format or similarity), so the lemma does not apply"

    def privacy_terms(self, label: str) -> tuple[str, Mapping[str, float] | None, str]:
        """(name, pi or None, why there is no guarantee) for ``label``: the input of `per_label_privacy`."""
        pi = None if self.consistent else self.replacement_distribution(label)
        return self.name, pi, self.no_guarantee_reason()

    def privacy(self, p: float, private: Mapping[str, set[str]]) -> PrivacyReport:
        """Privacy report for replacement probability ``p`` over the private units seen, by label (none seen:
        what the operators of every label would give)."""
        if not private:
            return nothing_replaced_privacy(
                p, {label: self.for_label(label).privacy_terms(label) for label in LABELS}
            )
        return per_label_privacy(
            p, private, {label: self.for_label(label).privacy_terms(label) for label in private}
        )
