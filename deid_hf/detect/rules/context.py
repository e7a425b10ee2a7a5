"""The clinical context rules: clinicians, patients, relatives and care facilities named next to a title,
credential, kinship word or facility word, one named rule each (`deid_hf.detect.clinical` describes them;
`ClinicalContextDetector` runs them in order). A name word is a letter sequence that is not a stop word and
is either a known person name (`lexicon.is_name_word`) or not a frequent English word."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..casing import in_caps_line
from ..lexicon import (
    Vocabulary,
    drug_names,
    family_names,
    folded,
    given_names,
    is_abbreviation,
    is_clinical_term,
    is_known_name,
    is_name_word,
    rare_or_known,
    stop_words,
    zipf,
)
from ..text_shape import (
    ASCII_WORD,
    ASCII_WORD_NO_BACKTRACK,
    CLINICIAN_TITLE_ABBREVIATIONS,
    CLITIC,
    COMMON_WORD_ZIPF,
    FACILITY_NAME_MAX_ZIPF,
    NAME_IS_COMMON_WORD_ZIPF,
    RARE_NAME_ZIPF,
    SIGNATURE_NAME_MAX_ZIPF,
    WORD_ANY_SCRIPT,
    sentence_start,
    uses_capitals,
)
from ..text_shape import FACILITY_WORDS as _FACILITY
from ..text_shape import KINSHIP_WORDS as _KIN
from . import Rule, register_rule
from .names import INITIAL as _INITIAL
from .names import NOT_NAMES as NOT_NAMES  # re-exported: `clinical` imports it from here
from .names import name_run, name_word
from .names import names_are_capitalised as names_are_capitalised  # re-exported

_W = ASCII_WORD
#: a doctor title: the next word is a name even if the corpus uses it as a common word ("Dr. Foley")
_DOCTOR = r"(?:dr's|drs|doctor|dr)"
_TITLE_WORD = r"(?:nurse|attending|resident|fellow|physicians?|doctors?)"
#: a clinician's role written before a name as often as before a team or a service ("surgeon Bariatric
#: service"): a name after it needs a known name first
_ROLE = (
    r"(?:pcp|intern|surgeon|cardiologist|oncologist|neurologist|psychiatrist|pharmacist|therapist|"
    r"social[ \t]+worker|case[ \t]+manager)"
)
_CREDENTIAL = r"(?:RN|R\.N\.|MD|M\.D\.|NP|RRT|BSN|bsn/rn|LICSW|CNS|PA-C|RT)"
_CALL = (
    r"(?:per|contacts?|contacted|informed|updated|"
    r"(?P<talked>called|paged|notified|spoke[ \t]+(?:with|to)|discussed[ \t]+with))"
)
#: initialisms ending in H or MC that name no facility: generic ones (outside hospital, nursing home,
#: long-term care), hemorrhages and hypertrophies (ICH, SDH, LVH, BPH) and hormones (TSH, ACTH, LDH)
_NOT_FACILITY_INITIALISMS = (
    "OSH NH SNF LTAC LTACH ECF ALF ICH SAH SDH EDH IVH IPH PPH UGIH LGIH GIH BPH LVH RVH LAH RAH TSH PTH "
    "ACTH LDH ADH SIADH FSH HGH DHEAH"
)
_NOT_FACILITY = frozenset(_NOT_FACILITY_INITIALISMS.split())
#: words before a facility word that name no facility ("the", "outside", "cardiac", "psych", "poss")
_NOT_FACILITY_WORD = frozenset(
    "the a an this that outside osh other another previous same local nearby cardiac "  # noqa: SIM905
    "pulmonary psych psychiatric nursing acute rehab basic prior begin poss possible potential".split()
)
FACILITY_NAME_ZIPF = FACILITY_NAME_MAX_ZIPF


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


@dataclass(frozen=True, kw_only=True)
class ContextRule(Rule):
    """Finds ``labels[0]`` spans at ``score`` by their context: ``find(text, vocabulary, bounds)`` yields
    (start, end) pairs or None; ``bounds`` has the detector's ``max_zipf`` and ``title_zipf``."""

    score: float
    find: Callable[..., Iterator[tuple[int, int] | None]]


def _context_rule(name, label, score, reason, examples, find) -> ContextRule:
    rule = ContextRule(
        name=name, family="context", labels=(label,), reason=reason, examples=examples, score=score, find=find
    )
    return register_rule(rule)


