"""One table of cases per rule family (synthetic texts): each row names the rule that decides it, and every
registered rule has a row. Adding a rule = one rule object + one row here (+ one line in docs/concepts)."""

import pytest

from deid_hf.detect.clinical import ClinicalContextDetector
from deid_hf.detect.learned_spans import keep_trained
from deid_hf.detect.lexicon import Vocabulary
from deid_hf.detect.rules import RULES, Rule, recording, register_rule
from deid_hf.detect.rules.boundaries import exact_boundaries
from deid_hf.detect.rules.dates import find_dates
from deid_hf.detect.rules.gdpr import inside_statute, whole_titled_names, without_cited_cases
from deid_hf.detect.rules.identifiers import apply_policy
from deid_hf.detect.rules.phones import find_phones
from deid_hf.errors import InputError
from deid_hf.spans import Span


def _span(text, piece, label, score=0.35, source="patterns"):
    start = text.index(piece)
    return Span(start, start + len(piece), label, score, source)


def _rules_deciding(log, text, piece, kept=None):
    return {d.rule for d in log if text[d.start : d.end] == piece and (kept is None or d.kept == kept)}


# (rule, text, what the date rules find)
DATE_CASES = [
    ("date.numeric", "seen 3/14 and 11/02/2019", {"3/14", "11/02/2019"}),
    ("date.numeric", "took 1/2 tab, strength 5/5", set()),
    ("date.numeric", "remains on SIMV 600x12/5/40%, PS 10", set()),
    ("date.numeric", "DOB 12/5%; seen 3/14%. labs", {"12/5", "3/14"}),
    ("date.numeric", "extubated 10/5 from cpap", {"10/5"}),  # the mode word after the date: a date
    ("date.numeric-hyphenated", "born 7-04-1961; reps 3-5", {"7-04-1961"}),
    ("date.day-first", "seen 14/05/2021, 4.2.2002 and 05.03.21", {"14/05/2021", "4.2.2002", "05.03.21"}),
    ("date.day-first", "v1.2.10, 3.10.12, IP 10.1.2.3, ratio 14/05", set()),
    ("date.day-first", "Chrome 1.14.12, Lot 3.22.19, v1.26.17, 9.12.17", set()),  # versions, lots
    ("date.year-first", "scan 2019-11-02 done", {"2019-11-02"}),
    ("date.year-first", "seen 2021-05-03T14:22\nnext", {"2021-05-03T14:22"}),  # not "T14" cut from ":22"
    ("date.month-year", "since 9/87 and 12/2004", {"9/87", "12/2004"}),
    (
        "date.day-range",
        "stay March 3-5, 2024; 3 to 5 MARCH; 1st-3rd of May",
        {"March 3-5, 2024", "3 to 5 MARCH", "1st-3rd of May"},
    ),
    ("date.day-range", "admitted 10/15-16/2024, seen 15-16/10/24", {"10/15-16/2024", "15-16/10/24"}),
    ("date.day-range", "from Mar 3 through 7 at home", {"Mar 3 through 7"}),
    ("date.day-range", "away from the 6th to the 9th, on the 2nd-3rd", {"6th to the 9th", "2nd-3rd"}),
    ("date.day-range", "from the 6th to the 9th while in rehab", {"6th to the 9th"}),
    ("date.day-of-month-alone", "from the 2nd to the 3rd floor", {"2nd"}),  # no range before a noun
    ("date.day-range", "for 3 to 5 days in May; ratio 1/2-3/4", set()),
    ("date.day-range", "repeat CT 2/6-9. CT 10/3-5 showed", {"2/6-9", "10/3-5"}),  # no year
    ("date.day-range", "take 1/2-1 tab, strength 5/5-4", set()),  # a fraction, a score
    ("date.numeric", "dose 2/6-9 mg", {"2/6"}),  # no range before a unit (the date rule reads "2/6")
    ("date.holiday", "abx since Christmas 2021; HOME FOR THANKSGIVING", {"Christmas 2021", "THANKSGIVING"}),
    ("date.holiday", "New Year's Eve party, the Fourth of July", {"New Year's Eve", "Fourth of July"}),
    ("date.holiday", "a christmas tree, Easter eggs, the Good Friday Agreement, Dr. Christmas", set()),
    ("date.holiday", "Fourth of July 2019; Christmas\n2021", {"Fourth of July 2019", "Christmas\n2021"}),
    ("date.holiday", "Christmas Eve Pt fell; over Labor Day Weekend", {"Christmas Eve", "Labor Day"}),
    ("date.month-name-day", "walked March 3 to 5 laps", {"March 3"}),  # not a range before a noun
    ("date.month-name-day", "on Feb 3rd, 2011 she", {"Feb 3rd, 2011"}),
    ("date.month-name-day", "on June 9,\n2020 she", {"June 9,\n2020"}),  # a hard-wrapped line
    ("date.month-name-year", "in August of 2015", {"August of 2015"}),
    ("date.month-name-year", "s/p CABG Mar '01", {"Mar '01"}),
    ("date.day-month-name", "the 4th of July 1999", {"4th of July 1999"}),
    ("date.day-month-name", "extubated 25APR2002, 3mar24", {"25APR2002", "3mar24"}),  # run together
    ("date.day-month-name", "on 03-May-2021 and 12-jan-20; reps 3-May", {"03-May-2021", "12-jan-20"}),
    ("date.day-range", "admitted 1-3 May 2021", {"1-3 May 2021"}),  # the range whole, not its last day
    ("date.month-name-alone", "back in November; may walk", {"November"}),
    ("date.day-of-month-alone", "Whipple on the 14th w/ Dr. Hale; Sat the 12th", {"14th", "12th"}),
    ("date.day-of-month-alone", "FAMILY MTG ON THE 22ND. SINCE THE 3RD", {"22ND", "3RD"}),
    ("date.day-of-month-alone", "on the 3rd day, by the 2nd attempt, ON THE 4TH FLOOR", set()),
    ("date.day-of-month-alone", "WITH THE 1ST. THE 2ND THEN; on the 32nd", set()),
    ("date.day-of-month-alone", "Laceration on the 4th and 5th fingers, on the 5th or 6th rib", set()),
    ("date.day-of-month-alone", "admitted on the 14th and discharged; Monday the 3rd or so", {"14th", "3rd"}),
    ("date.day-of-month-alone", "return on the 12th of this month", {"12th"}),
    ("date.day-of-month-alone", "Seen on the 2nd & 3rd.", {"2nd"}),
    ("date.year-in-context", "moved in 2004 since 2010", {"2004", "2010"}),
    ("date.year-in-context", "born in 1950 and 1953, took 1000 and 2000", {"1950", "1953"}),
    ("date.year-in-context", "platelets 1850 and 1900 since 1870 or 1871", {"1870", "1871"}),
    ("date.year-1960-1999", "CABG 1987.", {"1987"}),
    ("date.year-1960-1999", "studied from 1997 to 2002, CABG 1998-2003", {"1997", "2002", "1998", "2003"}),
    ("date.year-1960-1999", "shift 2000 to 2200, 1900-2100 quiet", set()),  # clock times
    (
        "date.year-of-birth",
        "Voss b. 1931, DOB: 1925, YOB 1930, born 1928, died 2019",
        {"1931", "1925", "1930", "1928", "2019"},
    ),
    ("date.year-of-birth", "Eleanor Voss (1931-2024), Ida Moss (1929-)", {"1931-2024", "1929-"}),
    ("date.year-of-birth", "seen at 1930, BP 120/80 at 1931 hrs, (1931 mg)", set()),
    ("date.apostrophe-year", "MI in '91", {"'91"}),
    (
        "date.year-range",
        "senator 2005–2011 and mayor 1998 — 2004, season 2019–20.",
        {"2005–2011", "1998 — 2004", "2019–20"},
    ),
    ("date.year-range", "shift 0700-1900, 2000–2200 quiet, v2019–2020.1, pages 2010–2015–2020", set()),
    ("date.year-range", "heparin 1800–2000 units/h, a 1800–2000 calorie diet, 1900–2000 IU", set()),
    ("date.not-a-pain-score", "pain 7/10 at rest", set()),
    ("date.not-a-ventilator-setting", "PS 10/5 and PEEP/PS 5/10", set()),
    ("date.not-a-ventilator-setting", "changed to PSV of 10/5, 60%", set()),
    ("date.not-a-ventilator-setting", "cpap/ps mode decreased to 8/5", set()),
    ("date.not-a-newborn-measure", "Apgars 8/9 at birth, APGAR scores 7/9", set()),
    ("date.not-a-newborn-measure", "Apgar scores of 8/9 and 9/9 at 1 and 5 min", set()),
    ("date.numeric", "Apgar 9/9, f/u 12/15", {"12/15"}),  # a date after the scores is a date
    ("date.not-a-newborn-measure", "born at 33 2/7 weeks, GA 35 3/7", set()),
    ("date.numeric", "seen 2/7 and 12/7; 3 2/7", {"2/7", "12/7"}),  # no number of weeks before
    ("date.numeric", "vent settings 10/5/2003", {"10/5/2003"}),  # with a year: a date, whatever the words
    ("date.numeric", "Privacy settings updated on 3/14", {"3/14"}),
    ("date.numeric", "on CPAP overnight; seen 10/5 by Dr X", {"10/5"}),  # another clause
    ("date.month-year", "home CPAP since 9/87", {"9/87"}),  # no pressure pair
]


@pytest.mark.parametrize(("rule", "text", "found"), DATE_CASES)
def test_date_rules(rule, text, found):
    with recording() as log:
        spans = find_dates(text)
    assert {text[s.start : s.end] for s in spans} == found
    pieces = found or {text[d.start : d.end] for d in log if not d.kept}
    assert pieces or not rule.startswith("date.not-")  # an exclusion row must see its rule drop a span
    assert all(rule in _rules_deciding(log, text, piece) for piece in pieces) or not pieces


