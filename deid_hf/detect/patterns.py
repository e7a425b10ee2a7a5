"""Structured PII by pattern: presidio-analyzer's predefined recognizers plus what they lack.

From presidio (validated, with context-free scores): email, phone (phonenumbers), credit card (Luhn),
IBAN (checksum), IP, URL, US SSN, dates, US driver licence/passport/bank numbers, UK National Insurance
numbers (valid prefixes) and NHS numbers (checksum, after "NHS").
Added here because presidio has no such recognizer: street addresses (house number + street name with a
street-type word, or a European "Name 12" form), apartment/suite/PO-box units, multi-line postal blocks,
ZIP/postal codes (British and Canadian ones by their shape), MAC addresses, US federal and Central
European court file numbers, ages
("67 years old", "aged 67"), and any other digit-bearing token (IDs, record numbers).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # presidio's email check: offline snapshot

from ..spans import Span
from .base import Detector
from .text_shape import AGE_OVER_89_NOUNS, AGE_WORDS, DECADE_OF_AGE, KINSHIP_WORDS

PRESIDIO_LABELS = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "CREDIT_CARD": "ID",
    "IBAN_CODE": "ID",
    "IP_ADDRESS": "IP",
    "URL": "URL",
    "US_SSN": "ID",
    "DATE_TIME": "DATE_TIME",
    "US_DRIVER_LICENSE": "ID",
    "US_PASSPORT": "ID",
    "US_BANK_NUMBER": "ID",
    "US_ITIN": "ID",
    "MEDICAL_LICENSE": "ID",
    "UK_NINO": "ID",
    "UK_NHS": "ID",
}

_STREET_TYPES = (
    r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Terrace|Ter|Way|Place|Pl|"
    r"Parkway|Pkwy|Circle|Cir|Close|Square|Sq|Highway|Hwy|Trail|Crescent|Alley|Row|Gardens|Park|Hill|"
    r"Walk|Mews|Green|Grove|Loop|Pike|Plaza|Ridge|View|Vista|Crossing|Path|Port|Point|Heights|Estates|"
    r"utca|u|út"
)
#: abbreviations of an address's words written with a full stop ("St. Mary", "Mah. Atatürk Bulv. 15")
_ADDRESS_ABBREVIATIONS = r"St|Ste|Mt|Ft|Pt|Rd|Ave|Av|Blvd|Bd|Bulv|Mah|Cad|Sok|Str|Pl|Sq|Hwy|Apt|Bldg|Fl"
#: a capitalised word of an address: an abbreviation's or initials' full stops ("N.W."), full stops inside
#: it, never one that ends a sentence ("Abril. On September 30", "Li. On March 3" are no street and number)
_CAP = rf"(?:(?:{_ADDRESS_ABBREVIATIONS})\.|(?:[A-Z]\.){{2,}}|[A-ZÀ-Þ][\w'’-]*(?:\.[\w'’-]+)*)"
#: "6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677": from the house number (not the start of
#: the line) to the postal code; every line is bounded so that the pattern is linear in the text's length
_POSTAL_BLOCK = (
    r"(?<![\w.])\d{1,6}[A-Za-z]?\b[^\n]{0,60}\n[^\n]{1,60}\n,[ \t]*[A-Z0-9]{1,3}\n"
    r"[ \t]*[^\n\d]{0,40}?\d[\w-]*"
)
#: a British ("SW1A 1AA", "M1 3HE") or Canadian ("M5H 2S6") postal code, written in capitals with its space
POSTAL_CODE = r"\b(?:[A-Z]{1,2}\d[A-Z\d]?[ \t]\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]\d[A-Z]\d)\b"

# An age pattern may match its context around the age: its group named "value" is the span.
#: an age ends its clause ("F, 97, admitted"; "Pt is 93."), not a number with a unit ("93 kg", "97.8")
_CLAUSE_END = r"[ \t]*(?:[,;)]|\.(?!\d)|(?m:$))"
#: the words a note goes on with after an age and a sex ("93F with CHF", "F/96 admitted")
_NOTE_GOES_ON = r"[ \t]+(?:with|w/|presents|presenting|admitted|who|s/p|h/o|hx)\b"
#: a sex letter or word standing alone where a line starts, after "a", "Pt" or a header ("Pt: F", "HPI: M")
_SEX_CUE = (
    r"(?:(?m:^)|(?<=\ba )|\b(?i:pt|patient|sex(?:/age)?|gender|hpi|id|cc)\b:?)[ \t]*(?:F|M|(?i:female|male))"
)
#: an age after a sex and a comma or slash: "Pt: F, 97, admitted", "M/94", "Sex/Age: F/96", "HPI: M/94, hx"
AGE_AFTER_SEX = rf"{_SEX_CUE}(?:,[ \t]*|/)(?P<value>\d{{1,3}})(?={_CLAUSE_END}|{_NOTE_GOES_ON})"
#: an age before a sex under an "Age/Sex" header: "Age/Sex: 96/F"
AGE_BEFORE_SEX = r"(?i:\bage/sex:?)[ \t]*(?P<value>\d{1,3})(?=[ \t]*/?[ \t]*(?:F|M|(?i:female|male))\b)"
#: a relative's age after a kinship word and a comma: "Mom, 96, lives alone" (a singular word: "sons, 2" is
#: a count)
AGE_AFTER_KIN = rf"(?i:\b{KINSHIP_WORDS}\b)(?<![sS]),[ \t]*(?P<value>\d{{1,3}})(?={_CLAUSE_END})"
#: a decade after "in his/her/their/my": "in his late 90s", "in her early 90s", "in my forties" (not "SBP in
#: the mid-90s"); hipaa keeps those of 90 or more (`rules.identifiers`)
AGE_DECADE = rf"(?i:\bin[ \t]+(?:his|her|their|my|your|our)[ \t]+(?P<value>{DECADE_OF_AGE}))(?!\w)"
#: a word that states an age over 89: "nonagenarian", "centenarians"
AGE_NOUN = rf"(?i:\b{AGE_OVER_89_NOUNS}\b)"
#: the words before a person's age ending a clause
_AGE_SUBJECTS = [
    f"{who} {verb}" for who in ("pt", "patient", "she", "he", "who") for verb in ("is", "was", "is now")
]
#: a person's age ending a clause, in digits or in words: "Pt is 93.", "she was 91,", "is now 93", "who is
#: now 96,", "turned 92", "until I was nine." (not "HR is 93", "Pt is 93 kg"; "pt is 95 and" is as often a
#: saturation)
AGE_AFTER_PERSON = (
    r"(?i:"
    + "|".join(f"(?<=\\b{words} )" for words in (*_AGE_SUBJECTS, "i was"))
    + rf"|(?<=\bturned ))(?:\d{{1,3}}|{AGE_WORDS}\b)(?={_CLAUSE_END})"
)
#: an age of at most 120 in digits (a larger number after a person's words is a lab value or a vital sign)
_AGE_NUMBER = r"(?:1[01]\d|120|[1-9]?\d)(?!\d)"
#: an age a person says, or says of someone named before, in digits or in words: "I'm 39 and", "I am 45.",
#: "Connor, who's 19,", "I'm thirty-four and" (not "I'm 5 min away"; "she's 94," is left: in a note it is
#: as often a saturation)
AGE_SAID = (
    rf"(?i:(?<=\bi['’]m )|(?<=\bi am )|(?<=\bwho['’]s ))(?:{_AGE_NUMBER}|{AGE_WORDS}\b)"
    rf"(?={_CLAUSE_END}|[ \t]+and\b)"
)
#: an age after "at the age of": "at the age of 85", "at the age of nine", "at the age of one hundred and
#: two" (not "at the age of 90 days", "100 mg")
AGE_AT_THE_AGE_OF = (
    rf"(?i:\bat[ \t]+the[ \t]+age[ \t]+of[ \t]+(?P<value>{_AGE_NUMBER}|{AGE_WORDS}\b)"
    r"(?![ \t]*(?:days?|d|weeks?|wks?|months?|mos?|mg|mcg|g|kg|ml|%|percent|units?)\b))"
)

#: a gap of blanks no phone number is written across; the phone matcher reads one as a line break, so that a
#: candidate never spans a blanked filler run ("0x" * 8000 cost it time quadratic in the run's length)
_WIDE_GAP = re.compile(r"[ \t]{8,}")

EXTRA_PATTERNS: list[tuple[str, str, float]] = [
    # the full stop belongs to an abbreviated street type ("St."), not to "Street." ending a sentence
    (
        "ADDRESS",
        rf"\b\d{{1,6}}[A-Za-z]?(?:[ \t]+{_CAP}){{1,4}}[ \t]+(?:{_STREET_TYPES})\b(?:(?<![A-Za-z]{{5}})\.)?",
        0.9,
    ),
    (
        "ADDRESS",
        rf"(?<![\w'’.-]){_CAP}(?:[ \t]+{_CAP}){{0,2}}[ \t]+\d{{1,5}}[A-Za-z]?\b"
        r"(?=[ \t]*(?:,(?!\d)|\n|$|Apt|Suite))",  # not the thousands comma of "EUR 3,200"
        0.5,
    ),
    (
        "ADDRESS",
        r"\b(?:Apt|Apartment|Suite|Ste|Unit|Box|PSC|Unit|Floor|Fl|Room|Rm)\.?[ \t]*#?[ \t]*\d+[A-Za-z]?\b",
        0.8,
    ),
    ("ADDRESS", _POSTAL_BLOCK, 0.7),
    ("ADDRESS", POSTAL_CODE, 0.7),
    # "93 years old", "93 years of age", "93 yo", "93yoM", "91yof", "93 y.o.m.", "90 y.o. woman", "93yF",
    # "93 YO F"; "95th birthday"
    (
        "AGE",
        r"\b\d{1,3}(?=[ -]?(?i:years?|yrs?)[ -](?i:old|of age)\b|[ -]?(?i:yo|y/o)\b|[ -]?(?i:y\.o\.?)(?!\w)"
        r"|[ -]?(?i:yo|y/o|y\.o\.)[ ]?[FMfm]\b|[ -]?(?:y|Y)[ ]?(?:[FM]\b|[fm]\.))"
        r"|\b\d{2,3}(?=(?:st|nd|rd|th) birthday\b)",
        0.9,
    ),
    # a form's "Age: 94" / "Age: 94y" / "Age at death: 97" as well as "aged 67" (a header is capitalised)
    (
        "AGE",
        r"(?i:(?<=\baged )|(?<=\bage )|(?<=\bage: )|(?<=\bage:)|(?<=\bage\t)|(?<=\bage:\t)"
        r"|(?<=\bage at death: )|(?<=\bage at death ))\d{1,3}(?=(?:y|yo|yrs?)?\b)",
        0.9,
    ),
    # an age in brackets with its unit ("(93 yrs)"), before a sex and what a note says next ("93F with CHF"),
    # or ending a clause after "pt is" / "she was" / "turned" ("Pt is 93."; not "HR is 93")
    ("AGE", r"(?<=\()\d{1,3}(?=[ -]?(?i:years?|yrs?|y/?o|y\.o\.|y)\))", 0.9),
    (
        "AGE",
        # where a note's sentence starts ("93F with CHF"; not "T 101F with chills", "Wt 180 M with")
        r"(?:(?m:^)|(?<=[.;:] )|(?<=\ba ))\d{1,3}"
        rf"(?=[ ]?[FM]{_NOTE_GOES_ON})",
        0.85,
    ),
    # a note's first words: an age before "s/p" ("98 s/p left hip fx")
    ("AGE", r"(?m:^)(?:[1-9]\d|1[01]\d|120)(?= s/p\b)", 0.85),
    ("AGE", AGE_AFTER_PERSON, 0.85),
    ("AGE", AGE_SAID, 0.85),
    ("AGE", AGE_AT_THE_AGE_OF, 0.85),
    # a sex then an age ("Pt: F, 97", "M/94"), a relative's ("Mom, 96,"), a decade ("in his late 90s"), a word
    ("AGE", AGE_AFTER_SEX, 0.85),
    ("AGE", AGE_BEFORE_SEX, 0.85),
    ("AGE", AGE_AFTER_KIN, 0.85),
    ("AGE", AGE_DECADE, 0.85),
    ("AGE", AGE_NOUN, 0.85),
    # an age in words ("sixty-seven years old", "aged ninety-seven"): gdpr keeps every age, hipaa over 89
    (
        "AGE",
        rf"(?i:(?<=\baged ){AGE_WORDS}\b"
        rf"|\b{AGE_WORDS}(?=[ -](?:years?|yrs?)[ -]old\b|[ -]yo\b))",
        0.9,
    ),
    # a device's MAC address (HIPAA's device identifiers), six hex pairs with one kind of separator
    ("ID", r"(?<![\w:-])[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])", 0.9),
    # a US federal court's case (docket) number: office, year, case type, number, judge's initials
    # ("2:19-cv-04417-JMV", "1:21-cr-00123", "19-CV-1234")
    (
        "ID",
        r"(?<![\w:])(?:\d{1,2}:)?\d{2}-(?i:cv|cr|bk|mc|mj|md|ap|po|sw|ml|gj)-\d{3,6}(?:-[A-Z]{1,5}){0,3}(?![\w-])",
        0.85,
    ),
    # a court's file number as German, Austrian, Czech or Slovak courts write it, after "no." or the file
    # mark: chamber, register letters, number / year ("case no. 2 K 45/2009", "Az. 4 StR 123/15", "file no.
    # I ZR 12/19", "sp. zn. 11 C 213/2013"); its group "value" is the span
    (
        "ID",
        r"(?:\b(?i:no)\.?|\bAz\.|\bGZ|\b(?i:sp)\.[ \t]*(?i:zn)\.|\b(?i:č)\.[ \t]*(?i:j)\.)[ \t]*"
        r"(?P<value>(?:\d{1,3}|[IVX]{1,4})[ \t]+[A-Z][A-Za-z]{0,3}[ \t]+\d{1,6}/(?:\d{4}|\d{2}))(?![\w/])",
        0.85,
    ),
    # a reference after "ref." or "reference" (and "no."): letters and digits joined by "/" or "-", with a
    # letter and a digit ("ref. KN/2015/0387", "Reference: ABX-22-1187"; not a lab's "ref 135-145"); its group
    # "value" is the span
    (
        "ID",
        r"\b(?i:ref|reference)\b\.?(?:[ \t]+(?i:no|number)\.?)?[ \t]*[:#]?[ \t]*"
        r"(?P<value>(?=[A-Za-z0-9/-]*[A-Za-z])(?=[A-Za-z0-9/-]*\d)[A-Za-z0-9]+(?:[/-][A-Za-z0-9]+)+)(?![\w/-])",
        0.85,
    ),
    # an institution's number after its kind ("Correctional Colony no. 100", "City Hospital No. 40", "School
    # no 5"; not "the hospital no 3 times"): it names the institution, which locates the person; its group
    # "value" is the span
    (
        "ID",
        r"\b(?i:colony|prison|camp|penitentiary|hospital|polyclinic|clinic|school|gymnasium|lyceum|orphanage|"
        r"centre|center|institution|facility)[ \t]+(?:(?i:no)\.?|№)[ \t]*(?P<value>\d{1,4})(?![\w/-])"
        r"(?![ \t]+times\b)",
        0.85,
    ),
    # the last four digits of a social security number ("last 4 of SSN 3878", "last four of social: 3878",
    # "SSN (last 4): 3878"); its group "value" is the span
    (
        "ID",
        r"(?i:\blast[ \t]+(?:4|four)(?:[ \t]+digits)?[ \t]+of[ \t]+(?:the[ \t]+|his[ \t]+|her[ \t]+)?"
        r"(?:ssn|ss#|social(?:[ \t]+security)?(?:[ \t]+(?:number|no\.?|#))?)"
        r"|\b(?:ssn|social(?:[ \t]+security)?)[ \t]*\(?last[ \t]+(?:4|four)\)?)[ \t]*(?:is|was|:|#)?[ \t]*"
        r"(?P<value>\d{4})(?!\d)",
        0.85,
    ),
    # starts at a token start or after "/" or "." (never after "x-", which the token's start already tried)
    # a thousands comma is inside the number ("3,200", "1,250.50"), a list's comma is not ("3, 4")
    ("NUMBER", r"(?<![\w@])(?<!\w-)(?=[\w-]*\d)[\w]+(?:[-/.][\w]+|,\d{3}(?!\w))*", 0.35),
]


#: score of a phone number written as one ("(217) 555-0143", "+1 503 555 0199"): presidio scores a match
#: 0.4 without context (a prior for its threshold), but phonenumbers has parsed and validated it and its
#: format says phone: above a token classifier's usual scores, so that the merged span stays a PHONE (its
#: surrogate a phone number) rather than, say, an ADDRESS. A bare run of digits keeps presidio's score (it
#: may be an ID); a number after an ID context scores `policy.CONTEXT_ID_SCORE`, which is higher.
PHONE_SCORE = 0.9
#: an NHS number is taken where "NHS" is written just before it ("NHS number 943 476 5919", "NHS no:")
_NHS_CUE = re.compile(r"\bNHS\b", re.IGNORECASE)
_PHONE_FORMAT = re.compile(r"[(+]|\d[-. ]+\d")
#: presidio's URL pattern tries its ~1,500 top-level domains at every dot within 253 characters of every
#: position: on a dotted run ("a.a.a...") that is seconds per kilobyte. Its recognizer sees each run of host
#: characters with at most this many dots, the last ones (a host's suffix: "a.b.example.co.uk"); earlier
#: dots become spaces (same length, same offsets).
MAX_HOST_DOTS = 6
_HOST_RUN = re.compile(r"[A-Za-z0-9.\-]+")


def _keep_last_dots(match: re.Match[str]) -> str:
    run = match.group()
    if run.count(".") <= MAX_HOST_DOTS:
        return run
    cut = len(run)
    for _ in range(MAX_HOST_DOTS):
        cut = run.rindex(".", 0, cut)
    return run[:cut].replace(".", " ") + run[cut:]


def url_text(text: str) -> str:
    """``text`` with dotted runs bounded for presidio's URL recognizer (`MAX_HOST_DOTS`)."""
    return _HOST_RUN.sub(_keep_last_dots, text)


