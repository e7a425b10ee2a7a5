"""Exact span boundaries, whatever detector or rule found a span (`exact_boundaries`, the ``word boundaries``
detection stage): edges snapped out to whole words (`spans.snap_to_words`: "Swan-Gan|z|", "Hod|gkin|" never
stay cut), then a name's edges without the frequent lower-case words and the possessive no name has
(`learned_spans.trim_common_words`: "Tanaka reviewed", "Tanaka's"); no span runs on over a line break or a
column gap into a form's next field label ("Alistair J.\nDate of Birth:"). A boundary rule moves edges; it
never drops a span (where nothing of a name would be left, the span stays as found)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from ...spans import Span, merge_spans, snap_to_words
from ..learned_spans import line_parts, trim_common_words
from ..lexicon import is_name_word
from ..text_shape import FIELD_CUES
from . import Rule, decided, decided_all, register_rule
from .identifiers import NAMED

WHOLE_WORDS = register_rule(
    Rule(
        name="boundary.whole-words",
        family="boundaries",
        reason="a span edge inside a word is moved out to the word's edge: words are never cut",
        examples=("Swan-Ganz", "Hodgkin lymphoma", "Jean-Luc"),
    )
)
NAME_EDGES = register_rule(
    Rule(
        name="boundary.name-edge-words",
        family="boundaries",
        labels=tuple(sorted(NAMED)),
        reason="a frequent lower-case word at a name's edge (in a text that capitalises names) and a "
        "person's or place's possessive are no part of the name",
        examples=("Dr. Tanaka reviewed the chart.", "Tanaka's wife"),
    )
)
FORM_LABEL = register_rule(
    Rule(
        name="boundary.form-label",
        family="boundaries",
        reason="a span does not run on over a line break or a column gap (2+ spaces, a tab) into a form's "
        "next field label (words before a colon); a label with a known person name stays masked",
        examples=("Name: Alistair J.\nDate of Birth: 1 May", "Marcus Lee   Age: 94"),
    )
)
NAME_PER_LINE = register_rule(
    Rule(
        name="boundary.name-per-line",
        family="boundaries",
        labels=("PERSON",),
        reason="a person span across line breaks is one name per line (an attendee list, a signature block): "
        "each line's part stays a span of its own",
        examples=("Attendees:\nSarah Whitfield\nThomas Brennan",),
    )
)
TRAILING_INITIAL = register_rule(
    Rule(
        name="boundary.trailing-initial",
        family="boundaries",
        labels=("PERSON",),
        reason="a name written surname first takes the initial after its comma ('Patel, R.'); a credential's "
        "letters ('M.D.', 'D.O.') are no initial",
        examples=("Attending: Patel, R. MD",),
    )
)
JOINED_INITIALS = register_rule(
    Rule(
        name="boundary.joined-initials",
        family="boundaries",
        labels=("PERSON", "ORG", "LOCATION", "OTHER"),
        reason="a name written as initials without blanks ('S.E.', 'A.B.C.') is one name: a name found in "
        "part of it takes all of its letters (the letters left beside a model's 'E.' give the name away)",
        examples=("The applicant, Mr S.E., is a national", "S.E. was born in 1980"),
    )
)
LONE_BRACKET = register_rule(
    Rule(
        name="boundary.lone-bracket",
        family="boundaries",
        labels=tuple(sorted(NAMED)),
        reason="a name does not run on over a bracket it does not close ('Los Angeles (LA'): the parts "
        "before and after the bracket are spans of their own",
        examples=("Los Angeles (LA) is big",),
    )
)
FIELD_CUE = register_rule(
    Rule(
        name="boundary.field-cue",
        family="boundaries",
        labels=tuple(sorted(NAMED)),
        reason="a name ends before a form field's word that follows it on its line ('Maria Gonzalez DOB "
        "03/04/1950', 'Smith, John MRN 4455667')",
        examples=("Maria Gonzalez DOB 03/04/1950",),
    )
)
WHOLE_IDENTIFIER = register_rule(
    Rule(
        name="boundary.whole-identifier",
        family="boundaries",
        labels=("ID", "PHONE"),
        reason="an ID or a phone number found in part of capitals and digits joined by hyphens is the whole "
        "of them: a serial's prefix, a local number's last four ('FX-216656', '555-0143'; not a word: "
        "'12345678-follow-up')",
        examples=("ICD SN: FX-216656", "Callback 500-0317"),
    )
)
UNIVERSITY_PREFIX = register_rule(
    Rule(
        name="boundary.university-prefix",
        family="boundaries",
        labels=("LOCATION", "ORG"),
        reason="a place or an organisation found after 'U', 'Univ.' or 'University', with or without 'of', "
        "is a university's or its hospital's name: the words before it are part of it",
        examples=("insulin per U Maryland scale", "PRESENTED TO U OF MD MED CENTER"),
    )
)
#: "U", "Univ." or "University", and "of", right before a span: a university's or its hospital's name; not
#: units after a number ("10 U Lantus")
_UNIVERSITY_BEFORE = re.compile(
    r"(?<![\w.])(?<!\d[ \t])(?:U|(?i:univ\.?|university))[ \t]+(?:(?i:of)[ \t]+)?$"
)
#: letters and digits joined by hyphens before and after a span's edges
_JOINED_BEFORE = re.compile(r"(?<![\w-])(?:(?:[A-Z0-9]+|[A-Za-z]{1,3})-)+$")
_JOINED_AFTER = re.compile(r"(?:-[A-Z0-9]+)+(?![\w-])")
#: a form field's word ending a span, and the blanks before it
_FIELD_CUE_END = re.compile(rf"[ \t]+(?i:{'|'.join(sorted(FIELD_CUES))})[.:#]?$")
#: a bracket inside a span that holds brackets of one kind only (none of them is closed)
_LONE_BRACKET = re.compile(r"[ \t]*[()][ \t]*")
#: ", R." or " R." after a surname: one capital and its full stop, no letter after it ("M.D." is no initial)
_TRAILING_INITIAL = re.compile(r",?[ \t]?[A-Z]\.(?![A-Za-z.])")
#: two to five capital initials, each with its full stop, written without blanks ("S.E.", "A.B.C.")
_JOINED_INITIALS = re.compile(r"(?<![\w.])(?:[A-Z]\.){2,5}(?![\w])")
#: a line break or a column gap of a form, then a field label of up to five words, then its colon
_GAP_THEN_LABEL = re.compile(
    # the gap is a whole run of blanks, taken without giving any back: a long run costs linear time
    r"(?<![ \t])(?=[ \t]*\n|[ \t]{2}|[ \t]*\t)(?:[ \t]*+\n)?[ \t]*+"
    r"([^\W\d_][\w.'’/-]*(?:[ \t][\w.'’/-]+){0,4})[ \t]*:?$"
)
_COLON_AFTER = re.compile(r"[ \t]*:")


def before_form_label(text: str, span: Span) -> list[Span]:
    """``span`` cut before a form's next field label it runs on into (`FORM_LABEL`); the label itself stays
    a span where one of its words is a known person name; ``[span]`` where there is no such label."""
    piece = text[span.start : span.end]
    if not (piece.endswith(":") or _COLON_AFTER.match(text, span.end)):
        return [span]
    gap = _GAP_THEN_LABEL.search(piece)
    head = piece[: gap.start()].rstrip() if gap else ""
    if not head:
        return [span]
    parts = [dataclasses.replace(span, end=span.start + len(head))]
    label_start, label_end = span.start + gap.start(1), span.start + gap.end(1)
    if any(is_name_word(w) for w in re.findall(r"[^\W\d_]+", text[label_start:label_end])):
        parts.append(dataclasses.replace(span, start=label_start, end=label_end))
    return parts


def exact_boundaries(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with whole-word edges (`WHOLE_WORDS`), without a form's next field label (`FORM_LABEL`) and
    names without common edge words (`NAME_EDGES`), merged where snapping made them overlap ("Jean" and
    "Luc" of "Jean-Luc"); a person span across line breaks one name per line (`NAME_PER_LINE`); a
    person's initials whole (`JOINED_INITIALS`); a university's name whole (`UNIVERSITY_PREFIX`)."""
    out = []
    for found in spans:
        span = snap_to_words(text, found)
        if span is not found:
            decided(WHOLE_WORDS.name, span, True)
        parts = before_form_label(text, span)
        if parts != [span]:
            decided_all(FORM_LABEL.name, parts, True)
        split = [piece for part in parts for piece in at_lone_brackets(text, part)]
        if split != parts:
            decided_all(LONE_BRACKET.name, split, True)
            parts = split
        lines = [line for part in parts for line in one_per_line(text, part)]
        if lines != parts:
            decided_all(NAME_PER_LINE.name, lines, True)
        out += [
            with_joined_initials(
                text, with_trailing_initial(text, _without_edge_words(text, before_field_cue(text, line)))
            )
            for line in lines
        ]
    return merge_spans([whole_identifier(text, with_university(text, span)) for span in out])