# (rule, text, what the phone rules find)
PHONE_CASES = [
    ("phone.shaped-number", "call 617 555 0199 or +44 20 7946 0958", {"617 555 0199", "+44 20 7946 0958"}),
    ("phone.shaped-number", "HR 110 120 then", set()),
    ("phone.shaped-number", "host 198.51.100.23 or 212.555.0147", {"212.555.0147"}),  # an IP is no phone
    # an SSN's 3-2-4 layout is an ID (Presidio's recognizer refuses test numbers such as this one)
    ("id.ssn-layout-number", "SSN 123-45-6789 on file", {"123-45-6789"}),
    ("id.ssn-layout-number", "ssn 123 45 6789.", {"123 45 6789"}),
    (
        "phone.spoken-digits",
        "my number is oh seven seven oh oh nine double oh four one seven.",
        {"oh seven seven oh oh nine double oh four one seven"},
    ),
    (
        "phone.spoken-digits",
        "Seven Seven Zero, Zero Nine Four, One Two",
        {"Seven Seven Zero, Zero Nine Four, One Two"},
    ),
    ("phone.spoken-digits", "one two three four five six, and someone", set()),  # six digits; a longer word
    ("phone.spoken-digits", "We need one two three four five six seven volunteers", set()),  # a count
    ("phone.spoken-digits", "she scored one one one two two two three points", set()),  # a count, repeated
    (
        "phone.spoken-digits",
        "call me on one two three four five six seven",
        {"one two three four five six seven"},
    ),  # a count after a word of phones is a number
    (
        "phone.spoken-digits",
        "He phoned from seven one eight two two three four",
        {"seven one eight two two three four"},
    ),
    (
        "phone.spoken-digits",
        "call me on five five five one two three four",
        {"five five five one two three four"},
    ),  # after a word of phones
]


@pytest.mark.parametrize(("rule", "text", "found"), PHONE_CASES)
def test_phone_rules(rule, text, found):
    with recording() as log:
        spans = find_phones(text)
    assert {text[s.start : s.end] for s in spans} == found
    assert all(_rules_deciding(log, text, piece) == {rule} for piece in found)
    assert all(s.label == ("ID" if rule.startswith("id.") else "PHONE") for s in spans)


def test_an_ssn_layout_is_an_id_whatever_a_detector_called_it():
    text = "SSN 123-45-6789, cell 555-123-4567"
    spans = [
        _span(text, "123-45-6789", "PHONE", 0.4, "patterns"),
        _span(text, "555-123-4567", "PHONE", 0.4, "patterns"),
    ]
    found = apply_policy(text, spans, "hipaa")
    assert {(text[s.start : s.end], s.label) for s in found} == {
        ("123-45-6789", "ID"),
        ("555-123-4567", "PHONE"),
    }


# (rule, text, a detector's span: piece, label, score, source; what the hipaa policy keeps of it)
IDENTIFIER_CASES = [
    ("context-rule-span", "per dr. smith", "smith", "PERSON", 0.9, "clinical", {"smith"}),
    ("email-or-ip", "mail jo@site.example", "jo@site.example", "EMAIL", 0.5, "patterns", {"jo@site.example"}),
    ("email-or-ip", "from 10.0.0.7 today", "10.0.0.7", "IP", 0.5, "patterns", {"10.0.0.7"}),
    (
        "phone.not-a-measurement-series",
        "BP 118/76--131/80",
        "118/76--131/80",
        "PHONE",
        0.4,
        "patterns",
        set(),
    ),
    ("phone.not-a-measurement-series", "slept 0400-0600 well", "0400-0600", "PHONE", 0.9, "patterns", set()),
    ("phone.not-a-measurement-series", "UO 390-550 cc/hr", "390-550", "PHONE", 0.9, "patterns", set()),
    ("phone.not-a-measurement-series", "call 555-1234", "555-1234", "PHONE", 0.9, "patterns", {"555-1234"}),
    # after a phone word a time-like or short number is a phone
    ("phone.not-a-measurement-series", "tel 2345-1234", "2345-1234", "PHONE", 0.9, "patterns", {"2345-1234"}),
    ("phone.not-a-measurement-series", "pager x4-5678", "4-5678", "PHONE", 0.9, "patterns", {"4-5678"}),
    (
        "phone.not-a-measurement-series",
        "at +298 31 22 33",
        "+298 31 22 33",
        "PHONE",
        0.9,
        "patterns",
        {"+298 31 22 33"},
    ),
    (
        "phone.not-a-measurement-series",
        "tel (212) 555-0100",
        "(212) 555-0100",
        "PHONE",
        0.4,
        "patterns",
        {"(212) 555-0100"},
    ),
    (
        "name.needs-evidence",
        "Resp: clear lungs, Kowalczyk aware",
        "clear lungs",
        "PERSON",
        0.8,
        "spacy",
        set(),
    ),
    (
        "name.needs-evidence",
        "Hi, this is Nurse Priya Castellanos.",
        "Nurse Priya Castellanos",
        "ORG",
        0.5,
        "spacy",
        {"Priya Castellanos"},
    ),
    (
        "name.needs-evidence",
        "Resp: clear lungs, Kowalczyk aware",
        "Kowalczyk aware",
        "PERSON",
        0.8,
        "spacy",
        {"Kowalczyk"},
    ),
    # an everyday word of a form's field label is a heading's word; a rarer one may be a speaker's name
    ("name.needs-evidence", "Name: Al J.\nDate of Birth: 1 May", "Birth", "PERSON", 0.8, "spacy", set()),
    ("name.needs-evidence", "Ok.\nAgent Minh: hello", "Minh", "PERSON", 0.8, "spacy", {"Minh"}),
    ("name.needs-evidence", "He gave Birth a call", "Birth", "PERSON", 0.8, "spacy", {"Birth"}),
    # a place is never a heading's word, and a clock time or a year makes no field label
    ("name.needs-evidence", "Our London Office: open", "London", "LOCATION", 0.8, "spacy", {"London"}),
    ("name.needs-evidence", "Ok.\nCalled Brown at 10:30 today", "Brown", "PERSON", 0.8, "spacy", {"Brown"}),
    ("name.needs-evidence", "Ok.\nMet Brown in 2019: stable", "Brown", "PERSON", 0.8, "spacy", {"Brown"}),
    # a person name, however frequent, may be a speaker's in a label
    ("name.needs-evidence", "Ok.\nAgent Brown: hello", "Agent Brown", "PERSON", 0.8, "spacy", {"Brown"}),
    (
        "name.needs-evidence",
        "Ok.\nTransferred from Chicago: stable",
        "Chicago",
        "PERSON",
        0.8,
        "spacy",
        {"Chicago"},
    ),
    ("address.hospital-unit-alone", "moved to room 14", "room 14", "ADDRESS", 0.6, "spacy", set()),
    ("address.postal-unit", "Suite 300 upstairs", "Suite 300", "ADDRESS", 0.6, "spacy", {"Suite 300"}),
    # written in capitals, yet it locates a street ("1AA" was left in clear beside a model's "SW1A")
    ("address.postal-code", "postcode SW1A 1AA", "SW1A 1AA", "ADDRESS", 0.7, "patterns", {"SW1A 1AA"}),
    (
        "address.needs-evidence",
        "at 12 Quenby Road",
        "12 Quenby Road",
        "ADDRESS",
        0.6,
        "spacy",
        {"12 Quenby Road"},
    ),
    ("address.needs-evidence", "at THE MAIN ROAD", "THE MAIN ROAD", "ADDRESS", 0.6, "spacy", set()),
    (
        "url.needs-url-shape",
        "see www.clinic-site.org",
        "www.clinic-site.org",
        "URL",
        0.5,
        "patterns",
        {"www.clinic-site.org"},
    ),
    ("url.needs-url-shape", "dx.summary noted", "dx.summary", "URL", 0.5, "patterns", set()),
    ("age.over-89", "a 93 year old", "93", "AGE", 0.6, "spacy", {"93"}),
    ("age.over-89", "aged ninety-three", "ninety-three", "AGE", 0.9, "patterns", {"ninety-three"}),
    ("age.over-89", "a sixty-seven year old", "sixty-seven", "AGE", 0.9, "patterns", set()),
    ("age.over-89", "a 45 year old", "45", "AGE", 0.6, "spacy", set()),
    (
        "id.validated",
        "card 4111111111111111 used",
        "4111111111111111",
        "ID",
        0.85,
        "patterns",
        {"4111111111111111"},
    ),
    ("id.ssn-layout", "SSN 123-45-6789", "123-45-6789", "PHONE", 0.4, "patterns", {"123-45-6789"}),
    ("id.ssn-layout", "Patient 123-45-6789 seen", "123-45-6789", "ID", 0.4, "spacy", {"123-45-6789"}),
    (
        "number.phone-shaped",
        "dial 303-555-0147 now",
        "303-555-0147",
        "NUMBER",
        0.4,
        "spacy",
        {"303-555-0147"},
    ),
    ("number.identifying-digits", "acct 7345 open", "7345", "NUMBER", 0.4, "spacy", {"7345"}),
    (
        "number.identifying-digits",
        "serial number SN-4421-XK",  # a device's serial number: "4421" was replaced, "SN-" and "-XK" not
        "SN-4421-XK",
        "NUMBER",
        0.35,
        "patterns",
        {"SN-4421-XK"},
    ),
    ("number.identifying-digits", "order 2500 mL given", "2500", "NUMBER", 0.4, "spacy", set()),
    ("number.identifying-digits", "a #30f/30cc foley", "30f/30cc", "NUMBER", 0.35, "patterns", set()),
    (
        "number.identifying-digits",
        "MRN #4839 F 67yo",
        "4839",
        "NUMBER",
        0.35,
        "patterns",
        {"4839"},
    ),  # no size
    ("number.identifying-digits", "sample 3348121 sent", "3348121", "NUMBER", 0.4, "spacy", {"3348121"}),
    # a law's number is a public text's, no person's; a case's or an invoice's number is an identifier
    # under hipaa a number after a law's "no." stays an ID (gdpr's own rule drops a law's number)
    (
        "number.identifying-digits",
        "section 5 of Law no. 3713 and",
        "3713",
        "NUMBER",
        0.4,
        "patterns",
        {"3713"},
    ),
    (
        "number.identifying-digits",
        "Code No. 4471 opens the door",
        "4471",
        "NUMBER",
        0.4,
        "patterns",
        {"4471"},
    ),
    ("number.identifying-digits", "invoice no. 4471 sent", "4471", "NUMBER", 0.4, "patterns", {"4471"}),
    (
        "number.identifying-digits",
        "Patient bill no. 4471 unpaid",
        "4471",
        "NUMBER",
        0.4,
        "patterns",
        {"4471"},
    ),
    ("number.identifying-digits", "access code no. 7731 given", "7731", "NUMBER", 0.4, "patterns", {"7731"}),
    ("number.identifying-digits", "case no. 2214 of", "2214", "NUMBER", 0.4, "patterns", {"2214"}),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "score", "source", "kept"), IDENTIFIER_CASES)
