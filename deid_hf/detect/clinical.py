"""Context rules for identifiers that NER misses in clinical notes: clinicians, patients, relatives and care
facilities named next to a title, credential, kinship word or facility word.

- clinician (PERSON): after ``Dr``/``Drs``/``Dr's``/``NP``/``HO``/``MD``/``nurse``... ("Dr. o rourke",
  "DR'S CAMARDA AND CLIFFORD"); an initial and a surname ("Z. MILLER"); a signature, names before a
  credential ("Jean Hudson, RN", "barbara j. parrilli bsn/rn"; at least one word a known first/last name);
  after ``per``/``called``/``paged``/``notified``/``contacts``/``spoke with`` when the first word is a
  known name or, where casing tells names, a capitalised name word ("Spoke with Marrowind").
- patient (PERSON): after ``Mr``/``Mrs``/``Ms``/``Miss``; in a form's name field ("PATIENT: ILSABET
  MARROWIND", "Name: ..."); two or three rare words or known names in capitals inside a line in mixed
  case ("the chart of ILSABET MARROWIND"; no abbreviation, clinical term or acronym: "MRSA SWAB"); a rare
  word or a known name before ``called``/``phoned``/``visited`` ("Mondadori called") or before
  ``reports``/``states``/``said``/``is doing`` ("Senost is doing well").
- a message's writer or subject (PERSON): the name after closing words alone on its line ("Thanks,
  Wiktor", "Kind regards,\nAnna Kowalska"); two or three rare words or known names opening a subject line
  ("RE: Panfilo Casale - discharge summary").
- relative (PERSON): after a kinship or proxy word ("dtr laverne", "Nephew, Neil Meitz", "daughter Elena":
  capitalised in mixed case, any word but a very frequent one; "significant other charlie": a given name
  of any culture, however frequent, that is no stop word or clinical term).
- facility (LOCATION): capitalised words before ``Hospital``/``Medical Center``/``Rehab``/``Regional``...
  ("Harbor Hospital"), the place after ``lives in``, and a hospital's abbreviation after
  ``to``/``at``/``from``/``in``/``by``: 2-5 capitals ending in H or MC, an initialism, no frequent word,
  no generic one such as OSH and no hemorrhage or hormone such as ICH or TSH, not after "due"/"secondary"
  ("transferred to GH", "at GBMC"; not "to CATH", "due to SDH").
A name word is a letter sequence that is not a stop word and is either a known person name
(`lexicon.is_name_word`) or not a frequent English word (wordfreq Zipf below the rule's bound). Each rule is a
named object of the ``context`` family (`rules.context`); `ClinicalContextDetector` runs them in order.
"""

from __future__ import annotations

import re

from ..spans import Span
from .base import Detector
from .lexicon import Vocabulary
from .rules import RULES, decided
from .rules.context import NOT_NAMES, name_word
from .text_shape import CONTEXT_NAME_MAX_ZIPF, TITLE_NAME_MAX_ZIPF

__all__ = [
    "NOT_NAMES",
    "PLACE_HEADS",
    "ClinicalContextDetector",
    "extend_places",
    "name_word",
]

#: geographic and institutional head words that end a place name ("Daytona Beach", "Laurel Regional")
_PLACE_HEADS = (
    "beach square shore island park heights hills falls springs harbor harbour valley lake county regional "
    "memorial general village point bay creek ridge city township"
)
PLACE_HEADS = frozenset(_PLACE_HEADS.split())
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z]+)\b")


def extend_places(text: str, spans: list[Span]) -> list[Span]:
    """LOCATION spans extended over a following place head word (`PLACE_HEADS`) written capitalised or, in
    an ALL-CAPS span, in capitals: a detector that found "Daytona" leaves "Beach" to identify it."""
    out = []
    for span in spans:
        m = _NEXT_WORD.match(text, span.end) if span.label == "LOCATION" else None
        head = m.group(1) if m else ""
        if (
            head.lower() in PLACE_HEADS
            and head[0].isupper()
            and (head.isupper() or not text[span.start : span.end].isupper())
        ):
            span = Span(span.start, m.end(1), span.label, span.score, span.source)
        out.append(span)
    return out


class ClinicalContextDetector(Detector):
    """Names and facilities by the registered context rules (module docstring), in their order; a name word
    after a title is rarer than ``title_zipf``, elsewhere than ``max_zipf``."""

    name = "clinical"

    def __init__(self, max_zipf: float = CONTEXT_NAME_MAX_ZIPF, title_zipf: float = TITLE_NAME_MAX_ZIPF):
        self.max_zipf = max_zipf
        self.title_zipf = title_zipf

    def detect(self, text: str, vocabulary: Vocabulary | None = None) -> list[Span]:
        """Spans of ``text``; ``vocabulary`` (`lexicon.Vocabulary`): corpus words that are no names."""
        spans: list[Span] = []
        for rule in RULES.family("context"):
            for bounds in rule.find(text, vocabulary, self):
                if bounds and bounds[1] > bounds[0]:
                    span = Span(bounds[0], bounds[1], rule.labels[0], rule.score, self.name)
                    decided(rule.name, span, True)
                    spans.append(span)
        return spans
