"""Context rules for identifiers that NER misses in clinical notes: clinicians, patients, relatives and care
facilities named next to a title, credential, kinship word or facility word.

- clinician (PERSON): after ``Dr``/``Drs``/``Dr's``/``NP``/``HO``/``MD``/``nurse``... ("Dr. o rourke",
  "DR'S CAMARDA AND CLIFFORD"); an initial and a surname ("Z. MILLER"); a signature, names before a
  credential ("Jean Hudson, RN", "barbara j. parrilli bsn/rn"; at least one word a known first/last name);
  after ``per``/``called``/``paged``/``notified``/``contacts`` when the first word is a known name.
- patient (PERSON): after ``Mr``/``Mrs``/``Ms``/``Miss``.
- relative (PERSON): after a kinship or proxy word ("dtr laverne", "Nephew, Neil Meitz", "daughter Elena":
  capitalised in mixed case, any word but a very frequent one).
- facility (LOCATION): capitalised words before ``Hospital``/``Medical Center``/``Rehab``/``Regional``...
  ("Harbor Hospital"), ``University of X``, a rare word before a ward number ("quartermain 2"), the place
  after ``lives in``, and a hospital's abbreviation after ``to``/``at``/``from``/``in``/``by``: 2-5
  capitals ending in H or MC, an initialism, no frequent word, no generic one such as OSH and no
  hemorrhage or hormone such as ICH or TSH, not after "due"/"secondary" ("transferred to GH", "at GBMC"; not
  "to CATH", "due to SDH").
A name word is a letter sequence that is not a stop word and is either a known person name
(`lexicon.is_name_word`) or not a frequent English word (wordfreq Zipf below the rule's bound).
"""

from __future__ import annotations

import re

from ..spans import Span
from .base import Detector
from .casing import in_caps_line
from .lexicon import is_clinical_term, is_name_word, person_names, stop_words, uses_capitals, zipf

_W = r"[A-Za-z][A-Za-z'’-]*"
_W_POSSESSIVE = _W + "+"  # never gives back a hyphen or letter once matched (no backtracking into words)
_INITIAL = r"[A-Za-z]\.?"
#: a doctor title: the next word is a name even if the corpus uses it as a common word ("Dr. Foley")
_DOCTOR = r"(?:dr's|drs|doctor|dr)"
_TITLE = r"(?:np|ho|md|nurse|attending|resident|fellow|physicians?|doctors?)"
_CREDENTIAL = r"(?:RN|R\.N\.|MD|M\.D\.|NP|RRT|BSN|bsn/rn|LICSW|CNS|PA-C|RT)"
_KIN = (
    r"(?:wife|husband|sons?|daughters?|dtrs?|sisters?|brothers?|mother|father|mom|dad|niece|nephew|friend|grandson|"
    r"granddaughter|grandaughter|sibling|aunt|uncle|cousin|fianc[eé]e?|girlfriend|boyfriend|proxy|hcp|named|"
    r"neighbou?r|son-in-law|daughter-in-law|sil|dil|significant[ \t]+other)"
)
_CALL = r"(?:per|called|paged|notified|contacts?|contacted|informed|updated|spoke with|discussed with)"
_FACILITY = (
    r"(?:hospital|hosp|medical center|med center|rehab|regional|heart center|campus|clinic|rehabilitation)"
)
#: a name ending in a facility word ("St. Jude Medical Center"): the word says what kind of place it is
FACILITY_END = re.compile(rf"[ \t]+({_FACILITY})\.?$", re.IGNORECASE)
#: initialisms ending in H or MC that name no facility: generic ones (outside hospital, nursing home,
#: long-term care), hemorrhages and hypertrophies (ICH, SDH, LVH, BPH) and hormones (TSH, ACTH, LDH)
_NOT_FACILITY_INITIALISMS = (
    "OSH NH SNF LTAC LTACH ECF ALF ICH SAH SDH EDH IVH IPH PPH UGIH LGIH GIH BPH LVH RVH LAH RAH TSH PTH "
    "ACTH LDH ADH SIADH FSH HGH DHEAH"
)
_NOT_FACILITY = frozenset(_NOT_FACILITY_INITIALISMS.split())
_NOT_FACILITY_WORD = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "outside",
    "osh",
    "other",
    "another",
    "previous",
    "same",
    "local",
    "nearby",
    "cardiac",
    "pulmonary",
    "psych",
    "psychiatric",
    "nursing",
    "acute",
    "rehab",
    "basic",
    "prior",
    "begin",
    "poss",
    "possible",
    "potential",
}
#: in an ALL-CAPS line or a text without capitals, a word before a facility word this frequent is no name
FACILITY_NAME_ZIPF = 5.2


_SAINT = re.compile(r"\b(?:st\.?|saint)[ \t]+$", re.IGNORECASE)