_I = re.IGNORECASE
_DOCTOR_RX = re.compile(rf"\b{_DOCTOR}\b\.?:?[ \t]*", _I)
#: a clinician's title before a name: an abbreviation with or without its full stop ("NP. Halvorsen"), a word
#: without one (a full stop after "nurse" ends a sentence: "via nurse. vols stable")
_TITLE_RX = re.compile(
    rf"\b(?:(?P<abbreviation>{CLINICIAN_TITLE_ABBREVIATIONS})\b\.?|{_TITLE_WORD}\b(?!\.)):?[ \t]*", _I
)
_CAPITALISED_WORD_AND_COMMA = re.compile(r"\b[A-Z][a-z]+,[ \t]?$")
_ROLE_RX = re.compile(rf"\b{_ROLE}\b:?[ \t]*", _I)
#: a team's or a service's word after the words a role is followed by ("Surgeon: Ortho team")
_TEAM_AFTER = re.compile(r"[ \t]+(?i:team|service|clinic|dept|department|group|consult|unit)\b")
_ALSO_RX = re.compile(r"[ \t]*(?:and|&|/)[ \t]*(?:dr\.?[ \t]*)?", _I)
_INITIAL_RX = re.compile(rf"(?<![\w/'’.&<>])[A-Z]\.[ \t](?={_W})")
# from the start of the blanks before it, each blank run read once: two optional blank runs around an
# optional comma split a long blank run every way there is (cubic in its length)
# (possessive blanks); then (?!\w), not \b: after the dot of "R.N." a \b needs a word character
_CREDENTIAL_RX = re.compile(rf"(?<![ \t])[ \t]*+(?:,[ \t]*+)?(?<![\w/]){_CREDENTIAL}(?!\w)", _I)
_PATIENT_RX = re.compile(r"\b(?:(?:mr|mrs|miss)\b\.?|ms\.)[ \t]*", _I)
#: a name field's one word alone on its line is a name when rarer than this (wordfreq Zipf: "MARROWIND";
#: not "Unresponsive", "Declined", "Redacted")
LONE_NAME_ZIPF = RARE_NAME_ZIPF
#: a comma between a surname and a given name ("Marrowind, Ilsabet")
_COMMA = re.compile(r",[ \t]*")
#: the end of a line, after blanks
_LINE_END = re.compile(r"[ \t]*(?:\r?\n|$)")
#: a form's field for a person's name, at a line's start ("PATIENT: ", "Name: ", "Patient name: ",
#: "Emergency contact: ", "Next of kin: ")
_NAME_FIELD_RX = re.compile(
    r"(?im)^[ \t]*(?:(?:patient|pt|client|customer|caller|applicant|full)(?:['’]s)?[ \t]+name|patient|name|"
    r"client|customer|caller|applicant|(?P<contact>emergency[ \t]+contact(?:[ \t]+name)?|contact[ \t]+person|"
    r"next[ \t]+of[ \t]+kin|nok|guardian|(?:health[ \t]*care[ \t]+)?proxy|hcp))[ \t]*:[ \t]*"
)
_KIN_RX = re.compile(rf"\b{_KIN}\b[ \t]*[,:\-]?[ \t]*\(?(?:named[ \t]+)?", _I)
_CALL_RX = re.compile(rf"\b{_CALL}\b[ \t]*(?:dr\.?[ \t]*|np[ \t]+|rn[ \t]+)?", _I)
# possessive words starting at a word start: a hyphen belongs to its word, never to the separator
# (ambiguity between the two made long "a-a-a-" runs backtrack exponentially)
_FACILITY_RX = re.compile(
    rf"(?<![A-Za-z'’-])((?:{ASCII_WORD_NO_BACKTRACK}[ \t]+(?:-[ \t]+)?){{1,3}}){_FACILITY}\b", _I
)
_HOSPITAL_RX = re.compile(
    r"(?i:(?<!due )(?<!secondary )(?<!related )(?<!prior )(?<!2/2 )"  # a cause, not a place
    r"\b(?:to|at|from|in|by)[ \t]+(?:the[ \t]+)?)\b([A-Z]{1,4}H|[A-Z]{1,3}MC)\b"
)
_BLANKS = re.compile(r"[ \t]+")
#: a message's closing words at a line's start, longest first, the name after them on the same line (after
#: a comma, "!", "." or a dash) or on one of the next two ("Thanks, Wiktor", "Best regards,\nAnna Kowalska",
#: "Thanks,\n\nWiktor", "Thanks - Wiktor")
_SIGN_OFF_RX = re.compile(
    r"(?im)^[ \t]*(?:(?:kind|best|warm|warmest|many)[ \t]+(?:regards|thanks|wishes)|best[ \t]+rgds|"
    r"thanks[ \t]+(?:and|&)[ \t]+regards|thanks[ \t]+so[ \t]+much|thank[ \t]+you|all[ \t]+the[ \t]+best|"
    r"take[ \t]+care|yours[ \t]+(?:truly|sincerely)|many[ \t]+thanks|thanks|thx|cheers|regards|rgds|best|"
    r"sincerely)\b[ \t]*[,!.\-–—]?[ \t]*(?:\r?\n[ \t]*){0,2}"
)
#: a message's subject line at a line's start ("RE: ", "Subject: ", "Fwd: ")
_SUBJECT_RX = re.compile(r"(?im)^[ \t]*(?:(?:re|fwd?|aw)[ \t]*:[ \t]*)+|^[ \t]*subject[ \t]*:[ \t]*")
#: what ends the name a subject line opens with: a dash, a colon, a comma or the line's end
_SUBJECT_NAME_END = re.compile(r"[ \t]*(?:[-–—:,(]|\r?\n|$)")


