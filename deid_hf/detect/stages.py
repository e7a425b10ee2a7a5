"""The detection stages as one declared, ordered list (`DETECTION_STAGES`).

Each `Stage` names what it does and which object runs it (``part``): the identifier policy's stages run in
`policy.IdentifierPolicyDetector`, the user options' in `user_options.UserOptionsDetector`, the last in
`finish_detection`, which a replacement calls on the spans it replaces. Without an identifier policy
(``strict``) the detectors alone stand for the policy's part. Adding a stage = one `add_stage` call (or one
entry in the list below); with `rules.recording` active, what a stage adds or drops is recorded as
``stage:<name>``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..policies import Policy, follows_gold_of
from ..spans import Span, merge_spans
from .base import side_by_side
from .casing import restore_case
from .clinical import extend_places
from .learned_spans import keep_trained
from .mentions import (
    add_acronym_mentions,
    add_given_names,
    add_listed_names,
    add_name_mentions,
    add_name_neighbours,
    add_native_script_names,
    add_repeated_mentions,
    one_label_per_surface,
    whole_person_mentions,
)
from .quasi import quasi_labels_win
from .rules import decided, recording_active
from .rules.boundaries import exact_boundaries
from .rules.dates import find_dates
from .rules.gdpr import (
    LAW_NUMBER,
    NOT_PERSONAL_DATA,
    inside_public_body,
    whole_titled_names,
    without_cited_cases,
)
from .rules.identifiers import Seen, apply_policy, keep_identifiers
from .rules.phones import find_phones
from .user_filters import letterless_names, trim_allowed

#: the parts of the list and the objects that run them
PARTS = ("policy", "user options", "replacement")


@dataclass
class Document:
    """One text on its way through the stages: ``shown`` is what the untrained detectors see, ``found``
    each detector's spans, ``support`` what the model trained on the policy's gold finds at its support
    threshold (None without one), ``dates`` the date rules' spans, ``spans`` the spans so far."""

    text: str
    shown: str = ""
    found: list[list[Span]] = field(default_factory=list)
    support: list[Span] | None = None
    dates: list[Span] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)


@dataclass(frozen=True)
class Stage:
    """A named step: ``run(owner, documents)`` updates the documents (``owner``: the object running it)."""

    name: str
    part: str
    run: Callable[[Any, list[Document]], None]
    help: str = ""

    @classmethod
    def per_document(
        cls,
        name: str,
        part: str,
        step: Callable[[Any, Document], list[Span]],
        help: str = "",
        record: str = "changes",
    ):
        """A stage whose ``step(owner, document)`` gives a document's new spans; ``record``: what is
        recorded as ``stage:<name>`` (`RECORD`)."""

        def run(owner, documents: list[Document]) -> None:
            for document in documents:
                before = document.spans
                document.spans = step(owner, document)
                if record != "none" and recording_active():
                    _note_changes(name, before, document.spans, dropped=record == "changes")

        return cls(name, part, run, help)


#: what a per-document stage records: spans it added and dropped, only those it added (a merge: the parts of
#: a merged span are not dropped), or nothing (its rules record their own decisions)
RECORD = ("changes", "added", "none")


def _note_changes(name: str, before: Sequence[Span], after: Sequence[Span], dropped: bool) -> None:
    old, new = set(before), set(after)
    for span in before if dropped else ():
        if span not in new:
            decided(f"stage:{name}", span, False)
    for span in after:
        if span not in old:
            decided(f"stage:{name}", span, True)


def _restore_case(owner, documents: list[Document]) -> None:
    for document in documents:
        document.shown = restore_case(document.text) if owner.restore_case else document.text


def _run_detectors(owner, documents: list[Document]) -> None:
    """Every detector on the case-restored copies; a model trained on this policy's gold on the texts as
    written, the first one trained on exactly this policy also at its support threshold
    (``detect_with_support``) where the ensemble has another detector, whose names it may vouch for."""
    texts = [d.text for d in documents]
    shown = [d.shown for d in documents]
    untrained = [m for m in owner.members if not follows_gold_of(owner.policy, m.trained_policy)]
    supporter = next(
        (m for m in owner.members if owner.policy == m.trained_policy and m.detect_with_support), None
    )
    calls, supported = [], None  # supported: the member's index whose call also gives the support
    for i, member in enumerate(owner.members):
        if member in untrained:
            calls.append((member, functools.partial(member.detect_batch, shown)))
        elif untrained and member is supporter and supported is None:
            supported = i
            calls.append((member, functools.partial(member.detect_with_support, texts)))
        else:
            calls.append((member, functools.partial(member.detect_batch, texts)))
    per_member, support = side_by_side(calls), None
    if supported is not None:
        per_member[supported], support = per_member[supported]
    for i, document in enumerate(documents):
        document.found = [found[i] for found in per_member]
        document.support = support[i] if support is not None else None


