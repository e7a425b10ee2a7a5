"""Mentions: person mentions split into titles, initials and name parts (shared by name propagation in
detection and by one-pseudonym-per-person replacement), and the spans added for further mentions of what was
detected (`add_acronym_mentions`, `add_given_names`, `add_native_script_names`, `add_repeated_mentions`,
`add_name_mentions`) with one label per surface."""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

import regex  # type: ignore[import-untyped]  # no stubs; Unicode mark class

from ..spans import Overlaps, Span, label_priority, merge_spans, snap_to_words
from .lexicon import (
    folded,
    given_names,
    is_clinical_term,
    is_known_name,
    is_name_word,
    rare_name_word,
    rare_or_known,
    zipf,
)
from .text_shape import (
    COMMON_WORD_ZIPF,
    FIELD_CUES,
    INSTITUTION_WORDS,
    PROPAGATED_NAME_COMMON_ZIPF,
    acronym,
    bracketed_initials,
    careless_casing,
    uses_capitals,
)

#: a name part rarer than this is also marked where written in lower case ("okafor"); a more frequent one
#: ("rose", "hunter") may be the everyday word there
LOWER_CASE_NAME_MAX_ZIPF = 4.0
#: the fewest letters of a name part marked in lower case ("ng", "po", "wu" are units and abbreviations)
LOWER_CASE_NAME_MIN_LETTERS = 4


def lower_case_name_form(part: str) -> bool:
    """Whether a detected person's name part is also marked where written in lower case: long enough, rare,
    and no clinical term."""
    return (
        len(part) >= LOWER_CASE_NAME_MIN_LETTERS
        and zipf(part) < LOWER_CASE_NAME_MAX_ZIPF
        and not is_clinical_term(part)
    )


TITLE = re.compile(r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Rev|Fr|Sr|Jr|MD|PhD|RN)\.?", re.IGNORECASE)
#: a title of office written before a name ("Judge Mahoney"): a title of the mention, kept by a pseudonym
ROLE_TITLE = re.compile(
    r"(?:Judge|Justice|Professor|Lord|Lady|Dame|Captain|Colonel|Sergeant|Inspector|Detective|Senator|"
    r"Governor|Mayor)"
)
#: a name particle, written in lower case inside a name ("van der Berg", "de la Cruz", "bin Salman")
PARTICLE = re.compile(r"(?:van|von|der|den|de|del|della|di|da|du|la|le|dos|das|ter|ten|bin|ibn|al|el)")
POSSESSIVE = re.compile(r"(?:['’]s|['’])$")
#: a letter of a script with capitals (Latin with its extensions, Greek, Cyrillic): an initial may be "Ö."
#: of "Ö. Demir" or "Ṭ." of "Ṭ. Singh"; a Chinese or Korean name's one-character part is no initial
CASED_LETTER = "A-Za-zÀ-ÖØ-öø-ɏͰ-Ͽ\u0400-\u04ff\u1e00-\u1eff"
INITIAL = re.compile(rf"[{CASED_LETTER}]\.?")
_NON_SPACE_RUN = re.compile(r"\S+")


def split_mention(mention: str, offices: bool = True) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the words of a mention: kind is title (with ``offices`` also a title of office,
    `ROLE_TITLE`), initial, particle (before another word) or name; a possessive and trailing punctuation
    are outside (start, end)."""
    words = []
    matches = list(_NON_SPACE_RUN.finditer(mention))
    for i, match in enumerate(matches):
        start, word = match.start(), match.group(0)
        core = POSSESSIVE.sub("", word).rstrip(",;:")
        if TITLE.fullmatch(core) or (offices and ROLE_TITLE.fullmatch(core)):
            kind = "title"
        elif INITIAL.fullmatch(core):
            kind = "initial"
        elif PARTICLE.fullmatch(core) and i + 1 < len(matches):
            kind = "particle"
        else:
            core = core.rstrip(".")
            kind = "name"
        if core:
            words.append((start, start + len(core), kind))
    return words


#: a word that belongs to the person mention it stands before: a title, an initial or a particle
_BEFORE_NAME = re.compile(
    rf"(?:{TITLE.pattern}|{ROLE_TITLE.pattern}|[{CASED_LETTER}]\.|{PARTICLE.pattern})[ \t]+$", re.IGNORECASE
)
#: at most this many such words are taken in front of a name ("Mr S. R. van der Berg")
BEFORE_NAME_WORDS = 6


def whole_person_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Every person mention with its title, initials and particles ("Mr S. Esmer", "Judge Mahoney", "Jan
    van der Berg"), and every further mention of the person (`add_repeated_mentions`, `add_name_mentions`
    with ``whole``: "Esmer", "Mr Esmer"), merged."""
    found = add_repeated_mentions(text, [_with_words_before(text, s) for s in spans])
    found = add_name_mentions(text, found, whole=True)
    return merge_spans([_with_words_before(text, s) for s in found])


