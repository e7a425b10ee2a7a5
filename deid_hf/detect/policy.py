"""What counts as identifying: the identifier policy applied to every detector's spans.

``strict``: every span any detector finds is kept (every number, time and capitalised word).
``hipaa`` (default; HIPAA Safe Harbor as the PhysioNet deid corpus applies it):
- kept: names of persons (PERSON), organisations (ORG), locations and addresses (LOCATION, ADDRESS), other
  named groups (OTHER), trimmed to their words with identifier evidence (`evidence`: a known person name,
  a word rarer than `lexicon.COMMON_ZIPF` that is not corpus vocabulary nor a clinical term, or a
  capitalised frequent word used as a proper noun), dropped without any; dates (numeric day/month with or
  without year, month names with a day or year, a year in a date context, "'84"), wherever they occur;
  ages over 89; phone (also any phone-shaped number of 8+ digits, `find_phones`, which finds a number in an
  SSN's 3-2-4 layout as an ID), e-mail, URL (with a scheme,
  ``www.`` or a common top-level domain), IP; apartments, suites and P.O. boxes; identifying
  numbers: a validated ID (score >= STRONG_ID), a run of 5+ digits, or a number of 4+ characters after
  ``#``/``no.``/``MRN``/``ref``/``account``/``policy``/``license``/``record`` or a support chat's
  ``order``/``ticket``/``booking``/``tracking``/... (labelled ID whatever another detector calls it), unless
  it is a measurement ("order 1000 mL").
- removed from the detections: times of day ("0800", "8pm", "10:26AM"), durations and relative days
  ("2 days", "today", "tonight"), ages of 89 and under, measurements (vital signs such as "120/80", doses,
  lab values, percentages, scores, counts with units, bed and room numbers), clinical abbreviations and
  drug names (corpus vocabulary), and frequent English words written as common words.

``gdpr`` (GDPR-style anonymization of the people in general text): what hipaa keeps, every age, and the
quasi-identifiers of `quasi.QuasiIdentifierDetector` (nationalities, ethnic, religious and political groups,
occupations, amounts, events), by the rules of `rules.gdpr`, which also drop public bodies and laws; a
model trained on hipaa gold keeps its spans as under hipaa; every person mention is masked whole, with its
title, initials and particles ("Mr S. Esmer", "Judge Mahoney", "Jan van der Berg"), and so is every further
mention of the person ("Esmer", "Mr Esmer": `mentions.whole_person_mentions`).

The rules are named objects (`deid_hf.detect.rules`): the date rules (`rules.dates`), the phone rules
(`rules.phones`), which detector spans are kept (`rules.identifiers`, with `evidence`) and the clean-up of a
policy-trained model's spans (`learned_spans`). `IdentifierPolicyDetector` runs the policy's stages of
`stages.DETECTION_STAGES`: case restoration, the detectors, the policy, the context rules, the date and phone
rules, the merge.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from ..deprecation import renamed_getattr
from ..policies import DEFAULT_POLICY, POLICIES, Policy, check_policy
from ..spans import Span
from .base import Detector, EnsembleDetector
from .clinical import ClinicalContextDetector
from .evidence import evidence, evidence_span
from .learned_spans import keep_trained
from .lexicon import VOCABULARY_FILE, DocumentFrequency, Vocabulary
from .ner import SpacyDetector
from .quasi import QuasiIdentifierDetector
from .rules.dates import DATE_PATTERNS, find_dates
from .rules.identifiers import CONTEXT_ID_SCORE, NAMED, STRONG_ID, apply_policy
from .rules.phones import PHONE_DIGITS, PHONE_IN_TEXT, find_phones
from .stages import Document, run_stages
from .text_shape import careless_casing, lowercase_style

__all__ = [
    "CONTEXT_ID_SCORE",
    "DATE_PATTERNS",
    "DEFAULT_POLICY",
    "NAMED",
    "PHONE_DIGITS",
    "PHONE_IN_TEXT",
    "POLICIES",
    "STRONG_ID",
    "IdentifierPolicyDetector",
    "Policy",
    "apply_policy",
    "careless_casing",
    "check_policy",
    "evidence",
    "evidence_span",
    "find_dates",
    "find_phones",
    "keep_trained",
    "lowercase_style",
]


def shipped_vocabulary(members: Sequence[Detector]) -> Vocabulary | None:
    """The corpus vocabulary that ships with a model: the first member's that carries one (a trained
    folder's ``VOCABULARY_FILE``), else the default learned model's; None where neither has one."""
    return next((m.vocabulary for m in members if m.vocabulary is not None), None) or default_vocabulary()


@functools.cache
def default_vocabulary() -> Vocabulary | None:
    from ..models import LEARNED_MODEL, model_path

    path = Path(model_path(LEARNED_MODEL)) / VOCABULARY_FILE
    return Vocabulary.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def quasi_identifier_detector(members: Sequence[Detector]) -> QuasiIdentifierDetector:
    """The gdpr policy's quasi-identifier detector, on the spaCy pipeline of a spaCy member where there is
    one (its parse is then shared), else on the default one."""
    spacy = next((m for m in members if isinstance(m, SpacyDetector)), None)
    return QuasiIdentifierDetector(spacy.nlp if spacy is not None else "spacy-sm")


class IdentifierPolicyDetector(Detector):
    """Detectors under an identifier policy (module docstring), with the clinical context rules.
    ``restore_case``: run them on the case-restored copy; ``context``: add the clinical context rules;
    ``corpus_vocabulary``: words frequent across the documents of a corpus need other evidence: the corpus
    given to `fit` (opt-in: a name that recurs across that corpus is then kept), else the training corpora
    of the model (`shipped_vocabulary`), so a document's output never depends on the other documents of a
    run."""

    def __init__(
        self,
        detector: Detector,
        policy: Policy | str = DEFAULT_POLICY,
        restore_case: bool = True,
        context: bool = True,
        corpus_vocabulary: bool = True,
    ):
        self.policy = check_policy(policy)
        self.members = list(detector.detectors) if isinstance(detector, EnsembleDetector) else [detector]
        self.name = f"{detector.name}[{policy}]"
        self.restore_case = restore_case
        self.context = ClinicalContextDetector() if context else None
        self.corpus_vocabulary = corpus_vocabulary
        self.fitted: Vocabulary | None = None
        self.shipped = shipped_vocabulary(self.members) if corpus_vocabulary else None
        if self.policy == Policy.GDPR and not any(
            isinstance(m, QuasiIdentifierDetector) for m in self.members
        ):
            self.members.append(quasi_identifier_detector(self.members))

    def policy_vocabulary(self) -> Vocabulary | None:
        """Statistics only of a corpus given to `fit`, never of a call's batch: a document's output must not
        depend on which other documents share its batch (a service batches unrelated clients together)."""
        return (self.fitted or self.shipped) if self.corpus_vocabulary else None

    def fit(self, texts: Sequence[str]) -> IdentifierPolicyDetector:
        """Corpus statistics from a whole corpus instead of the model's training corpora: more precision on
        that corpus, less privacy (a name found in many of its documents becomes vocabulary)."""
        self.fitted = DocumentFrequency().fit(texts).vocabulary()
        return self

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        """The policy's part of `stages.DETECTION_STAGES` on ``texts``."""
        documents = run_stages(self, "policy", [Document(text) for text in texts])
        return [document.spans for document in documents]


#: renamed public names: old name -> new name (the old one still works, with a DeprecationWarning)
RENAMED = {"PolicyDetector": "IdentifierPolicyDetector"}
__getattr__ = renamed_getattr(__name__, RENAMED, globals())