@dataclass(frozen=True)
class _Compiled:
    label: str
    regex: re.Pattern
    score: float


class PatternDetector(Detector):
    name = "patterns"

    def __init__(self, extra: bool = True):
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            DateRecognizer,
            EmailRecognizer,
            IbanRecognizer,
            IpRecognizer,
            NhsRecognizer,
            PhoneRecognizer,
            UkNinoRecognizer,
            UrlRecognizer,
            UsBankRecognizer,
            UsLicenseRecognizer,
            UsPassportRecognizer,
            UsSsnRecognizer,
        )

        self.recognizers = [
            cls()
            for cls in (
                EmailRecognizer,
                PhoneRecognizer,
                CreditCardRecognizer,
                IbanRecognizer,
                IpRecognizer,
                UrlRecognizer,
                UsSsnRecognizer,
                DateRecognizer,
                UsLicenseRecognizer,
                UsPassportRecognizer,
                UsBankRecognizer,
                UkNinoRecognizer,
                NhsRecognizer,
            )
        ]
        self.extra = (
            [_Compiled(label, re.compile(rx), score) for label, rx, score in EXTRA_PATTERNS] if extra else []
        )

    def detect(self, text: str) -> list[Span]:
        spans = []
        for recognizer in self.recognizers:
            seen = url_text(text) if "URL" in recognizer.supported_entities else text
            if "PHONE_NUMBER" in recognizer.supported_entities:
                seen = _WIDE_GAP.sub(lambda m: "\n" * len(m.group()), seen)
            for found in recognizer.analyze(seen, recognizer.supported_entities, None):
                if found.entity_type == "UK_NHS" and not _NHS_CUE.search(
                    text, max(0, found.start - 40), found.start
                ):
                    continue  # ten digits whose checksum holds: one US phone number in eleven
                if found.end > found.start and found.entity_type in PRESIDIO_LABELS:
                    label = PRESIDIO_LABELS[found.entity_type]
                    score = float(found.score)
                    if found.entity_type == "UK_NINO":  # its prefix is one issued: above a date's reading
                        score = max(score, PHONE_SCORE)
                    if label == "PHONE" and _PHONE_FORMAT.search(text, found.start, found.end):
                        score = max(score, PHONE_SCORE)
                    spans.append(Span(found.start, found.end, label, score, self.name))
        for pattern in self.extra:
            value = "value" in pattern.regex.groupindex  # the context matched around the span
            for match in pattern.regex.finditer(text):
                start, end = match.span("value") if value else match.span()
                while start < end and text[start].isspace():
                    start += 1
                if end > start:
                    spans.append(Span(start, end, pattern.label, pattern.score, self.name))
        return spans
