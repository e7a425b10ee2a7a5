"""`deid-ndd`: replace each detected span by the candidate that disturbs the rest of the text least
(Peng et al., section 4: the candidate with minimal Neighboring Distribution Divergence).

Candidates, k per span (default 8):
- ``mode="substitutive"`` (default): a phrase bank of the span's type: ``bank="faker"`` (default) realistic
  Faker surrogates of the type; ``"corpus"`` same-type spans detected in the *other* texts of the call
  (value dissociation: real values of other records move between records, so use it knowingly);
  ``"corpus+faker"`` half of each;
- ``mode="generative"``: the LM samples the span in context by pure sampling (causal: a continuation of the
  left context with as many words as the original; masked: as many masks as the original's tokens, filled
  left to right);
  an empty sample becomes ``[REDACTED]``.
All k candidates of a span are scored by one batched NDD pass. Output per text: ``text``; ``spans`` with the
chosen ``replacement``, its ``ndd`` and the ``rejected`` candidates with theirs; ``privacy``: the choice
depends on the original context, so there is no DP guarantee.
"""

from __future__ import annotations

import random
from typing import ClassVar

import torch
from transformers import Pipeline

from deid_hf.detect import get_detector
from deid_hf.errors import InputError
from deid_hf.ndd import NDD
from deid_hf.pipelines.base import SavableOptionsMixin, checked_input, given_options, items_of, run_items
from deid_hf.pipelines.substitution import document_rng
from deid_hf.policies import Policy
from deid_hf.privacy.report import PrivacyReport
from deid_hf.replace.full_entity import FullEntity
from deid_hf.replace.redact import REDACTED

PRIVACY = PrivacyReport(
    mechanism="none",
    dp=False,
    epsilon=None,
    guarantee="no DP guarantee (the replacement is chosen by its fit to the original context)",
    strategy="ndd",
)