def test_identifier_rules(rule, text, piece, label, score, source, kept):
    span = _span(text, piece, label, score, source)
    with recording() as log:
        found = apply_policy(text, [span], "hipaa")
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log} == {rule}


# (rule, text, another detector's person name or organisation, its label, the policy-trained model's support
# pieces or None; what is kept of it)
SUPPORT_CASES = [
    ("name.needs-model-support", "Lasix given, Kowalczyk aware", "Lasix", "PERSON", [], set()),
    ("name.needs-model-support", "Lasix given, Kowalczyk aware", "Kowalczyk", "PERSON", ["Lasix"], set()),
    (
        "name.needs-evidence",
        "Lasix given, Kowalczyk aware",
        "Kowalczyk",
        "PERSON",
        ["Kowalczyk"],
        {"Kowalczyk"},
    ),
    (
        "name.needs-evidence",
        "Lasix given, Kowalczyk aware",
        "Kowalczyk aware",
        "PERSON",
        ["Kowal"],
        {"Kowalczyk"},
    ),
    ("name.needs-evidence", "Lasix given, Kowalczyk aware", "Kowalczyk", "PERSON", None, {"Kowalczyk"}),
    ("organisation.needs-model-support", "Yankaur suction, then Mercy Hospital", "Yankaur", "ORG", [], set()),
    ("name.needs-evidence", "Yankaur suction, then Mercy Hospital", "Yankaur", "ORG", ["Yank"], {"Yankaur"}),
    # a facility needs no support (what becomes of it is the next rules' decision); initials do
    (
        "name.needs-evidence",
        "Yankaur suction, then Mercy Hospital",
        "Mercy Hospital",
        "ORG",
        [],
        {"Mercy Hospital"},
    ),
    ("organisation.needs-model-support", "Transferred from UMASS today", "UMASS", "ORG", [], set()),
    ("organisation.needs-model-support", "Sent to Acme Labs for tests", "Acme Labs", "ORG", [], set()),
    ("name.needs-evidence", "Sent to Acme Labs for tests", "Acme Labs", "ORG", None, {"Acme Labs"}),
    ("place.needs-model-support", "PA pressures in 40s, Wedge is 21", "Wedge", "LOCATION", [], set()),
    ("place.needs-model-support", "freq PVCs, Trigem, pairs", "Trigem", "OTHER", [], set()),
    ("name.needs-evidence", "Moved here from Lowell", "Lowell", "LOCATION", ["Lowell"], {"Lowell"}),
    ("name.needs-evidence", "Moved here from Lowell", "Lowell", "LOCATION", None, {"Lowell"}),
    (
        "name.needs-evidence",
        "Came from Harbor Hospital",
        "Harbor Hospital",
        "LOCATION",
        [],
        {"Harbor Hospital"},
    ),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "support", "kept"), SUPPORT_CASES)
def test_another_detectors_name_needs_the_trained_models_support(rule, text, piece, label, support, kept):
    """Where a model trained on the policy's gold reads the text, a person name, an organisation or a place
    (not a facility) it does not find even at its support threshold is dropped; an overlap is support
    enough; without such a model (None) the rule is silent."""
    support = (
        None if support is None else [_span(text, p, label, 0.1, "token-classification") for p in support]
    )
    with recording() as log:
        found = apply_policy(text, [_span(text, piece, label, 0.5, "spacy")], "hipaa", support=support)
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log} == {rule}


# (rule, text, a policy-trained model's span: piece, label; what is kept of it)
LEARNED_CASES = [
    ("learned.no-name-left", "She thanked the singer.", "the singer", "PERSON", set()),
    ("learned.function-words-alone", "At the end of the road", "of the", "ADDRESS", set()),
    ("learned.title-alone", "Seen by Prof. today", "Prof.", "PERSON", set()),
    ("learned.title-alone", "Spoke with Professor Ann Lee", "Professor", "OTHER", set()),
    ("learned.identifier-cue-alone", "Dr. Lee reviewed MRN 4839201.", "MRN", "OTHER", set()),
    ("learned.identifier-cue-alone", "Lee, Ann. DOB: 3/4/1950", "DOB:", "PERSON", set()),
    ("learned.identifier-cue-alone", "Lee, Ann. D.O.B. 3/4/1950", "D.O.B.", "OTHER", set()),
    ("learned.identifier-cue-alone", "Email ctorres@example.org for details.", "Email", "PERSON", set()),
    ("learned.identifier-cue-alone", "see MRN # 4839201", "MRN #", "PERSON", set()),
    ("learned.greeting-alone", "Customer: Hi Priya, my order is late", "Hi", "PERSON", set()),
    ("learned.greeting-alone", "Thank you, Dr. Lee", "Thank you", "PERSON", set()),
    ("learned.piece-of-a-date", "Weight up since 07/03/2024. Call 773-555-0142.", "2024", "ID", set()),
    ("learned.piece-of-a-date", "seen 04/02/2024 at noon", "2024", "PHONE", set()),
    ("learned.kept", "MRN 2024-881 on file", "2024-881", "ID", {"2024-881"}),
    ("learned.kept", "She moved to Tel Aviv in May.", "Tel Aviv", "LOCATION", {"Tel Aviv"}),
    ("learned.kept", "Customer: Hi Priya, my order is late", "Priya", "PERSON", {"Priya"}),
    ("learned.kept", "Seen by Mr Lee today.", "Mr Lee", "PERSON", {"Mr Lee"}),
    ("learned.age-89-or-under", "a 54 years old man", "54 years old", "AGE", set()),
    ("learned.vocabulary-word-alone", "Labs amylase 1140, lipase 4318", "amylase", "PERSON", set()),
    ("learned.kept", "Labs Amylase 1140, lipase 4318", "Amylase", "PERSON", {"Amylase"}),  # capitalised
    ("learned.kept", "social: pt's son dave called", "dave", "PERSON", {"dave"}),
    ("learned.kept", "son corwin visited today", "corwin", "PERSON", {"corwin"}),  # a drug's name after "son"
    ("learned.kept", "spoke with dtr kendrick", "kendrick", "PERSON", {"kendrick"}),
    (
        "learned.kept",
        "pt recently moved from sonoma to be near dtr",
        "sonoma",
        "LOCATION",
        {"sonoma"},
    ),  # a place
    ("learned.date-under-a-date-rule", "seen 4/12/2020 here", "4/12/2020", "DATE_TIME", set()),
    ("learned.date-without-a-date-word", "back on Friday evening", "Friday evening", "DATE_TIME", set()),
    ("learned.clock-time-alone", "Son asks no calls between 2200 and 0600.", "2200", "PHONE", set()),
    ("learned.kept", "Hafnarstraeti 5\n0104 Reykjavik", "0104", "ADDRESS", {"0104"}),  # a postal code
    ("learned.kept", "pager 2215 for questions", "2215", "PHONE", {"2215"}),  # a phone word before it
    ("learned.kept", "Dr. Smith's pager is 2145 if any concerns", "2145", "PHONE", {"2145"}),
    ("learned.kept", "page Dr. Lee at 2145 w/ labs", "2145", "PHONE", {"2145"}),
    ("learned.kept", "Call the ward on 2275 tonight", "2275", "PHONE", {"2275"}),  # no clock time
    ("learned.kept", "with Imre Szabo today", "Imre Szabo", "PERSON", {"Imre Szabo"}),
    # a name in lower case in a well-cased text stays the model's name ("pecuniary" too: see CHANGELOG)
    ("learned.kept", "The applicant met mehmet in izmir.", "mehmet", "PERSON", {"mehmet"}),
    ("learned.kept", "The applicant met mehmet in izmir.", "izmir", "LOCATION", {"izmir"}),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "kept"), LEARNED_CASES)
def test_learned_span_rules(rule, text, piece, label, kept):
    span = _span(text, piece, label, 0.9, "token-classification")
    dates = find_dates(text)
    with recording() as log:
        found = keep_trained(text, [span], dates)
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log} == {rule}


