"""ZSTS substitution (Albanese et al., "Substitution"), per word, with the pipeline's language model.

1. top-n candidates at the word's position: masked LM -> the distribution at a single mask in place of the
   word; causal LM -> the 2n most probable next tokens after the left context, re-ranked by
   log P(candidate | left) + log P(next ``right_tokens`` tokens of the text | left, candidate), top n kept;
2. candidates sorted by cosine similarity to the original word (LM input embeddings, the original's being
   the mean over its sub-words; or GloVe 50d);
3. uniform choice among the k most similar within cosine distance s; with fewer than k in the radius the
   word is redacted (``[REDACTED]``). Numbers become random digits of the same shape.
The surrogate depends on the original (similarity), and the table is consistent: no DP guarantee.
"""

from __future__ import annotations

import random

from ..errors import InputError
from .base import Strategy
from .redact import REDACTED
from .shape import random_digits_like


class ZSTSSubstitution(Strategy):
    name = "zsts"
    per_word = True
    needs_lm = True

    def __init__(
        self,
        model=None,
        tokenizer=None,
        n: int = 20,
        k: int = 3,
        s: float = 0.9,
        embeddings: str = "lm",
        right_tokens: int = 3,
    ):
        from ..lm import is_onnx, lm_kind

        if model is None or tokenizer is None:
            raise InputError("the zsts strategy needs the pipeline's language model and tokenizer")
        for name, value in (("n", n), ("k", k), ("right_tokens", right_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        if k > n:
            raise InputError(f"k ({k}) cannot exceed n ({n})")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 < s <= 2:
            raise InputError(f"radius s must be a cosine distance in (0, 2], got {s!r}")
        if embeddings not in ("lm", "glove"):
            raise InputError(f"embeddings must be 'lm' or 'glove', got {embeddings!r}")
        self.model, self.tokenizer = model, tokenizer
        self.n, self.k, self.s, self.right_tokens = n, k, float(s), right_tokens
        self.masked = lm_kind(model) == "masked"
        if embeddings == "lm" and is_onnx(model):
            raise InputError(
                "embeddings='lm' needs a PyTorch model; use embeddings='glove' with ONNX Runtime"
            )
        self.glove = None
        if embeddings == "glove":
            from ..models import load_glove

            self.glove = load_glove()
        self.consistent = True

    def no_guarantee_reason(self) -> str:
        return "ZSTS picks substitutes by similarity to the original word and keeps a consistent table"

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        return self.surrogate_in_context(original, 0, len(original), label, rng)

    def surrogate_in_context(self, text: str, start: int, end: int, label: str, rng: random.Random) -> str:
        original = text[start:end]
        if any(ch.isdigit() for ch in original):
            return random_digits_like(original, rng)
        ranked = self._similar(original, self._candidates(text, start, end))
        return rng.choice(ranked[: self.k]) if len(ranked) >= self.k else REDACTED

    def _candidates(self, text: str, start: int, end: int) -> list[int]:
        import torch

        from ..lm import model_device

        tok, model = self.tokenizer, self.model
        device = model_device(model)
        with torch.no_grad():
            if self.masked:
                enc = tok(text[:start] + tok.mask_token + text[end:], return_tensors="pt", truncation=True)
                position = int((enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0])
                enc = enc.to(device)
                logits = model(**enc).logits[0, position]
                return self._words(logits.topk(self.n * 3).indices.tolist())[: self.n]
            left = tok(text[:start].rstrip() or tok.bos_token or "", return_tensors="pt")["input_ids"].to(
                device
            )
            logits = model(input_ids=left, attention_mask=torch.ones_like(left)).logits[0, -1]
            pool = self._words(logits.topk(self.n * 4).indices.tolist(), leading_space=start > 0)[
                : 2 * self.n
            ]
            right = tok(text[end:], add_special_tokens=False)["input_ids"][: self.right_tokens]
            if not pool or not right:
                return pool[: self.n]
            first = torch.log_softmax(logits, -1)[pool]
            batch = torch.cat(
                [
                    left.repeat(len(pool), 1),
                    torch.tensor(pool, device=device)[:, None],
                    torch.tensor(right, device=device).repeat(len(pool), 1),
                ],
                dim=1,
            )
            logp = torch.log_softmax(model(input_ids=batch, attention_mask=torch.ones_like(batch)).logits, -1)
            offset = left.shape[1]
            follow = sum(logp[:, offset + i, right[i]] for i in range(len(right)))
            order = (first + follow).argsort(descending=True)
            return [pool[i] for i in order[: self.n].tolist()]

    def _words(self, ids: list[int], leading_space: bool = True) -> list[int]:
        """Token ids that decode to a whole alphabetic word (no sub-word continuation pieces)."""
        kept = []
        for i in ids:
            piece = self.tokenizer.convert_ids_to_tokens(i)
            word = self.tokenizer.decode([i]).strip()
            if not word.isalpha() or piece.startswith("##"):
                continue
            if not self.masked and leading_space and not piece.startswith(("Ġ", "▁")):
                continue
            kept.append(i)
        return kept

    def _similar(self, original: str, candidates: list[int]) -> list[str]:
        """Candidate words within cosine distance s of the original, most similar first."""
        import torch

        words = [self.tokenizer.decode([i]).strip() for i in candidates]
        pairs = [(w, i) for w, i in zip(words, candidates) if w.lower() != original.lower()]
        if not pairs:
            return []
        if self.glove is not None:
            if original.lower() not in self.glove:
                return []
            pairs = [(w, i) for w, i in pairs if w.lower() in self.glove]
            if not pairs:
                return []
            target = torch.tensor(self.glove[original.lower()])
            vectors = torch.stack([torch.tensor(self.glove[w.lower()]) for w, _ in pairs])
        else:
            table = self.model.get_input_embeddings().weight.detach()
            pieces = self.tokenizer(original, add_special_tokens=False)["input_ids"]
            target = table[pieces].mean(0)
            vectors = table[[i for _, i in pairs]]
        distance = 1 - torch.nn.functional.cosine_similarity(vectors, target[None], dim=-1)
        order = distance.argsort().tolist()
        return [pairs[i][0] for i in order if distance[i] <= self.s]
