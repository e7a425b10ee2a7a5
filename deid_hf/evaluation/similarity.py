"""Sentence similarity with the offline MiniLM encoder (mean pooling, as sentence-transformers does)."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class SentenceEncoder:
    def __init__(self, name: str = "minilm", batch_size: int = 64):
        from ..models import load_encoder

        self.model, self.tokenizer = load_encoder(name)
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> torch.Tensor:
        """L2-normalised mean-pooled embeddings, one row per text."""
        rows = []
        for i in range(0, len(texts), self.batch_size):
            enc = self.tokenizer(
                list(texts[i : i + self.batch_size]),
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            with torch.no_grad():
                hidden = self.model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            rows.append(torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1))
        return torch.cat(rows)

    def cosine(self, a: Sequence[str], b: Sequence[str]) -> list[float]:
        """Cosine similarity of each pair (a[i], b[i])."""
        return (self.encode(a) * self.encode(b)).sum(-1).tolist()
