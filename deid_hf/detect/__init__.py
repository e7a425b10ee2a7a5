"""Detectors of sensitive spans, the ensemble that unions them, and their registry.

Adding a detector = one module with a `Detector` subclass + one `register_detector` call (below, or in a
user's code): its name then parses in `get_detector`, the pipelines' ``detector=``, the CLI's ``--detector``
(help and validation) and error messages, and the docs test checks that it is documented.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import models
from ..errors import InputError
from ..policies import Policy, check_policy
from .base import Detector, EnsembleDetector
from .ner import SpacyDetector, TokenClassificationDetector
from .patterns import PatternDetector

__all__ = [
    "DETECTORS",
    "Detector",
    "EnsembleDetector",
    "PatternDetector",
    "SpacyDetector",
    "TokenClassificationDetector",
    "detector_names",
    "get_detector",
    "learned_detector",
    "needs_language_model",
    "register_detector",
]

#: patterns + spaCy NER + the fine-tuned token classifier (docs/benchmarks: the best recall on
#: clinical notes, presidio records and wikigold of the measured ensembles, no language model)
DEFAULT_DETECTORS = ("patterns", "spacy", "learned")
#: patterns + spaCy NER + the ZSTS p-filter on proper nouns (needs the pipeline's LM; the default before the
#: learned model, which it labels the silver training data for)
ZSTS_DETECTORS = ("patterns", "spacy", "pfilter-propn")
#: no model beyond spaCy: nothing to build, lower recall (docs/benchmarks)
FAST_DETECTORS = ("patterns", "spacy")
#: patterns + spaCy's places + the fine-tuned token classifier (docs/benchmarks: measured on
#: held-out patients)
CLINICAL_DETECTORS = ("patterns", "spacy:LOCATION", "learned")
#: the named ensembles and their members
ENSEMBLES = {
    "default": DEFAULT_DETECTORS,
    "zsts": ZSTS_DETECTORS,
    "fast": FAST_DETECTORS,
    "clinical": CLINICAL_DETECTORS,
}
PFILTER_THRESHOLD = 1e-3
#: the fine-tuned token classifier (`deid_hf.train.detector`; ships in deid_hf/hub) on ONNX Runtime int8
LEARNED_MODEL = models.LEARNED_MODEL


@dataclass(frozen=True)
class DetectorEntry:
    """A registered detector: ``build(argument, model, tokenizer, scorer_options) -> Detector``."""

    name: str
    build: Callable[..., Detector]
    help: str
    #: what may follow ``name:`` (e.g. "threshold"), None when nothing may
    argument: str | None = None
    #: the argument must be given (``token-classification:<model>``)
    required: bool = False
    #: it scores words with the pipeline's language model (the pipeline loads one only for such detectors)
    needs_lm: bool = False
    #: ``build`` takes ``device=``: the device a pipeline was explicitly given (its model runs there)
    on_device: bool = False

    @property
    def usage(self) -> str:
        """As written: ``patterns``, ``pfilter[:threshold]``, ``token-classification:<model>``."""
        if self.argument is None:
            return self.name
        return f"{self.name}:<{self.argument}>" if self.required else f"{self.name}[:{self.argument}]"


#: name -> entry, in registration order (the order of help texts and error messages)
DETECTORS: dict[str, DetectorEntry] = {}


def register_detector(
    name: str,
    build: Callable[..., Detector],
    *,
    help: str,
    argument: str | None = None,
    required: bool = False,
    needs_lm: bool = False,
    on_device: bool = False,
) -> None:
    """Register ``build(argument, model, tokenizer, scorer_options)`` under ``name`` (like Presidio's
    ``add_recognizer``); ``argument`` names what may follow ``name:``; ``needs_lm``: ``build`` needs the
    pipeline's language model; ``on_device``: ``build`` also takes ``device=`` (None, or the device the
    pipeline was given). Re-registering a name replaces it."""
    if not name or ":" in name or "," in name:
        raise InputError(f"a detector name must be non-empty without ':' or ',', got {name!r}")
    DETECTORS[name] = DetectorEntry(name, build, help, argument, required, needs_lm, on_device)


def needs_language_model(spec) -> bool:
    """True when the detector ``spec`` (a name, a list of names or a `Detector`) scores words with the
    pipeline's language model; unknown names count as not (`get_detector` rejects them)."""
    if isinstance(spec, (list, tuple)):
        return any(needs_language_model(part) for part in spec)
    entry = DETECTORS.get(spec.partition(":")[0]) if isinstance(spec, str) else None
    return entry is not None and entry.needs_lm