# (rule, text, what that context rule finds)
CONTEXT_CASES = [
    ("context.after-doctor-title", "seen by Dr. Wojcik and Dr. Ferrante", {"Wojcik", "Ferrante"}),
    ("context.after-doctor-title", "Dr. Tanaka reviewed the chart.", {"Tanaka"}),
    ("context.after-doctor-title", "SEEN BY DR RONAYNE GOOD PEDAL PULSES", {"RONAYNE"}),
    ("context.after-doctor-title", "SPOKE WITH DR RONAYNE AND FINN", {"RONAYNE", "FINN"}),
    ("context.after-doctor-title", "SPOKE WITH DR RONAYNE AND KENDRICK", {"RONAYNE", "KENDRICK"}),
    ("context.after-doctor-title", "Discussed with Dr. Smith and Sarin.", {"Smith", "Sarin"}),
    ("context.after-patient-title", "WIFE OF MR JOHN SMITH CALLED", {"JOHN SMITH"}),
    ("context.after-clinician-title", "plan reviewed with NP Halvorsen", {"Halvorsen"}),
    (
        "context.after-clinician-title",
        "sedation increased via nurse. vols stable at 800's",
        set(),
    ),  # a sentence ends
    ("context.after-clinician-title", "resp- Arthur Peppler, MD madeno vent changes", set()),  # a credential
    ("context.after-clinician-title", "resp- Arthur Peppler,MD madeno vent changes", set()),
    ("context.after-clinician-title", "team: dr ames, np okafor, rn lisa", {"okafor"}),  # "rn": a credential
    ("context.after-clinician-title", "pt seen by ho, np okafor", {"okafor"}),
    ("context.after-clinician-title", "Dr. Ames, NP Okafor agrees", {"Okafor"}),
    ("context.after-clinician-title", "d/w np. halvorsen re: plan", {"halvorsen"}),
    (
        "context.after-clinician-title",
        "Plan reviewed with Smith, attending jones agrees.",
        {"jones"},
    ),  # a word
    (
        "context.after-clinician-title",
        "RESP- ARTHUR PEPPLER,MD KAHN AT BEDSIDE",
        {"KAHN"},
    ),  # no casing to read
    ("context.after-clinician-role", "PCP: Niemeier\nSurgeon: Okonkwo", {"Niemeier", "Okonkwo"}),
    ("context.after-clinician-role", "Surgeon: Brown\nPCP: Young", {"Brown", "Young"}),  # known names
    ("context.after-clinician-role", "PCP: none. surgeon Bariatric service. Surgeon: Ortho team", set()),
    ("context.after-clinician-title", "She is a nurse earning well. Seen by NP Halvorsen.", {"Halvorsen"}),
    ("context.after-clinician-title", "pt seen by nurse halvorsen, stable.", {"halvorsen"}),  # no capitals
    ("context.after-clinician-title", "Plan reviewed with NP von Trapp.", {"von Trapp"}),
    ("context.initial-and-surname", "signed R. Lindqvist", {"R. Lindqvist"}),
    ("context.initial-and-surname", "SEEN BY R. LINDQVIST TODAY", {"R. LINDQVIST"}),
    ("context.initial-and-surname", "Signed by K. Alleged.", {"K. Alleged"}),  # casing tells names here
    ("context.initial-and-surname", "I. ALLEGED VIOLATION OF ARTICLE 5", set()),  # a heading's numeral
    ("context.initial-and-surname", "NOTED BY\n EARL N. RAND, RRT", {"N. RAND"}),
    ("context.initial-and-surname", "V. BUTKEVYCH, JUDGE", {"V. BUTKEVYCH"}),  # a rare word: a name
    ("context.signature", "note by Laura Pennington, RN", {"Laura Pennington"}),
    ("context.signature", "note by Laura Pennington, R.N.", {"Laura Pennington"}),
    ("context.after-patient-title", "Mrs. Abernathy is resting", {"Abernathy"}),
    ("context.name-field", "PATIENT: ILSABET MARROWIND\nDOB: 03/02/1961", {"ILSABET MARROWIND"}),
    ("context.name-field", "Patient name: Quenby Harrowgate, 40", {"Quenby Harrowgate"}),
    ("context.name-field", "PATIENT: STABLE OVERNIGHT. Customer: my order", set()),  # frequent words
    ("context.name-field", "Patient: Nauseous, vomited x2\nCustomer: Thx.\nClient: Harrowgate Dental", set()),
    ("context.name-field", "Name: Maria\nAge: 40", {"Maria"}),  # one word, a known name
    ("context.name-field", "Patient: Dorel, Ostkamptes\nAge 54", {"Dorel, Ostkamptes"}),  # surname first
    ("context.name-field", "Patient: Nauseous, Vomited x2\nName: Nauseous, vomited", set()),
    ("context.name-field", "Patient: Somnolent, Arousable\nPatient: Nonverbal, Bedbound", set()),
    (
        "context.name-field",
        "PATIENT: MARROWIND\nDOB: 03/04/1961",
        {"MARROWIND"},
    ),  # one word alone on its line
    (
        "context.name-field",
        "Patient: Unresponsive\nName: Redacted\nClient: Declined",
        set(),
    ),  # English words alone on their lines
    ("context.name-field", "Seen by the patient: Marrowind", set()),  # not a field at a line's start
    (
        "context.name-field",
        "Patient: Black, Gavin\nPatient: Seven, Gülenay\nName: Stable, Maria Lopez\nPatient: Cousin, Noémi",
        {"Black, Gavin", "Seven, Gülenay", "Cousin, Noémi"},
    ),  # an everyday surname before a comma and a given name alone on its line
    (
        "context.name-field",
        "Patient: Stable, Alert\nPatient: Somnolent, Arousable\nPatient: Awake, Will\nPatient: the, Ann",
        set(),
    ),  # no given name, a frequent word, a stop word
    (
        "context.name-field",
        "NOK: Daughter, Jane\nEmergency contact: Wife, Linda\nPatient: Calm, Grace\nNOK: Cousin, Maria",
        set(),
    ),  # a relation or an adjective is no surname
    (
        "context.name-field",
        "Guardian: DCFS\nNOK: DPOA\nProxy: MOLST\nNext of kin: Grandniece\nEmergency contact: Aphasic",
        set(),
    ),  # a contact's field: one rare word alone is an agency, a document or a relation as often
    (
        "context.name-field",
        "Emergency contact: Brinrowvos Rowrik (sister)\nNOK: Ilsabet Marrowind\nHCP: Maria",
        {"Brinrowvos Rowrik", "Ilsabet Marrowind", "Maria"},
    ),  # a contact's, a next of kin's and a proxy's name
    (
        "context.name-field",
        "Emergency contact: 617-555-0143\nNext of kin: unknown\nProxy: Declined\nContact: Marrowind",
        set(),
    ),  # a number, English words; "Contact:" alone is no name field
    ("context.after-kinship-word", "her son Teodor visited", {"Teodor"}),
    (
        "context.after-kinship-word",
        "visited by significant other charlie,updated. nephew niko called. HUSBAND CHARLIE HERE.",
        {"charlie", "niko", "CHARLIE"},
    ),  # a given name of any culture in lower case or capitals, however frequent
    ("context.after-kinship-word", "wife will call; son may visit; wife at bedside; friend here", set()),
    ("context.after-call-word", "paged Kevin Oduya re labs", {"Kevin Oduya"}),
    ("context.after-call-word", "Spoke with Marrowind about the results.", {"Marrowind"}),  # capitalised
    ("context.after-call-word", "Called Okafor, no answer. Notified Löf of the CT.", {"Okafor", "Löf"}),
    ("context.after-call-word", "Notified Rose of the critical K. Per Kent, pt refused.", {"Rose", "Kent"}),
    (
        "context.after-call-word",
        "Per Okonkwo, ok. Updated Dumitrescu on the plan.",
        {"Okonkwo", "Dumitrescu"},
    ),
    (
        "context.after-call-word",
        "Spoke with Hassan about it. Per Das, ok.",
        {"Hassan", "Das"},
    ),  # Zipf 3.5-4.5
    (
        "context.after-call-word",
        "Per Rheum, continue. Paged NICU. Updated Tdap given. Per Uptodate, ok. Informed Marrowind. "
        "Spoke to MD's about it.",
        set(),
    ),  # a rare word only after a word of talking to someone; no acronym
    ("context.after-call-word", "Spoke with Pharmacy. Called Family at home.", set()),  # frequent words
    (
        "context.after-call-word",
        "Spoke with Radiology. Per Intensivist, wean. Discussed with Interventional Radiology.",
        set(),
    ),  # a service or a role
    ("context.after-call-word", "spoke with marrowind about it", set()),  # no capital: a known name only
    ("context.after-call-word", "SPOKE WITH MARROWIND ABOUT IT", set()),  # an ALL-CAPS line: the same
    (
        "context.before-call-verb",
        "Mondadori called about the results. Later Johansson phoned.",
        {"Mondadori", "Johansson"},
    ),
    (
        "context.before-call-verb",
        "Pharmacy called. Radiology called back. MICU called. Then Neuro visited. Physiatry visited.",
        set(),
    ),  # frequent words, an acronym
    ("context.before-call-verb", "PT STABLE. MARROWIND CALLED AT 10.", {"MARROWIND"}),
    ("context.before-call-verb", "Johansson called back.", {"Johansson"}),
    (
        "context.before-report-verb",
        "Senost is doing well. Juliette reports less pain. Then Ostkamp said no.",
        {"Senost", "Juliette", "Ostkamp"},
    ),
    (
        "context.before-report-verb",
        "Pt states pain. Family reports fever. Neuro feels ok. Wife said no. PT IS DOING WELL.",
        set(),
    ),  # abbreviations, frequent words  # a sentence's start: a known name
    ("context.before-call-verb", "pt's son called. the family visited.", set()),
    (
        "context.after-sign-off",
        "Will call back tomorrow.\nThanks, Wiktor\n\nKind regards,\nAnna Kowalska",
        {"Wiktor", "Anna Kowalska"},
    ),
    ("context.after-sign-off", "Thanks, Marrowind Ostkamp", {"Marrowind Ostkamp"}),  # the text's end
    (
        "context.after-sign-off",
        "Thanks, Brinqubrin\nThanks,\nHeparin\nBest,\nBestwick\nRegards,\nAssessment\nThanks, Lasix",
        {"Brinqubrin", "Bestwick"},
    ),  # one rare word alone is a name; not a drug nor a frequent word
    (
        "context.after-sign-off",
        "Best regards,\nWiktor\n\nBest wishes, Agnieszka\nThanks,\n\nMehmet\nThanks - Bestwick Ostkamp\n",
        {"Wiktor", "Agnieszka", "Mehmet", "Bestwick Ostkamp"},
    ),  # the longest closing words first; a blank line or a dash before the name
    (
        "context.after-sign-off",
        "Thank you!\nBest\nWiktor\n\nThanks,\nJohn Smith",
        {"Wiktor", "John Smith"},
    ),  # closing words after closing words; a known name, however frequent
    (
        "context.after-sign-off",
        "Thanks,\nUrology\nThanks, PACU\nBest\nHypertension\nTHANKS,\nKEFLEX",
        set(),
    ),  # a specialty, an abbreviation, a condition, a drug in capitals
    (
        "context.after-sign-off",
        "Thanks, Team\nThanks, everyone\nThanks, see you Monday\nBest,\nThe Billing Team",
        set(),
    ),  # frequent words, lower case, more words on the line
    (
        "context.subject-name",
        "RE: Panfilo Casale - discharge summary\nRe: Fwd: Teshardor Rowost\nSubject: Maria Lopez, follow-up",
        {"Panfilo Casale", "Teshardor Rowost", "Maria Lopez"},
    ),
    (
        "context.subject-name",
        "RE: Discharge Planning\nSubject: Team Meeting\nFwd: Invoice 2231\nRE: Casale\nsee RE: Ann Lee",
        set(),
    ),  # frequent words, one word, no subject line's start
    (
        "context.capitals-name",
        "Reviewed the chart of ILSABET MARROWIND today. Family of ÖRFIYE ERGÜL called.",
        {"ILSABET MARROWIND", "ÖRFIYE ERGÜL"},
    ),
    (
        "context.capitals-name",
        "Message from GRETHA VOSSENKAMP JOHANSSON re her father",
        {"GRETHA VOSSENKAMP JOHANSSON"},
    ),
    (
        "context.capitals-name",
        "Started HEPARIN GTT, PICC LINE placed, NO CHANGES, VRE SCREEN sent, MRSA SWAB neg.",
        set(),
    ),  # clinical terms, abbreviations, frequent words
    (
        "context.capitals-name",
        "Pt NOT AWARE of plan. Met with ILSABET MARROWIND QUENBY HARROWGATE.",
        set(),
    ),  # 4
    ("context.capitals-name", "REVIEWED THE CHART OF ILSABET MARROWIND TODAY", set()),  # an ALL-CAPS line
    (
        "context.capitals-name",
        "Spoke to PT ILSABET MARROWIND this morning. Please call QUENBY HARROWGATE ASAP. Met ARENT HAMZA.",
        {"ILSABET MARROWIND", "QUENBY HARROWGATE", "ARENT HAMZA"},
    ),  # other capitals cut from the run's ends; a known name
    ("context.facility-name", "came from Briarwood Hospital", {"Briarwood Hospital"}),
    (
        "context.facility-name",
        "Visited Mayo Clinic today. Memorial Hospital called.",
        {"Mayo Clinic", "Memorial Hospital"},
    ),
    ("context.hospital-initialism", "transferred to BMC; due to SDH", {"BMC"}),
    ("context.lives-in", "she lives in Westbrook with family", {"Westbrook"}),
    ("context.lives-in", "He lives in the village of Sadova.", set()),  # NER finds the name after "of"
    ("context.lives-in", "pt lives in a nursing home", set()),
    ("context.lives-in", "pt lives in lowell with wife", {"lowell"}),
    ("context.lives-in", "LIVES IN QUINCY W/ DTR.", {"QUINCY"}),
    ("context.lives-in", "Lives in Country Club Hills with son", {"Country Club"}),
]


