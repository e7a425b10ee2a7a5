"""Detectors of sensitive spans and the ensemble that unions them."""

from .base import Detector, EnsembleDetector
from .ner import SpacyDetector, TokenClassificationDetector
from .patterns import PatternDetector

__all__ = ["Detector", "EnsembleDetector", "PatternDetector", "SpacyDetector", "TokenClassificationDetector", "get_detector"]

from ..errors import InputError

DEFAULT_DETECTORS = ("patterns", "spacy")


def get_detector(spec="default", model=None, tokenizer=None) -> Detector:
    """A detector from a name ("default", "patterns", "spacy", "pfilter[:threshold]",
    "token-classification:<model>"), a list of names/detectors (their ensemble), or a `Detector` instance.
    ``pfilter`` scores words with ``model``/``tokenizer`` (the pipeline's LM)."""
    if isinstance(spec, Detector):
        return spec
    if isinstance(spec, (list, tuple)):
        parts = [get_detector(part, model, tokenizer) for part in spec]
        return parts[0] if len(parts) == 1 else EnsembleDetector(parts)
    if spec == "default":
        return get_detector(list(DEFAULT_DETECTORS))
    if spec == "patterns":
        return PatternDetector()
    if spec == "spacy":
        return SpacyDetector()
    if isinstance(spec, str) and spec.split(":")[0] == "pfilter":
        from .pfilter import PFilterDetector, make_scorer

        if model is None or tokenizer is None:
            raise InputError("the pfilter detector needs a language model and its tokenizer")
        try:
            threshold = float(spec.split(":", 1)[1]) if ":" in spec else 1e-3
        except ValueError:
            raise InputError(f"pfilter threshold must be a number, got {spec!r}") from None
        return PFilterDetector(make_scorer(model, tokenizer, prefilter=True), threshold)
    if isinstance(spec, str) and spec.startswith("token-classification:"):
        return TokenClassificationDetector(spec.split(":", 1)[1])
    raise InputError(
        f"unknown detector {spec!r}; use 'default', 'patterns', 'spacy', 'pfilter[:threshold]', "
        f"'token-classification:<model>', "
        f"a list of these or a Detector instance"
    )
