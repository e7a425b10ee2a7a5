"""Detectors of sensitive spans and the ensemble that unions them."""

from .base import Detector, EnsembleDetector
from .ner import SpacyDetector, TokenClassificationDetector
from .patterns import PatternDetector

__all__ = [
    "Detector",
    "EnsembleDetector",
    "PatternDetector",
    "SpacyDetector",
    "TokenClassificationDetector",
    "get_detector",
]

from ..errors import InputError

#: patterns + spaCy NER + the p-filter on proper nouns: recall first (needs the pipeline's LM)
DEFAULT_DETECTORS = ("patterns", "spacy", "pfilter-propn")
#: no language model: about 50x faster than the default on CPU, lower recall (README, "Measured here")
FAST_DETECTORS = ("patterns", "spacy")
PFILTER_THRESHOLD = 1e-3


def get_detector(
    spec="default", model=None, tokenizer=None, scorer_options: dict | None = None, policy: str | None = None
) -> Detector:
    """A detector from a name ("default", "fast", "patterns", "spacy", "pfilter[:threshold]",
    "pfilter-propn[:threshold]", "token-classification:<model>"), a list of names/detectors (their ensemble),
    or a `Detector` instance. The p-filters score words with ``model``/``tokenizer`` (the pipeline's LM);
    ``pfilter-propn`` only flags words spaCy tags as proper nouns; ``scorer_options`` go to their word scorer
    (e.g. ``{"path": "fast"}`` for a masked LM, see `make_scorer`). ``policy`` ("hipaa", "strict"; see
    `policy.PolicyDetector`) wraps the detector in that identifier policy; None: the bare detector."""
    # --- issue 14: identifier policy (kept apart from the registry code) ---
    if policy is not None:
        from .policy import PolicyDetector, check_policy

        if check_policy(policy) == "strict":
            return get_detector(spec, model, tokenizer, scorer_options)
        return PolicyDetector(get_detector(spec, model, tokenizer, scorer_options), policy)
    # --- end issue 14 ---
    if isinstance(spec, Detector):
        return spec
    if isinstance(spec, (list, tuple)):
        parts = [get_detector(part, model, tokenizer, scorer_options) for part in spec]
        return parts[0] if len(parts) == 1 else EnsembleDetector(parts)
    if spec == "default":
        return get_detector(list(DEFAULT_DETECTORS), model, tokenizer, scorer_options)
    if spec == "fast":
        return get_detector(list(FAST_DETECTORS))
    if spec == "patterns":
        return PatternDetector()
    if spec == "spacy":
        return SpacyDetector()
    if isinstance(spec, str) and spec.split(":")[0] in ("pfilter", "pfilter-propn"):
        from ..models import load_spacy
        from .pfilter import PFilterDetector, make_scorer

        if model is None or tokenizer is None:
            raise InputError(
                f"the {spec.split(':')[0]} detector (part of 'default') needs a language model and "
                f"its tokenizer; without one use 'fast' (patterns + spaCy)"
            )
        try:
            threshold = float(spec.split(":", 1)[1]) if ":" in spec else PFILTER_THRESHOLD
        except ValueError:
            raise InputError(f"pfilter threshold must be a number, got {spec!r}") from None
        nlp = load_spacy() if spec.startswith("pfilter-propn") else None
        scorer = make_scorer(model, tokenizer, **{"prefilter": True, **(scorer_options or {})})
        return PFilterDetector(scorer, threshold, nlp=nlp)
    if isinstance(spec, str) and spec.startswith("token-classification:"):
        return TokenClassificationDetector(spec.split(":", 1)[1])
    raise InputError(
        f"unknown detector {spec!r}; use 'default', 'fast', 'patterns', 'spacy', 'pfilter[:threshold]', "
        f"'pfilter-propn[:threshold]', "
        f"'token-classification:<model>', "
        f"a list of these or a Detector instance"
    )
