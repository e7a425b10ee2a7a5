"""Quasi-identifiers of the gdpr policy: what singles a person out in combination without naming them.

`QuasiIdentifierDetector` gives spaCy's nationalities, religious and political groups (``NORP`` ->
``DEMOGRAPHIC``), amounts of money, quantities and percentages (-> ``QUANTITY``) and named events
(-> ``OTHER``), and occupations (``OCCUPATION``) from `occupations`, a list built from Faker's job
titles. spaCy's parse is shared with a `ner.SpacyDetector` of the same pipeline (`ner.parse` keeps the
last batches).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ..spans import Span
from .base import Detector
from .ner import NOT_FOR_NER, SPACY_NAME_SCORE, parse

#: spaCy labels of quasi-identifiers -> the schema's labels
QUASI_LABELS = {
    "NORP": "DEMOGRAPHIC",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "EVENT": "OTHER",
}
#: an occupation scores below spaCy's names, so a name holding one ("Royal College of Surgeons") stays a name
OCCUPATION_SCORE = 0.4
#: heads of Faker's "Head, qualifier" titles that are no occupation on their own ("Copy, advertising")
NOT_OCCUPATIONS = frozenset({"copy", "land", "make", "sub", "runner"})


@functools.cache
def occupations() -> tuple[str, ...]:
    """Occupations in lower case, longest first: Faker's English job titles as written ("police officer"),
    reordered where Faker writes "Head, qualifier" ("Journalist, newspaper" -> "newspaper journalist"), and
    their heads ("journalist"); parentheses dropped, a slash read as "or" ("Secretary/administrator")."""
    from faker.providers.job.en_US import Provider

    found = set()
    for title in Provider.jobs:
        title = re.sub(r"\s*\(.*?\)", "", title).lower()
        heads, _, qualifier = (part.strip() for part in title.partition(","))
        slash = re.search(r"[^\s/]+(?:/[^\s/]+)+", heads)  # "commercial/residential surveyor": either word
        alternatives = slash.group(0).split("/") if slash else []
        choices = (
            [heads[: slash.start()] + w + heads[slash.end() :] for w in alternatives] if slash else [heads]
        )
        for head in choices:
            if head and head not in NOT_OCCUPATIONS:
                found.add(head)
                if qualifier and not re.search(r"[,/]", qualifier):
                    found.add(f"{qualifier} {head}")
    return tuple(sorted(found, key=lambda o: (-len(o), o)))


@functools.cache
def occupation_pattern() -> re.Pattern:
    """Any of `occupations` as whole words, case-insensitive, with a plural "s"."""
    alternatives = "|".join(re.escape(o) for o in occupations())
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?:e?s)?(?![\w-])", re.IGNORECASE)


def find_occupations(text: str, source: str = "occupations") -> list[Span]:
    return [
        Span(m.start(), m.end(), "OCCUPATION", OCCUPATION_SCORE, source)
        for m in occupation_pattern().finditer(text)
    ]


class QuasiIdentifierDetector(Detector):
    """spaCy's quasi-identifier entities (`QUASI_LABELS`) and occupations (`find_occupations`)."""

    name = "quasi"

    def __init__(self, nlp="spacy-sm"):
        from ..models import load_spacy

        self.nlp = load_spacy(nlp) if isinstance(nlp, str) else nlp

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        docs = parse(self.nlp, tuple(texts), NOT_FOR_NER)
        return [
            [
                *(
                    Span(ent.start_char, ent.end_char, QUASI_LABELS[ent.label_], SPACY_NAME_SCORE, self.name)
                    for ent in doc.ents
                    if ent.label_ in QUASI_LABELS and ent.text.strip()
                ),
                *find_occupations(text, self.name),
            ]
            for text, doc in zip(texts, docs)
        ]
