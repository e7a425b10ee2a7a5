"""Canary recall without gold: synthetic identifiers in copies of a sample of the user's own documents.

Two kinds of canary go into each copy:

- ``in_place``: every span the configuration replaced in the original is re-filled with a fresh surrogate of
  its label in the original's format and casing (`deid_hf.train.augment.SurrogateSource`; places and
  addresses of the corpus' locales, piece by piece), so the canary sits where the corpus itself writes an
  identifier of that type;
- ``inserted``: short sentences of the corpus' register ("Spoke with {name} about the plan.") holding an
  identifier of each type, inserted at line or sentence breaks in the document's casing, so identifiers
  also appear where the configuration found none.

The copy is de-identified with the same configuration; a canary token is recalled when a replaced span
covers it (EVALUATION.md's token rule), a canary *survives* when any of its tokens is left. The estimate
(`deid_hf.audit.recall`) counts the inserted canaries, by type weighted by the mix of types the
configuration finds in the sample; in-place canaries are reported beside it (they sit at the
configuration's own detections, false positives included). Canaries measure the identifiers they imitate:
an identifier type the configuration never finds and no template covers is not measured.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..detect.text_shape import FACILITY_END
from ..errors import InputError
from ..policies import Policy, check_policy
from ..replace.full_entity import STREET_SUFFIXES, address_like, is_initialism, law_firm_shaped

#: canary types of direct identifiers, which every policy removes
DIRECT_LABELS = ("PERSON", "DATE_TIME", "PHONE", "ID", "ADDRESS", "LOCATION", "ORG", "EMAIL", "URL", "IP")
#: canary types of quasi-identifiers, which only the policy that removes them gets (`canary_labels`)
QUASI_LABELS = ("AGE", "DEMOGRAPHIC", "OCCUPATION")
#: canary types (an in-place canary takes the label of the span it refills, when it is one of these)
CANARY_LABELS = DIRECT_LABELS + QUASI_LABELS
#: the policies that remove the quasi-identifiers of `QUASI_LABELS` (hipaa keeps ages below 90,
#: nationalities and occupations on purpose, and strict has no detector of occupations, so canaries of them
#: would measure the policy, not recall)
QUASI_POLICIES = (Policy.GDPR,)
#: the shapes a surrogate of each type takes (the surrogate keeps the shape of the exemplar it replaces)
EXEMPLARS = {
    "PERSON": ("Ana Lee", "Lee", "Ana M. Lee", "Lee"),
    "DATE_TIME": ("03/14/2021", "3/14", "March 14, 2021", "14 March 2021", "2021-03-14", "3/14/21"),
    "PHONE": ("(617) 555-0143", "617-555-0143", "617.555.0143", "555-0143"),
    "ID": ("4829173", "48291736", "A482917", "482-91-7731"),
    "ADDRESS": ("12 Oak Street", "4410 West Maple Avenue"),
    "LOCATION": ("Springfield", "Mercy Hospital", "Lakeside Medical Center"),
    "ORG": ("Acme Corp",),
    "EMAIL": ("ana.lee@example.com",),
    "URL": ("www.example.com",),
    "IP": ("192.168.1.20",),
    "AGE": ("54", "37", "81"),
    "DEMOGRAPHIC": ("Polish", "Japanese", "Peruvian"),
    "OCCUPATION": ("teacher", "software engineer", "bus driver"),
}
#: sentences of the kind a note, chat or record holds, one slot each
TEMPLATES = {
    "PERSON": (
        "Spoke with {} about the plan",
        "Seen by Dr. {} today",
        "{} called and was updated",
        "Family meeting with {}",
        "Message left for {}",
    ),
    "DATE_TIME": ("Follow-up on {}", "Last seen {}", "Scheduled for {}", "Admitted on {}"),
    "PHONE": ("Call back at {}", "Contact number {}", "Can be reached at {}"),
    "ID": ("MRN {}", "Account number {}", "Reference #{}"),
    "ADDRESS": ("Lives at {}", "Discharged home to {}"),
    "LOCATION": ("Transferred from {}", "Lives in {}"),
    "ORG": ("Works at {}", "Insurance through {}"),
    "EMAIL": ("Email {} with questions", "Reply sent to {}"),
    "URL": ("See {} for details",),
    "IP": ("Logged in from {}",),
    "AGE": ("Patient is {} years old", "Aged {} at the time", "Turned {} last month"),
    "DEMOGRAPHIC": ("Is a {} citizen", "Born to {} parents", "Of {} descent"),
    "OCCUPATION": ("Works as a {}", "Retired {}", "Former {}"),
}
_BREAK = re.compile(r"\n|(?<=[.;!?])\s")
_TOKEN = re.compile(r"\S+")
#: canary types written as places of a country: re-filled in place from the locales' own address data
PLACE_LABELS = ("ADDRESS", "LOCATION")
#: share of place canaries folded to ASCII, as person names are (`SurrogateSource.person`)
FOLDED_SHARE = 0.7


def canary_labels(policy: Policy | str) -> tuple[str, ...]:
    """The canary types an audit under ``policy`` inserts: the direct identifiers, and the
    quasi-identifiers where the policy removes them (`QUASI_POLICIES`: gdpr)."""
    return CANARY_LABELS if check_policy(policy) in QUASI_POLICIES else DIRECT_LABELS


@dataclass(frozen=True)
class CanaryDocument:
    """A copy of a document with canaries ``(start, end, label, kind)`` in it; ``index``: the original's
    position in the corpus."""

    index: int
    text: str
    canaries: tuple[tuple[int, int, str, str], ...]


def cased_as(original: str, surrogate: str) -> str:
    """The surrogate in the original's casing when that is ALL CAPS or lower case."""
    if original.isupper() and len(original) > 1:
        return surrogate.upper()
    return surrogate.lower() if original.islower() else surrogate


