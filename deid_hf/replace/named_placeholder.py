"""Named placeholder: one fixed exemplar per type (all locations become "London")."""

from __future__ import annotations

import random

from .base import Strategy

EXEMPLARS = {
    "PERSON": "John Smith",
    "ORG": "Acme Corp",
    "LOCATION": "London",
    "ADDRESS": "221B Baker Street",
    "DATE_TIME": "January 1, 2000",
    "PHONE": "555-0100",
    "EMAIL": "john.smith@example.com",
    "URL": "https://example.com",
    "IP": "192.0.2.1",
    "ID": "0000000000",
    "NUMBER": "0",
    "AGE": "40",
    "OTHER": "something",
    "DEMOGRAPHIC": "European",
    "OCCUPATION": "employee",
    "QUANTITY": "100",
    "HEALTH": "illness",
}


class NamedPlaceholder(Strategy):
    name = "named"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return EXEMPLARS[label]

    def replacement_distribution(self, label: str) -> dict[str, float]:
        return {EXEMPLARS[label]: 1.0}
