"""The model side of the service: one deid-substitution pipeline per (detector, strategy), sharing one LM.

`Engine.run_group` is the batcher's ``run_group``: it runs a group of texts with equal options in one
pipeline call and, when that call fails, each text alone, so a bad text fails only itself.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from ..errors import DeidError, InputError, each_alone_on_failure, first_line
from .batching import OverBudget
from .config import ServeConfig, strategy_spec


class Options(NamedTuple):
    """The batching key: texts with equal options can share one pipeline call."""

    task: str  # "deidentify", "detect" or "reidentify"
    detector: str
    strategy: str  # a `strategy_key`: an operator name or a per-label dict's canonical JSON
    p: float = 1.0
    seed: int | None = None
    return_mapping: bool = False


class ItemError(Exception):
    """A per-item failure whose message is safe to return to the client (it never holds the text)."""


def safe_error(exc: BaseException) -> str:
    """A message for the client: deid-hf's own errors as they are, anything else by type only."""
    if isinstance(exc, (DeidError, ItemError, OverBudget)):
        return first_line(exc, 300) or type(exc).__name__
    return f"internal error ({type(exc).__name__})"


def _position(span):
    return span.start, span.end


class Engine:
    #: pipelines kept (least recently used dropped first): requests cannot grow memory without bound
    MAX_PIPELINES = 16

    def __init__(self, config: ServeConfig):
        self.config = config
        self._pipes: OrderedDict[tuple[str, str], object] = OrderedDict()
        self._lm = None  # (model, tokenizer) of the LM, loaded by the first pipeline that needs one, shared
        self._default = None  # the configured pipeline, never dropped
        # a call abandoned past its time budget still runs beside the next one (`serve.batching`): the
        # cache and the shared LM are read and changed under this lock, so no pipeline is built twice
        self._lock = threading.RLock()

    def pipeline(self, detector: str, strategy: str):
        """The pipeline for these options, built on first use on the shared LM."""
        with self._lock:
            return self._pipeline(detector, strategy)

    def _pipeline(self, detector: str, strategy: str):
        key = (detector, strategy)
        if self._default is not None and key == (self.config.detector, self.config.strategy_key):
            return self._default
        if key in self._pipes:
            self._pipes.move_to_end(key)
            return self._pipes[key]
        import os

        from ..pipelines import needs_language_model, pipeline
        from ..replace.keys import DEFAULT_KEY_ENV

        configured = strategy == self.config.strategy_key
        options = {
            **(self.config.pipeline_options or {}),
            "detector": detector.split(","),
            "strategy": strategy_spec(strategy),
            "strategy_options": self.config.strategy_options if configured else None,
            # keys groups (one date offset and one pseudonym per person in a group, across restarts)
            "key": os.environ.get(DEFAULT_KEY_ENV) or None,
        }
        if self._lm is not None:
            pipe = pipeline("deid-substitution", model=self._lm[0], tokenizer=self._lm[1], **options)
        elif self.config.model is None and not needs_language_model(options):
            pipe = pipeline("deid-substitution", **options)  # on the shipped detector's graph, no LM
        else:
            pipe = pipeline("deid-substitution", model=self.config.model, **options)
            self._lm = (pipe.model, pipe.tokenizer)
        self._pipes[key] = pipe
        while len(self._pipes) > self.MAX_PIPELINES:
            self._pipes.popitem(last=False)
        return pipe

    def warm_up(self) -> None:
        self._default = self.pipeline(self.config.detector, self.config.strategy_key)

    @property
    def can_reidentify(self) -> bool:
        """Whether the configured pipeline's output can be reidentified from the text alone: some operator
        is reversible (encrypt's envelopes); False until it is loaded."""
        strategy = getattr(self._default, "strategy", None)
        operators = [
            strategy,
            *getattr(strategy, "operators", {}).values(),
            getattr(strategy, "default", None),
        ]
        return hasattr(self._default, "reidentify") and any(o is not None and o.reversible for o in operators)

    def run_group(self, key: Hashable, texts: list[str]) -> list:
        options = Options(*key)
        return each_alone_on_failure(lambda group: self._run(options, group), texts)

    def _run(self, options: Options, texts: list[str]) -> list:
        pipe = self.pipeline(options.detector, options.strategy)
        if options.task == "deidentify":
            results = pipe(
                texts,
                p=options.p,
                seed=options.seed,
                return_mapping=options.return_mapping,
                batch_size=len(texts),
            )  # a bad item comes back with its own "error" (errors="report")
            return [ItemError(r["error"]) if r.get("error") else r for r in results]
        if options.task == "detect":
            from ..detect.stages import finish_detection
            from ..pipelines.base import check_text
            from ..text import model_text

            texts = [model_text(check_text(text)) for text in texts]  # what the pipelines' detectors see
            found = pipe.detector.detect_batch(texts)
            spans = [
                sorted(finish_detection(t, s, pipe.detector), key=_position) for t, s in zip(texts, found)
            ]
            return [{"spans": [span.to_dict() for span in item]} for item in spans]
        if options.task == "reidentify":
            return [{"text": pipe.reidentify(text)} for text in texts]
        raise InputError(f"unknown task {options.task!r}")
