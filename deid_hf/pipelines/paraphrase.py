"""`deid-paraphrase`: paraphrase each sentence with clamped-logit temperature sampling (an exponential
mechanism), prompting the causal LM in the "source => paraphrase" format of Witteveen & Andrews.

Output: ``paraphrase`` (the sentences' paraphrases joined), ``sentences`` (source, paraphrase, tokens,
epsilon), ``privacy`` (epsilon per token, total = sum over sentences of epsilon * tokens, clamp bounds,
temperature). Bounds come from the model config (``deid_hf_clamp``, stored by calibration or fine-tuning),
else from ``bounds=(low, high)``, else they are calibrated on deid-hf's bundled example texts.
"""

from __future__ import annotations

import re
from typing import ClassVar

import torch
from transformers import Pipeline

from deid_hf.errors import InputError
from deid_hf.paraphrase import ClampBounds, dp_generate
from deid_hf.pipelines.base import SavableOptionsMixin
from deid_hf.pipelines.substitution import check_text

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
PROMPT = "{source} =>"


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def bundled_texts() -> list[str]:
    import json
    from importlib import resources

    lines = resources.files("deid_hf").joinpath("data/examples.jsonl").read_text().splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


class DeidParaphrasePipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-paraphrase"
    DEFAULTS: ClassVar[dict] = {"bounds": None}

    def __init__(self, model, *args, **kwargs):
        super().__init__(model, *args, **kwargs)
        from deid_hf.detect.pfilter import lm_kind

        if lm_kind(self.model) != "causal":
            raise InputError("deid-paraphrase needs a causal language model")
        bounds = self.options["bounds"]
        self.bounds = (ClampBounds(*bounds) if bounds else ClampBounds.stored(self.model)
                       or ClampBounds.calibrate(self.model, self.tokenizer, bundled_texts()))
        self.options["bounds"] = [self.bounds.low, self.bounds.high]
        newline = self.tokenizer("\n", add_special_tokens=False)["input_ids"]
        self.stop_ids = sorted({self.tokenizer.eos_token_id, *newline[-1:]} - {None})

    def _sanitize_parameters(self, epsilon=None, max_new_tokens=None, allow_non_dp=None, **generate_options):
        forward = {"epsilon": 50.0 if epsilon is None else epsilon,
                   "max_new_tokens": 48 if max_new_tokens is None else max_new_tokens,
                   "allow_non_dp": bool(allow_non_dp), "generate_options": generate_options}
        return {}, forward, {}

    def preprocess(self, inputs):
        return {"text": check_text(inputs)}

    def _forward(self, model_inputs, epsilon, max_new_tokens, allow_non_dp, generate_options):
        texts = model_inputs["text"]
        texts = [texts] if isinstance(texts, str) else list(texts)
        return {"result": [self._paraphrase(t, epsilon, max_new_tokens, allow_non_dp, generate_options)
                           for t in texts]}

    def _paraphrase(self, text, epsilon, max_new_tokens, allow_non_dp, generate_options) -> dict:
        sentences, report = [], None
        for source in split_sentences(text):
            enc = self.tokenizer(PROMPT.format(source=source), return_tensors="pt")
            ids, report = dp_generate(self.model, dict(enc), epsilon_token=epsilon, bounds=self.bounds,
                                      max_new_tokens=max_new_tokens, allow_non_dp=allow_non_dp,
                                      eos_token_id=self.stop_ids, pad_token_id=self.tokenizer.pad_token_id,
                                      **generate_options)
            row = ids[0]
            stops = torch.isin(row, torch.tensor(self.stop_ids)).nonzero()
            tokens = int(stops[0, 0]) + 1 if len(stops) else len(row)
            sentences.append({"source": source, "paraphrase": self.tokenizer.decode(row[:tokens],
                                                                                    skip_special_tokens=True).strip(),
                              "tokens": tokens, "epsilon": epsilon * tokens if report["dp"] else None})
        dp = report["dp"]
        privacy = {**{k: report[k] for k in ("dp", "mechanism", "clamp", "sensitivity", "temperature",
                                             "epsilon_per_token", "max_new_tokens")},
                   "tokens": sum(s["tokens"] for s in sentences),
                   "epsilon_total": sum(s["epsilon"] for s in sentences) if dp else None,
                   "guarantee": report["guarantee"] + (f"; this text: epsilon = "
                                                       f"{sum(s['epsilon'] for s in sentences):g} over "
                                                       f"{sum(s['tokens'] for s in sentences)} tokens" if dp else "")}
        return {"paraphrase": " ".join(s["paraphrase"] for s in sentences), "sentences": sentences,
                "privacy": privacy}

    def postprocess(self, model_outputs):
        result = model_outputs["result"]
        return result[0] if isinstance(result, list) else result