def _word_before(verbs: str) -> re.Pattern:
    """A word of any script (group 1) right before one of ``verbs`` (a regex alternation, any case)."""
    return re.compile(rf"(?<![\w'’-])({WORD_ANY_SCRIPT.pattern})[ \t]+(?i:{verbs})\b")


#: a word before a verb of calling or visiting ("Mondadori called", "Johansson phoned back")
_BEFORE_CALL_RX = _word_before(r"called|phoned|rang|telephoned|visited|stopped[ \t]+by")
#: a word before a verb a person reports or is in a state with ("Senost reports", "Juliette is doing well")
_BEFORE_REPORT_RX = _word_before(
    r"reports|reported|states|stated|denies|denied|complains|complained|feels|felt|says|said|slept|ate|"
    r"walked|(?:is|was)[ \t]+(?:doing|resting|sleeping|feeling|eating|awake|alert|seen|admitted|discharged)"
)
_LIVES_RX = re.compile(rf"\blives?[ \t]+(?:nearby[ \t]+)?in[ \t]+({_W}(?:[ \t]+{_W})?)", _I)
#: a kind of place or dwelling in lower case after "lives in" ("the village of Sadova", "a nursing home"): no
#: name ("Country Club Hills", "Park City" are)
_KIND_OF_PLACE = frozenset(
    "village town city area house home flat apartment suburb community region district countryside "  # noqa: SIM905
    "neighbourhood neighborhood building nursing group assisted senior shelter".split()
)


def _after_title(regex: re.Pattern, strong: bool):
    """Names after each match of ``regex``, and after "and"/"&"/"/" that join more names to them."""

    def find(text: str, vocabulary: Vocabulary | None, bounds) -> Iterator[tuple[int, int] | None]:
        for m in regex.finditer(text):
            if _credential_after_name(text, m):
                continue
            run = name_run(
                text, m.end(), bounds.title_zipf, any_known=True, vocabulary=vocabulary, strong=strong
            )
            yield run
            while run:
                more = _ALSO_RX.match(text, run[1])
                if not more:
                    break
                run = name_run(
                    text, more.end(), bounds.title_zipf, any_known=True, vocabulary=vocabulary, strong=strong
                )
                yield run

    return find


def _credential_after_name(text: str, m: re.Match) -> bool:
    """The title of ``m`` is an abbreviation written as a credential after a capitalised name and its comma,
    with a lower-case word after it ("Arthur Peppler,MD madeno vent"; not "Dr. Ames, NP Okafor", "dr ames,
    np okafor", "Smith, attending jones agrees")."""
    return (
        m.groupdict().get("abbreviation") is not None
        and _CAPITALISED_WORD_AND_COMMA.search(text, max(0, m.start() - 40), m.start()) is not None
        and text[m.end() : m.end() + 1].islower()
    )