@pytest.mark.parametrize(("rule", "text", "found"), CONTEXT_CASES)
def test_context_rules(rule, text, found):
    with recording() as log:
        ClinicalContextDetector().detect(text)
    assert {text[d.start : d.end] for d in log if d.rule == rule} == found


# (rule, text, a detector's span: piece, label; what is kept of it; tests/detect/test_boundaries.py has more)
BOUNDARY_CASES = [
    (
        "boundary.lone-bracket",
        "Lives in Los Angeles (LA) now",
        "Los Angeles (LA",
        "LOCATION",
        {"Los Angeles", "LA"},
    ),
    (
        "boundary.field-cue",
        "Maria Gonzalez DOB 03/04/1950",
        "Maria Gonzalez DOB",
        "PERSON",
        {"Maria Gonzalez"},
    ),
    (
        "boundary.field-cue",
        "Patient: Smith, John MRN: 4455667",
        "Smith, John MRN:",
        "PERSON",
        {"Smith, John"},
    ),
    ("boundary.trailing-initial", "Attending: Patel, R. MD", "Patel", "PERSON", {"Patel, R."}),
    ("boundary.trailing-initial", "Signed Okafor D. RN", "Okafor", "PERSON", {"Okafor D."}),
    ("boundary.joined-initials", "The applicant, Mr S.E., is", "E.", "PERSON", {"S.E."}),
    ("boundary.joined-initials", "The applicant, Mr S.E., is", "Mr S", "PERSON", {"Mr S.E."}),
    ("boundary.joined-initials", "The applicant, A.B.C., and", "B.C", "LOCATION", {"A.B.C."}),
    (
        "boundary.name-per-line",
        "Attendees:\nSarah Whitfield\nThomas Brennan\n",
        "Sarah Whitfield\nThomas Brennan",
        "PERSON",
        {"Sarah Whitfield", "Thomas Brennan"},
    ),
    ("boundary.whole-words", "The Swan-Ganz was placed.", "Ganz", "OTHER", {"Swan-Ganz"}),
    (
        "boundary.university-prefix",
        "insulin drip per U Maryland scale",
        "Maryland",
        "LOCATION",
        {"U Maryland"},
    ),
    (
        "boundary.university-prefix",
        "PRESENTED TO U OF MD MED CENTER ON",
        "MD MED CENTER",
        "LOCATION",
        {"U OF MD MED CENTER"},
    ),
    (
        "boundary.university-prefix",
        "seen at Univ. of Michigan clinic",
        "Michigan clinic",
        "ORG",
        {"Univ. of Michigan clinic"},
    ),
    (
        "boundary.university-prefix",
        "from University of Iowa Hospital",
        "Iowa Hospital",
        "LOCATION",
        {"University of Iowa Hospital"},
    ),
    ("boundary.whole-identifier", "ICD SN: FX-216656.", "216656", "ID", {"FX-216656"}),
    ("boundary.whole-identifier", "ICD SN: FX-216656.", "216656", "ID", {"FX-216656"}),
    ("boundary.whole-identifier", "Callback 500-0317 today", "500", "PHONE", {"500-0317"}),
    ("boundary.whole-identifier", "SN FX-216656-follow-up", "216656", "ID", {"FX-216656"}),  # not a word
    # every script written with spaces: a piece of an Arabic, Hebrew or Devanagari word is the word
    ("boundary.whole-words", "Isfahan (اصفهان) is", "اصفه", "LOCATION", {"اصفهان"}),
    ("boundary.whole-words", "Moshe (משה) called", "מש", "PERSON", {"משה"}),
    ("boundary.whole-words", "Anjali (अंजलि) called", "अंज", "PERSON", {"अंजलि"}),
    ("boundary.whole-words", "Rene\u0301 called", "Rene", "PERSON", {"Rene\u0301"}),  # a combining accent
    ("boundary.whole-words", "Ali (محمـد) called", "محم", "PERSON", {"محمـد"}),  # Arabic's tatweel inside
    ("boundary.whole-words", "Zahra (عبدالله\u200cزاده) called", "عبد", "PERSON", {"عبدالله\u200cزاده"}),
    ("boundary.whole-words", "\u2764\ufe0fAnna wrote", "Ann", "PERSON", {"Anna"}),  # no emoji's selector
    ("boundary.name-edge-words", "Dr. Tanaka reviewed the chart.", "Tanaka reviewed", "PERSON", {"Tanaka"}),
    (
        "boundary.form-label",
        "Name: Alistair J.\nDate of Birth: 1 May",
        "Alistair J.\nDate of Birth",
        "PERSON",
        {"Alistair J."},
    ),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "kept"), BOUNDARY_CASES)
def test_boundary_rules(rule, text, piece, label, kept):
    span = _span(text, piece, label, 0.9, "spacy")
    with recording() as log:
        found = exact_boundaries(text, [span])
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log} == {rule}


@pytest.mark.parametrize(
    ("text", "piece", "label"),
    [
        ("Gave 10 U Lantus at 2200", "Lantus", "ORG"),  # units of a drug
        ("GAVE 2 U OF FFP", "FFP", "ORG"),
        ("thank u Maryland team", "Maryland", "LOCATION"),  # "u" is no university
        ("the U.S. of Ohio", "Ohio", "LOCATION"),
        ("seen by U Lee", "Lee", "PERSON"),  # no place
    ],
)
def test_no_university_prefix_after_a_number_in_lower_case_or_before_a_person(text, piece, label):
    span = _span(text, piece, label, 0.9, "spacy")
    assert [text[s.start : s.end] for s in exact_boundaries(text, [span])] == [piece]


@pytest.mark.parametrize(
    ("text", "piece", "label"),
    [
        ("Dr Smith of the U.S. Army", "Smith", "PERSON"),  # initials beside, not inside, a name
        ("He met Mr S.E. Smith", "Smith", "PERSON"),
        ("moved to the U.S. in 1990", "1990", "DATE_TIME"),  # not a name's label
    ],
)
def test_initials_that_a_span_does_not_hold_are_left(text, piece, label):
    span = _span(text, piece, label, 0.9, "spacy")
    assert [text[s.start : s.end] for s in exact_boundaries(text, [span])] == [piece]


def test_an_identifier_is_widened_only_over_what_hyphens_join_to_it():
    text = "Swan-Ganz 555 and 20-mg"
    for piece, label in (("555", "ID"), ("Ganz", "ID"), ("20", "NUMBER")):
        span = _span(text, piece, label, 0.9, "spacy")
        widened = exact_boundaries(text, [span])
        assert [text[s.start : s.end] for s in widened] == ["Swan-Ganz" if piece == "Ganz" else piece]