def _facility_name(word: str, vocabulary) -> bool:
    """A word that can name a facility where casing says nothing: not an abbreviation of at most 3 letters,
    a clinical term, corpus vocabulary or a frequent word."""
    bare = word.strip(".,:;'’-")
    return (
        len(bare) > 3
        and not is_clinical_term(bare)
        and not (vocabulary is not None and vocabulary.is_vocabulary(bare))
        and zipf(bare) < FACILITY_NAME_ZIPF
    )


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


def _name_run(
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
    the first word is not a name word (a known name with ``known_first``)."""
    pattern = re.compile(rf"(?:({_INITIAL})\s+)?({_W})")
    pos, end, count = start, None, 0
    first = None
    while count < limit:
        m = pattern.match(text, pos)
        if not m:
            break
        initial, word = m.group(1), m.group(2)
        if initial and not (len(initial) == 2 or text[m.end(1) : m.start(2)].strip() == ""):
            break
        if not name_word(word, max_zipf, any_known, vocabulary, strong) or (
            count == 0 and known_first and not is_name_word(word)
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


#: geographic and institutional head words that end a place name ("Daytona Beach", "Laurel Regional")
_PLACE_HEADS = (
    "beach square shore island park heights hills falls springs harbor harbour valley lake county regional "
    "memorial general village point bay creek ridge city township"
)
PLACE_HEADS = frozenset(_PLACE_HEADS.split())
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z]+)\b")


def extend_places(text: str, spans: list[Span]) -> list[Span]:
    """LOCATION spans extended over a following place head word (`PLACE_HEADS`) written capitalised or, in
    an ALL-CAPS span, in capitals: a detector that found "Daytona" leaves "Beach" to identify it."""
    out = []
    for span in spans:
        m = _NEXT_WORD.match(text, span.end) if span.label == "LOCATION" else None
        head = m.group(1) if m else ""
        if (
            head.lower() in PLACE_HEADS
            and head[0].isupper()
            and (head.isupper() or not text[span.start : span.end].isupper())
        ):
            span = Span(span.start, m.end(1), span.label, span.score, span.source)
        out.append(span)
    return out


class ClinicalContextDetector(Detector):
    """Names and facilities by context rules (module docstring)."""

    name = "clinical"

    def __init__(self, max_zipf: float = 3.5, title_zipf: float = 4.5):
        self.max_zipf = max_zipf
        self.title_zipf = title_zipf
        flags = re.IGNORECASE
        self.doctor = re.compile(rf"\b{_DOCTOR}\b\.?:?[ \t]*", flags)
        self.title = re.compile(rf"\b{_TITLE}\b\.?:?[ \t]*", flags)
        self.also = re.compile(r"[ \t]*(?:and|&|/)[ \t]*(?:dr\.?[ \t]*)?", flags)
        self.initial = re.compile(rf"(?<![\w/'’.&<>])[A-Z]\.[ \t](?={_W})")
        self.credential = re.compile(rf"[ \t]*,?[ \t]*(?<![\w/]){_CREDENTIAL}\b", flags)
        self.patient = re.compile(r"\b(?:(?:mr|mrs|miss)\b\.?|ms\.)[ \t]*", flags)
        self.kin = re.compile(rf"\b{_KIN}\b[ \t]*[,:\-]?[ \t]*\(?(?:named[ \t]+)?", flags)
        self.call = re.compile(rf"\b{_CALL}\b[ \t]*(?:dr\.?[ \t]*|np[ \t]+|rn[ \t]+)?", flags)
        # possessive words starting at a word start: a hyphen belongs to its word, never to the separator
        # (ambiguity between the two made long "a-a-a-" runs backtrack exponentially)
        self.facility = re.compile(
            rf"(?<![A-Za-z'’-])((?:{_W_POSSESSIVE}[ \t]+(?:-[ \t]+)?){{1,3}}){_FACILITY}\b", flags
        )
        self.university = re.compile(rf"(?i:\b(?:university|univ|u)[ \t]+of[ \t]+{_W})|\bU[ \t]+[A-Z][a-z]+")
        self.ward = re.compile(rf"\b(?:to|from|on|at)[ \t]+({_W})[ \t]+\d(?![\d/]|\.\d)", flags)
        self.hospital = re.compile(
            r"(?i:(?<!due )(?<!secondary )(?<!related )(?<!prior )(?<!2/2 )"  # a cause, not a place
            r"\b(?:to|at|from|in|by)[ \t]+(?:the[ \t]+)?)\b([A-Z]{1,4}H|[A-Z]{1,3}MC)\b"
        )
        self.lives = re.compile(rf"\blives?[ \t]+(?:nearby[ \t]+)?in[ \t]+({_W}(?:[ \t]+{_W})?)", flags)

    def detect(self, text: str, vocabulary=None) -> list[Span]:  # noqa: C901 (one rule per block)
        """Spans of ``text``; ``vocabulary`` (`lexicon.Vocabulary`): corpus words that are no names."""
        spans: list[Span] = []
        v = vocabulary

        # a name found by its context outranks an NER label guess (`ner.SPACY_NAME_SCORE`) for the same
        # words: "her daughter Elena" is a PERSON whatever spaCy calls it
        def add(bounds, label, score=0.9):
            if bounds and bounds[1] > bounds[0]:
                spans.append(Span(bounds[0], bounds[1], label, score, self.name))

        for regex, strong in ((self.doctor, True), (self.title, False)):
            for m in regex.finditer(text):
                run = _name_run(text, m.end(), self.title_zipf, any_known=True, vocabulary=v, strong=strong)
                add(run, "PERSON")
                while run:
                    more = self.also.match(text, run[1])
                    if not more:
                        break
                    run = _name_run(
                        text, more.end(), self.title_zipf, any_known=True, vocabulary=v, strong=strong
                    )
                    add(run, "PERSON")
        for m in self.initial.finditer(text):
            run = _name_run(text, m.end(), self.title_zipf, limit=1, vocabulary=v)
            if run and text[run[0]].isupper() and run[1] - run[0] >= 3:
                add((m.start(), run[1]), "PERSON")
        for m in self.credential.finditer(text):
            # names before the credential: up to 3 words back on the same line, at least one a known name
            line_start = text.rfind("\n", 0, m.start()) + 1
            before = list(re.finditer(rf"(?:{_INITIAL}[ \t]+)?{_W}", text[line_start : m.start()]))[-3:]
            words = [b for b in before if name_word(b.group().split()[-1], self.max_zipf, vocabulary=v)]
            # keep the contiguous tail of name words
            tail = []
            for b in reversed(before):
                if b in words:
                    tail.insert(0, b)
                else:
                    break
            last = [b.group().split()[-1] for b in tail]
            if tail and (
                any(is_name_word(w) for w in last)
                or (len(last) >= 2 and all(w[0].isupper() and zipf(w) < 3.0 for w in last))
            ):
                add((line_start + tail[0].start(), line_start + tail[-1].end()), "PERSON")
        for m in self.patient.finditer(text):
            add(_name_run(text, m.end(), self.title_zipf, limit=2, any_known=True, vocabulary=v), "PERSON")
        for m in self.kin.finditer(text):
            # a capitalised word after a kinship word in mixed case is a name unless very frequent
            capitalised = text[m.end() : m.end() + 1].isupper() and not in_caps_line(text, m.end())
            bound = self.title_zipf if capitalised else self.max_zipf  # "daughter Elena"
            add(_name_run(text, m.end(), bound, limit=2, any_known=True, vocabulary=v), "PERSON")
        for m in self.call.finditer(text):
            add(_name_run(text, m.end(), self.max_zipf, known_first=True, vocabulary=v), "PERSON")
        for m in self.facility.finditer(text):
            # casing says nothing on an ALL-CAPS line or in a text without capitals: any word but a generic
            # or frequent one ("UNION HOSPITAL", "reisterstown hospital"); elsewhere capitalised words
            unmarked = not uses_capitals(text) or in_caps_line(text, m.start())  # one line table a text
            kept = []  # those words right before the facility word
            for w in reversed(list(re.finditer(_W, m.group(1)))):
                word = w.group()
                if (
                    word.lower() in _NOT_FACILITY_WORD
                    or word.lower() in stop_words()
                    or (not unmarked and not word[0].isupper())
                    or (unmarked and not _facility_name(word, v))
                ):
                    break
                kept.insert(0, w)
            if kept:
                start = m.start(1) + kept[0].start()
                saint = _SAINT.search(text, max(0, start - 8), start)  # "St. Mary Hospital"
                add((saint.start() if saint else start, m.end()), "LOCATION", 0.7)
        for m in self.university.finditer(text):
            add(m.span(), "LOCATION", 0.7)
        for m in self.ward.finditer(text):
            if len(m.group(1)) > 3 and zipf(m.group(1)) < 3.0 and not is_clinical_term(m.group(1)):
                add(m.span(1), "LOCATION", 0.6)
        for m in self.hospital.finditer(text):
            word = m.group(1)
            initialism = word.endswith("MC") or not re.search("[AEIOUY]", word[1:]) or len(word) <= 3
            if initialism and word not in _NOT_FACILITY and zipf(word) < self.max_zipf:
                add(m.span(1), "LOCATION", 0.6)
        for m in self.lives.finditer(text):
            words = [w for w in re.finditer(_W, m.group(1)) if w.group().lower() not in stop_words()]
            if words:
                add((m.start(1) + words[0].start(), m.start(1) + words[-1].end()), "LOCATION", 0.6)
        return spans