def _initial_and_surname(text, vocabulary, bounds):
    """An initial and a name word as rare as after a title; as rare as a name in running text after a
    roman numeral that begins a line where casing tells nothing (a heading's "I. ALLEGED VIOLATION")."""
    for m in _INITIAL_RX.finditer(text):
        numeral = (
            text[m.start()] in "IVX" and not text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
        )
        heading = numeral and not names_are_capitalised(text, m.end())
        rarer_than = bounds.max_zipf if heading else bounds.title_zipf
        run = name_run(text, m.end(), rarer_than, limit=1, vocabulary=vocabulary)
        if run and text[run[0]].isupper() and run[1] - run[0] >= 3:
            yield (m.start(), run[1])


def _signature(text, vocabulary, bounds):
    """Names before a credential: up to 3 words back on the same line, the contiguous tail of name words,
    at least one a known name (or two or more capitalised rare words)."""
    for m in _CREDENTIAL_RX.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = list(re.finditer(rf"(?:{_INITIAL}[ \t]+)?{_W}", text[line_start : m.start()]))[-3:]
        words = [
            b for b in before if name_word(b.group().split()[-1], bounds.max_zipf, vocabulary=vocabulary)
        ]
        tail = []
        for b in reversed(before):
            if b not in words:
                break
            tail.insert(0, b)
        last = [b.group().split()[-1] for b in tail]
        if tail and (
            any(is_name_word(w) for w in last)
            or (len(last) >= 2 and all(w[0].isupper() and zipf(w) < SIGNATURE_NAME_MAX_ZIPF for w in last))
        ):
            yield (line_start + tail[0].start(), line_start + tail[-1].end())


def _in_name_field(text, vocabulary, bounds):
    """The name written in a form's name field, after its label at a line's start: two or three name words
    (also capitalised ones after a surname's comma, each rare or a known name: "Patient: Marrowind,
    Ilsabet"), one known name, one name word alone on its line ("PATIENT: MARROWIND"), or an everyday
    surname before a comma and a given name (`_surname_then_given`: "Patient: Black, Gavin"; "Patient:
    Nauseous, vomited", "Customer: Thx." hold one rare word followed by more)."""
    for m in _NAME_FIELD_RX.finditer(text):
        run = name_run(text, m.end(), bounds.max_zipf, limit=3, any_known=True, vocabulary=vocabulary)
        words = text[run[0] : run[1]].split() if run else []
        comma = _COMMA.match(text, run[1]) if run else None
        given = (
            comma
            and text[comma.end() : comma.end() + 1].isupper()
            and _given_after_comma(text, comma.end(), words, bounds, vocabulary)
        )
        if given:
            run, words = (run[0], given[1]), words + text[given[0] : given[1]].split()
        alone = (  # a contact's field holds agencies and documents as often ("Guardian: DCFS", "NOK: DPOA")
            run is not None
            and m.group("contact") is None
            and _LINE_END.match(text, run[1]) is not None
            and zipf(words[0]) < LONE_NAME_ZIPF
        )
        if len(words) >= 2 or alone or any(is_name_word(w) for w in words):
            yield run
        else:
            yield _surname_then_given(text, m.end(), contact=m.group("contact") is not None)


#: a kinship or proxy word alone ("Cousin" of "NOK: Cousin, Maria" is one of Faker's surnames too)
_KIN_WORD = re.compile(_KIN, _I)
#: a surname, a comma and one given name ending its line ("Black, Gavin")
_SURNAME_COMMA_GIVEN = re.compile(
    rf"({WORD_ANY_SCRIPT.pattern}),[ \t]*({WORD_ANY_SCRIPT.pattern})[ \t]*(?=\r?\n|$)"
)


def _surname_then_given(text: str, start: int, contact: bool = False) -> tuple[int, int] | None:
    """A name field's "Surname, Given" where the surname is an everyday word that no name run takes ("Black,
    Gavin", "Seven, Gülenay"): the surname one of Faker's surnames, the given name one of its given names
    and no very frequent English word, alone after the comma on its line, both capitalised; in a contact's
    field (``contact``) no kinship word ("NOK: Daughter, Jane", "NOK: Cousin, Maria" and "Patient: Calm,
    Grace" hold no surname; "Patient: Cousin, Noémi" does)."""
    m = _SURNAME_COMMA_GIVEN.match(text, start)
    if m is None:
        return None
    surname, given = m.group(1), m.group(2)
    return (
        (m.start(1), m.end(2))
        if all(w[:1].isupper() and not w.isupper() for w in (surname, given))
        and not (contact and _KIN_WORD.fullmatch(surname))
        and folded(surname) in family_names()
        and folded(given) in given_names()
        and zipf(given) < NAME_IS_COMMON_WORD_ZIPF
        else None
    )