class DeidNDDPipeline(SavableOptionsMixin, Pipeline):
    task_name = "deid-ndd"
    DEFAULTS: ClassVar[dict] = {
        "detector": "default",
        "mode": "substitutive",
        "bank": "faker",
        "k": 8,
        "mu": 0.9,
        "divergence": "kl",
        "weights": "distance",
        "scorer_options": None,
        "policy": Policy.HIPAA.value,
    }

    def __init__(self, model, *args, **kwargs):
        device_given = kwargs.get("device") is not None
        super().__init__(model, *args, **kwargs)
        detector, mode, bank, k, mu, divergence, weights, scorer_options, policy = (
            self.options[key] for key in self.DEFAULTS
        )
        if mode not in ("substitutive", "generative"):
            raise InputError(f"mode must be 'substitutive' or 'generative', got {mode!r}")
        if bank not in ("faker", "corpus", "corpus+faker"):
            raise InputError(f"bank must be 'faker', 'corpus' or 'corpus+faker', got {bank!r}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputError(f"k must be a positive integer, got {k!r}")
        self.detector = get_detector(
            detector,
            self.model,
            self.tokenizer,
            scorer_options,
            policy=policy,
            device=self.device if device_given else None,
        )
        self.ndd = NDD(self.model, self.tokenizer, mu=mu, divergence=divergence, weights=weights)
        self.mode, self.bank, self.k = mode, bank, k
        self.faker = FullEntity(consistent=False)

    def _sanitize_parameters(self, **kwargs):
        return tuple(given_options(self.task_name, kwargs, ("errors",), ("seed",), ()))

    def preprocess(self, inputs, errors="report"):
        return checked_input(inputs, errors)

    def _forward(self, model_inputs, seed=None):
        return {
            "result": run_items(items_of(model_inputs), lambda items: self._deidentify_items(items, seed))
        }

    def _deidentify_items(self, items: list[dict], seed) -> list[dict]:
        """Detection, candidates and NDD on the normalised texts; ``text`` is the original with the spans
        substituted."""
        texts = [item["text"] for item in items]
        detected = self.detector.detect_batch(texts)
        phrases = [{(s.label, text[s.start : s.end]) for s in spans} for text, spans in zip(texts, detected)]
        results = []
        for i, (item, text, spans) in enumerate(zip(items, texts, detected)):
            others = set().union(*phrases[:i], *phrases[i + 1 :])
            result = self._deidentify(text, spans, others, document_rng(seed, item["original"]))
            pieces, cursor = [], 0
            for record in result["spans"]:
                pieces += [item["original"][cursor : record["start"]], record["replacement"]]
                cursor = record["end"]
            results.append({**result, "text": "".join(pieces) + item["original"][cursor:]})
        return results

    def _deidentify(self, text, spans, others, rng: random.Random) -> dict:
        records, pieces, cursor = [], [], 0
        for span in spans:
            candidates = self._candidates(text, span, others, rng)
            scores = self.ndd.batch(text, span.start, span.end, candidates)
            best = min(range(len(candidates)), key=scores.__getitem__)
            records.append(
                {
                    "start": span.start,
                    "end": span.end,
                    "label": span.label,
                    "source": span.source,
                    "replacement": candidates[best],
                    "ndd": scores[best],
                    "rejected": [
                        {"candidate": c, "ndd": s}
                        for i, (c, s) in enumerate(zip(candidates, scores))
                        if i != best
                    ],
                }
            )
            pieces += [text[cursor : span.start], candidates[best]]
            cursor = span.end
        pieces.append(text[cursor:])
        return {
            "text": "".join(pieces),
            "spans": records,
            "privacy": PRIVACY.with_(detector=self.detector.name).to_dict(),
        }

    def _candidates(self, text, span, others, rng: random.Random) -> list[str]:
        """k candidates; ``others``: (label, phrase) of the other texts of the call, for the corpus bank."""
        original = text[span.start : span.end]
        if self.mode == "generative":
            return self._generate(text, span, rng)
        pool = []
        if self.bank != "faker":
            pool = sorted(phrase for label, phrase in others if label == span.label and phrase != original)
            rng.shuffle(pool)
            pool = pool[: self.k // 2 if self.bank == "corpus+faker" else self.k]
        while len(pool) < self.k:  # Faker fills the bank (and tops up a small corpus bank)
            surrogate = self.faker.surrogate(original, span.label, rng)
            if surrogate != original:
                pool.append(surrogate)
        return pool

    def _generate(self, text, span, rng: random.Random) -> list[str]:
        torch.manual_seed(rng.getrandbits(63))
        original = text[span.start : span.end]
        tok = self.tokenizer
        n_tokens = len(tok(original, add_special_tokens=False)["input_ids"])
        if self.ndd.kind == "causal":
            left = tok(text[: span.start].rstrip() or (tok.bos_token or ""), return_tensors="pt")
            with torch.no_grad():
                out = self.model.generate(
                    **left,
                    do_sample=True,
                    top_k=0,
                    max_new_tokens=n_tokens + 3,
                    num_return_sequences=self.k,
                    pad_token_id=tok.pad_token_id,
                )
            words = len(original.split())
            texts = tok.batch_decode(out[:, left["input_ids"].shape[1] :], skip_special_tokens=True)
            return [" ".join(t.split()[:words]) or REDACTED for t in texts]
        masked = text[: span.start] + " ".join([tok.mask_token] * n_tokens) + text[span.end :]
        ids = tok(masked, return_tensors="pt")["input_ids"].repeat(self.k, 1)
        positions = (ids[0] == tok.mask_token_id).nonzero().flatten().tolist()
        with torch.no_grad():
            for position in positions:
                logits = self.model(input_ids=ids).logits[:, position]
                ids[:, position] = torch.multinomial(torch.softmax(logits, -1), 1).squeeze(-1)
        return [tok.decode(row[positions]).strip() or REDACTED for row in ids]

    def postprocess(self, model_outputs):
        result = model_outputs["result"]
        result = result[0] if isinstance(result, list) else result
        if "error" in result:
            return {"text": None, "spans": [], "privacy": None, "error": result["error"]}
        return result