#: the learned rule that applies hipaa's age limit to a hipaa-trained model's spans (not under gdpr)
HIPAA_AGE_RULE = "learned.age-89-or-under"
#: the policies with date and phone rules over the whole text
DATED_POLICIES = (Policy.HIPAA, Policy.GDPR)


def _identifier_policy(owner, document: Document) -> list[Span]:
    """The policy on each detector's spans (`rules.identifiers`); a policy-trained model's spans cleaned up
    instead (`learned_spans.keep_trained`; under gdpr a hipaa-trained model's, with every age and without
    public bodies and laws)."""
    text, vocabulary = document.text, owner.policy_vocabulary()
    document.dates = find_dates(text) if owner.policy in DATED_POLICIES else []
    spans = []
    for member, found in zip(owner.members, document.found):
        if not follows_gold_of(owner.policy, member.trained_policy):
            spans += apply_policy(document.shown, found, owner.policy, vocabulary, text, document.support)
            continue
        if owner.policy == member.trained_policy:
            kept = keep_trained(text, found, document.dates, vocabulary=vocabulary)
        else:  # a hipaa-trained model under gdpr: every age is kept, public bodies, laws, their numbers not
            kept = keep_trained(text, found, document.dates, skip=(HIPAA_AGE_RULE,), vocabulary=vocabulary)
            seen = Seen(text, vocabulary)
            kept = [part for span in kept for part in keep_identifiers(seen, span, list(NOT_PERSONAL_DATA))]
        spans += kept
    return spans


def _context_rules(owner, document: Document) -> list[Span]:
    if owner.context is None:
        return document.spans
    return document.spans + owner.context.detect(document.text, owner.policy_vocabulary())


def _date_and_phone_rules(owner, document: Document) -> list[Span]:
    """The dates and phone numbers found over the whole text; under gdpr not a law's number or year
    ("the Employment Rights Act 1996", `rules.gdpr.LAW_NUMBER`)."""
    if owner.policy not in DATED_POLICIES:
        return document.spans
    dates = document.dates
    if owner.policy == Policy.GDPR:
        seen = Seen(document.text, owner.policy_vocabulary())
        dates = [part for span in dates for part in keep_identifiers(seen, span, [LAW_NUMBER])]
    return document.spans + dates + find_phones(document.text)


def _merge(owner, document: Document) -> list[Span]:
    """Overlaps merged (`spans.merge_spans`; gdpr: a group or an occupation found whole keeps its label,
    `quasi.quasi_labels_win`); with the context rules, places extended over a following head word
    ("Daytona" + "Beach")."""
    merged = (
        quasi_labels_win(document.text, document.spans)
        if owner.policy == Policy.GDPR
        else merge_spans(document.spans)
    )
    if owner.context is None:
        return merged
    return merge_spans(extend_places(document.text, merged))


def _whole_mentions(owner, document: Document) -> list[Span]:
    """gdpr: each person mention with its title, initials and particles, and every further mention of the
    person (`mentions.whole_person_mentions`); a name found in part of capitalised words joined by "of" is
    the whole of them (`rules.gdpr.whole_titled_names`)."""
    if owner.policy != Policy.GDPR:
        return document.spans
    return whole_titled_names(document.text, whole_person_mentions(document.text, document.spans))


def _score_threshold(owner, document: Document) -> list[Span]:
    if owner.score_threshold is None:
        return document.spans
    return [s for s in document.spans if s.score >= owner.score_threshold]


def _letterless_names(owner, document: Document) -> list[Span]:
    return [letterless_names(document.text, s) for s in document.spans]


def _word_boundaries(owner, document: Document) -> list[Span]:
    return exact_boundaries(document.text, document.spans)


def _patterns_and_deny_list(owner, document: Document) -> list[Span]:
    return merge_spans([*document.spans, *(s for d in owner.extra for s in d.detect(document.text))])


def _mentions(owner, document: Document) -> list[Span]:
    text = document.text
    found = add_native_script_names(text, add_given_names(text, add_acronym_mentions(text, document.spans)))
    found = add_listed_names(text, add_name_neighbours(text, found))
    return _personal_repeats(owner, text, add_name_mentions(text, add_repeated_mentions(text, found)))