def _given_after_comma(text, start, surname, bounds, vocabulary):
    """The given names after a surname's comma when every word of both is rare or a known name
    (`lexicon.rare_or_known`: "Dorel, Ostkamptes"; not "Somnolent, Arousable", "Nonverbal, Bedbound")."""
    given = name_run(text, start, bounds.max_zipf, limit=2, any_known=True, vocabulary=vocabulary)
    words = surname + (text[given[0] : given[1]].split() if given else [])
    return given if given and all(rare_or_known(w, bounds.title_zipf) for w in words) else None


def _after_patient_title(text, vocabulary, bounds):
    for m in _PATIENT_RX.finditer(text):
        yield name_run(text, m.end(), bounds.title_zipf, limit=2, any_known=True, vocabulary=vocabulary)


def _after_role(text, vocabulary, bounds):
    for m in _ROLE_RX.finditer(text):
        field = ":" in m.group()  # "PCP: Niemeier": a form's field holds a name, known or not
        run = name_run(
            text,
            m.end(),
            bounds.title_zipf,
            limit=2,
            known_first=not field,
            any_known=True,  # "Surgeon: Brown", "intern John Smith": a known name, however frequent
            vocabulary=vocabulary,
        )
        yield None if run and _TEAM_AFTER.match(text, run[1]) else run


