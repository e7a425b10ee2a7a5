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
from deid_hf.pipelines.base import SavableOptionsMixin, checked_input, given_options, items_of, run_items
from deid_hf.text import model_text
from deid_hf.validate import check_probability


class DeidPFilterPipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-pfilter"
    DEFAULTS: ClassVar[dict] = {"scorer_options": None}

    def __init__(self, model, *args, **kwargs):
        super().__init__(model, *args, **kwargs)
        self.scorer = make_scorer(self.model, self.tokenizer, **(self.options["scorer_options"] or {}))

    def _sanitize_parameters(self, **kwargs):
        pre, forward, post = given_options(self.task_name, kwargs, ("context", "errors"), (), ("p",))
        if pre.get("context") is not None and not isinstance(pre["context"], str):
            raise InputError("context must be a string (the previous, already de-identified utterance)")
        if "p" in post:
            post["p"] = check_probability(1e-3 if post["p"] is None else post["p"], "threshold p")
        return pre, forward, post

    def preprocess(self, inputs, context=None, errors="report"):
        if isinstance(inputs, dict):  # {"text": ..., "context": ...}: a context per input
            inputs, context = inputs.get("text"), inputs.get("context", context)
        return checked_input(inputs, errors, context=model_text(context or ""))

    def _forward(self, model_inputs):
        return {"result": run_items(items_of(model_inputs), self._score)}

    def _score(self, items: list[dict]) -> list[dict]:
        """Scores of the normalised texts; ``word`` is the original's characters."""
        scores = self.scorer.score_batch([i["text"] for i in items], [i["context"] or None for i in items])
        return [
            {"words": [{**w.to_dict(), "word": item["original"][w.start : w.end]} for w in words]}
            for item, words in zip(items, scores)
        ]

    def postprocess(self, model_outputs, p=1e-3):
        result = model_outputs["result"]
        result = result[0] if isinstance(result, list) else result
        if "error" in result:
            return {"threshold": p, "words": [], "error": result["error"]}
        return {
            "threshold": p,
            "words": [{**w, "sensitive": w["scored"] and w["probability"] < p} for w in result["words"]],
        }
