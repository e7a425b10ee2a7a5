"""`deid-paraphrase`: paraphrase each sentence with clamped-logit temperature sampling (an exponential
mechanism), prompting the causal LM in the "source => paraphrase" format of Witteveen & Andrews.

Output: ``paraphrase`` (the sentences' paraphrases joined), ``sentences`` (source, paraphrase, tokens,
epsilon), ``privacy`` (epsilon per token, total = sum over sentences of epsilon * tokens, clamp bounds,
temperature). Clamp bounds: ``bounds=(low, high)`` if given, else the model config's ``deid_hf_clamp``
(stored by calibration or fine-tuning), else calibrated on deid-hf's bundled example texts. Sampling uses
torch's generator seeded from ``secrets`` per call, or from ``seed=`` for reproducible runs (same inputs and
batch size give the same output).
"""

from __future__ import annotations

import re
import secrets
from typing import ClassVar

import torch
from transformers import Pipeline

from deid_hf.errors import InputError
from deid_hf.lm import model_device
from deid_hf.paraphrase import ClampBounds, dp_generate, prompt
from deid_hf.paraphrase.mechanism import NON_DP_OPTIONS
from deid_hf.pipelines.base import SavableOptionsMixin, checked_input, given_options, items_of, run_items

#: per-token epsilon when none is given: the smallest on the benchmark grid where the default paraphraser
#: keeps meaning (README, "Measured here"); a nominal guarantee per sentence, say so to users
DEFAULT_EPSILON = 75.0
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


class DeidParaphrasePipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-paraphrase"
    hub_pipeline_tag = "text-generation"
    DEFAULTS: ClassVar[dict] = {"bounds": None}

    def __init__(self, model, *args, **kwargs):
        super().__init__(model, *args, **kwargs)
        from deid_hf.lm import lm_kind

        if lm_kind(self.model) != "causal":
            raise InputError("deid-paraphrase needs a causal language model")
        from deid_hf.paths import bundled_examples

        bounds = self.options["bounds"]
        self.bounds = (
            ClampBounds(*bounds)
            if bounds
            else ClampBounds.stored(self.model)
            or ClampBounds.calibrate(self.model, self.tokenizer, [e["text"] for e in bundled_examples()])
        )
        self.options["bounds"] = [self.bounds.low, self.bounds.high]
        newline = self.tokenizer("\n", add_special_tokens=False)["input_ids"]
        self.stop_ids = sorted({self.tokenizer.eos_token_id, *newline[-1:]} - {None})

    def _sanitize_parameters(self, **kwargs):
        """``epsilon=None`` with ``allow_non_dp=True``: plain sampling, no guarantee (the reference point)."""
        return tuple(
            given_options(
                self.task_name,
                kwargs,
                ("errors",),
                ("epsilon", "max_new_tokens", "allow_non_dp", "seed", *NON_DP_OPTIONS),
                (),
            )
        )

    def preprocess(self, inputs, errors="report"):
        return checked_input(inputs, errors)

    def _forward(
        self,
        model_inputs,
        epsilon=DEFAULT_EPSILON,
        max_new_tokens=None,
        allow_non_dp=False,
        seed=None,
        **generate_options,
    ):
        """Every sentence of every text in the batch is sampled in one left-padded ``generate`` call."""
        options = (epsilon, max_new_tokens, allow_non_dp, seed, generate_options)
        return {"result": run_items(items_of(model_inputs), lambda items: self._paraphrase(items, *options))}

    def _paraphrase(self, items, epsilon, max_new_tokens, allow_non_dp, seed, generate_options) -> list[dict]:
        """The normalised texts (`deid_hf.text.model_text`) are split and prompted."""
        max_new_tokens = 48 if max_new_tokens is None else max_new_tokens
        texts = [item["text"] for item in items]
        sources = [split_sentences(text) for text in texts]
        flat = [source for sentences in sources for source in sentences]
        ids, report = self.sample(flat, epsilon, max_new_tokens, seed, allow_non_dp, **generate_options)
        rows = iter(ids)
        return [
            self._assemble([(source, next(rows)) for source in sentences], epsilon, report)
            for sentences in sources
        ]

    def sample(self, sources, epsilon, max_new_tokens, seed=None, allow_non_dp=False, **generate_options):
        """(generated ids without the prompts, `PrivacyReport`) of each source sentence, prompted and
        sampled with the mechanism in one left-padded ``generate`` call, seeded by ``seed`` (default:
        ``secrets``)."""
        prompts = [prompt(source) for source in sources]
        enc = self.tokenizer(prompts, return_tensors="pt", padding=True, padding_side="left")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(secrets.randbits(63) if seed is None else seed)
            return dp_generate(
                self.model,
                dict(enc.to(model_device(self.model))),
                epsilon_token=epsilon,
                bounds=self.bounds,
                max_new_tokens=max_new_tokens,
                allow_non_dp=allow_non_dp,
                eos_token_id=self.stop_ids,
                pad_token_id=self.tokenizer.pad_token_id,
                **generate_options,
            )

    def _assemble(self, generated, epsilon, report) -> dict:
        sentences = []
        for source, row in generated:
            stops = torch.isin(row, torch.tensor(self.stop_ids, device=row.device)).nonzero()
            tokens = int(stops[0, 0]) + 1 if len(stops) else len(row)
            sentences.append(
                {
                    "source": source,
                    "paraphrase": self.tokenizer.decode(row[:tokens], skip_special_tokens=True).strip(),
                    "tokens": tokens,
                    "epsilon": epsilon * tokens if report.dp else None,
                }
            )
        dp, tokens = report.dp, sum(s["tokens"] for s in sentences)
        privacy = report.with_(
            epsilon=epsilon * tokens if dp else None,
            guarantee=report.guarantee
            + (f"; this text: epsilon = {epsilon * tokens:g} over {tokens} tokens" if dp else ""),
            details={**report.details, "tokens": tokens},
        )
        return {
            "paraphrase": " ".join(s["paraphrase"] for s in sentences),
            "sentences": sentences,
            "privacy": privacy.to_dict(),
        }

    def postprocess(self, model_outputs):
        result = model_outputs["result"]
        result = result[0] if isinstance(result, list) else result
        if "error" in result:
            return {"paraphrase": None, "sentences": [], "privacy": None, "error": result["error"]}
        return result
