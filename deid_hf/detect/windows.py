"""The token classifier's batch path without the transformers pipeline: all windows of a batch tokenised
in one fast-tokenizer call, model inputs built as arrays, and the "simple" aggregation decoded with numpy.

It reproduces transformers' ``TokenClassificationPipeline`` (``aggregation_strategy="simple"``, ``stride``):
consecutive windows of the length-sorted texts form the batches (padded to their longest window), the "O"
logit is lowered by the outside bias, and entity groups, their mean scores and the merge of overlapping
windows follow the pipeline's rules (tests/detect/test_windows.py compares the two). One difference: the
pipeline pads every window of a text to that text's longest window, and this path does not (a window
read alone, as the int8 graph reads them, has no padding). Padding is masked, so fp32 and PyTorch scores
agree within float error; the int8 graph's dynamic quantization scales its activations with the padding
included, so its scores move a little.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Window:
    """One model input of a text: token ids, token types, special-token mask and character offsets."""

    text: int
    ids: list[int]
    type_ids: list[int] | None
    special: list[int]
    offsets: list[tuple[int, int]]


@dataclass(frozen=True)
class LabelTable:
    """The model's labels as arrays, by label id: its tag (the label without "B-" / "I-"; the pipeline groups
    adjacent tokens of one tag), whether it begins an entity ("B-"), and the name an entity group that
    starts with it is given (the text after the label's first "-", as the pipeline names it)."""

    tag_of: np.ndarray
    begins: np.ndarray
    names: tuple[str, ...]
    #: whether a group that starts with the label is named "O" (such groups are dropped)
    outside: np.ndarray

    @classmethod
    def of(cls, id2label: dict) -> LabelTable:
        labels = [id2label[i] for i in range(len(id2label))]
        stripped = [label[2:] if label[:2] in ("B-", "I-") else label for label in labels]
        tags = list(dict.fromkeys(stripped))
        names = tuple(label.split("-", 1)[-1] for label in labels)
        return cls(
            tag_of=np.array([tags.index(t) for t in stripped]),
            begins=np.array([label.startswith("B-") for label in labels]),
            names=names,
            outside=np.array([name == "O" for name in names]),
        )


def tokenised_windows(tokenizer, texts: Sequence[str], stride: int | None) -> list[Window]:
    """Every window of ``texts`` from one tokenizer call, in text order; ``stride``: tokens shared by
    consecutive windows (None: one window per text, truncated, as the pipeline does without a stride)."""
    options = {"return_overflowing_tokens": True, "stride": stride} if stride else {}
    encoded = tokenizer(
        list(texts),
        truncation=bool(tokenizer.model_max_length and tokenizer.model_max_length > 0),
        return_special_tokens_mask=True,
        return_offsets_mapping=True,
        **options,
    )
    owners = encoded.get("overflow_to_sample_mapping") or range(len(texts))
    type_ids = encoded.get("token_type_ids") or [None] * len(encoded["input_ids"])
    windows = [
        Window(text, ids, types, special, offsets)
        for text, ids, types, special, offsets in zip(
            owners,
            encoded["input_ids"],
            type_ids,
            encoded["special_tokens_mask"],
            encoded["offset_mapping"],
        )
    ]
    return windows


def batch_inputs(windows: Sequence[Window], pad_id: int, multiple: int = 1) -> dict[str, np.ndarray]:
    """Model inputs of ``windows`` padded on the right to the longest, rounded up to a ``multiple`` of tokens
    (fewer distinct shapes: a GPU prepares its kernels once per shape); the attention mask covers each
    window's own tokens; token types where the tokenizer gives them."""
    width = -(-max(len(w.ids) for w in windows) // multiple) * multiple
    ids = np.full((len(windows), width), pad_id, dtype=np.int64)
    attention = np.zeros((len(windows), width), dtype=np.int64)
    types = np.zeros((len(windows), width), dtype=np.int64)
    for row, window in enumerate(windows):
        ids[row, : len(window.ids)] = window.ids
        attention[row, : len(window.ids)] = 1
        if window.type_ids is not None:
            types[row, : len(window.ids)] = window.type_ids
    inputs = {"input_ids": ids, "attention_mask": attention}
    return inputs if windows[0].type_ids is None else {**inputs, "token_type_ids": types}


def token_labels(logits: np.ndarray) -> list[np.ndarray]:
    """[scores, labels] of ``logits`` (... x labels, the outside bias already applied): each token's best
    label and that label's softmax score."""
    shifted_exp = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    scores = shifted_exp / shifted_exp.sum(axis=-1, keepdims=True)
    best = scores.argmax(axis=-1)
    return [np.take_along_axis(scores, best[..., None], axis=-1)[..., 0], best]


def window_entities(scores: np.ndarray, labels: np.ndarray, window: Window, table: LabelTable) -> list[tuple]:
    """(start, end, name, score) of the entity groups of one window, from each of its tokens' best label and
    that label's softmax score (`token_labels`): adjacent tokens of one tag grouped unless a token begins one
    ("B-"), a group named after its first token's label and scored by the mean of its tokens' scores;
    groups named "O" dropped."""
    kept = np.flatnonzero(np.asarray(window.special) == 0)
    if not len(kept):
        return []
    best = labels[kept]
    token_scores = scores[kept]
    tags = table.tag_of[best]
    starts_group = np.ones(len(kept), dtype=bool)
    starts_group[1:] = (tags[1:] != tags[:-1]) | table.begins[best][1:]
    starts = np.flatnonzero(starts_group)
    named = ~table.outside[best[starts]]
    if not named.any():
        return []
    stops = [*starts[1:].tolist(), len(kept)]
    means = group_means(token_scores, starts)
    offsets = window.offsets
    return [
        (
            int(offsets[kept[first]][0]),
            int(offsets[kept[stop - 1]][1]),
            table.names[best[first]],
            means[group],
        )
        for group, (first, stop) in enumerate(zip(starts.tolist(), stops))
        if named[group]
    ]


def group_means(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The mean of each group's scores, NaN skipped as ``np.nanmean`` skips it (a group runs from one start
    to the next), all groups at once and in the scores' dtype: equal to ``np.nanmean``'s within one
    rounding (it sums in another order)."""
    scored = ~np.isnan(scores)
    sums = np.add.reduceat(np.where(scored, scores, 0).astype(np.float64), starts)
    counts = np.add.reduceat(scored.astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):  # a group of NaN alone: NaN, as np.nanmean
        return (sums / counts).astype(scores.dtype)


def merged_windows(entities: list[tuple]) -> list[tuple]:
    """Entities of a text's overlapping windows, each overlap resolved as the pipeline does: by start, the
    longer entity (on a tie the higher score) kept."""
    if not entities:
        return entities
    entities = sorted(entities, key=lambda e: e[0])
    merged, previous = [], entities[0]
    for entity in entities:
        if previous[0] <= entity[0] < previous[1]:
            length, previous_length = entity[1] - entity[0], previous[1] - previous[0]
            if length > previous_length or (length == previous_length and entity[3] > previous[3]):
                previous = entity
        else:
            merged.append(previous)
            previous = entity
    merged.append(previous)
    return merged
