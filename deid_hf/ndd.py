"""Neighboring Distribution Divergence (Peng et al., section 3).

For an edit replacing characters [start, end) of a text by ``replacement``, NDD is
    sum_k mu^min(|k - i|, |k - j|) * div(d'_k, d_k)
over the unedited neighbour tokens k (i..j: the edited tokens), where d_k / d'_k are the LM's predictive
distributions at k before / after the edit and div is KL(d' || d) (default) or the Hellinger distance.
``weights="mean"`` replaces mu^distance by 1/(number of neighbours): the "mean pooling" the paper uses in its
STS-B experiments (section 5.1.1, with Hellinger and RoBERTa-base).

- masked LM: d_k is the distribution at position k with token k masked, on both sides of the edit;
- causal LM (adaptation for the offline default): d_k is the next-token distribution predicting token k from
  everything left of it. Left of the edit nothing can change in a causal model, so only the tokens right of
  the edit contribute.

Neighbours are aligned by character offset: left tokens end at or before ``start`` (identical in both texts),
right tokens start at or after ``end`` in the old and at ``start + len(replacement)`` in the new text and are
paired when their offsets relative to the edit's end agree. Texts longer than the model window are cut to the
window centred on the edit. Only the ``max_neighbours`` nearest neighbours count (default 64; their weight
0.9^64 ~ 1e-3). `NDD.batch` scores k candidate replacements with the old distributions computed once and
all new ones in batched passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from .errors import InputError
from .lm import context_window, lm_kind, logprobs_at, model_device, pad_id


@dataclass
class _Encoded:
    ids: list[int]
    offsets: list[tuple[int, int] | None]


def _encode(tokenizer, text: str) -> _Encoded:
    enc = tokenizer(text, return_offsets_mapping=True)
    special = tokenizer.get_special_tokens_mask(enc["input_ids"], already_has_special_tokens=True)
    return _Encoded(
        enc["input_ids"], [None if s else tuple(o) for o, s in zip(enc["offset_mapping"], special)]
    )


def _neighbours(old: _Encoded, new: _Encoded, start: int, end: int, new_end: int):
    """(left, right): [(old position, new position, distance)] of the unedited tokens on each side."""
    left_old = [k for k, o in enumerate(old.offsets) if o and o[1] <= start]
    left_new = [k for k, o in enumerate(new.offsets) if o and o[1] <= start]
    left, right = [], []
    for n, (a, b) in enumerate(zip(reversed(left_old), reversed(left_new)), 1):
        if old.ids[a] == new.ids[b]:
            left.append((a, b, n))
    right_new = {
        (o[0] - new_end, o[1] - new_end): k for k, o in enumerate(new.offsets) if o and o[0] >= new_end
    }
    distance = 0
    for k, o in enumerate(old.offsets):
        if o and o[0] >= end:
            distance += 1
            b = right_new.get((o[0] - end, o[1] - end))
            if b is not None and new.ids[b] == old.ids[k]:
                right.append((k, b, distance))
    return left, right


def neighbour_weights(distances: Sequence[int], mu: float, weights: str = "distance") -> torch.Tensor:
    """a_k: mu^distance (section 3) or 1/N for each of the N neighbours ("mean", section 5.1.1)."""
    if weights == "mean":
        return torch.full((len(distances),), 1.0 / max(1, len(distances)))
    return torch.tensor([mu**d for d in distances])


def divergence(new_logp: torch.Tensor, old_logp: torch.Tensor, kind: str = "kl") -> torch.Tensor:
    """KL(new || old) or Hellinger distance between rows of log-probabilities."""
    if kind == "kl":
        return (new_logp.exp() * (new_logp - old_logp)).sum(-1)
    if kind == "hellinger":
        return torch.sqrt(0.5 * ((new_logp.mul(0.5).exp() - old_logp.mul(0.5).exp()) ** 2).sum(-1))
    raise InputError(f"divergence must be 'kl' or 'hellinger', got {kind!r}")


class NDD:
    """NDD scorer bound to one LM (``kind``: "masked" or "causal", detected from the model class)."""

    def __init__(
        self,
        model,
        tokenizer,
        mu: float = 0.9,
        divergence: str = "kl",
        batch_size: int = 32,
        max_neighbours: int | None = 64,
        weights: str = "distance",
    ):
        if not 0 < mu <= 1:
            raise InputError(f"mu must be in (0, 1], got {mu!r}")
        if divergence not in ("kl", "hellinger"):
            raise InputError(f"divergence must be 'kl' or 'hellinger', got {divergence!r}")
        if weights not in ("distance", "mean"):
            raise InputError(f"weights must be 'distance' or 'mean', got {weights!r}")
        self.kind = lm_kind(model)
        if self.kind == "masked" and tokenizer.mask_token_id is None:
            raise InputError("NDD with a masked LM needs a tokenizer with a mask token")
        self.model, self.tokenizer = model, tokenizer
        self.mu, self.divergence, self.batch_size = mu, divergence, batch_size
        self.max_neighbours = max_neighbours
        self.weights = weights

    @property
    def window(self) -> int:
        return context_window(self.model)

    def __call__(self, text: str, start: int, end: int, replacement: str) -> float:
        return self.batch(text, start, end, [replacement])[0]

    def batch(self, text: str, start: int, end: int, replacements: Sequence[str]) -> list[float]:
        """NDD of each candidate replacement of text[start:end]; old distributions computed once."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("NDD needs a non-empty text")
        if not 0 <= start <= end <= len(text):
            raise InputError(f"edit [{start}, {end}) is outside the text (length {len(text)})")
        if not replacements or not all(isinstance(r, str) for r in replacements):
            raise InputError("NDD needs at least one replacement string")
        old = _encode(self.tokenizer, text)
        text, start, end, old = self._fit_window(text, start, end, max(len(r) for r in replacements), old)
        news = [_encode(self.tokenizer, text[:start] + r + text[end:]) for r in replacements]
        plans = []
        for new, r in zip(news, replacements):
            left, right = _neighbours(old, new, start, end, start + len(r))
            pairs = sorted(right if self.kind == "causal" else left + right, key=lambda x: x[2])
            plans.append(pairs[: self.max_neighbours] if self.max_neighbours else pairs)
        if self.kind == "causal":
            return self._causal(old, news, plans)
        return self._masked(old, news, plans)

    def _fit_window(self, text: str, start: int, end: int, longest: int, old: _Encoded):
        """(text, start, end, encoding): unchanged, or for texts longer than the model window the part
        centred on the edit that fits (room is kept for special tokens and a replacement of ``longest``
        characters)."""
        offsets = [o for o in old.offsets if o]
        budget = self.window - 8 - longest
        if len(offsets) <= budget:
            return text, start, end, old
        if budget < 16 or end - start > budget:
            raise InputError("the edit or its replacement is too long for the model window")
        first = next((i for i, o in enumerate(offsets) if o[1] > start), len(offsets) - 1)
        lo = max(0, min(first - budget // 2, len(offsets) - budget))
        cs, ce = offsets[lo][0], max(offsets[lo + budget - 1][1], end)
        cut = text[cs:ce]
        return cut, start - cs, end - cs, _encode(self.tokenizer, cut)

    def _weights(self, pairs) -> torch.Tensor:
        return neighbour_weights([d for _, _, d in pairs], self.mu, self.weights)

    def _rows(self, batch: list[list[int]], positions: list[list[int]]) -> list[torch.Tensor]:
        """Log-probability rows (len(positions[b]), vocab) at ``positions[b]`` of each sequence b, in chunks
        of ``batch_size`` right-padded to one width; the output layer runs only at those positions."""
        pad = pad_id(self.tokenizer)
        width = max(len(x) for x in batch)
        out = []
        for i in range(0, len(batch), self.batch_size):
            chunk = positions[i : i + self.batch_size]
            out.extend(
                logprobs_at(self.model, batch[i : i + self.batch_size], chunk, pad, width).split(
                    [len(p) for p in chunk]
                )
            )
        return out

    def _causal(self, old, news, plans) -> list[float]:
        old_positions = sorted({a - 1 for pairs in plans for a, _, _ in pairs})
        rows = self._rows(
            [old.ids] + [n.ids for n in news],
            [old_positions] + [[b - 1 for _, b, _ in pairs] for pairs in plans],
        )
        old_row = dict(zip(old_positions, rows[0]))
        return [
            self._score(pairs, rows[c], torch.stack([old_row[a - 1] for a, _, _ in pairs]) if pairs else None)
            for c, pairs in enumerate(plans, 1)
        ]

    def _masked(self, old, news, plans) -> list[float]:
        mask = self.tokenizer.mask_token_id
        old_positions = sorted({a for pairs in plans for a, _, _ in pairs})
        jobs = [(self._masked_copy(old.ids, a, mask), a) for a in old_positions]
        jobs += [
            (self._masked_copy(new.ids, b, mask), b) for new, pairs in zip(news, plans) for _, b, _ in pairs
        ]
        if not jobs:
            return [0.0] * len(news)
        rows = [r[0] for r in self._rows([seq for seq, _ in jobs], [[pos] for _, pos in jobs])]
        old_row = dict(zip(old_positions, rows))
        cursor, scores = len(old_positions), []
        for pairs in plans:
            new_rows = rows[cursor : cursor + len(pairs)]
            cursor += len(pairs)
            scores.append(
                self._score(
                    pairs,
                    torch.stack(new_rows) if pairs else None,
                    torch.stack([old_row[a] for a, _, _ in pairs]) if pairs else None,
                )
            )
        return scores

    def _score(self, pairs, new_rows, old_rows) -> float:
        """sum_k a_k div(d'_k, d_k) over the aligned neighbours (0 when there are none)."""
        if not pairs:
            return 0.0
        div = divergence(new_rows, old_rows, self.divergence)
        return float((self._weights(pairs).to(div.device) * div).sum())

    @staticmethod
    def _masked_copy(ids: list[int], position: int, mask: int) -> list[int]:
        copy = list(ids)
        copy[position] = mask
        return copy


def reference_ndd(
    model,
    tokenizer,
    text: str,
    start: int,
    end: int,
    replacement: str,
    mu: float = 0.9,
    kind: str = "kl",
    causal: bool = False,
    weights: str = "distance",
) -> float:
    """Slow, obviously-correct NDD: one unbatched forward per neighbour and side (tests only)."""
    old = _encode(tokenizer, text)
    new = _encode(tokenizer, text[:start] + replacement + text[end:])
    total = 0.0
    left, right = _neighbours(old, new, start, end, start + len(replacement))
    pairs = right if causal else left + right
    device = model_device(model)
    for (a, b, _), weight in zip(pairs, neighbour_weights([d for _, _, d in pairs], mu, weights).tolist()):
        with torch.no_grad():
            if causal:
                p_old = torch.log_softmax(
                    model(input_ids=torch.tensor([old.ids[:a]], device=device)).logits[0, -1], -1
                )
                p_new = torch.log_softmax(
                    model(input_ids=torch.tensor([new.ids[:b]], device=device)).logits[0, -1], -1
                )
            else:
                seq_old, seq_new = list(old.ids), list(new.ids)
                seq_old[a] = seq_new[b] = tokenizer.mask_token_id
                p_old = torch.log_softmax(
                    model(input_ids=torch.tensor([seq_old], device=device)).logits[0, a], -1
                )
                p_new = torch.log_softmax(
                    model(input_ids=torch.tensor([seq_new], device=device)).logits[0, b], -1
                )
        total += weight * float(divergence(p_new, p_old, kind))
    return total


__all__ = ["NDD", "divergence", "reference_ndd"]
