"""Mask: every letter and digit becomes ``char`` (Presidio's ``mask``), the whole entity by default ("Ann
Lee" -> "*** ***"; a letter with its combining marks is one character); spaces and punctuation stay, so the
shape is kept. ``keep_last`` keeps that many final letters and digits ("(217) 555-0143" -> "(***) ***-0143"
with ``keep_last=4``)."""

from __future__ import annotations

import random
import unicodedata

from ..errors import InputError
from .base import Strategy


class Mask(Strategy):
    name = "mask"

    def __init__(self, keep_last: int = 0, char: str = "*"):
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 0:
            raise InputError(f"mask keep_last must be a non-negative integer, got {keep_last!r}")
        if not isinstance(char, str) or len(char) != 1:
            raise InputError(f"mask char must be one character, got {char!r}")
        self.keep_last, self.char = keep_last, char

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        # a letter with its combining marks is one character of the mask ("शर्मा", a decomposed "Müller")
        units: list[str] = []
        for ch in original:
            if units and unicodedata.category(ch).startswith("M") and units[-1][:1].isalnum():
                units[-1] += ch
            else:
                units.append(ch)
        out, kept = [], 0
        for unit in reversed(units):
            if unit[:1].isalnum() and kept >= self.keep_last:
                out.append(self.char)
            else:
                kept += unit[:1].isalnum()
                out.append(unit)
        return "".join(reversed(out))

    def no_guarantee_reason(self) -> str:
        if self.keep_last:
            return f"the last {self.keep_last} characters and the shape of the original are kept"
        return "the shape of the original (its length, spaces and punctuation) is kept"