def with_university(text: str, span: Span) -> Span:
    """A LOCATION or ORG ``span`` widened over the "U of" or "University" right before it
    (`UNIVERSITY_PREFIX`); others as they are."""
    if not UNIVERSITY_PREFIX.covers(span.label):
        return span
    before = _UNIVERSITY_BEFORE.search(text, max(0, span.start - 20), span.start)
    if before is None:
        return span
    widened = dataclasses.replace(span, start=before.start())
    decided(UNIVERSITY_PREFIX.name, widened, True)
    return widened


def whole_identifier(text: str, span: Span) -> Span:
    """An ID or PHONE ``span`` widened over the letters and digits hyphens join to it (`WHOLE_IDENTIFIER`);
    others as they are."""
    if not WHOLE_IDENTIFIER.covers(span.label):
        return span
    before = _JOINED_BEFORE.search(text, max(0, span.start - 40), span.start)
    after = _JOINED_AFTER.match(text, span.end, span.end + 40)
    if before is None and after is None:
        return span
    start = before.start() if before else span.start
    widened = dataclasses.replace(span, start=start, end=after.end() if after else span.end)
    decided(WHOLE_IDENTIFIER.name, widened, True)
    return widened


def before_field_cue(text: str, span: Span) -> Span:
    """A name ``span`` without a form field's word at its end (`FIELD_CUE`); others as they are."""
    cue = _FIELD_CUE_END.search(text, span.start, span.end) if FIELD_CUE.covers(span.label) else None
    if cue is None or cue.start() == span.start:
        return span
    cut = dataclasses.replace(span, end=cue.start())
    decided(FIELD_CUE.name, cut, True)
    return cut