def _with_words_before(text: str, span: Span) -> Span:
    """A PERSON span widened over the titles, initials and particles just before it."""
    if span.label != "PERSON":
        return span
    start = span.start
    for _ in range(BEFORE_NAME_WORDS):
        word = _BEFORE_NAME.search(text, max(0, start - 16), start)
        if word is None or (word.start() > 0 and not text[word.start() - 1].isspace()):
            break
        piece = word.group(0).strip()
        if piece[:1].islower() and not PARTICLE.fullmatch(piece):  # "mr" lower case: no title
            break
        start = word.start()
    return span if start == span.start else replace(span, start=start)


#: an acronym written in brackets right after a name ("Massachusetts General Hospital (MGH)")
_BRACKETED_ACRONYM = re.compile(r"[ \t]*\(([A-Z][A-Za-z&]{1,7})\)")
#: labels whose names have acronyms of their own
ACRONYM_LABELS = frozenset(("ORG", "LOCATION"))


def _initials(name: str) -> set[str]:
    """The acronyms a name can have: initials of its capitalised words (`text_shape.acronym`), or of all its
    words ("Bank of America": "BA", "BOA")."""
    return {acronym(name), "".join(w[0] for w in re.findall(r"[^\W\d_]+", name)).upper()}


def add_acronym_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Also mark the acronym written in brackets right after an organisation or a place it abbreviates
    ("Massachusetts General Hospital (MGH)"), with the name's label; `add_repeated_mentions` then finds
    its further mentions."""
    found = list(spans)
    for span in spans:
        bracketed = _BRACKETED_ACRONYM.match(text, span.end) if span.label in ACRONYM_LABELS else None
        if bracketed and bracketed.group(1).upper() in _initials(text[span.start : span.end]):
            found.append(Span(bracketed.start(1), bracketed.end(1), span.label, span.score, "acronym"))
    return found if len(found) == len(spans) else merge_spans(found)


#: a comma (and blanks) after a surname, then a capitalised word ("NGUYEN, THI HOA", "Smith,J. Paul")
_COMMA_THEN_WORD = re.compile(r",[ \t]*(?=[^\W\d_])")
_BLANKS = re.compile(r"[ \t]+")
_NAME_WORD = re.compile(r"[^\W\d_][\w'’-]*\.?")
#: what may follow a name: the line's end, punctuation, or a word in lower case or a number
_AFTER_NAME = re.compile(r"[ \t]*(?:$|[,;:)(]|[a-z0-9])", re.MULTILINE)
#: the most given names taken after a surname
MAX_GIVEN_NAMES = 3
#: a given name no list knows ("Chinedu", a further "HOA") is taken when rarer than this
UNLISTED_GIVEN_NAME_MAX_ZIPF = 3.5
#: a given name this frequent in English ("MAY", "WILL") is taken only where the name visibly ends
EVERYDAY_WORD_ZIPF = 4.0


def _given_name(word: str, after_name: bool | None) -> bool:
    """Whether a word after a surname and a comma reads as a given name. ``after_name``: None for the first
    word, else whether the word before it is a given name (not an initial). An initial; a given name of
    Faker's many locales (each part of a hyphenated one) that, first, is no everyday English word unless a
    known first name ("MAY", "CALM", "APRIL" there are a verb, a state, a month; "Maria" is a name); or,
    after a given name, a rare word of 3+ letters with a vowel, no clinical term and no form field ("THI
    HOA"; not "THI DOB", not "C DIFF"), first an unlisted given name (`_unlisted_given_name`: "Senwindel,
    Brinkamp")."""
    core = word.rstrip(".")
    parts = core.split("-")
    if not all(p[:1].isupper() and (p.isupper() or p[1:].islower()) for p in parts):
        return False
    core_folded = folded(core)
    if INITIAL.fullmatch(word):
        return True
    if core_folded in FIELD_CUES:
        return False
    if _listed_given_name(core):
        return after_name is not None or zipf(core_folded) < EVERYDAY_WORD_ZIPF or is_name_word(core)
    return (
        (bool(after_name) or after_name is None and _unlisted_given_name(core))
        and len(core_folded) >= 3
        and any(ch in "aeiouy" for ch in core_folded)
        and zipf(core_folded) < UNLISTED_GIVEN_NAME_MAX_ZIPF
        and not is_clinical_term(core)
    )


#: the fewest letters of a first given name no list holds
UNLISTED_FIRST_NAME_MIN_LETTERS = 5


def _unlisted_given_name(word: str) -> bool:
    """A first given name no list holds: in title case, 5+ letters, rare (`lexicon.rare_name_word`:
    "Brinkamp"; not "CABG", "Pulm", "Intensivist")."""
    return (
        word[:1].isupper()
        and word[1:].islower()
        and len(word) >= UNLISTED_FIRST_NAME_MIN_LETTERS
        and rare_name_word(word)
    )


def _unlisted(word: str) -> bool:
    """No initial and no listed given name: read as one by `_unlisted_given_name`."""
    return not INITIAL.fullmatch(word) and not _listed_given_name(word.rstrip("."))  # "Maria." is "Maria"


def _listed_given_name(core: str) -> bool:
    """Each part of ``core`` (of a hyphenated name too) a given name of Faker's lists."""
    return all(folded(p) in given_names() for p in core.split("-"))


#: a list's separator right before a surname or right after its given name ("Quvanost, Brelind, Ostkamp")
_SEPARATOR_BEFORE = re.compile(r"[,;][ \t]*$")
_SEPARATOR_AFTER = re.compile(r"[ \t]*[,;]")


def _alone_in_no_list(text: str, start: int, run: list[re.Match]) -> bool:
    """An unlisted given name is taken alone, without a full stop, and not as an item of a list: no
    separator before the surname at ``start`` nor after the name ("Senwindel, Brinkamp was admitted"; not
    "Quvanost, Brelind, Ostkamp", "Dr. Jones, Intensivist.")."""
    end = run[-1].end()
    return (
        len(run) == 1
        and not run[0].group(0).endswith(".")
        and _SEPARATOR_BEFORE.search(text, max(0, start - 3), start) is None
        and _SEPARATOR_AFTER.match(text, end) is None
    )


def _given_names_run(words: list[re.Match]) -> list[re.Match]:
    """The longest run of given names at the start of ``words`` (at most `MAX_GIVEN_NAMES`)."""
    run: list[re.Match] = []
    for word in words[:MAX_GIVEN_NAMES]:
        after_name = None if not run else not INITIAL.fullmatch(run[-1].group(0))
        if not _given_name(word.group(0), after_name):
            break
        run.append(word)
    return run


def _words_after_surname(text: str, end: int) -> list[re.Match]:
    """The capitalised words after a comma at ``end`` on its line (one more than `MAX_GIVEN_NAMES`, to see
    where the names stop)."""
    comma = _COMMA_THEN_WORD.match(text, end)
    words: list[re.Match] = []
    position = comma.end() if comma else -1
    while comma and len(words) <= MAX_GIVEN_NAMES:
        word = _NAME_WORD.match(text, position)
        if word is None or not word.group(0)[0].isupper():
            break
        words.append(word)
        blank = _BLANKS.match(text, word.end())
        if blank is None:
            break
        position = blank.end()
    return words


def add_given_names(text: str, spans: list[Span]) -> list[Span]:
    """Widen a detected surname over the given names written after it and a comma ("NGUYEN, THI HOA",
    "Smith, J.": one mention): a one-word person span, a comma, then the longest run of one to three given
    names (the first one a listed given name or an initial); a run that does not end where a name ends (the
    line's end, punctuation, a lower-case word) is taken only when it holds more than initials and no
    everyday English word ("JONES, C DIFF" and "JONES, MAY CALL BACK" hold no name)."""
    found = list(spans)
    for span in spans:
        if span.label != "PERSON" or not text[span.start : span.end].isalpha():
            continue
        words = _words_after_surname(text, span.end)
        run = _given_names_run(words)
        if not run or (_unlisted(run[0].group(0)) and not _alone_in_no_list(text, span.start, run)):
            continue
        ends = len(run) == len(words) and _AFTER_NAME.match(text, run[-1].end()) is not None
        initials = all(INITIAL.fullmatch(w.group(0)) for w in run)  # "SMITH, J." ends; "JONES, C DIFF" not
        everyday = any(
            not INITIAL.fullmatch(w.group(0)) and zipf(folded(w.group(0))) >= EVERYDAY_WORD_ZIPF for w in run
        )
        if ends or not (everyday or initials):
            # one mention "NGUYEN, THI HOA": a pseudonym reads its parts' roles from the comma
            found.append(Span(span.start, run[-1].end(), "PERSON", span.score, "given-names"))
    return found if len(found) == len(spans) else merge_spans(found)


#: a word in a script other than Latin (Cyrillic, Greek, Arabic, Hebrew, Devanagari, CJK...), with the
#: combining marks written inside it (Hebrew points, Arabic vowels, Devanagari and Thai signs)
_NATIVE_WORD = r"(?:(?![A-Za-z\u00c0-\u024f\u1e00-\u1eff])[^\W\d_]|\p{M})+"
#: a name written again in its own script in brackets after it, with or without the language's label
#: ("Goran Milošević (Serbian Cyrillic: Горан Милошевић; born ...)", "Keiko Maruyama (丸山 恵子, born ...)")
_NATIVE_NAME_AFTER = regex.compile(
    r"[ \t]*[(（](?:[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?:[ \t]*)?"
    rf"(?P<name>{_NATIVE_WORD}(?:[ \t・·]{_NATIVE_WORD}){{0,3}})(?=[ \t]*[;,)、，）])"
)


def add_native_script_names(text: str, spans: list[Span]) -> list[Span]:
    """A person's name written again in another script in brackets right after it (an encyclopedia's
    "Goran Milošević (Serbian Cyrillic: Горан Милошевић; born ...)", "Giorgi Beridze (ბერიძე)") is the
    person's too: at least two letters (not "Dr. Kim (β, γ)"; a single word may be a place or a title,
    "Ivan Petrov (Москва, 1990)", which is then masked as the person, the safer error)."""
    found = [
        Span(m.start("name"), m.end("name"), "PERSON", span.score, "native-script")
        for span in spans
        if span.label == "PERSON"
        and (m := _NATIVE_NAME_AFTER.match(text, span.end))
        and len(re.findall(r"[^\W\d_]", m.group("name"))) >= 2
    ]
    return merge_spans(spans + found) if found else spans


def add_repeated_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Also mark every other whole-word occurrence of a detected item (a name detected once is protected
    everywhere in the document; ZSTS's substitution table then replaces it consistently); one inside a
    hyphenated word is widened to it ("Tanaka" of "Tanaka-Smith": `spans.snap_to_words`).

    A detected number of up to three digits ("98" of "98 yo") is not marked where it is one piece of a
    longer number: a range, a ratio, a decimal or a percentage ("sats 96-98", "120/98", "98.6", "98%");
    a longer one (an ID's digits) is marked wherever it stands.

    A short name (source `SHORT_NAME_SOURCE`) seeds nothing: its search found it wherever it stands for the
    person. One pass over the text (candidates indexed by their first two characters), so that a long document
    with thousands of distinct items stays linear instead of one search per item."""
    # a short name seeds nothing: it stands where its own search found it ("TV" as a speaker's label, not in
    # "watched TV")
    surfaces = {
        text[s.start : s.end]: s
        for s in spans
        if len(text[s.start : s.end].strip()) > 1 and s.source != SHORT_NAME_SOURCE
    }
    if not surfaces:
        return merge_spans(spans)
    by_prefix: dict[str, list[str]] = {}
    for surface in surfaces:
        by_prefix.setdefault(surface[:2], []).append(surface)
    covered = merge_spans(spans)
    starts = [s.start for s in covered]
    found = list(spans)
    for match in _WORD_START.finditer(text):
        i = match.start()
        for surface in by_prefix.get(text[i : i + 2], ()):
            end = i + len(surface)
            if text.startswith(surface, i) and not _WORD_CHAR.match(text, end):
                if surface.isdigit() and len(surface) <= 3 and _inside_number(text, i, end):
                    continue
                k = bisect.bisect_right(starts, i) - 1
                if k < 0 or covered[k].end < end:
                    span = surfaces[surface]
                    found.append(snap_to_words(text, Span(i, end, span.label, span.score, "repeat")))
    return merge_spans(found)


def one_label_per_surface(text: str, spans: list[Span]) -> list[Span]:
    """Merged ``spans``, every occurrence of one surface labelled as its best-scored typed occurrence (the
    merged span's score, the highest of its group's)."""
    best: dict[str, Span] = {}
    for span in spans:
        surface = span.text(text)
        if surface not in best or label_priority(span) > label_priority(best[surface]):
            best[surface] = span
    labels = [best[span.text(text)].label for span in spans]
    return [
        span if label in ("OTHER", span.label) else replace(span, label=label)
        for span, label in zip(spans, labels)
    ]


_NUMBER_BEFORE = re.compile(r"\d[-–/.:,]\Z")
_NUMBER_AFTER = re.compile(r"[-–/.:,]\d|%")


def _inside_number(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (digits) is one piece of a longer number ("96-98", "120/98", "98.6")."""
    return bool(_NUMBER_BEFORE.search(text[max(0, start - 2) : start]) or _NUMBER_AFTER.match(text, end))


#: every position not preceded by a word character (the ``(?<!\w)`` of a whole-word occurrence)
_WORD_START = re.compile(r"(?<!\w)(?=.)", re.DOTALL)
_WORD_CHAR = re.compile(r"\w")


#: the source of a person's short name ("TV" of "Teodora Vasileva (TV)")
SHORT_NAME_SOURCE = "short name"
#: what may come before a speaker's label on its line: a list mark, a time stamp, a bracketed tag, emphasis
_SPEAKER_PREFIX = (
    r"[ \t]*(?:\|[ \t]*)?(?:[-*•>]+[ \t]*|\d{1,3}[.)][ \t]+)?(?:[\[(]?\d{1,2}:\d{2}(?::\d{2})?[\])]?[ \t]*)?"
    r"(?:[-–][ \t]*)?(?:\[[^\]\n]{0,20}\][ \t]*)?[*_]{0,2}"
)


def _short_name_written(short: str) -> re.Pattern:
    """Where a person's short name stands for them: in brackets, or as a speaker's label at a line's start
    ("TV:", "[14:32] TV:", "14:32 - TV:", "- TV:", "1. TV:", "**TV**:", "TV (nurse):", "TV>", "| TV |")."""
    return re.compile(
        rf"\((?P<bracketed>{short})\)|(?m:^{_SPEAKER_PREFIX}(?P<speaker>{short})[*_]{{0,2}}"
        rf"(?:[ \t]*\([^)\n]{{0,20}}\))?[ \t]*[:>|])"
    )


def _name_parts(text: str, spans: list[Span], whole: bool) -> tuple[set[str], set[str]]:
    """The name parts of the detected persons whose mentions look like names (`add_name_mentions`), and the
    initials introduced in brackets right after a person's name ("Teodora Vasileva (TV)")."""
    parts, short_names = set(), set()
    for span in spans:
        if span.label != "PERSON":
            continue
        mention = text[span.start : span.end]
        words = split_mention(mention, offices=whole)
        names = [mention[s:e] for s, e, kind in words if kind == "name"]
        short = bracketed_initials(text, span.end, names)
        if short:
            short_names.add(short)
        parts_or_particles = sum(kind in ("name", "particle") for _, _, kind in words)
        marks = ("title", "initial") if whole else ("title",)
        # an institution's word spreads only from given names and a surname ("Margaret Court", "Mary
        # Ellen Court"), not from a court or a hospital read as a person ("Sofia City Court")
        person = len(names) >= 2 and all(folded(n) in given_names() for n in names[:-1])
        if parts_or_particles >= 2 or any(kind in marks for _, _, kind in words):
            parts |= {
                n
                for n in names
                if len(n) > 1
                and n[0].isupper()
                and not n.isupper()
                and (person or n.casefold() not in INSTITUTION_WORDS)
            }
    return parts, short_names


#: a capitalised word right before or after a person's name, on its line ("Saost" of "my client Saost
#: Wright" where a detector found "Wright")
_CAPITALISED = r"\p{Lu}[\p{Ll}\p{M}]+"
_WORD_BEFORE_NAME = regex.compile(rf"(?:^|(?<=[\s(\"“]))(?P<word>{_CAPITALISED})[ \t]$")
_WORD_AFTER_NAME = regex.compile(rf"[ \t](?P<word>{_CAPITALISED})(?![\w'’-])")
#: a surname after its particles right after a person's name ("Sven [van den Brink]", "Ana [da Silva]")
_SURNAME_AFTER_PARTICLES = regex.compile(
    rf"[ \t](?P<word>{PARTICLE.pattern}(?:[ \t]+{PARTICLE.pattern})*[ \t]+{_CAPITALISED})(?![\w'’-])"
)
#: characters read back from a name for the word before it
NEIGHBOUR_REACH = 40


#: honorifics of other languages that Faker's given-name lists hold or that read as one ("Doña", "Hazrat")
HONORIFICS = frozenset(
    ("don", "dona", "doña", "bibi", "hazrat", "sri", "shri", "smt", "herr", "frau", "senor", "señor")
    + ("senora", "señora", "signor", "signora", "monsieur", "madame", "sheikh", "haji")
)


def _given_name_before(word: str) -> bool:
    """A given name of Faker's many cultures, rarer in English than `text_shape.COMMON_WORD_ZIPF`, no
    clinical term nor honorific (`HONORIFICS`): before a detected person's name, its first name ("Agathe"
    of "Agathe Rey", "Thiago"; not "Will", "Mark", "Doña")."""
    return (
        folded(word) in given_names()
        and word.casefold() not in HONORIFICS
        and zipf(word) < COMMON_WORD_ZIPF
        and not is_clinical_term(word)
    )


def add_name_neighbours(text: str, spans: list[Span]) -> list[Span]:
    """A detected name (a person, organisation, place or other) also as widened over a rare capitalised word
    right before or after it (`lexicon.rare_name_word`), a person's also over a given name right before it
    (`_given_name_before`) and a surname after its particles right after it (`_SURNAME_AFTER_PARTICLES`): a
    given name or surname no detector knew ("my client Saost Wright" where "Wright" was found, "RE: Agathe
    Rey" where "Rey" was, "Sven van den Brink" where "Sven" was; the span as found stays, so its further
    mentions are found); not where casing says nothing (`text_shape.careless_casing`, no capitals) nor over
    another span, but a person's over a word read as untyped (``OTHER``)."""
    if not uses_capitals(text) or careless_casing(text):
        return spans
    found, detected = list(spans), Overlaps(spans)
    untyped = {(s.start, s.end) for s in spans if s.label == "OTHER"}
    for span in spans:
        if span.label not in ("PERSON", "ORG", "LOCATION", "OTHER"):
            continue
        start, end, person = span.start, span.end, span.label == "PERSON"
        before = _WORD_BEFORE_NAME.search(text, max(0, start - NEIGHBOUR_REACH), start)
        if before and _name_before(before, person, detected, untyped):
            start = before.start("word")
        after = _WORD_AFTER_NAME.match(text, end)
        if not (after and rare_name_word(after.group("word"))):
            after = _SURNAME_AFTER_PARTICLES.match(text, end) if person else None
        if after and not detected(end + 1, after.end("word")):
            end = after.end("word")
        if (start, end) != (span.start, span.end):  # beside the span as found, which is searched again
            found.append(Span(start, end, span.label, span.score, span.source))
    return found


def _name_before(before: regex.Match, person: bool, detected: Overlaps, untyped: set) -> bool:
    """Whether the capitalised word ``before`` a detected name is a part of it: rare, or before a person a
    given name (`_given_name_before`), and in no other span but, before a person, a word read as untyped
    (``OTHER``: "Eldortes" of "Eldortes Dorwindost")."""
    word = before.group("word")
    if not (rare_name_word(word) or (person and _given_name_before(word))):
        return False
    return not detected(before.start("word"), before.end("word")) or (
        person and before.span("word") in untyped
    )


#: a word of a listed name: capitalised, then lower case, of any cased script ("Kowalska", "McDonald",
#: "O'Brien"; not "CCRN", "PharmD")
_LIST_WORD = r"\p{Lu}[\p{Ll}\p{M}]+(?:\p{Lu}[\p{Ll}\p{M}]+)?(?:['’-]\p{L}[\p{Ll}\p{M}]*)*"
#: a listed name: one to three such words, a name particle allowed before the last ("Kevin da Luz")
_LIST_ITEM = rf"{_LIST_WORD}(?:[ \t]+(?:{PARTICLE.pattern}[ \t]+)?{_LIST_WORD}){{0,2}}"
#: what parts the items of a list: a comma or a semicolon, maybe with "and", or "and" / "&" alone
_LIST_SEPARATOR = r"(?:[ \t]*[;,][ \t]*(?:(?:and|&)[ \t]+)?|[ \t]+(?:and|&)[ \t]+)"
#: the next item after a listed name, ending where the list or its line does
_NEXT_ITEM = regex.compile(
    rf"{_LIST_SEPARATOR}(?P<item>{_LIST_ITEM})(?=[ \t]*(?:[;,.)]|\n|$|[ \t](?:and|&)[ \t]))"
)
#: the item before a listed name, starting where the list or its line does
_ITEM_BEFORE = regex.compile(
    rf"(?:^|(?<=[:;,(\n]))[ \t]*(?:(?:and|&)[ \t]+)?(?P<item>{_LIST_ITEM}){_LIST_SEPARATOR}$"
)
#: characters read back from a listed name for the item before it
LIST_ITEM_REACH = 80
#: a listed name's words more frequent than this are everyday words ("Cardiology", "Tuesday", "Boston")
LISTED_NAME_MAX_ZIPF = 3.5
LIST_SOURCE = "list"


def _listed_name(item: str) -> bool:
    """Every word of ``item`` a name word (no clinical term, rarer than `LISTED_NAME_MAX_ZIPF` or a known
    name), one of them rare or a known name (`lexicon.rare_or_known`)."""
    words = [w for w in item.split() if not PARTICLE.fullmatch(w)]
    return all(
        not is_clinical_term(w) and (zipf(w) < LISTED_NAME_MAX_ZIPF or is_known_name(w)) for w in words
    ) and any(rare_or_known(w, LISTED_NAME_MAX_ZIPF) for w in words)


class Intervals:
    """Disjoint (start, end) ranges kept sorted: does a range overlap one of them (two bisections)."""

    def __init__(self):
        self.ranges: list[tuple[int, int]] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.ranges, (start, start))
        return (i > 0 and self.ranges[i - 1][1] > start) or (i < len(self.ranges) and self.ranges[i][0] < end)

    def add(self, start: int, end: int) -> None:
        bisect.insort(self.ranges, (start, end))


def _a_known_name_typed_otherwise(text: str, inside: list[Span], start: int, end: int) -> bool:
    """The list item at (start, end) is one span of another name's label (an organisation, a place) and
    holds a known name of one of Faker's cultures: a person the detector typed otherwise ("Hodge")."""
    return (
        len(inside) == 1
        and (inside[0].start, inside[0].end) == (start, end)
        and inside[0].label in ("ORG", "LOCATION", "OTHER")
        and any(is_known_name(w) for w in text[start:end].split())
    )


def add_listed_names(text: str, spans: list[Span]) -> list[Span]:
    """The other items of a list that holds a detected person, each a listed name (`_listed_name`):
    "Attendees: Quvanost Enrow, Josh Herbert." where a detector found "Josh Herbert"; "cc: A B; C D";
    "They had 3: Efimiya, Mary and Ostkamp"; an item a detector found in part as a person is the whole item
    ("Quvanost" of "Quvanost Enrow"), one it found whole stays as found, and so does one found as something
    else unless it is a known name (`_a_known_name_typed_otherwise`: "Eklund, Michael and Hodge"); not "Ann
    Lee, Cardiology", "John Smith, CCRN" nor "John Smith was here, Boston"."""
    found, added = list(spans), Intervals()
    ordered = sorted(spans, key=lambda s: s.start)
    starts = [s.start for s in ordered]
    todo = [s for s in spans if s.label == "PERSON"]
    while todo:
        span = todo.pop()
        items = []
        after = _NEXT_ITEM.match(text, span.end)
        if after:
            items.append(after.span("item"))
        before = _ITEM_BEFORE.search(text, max(0, span.start - LIST_ITEM_REACH), span.start)
        if before:
            items.append(before.span("item"))
        for start, end in items:
            if added.overlaps(start, end) or not _listed_name(text[start:end]):
                continue
            near = ordered[
                bisect.bisect_left(starts, start - LIST_ITEM_REACH) : bisect.bisect_left(starts, end)
            ]
            inside = [s for s in near if s.end > start]
            if _a_known_name_typed_otherwise(text, inside, start, end):  # "Eklund, Michael and Hodge"
                other = inside[0]
                new = Span(start, end, "PERSON", other.score, other.source)
                found[found.index(other)] = new
            elif any(s.label != "PERSON" or (s.start <= start and s.end >= end) for s in inside):
                continue  # found whole, or as something else; a person found in part is the whole item
            else:
                new = Span(start, end, "PERSON", 1.0, LIST_SOURCE)
                found.append(new)
            added.add(start, end)
            todo.append(new)
    return found


def add_name_mentions(text: str, spans: list[Span], whole: bool = False) -> list[Span]:
    """Also mark every other mention of each name part of a detected person whose mention looks like a
    name (two or more parts, or a title; with ``whole``, gdpr's reading, also an initial, "S. Esmer", and
    a title of office is a title; each part capitalised, not ALL CAPS, so that an NER "FOLEY" or
    "BP" in a clinical note spreads nowhere): the same word in title case or ALL CAPS, optionally
    possessive ("Tanaka", "TANAKA", "Tanaka's"), and in lower case where it is no everyday word
    ("tanaka"), but no word of `INSTITUTION_WORDS` unless the name is given names and a surname (a court
    read as a person spreads no "Court", "Margaret Court" does); and
    relabel a detected span that is exactly such a part (spaCy's ORG "TANAKA", a capitalised occupation:
    "Baker" of "John Baker ... Baker") as PERSON. Initials introduced in brackets right after a person's
    name are that person's short name, marked in brackets and as a speaker's label ("Teodora Vasileva (TV):
    ... TV: ..."; not "watched TV"). A very common English word ("Will") is not marked at the start of a
    sentence."""
    found = list(spans)
    parts, short_names = _name_parts(text, spans, whole)
    folded_parts = {part.casefold() for part in parts}
    for i, span in enumerate(found):  # a detector's other reading of a name part ("TANAKA"): the person
        surface = re.sub(r"['’]s$", "", text[span.start : span.end])
        # "Baker" of "John Baker", not "the baker"; "Stroke" of "Ann Stroke", not "a stroke"
        listed = span.label in ("OCCUPATION", "HEALTH") and surface[:1].isupper()
        if (span.label in ("ORG", "LOCATION", "OTHER") or listed) and surface.casefold() in folded_parts:
            found[i] = Span(span.start, span.end, "PERSON", span.score, span.source)
    # overlap with a detected span by bisection over starts with a running maximum of ends (linear overall)
    detected = Overlaps(found)
    forms: dict[str, bool] = {}  # each written form of a part -> whether it is a common English word
    for part in parts:
        if part[:1].isupper():
            common = zipf(part) >= PROPAGATED_NAME_COMMON_ZIPF
            # in capitals also as Turkish writes them ("Şirin": "ŞİRİN", where str.upper gives "ŞIRIN")
            written = {
                part,
                part.upper(),
                part.replace("i", "İ").upper(),
                part[:1].upper() + part[1:].lower(),
            }
            if lower_case_name_form(part):  # "okafor", "garcia"; not "rose", "hunter" or "ng" (ng/mL)
                written.add(part.lower())
            for form in written:
                forms[form] = forms.get(form, False) or common
    lengths = sorted({len(form) for form in forms})
    # the form ends a word, or a possessive follows; an underscore parts words, as in a user name or a chat
    # handle ("customer_kwame", "lukas.fournier_77")
    ending = re.compile(r"['’]s(?![^\W_])|(?![^\W_])")
    for word in re.finditer(r"(?<![^\W_])[^\W_]", text) if forms else ():  # one pass over word starts
        start = word.start()
        # only forms that fit before the text's end: a slice past it is shorter than the form it is read as
        for length in lengths[: bisect.bisect_right(lengths, len(text) - start)]:
            end = start + length
            common = forms.get(text[start:end])
            if common is None or not ending.match(text, end):
                continue
            if detected(start, end):
                continue
            if common and re.search(r"(?:^|[.!?]\s+|\n\s*)$", text[max(0, start - 100) : start]):
                continue
            found.append(snap_to_words(text, Span(start, end, "PERSON", 1.0, "repeat")))
    for (
        short
    ) in short_names:  # in brackets, or a speaker's label at a line's start ("TV: ..."), not "watched TV"
        for m in _short_name_written(short).finditer(text):
            group = "bracketed" if m.group("bracketed") else "speaker"
            found.append(Span(m.start(group), m.end(group), "PERSON", 1.0, SHORT_NAME_SOURCE))
    return merge_spans(found)
