"""Word-by-word replacement: each word of an entity replaced by a same-type word drawn from pi.

pi is independent of the original word, so the randomized-response lemma applies:
- value distortion (default): pi = frequencies of the words of a fixed external pool (Faker values of the
  type, generated once with a fixed seed);
- value dissociation: pi = frequencies of the words of detected entities of the type in the corpus being
  processed (``fit``), so the output keeps the corpus distribution of surrogate words.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from ..errors import InputError
from ..privacy import normalise
from .base import Strategy

POOL_SIZE = 400
FAKER_POOLS = {
    "PERSON": "name",
    "ORG": "company",
    "LOCATION": "city",
    "ADDRESS": "street_address",
    "DATE_TIME": "date",
    "PHONE": "phone_number",
    "EMAIL": "email",
    "URL": "url",
    "IP": "ipv4",
    "ID": "ssn",
    "NUMBER": "building_number",
    "AGE": "pyint",
    "OTHER": "word",
    "OCCUPATION": "job",
    "QUANTITY": "pyint",
}


class WordByWord(Strategy):
    name = "word_by_word"
    per_word = True

    def __init__(self, pool: str = "distortion"):
        if pool not in ("distortion", "dissociation"):
            raise InputError(f"word_by_word pool must be 'distortion' or 'dissociation', got {pool!r}")
        self.pool = pool
        self.policies: dict[str, dict[str, float]] = {}
        if pool == "distortion":
            from faker import Faker

            fake = Faker("en_US")
            fake.seed_instance(0)
            for label, provider in FAKER_POOLS.items():
                values = [str(getattr(fake, provider)()) for _ in range(POOL_SIZE)]
                self.policies[label] = normalise(Counter(w for v in values for w in v.split()))

    def fit(self, units: Iterable[tuple[str, str]]) -> WordByWord:
        """Value dissociation: pi per label from (label, word) pairs of the corpus' detected entities."""
        counts: dict[str, Counter] = {}
        for label, word in units:
            counts.setdefault(label, Counter())[word] += 1
        self.policies = {label: normalise(c) for label, c in counts.items()}
        return self

    def replacement_distribution(self, label: str) -> dict[str, float] | None:
        return self.policies.get(label) or self.policies.get("OTHER")

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        pi = self.replacement_distribution(label)
        if not pi:
            raise InputError(
                f"word_by_word with pool={self.pool!r} has no policy for {label}: call fit() first"
            )
        words = list(pi)
        return rng.choices(words, weights=[pi[w] for w in words])[0]
