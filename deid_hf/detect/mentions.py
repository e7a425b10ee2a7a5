"""Person mentions split into titles, initials and name parts (shared by name propagation in detection
and by one-pseudonym-per-person replacement)."""

from __future__ import annotations

import re

TITLE = re.compile(r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Rev|Fr|Sr|Jr|MD|PhD|RN)\.?", re.IGNORECASE)
POSSESSIVE = re.compile(r"(?:['’]s|['’])$")
INITIAL = re.compile(r"[A-Za-z]\.?")
_WORD = re.compile(r"\S+")


def split_mention(mention: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the words of a mention: kind is title, initial or name; a possessive and
    trailing punctuation are outside (start, end)."""
    words = []
    for match in _WORD.finditer(mention):
        start, word = match.start(), match.group(0)
        core = POSSESSIVE.sub("", word).rstrip(",;:")
        if TITLE.fullmatch(core):
            kind = "title"
        elif INITIAL.fullmatch(core):
            kind = "initial"
        else:
            core = core.rstrip(".")
            kind = "name"
        if core:
            words.append((start, start + len(core), kind))
    return words
