"""`deid-substitution`: detect sensitive spans, replace them with a strategy under randomized response.

Output per text (JSON-serialisable): ``text`` (de-identified), ``spans`` (start, end, label, score,
source, replaced, replacement; offsets into the original), ``privacy`` (strategy, p, epsilon or why there
is none, per label, detector-recall caveat) and, with ``return_mapping=True`` only, ``mapping`` original ->
surrogate and ``restore`` ([start, end, surrogate, original] in the output text, for `reidentify`).
Construction options follow the validated schema of `deid_hf.config`; ``key=`` (never saved) keys the
hash and encrypt operators and `reidentify`.
"""

from __future__ import annotations

import hashlib
import inspect
import random
from typing import ClassVar

from transformers import Pipeline

from deid_hf.config import PIPELINE_DEFAULTS, validate
from deid_hf.detect import get_detector
from deid_hf.detect.base import add_repeated_mentions
from deid_hf.detect.steering import SteeredDetector
from deid_hf.errors import InputError
from deid_hf.pipelines.base import SavableOptionsMixin, given_options
from deid_hf.privacy.randomized_response import check_probability
from deid_hf.replace import get_strategy
from deid_hf.replace.apply import SubstitutionTable, apply_strategy

RECALL_CAVEAT = (
    "items the detector misses are never replaced: detector recall bounds the effective p, "
    "and the guarantee covers detected items only"
)


def check_text(text) -> str:
    if not isinstance(text, str):
        raise InputError(f"expected a string to de-identify, got {type(text).__name__}")
    if not text.strip():
        raise InputError("cannot de-identify an empty text")
    return text


def document_rng(seed: int | None, text: str) -> random.Random:
    """Secure randomness by default; with a seed, a stream keyed by (seed, text) so that any order or
    resumption of a corpus run gives the same output."""
    if seed is None:
        return random.SystemRandom()
    return random.Random(f"{seed}:{hashlib.sha256(text.encode()).hexdigest()}")


class DeidSubstitutionPipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-substitution"
    DEFAULTS: ClassVar[dict] = PIPELINE_DEFAULTS

    def __init__(self, model, *args, key: str | bytes | None = None, **kwargs):
        self.key = key
        super().__init__(model, *args, **kwargs)
        self.options = {**self.options, **validate(self.options)}
        options = self.options
        strategy, detector = options["strategy"], options["detector"]
        if detector is None:  # ZSTS detects with its own p-filter; every other strategy with the ensemble
            detector = "pfilter" if strategy == "zsts" else "default"
        policy = (
            {"policy": options["policy"]} if "policy" in inspect.signature(get_detector).parameters else {}
        )
        base = get_detector(detector, self.model, self.tokenizer, options["scorer_options"], **policy)
        self.detector = SteeredDetector(
            base,
            patterns=options["patterns"] or (),
            deny_list=options["deny_list"],
            allow_list=options["allow_list"] or (),
            entities=options["entities"],
            score_threshold=options["score_threshold"],
        )
        self.strategy = get_strategy(
            strategy,
            self.model,
            self.tokenizer,
            key=key,
            policy=options["policy"],
            **(options["strategy_options"] or {}),
        )
        self.table = SubstitutionTable() if options["shared_table"] else None

    def reidentify(self, text: str, restore: list | None = None) -> str:
        """The original text back: with ``restore`` (an output's ``restore`` list, or a record's entry of an
        encrypted mapping file) every replaced unit exactly; without, every ``[ENC:...]`` envelope of the
        encrypt operator, decrypted with this pipeline's key (``key=`` or ``DEID_HF_KEY``)."""
        from deid_hf.reidentify import reidentify

        return reidentify(text, restore=restore, key=self.key)

    def _sanitize_parameters(self, **kwargs):
        pre, forward, post = given_options(self.task_name, kwargs, (), ("p", "seed"), ("return_mapping",))
        if "p" in forward:
            forward["p"] = check_probability(1.0 if forward["p"] is None else forward["p"])
        return pre, forward, post

    def preprocess(self, inputs):
        return {"text": check_text(inputs)}

    def _forward(self, model_inputs, p=1.0, seed=None):
        texts = model_inputs["text"]
        texts = [texts] if isinstance(texts, str) else list(texts)
        results = []
        for text, spans in zip(texts, self.detector.detect_batch(texts)):
            table = self.table if self.table is not None else SubstitutionTable()
            spans = add_repeated_mentions(text, spans)
            new_text, records = apply_strategy(text, spans, self.strategy, p, document_rng(seed, text), table)
            private: dict[str, set[str]] = {}
            for r in records:
                private.setdefault(r.label, set()).add(text[r.start : r.end])
            privacy = {
                **self.strategy.privacy(p, private),
                "detector": self.detector.name,
                "caveat": RECALL_CAVEAT,
            }
            mapping = {text[r.start : r.end]: r.replacement for r in records if r.replaced}
            results.append(
                {
                    "text": new_text,
                    "spans": [r.to_dict() for r in records],
                    "privacy": privacy,
                    "mapping": mapping,
                    "restore": restore_entries(text, records),
                }
            )
        return {"result": results}

    def postprocess(self, model_outputs, return_mapping=False):
        result = model_outputs["result"]
        result = result[0] if isinstance(result, list) else result
        if not return_mapping:
            result = {k: v for k, v in result.items() if k not in ("mapping", "restore")}
        return result


def restore_entries(text: str, records) -> list[list]:
    """[start, end, surrogate, original] of every replaced unit, with offsets into the de-identified text."""
    entries, shift = [], 0
    for r in sorted(records, key=lambda r: r.start):
        if r.replaced:
            start = r.start + shift
            entries.append([start, start + len(r.replacement), r.replacement, text[r.start : r.end]])
            shift += len(r.replacement) - (r.end - r.start)
    return entries
