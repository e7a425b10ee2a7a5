"""Name runs for the clinical context rules: which words after a title, credential or kinship word make a
name (`name_word`) and how far the name goes (`name_run`)."""

from __future__ import annotations

import re

from ..casing import in_caps_line
from ..learned_spans import NAME_PARTICLES
from ..lexicon import is_clinical_term, is_name_word, person_names, stop_words, zipf
from ..text_shape import COMMON_WORD_ZIPF, WORD_ANY_SCRIPT, careless_casing, uses_capitals

#: an initial, with or without its dot ("R." or "R")
INITIAL = r"[A-Za-z]\.?"

_NOT_NAMES = (
    "notified paged called informed updated aware ordered made wants feels states said office team "
    "note notes orders order consult consulted following followed visit visited visiting rounds here "
    "came come saw seen spoke gave recommended requested reports reported plan plans wrote evaluated "
    "examined placed removed changed started increased decreased discontinued okd okay ok want wanted "
    "asked agrees agreed and or of in at on to with re specialist physician practitioner declined "
    "eval assessed ho np md rn nurse resident fellow attending team"
)
#: words that follow a title or kinship word without being a name ("MD notified", "son called")
NOT_NAMES = frozenset(_NOT_NAMES.split())


def name_word(
    word: str, max_zipf: float, any_known: bool = False, vocabulary=None, strong: bool = False
) -> bool:
    """A candidate name: not a stop word, an upper-case abbreviation of at most 3 letters, a clinical term
    or corpus vocabulary (these two not checked after a ``strong`` title: "Dr. Bakaitis", "Dr. Foley");
    and a known person name (with ``any_known`` even a frequent word: "Bill") or rarer than ``max_zipf``."""
    bare = word.strip(".,:;'’-")
    w = bare.lower()
    if len(w) < 2 or w in stop_words() or w in NOT_NAMES or not w[0].isalpha():
        return False
    if bare.isupper() and len(bare) <= 3 and not (any_known and len(bare) == 3 and w in person_names()):
        return False  # an abbreviation; after a title or kinship word a known name ("SON BOB", "NP SUE")
    if not strong and (is_clinical_term(w) or (vocabulary is not None and vocabulary.is_vocabulary(w))):
        return False
    return is_name_word(w) or (any_known and w in person_names()) or zipf(w) < max_zipf


def names_are_capitalised(text: str, position: int) -> bool:
    """Casing tells names at ``position``: the text capitalises (`uses_capitals`), never begins a sentence in
    lower case (`careless_casing`) and the line is no ALL-CAPS line."""
    return uses_capitals(text) and not careless_casing(text) and not in_caps_line(text, position)


def _ends_name(word: str, first: str, text: str, position: int) -> bool:
    """Whether ``word``, after the name word beginning with ``first``, is no part of the name. Where casing
    tells names, a lower-case word after a capitalised one, no name particle ("van", "de"): the verb of
    "Dr. Tanaka reviewed". Where it says nothing (an ALL-CAPS line, a text without capitals), a frequent
    word that is no known name: "DR RONAYNE GOOD PEDAL", "dr tanaka reviewed"."""
    if names_are_capitalised(text, position):
        return first.isupper() and word.islower() and word not in NAME_PARTICLES
    return zipf(word) >= COMMON_WORD_ZIPF and not is_name_word(word) and word.lower() not in NAME_PARTICLES


def _lower_case_start(word: str) -> bool:
    """A word in lower case that is no name particle ("earning"; not "von" of "von Trapp")."""
    return word[0].islower() and word.lower() not in NAME_PARTICLES


#: a name word of any script after an optional initial ("Notified Löf", "Mr Öcalan")
_NAME_RUN_WORD = re.compile(rf"(?:({INITIAL})\s+)?({WORD_ANY_SCRIPT.pattern})")


def name_run(
    text: str,
    start: int,
    max_zipf: float,
    limit: int = 3,
    known_first: bool = False,
    any_known: bool = False,
    vocabulary=None,
    strong: bool = False,
):
    """(start, end) of up to ``limit`` name words (initials allowed between them) from ``start``; None if
    the first word is not a name word (a known name with ``known_first``), or is written in lower case
    where casing tells names ("nurse earning"). A lower-case word after a capitalised one, or a frequent
    word where casing says nothing, ends the run (`_ends_name`)."""
    pos, end, count = start, None, 0
    first = None
    while count < limit:
        m = _NAME_RUN_WORD.match(text, pos)
        if not m:
            break
        initial, word = m.group(1), m.group(2)
        if initial and not (len(initial) == 2 or text[m.end(1) : m.start(2)].strip() == ""):
            break
        if (
            not name_word(word, max_zipf, any_known, vocabulary, strong)
            or (count == 0 and known_first and not is_name_word(word))
            or (count == 0 and _lower_case_start(word) and names_are_capitalised(text, m.start(2)))
            or (first is not None and _ends_name(word, text[first], text, m.start(2)))
        ):
            if initial and end is None:  # "L. RUUSKA" fails; a lone initial is not a name
                return None
            break
        if first is None:
            first = m.start()
        end = m.end()
        count += 1
        nxt = re.match(r"[ \t]+", text[end:])
        if not nxt:
            break
        pos = end + nxt.end()
    return (first, end) if end is not None else None