def with_trailing_initial(text: str, span: Span) -> Span:
    """A PERSON ``span`` widened over the initial after its comma (`TRAILING_INITIAL`); others as they are."""
    initial = _TRAILING_INITIAL.match(text, span.end) if TRAILING_INITIAL.covers(span.label) else None
    if initial is None:
        return span
    widened = dataclasses.replace(span, end=initial.end())
    decided(TRAILING_INITIAL.name, widened, True)
    return widened


def with_joined_initials(text: str, span: Span) -> Span:
    """A name ``span`` that holds part of a run of initials (`JOINED_INITIALS`) widened over all of it;
    others as they are."""
    if not JOINED_INITIALS.covers(span.label):
        return span
    start, end = span.start, span.end
    window = max(0, start - 10)
    for run in _JOINED_INITIALS.finditer(text, window, min(len(text), end + 10)):
        if run.start() < end and span.start < run.end():
            start, end = min(start, run.start()), max(end, run.end())
    if (start, end) == (span.start, span.end):
        return span
    widened = dataclasses.replace(span, start=start, end=end)
    decided(JOINED_INITIALS.name, widened, True)
    return widened


def at_lone_brackets(text: str, span: Span) -> list[Span]:
    """A name ``span`` split at a bracket it does not close (`LONE_BRACKET`); any other as it is."""
    piece = text[span.start : span.end]
    if not LONE_BRACKET.covers(span.label) or ("(" in piece) == (")" in piece):
        return [span]
    edges, start = [], span.start
    for bracket in _LONE_BRACKET.finditer(piece):
        edges.append((start, span.start + bracket.start()))
        start = span.start + bracket.end()
    edges.append((start, span.end))
    parts = [
        dataclasses.replace(span, start=a, end=b) for a, b in edges if any(c.isalnum() for c in text[a:b])
    ]
    return parts or [span]


def one_per_line(text: str, span: Span) -> list[Span]:
    """A PERSON ``span`` across line breaks as each line's part (`NAME_PER_LINE`); any other as it is."""
    if not NAME_PER_LINE.covers(span.label) or "\n" not in text[span.start : span.end]:
        return [span]
    return line_parts(text, span)


def _without_edge_words(text: str, span: Span) -> Span:
    """A name ``span`` without the common words at its edges (`NAME_EDGES`); other spans as they are."""
    if NAME_EDGES.covers(span.label):
        trimmed = trim_common_words(text, span)
        if trimmed is not None and trimmed != span:
            decided(NAME_EDGES.name, trimmed, True)
            return trimmed
    return span
