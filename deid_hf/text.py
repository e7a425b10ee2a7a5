"""Text as models see it: one same-length normalisation, so every offset is an offset into the original.

``model_text(text)`` replaces each character that is not text by one space (U+0020): lone surrogates
(U+D800-U+DFFF, not encodable as UTF-8), C0 and C1 control characters and DEL (tab, newline and carriage
return stay), and Unicode format characters (category Cf: zero-width space and joiners, word joiner, BOM,
soft hyphen, bidirectional marks), but a soft hyphen, a zero-width joiner or non-joiner or a word joiner
between two letters is a copy of the letter before it (it sits inside a word: "Kowal\\u00adska",
a Persian name with its non-joiner, stay one word); and emoji and other pictographs with their modifiers and
variation selectors ("😀Marek", "❤️Rafael": a tokenizer reads such a word as one unknown token). Spaces
other than U+0020 (no-break, thin, ideographic) become U+0020, the line and paragraph separators a line
break, and full-width ASCII forms ASCII ("９２ yo", "Ｍａｒｙ"): the rules' patterns are written for those.
Nothing is inserted or removed, so ``len(model_text(t)) == len(t)`` and a span [start, end) found in the
normalised text covers the same characters of the original. Detectors, LMs and tokenizers only ever see
the normalised text; outputs keep the original's characters wherever they are not replaced (``"John
Smith\\x00"`` is detected as one name, ``"Mary\\u200bJones"`` as a name, and the NUL or the zero-width
space inside a replaced span is replaced with it).

Two bounds on what a long input costs the models, both same-length:
- filler runs: the inside of a run of at least `FILLER_MIN` characters that cannot hold an identifier is
  blanked (its characters other than whitespace become spaces), `FILLER_EDGE` characters kept at each end.
  Such a run has no letter or digit (``"(" * 3000 + ")" * 3000``), or repeats one unit of at most four
  characters (``"a." * 50000``, ``"+1 " * 30000``, ``"ab\\n" * 30000``): its inside holds nothing its edges
  do not, and fed to the models it costs one token per character or two.
- long runs: a run of more than `MAX_RUN` characters without whitespace is broken by one space at least
  every `MAX_RUN` characters, at its last separator (";", ",", a quote, a bracket...) in the second half of
  each stretch where it has one, so that an e-mail address or a URL in minified JSON or a log line stays
  whole: tokenizers and regular expressions spend time quadratic in a token's length on such runs, and no
  word, name or identifier is that long.
"""

from __future__ import annotations

import re
import sys
import unicodedata

import regex  # type: ignore[import-untyped]  # no stubs; Unicode emoji properties


def _by_category(*categories: str) -> dict[str, list[int]]:
    """The code points of each Unicode general category in ``categories``, in one pass over all of them."""
    found: dict[str, list[int]] = {category: [] for category in categories}
    for c in range(sys.maxunicode + 1):
        category = unicodedata.category(chr(c))
        if category in found:
            found[category].append(c)
    return found


_CATEGORIES = _by_category("Cf", "Zs")
_FORMAT = "".join(re.escape(chr(c)) for c in _CATEGORIES["Cf"])
#: characters that are not text: surrogates, controls except \t \n \r, DEL, C1 controls, format (Cf)
NOT_TEXT = re.compile(f"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_FORMAT}]")


#: spaces other than U+0020 (no-break, narrow, thin, ideographic: category Zs) as one, the line and
#: paragraph separators as a line break, full-width ASCII forms ("２０２４", "Ｍａｒｙ") as ASCII
_AS_ASCII: dict[int, str | int] = {
    **{c: " " for c in _CATEGORIES["Zs"] if c >= 0x80},
    0x2028: "\n",
    0x2029: "\n",
    **{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)},
}


#: the longest run without whitespace the models see (a URL of that length, a long ID)
MAX_RUN = 128
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")


#: where a long run is broken when it can be: characters that separate fields, never inside an identifier
_SEPARATOR = frozenset(';,|"<>{}[]\\^`')