def _personal_repeats(owner, text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without, under gdpr, a further mention inside a public body or a law ("Turkish" of "the
    Turkish Government" after "a Turkish national", `rules.gdpr.NOT_PERSONAL_DATA`), whatever its label (a
    model may read "Moldovan" as a person), nor anything inside a citation of another case
    (`rules.gdpr.without_cited_cases`)."""
    if getattr(owner, "policy", None) != Policy.GDPR:
        return spans
    seen, rules = Seen(text), list(NOT_PERSONAL_DATA)
    kept = []
    for span in spans:
        if span.source != "repeat":
            kept.append(span)
        elif not inside_public_body(text, span):
            kept += keep_identifiers(seen, span, rules)
    return without_cited_cases(text, kept)


def _allow_list(owner, document: Document) -> list[Span]:
    return trim_allowed(document.text, document.spans, owner.allow_list)


def _entity_filter(owner, document: Document) -> list[Span]:
    if owner.entities is None:
        return document.spans
    return [s for s in document.spans if s.label in owner.entities]


def _one_label_per_surface(owner, document: Document) -> list[Span]:
    text = document.text
    return one_label_per_surface(
        text, _personal_repeats(owner, text, add_repeated_mentions(text, document.spans))
    )


_each = Stage.per_document
#: the detection stages, in the order they run
DETECTION_STAGES: list[Stage] = [
    Stage("case restoration", "policy", _restore_case, "ALL-CAPS lines case-restored for the detectors"),
    Stage("detectors", "policy", _run_detectors, "every detector of the ensemble"),
    _each("identifier policy", "policy", _identifier_policy, "the identifier rules", record="none"),
    _each("context rules", "policy", _context_rules, "the clinical context rules", record="none"),
    _each("date and phone rules", "policy", _date_and_phone_rules, "the date and phone rules", record="none"),
    _each("merge", "policy", _merge, "overlaps merged, places extended over a head word", record="added"),
    _each(
        "whole mentions",
        "policy",
        _whole_mentions,
        "gdpr: person mentions with titles, initials and particles, and every further mention",
        record="added",
    ),
    _each("score threshold", "user options", _score_threshold, "spans scored below the threshold dropped"),
    _each(
        "letterless names",
        "user options",
        _letterless_names,
        "a name without letters relabelled, an IPv4 address labelled IP",
    ),
    _each(
        "word boundaries",
        "user options",
        _word_boundaries,
        "edges moved out to whole words, common lower-case words cut from names' edges",
        record="none",
    ),
    _each("patterns and deny list", "user options", _patterns_and_deny_list, "the user's patterns and terms"),
    _each(
        "mentions",
        "user options",
        _mentions,
        "further mentions of what was found, a name's bracketed acronym and given names, and name parts",
    ),
    _each("allow list", "user options", _allow_list, "allow-listed words trimmed from the spans' edges"),
    _each("entity filter", "user options", _entity_filter, "only the requested labels kept"),
    _each(
        "one label per surface", "replacement", _one_label_per_surface, "repeated mentions, one label each"
    ),
]


def stage_names(part: str | None = None) -> list[str]:
    return [s.name for s in DETECTION_STAGES if part is None or s.part == part]


def add_stage(stage: Stage, *, after: str | None = None, before: str | None = None) -> Stage:
    """Insert ``stage`` into `DETECTION_STAGES` after or before the stage of that name (at the end of its
    part by default); a duplicate name or an unknown part is refused."""
    if stage.part not in PARTS:
        raise InputError(f"unknown stage part {stage.part!r}; use one of {', '.join(PARTS)}")
    names = stage_names()
    if stage.name in names:
        raise InputError(f"a detection stage named {stage.name!r} already exists")
    anchor = after or before
    if anchor is not None and anchor not in names:
        raise InputError(f"no detection stage named {anchor!r}")
    if anchor is None:
        position = max(
            i for i, s in enumerate(DETECTION_STAGES) if PARTS.index(s.part) <= PARTS.index(stage.part)
        )
        position += 1
    else:
        position = names.index(anchor) + (1 if after else 0)
    DETECTION_STAGES.insert(position, stage)
    return stage


def remove_stage(name: str) -> None:
    DETECTION_STAGES[:] = [s for s in DETECTION_STAGES if s.name != name]


def run_stages(owner, part: str, documents: list[Document]) -> list[Document]:
    """Run the stages of ``part`` on ``documents``, in order."""
    for stage in DETECTION_STAGES:
        if stage.part == part:
            stage.run(owner, documents)
    return documents


def finish_detection(text: str, spans: list[Span], owner=None) -> list[Span]:
    """The replacement's stages on a document's detected spans (one label per surface); ``owner``: the
    detector that found them (its ``policy``)."""
    return run_stages(owner, "replacement", [Document(text, spans=list(spans))])[0].spans