def detector_names() -> list[str]:
    """How each registered detector is written (``pfilter[:threshold]``, ...), in registration order."""
    return [entry.usage for entry in DETECTORS.values()]


def _unknown(spec) -> InputError:
    return InputError(
        f"unknown detector {spec!r}; use one of {', '.join(detector_names())}, a list of these or a "
        f"Detector instance"
    )


def detector_members(specs) -> frozenset[str]:
    """The detectors that ``specs`` (a name or a list of names) runs, each named ensemble written out as its
    members (`ENSEMBLES`; "default:0.3" as "learned:0.3" beside the others): two lists that run the same
    detectors give the same set."""
    specs = [specs] if isinstance(specs, str) else list(specs)
    members = set()
    for spec in map(str, specs):
        name, _, argument = spec.partition(":")
        if name not in ENSEMBLES:
            members.add(spec)
            continue
        members.update(_members(ENSEMBLES[name], argument))
    return frozenset(members)


def _members(names: tuple[str, ...], argument: str) -> list[str]:
    """An ensemble's detectors, its argument (``default:0.3``) given to its learned part."""
    return [f"{n}:{argument}" if argument and n == "learned" else n for n in names]


def check_detector_name(spec: str) -> str:
    """``spec`` unchanged when it names a registered detector with a well-formed argument, else InputError."""
    if not isinstance(spec, str):
        raise _unknown(spec)
    name, colon, argument = spec.partition(":")
    entry = DETECTORS.get(name)
    if entry is None:
        raise _unknown(spec)
    if colon and entry.argument is None:
        raise InputError(f"detector {name!r} takes no argument, got {spec!r}")
    if entry.required and not argument:
        raise InputError(f"detector {name!r} needs an argument: {entry.usage}")
    return spec


def get_detector(
    spec="default",
    model=None,
    tokenizer=None,
    scorer_options: dict | None = None,
    policy: Policy | str | None = None,
    device=None,
) -> Detector:
    """A detector from a registered name (`detector_names`), a list of names/detectors (their ensemble), or a
    `Detector` instance. The p-filters score words with ``model``/``tokenizer`` (the pipeline's LM);
    ``pfilter-propn`` only flags words spaCy tags as proper nouns; ``scorer_options`` go to their word scorer
    (e.g. ``{"path": "fast"}`` for a masked LM, see `make_scorer`). ``policy`` (a `Policy`:
    "hipaa" wraps the detector in `policy.IdentifierPolicyDetector`; "strict" keeps every span, so it gives
    the bare detector); None: the bare detector. ``device``: where the learned models run
    (`learned_detector`); None: their own default."""
    if policy is not None:
        from .policy import IdentifierPolicyDetector

        bare = get_detector(spec, model, tokenizer, scorer_options, device=device)
        return bare if check_policy(policy) == Policy.STRICT else IdentifierPolicyDetector(bare, policy)
    if isinstance(spec, Detector):
        return spec
    if isinstance(spec, (list, tuple)):
        parts = [get_detector(part, model, tokenizer, scorer_options, device=device) for part in spec]
        return parts[0] if len(parts) == 1 else EnsembleDetector(parts)
    name, _, argument = check_detector_name(spec).partition(":")
    entry = DETECTORS[name]
    on_device = {"device": device} if entry.on_device else {}
    return entry.build(argument or None, model, tokenizer, scorer_options, **on_device)


