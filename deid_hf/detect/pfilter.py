"""ZSTS privacy-threshold filtering (Albanese et al., "Privacy-threshold filtering"): a word whose LM
probability in context is below p is sensitive.

Words are the text's word tokens (``\\w+`` joined by inner ``-'.``); punctuation tokens are kept apart and
never scored (probability 1). A word's sub-word tokens are the LM tokens that start inside it.

- `CausalWordScorer` (offline default): P(word) = prod_j P(t_j | everything left of t_j), all from one
  forward pass per document window (the left context is all a causal LM can use).
- `MaskedWordScorer` (canonical): mask the whole word, then unmask its sub-words left to right;
  P(word) = prod_j P(t_j | t_<j of the word unmasked, t_>=j masked). Three paths with one definition of the
  model input (the whole text, or for texts longer than the model window the window centred on the word):
  ``naive`` (one forward per masked copy), ``exact`` (the same copies, batched: equal within float error),
  ``fast`` (approximate: windows of ``fast_window`` tokens, words at least ``spacing`` tokens apart masked in
  the same copy, a word's sub-words all read from the one copy that masks the whole word instead of
  unmasked one by one, and the stop-word pre-filter on by default).
Either scorer takes ``prefilter=True`` (spaCy's English stop words) or a set of such words, skipped by the
rule of `prefiltered` (stop words inside names and capitalised inside a sentence are still scored).
Both accept ``context`` (e.g. the previous, already de-identified utterance), prepended to the text.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence

import torch

from ..errors import InputError
from ..lm import context_window, forward_logprobs, lm_kind, logprobs_at, pad_id
from ..spans import Span
from ..validate import check_probability
from .base import Detector
from .lexicon import stop_words
from .ner import parse
from .pfilter_words import WordScore, encode_with_offsets, prefiltered, split_words, word_token_positions

__all__ = [
    "CausalWordScorer",
    "MaskedWordScorer",
    "PFilterDetector",
    "WordScore",
    "WordScorer",
    "make_scorer",
    "prefiltered",
    "split_words",
    "stop_words",
]


class WordScorer(ABC):
    """One interface for both LM kinds: per-word probabilities of a batch of texts."""

    def __init__(
        self,
        model,
        tokenizer,
        batch_size: int = 32,
        lowercase: bool = False,
        prefilter: frozenset[str] | bool = False,
    ):
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.lowercase = lowercase
        self.prefilter = stop_words() if prefilter is True else frozenset(prefilter or ())

    def _targets(self, text: str, words, owners) -> list[int]:
        """Indices of the words to score: words with LM tokens that the pre-filter does not skip."""
        return [
            i
            for i, ((_, _, is_word), own) in enumerate(zip(words, owners))
            if is_word and own and not prefiltered(text, words, i, self.prefilter)
        ]

    @property
    def window(self) -> int:
        return context_window(self.model)

    def score(self, text: str, context: str | None = None) -> list[WordScore]:
        return self.score_batch([text], [context])[0]

    @abstractmethod
    def score_batch(
        self, texts: Sequence[str], contexts: Sequence[str | None] | None = None
    ) -> list[list[WordScore]]: ...

    def _prepare(self, text: str, context: str | None):
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                "cannot score an empty text"
                if isinstance(text, str)
                else f"expected a string, got {type(text).__name__}"
            )
        words = split_words(text)
        shown = text.lower() if self.lowercase else text
        ctx = context.lower() if (context and self.lowercase) else context
        ids, offsets = encode_with_offsets(self.tokenizer, shown, ctx)
        return words, ids, word_token_positions(words, offsets)


def _read_logprobs(
    model,
    batch: list[list[int]],
    reads: list[list[tuple[int, int]]],
    pad: int,
    all_positions: bool = False,
) -> list[list[float]]:
    """log P(target) at each (position, target) of each sequence."""
    logprobs = logprobs_at(
        model, batch, [[pos for pos, _ in r] for r in reads], pad, all_positions=all_positions
    )
    targets = torch.tensor([t for r in reads for _, t in r], dtype=torch.long, device=logprobs.device)
    values = logprobs.gather(1, targets[:, None])[:, 0].tolist()
    out, cursor = [], 0
    for r in reads:
        out.append(values[cursor : cursor + len(r)])
        cursor += len(r)
    return out


class CausalWordScorer(WordScorer):
    def __init__(
        self,
        model,
        tokenizer,
        batch_size: int = 16,
        lowercase: bool = False,
        prefilter=False,
        overlap: int = 128,
    ):
        super().__init__(model, tokenizer, batch_size, lowercase, prefilter)
        self.overlap = overlap

    def token_logprobs(self, ids: list[int]) -> list[float]:
        """log P(ids[i] | ids[:i]) for every position (0 for the first), in windows with left overlap."""
        return self._token_logprobs_batch([ids])[0]

    def _token_logprobs_batch(self, all_ids: list[list[int]]) -> list[list[float]]:
        window, step = self.window, self.window - self.overlap
        jobs = []  # (doc, window start, ids)
        for d, ids in enumerate(all_ids):
            start = 0
            while True:
                jobs.append((d, start, ids[start : start + window]))
                if start + window >= len(ids):
                    break
                start += step
        out = [[0.0] * len(ids) for ids in all_ids]
        pad = pad_id(self.tokenizer)
        jobs.sort(
            key=lambda job: (len(job[2]), job[0], job[1])
        )  # similar lengths share a batch: less padding
        for b in range(0, len(jobs), self.batch_size):
            chunk = jobs[b : b + self.batch_size]
            logprobs = forward_logprobs(self.model, [c[2] for c in chunk], pad)
            for row, (d, start, ids) in enumerate(chunk):
                # a window fills the positions after its overlap with the previous one (the first: all)
                for local in range(1 if start == 0 else self.overlap, len(ids)):
                    out[d][start + local] = logprobs[row, local - 1, ids[local]].item()
        return out

    def score_batch(self, texts, contexts=None):
        contexts = contexts or [None] * len(texts)
        prepared = [self._prepare(t, c) for t, c in zip(texts, contexts)]
        logprobs = self._token_logprobs_batch([ids for _, ids, _ in prepared])
        results = []
        for text, (words, _, owners), lp in zip(texts, prepared, logprobs):
            targets = set(self._targets(text, words, owners))
            results.append(
                [
                    WordScore(
                        s,
                        e,
                        text[s:e],
                        math.exp(sum(lp[p] for p in own)) if i in targets else 1.0,
                        i in targets,
                    )
                    for i, ((s, e, _), own) in enumerate(zip(words, owners))
                ]
            )
        return results


class MaskedWordScorer(WordScorer):
    def __init__(
        self,
        model,
        tokenizer,
        batch_size: int = 32,
        lowercase: bool = False,
        path: str = "exact",
        fast_window: int = 64,
        spacing: int = 12,
        prefilter: frozenset[str] | bool | None = None,
    ):
        super().__init__(
            model, tokenizer, batch_size, lowercase, path == "fast" if prefilter is None else prefilter
        )
        if tokenizer.mask_token_id is None:
            raise InputError("the masked-LM p-filter needs a tokenizer with a mask token")
        if path not in ("naive", "exact", "fast"):
            raise InputError(f"path must be 'naive', 'exact' or 'fast', got {path!r}")
        self.path = path
        self.fast_window = fast_window
        self.spacing = spacing

    def _groups(self, owners, targets, n: int):
        """(window, words masked together). naive/exact: one word per group, the model window around it.
        fast: the text cut into chunks of ``fast_window`` tokens (a quarter of it context on each side);
        within a chunk, words whose first tokens are >= ``spacing`` apart share a group."""
        if self.path != "fast":
            return [(self._window_bounds(n, owners[w], self.window), [w]) for w in targets]
        margin = self.fast_window // 4
        core = self.fast_window - 2 * margin
        chunks: dict[int, list[list[int]]] = {}
        for w in targets:
            rounds = chunks.setdefault(owners[w][0] // core, [])
            for r in rounds:  # greedy: join the first round whose words are all far enough away
                if all(abs(owners[w][0] - owners[o][0]) >= self.spacing for o in r):
                    r.append(w)
                    break
            else:
                rounds.append([w])
        groups = []
        for chunk, rounds in chunks.items():
            for group in rounds:
                lo = max(0, chunk * core - margin)
                hi = min(n, max(chunk * core + core + margin, max(owners[w][-1] for w in group) + 1))
                groups.append(((lo, hi), group))
        return groups

    def _jobs(self, ids, owners, targets):
        """Masked copies: (input ids, [(position in copy, target id, word index)]). naive/exact: copy j of
        a word masks its sub-words j.. and reads sub-word j (iterative unmasking). fast: one copy per group
        masks every sub-word of its words and reads them all, P(word) ~ prod_j P(t_j | whole word masked)."""
        mask = self.tokenizer.mask_token_id
        jobs = []
        for (lo, hi), group in self._groups(owners, targets, len(ids)):
            if self.path == "fast":
                masked = list(ids)
                for w in group:
                    for p in owners[w]:
                        masked[p] = mask
                jobs.append((masked[lo:hi], [(p - lo, ids[p], w) for w in group for p in owners[w]]))
                continue
            for j in range(max(len(owners[w]) for w in group)):
                masked = list(ids)
                reads = []
                for w in group:
                    own = owners[w]
                    if j < len(own):
                        for p in own[j:]:
                            masked[p] = mask
                        reads.append((own[j] - lo, ids[own[j]], w))
                jobs.append((masked[lo:hi], reads))
        return jobs

    @staticmethod
    def _window_bounds(n: int, positions: list[int], window: int) -> tuple[int, int]:
        """The ``window`` tokens centred on ``positions`` (all of them when the text fits)."""
        if n <= window:
            return 0, n
        centre = (min(positions) + max(positions)) // 2
        lo = max(0, min(centre - window // 2, n - window))
        return lo, lo + window

    def word_logprobs(self, documents) -> list[dict[int, float]]:
        """log P(word) of the ``targets`` of each prepared document (ids, owners, targets), all documents'
        masked copies batched together (naive: one at a time, full logits)."""
        all_jobs = [
            (d, job)
            for d, (ids, owners, targets) in enumerate(documents)
            for job in self._jobs(ids, owners, targets)
        ]
        logp = [dict.fromkeys(targets, 0.0) for _, _, targets in documents]
        size = 1 if self.path == "naive" else self.batch_size
        pad = pad_id(self.tokenizer)
        all_jobs.sort(key=lambda job: len(job[1][0]))  # copies of similar length share a batch: less padding
        for b in range(0, len(all_jobs), size):
            chunk = all_jobs[b : b + size]
            values = _read_logprobs(
                self.model,
                [job[0] for _, job in chunk],
                [[(pos, target) for pos, target, _ in job[1]] for _, job in chunk],
                pad,
                all_positions=self.path == "naive",
            )
            for (d, (_, reads)), read_values in zip(chunk, values):
                for (_, _, w), value in zip(reads, read_values):
                    logp[d][w] += value
        return logp

    def score_batch(self, texts, contexts=None):
        contexts = contexts or [None] * len(texts)
        prepared = [self._prepare(t, c) for t, c in zip(texts, contexts)]
        targets = [self._targets(text, words, owners) for text, (words, _, owners) in zip(texts, prepared)]
        logp = self.word_logprobs([(ids, owners, t) for (_, ids, owners), t in zip(prepared, targets)])
        return [
            [
                WordScore(s, e, texts[d][s:e], math.exp(logp[d][i]) if i in logp[d] else 1.0, i in logp[d])
                for i, (s, e, _) in enumerate(words)
            ]
            for d, (words, _, _) in enumerate(prepared)
        ]


def make_scorer(model, tokenizer, **options) -> WordScorer:
    """`MaskedWordScorer` for a model with a fill-mask head, `CausalWordScorer` for a causal LM."""
    if lm_kind(model) == "masked":
        return MaskedWordScorer(model, tokenizer, **options)
    options.pop("path", None)
    return CausalWordScorer(
        model,
        tokenizer,
        **{k: v for k, v in options.items() if k in ("batch_size", "lowercase", "prefilter", "overlap")},
    )


class PFilterDetector(Detector):
    """Words with LM probability below ``threshold`` become spans (label OTHER, source ``pfilter``).

    With ``nlp`` (a spaCy pipeline with a tagger) only words that spaCy tags as proper nouns (PROPN) are
    candidates: the rare names, places and companies an NER model misses are improbable proper nouns, while
    improbable common words (the p-filter's false positives) are left alone.
    """

    name = "pfilter"

    def __init__(self, scorer: WordScorer, threshold: float = 1e-3, nlp=None):
        self.scorer = scorer
        self.threshold = check_probability(threshold, "threshold p")
        self.nlp = nlp

    def detect(self, text: str) -> list[Span]:
        return self.detect_batch([text])[0]

    def detect_batch(self, texts):
        texts = list(texts)
        scored = self.scorer.score_batch(texts)
        if self.nlp is None:
            allowed = [None] * len(texts)
        else:
            allowed = [
                [(t.idx, t.idx + len(t.text)) for t in doc if t.pos_ == "PROPN"]
                for doc in parse(self.nlp, tuple(texts))
            ]
        return [
            [
                Span(w.start, w.end, "OTHER", 1.0 - w.probability, self.name)
                for w in words
                if w.scored
                and w.probability < self.threshold
                and (nouns is None or any(a < w.end and w.start < b for a, b in nouns))
            ]
            for words, nouns in zip(scored, allowed)
        ]