# (rule, text, a detector's span: piece, label; what gdpr keeps of it): gdpr's own rules come first
GDPR_CASES = [
    (
        "gdpr.public-body-or-law",
        "the European Court of Human Rights held",
        "European Court of Human Rights",
        "ORG",
        set(),
    ),
    # a model's span that holds only part of the name
    (
        "gdpr.public-body-or-law",
        "The European Court of Human Rights found a violation.",
        "The European Court of Human",
        "ORG",
        set(),
    ),
    ("gdpr.public-body-or-law", "The Government contested it.", "The Government", "ORG", set()),
    ("gdpr.public-body-or-law", "He paid it to the State.", "State", "ORG", set()),
    (
        "gdpr.public-body-or-law",
        "Representative of the Russian Federation at the Court",
        "Russian Federation",
        "LOCATION",
        set(),
    ),
    (
        "gdpr.public-body-or-law",
        "The Government of the Republic of Moldova said",
        "Moldova",
        "LOCATION",
        set(),
    ),
    (
        "gdpr.public-body-or-law",
        "The Government of the Republic of Moldova said",
        "Government of the Republic of Moldova",
        "ORG",
        set(),
    ),
    ("name.needs-evidence", "He is the President of Acme Corp", "Acme Corp", "ORG", {"Acme Corp"}),
    ("gdpr.public-body-or-law", "the Criminal Code of Ukraine applies", "Ukraine", "LOCATION", set()),
    ("gdpr.public-body-or-law", "The Government of Turkey submitted", "Turkey", "LOCATION", set()),
    ("gdpr.public-body-or-law", "The Government of Türkiye submitted", "Türkiye", "LOCATION", set()),
    (
        "name.needs-evidence",
        "She acted as Representative of the Núñez household",
        "Núñez",
        "ORG",
        {"Núñez"},
    ),
    (
        "name.needs-evidence",
        "Mr Popa, Representative of Orange Moldova, signed",
        "Orange Moldova",
        "ORG",
        {"Orange Moldova"},
    ),
    (
        "name.needs-evidence",
        "He was paid by the Government of Nistru Holdings until 2004",
        "Government of Nistru Holdings",
        "ORG",
        {"Government of Nistru Holdings"},
    ),
    ("name.needs-evidence", "the hottest city in the States", "States", "LOCATION", {"States"}),
    (
        "name.needs-evidence",
        "He joined the Islamic State in 2014.",
        "Islamic State",
        "ORG",
        {"Islamic State"},
    ),
    (
        "gdpr.public-body-or-law",
        "a letter of the Ministry of the Interior",
        "Ministry of the Interior",
        "ORG",
        set(),
    ),
    ("gdpr.public-body-or-law", "sitting as a Chamber composed of", "Chamber", "ORG", set()),
    ("gdpr.public-body-or-law", "and Mrs S. Dollé, Section Registrar,", "Section Registrar", "OTHER", set()),
    # a name after a public body's is no part of it: the court that tried the person stays masked
    (
        "name.needs-evidence",
        "The Ministry of Justice sent the file to the Izmir State Security Court.",
        "Izmir State Security Court",
        "ORG",
        {"Izmir State Security Court"},
    ),
    ("name.needs-evidence", "The Ministry of Justice in Ankara refused.", "Ankara", "LOCATION", {"Ankara"}),
    (
        "name.needs-evidence",
        "The Ministry of Justice in Ankara refused.",
        "Ministry of Justice in Ankara",
        "ORG",
        {"Ministry of Justice in Ankara"},
    ),
    ("name.needs-evidence", "lived in Adana\nGovernment observations", "Adana", "LOCATION", {"Adana"}),
    (
        "name.needs-evidence",
        "The Ministry of Health and Acme Pharma Ltd agreed.",
        "Acme Pharma Ltd",
        "ORG",
        {"Acme Pharma Ltd"},
    ),
    ("gdpr.public-body-or-law", "the Turkish Government replied", "Turkish Government", "ORG", set()),
    ("gdpr.public-body-or-law", "the Ministry of Justice said", "Ministry of Justice", "ORG", set()),
    ("gdpr.public-body-or-law", "under the Criminal Code then", "Criminal Code", "OTHER", set()),
    (
        "gdpr.public-body-or-law",
        "the Prevention of Terrorism Act 1984",
        "Prevention of Terrorism Act 1984",
        "OTHER",
        set(),
    ),
    ("gdpr.public-body-or-law", "under Article 6 of the Convention", "Article 6", "OTHER", set()),
    # a state's adjective before its body, a law's country
    ("gdpr.public-body-or-law", "The Polish Government were represented", "Polish", "DEMOGRAPHIC", set()),
    (
        "gdpr.public-body-or-law",
        "The Hungarian Ministry of Justice replied",
        "Hungarian Ministry of Justice",
        "ORG",
        set(),
    ),
    (
        "gdpr.public-body-or-law",
        "the Prosecutor General's Office refused",
        "Prosecutor General's Office",
        "ORG",
        set(),
    ),
    (
        "gdpr.public-body-or-law",
        "Article 105 of the Criminal Code of the Russian Federation",
        "Russian Federation",
        "LOCATION",
        set(),
    ),
    ("gdpr.quasi-identifier", "a Polish national, the Government", "Polish", "DEMOGRAPHIC", {"Polish"}),
    # a statute's name and year, the bodies of a tribunal's decision
    ("gdpr.public-body-or-law", "under the Employment Rights Act 1996", "Employment Rights", "ORG", set()),
    (
        "gdpr.public-body-or-law",
        "the Trade Union and Labour Relations Act 1992",
        "Labour Relations",
        "ORG",
        set(),
    ),
    (
        "name.needs-evidence",
        "works at Acme Holdings and Equality Act training is",
        "Acme Holdings",
        "ORG",
        {"Acme Holdings"},
    ),
    ("name.needs-evidence", "complained about Tesco's Equality Act policy", "Tesco's", "ORG", {"Tesco's"}),
    ("gdpr.law-number", "under the Equality Act 2010 she", "2010", "DATE_TIME", set()),
    ("gdpr.public-body-or-law", "Under the Mental Health Act 1983, Mr", "Act 1983", "ADDRESS", set()),
    ("gdpr.public-body-or-law", "the Department of Health said", "Department of Health", "ORG", set()),
    # a company before a statute, a religious order, a court's order and its date, an address, a company
    # named as a department: the person's
    (
        "name.needs-evidence",
        "Complaint against Barclays Bank and the Data Protection Act 2018.",
        "Barclays Bank",
        "ORG",
        {"Barclays Bank"},
    ),
    (
        "name.needs-evidence",
        "a nun of the Carmelite Order since",
        "Carmelite Order",
        "ORG",
        {"Carmelite Order"},
    ),
    ("gdpr.calendar-date", "Court Order 12/03/2019 against her", "12/03/2019", "DATE_TIME", {"12/03/2019"}),
    ("gdpr.calendar-date", "Peter Walsh Act 2 May 2019 said", "2 May 2019", "DATE_TIME", {"2 May 2019"}),
    ("address.needs-evidence", "lives at 12 Law Street now", "12 Law Street", "ADDRESS", {"12 Law Street"}),
    (
        "name.needs-evidence",
        "I work at the Department of Coffee and Social Affairs in Leeds",
        "Department of Coffee and Social Affairs",
        "ORG",
        {"Department of Coffee and Social Affairs"},
    ),
    ("gdpr.public-body-or-law", "The Tribunal finds that", "Tribunal", "ORG", set()),
    ("gdpr.public-body-or-law", "The Home Office refused", "Home Office", "ORG", set()),
    (
        "gdpr.public-body-or-law",
        "a petition to the House of Representatives",
        "House of Representatives",
        "ORG",
        set(),
    ),
    ("gdpr.public-body-or-law", "debated in the Bundestag", "the Bundestag", "ORG", set()),
    ("gdpr.public-body-or-law", "the guarantees of Article 6 § 1 of", "Article 6", "ADDRESS", set()),
    (
        "gdpr.public-body-or-law",
        "under the Convention for the Protection of Human Rights and Fundamental Freedoms (the",
        "Freedoms",
        "ORG",
        set(),
    ),
    (
        "gdpr.public-body-or-law",
        "under the International Covenant on Civil and Political Rights, the",
        "Civil and Political Rights",
        "OTHER",
        set(),
    ),
    ("gdpr.public-body-or-law", "the Data Protection Regulation (GDPR) applies", "GDPR", "ORG", set()),
    # a person's name is no treaty's, however it is introduced
    (
        "name.needs-evidence",
        "the Declaration of Ilsabet Marrowind in Support",
        "Marrowind",
        "ORG",
        {"Marrowind"},
    ),
    ("name.needs-evidence", "She signed the Protocol for Maria Smith today", "Smith", "ORG", {"Smith"}),
    ("gdpr.public-body-or-law", "the Court of Justice of the European Union held", "Justice", "ORG", set()),
    (
        "gdpr.public-body-or-law",
        "to the Information Commissioner's Office",
        "Information Commissioner's Office",
        "ORG",
        set(),
    ),
    # an address stays one
    (
        "address.needs-evidence",
        "lives at 6 Article Street, Leeds",
        "6 Article Street",
        "ADDRESS",
        {"6 Article Street"},
    ),
    ("gdpr.public-body-or-law", "the Polish Sejm adopted", "Polish", "DEMOGRAPHIC", set()),
    # a police force that dealt with the person locates them, as the court that tried them does
    (
        "name.needs-evidence",
        "the Bavarian State Police questioned",
        "Bavarian State Police",
        "ORG",
        {"Bavarian State Police"},
    ),
    (
        "gdpr.public-body-or-law",
        "the Department for Work and Pensions paid",
        "Department for Work and Pensions",
        "ORG",
        set(),
    ),
    # what locates or describes the person stays: a group before other words, a city's government, a
    # prosecutor's office, a university after a faculty of law
    ("gdpr.quasi-identifier", "She is a Polish State employee", "Polish", "DEMOGRAPHIC", {"Polish"}),
    ("gdpr.quasi-identifier", "a Catholic Parliament member", "Catholic", "DEMOGRAPHIC", {"Catholic"}),
    ("gdpr.quasi-identifier", "later joined the Islamic State", "Islamic", "DEMOGRAPHIC", {"Islamic"}),
    ("name.needs-evidence", "The Moscow Government evicted him", "Moscow", "LOCATION", {"Moscow"}),
    (
        "name.needs-evidence",
        "the Ankara Public Prosecutor's Office indicted him",
        "Ankara Public Prosecutor's Office",
        "ORG",
        {"Ankara Public Prosecutor's Office"},
    ),
    (
        "name.needs-evidence",
        "graduated from the Faculty of Law of Ankara University",
        "Ankara University",
        "ORG",
        {"Ankara University"},
    ),
    ("name.needs-evidence", "lives in the State of Ohio", "State of Ohio", "LOCATION", {"State of Ohio"}),
    # the court that tried the person is no public body here: the name rule keeps it
    (
        "name.needs-evidence",
        "the Ankara State Security Court convicted him",
        "Ankara State Security Court",
        "ORG",
        {"Ankara State Security Court"},
    ),
    ("gdpr.amount-with-currency", "was paid 5,000 euros", "5,000", "NUMBER", {"5,000 euros"}),
    ("gdpr.amount-with-currency", "fined EUR 1,200 in", "1,200", "NUMBER", {"EUR 1,200"}),
    ("gdpr.amount-with-currency", "a fine of $300 only", "300", "NUMBER", {"$300"}),
    ("gdpr.amount-with-currency", "awarded PLN 30,000 in", "30,000", "NUMBER", {"PLN 30,000"}),
    # a currency with its country's adjective, and the currencies of the states of a decision
    (
        "gdpr.amount-with-currency",
        "to pay 45,000 Russian roubles and",
        "45,000",
        "NUMBER",
        {"45,000 Russian roubles"},
    ),
    (
        "gdpr.amount-with-currency",
        "got 12,000 new Turkish liras.",
        "12,000",
        "NUMBER",
        {"12,000 new Turkish liras"},
    ),
    ("gdpr.amount-with-currency", "fined 300 lei for", "300", "NUMBER", {"300 lei"}),
    ("gdpr.amount-with-currency", "awarded MDL 3,500 in", "3,500", "NUMBER", {"MDL 3,500"}),
    (
        "gdpr.amount-with-currency",
        "paid 15,000 Turkish liras (TRY) to",
        "15,000",
        "NUMBER",
        {"15,000 Turkish liras (TRY)"},
    ),
    ("gdpr.amount-with-currency", "and 2,000 US dollars in", "2,000", "NUMBER", {"2,000 US dollars"}),
    ("gdpr.amount-with-currency", "cost 40 U.S. dollars.", "40", "NUMBER", {"40 U.S. dollars"}),
    ("gdpr.amount-with-currency", "a fine of US$300 only", "300", "NUMBER", {"US$300"}),
    ("gdpr.amount-with-currency", "paid 400 NT dollars in fees", "400", "NUMBER", {"400 NT dollars"}),
    ("number.identifying-digits", "given 2 IV try again", "2", "NUMBER", set()),  # no country's initials
    ("gdpr.amount-with-currency", "paid A$ 1,500 in", "1,500", "NUMBER", {"A$ 1,500"}),
    ("number.identifying-digits", "in 300 US states", "300", "NUMBER", set()),  # initials, no currency
    ("number.identifying-digits", "ALL 300 LUMENS FLUSHED", "300", "NUMBER", set()),
    ("gdpr.amount-with-currency", "of 5,000 Bulgarian levs,", "5,000", "NUMBER", {"5,000 Bulgarian levs"}),
    ("number.identifying-digits", "in 5,000 Russian villages", "5,000", "NUMBER", set()),
    # without a currency a short number is no identifier (the identifier rules decide)
    ("number.identifying-digits", "in 5,000 cases", "5,000", "NUMBER", set()),
    ("gdpr.every-age", "the applicant, aged 34, said", "aged 34", "AGE", {"aged 34"}),
    ("gdpr.law-kind", "section 5 of Law no. 3713 and", "Law", "PERSON", set()),
    ("gdpr.law-kind", "LAW NO. 3713", "LAW", "ORG", set()),
    ("name.needs-evidence", "starring Jude Law as the doctor", "Jude Law", "PERSON", {"Jude Law"}),
    ("gdpr.law-number", "section 5 of Law no. 3713 and", "3713", "DATE_TIME", set()),
    ("gdpr.law-number", "under Act No. 45, the", "45", "NUMBER", set()),
    ("gdpr.law-number", "Article 1 of the Convention No. 14 and", "14", "DATE_TIME", set()),
    ("gdpr.law-number", "Law no. 3713 reads", "3713", "PHONE", set()),  # a model's phone
    ("number.identifying-digits", "enrolled in Protocol No. 2231", "2231", "NUMBER", {"2231"}),  # a study
    ("number.identifying-digits", "Door Code No. 4471", "4471", "NUMBER", {"4471"}),
    ("gdpr.law-number", "UNDER LAW NO. 3713 THE", "3713", "ID", set()),
    ("gdpr.law-number", "applied Law no. 575 of 31 May 1965 on", "31 May 1965", "DATE_TIME", set()),
    ("gdpr.law-number", "under the Law of 18 July 1997, he", "18 July 1997", "DATE_TIME", set()),
    ("gdpr.law-number", "Under the Law of 18 July 1997, Mr Lupu", "July 1997", "ADDRESS", set()),
    (
        "gdpr.calendar-date",
        "By a Decree of 3 June 1990 the President",
        "3 June 1990",
        "DATE_TIME",
        {"3 June 1990"},
    ),
    (
        "gdpr.calendar-date",
        "The Act of 14 June 2003, drawn up by",
        "14 June 2003",
        "DATE_TIME",
        {"14 June 2003"},
    ),
    # a court's decision in the person's case is no law: its date is the person's
    ("gdpr.calendar-date", "by decision no. 12 of 5 May 2003", "5 May 2003", "DATE_TIME", {"5 May 2003"}),
    ("number.identifying-digits", "Bill no. 4471 is unpaid", "4471", "NUMBER", {"4471"}),
    ("gdpr.calendar-date", "in application no. 1998 he", "1998", "DATE_TIME", {"1998"}),
    ("gdpr.calendar-date", "on 12 May 1998 he", "12 May 1998", "DATE_TIME", {"12 May 1998"}),
    ("gdpr.calendar-date", "arrested in March", "March", "DATE_TIME", {"March"}),
    ("gdpr.calendar-date", "released on Monday", "Monday", "DATE_TIME", {"Monday"}),
    ("gdpr.calendar-date", "he left today", "today", "DATE_TIME", set()),
    ("gdpr.calendar-date", "two years later he", "two years later", "DATE_TIME", set()),
    ("gdpr.calendar-date", "in custody for eleven days", "eleven days", "DATE_TIME", {"eleven days"}),
    ("gdpr.calendar-date", "sentenced to four years", "four years", "DATE_TIME", {"four years"}),
    ("gdpr.calendar-date", "three years ago he", "three years ago", "DATE_TIME", set()),
    ("gdpr.calendar-date", "Had it happened five hours earlier", "five hours", "DATE_TIME", set()),
    ("gdpr.calendar-date", "One day, maybe you can", "One day", "DATE_TIME", set()),
    ("gdpr.calendar-date", "Come back in two weeks.", "two weeks", "DATE_TIME", set()),
    ("gdpr.calendar-date", "Come back in two weeks.", "in two weeks", "DATE_TIME", set()),
    ("gdpr.calendar-date", "enter the first three months", "the first three months", "DATE_TIME", set()),
    ("gdpr.law-number", "the Civil Rights Act of 1964 protects", "1964", "DATE_TIME", set()),
    ("gdpr.law-number", "no. 61143 under Article 126 § 2 of the Code", "126", "PHONE", set()),
    ("gdpr.law-number", "under Art. 126 of the Code", "126", "ID", set()),
    ("gdpr.law-number", "the report, §§ 52-54, says", "52-54", "DATE_TIME", set()),  # paragraphs
    (
        "gdpr.calendar-date",
        "as noted in the article 12/05/2019 the",
        "12/05/2019",
        "DATE_TIME",
        {"12/05/2019"},
    ),
    ("gdpr.calendar-date", "in her article 3 March 2015", "3 March 2015", "DATE_TIME", {"3 March 2015"}),
    ("gdpr.quasi-identifier", "a Turkish national", "Turkish", "DEMOGRAPHIC", {"Turkish"}),
    ("gdpr.quasi-identifier", "a police officer in", "police officer", "OCCUPATION", {"police officer"}),
    ("gdpr.quasi-identifier", "paid 5,000 euros", "5,000 euros", "QUANTITY", {"5,000 euros"}),
    ("gdpr.quasi-identifier", "suffered from diabetes", "diabetes", "HEALTH", {"diabetes"}),
    ("gdpr.quasi-identifier", "(no. 10987/10, §§ 8-10)", "§", "DEMOGRAPHIC", set()),
    (
        "gdpr.quasi-identifier",
        "paid two million dollars",
        "two million dollars",
        "QUANTITY",
        {"two million dollars"},
    ),
    ("gdpr.quasi-identifier", "paid several euros", "several euros", "QUANTITY", set()),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "kept"), GDPR_CASES)
