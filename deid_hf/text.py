"""Text as models see it: one same-length normalisation, so every offset is an offset into the original.

``model_text(text)`` replaces each character that is not text by one space (U+0020): lone surrogates
(U+D800-U+DFFF, not encodable as UTF-8), C0 and C1 control characters and DEL (tab, newline and carriage
return stay), and Unicode format characters (category Cf: zero-width space and joiners, word joiner, BOM,
soft hyphen, bidirectional marks). Nothing is inserted or removed, so ``len(model_text(t)) == len(t)`` and a
span [start, end) found in the normalised text covers the same characters of the original. Detectors, LMs
and tokenizers only ever see the normalised text; outputs keep the original's characters wherever they are
not replaced (``"John Smith\\x00"`` is detected as one name, ``"Mary\\u200bJones"`` as a name, and the NUL or
the zero-width space inside a replaced span is replaced with it). A run of more than `MAX_RUN` characters
without whitespace is broken by one space every `MAX_RUN` characters: tokenizers and regular expressions
spend time quadratic in a token's length on runs such as ``"(" * 3000 + ")" * 3000``, and no word, name or
identifier is that long.
"""

from __future__ import annotations

import re
import sys
import unicodedata

_FORMAT = "".join(
    re.escape(chr(c)) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"
)
#: characters that are not text: surrogates, controls except \t \n \r, DEL, C1 controls, format (Cf)
NOT_TEXT = re.compile(f"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_FORMAT}]")


#: the longest run without whitespace the models see (a URL of that length, a long ID)
MAX_RUN = 128
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")


def _break_run(match: re.Match[str]) -> str:
    chars = list(match.group())
    chars[MAX_RUN :: MAX_RUN + 1] = " " * len(chars[MAX_RUN :: MAX_RUN + 1])
    return "".join(chars)


def model_text(text: str) -> str:
    """``text`` with every character that is not text replaced by a space and runs without whitespace
    broken every `MAX_RUN` characters (same length, same offsets)."""
    text = NOT_TEXT.sub(" ", text) if NOT_TEXT.search(text) else text
    return _LONG_RUN.sub(_break_run, text)


def utf8_safe(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (for CSV and Parquet, which must be valid UTF-8)."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)
