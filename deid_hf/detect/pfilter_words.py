"""The words the p-filter scores: word and punctuation tokens of a text, the LM tokens of each word, and
the stop-word pre-filter."""

from __future__ import annotations

import bisect
import re
from dataclasses import asdict, dataclass

from ..errors import InputError

_WORD = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")


@dataclass
class WordScore:
    start: int
    end: int
    word: str
    probability: float
    scored: bool  # False: punctuation or pre-filtered, probability fixed to 1

    def to_dict(self) -> dict:
        return asdict(self)


def split_words(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_word) for every word and punctuation token of ``text``."""
    return [(m.start(), m.end(), m.group()[0].isalnum() or m.group()[0] == "_") for m in _WORD.finditer(text)]


def encode_with_offsets(tokenizer, text: str, context: str | None):
    """Token ids of ``context + text`` with the character offset of each token in ``text`` (None: context)."""
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("the p-filter needs a fast tokenizer (offset mapping)")
    prefix = f"{context.strip()}\n" if context else ""
    enc = tokenizer(prefix + text, return_offsets_mapping=True, add_special_tokens=True)
    offsets = []
    for (s, e), special in zip(
        enc["offset_mapping"],
        tokenizer.get_special_tokens_mask(enc["input_ids"], already_has_special_tokens=True),
    ):
        offsets.append(
            None if special or e <= len(prefix) else (max(s, len(prefix)) - len(prefix), e - len(prefix))
        )
    return enc["input_ids"], offsets


def word_token_positions(words, offsets) -> list[list[int]]:
    """Token positions of each word: a token belongs to the first word its character range overlaps."""
    owners = [[] for _ in words]
    ends = [we for _, we, _ in words]
    for pos, off in enumerate(offsets):
        if off is None:
            continue
        i = bisect.bisect_right(ends, off[0])
        if i < len(words) and words[i][0] < off[1]:
            owners[i].append(pos)
    return owners


def prefiltered(text: str, words, i: int, stop: frozenset[str]) -> bool:
    """The pre-filter: words[i] is not scored when it is a stop word written as any word is ("the", and "The"
    at the start of a sentence, and "I"), unless it sits between two capitalised words, where it is part of
    a name ("Bank of England", "Reynolds and Williamson"). Stop words capitalised inside a sentence ("May",
    "Can Capital", "ON") are scored."""
    s, e, _ = words[i]
    word = text[s:e]
    if word.lower() not in stop:
        return False
    sentence_start = i == 0 or text[words[i - 1][0]] in ".!?:;" or "\n" in text[words[i - 1][1] : s]
    if not (word.islower() or word == "I" or sentence_start):
        return False
    capitalised = [
        0 <= j < len(words) and words[j][2] and text[words[j][0]].isupper() for j in (i - 1, i + 1)
    ]
    return not all(capitalised)
