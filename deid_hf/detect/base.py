"""One interface for every detector: text in, `Span`s in the common label schema out."""

from __future__ import annotations

import contextvars
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from ..policies import Policy
from ..spans import Span, merge_spans
from .mentions import add_repeated_mentions, one_label_per_surface

if TYPE_CHECKING:
    from .lexicon import Vocabulary

T = TypeVar("T")

__all__ = [
    "Detector",
    "EnsembleDetector",
    "side_by_side",
    "add_repeated_mentions",
    "one_label_per_surface",
]


class Detector(ABC):
    """Text in, spans out. Capabilities a detector may declare (read them as attributes, never probe):
    ``fit``, ``trained_policy``, ``vocabulary``, ``detect_with_support`` and ``releases_gil``."""

    #: short name written into ``Span.source``
    name: str
    #: ``fit(texts) -> self`` learns corpus statistics from a whole corpus (a detector under an identifier
    #: policy); None: there is nothing to learn
    fit: Callable[[Sequence[str]], Detector] | None = None
    #: the identifier policy whose gold this model was trained on (`Policy.HIPAA`, or its name as a model's
    #: config stores it): the policy keeps its spans as found (`learned_spans.keep_trained`); None: an
    #: ordinary detector
    trained_policy: Policy | str | None = None
    #: the corpus vocabulary that ships with this model (`lexicon.Vocabulary`), None without one
    vocabulary: Vocabulary | None = None
    #: ``detect_with_support(texts) -> (spans, support)``: a trained model's spans and, per text, what it
    #: finds at a lower operating point (None where it cannot say), which the identifier policy reads to
    #: vouch for other detectors' names (`rules.identifiers`); None: no such second reading
    detect_with_support: (
        Callable[[Sequence[str]], tuple[list[list[Span]], list[list[Span] | None]]] | None
    ) = None

    #: True: its batch work is a model's forward pass on the CPU that releases the GIL and shares nothing
    #: with the other detectors, so an ensemble runs it on its own thread beside them (`side_by_side`)
    releases_gil: bool = False

    @abstractmethod
    def detect(self, text: str) -> list[Span]:
        """Spans of ``text`` this detector considers sensitive."""

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        return [self.detect(text) for text in texts]


def side_by_side(calls: Sequence[tuple[Detector, Callable[[], T]]]) -> list[T]:
    """The result of each ``(detector, call)`` in order. The first call of a detector that declares
    ``releases_gil`` (and is listed once) runs on a thread of its own, in a copy of this thread's context
    (rule recording sees it); the other calls run one after another on this thread meanwhile."""
    detectors = [detector for detector, _ in calls]
    threaded = next((i for i, d in enumerate(detectors) if d.releases_gil and detectors.count(d) == 1), None)
    if threaded is None or len(calls) == 1:
        return [call() for _, call in calls]
    try:
        pool = ThreadPoolExecutor(1, thread_name_prefix="deid-hf-detector")
        future = pool.submit(contextvars.copy_context().run, calls[threaded][1])
    except RuntimeError:  # the interpreter is shutting down: no new threads
        return [call() for _, call in calls]
    with pool:
        results = [None if i == threaded else call() for i, (_, call) in enumerate(calls)]
        results[threaded] = future.result()
    return results


class EnsembleDetector(Detector):
    """Union of several detectors under the shared overlap rule (`merge_spans`)."""

    name = "ensemble"

    def __init__(self, detectors: Sequence[Detector]):
        self.detectors = list(detectors)

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Span]]:
        per_detector = side_by_side([(d, functools.partial(d.detect_batch, texts)) for d in self.detectors])
        return [merge_spans(span for found in per_detector for span in found[i]) for i in range(len(texts))]