def refill_detected(
    text: str,
    detected: Sequence[tuple[int, int, str]],
    surrogate: Callable[[str, str], str],
    labels: Sequence[str] = CANARY_LABELS,
) -> tuple[str, list[tuple[int, int, str, str]]]:
    """``text`` with each detected span of a label of ``labels`` re-filled by ``surrogate(original,
    label)`` (one surrogate per distinct original), and the canaries' new offsets."""
    chosen: dict[tuple[str, str], str] = {}
    pieces, canaries, at = [], [], 0
    for start, end, label in sorted(detected):
        if start < at or label not in labels:
            continue
        original = text[start:end]
        key = (label, original.casefold())
        if key not in chosen:
            chosen[key] = surrogate(original, label)
        filled = cased_as(original, chosen[key])
        pieces.append(text[at:start])
        begin = sum(map(len, pieces))
        pieces.append(filled)
        canaries.append((begin, begin + len(filled), label, "in_place"))
        at = end
    pieces.append(text[at:])
    return "".join(pieces), canaries


def insert_sentences(
    text: str,
    canaries: list[tuple[int, int, str, str]],
    sentences: Sequence[tuple[str, str, str]],
    rng: random.Random,
) -> tuple[str, list[tuple[int, int, str, str]]]:
    """``text`` with each ``(template, value, label)`` sentence inserted at a line or sentence break outside
    the canaries (ALL CAPS in an ALL-CAPS text), the canaries moved and the new ones added."""
    breaks = [m.end() for m in _BREAK.finditer(text)]
    breaks = [b for b in breaks if not any(s < b < e for s, e, _, _ in canaries)] or [len(text)]
    upper = text.isupper()
    canaries, shift = list(canaries), 0
    for at, (template, value, label) in sorted((rng.choice(breaks), s) for s in sentences):
        at += shift
        head, tail = template.split("{}")
        if upper:
            head, value, tail = head.upper(), value.upper(), tail.upper()
        piece = f"{head}{value}{tail}. "
        separator = "" if at == 0 or text[at - 1].isspace() else " "
        piece = separator + piece
        text = text[:at] + piece + text[at:]
        canaries = [
            (s + len(piece), e + len(piece), lb, k) if s >= at else (s, e, lb, k) for s, e, lb, k in canaries
        ]
        start = at + len(separator) + len(head)
        canaries.append((start, start + len(value), label, "inserted"))
        shift += len(piece)
    return text, sorted(canaries)