def _pfilter(name: str, proper_nouns: bool) -> Callable[..., Detector]:
    def build(argument, model, tokenizer, scorer_options):
        from ..models import load_spacy
        from .pfilter import PFilterDetector, make_scorer

        if model is None or tokenizer is None:
            raise InputError(
                f"the {name} detector (part of 'zsts') needs a language model and "
                f"its tokenizer; without one use 'fast' (patterns + spaCy) or 'default'"
            )
        try:
            threshold = float(argument) if argument else PFILTER_THRESHOLD
        except ValueError:
            raise InputError(f"{name} threshold must be a number, got {argument!r}") from None
        nlp = load_spacy() if proper_nouns else None
        scorer = make_scorer(model, tokenizer, **{"prefilter": True, **(scorer_options or {})})
        return PFilterDetector(scorer, threshold, nlp=nlp)

    return build


def _with_learned(names: tuple[str, ...]) -> Callable[..., Detector]:
    """An ensemble of ``names`` whose argument is the threshold of its learned part (``default:0.3``)."""

    def build(argument, *_, device=None):
        return get_detector(_members(names, argument), device=device)

    return build


def learned_detector(model: str) -> Callable[..., Detector]:
    """The build of detector "learned" over ``model``: its int8 ONNX graph on the CPU, or, on a device
    other than the CPU (``device=``, a pipeline's explicit device), its weights in PyTorch fp32 there;
    ``learned:T`` sets its threshold."""

    def build(argument, *_, device=None):
        from ..lm import off_the_cpu  # torch: not on the CLI's help path

        try:
            threshold = float(argument) if argument else None
        except ValueError:
            raise InputError(f"the learned detector's threshold must be a number, got {argument!r}") from None
        if off_the_cpu(device):
            return TokenClassificationDetector(model, device=device, threshold=threshold)
        return TokenClassificationDetector(model, backend="onnx", int8=True, threshold=threshold)

    return build


register_detector(
    "default",
    _with_learned(DEFAULT_DETECTORS),
    help=f"patterns + spacy + learned ({LEARNED_MODEL}, shipped), no LM; default:T sets learned's threshold",
    argument="threshold",
    on_device=True,
)
register_detector(
    "fast", lambda *_: get_detector(list(FAST_DETECTORS)), help="patterns + spacy, no language model"
)
register_detector(
    "zsts",
    lambda _, model, tokenizer, options: get_detector(list(ZSTS_DETECTORS), model, tokenizer, options),
    help="patterns + spacy + pfilter-propn (ZSTS), with the pipeline's LM",
    needs_lm=True,
)
register_detector("patterns", lambda *_: PatternDetector(), help="regular expressions and Presidio's")
register_detector(
    "spacy",
    lambda argument, *_: SpacyDetector(labels=argument.split("+") if argument else None),
    help="spaCy NER (with labels, e.g. spacy:LOCATION+ORG: only spans of those labels)",
    argument="labels",
)
register_detector(
    "pfilter",
    _pfilter("pfilter", proper_nouns=False),
    help="ZSTS p-filter: every word with LM probability below the threshold",
    argument="threshold",
    needs_lm=True,
)
register_detector(
    "pfilter-propn",
    _pfilter("pfilter-propn", proper_nouns=True),
    help="the p-filter on words spaCy tags as proper nouns",
    argument="threshold",
    needs_lm=True,
)
register_detector(
    "learned",
    learned_detector(LEARNED_MODEL),
    help=f"the fine-tuned token classifier {LEARNED_MODEL} (shipped) on ONNX Runtime int8; learned:T: a "
    f"token is an entity when p(entity) / (p(entity) + p(O)) >= T (default 0.5)",
    argument="threshold",
    on_device=True,
)
register_detector(
    "clinical",
    _with_learned(CLINICAL_DETECTORS),
    help=f"patterns + spaCy places + learned ({LEARNED_MODEL}): the best on clinical notes, no LM",
    argument="threshold",
    on_device=True,
)
register_detector(
    "token-classification",
    lambda argument, *_, device=None: TokenClassificationDetector(argument, device=device),
    help="an HF token-classification model: offline name, path or Hub id",
    argument="model",
    required=True,
    on_device=True,
)
