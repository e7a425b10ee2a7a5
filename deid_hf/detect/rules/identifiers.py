"""Which detector spans the hipaa policy (and gdpr, after its own rules) keeps: one named rule per case,
tried in order; the first that applies to a span decides (keeps it, or parts of it, maybe relabelled; or
drops it)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...policies import DEFAULT_POLICY, Policy, check_policy
from ...spans import Span
from ..evidence import evidence_span, has_evidence
from ..lexicon import Vocabulary
from ..patterns import POSTAL_CODE
from ..text_shape import AGE_OVER_89_IN_WORDS, FACILITY_END, WORD_ANY_SCRIPT
from . import RULES, Rule, Seen, SpanRule, decided, recording_active, register_rule
from . import gdpr as _gdpr_rules  # noqa: F401  (registers the gdpr family, tried first under gdpr)
from .phones import PHONE_SHAPE, SSN_SHAPE, not_a_phone, phone_digits

#: labels whose spans need identifier evidence under hipaa
NAMED = {"PERSON", "ORG", "LOCATION", "OTHER"}
#: an ID span scored at least this by its recognizer (checksum, SSN, credit card) is kept as it is; weaker
#: ones (presidio's licence/passport/bank patterns match "O2", "x2") need 5+ digits or an ID context
STRONG_ID = 0.5
#: score of a number kept for its ID context ("MRN", "account"): above a token classifier's usual scores, so
#: that the merged span is an ID (its surrogate an ID) rather than, say, a model's ADDRESS
CONTEXT_ID_SCORE = 0.95
#: characters read before a number for an ID context word, and after it for a unit
ID_CONTEXT_BEFORE, UNIT_AFTER = 24, 12

_ID_CONTEXT = re.compile(
    r"(?i)(?:#|\bno\.|\bmrn\b|\bref\b|\baccount\b|\bacct\b|\bpolicy\b|\blicen[cs]e\b|\brecord\b|\bid\b|"
    r"\bsocial security\b|\bssn\b|\bmedicaid\b|\bmedicare\b|"
    r"\b(?:order|ticket|booking|tracking|invoice|reservation|serial|payroll|passport|member|employee|badge|"
    r"confirmation(?=[ \t]+(?:number|code)))"
    r"(?:[ \t]+(?:number|code))?\b)[ \t:#.]*$"
)
#: a measurement, not an identifier, whatever the context ("order 1000 mL", "per order 10.5 mg", "order 2.5",
#: a catheter's French size "#16fr", "#30f/30cc", "14 French")
_MEASUREMENT = re.compile(
    r"(?i)\d+(?:[.,]\d+)?\s*(?:mg|mcg|g|kg|ml|cc|l|units?|iu|meq|mmol|%|kcal|hrs?|mins?|mmhg|bpm|lbs?|oz)\b"
    r"|\d{1,2}(?:fr?|\s*french)\b"
    r"|\d+[.,]\d+(?!\S)"
)
_LONG_DIGITS = re.compile(r"(?<![\d.,])\d{5,}(?![\d.,]\d)")
_URL_OK = re.compile(r"(?i)://|\bwww\.|\w{3,}\.(?:com|org|net|edu|gov|io|info|biz)\b")
_AGE = re.compile(r"\d+")
#: a hospital location alone ("Rm 5", "bed 12", "unit 4"): not an address (an apartment, suite or P.O. box is)
_UNIT_ONLY = re.compile(r"(?i)^(?:unit|floor|fl|room|rm|bed)\.?\s*#?\s*\d+[a-z]?$")
#: a British or Canadian postal code, the whole span (`patterns.POSTAL_CODE`)
_POSTAL_CODE = re.compile(POSTAL_CODE)
#: an apartment, suite or P.O. box: part of a postal address
_POSTAL_UNIT = re.compile(r"(?i)\b(?:apt|apartment|suite|ste|p\.?\s?o\.?\s*box|box)\b\.?\s*#?\s*\d")


def over_89(age: str) -> bool:
    """An age span with a number over 89, in digits or in words ("ninety-seven"; HIPAA Safe Harbor names ages
    over 89 only)."""
    return any(int(n) > 89 for n in _AGE.findall(age)) or AGE_OVER_89_IN_WORDS.search(age) is not None


def _address_with_evidence(seen: Seen, span: Span) -> list[Span]:
    text = seen.text
    words = [m.span() for m in WORD_ANY_SCRIPT.finditer(text, span.start, span.end)]
    written = any(has_evidence(text, *w, seen.vocabulary) and not text[w[0] : w[1]].isupper() for w in words)
    return [span] if written else []


def _identifying_digits(seen: Seen, span: Span) -> list[Span]:
    """Runs of 5+ digits as IDs, and the whole number as an ID after an ID context word (not a measurement);
    dates inside come from the date rules over the whole text."""
    text, piece = seen.text, seen.text[span.start : span.end]
    kept = [
        Span(span.start + m.start(), span.start + m.end(), "ID", span.score, span.source)
        for m in _LONG_DIGITS.finditer(piece)
    ]
    if (
        span.label in ("NUMBER", "ID")
        and len(piece.strip(".,;:")) >= 4
        and _ID_CONTEXT.search(text[max(0, span.start - ID_CONTEXT_BEFORE) : span.start])
        and not _MEASUREMENT.match(text, span.start, span.end + UNIT_AFTER)
    ):
        # the context types it: an ID outranks another detector's guess in the merge ("MRN 4839201")
        kept.append(Span(span.start, span.end, "ID", max(span.score, CONTEXT_ID_SCORE), span.source))
    return kept


def _unsupported(seen: Seen, span: Span) -> bool:
    """A model trained on the policy's gold reads the text and finds nothing over ``span`` even at its
    support threshold."""
    return seen.support is not None and not seen.supported(span)


def _kept(seen: Seen, span: Span) -> list[Span]:
    return [span]


def _dropped(seen: Seen, span: Span) -> list[Span]:
    return []


def _register(name: str, labels: tuple[str, ...], reason: str, examples: tuple[str, ...], keep, **kw):
    return register_rule(
        SpanRule(
            name=name, family="identifiers", labels=labels, reason=reason, examples=examples, keep=keep, **kw
        )
    )


_register(
    "context-rule-span",
    (),
    "a span of the clinical context rules was found by its context: kept as found",
    ("Dr. Wojcik",),
    _kept,
    applies=lambda seen, span, piece: "clinical" in span.source,
)
_register("email-or-ip", ("EMAIL", "IP"), "e-mail and IP addresses identify", ("ann@example.org",), _kept)
_register(
    "id.ssn-layout",
    ("PHONE", "NUMBER", "ID"),
    "a number in the 3-2-4 layout of a Social Security number is an ID, whatever a detector called it",
    ("123-45-6789",),
    lambda seen, span: [Span(span.start, span.end, "ID", span.score, span.source)],
    applies=lambda seen, span, piece: SSN_SHAPE.fullmatch(piece.strip()) is not None,
)
_register(
    "phone.not-a-measurement-series",
    ("PHONE",),
    "a blood pressure, a range, a lab series, a time range or a number too short for a phone without a "
    "country code is no phone (`phones.not_a_phone`)",
    ("129/78--140/88", "slept 0400-0600", "UO 390-550 cc"),
    lambda seen, span: [] if not_a_phone(seen.text, span.start, span.end) else [span],
)
_register(
    "name.needs-model-support",
    ("PERSON",),
    "another detector's person name that the model trained on the policy's gold does not find even at its "
    "support threshold is a drug, device or abbreviation more often than a name",
    ("Lasix given",),
    _dropped,
    applies=lambda seen, span, piece: _unsupported(seen, span),
)
_register(
    "organisation.needs-model-support",
    ("ORG",),
    "another detector's organisation that the model trained on the policy's gold does not find even at its "
    "support threshold, and that is not named as a facility, is a drug, device or clinical term more often "
    "than an organisation",
    ("Yankaur suction",),
    _dropped,
    applies=lambda seen, span, piece: _unsupported(seen, span) and not FACILITY_END.search(piece),
)
_register(
    "place.needs-model-support",
    ("LOCATION", "OTHER"),
    "another detector's place or group (a nationality, a religion) that the model trained on the policy's "
    "gold does not find even at its support threshold, and that is not named as a facility, is a clinical "
    "term or abbreviation more often than a place",
    ("Wedge is 21",),
    _dropped,
    applies=lambda seen, span, piece: _unsupported(seen, span) and not FACILITY_END.search(piece),
)
_register(
    "name.needs-evidence",
    tuple(sorted(NAMED)),
    "a name is trimmed to its identifying words (`evidence.has_evidence`); dropped without any",
    ("Kowalczyk aware", "clear lungs"),
    lambda seen, span: [s] if (s := evidence_span(seen.text, span, seen.vocabulary, seen.original)) else [],
)
_register(
    "address.hospital-unit-alone",
    ("ADDRESS",),
    "a room, bed, floor or unit alone locates no one outside the hospital",
    ("Rm 5", "bed 12"),
    _dropped,
    applies=lambda seen, span, piece: _UNIT_ONLY.match(piece.strip()) is not None,
)
_register(
    "address.postal-unit",
    ("ADDRESS",),
    "an apartment, suite or P.O. box is part of a postal address",
    ("Apt. 762", "P.O. Box 104"),
    _kept,
    applies=lambda seen, span, piece: _POSTAL_UNIT.search(piece) is not None,
)
_register(
    "address.postal-code",
    ("ADDRESS",),
    "a British or Canadian postal code locates a street, however it is written (capitals by rule)",
    ("SW1A 1AA", "M5H 2S6"),
    _kept,
    applies=lambda seen, span, piece: _POSTAL_CODE.fullmatch(piece.strip()) is not None,
)
_register(
    "address.needs-evidence",
    ("ADDRESS",),
    "an address needs an identifying word written other than in capitals",
    ("42 Elm Street",),
    _address_with_evidence,
)
_register(
    "url.needs-url-shape",
    ("URL",),
    "a URL needs a scheme, 'www.' or a common top-level domain",
    ("www.example.org",),
    lambda seen, span: [span] if _URL_OK.search(seen.text[span.start : span.end]) else [],
)
_register(
    "age.over-89",
    ("AGE",),
    "HIPAA Safe Harbor names ages over 89 only",
    ("98 yo",),
    lambda seen, span: [span] if over_89(seen.text[span.start : span.end]) else [],
)
_register(
    "id.validated",
    ("ID",),
    "an ID its recognizer scored at least STRONG_ID (a checksum, an SSN, a card number) is kept",
    ("078-05-1120",),
    _kept,
    applies=lambda seen, span, piece: span.score >= STRONG_ID,
)
_register(
    "number.phone-shaped",
    ("NUMBER", "ID"),
    "a phone-shaped number with enough digits is a phone",
    ("1-984-182-0190",),
    lambda seen, span: [Span(span.start, span.end, "PHONE", span.score, span.source)],
    applies=lambda seen, span, piece: (
        PHONE_SHAPE.fullmatch(piece.strip()) is not None and phone_digits(piece)
    ),
)
_register(
    "number.identifying-digits",
    ("NUMBER", "DATE_TIME", "ID"),
    "runs of 5+ digits are IDs, and a number of 4+ characters after an ID word ('MRN', '#', 'account', "
    "'ticket') unless a unit follows; other numbers, times and durations are dropped",
    ("MRN 48213377", "ref # 8336652", "bed 12"),
    _identifying_digits,
)


def keep_identifiers(seen: Seen, span: Span, rules: Sequence[Rule] | None = None) -> list[Span]:
    """The parts of one detector's span that the first applying identifier rule (of ``rules``, by default
    the registered ones) keeps; a span no rule applies to is kept."""
    piece = seen.text[span.start : span.end]
    for rule in RULES.family("identifiers") if rules is None else rules:
        if rule.covers(span.label) and rule.applies(seen, span, piece):
            kept = rule.keep(seen, span)
            if recording_active():
                for part in kept or [span]:
                    decided(rule.name, part, bool(kept))
            return kept
    return [span]


def apply_policy(
    text: str,
    spans: Sequence[Span],
    policy: str = DEFAULT_POLICY,
    vocabulary: Vocabulary | None = None,
    original: str | None = None,
    support: Sequence[Span] | None = None,
) -> list[Span]:
    """The spans ``policy`` keeps (hipaa: the identifier rules, `rules.identifiers`; gdpr: its own rules,
    `rules.gdpr`, then those; strict: all), not merged. ``text``: what the detectors saw; ``original``: the
    text before case restoration if it differs; ``support``: the policy-trained model's spans at its support
    threshold (`Seen.support`)."""
    policy = check_policy(policy)
    if policy == Policy.STRICT:
        return list(spans)
    seen, rules = Seen(text, vocabulary, original, support), RULES.family("identifiers")
    if policy == Policy.GDPR:
        rules = RULES.family("gdpr") + rules
    return [kept for span in spans for kept in keep_identifiers(seen, span, rules)]