def test_gdpr_rules(rule, text, piece, label, kept):
    span = _span(text, piece, label, 0.5, "spacy")
    with recording() as log:
        found = apply_policy(text, [span], "gdpr")
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log} == {rule}


def test_a_short_name_in_brackets_is_a_laws_only_after_a_laws_name():
    law = "under the General Data Protection Regulation (GDPR) and"
    company = "sold by Acme Holdings (ACME) to"
    assert inside_statute(law, _span(law, "GDPR", "ORG", 0.5, "spacy"))
    assert not inside_statute(company, _span(company, "ACME", "ORG", 0.5, "spacy"))


@pytest.mark.parametrize(
    ("text", "piece", "label"),
    [
        ("the applicant, aged 34, said", "aged 34", "AGE"),
        ("two years later he", "two years later", "DATE_TIME"),
    ],
)
def test_hipaa_drops_what_gdprs_own_rules_decide_otherwise_or_alike(text, piece, label):
    assert apply_policy(text, [_span(text, piece, label, 0.5, "spacy")], "hipaa") == []


def test_a_learned_name_of_one_word_of_the_corpus_vocabulary_is_dropped_unless_a_known_name():
    vocabulary = Vocabulary(frozenset({"bolus", "brown", "cxr"}), frozenset())
    text = "Amiod bolus and gtt as ordered, cxr done; son brown called"
    spans = [_span(text, piece, "PERSON", 0.9, "token-classification") for piece in ("bolus", "cxr", "brown")]
    kept = keep_trained(text, spans, [], vocabulary=vocabulary)
    assert [text[s.start : s.end] for s in kept] == ["brown"]
    assert len(keep_trained(text, spans, [])) == 3  # without a vocabulary


# (rule, text, a policy-trained model's PERSON span across a line break, what is kept of it)
ACROSS_LINES_CASES = [
    (
        "learned.name-across-lines",
        "Patient: John Miller\nDOB: 1951-04-12",
        "John Miller\nDOB",
        {"John Miller"},
    ),
    (
        "learned.name-across-lines",
        "PATIENT: JOHN MILLER\nDOB: 04/12/1951",
        "JOHN MILLER\nDOB",
        {"JOHN MILLER"},
    ),
    (
        "learned.name-across-lines",
        "seen by Dr. Ann\nKowalczyk today",
        "Ann\nKowalczyk",
        {"Ann", "Kowalczyk"},
    ),  # every part identifies: one span per line
    (
        "learned.name-across-lines",
        "contact: emidio p lombardo\nAttending RN",
        "emidio p lombardo\nAttending",
        {"emidio p lombardo"},
    ),  # the first line's part is kept without evidence
    (
        "learned.name-across-lines",
        "Name: 4821\n7733 seen",
        "4821\n7733",
        {"4821", "7733"},
    ),  # no word on a line: nothing to judge, so it stays
    (
        "learned.name-across-lines",
        "Seen by Dr 1234\nDOB: 1950",
        "Dr 1234\nDOB",
        {"Dr 1234"},
    ),  # the first line's part whole, digits included
]