def reads_naturally(label: str, value: str) -> bool:
    """Whether an inserted canary reads as such identifiers are written in running text: no "Lee, Ana"
    inside a sentence, no law-firm company names ("Ward, Reed and Goodman", whose "and" no detector
    should cover), a street address with a house number that has no leading zero and a common suffix."""
    if label == "PERSON":
        return "," not in value
    if label == "ORG":
        return not law_firm_shaped(value)
    if label == "ADDRESS":
        words = value.split()
        return (
            len(words) >= 3
            and words[0].isdigit()
            and not words[0].startswith("0")
            and words[-1].rstrip(".").lower() in STREET_SUFFIXES
        )
    return True


class CanaryMaker:
    """Draws canary documents of the types ``labels`` (`canary_labels` of the audited policy):
    surrogates from `deid_hf.train.augment.SurrogateSource` (person names from Faker's ``locales``, None:
    many cultures; format-preserving dates and numbers), in-place places and addresses from the same
    locales (`place`), one seeded stream per call."""

    def __init__(self, labels: Sequence[str] = DIRECT_LABELS, locales: Sequence[str] | None = None) -> None:
        from ..detect.lexicon import NAME_LOCALES
        from ..train.augment import SurrogateSource

        unknown = sorted(set(labels) - set(CANARY_LABELS))
        if unknown or not labels:
            raise InputError(
                f"canary types must be among {', '.join(CANARY_LABELS)}, got {unknown or 'none'}"
            )
        self.labels = tuple(labels)
        self.source = SurrogateSource(NAME_LOCALES if locales is None else locales)

    def value(self, label: str, rng: random.Random, original: str | None = None) -> str:
        """A fresh identifier of ``label`` in the shape of ``original`` (else of an exemplar)."""
        if original is None:
            return self.inserted_value(label, rng)
        for _ in range(5):
            drawn = self.place(original, label, rng) or self.source.surrogate(original, label, rng).strip()
            if drawn and drawn.casefold() != original.casefold():
                return drawn
        return drawn

    def place(self, original: str, label: str, rng: random.Random) -> str | None:
        """A place or address of one of the locales, in the original's layout (`address_like` with that
        locale's streets, cities and postcodes); None for a facility, initials, another label, or an
        en_US draw (`FullEntity`)."""
        if label not in PLACE_LABELS or FACILITY_END.search(original) or is_initialism(original):
            return None
        from ..train.augment import ascii_folded

        locale = rng.choice(self.source.locales)
        if locale == "en_US":
            return None
        local, fake = self.source.fakers[locale], self.source.full_entity.fake
        local.seed_instance(rng.getrandbits(64))
        fake.seed_instance(rng.getrandbits(64))
        drawn = local.city() if label == "LOCATION" else address_like(original, fake, rng, local=local)
        return (ascii_folded(drawn) or drawn) if rng.random() < FOLDED_SHARE else drawn

    def inserted_value(self, label: str, rng: random.Random, tries: int = 200) -> str:
        """A fresh identifier of ``label`` in the shape of an exemplar that `reads_naturally` (the last
        one drawn when none of ``tries`` does)."""
        for _ in range(tries):
            shape = rng.choice(EXEMPLARS[label])
            drawn = self.source.surrogate(shape, label, rng).strip()
            if drawn and drawn.casefold() != shape.casefold() and reads_naturally(label, drawn):
                return drawn
        return drawn

    def make(
        self,
        index: int,
        text: str,
        detected: Sequence[tuple[int, int, str]],
        rng: random.Random,
        inserted: int,
    ) -> CanaryDocument:
        """A canary copy of ``text``: ``detected`` spans re-filled, ``inserted`` sentences added."""
        copy, canaries = refill_detected(
            text, detected, lambda original, label: self.value(label, rng, original), self.labels
        )
        sentences = []
        for _ in range(inserted):
            label = rng.choice(self.labels)
            sentences.append((rng.choice(TEMPLATES[label]), self.value(label, rng), label))
        copy, canaries = insert_sentences(copy, canaries, sentences, rng)
        return CanaryDocument(index, copy, tuple(canaries))


def make_canary_document(
    text: str, detected: Sequence[tuple[int, int, str]] = (), *, seed: int = 0, inserted: int = 4
) -> CanaryDocument:
    """One canary copy of ``text`` (see `CanaryMaker.make`), for trying the mechanism out."""
    return CanaryMaker().make(0, text, detected, random.Random(seed), inserted)
