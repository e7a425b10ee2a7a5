"""`deid-pfilter`: per word, LM probability and whether it is below the privacy threshold p (ZSTS).

Output per text: ``{"words": [{start, end, word, probability, scored, sensitive}], "threshold": p}``.
``context=`` (a string for the call, or per input ``{"text", "context"}`` dicts) is prepended as the paper
does for dialogues.
"""

from __future__ import annotations

from typing import ClassVar

from transformers import Pipeline

from deid_hf.detect.pfilter import make_scorer
from deid_hf.errors import InputError
from deid_hf.pipelines.base import SavableOptionsMixin, given_options
from deid_hf.pipelines.substitution import check_text
from deid_hf.validate import check_probability


class DeidPFilterPipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-pfilter"
    DEFAULTS: ClassVar[dict] = {"scorer_options": None}

    def __init__(self, model, *args, **kwargs):
        super().__init__(model, *args, **kwargs)
        self.scorer = make_scorer(self.model, self.tokenizer, **(self.options["scorer_options"] or {}))

    def _sanitize_parameters(self, **kwargs):
        pre, forward, post = given_options(self.task_name, kwargs, ("context",), (), ("p",))
        if pre.get("context") is not None and not isinstance(pre["context"], str):
            raise InputError("context must be a string (the previous, already de-identified utterance)")
        if "p" in post:
            post["p"] = check_probability(1e-3 if post["p"] is None else post["p"], "threshold p")
        return pre, forward, post

    def preprocess(self, inputs, context=None):
        if isinstance(inputs, dict):  # {"text": ..., "context": ...}: a context per input
            inputs, context = inputs.get("text"), inputs.get("context", context)
        return {"text": check_text(inputs), "context": context or ""}

    def _forward(self, model_inputs):
        texts, contexts = model_inputs["text"], model_inputs["context"]
        texts = [texts] if isinstance(texts, str) else list(texts)
        contexts = [contexts] if isinstance(contexts, str) else list(contexts)
        scores = self.scorer.score_batch(texts, [c or None for c in contexts])
        return {"words": [[w.to_dict() for w in words] for words in scores]}

    def postprocess(self, model_outputs, p=1e-3):
        words = model_outputs["words"]
        words = words[0] if words and isinstance(words[0], list) else words
        return {
            "threshold": p,
            "words": [{**w, "sensitive": w["scored"] and w["probability"] < p} for w in words],
        }