#: a word right after a kinship word (`_after_kinship_word`)
_KIN_NEXT_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*(?![\w'’-])")


def _after_kinship_word(text, vocabulary, bounds):
    """Names after a kinship or proxy word: capitalised in mixed case, any word but a very frequent one
    ("daughter Elena"); else a known name, and where nothing else reads as a name a given name of any of
    Faker's cultures, however frequent, that is no stop word, clinical term or corpus vocabulary
    ("significant other charlie", "SON NIKO")."""
    for m in _KIN_RX.finditer(text):
        capitalised = text[m.end() : m.end() + 1].isupper() and not in_caps_line(text, m.end())
        bound = bounds.title_zipf if capitalised else bounds.max_zipf
        run = name_run(text, m.end(), bound, limit=2, any_known=True, vocabulary=vocabulary)
        word = _KIN_NEXT_WORD.match(text, m.end()) if run is None else None
        given = (  # `name_word` with no frequency bound: only its stop-word, term and vocabulary checks
            word is not None
            and folded(word.group()) in given_names()
            and name_word(word.group(), math.inf, vocabulary=vocabulary)
        )
        yield word.span() if given else run


def _after_call_word(text, vocabulary, bounds):
    """A known name; where casing tells names, also a capitalised word, no acronym, that is a name of any of
    Faker's cultures ("Per Okonkwo") or, after a word of talking to someone ("spoke with", "called",
    "paged", "notified"), a rare word (`lexicon.rare_or_known`: "Spoke with Marrowind"; not "Spoke with
    Radiology", "Per Rheum", "Updated Tdap", "Paged NICU")."""
    for m in _CALL_RX.finditer(text):
        known = name_run(text, m.end(), bounds.max_zipf, known_first=True, vocabulary=vocabulary)
        if known is not None or not text[m.end() : m.end() + 1].isupper():
            yield known
            continue
        if not names_are_capitalised(text, m.end()):
            yield None
            continue
        run = name_run(text, m.end(), bounds.title_zipf, any_known=True, vocabulary=vocabulary)
        first = CLITIC.sub("", text[run[0] : run[1]].split()[0]) if run else ""  # "MD's": "MD"
        if m.group("talked") is not None:
            name = rare_or_known(first, bounds.title_zipf)
        else:
            name = is_known_name(first) and zipf(first) < bounds.title_zipf
        yield run if run and name and not first.isupper() else None


def _after_sign_off(text, vocabulary, bounds):
    """The name after a message's closing words, alone on its line: one to three words, each a known name
    or rare (`lexicon.rare_or_known`); no abbreviation, no drug's name, and in capitals only on an ALL-CAPS
    line ("Thanks, Wiktor", "Thanks, Brinvos", "Kind regards,\nIlsabet Marrowind", "Thanks,\nJohn Smith";
    not "Thanks, Team", "Thanks,\nUrology", "Thanks,\nHeparin", "Thanks, PACU", "THANKS,\nKEFLEX",
    "Thanks, see you Monday", nor "Best" of "Thank you!\nBest\nWiktor", itself closing words). A rare
    word alone (`_rare_word_alone`) is a name there far more often than a product's ("Best,\nOkta" is
    masked too)."""
    for m in _SIGN_OFF_RX.finditer(text):
        if _SIGN_OFF_RX.match(text, m.end()):
            continue  # closing words after closing words: the name is after the last
        run = name_run(text, m.end(), bounds.max_zipf, any_known=True, vocabulary=vocabulary)
        words = text[run[0] : run[1]].split() if run else []
        yield (
            run
            if words
            and _LINE_END.match(text, run[1])
            and all(_written_as_name(text, run[0], w) for w in words)
            and all(is_known_name(w) or rare_or_known(w, bounds.title_zipf) for w in words)
            and (len(words) > 1 or is_known_name(words[0]) or _rare_word_alone(words[0]))
            else None
        )


def _subject_name(text, vocabulary, bounds):
    """Two or three capitalised words at a subject line's start, each rare or a known name
    (`lexicon.rare_or_known`), before a dash, colon, comma or the line's end ("RE: Panfilo Casale -
    discharge summary"; not "RE: Discharge Planning", "Subject: Team Meeting")."""
    for m in _SUBJECT_RX.finditer(text):
        run = name_run(text, m.end(), bounds.max_zipf, any_known=True, vocabulary=vocabulary)
        words = text[run[0] : run[1]].split() if run else []
        yield (
            run
            if len(words) >= 2
            and all(w[0].isupper() and rare_or_known(w, bounds.title_zipf) for w in words)
            and _SUBJECT_NAME_END.match(text, run[1])
            else None
        )


def _rare_word_alone(word: str) -> bool:
    """A rare word that stands alone where a name may: not in capitals (an ALL-CAPS note's "KEFLEX"), no
    drug's name (`lexicon.drug_names`)."""
    return not word.isupper() and word.lower() not in drug_names()


def _written_as_name(text: str, start: int, word: str) -> bool:
    """Whether ``word`` at ``start`` is written as a name may be: no abbreviation, in capitals only on an
    ALL-CAPS line ("PACU", "MICU" in a mixed-case line are none)."""
    return not is_abbreviation(word) and (not word.isupper() or in_caps_line(text, start))


def _before_verb(regex: re.Pattern):
    """Capitalised name words before each match's verb (group 1), rare or a known name
    (`lexicon.rare_or_known`), in capitals only on an ALL-CAPS line."""

    def find(text, vocabulary, bounds):
        for m in regex.finditer(text):
            word = m.group(1)
            if (
                word[0].isupper()
                and _written_as_name(text, m.start(1), word)
                and name_word(word, bounds.max_zipf, vocabulary=vocabulary)
                and rare_or_known(word, bounds.max_zipf)
            ):
                yield m.span(1)

    return find


def _capitals_run(text, vocabulary, bounds):
    """Two or three name words in capitals (`_capitals_name_word`) inside a line that is not in capitals,
    once the run's other words are cut from its ends ("PT", "ASAP", "DOB"), one of 4 letters or more and
    one rare or a known name (`lexicon.rare_or_known`): "the chart of ILSABET MARROWIND", "Spoke to PT
    SEVER DINU"; not "PICC LINE", "HEPARIN GTT", "MRSA SWAB", "NO CHANGES"."""
    run: list[re.Match] = []
    for m in [*WORD_ANY_SCRIPT.finditer(text), None]:
        if (
            m is not None
            and m.group().isupper()
            and (not run or _BLANKS.fullmatch(text, run[-1].end(), m.start()))
        ):
            run.append(m)
            continue
        names = [w for w in run if _capitals_name_word(w.group(), bounds, vocabulary)]
        if names and run.index(names[0]) + len(names) - 1 == run.index(names[-1]):  # one run of names
            words = [w.group() for w in names]
            if (
                2 <= len(names) <= 3
                and not in_caps_line(text, names[0].start())
                and any(len(w) >= 4 for w in words)
                and any(rare_or_known(w, bounds.title_zipf) for w in words)
            ):
                yield (names[0].start(), names[-1].end())
        run = [m] if m is not None and m.group().isupper() else []


def _capitals_name_word(word: str, bounds, vocabulary) -> bool:
    """A word in capitals that may be a name: no abbreviation, and a name word (`name_word`) or a known name
    less frequent than a title's name ("ARENT")."""
    if is_abbreviation(word):
        return False
    return name_word(word, bounds.max_zipf, any_known=True, vocabulary=vocabulary) or (
        rare_or_known(word, bounds.title_zipf) and name_word(word, bounds.title_zipf, vocabulary=vocabulary)
    )


def _facility_words(text: str, m: re.Match, vocabulary) -> list[re.Match]:
    """The words right before the facility word that can name it: capitalised ones; where casing says
    nothing (an ALL-CAPS line, a text without capitals) any but a generic or frequent one."""
    unmarked = not uses_capitals(text) or in_caps_line(text, m.start())
    kept: list[re.Match] = []
    for w in reversed(list(re.finditer(_W, m.group(1)))):
        word = w.group()
        if (
            word.lower() in _NOT_FACILITY_WORD
            or word.lower() in stop_words()
            or (not unmarked and not word[0].isupper())
            or (unmarked and not _facility_name(word, vocabulary))
        ):
            break
        kept.insert(0, w)
    if len(kept) > 1 and _capitalised_by_position(text, m.start(1) + kept[0].start(), kept[0].group()):
        kept.pop(0)  # "Visited Mayo Clinic": the capital of a sentence's first word says nothing
    return kept


def _capitalised_by_position(text: str, start: int, word: str) -> bool:
    """A frequent word, no known name, that begins a sentence: its capital tells no name."""
    return zipf(word) >= COMMON_WORD_ZIPF and not is_name_word(word) and sentence_start(text, start)


def _before_facility_word(text, vocabulary, bounds):
    for m in _FACILITY_RX.finditer(text):
        kept = _facility_words(text, m, vocabulary)
        if kept:
            start = m.start(1) + kept[0].start()
            saint = _SAINT.search(text, max(0, start - 8), start)  # "St. Mary Hospital"
            yield (saint.start() if saint else start, m.end())


def _hospital_initialism(text, vocabulary, bounds):
    for m in _HOSPITAL_RX.finditer(text):
        word = m.group(1)
        initialism = word.endswith("MC") or not re.search("[AEIOUY]", word[1:]) or len(word) <= 3
        if initialism and word not in _NOT_FACILITY and zipf(word) < bounds.max_zipf:
            yield m.span(1)


def _lives_in(text, vocabulary, bounds):
    for m in _LIVES_RX.finditer(text):
        words = [
            w
            for w in re.finditer(_W, m.group(1))
            if w.group().lower() not in stop_words() and not text.startswith("/", m.start(1) + w.end())
        ]  # not the "w" of "w/"
        if words and not (words[0].group().islower() and words[0].group() in _KIND_OF_PLACE):
            yield (m.start(1) + words[0].start(), m.start(1) + words[-1].end())


# a name found by its context outranks an NER label guess (`ner.SPACY_NAME_SCORE`) for the same words
_context_rule(
    "context.after-doctor-title",
    "PERSON",
    0.9,
    "names after Dr/Drs/Dr's/doctor, even a word the corpus uses as a common word ('Dr. Foley')",
    ("Dr. Wojcik", "DR'S WOJCIK AND FERRANTE"),
    _after_title(_DOCTOR_RX, strong=True),
)
_context_rule(
    "context.after-clinician-title",
    "PERSON",
    0.9,
    "names after NP, HO, MD, nurse, attending, resident, fellow, physician; not after a word that ends a "
    "sentence ('via nurse. vols') nor a credential after a name and its comma ('Peppler,MD madeno')",
    ("NP Halvorsen", "attending Wojcik"),
    _after_title(_TITLE_RX, strong=False),
)
_context_rule(
    "context.after-clinician-role",
    "PERSON",
    0.9,
    "names after PCP, intern, surgeon, a specialist, a pharmacist, therapist, social worker or case manager: "
    "in a form's field ('PCP: Niemeier') not before a team's word, else when the first word is a known name "
    "('surgeon Bariatric service' is none)",
    ("PCP: Niemeier", "Surgeon: Okonkwo"),
    _after_role,
)
_context_rule(
    "context.initial-and-surname",
    "PERSON",
    0.9,
    "an initial and a capitalised name word",
    ("R. Lindqvist",),
    _initial_and_surname,
)
_context_rule(
    "context.signature",
    "PERSON",
    0.9,
    "names before a credential (RN, MD, BSN...), at least one a known name",
    ("Laura Pennington, RN", "laura pennington bsn/rn"),
    _signature,
)
_context_rule(
    "context.after-patient-title",
    "PERSON",
    0.9,
    "names after Mr, Mrs, Ms, Miss",
    ("Mrs. Abernathy",),
    _after_patient_title,
)
_context_rule(
    "context.name-field",
    "PERSON",
    0.9,
    "the name in a form's name field, after 'Patient:', 'Name:', 'Patient name:', 'Emergency contact:', "
    "'Next of kin:' at a line's start, where a model may not know a rare name written in capitals; a "
    "frequent word ends it ('Patient: stable')",
    (
        "PATIENT: ILSABET MARROWIND",
        "Name: Quenby Harrowgate",
        "Emergency contact: Brinrowvos Rowrik (sister)",
    ),
    _in_name_field,
)
_context_rule(
    "context.after-kinship-word",
    "PERSON",
    0.9,
    "names after a kinship or proxy word; capitalised in mixed case, any word but a very frequent one; "
    "else a given name of any culture, however frequent, that is no stop word or clinical term",
    ("son Teodor", "Niece, Ilse Varga", "significant other charlie"),
    _after_kinship_word,
)
_context_rule(
    "context.after-call-word",
    "PERSON",
    0.9,
    "names after per/called/paged/notified/contacts/spoke with when the first word is a known name or, where "
    "casing tells names, a capitalised name of any culture or, after a word of talking to someone, a rare "
    "word",
    ("paged Kevin Oduya", "Spoke with Marrowind about"),
    _after_call_word,
)
_context_rule(
    "context.before-call-verb",
    "PERSON",
    0.8,
    "a capitalised name word before called/phoned/rang/visited/stopped by, rare or a known name, in capitals "
    "only on an ALL-CAPS line ('Pharmacy called', 'Neuro visited', 'MICU called' are none)",
    ("Mondadori called about the results",),
    _before_verb(_BEFORE_CALL_RX),
)
_context_rule(
    "context.before-report-verb",
    "PERSON",
    0.8,
    "a capitalised name word before reports/states/denies/feels/said or 'is doing'/'was seen'..., rare or a "
    "known name, in capitals only on an ALL-CAPS line ('Family reports', 'Neuro feels', 'Pt states' are "
    "none)",
    ("Senost is doing well", "Juliette reports less pain"),
    _before_verb(_BEFORE_REPORT_RX),
)
_context_rule(
    "context.after-sign-off",
    "PERSON",
    0.8,
    "the name after a message's closing words (thanks, regards, cheers, best wishes...) at a line's start, "
    "alone on its line or one of the next two: one to three words, each a known name or rare; no "
    "abbreviation, no drug, one rare word not in capitals ('Thanks, Team', 'Thanks, Urology', 'Thanks, "
    "Heparin', 'Thanks, PACU', 'THANKS, KEFLEX' are none)",
    ("Thanks, Wiktor", "Thanks, Brinvos", "Kind regards,\nAnna Kowalska"),
    _after_sign_off,
)
_context_rule(
    "context.subject-name",
    "PERSON",
    0.8,
    "two or three capitalised words opening a subject line (RE:, Fwd:, Subject:), each rare or a known "
    "name, before a dash, colon, comma or the line's end ('RE: Discharge Planning' is none)",
    ("RE: Panfilo Casale - discharge summary",),
    _subject_name,
)
_context_rule(
    "context.capitals-name",
    "PERSON",
    0.8,
    "two or three name words in capitals inside a line in mixed case, none an abbreviation, a clinical term "
    "or corpus vocabulary: a model may not know a rare name written in capitals",
    ("Reviewed the chart of ILSABET MARROWIND today",),
    _capitals_run,
)
_context_rule(
    "context.facility-name",
    "LOCATION",
    0.7,
    "capitalised words before Hospital/Medical Center/Rehab/Regional/Clinic ('St.' included)",
    ("Briarwood Hospital", "BRIARWOOD HOSPITAL"),
    _before_facility_word,
)
_context_rule(
    "context.hospital-initialism",
    "LOCATION",
    0.6,
    "2-5 capitals ending in H or MC after to/at/from/in/by, no generic one (OSH) nor a hemorrhage or hormone "
    "(ICH, TSH), not after 'due'/'secondary'",
    ("transferred to BMC",),
    _hospital_initialism,
)
_context_rule(
    "context.lives-in",
    "LOCATION",
    0.6,
    "the place after 'lives in', not a kind of place ('the village of', 'a nursing home')",
    ("lives in Westbrook",),
    _lives_in,
)