def _break_run(match: re.Match[str]) -> str:
    chars = list(match.group())
    start = 0
    while len(chars) - start > MAX_RUN:
        ends = range(start + MAX_RUN, start + MAX_RUN // 2, -1)
        cut = next((i for i in ends if chars[i] in _SEPARATOR), start + MAX_RUN)
        chars[cut] = " "
        start = cut + 1
    return "".join(chars)


#: a format character inside a word (soft hyphen, zero-width joiner and non-joiner, word joiner)
_INSIDE_WORD = re.compile(r"(?<=[^\W\d_])[\u00ad\u200c\u200d\u2060](?=[^\W\d_])")
#: zero-width spaces, byte order marks and bidirectional marks: inside a word before a lower-case letter
#: they split it ("Harrow\u200bgate"), at a word's edge they wrap it ("\u2066Marrowind\u2069"); read as the
#: letter beside them, so the word stays one (between two capitalised words, or a letter and a digit, a
#: zero-width space still parts them: "Mary\u200bJones", "Phone\u200b07700")
_MARKS = "\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff"
_SPLIT_WORD = re.compile(rf"(?<=[^\W\d_])[{_MARKS}]+(?=[^\W\d_])")
_WORD_EDGE = re.compile(rf"(?<!\w)[{_MARKS}]+(?=[^\W\d_])|(?<=[^\W\d_])[{_MARKS}]+(?!\w)")
#: emoji and pictographs, flags' letters, skin-tone modifiers, variation selectors and the keycap's mark
_PICTOGRAPH = regex.compile(
    r"[\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\ufe0e\ufe0f\u20e3]"
)


#: a filler run at least this long is blanked inside...
FILLER_MIN = 256
#: ...but for this many characters at each end (the context a model reads beside the run)
FILLER_EDGE = 64
#: a whole stretch without a letter or digit, matched from its first character only (never rescanned)
_NO_ALNUM_RUN = re.compile(rf"(?<![\W_])[\W_]{{{FILLER_MIN},}}")
#: one unit of one to four characters repeated at least 16 times (`_blank_inside` checks the length)
_REPEATED_UNIT = re.compile(r"(.{1,4}?)\1{15,}", re.DOTALL)
_NOT_SPACE = re.compile(r"\S")


def _blank_inside(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) < FILLER_MIN:
        return run
    inside = _NOT_SPACE.sub(" ", run[FILLER_EDGE:-FILLER_EDGE])
    return run[:FILLER_EDGE] + inside + run[-FILLER_EDGE:]


def filler_blanked(text: str) -> str:
    """``text`` with the inside of each filler run (module docstring) blanked: its characters other than
    whitespace become spaces, but for `FILLER_EDGE` at each end (same length, same offsets)."""
    return _REPEATED_UNIT.sub(_blank_inside, _NO_ALNUM_RUN.sub(_blank_inside, text))


def _joined(text: str, mark: re.Match[str]) -> str:
    """Marks inside a word as its letter before them where a lower-case letter follows, else as spaces."""
    return (
        text[mark.start() - 1] * len(mark.group()) if text[mark.end()].islower() else " " * len(mark.group())
    )


def _beside(text: str, mark: re.Match[str]) -> str:
    """Marks at a word's edge as the word's letter beside them."""
    before = text[mark.start() - 1] if mark.start() > 0 else ""
    letter = before if before.isalpha() else text[mark.end()]
    return letter * len(mark.group())


def model_text(text: str) -> str:
    """``text`` with every character that is not text and every pictograph replaced by a space (a format
    character inside a word, or a zero-width or bidirectional mark at a word's edge, by the letter beside
    it), other spaces and full-width forms written in ASCII,
    the inside of filler runs blanked and runs without whitespace broken (module docstring; same length,
    same offsets)."""
    text = text.translate(_AS_ASCII)
    if NOT_TEXT.search(text):
        text = _INSIDE_WORD.sub(lambda m: text[m.start() - 1], text)
        text = _SPLIT_WORD.sub(lambda m: _joined(text, m), text)
        text = _WORD_EDGE.sub(lambda m: _beside(text, m), text)
        text = NOT_TEXT.sub(" ", text)
    text = _PICTOGRAPH.sub(" ", text)
    return _LONG_RUN.sub(_break_run, filler_blanked(text))


def utf8_safe(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (for CSV and Parquet, which must be valid UTF-8)."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)
