"""Case restoration of ALL-CAPS text, offset-preserving, so that case-sensitive detectors (spaCy's tagger
and NER, the p-filter's LM) see ordinary casing instead of a capitalised word everywhere.

A line is restored when at least ``CAPS_SHARE`` of its (at least ``MIN_LETTERS``) letters are upper case.
Each word of such a line becomes: Title case if it is a known person name of 3+ letters
(`lexicon.is_name_word`; "HO", "LE" stay abbreviations); lower
case if it is a common English word (`lexicon.is_common_word`; words of at most 4 letters only when very
frequent); unchanged (upper case) if it is a single letter, has at most 4 letters or looks like an
abbreviation (`lexicon.is_abbreviation`); lower case otherwise (a rare word: in these notes mostly a drug,
a clinical term or a typo; rare names are left to the context rules). The
first letter of a sentence (line start or after ``.!?``) is then upper case. Only characters whose case
mapping keeps their length are changed, so every character offset of the copy is the original's.
"""

from __future__ import annotations

import bisect
import functools
import re

from .lexicon import is_abbreviation, is_common_word, is_name_word, zipf
from .text_shape import (
    ALL_CAPS_MIN_LETTERS,
    ALL_CAPS_SHARE,
    ASCII_WORD_WITH_APOSTROPHES,
    SHORT_WORD_LOWERCASE_ZIPF,
    caps_share,
    is_all_caps,
)

# the thresholds' former names (`text_shape` names what each decides)
CAPS_SHARE = ALL_CAPS_SHARE
MIN_LETTERS = ALL_CAPS_MIN_LETTERS
SHORT_COMMON_ZIPF = SHORT_WORD_LOWERCASE_ZIPF
__all__ = ["CAPS_SHARE", "MIN_LETTERS", "caps_share", "in_caps_line", "is_all_caps", "restore_case"]


def _cased(word: str) -> str:
    if len(word) > 2 and is_name_word(word):
        return word[0] + word[1:].lower()
    if len(word) > 1 and is_common_word(word) and (len(word) > 4 or zipf(word) >= SHORT_WORD_LOWERCASE_ZIPF):
        return word.lower()
    if len(word) <= 4 or is_abbreviation(word):
        return word
    return word.lower()


@functools.lru_cache(maxsize=8)  # asked once per word of a document: computed once per document
def _caps_lines(text: str) -> tuple[list[int], list[int]]:
    starts, ends, pos = [], [], 0
    for line in text.split("\n"):
        if is_all_caps(line):
            starts.append(pos)
            ends.append(pos + len(line))
        pos += len(line) + 1
    return starts, ends


def in_caps_line(text: str, position: int) -> bool:
    """Is ``text[position]`` on a line that `restore_case` restores (an ALL-CAPS line)."""
    starts, ends = _caps_lines(text)
    i = bisect.bisect_right(starts, position) - 1
    return i >= 0 and position < ends[i]


def restore_line(line: str) -> str:
    out = list(line)
    for match in ASCII_WORD_WITH_APOSTROPHES.finditer(line):
        word = match.group()
        new = _cased(word)
        out[match.start() : match.end()] = [
            n if n.isascii() and len(n) == 1 else o for o, n in zip(word, new)
        ]
    text = "".join(out)
    # sentence starts: the first letter of the line and the first after . ! ? (and whitespace)
    return re.sub(r"(^\W*|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def restore_case(text: str) -> str:
    """``text`` with its ALL-CAPS lines case-restored; same length, same offsets."""
    if not any(ch.isupper() for ch in text):
        return text
    lines = text.split("\n")
    restored = "\n".join(restore_line(line) if is_all_caps(line) else line for line in lines)
    assert len(restored) == len(text)
    return restored