@pytest.mark.parametrize(("rule", "text", "piece", "kept"), ACROSS_LINES_CASES)
def test_learned_name_across_lines(rule, text, piece, kept):
    span = _span(text, piece, "PERSON", 0.9, "token-classification")
    with recording() as log:
        found = keep_trained(text, [span], find_dates(text))
    assert {text[s.start : s.end] for s in found} == kept
    split = {d.rule for d in log if not d.kept} == {rule}
    assert split == (kept != {piece})


# (rule, text, a policy-trained model's span across a line break: piece, label; what is kept of it)
ONE_LINE_CASES = [
    (
        "learned.one-line-item-across-lines",
        "src=192.168.1.104\n2021-05-03 14:25",
        "1.104\n2021-05",
        "PHONE",
        {"1.104", "2021-05"},
    ),
    ("learned.one-line-item-across-lines", "MRN 4821\n7733 noted", "4821\n7733", "ID", {"4821", "7733"}),
]


@pytest.mark.parametrize(("rule", "text", "piece", "label", "kept"), ONE_LINE_CASES)
def test_a_one_line_item_across_lines_is_split_at_the_line_break(rule, text, piece, label, kept):
    span = _span(text, piece, label, 0.9, "token-classification")
    with recording() as log:
        found = keep_trained(text, [span], [])
    assert {text[s.start : s.end] for s in found} == kept
    assert {d.rule for d in log if not d.kept} == {rule}


# (rule, text, a detector's spans: (piece, label), what is found)
WHOLE_MENTION_CASES = [
    ("gdpr.whole-titled-name", "awarded the Order of Merit in 1998", [("Merit", "ORG")], {"Order of Merit"}),
    ("gdpr.whole-titled-name", "the Order of Merit in 1998", [("Order", "OTHER")], {"Order of Merit"}),
    (
        "gdpr.whole-titled-name",
        "a degree from the University of Sofia",
        [("University", "ORG")],
        {"University of Sofia"},
    ),
    # not over another span, nor a public body or a law, nor a person
    (
        "gdpr.whole-titled-name",
        "Claudia Mo of Civic Party",
        [("Claudia Mo", "PERSON"), ("Civic Party", "ORG")],
        {"Claudia Mo", "Civic Party"},
    ),
    ("gdpr.whole-titled-name", "the Ministry of Justice of Turkey", [("Turkey", "LOCATION")], {"Turkey"}),
    ("gdpr.whole-titled-name", "Anna Berg of Oslo", [("Anna Berg", "PERSON")], {"Anna Berg"}),
    ("gdpr.whole-titled-name", "The Prime Minister of Turkey", [("Turkey", "LOCATION")], {"Turkey"}),
    ("gdpr.whole-titled-name", "Head of Security for Lukoil", [("Lukoil", "ORG")], {"Lukoil"}),
    (
        "gdpr.whole-titled-name",
        "The Palace of Eight Paradises",
        [("Eight Paradises", "ORG")],
        {"Palace of Eight Paradises"},
    ),
]


@pytest.mark.parametrize(("rule", "text", "found", "whole"), WHOLE_MENTION_CASES)
def test_whole_mention_rules(rule, text, found, whole):
    spans = [_span(text, piece, label, 0.9, "learned") for piece, label in found]
    with recording() as log:
        widened = whole_titled_names(text, spans)
    assert {text[s.start : s.end] for s in widened} == whole
    assert ({d.rule for d in log} == {rule}) is (whole != {piece for piece, _ in found})


# (rule, text, a detector's spans: (piece, label), what is kept)
CITATION_CASES = [
    (
        "gdpr.case-law-citation",
        "found in Öcalan v. Turkey ([GC], no. 46221/99, §§ 52-54, ECHR 2005-IV).",
        [
            ("Öcalan", "PERSON"),
            ("Turkey", "LOCATION"),
            ("GC", "ORG"),
            ("46221/99", "ID"),
            ("52-54", "DATE_TIME"),
        ],
        set(),
    ),
    (
        "gdpr.case-law-citation",
        "(see Selmouni v. France [GC], no. 25803/94, § 95, ECHR 1999-V)",
        [("Selmouni", "PERSON"), ("ECHR", "ORG"), ("1999", "DATE_TIME")],
        set(),
    ),
    # the document's own case, by its number or its name; a case naming a person found outside citations
    (
        "gdpr.case-law-citation",
        "(Application no. 41758/04) ... see Kaya v. Turkey, no. 41758/04, § 10",
        [("Kaya", "PERSON")],
        {"Kaya"},
    ),
    (
        "gdpr.case-law-citation",
        "CASE OF KAYA v. TURKEY\nThe Court recalls Kaya v. Turkey, no. 22535/93, § 10, 28 March 2000.",
        [("Kaya", "PERSON"), ("22535/93", "ID")],
        {"Kaya", "22535/93"},
    ),
    (
        "gdpr.case-law-citation",
        "Citing Demir v. Turkey (no. 1), no. 11112/02, § 40, 10 May 2005, Mr Ali Demir complained.",
        [("Mr Ali Demir", "PERSON"), ("Demir", "PERSON"), ("11112/02", "ID")],
        {"Mr Ali Demir", "Demir", "11112/02"},
    ),
    # a two-letter name found elsewhere; a dispute between private parties; a date after a citation
    (
        "gdpr.case-law-citation",
        "The applicant, Mr Xu, complained (see Xu v. Poland, no. 1234/10, § 12).",
        [("Mr Xu", "PERSON"), ("1234/10", "ID")],
        {"Mr Xu", "1234/10"},
    ),
    (
        "gdpr.case-law-citation",
        "a judgment between neighbours, Kessler v. Brandt, no. 312/18, in which",
        [("Kessler", "PERSON"), ("312/18", "ID")],
        {"Kessler", "312/18"},
    ),
    (
        "gdpr.case-law-citation",
        "relied on Öztürk v. Germany, no. 22479/93, 12 May 2021 being the day he was arrested",
        [("Öztürk", "PERSON"), ("12 May 2021", "DATE_TIME")],
        {"12 May 2021"},
    ),
    (
        "gdpr.case-law-citation",
        "relied on Kessler v. Jordan, no. 312/18, a dispute with her neighbour",
        [("Kessler", "PERSON"), ("Jordan", "PERSON")],
        {"Kessler", "Jordan"},
    ),  # a person named like a state
    # no citation without a reference after the names, nor with a date alone (a private dispute)
    ("gdpr.case-law-citation", "the dispute Smith v. Jones was settled", [("Smith", "PERSON")], {"Smith"}),
    (
        "gdpr.case-law-citation",
        "he cited Marrowind v. Harrowgate, 14 March 2019, in his letter",
        [("Marrowind", "PERSON"), ("14 March 2019", "DATE_TIME")],
        {"Marrowind", "14 March 2019"},
    ),
    # a party after "v." found as a person elsewhere; the document's title; its name in capitals with "İ"
    (
        "gdpr.case-law-citation",
        "in Brandt v. Ostrowski, no. 412/18, § 3, where Piotr Ostrowski was ordered",
        [("Brandt", "LOCATION"), ("412/18", "ID"), ("Piotr Ostrowski", "PERSON")],
        {"Brandt", "412/18", "Piotr Ostrowski"},
    ),
    (
        "gdpr.case-law-citation",
        "Zielinski v. Hartwell Logistics Ltd, no. 2201/19\n\nThe claimant was dismissed.",
        [("Zielinski", "PERSON"), ("2201/19", "ID")],
        {"Zielinski", "2201/19"},
    ),
    (
        "gdpr.case-law-citation",
        "CASE OF DEMİRTAŞ v. TURKEY (No. 2)\n\nsee Demirtaş v. Turkey (no. 1), no. 14305/17, § 5",
        [("Demirtaş", "PERSON"), ("14305/17", "ID")],
        {"Demirtaş", "14305/17"},
    ),
]


@pytest.mark.parametrize(("rule", "text", "found", "kept"), CITATION_CASES)
def test_case_law_citation_rule(rule, text, found, kept):
    spans = [_span(text, piece, label, 0.9, "learned") for piece, label in found]
    with recording() as log:
        left = without_cited_cases(text, spans)
    assert {text[s.start : s.end] for s in left} == kept
    assert ({d.rule for d in log} == {rule}) is (len(left) < len(spans))


TABLES = [
    WHOLE_MENTION_CASES,
    CITATION_CASES,
    DATE_CASES,
    ONE_LINE_CASES,
    PHONE_CASES,
    IDENTIFIER_CASES,
    SUPPORT_CASES,
    LEARNED_CASES,
    ACROSS_LINES_CASES,
    CONTEXT_CASES,
    BOUNDARY_CASES,
    GDPR_CASES,
]


def test_every_registered_rule_has_a_row_a_reason_and_examples():
    covered = {row[0] for table in TABLES for row in table}
    for rule in RULES:
        assert rule.name in covered, (
            f"rule {rule.name!r} has no row in the tables of tests/detect/test_rules.py"
        )
        assert rule.reason and rule.examples, rule.name


def test_the_registry_refuses_a_duplicate_name_and_inserts_in_order():
    with pytest.raises(InputError, match="already registered"):
        register_rule(Rule(name="age.over-89", family="identifiers", reason="again", examples=("x",)))
    names = [r.name for r in RULES.family("identifiers")]
    assert names[0] == "context-rule-span" and names[-1] == "number.identifying-digits"


def test_a_name_that_closes_its_brackets_keeps_them():
    text = "at Acme (UK) Ltd today"
    with recording() as log:
        found = exact_boundaries(text, [_span(text, "Acme (UK) Ltd", "ORG", 0.9, "spacy")])
    assert {text[s.start : s.end] for s in found} == {"Acme (UK) Ltd"} and not log
