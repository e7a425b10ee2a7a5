"""Run the canary audit: sample documents, find what the configuration replaces, make canary copies
(`canary.CanaryMaker`), de-identify them with the same configuration and estimate its recall.

The estimate (`weighted_recall`) is the canaries' token recall per type, weighted by the share of tokens of
each type among the spans the configuration replaced in the sampled originals; intervals are 95% percentile
intervals of a bootstrap over documents (canaries of one document are not independent).

With a *reference* (another configuration, e.g. ``default`` when auditing ``fast``), the in-place canaries
sit where the reference finds identifiers, the type mix is the reference's, and the estimate counts the
in-place canaries: they are written where and how this corpus writes identifiers, which a weaker
configuration may not find, whereas inserted sentences are easy to find.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..policies import DEFAULT_POLICY, Policy
from .canary import DIRECT_LABELS, QUASI_LABELS, CanaryDocument, CanaryMaker, canary_labels
from .stats import bootstrap_interval, wilson_interval

_TOKEN = re.compile(r"\S+")
#: the canaries the estimate counts without a reference: in-place canaries sit at the configuration's own
#: detections, false positives included, so they are reported beside it, not in it
ESTIMATE_KIND = "inserted"
#: the canaries the estimate counts with a reference: those at the reference's detections
REFERENCE_ESTIMATE_KIND = "in_place"
KINDS = ("in_place", "inserted")
#: what the canary audit leaves to the re-identification audit (dropped from a report that holds both)
LEFT_TO_REID = "re-identification through what is left: see `deid-hf audit reid`"
#: what the canary audit does not measure, stated in every report
NOT_COVERED = (
    "identifier types the configuration (or its reference) never finds in the sample and no canary "
    "template imitates",
    "how well spans are bounded beyond the canary's own tokens (a canary is one surrogate, not the context)",
    "identifiers written in ways no surrogate generator produces (nicknames, misspellings, local formats)",
    LEFT_TO_REID,
)
#: what an audit under a policy other than gdpr does not measure, added to `NOT_COVERED`
NOT_COVERED_QUASI = (
    "quasi-identifiers (ages, nationalities, occupations): no canary imitates them, as hipaa keeps them on "
    "purpose and only gdpr removes them all"
)
#: what an estimate from a reference's detections does not measure, added to `NOT_COVERED`
NOT_COVERED_WITH_REFERENCE = (
    "identifiers the reference misses: they get no canary, so the estimate is recall on what the reference "
    "finds",
    "the reference's false positives get canaries too, where the corpus holds no identifier",
)


@dataclass(frozen=True)
class CanaryOutcome:
    """One canary after de-identification: its tokens and how many a replaced span covered."""

    document: int
    label: str
    kind: str
    tokens: int
    covered: int


def replaced_spans(result: dict) -> list[tuple[int, int, str]]:
    """``(start, end, label)`` of the spans a `deid-substitution` result replaced."""
    return [(s["start"], s["end"], s["label"]) for s in result.get("spans", []) if s.get("replaced", True)]


def score_canaries(doc: CanaryDocument, predicted: Sequence[tuple[int, int, str]]) -> list[CanaryOutcome]:
    """EVALUATION.md's token rule on the canaries: a canary token is recalled when a replaced span overlaps
    it."""
    tokens = [m.span() for m in _TOKEN.finditer(doc.text)]
    outcomes = []
    for start, end, label, kind in doc.canaries:
        inside = [(s, e) for s, e in tokens if s < end and start < e]
        covered = sum(any(s < b and a < e for a, b, _ in predicted) for s, e in inside)
        if inside:
            outcomes.append(CanaryOutcome(doc.index, label, kind, len(inside), covered))
    return outcomes


def detected_token_mix(texts: Sequence[str], detections: Sequence[Sequence[tuple[int, int, str]]]) -> dict:
    """Share of each label among the tokens of the replaced spans (the type mix the configuration finds)."""
    counts: dict[str, int] = {}
    for text, spans in zip(texts, detections):
        for start, end, label in spans:
            counts[label] = counts.get(label, 0) + sum(1 for m in _TOKEN.finditer(text[start:end]))
    total = sum(counts.values())
    return {label: n / total for label, n in sorted(counts.items())} if total else {}


def weighted_recall(outcomes: Sequence[CanaryOutcome], mix: dict[str, float]) -> float | None:
    """Canary token recall per label, averaged with the weights ``mix`` (renormalised over the labels that
    have canaries); the pooled token recall where no label of ``mix`` has one."""
    per_label: dict[str, list[int]] = {}
    for o in outcomes:
        counts = per_label.setdefault(o.label, [0, 0])
        counts[0] += o.covered
        counts[1] += o.tokens
    weights = {label: w for label, w in mix.items() if label in per_label and per_label[label][1]}
    if not weights:
        tokens = sum(o.tokens for o in outcomes)
        return sum(o.covered for o in outcomes) / tokens if tokens else None
    total = sum(weights.values())
    mean = sum(w * per_label[label][0] / per_label[label][1] for label, w in weights.items()) / total
    return min(mean, 1.0)  # a mean of recalls of 1 can round above it


def _pooled(outcomes: Sequence[CanaryOutcome]) -> float | None:
    tokens = sum(o.tokens for o in outcomes)
    return sum(o.covered for o in outcomes) / tokens if tokens else None


def summarise(outcomes: Sequence[CanaryOutcome], seed: int = 0) -> dict:
    """Canaries, survivors (Wilson interval) and token recall (bootstrap interval over documents)."""
    clusters: dict[int, list[CanaryOutcome]] = {}
    for o in outcomes:
        clusters.setdefault(o.document, []).append(o)
    survived = sum(o.covered < o.tokens for o in outcomes)
    interval = wilson_interval(survived, len(outcomes))
    recall_interval = bootstrap_interval(
        list(clusters.values()), lambda c: _pooled([o for d in c for o in d]), seed=seed
    )
    return {
        "canaries": len(outcomes),
        "tokens": sum(o.tokens for o in outcomes),
        "survived": survived,
        "survival_rate": survived / len(outcomes) if outcomes else None,
        "survival_interval": list(interval) if interval else None,
        "token_recall": _pooled(outcomes),
        "token_recall_interval": list(recall_interval) if recall_interval else None,
    }


def by_type(outcomes: Sequence[CanaryOutcome], seed: int = 0) -> dict:
    """`summarise` per label."""
    return {
        label: summarise([o for o in outcomes if o.label == label], seed)
        for label in sorted({o.label for o in outcomes})
    }


def audited_policy(pipe) -> Policy:
    """The identifier policy of a `deid-substitution` pipeline (the default policy for a stand-in that has
    no configuration)."""
    config = getattr(pipe, "config", None)
    return DEFAULT_POLICY if config is None else config.resolved_policy()


def _results(pipe, texts: list[str], seed: int | None, batch_size: int) -> list[dict]:
    return pipe(texts, seed=seed, batch_size=batch_size, errors="report")


def _sample(texts: Sequence, size: int, rng: random.Random) -> list[int]:
    usable = [i for i, text in enumerate(texts) if isinstance(text, str) and text.strip()]
    if not usable:
        raise InputError("no document has text to audit")
    if size < 1:
        raise InputError(f"the sample must hold at least one document, got {size}")
    return sorted(rng.sample(usable, min(size, len(usable))))


def _in_batches(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def run_canary_audit(
    pipe,
    texts: Sequence[str],
    *,
    sample: int = 200,
    copies: int = 1,
    inserted: int = 4,
    seed: int = 0,
    batch_size: int = 16,
    progress: Callable[[int, int], None] | None = None,
    locales: Sequence[str] | None = None,
    reference=None,
    policy: Policy | str | None = None,
) -> dict:
    """The canary audit of ``pipe`` (a `deid-substitution` pipeline) on ``sample`` documents of ``texts``,
    each copied ``copies`` times with its replaced spans re-filled and ``inserted`` canary sentences added;
    canary names and places from Faker's ``locales`` (None: many cultures, `CanaryMaker`). With ``reference``
    (another `deid-substitution` pipeline), the spans re-filled and the type mix are the reference's and
    the estimate counts the in-place canaries. The canary types are those of ``policy``
    (`canary.canary_labels`; None: the pipeline's own, `audited_policy`). Returns counts and rates only,
    never text."""
    if copies < 1 or inserted < 0:
        raise InputError(f"copies must be at least 1 and inserted at least 0, got {copies} and {inserted}")
    rng = random.Random(seed)
    chosen = _sample(texts, sample, rng)
    labels = canary_labels(audited_policy(pipe) if policy is None else policy)
    maker, total = CanaryMaker(labels, locales=locales), len(chosen) * (1 + copies)
    detections, failed, done = {}, set(), 0
    placing = pipe if reference is None else reference
    for batch in _in_batches(chosen, batch_size):
        for i, result in zip(batch, _results(placing, [texts[i] for i in batch], seed, batch_size)):
            if result.get("error"):
                failed.add(i)
            else:
                detections[i] = replaced_spans(result)
        done += len(batch)
        if progress:
            progress(done, total)
    kept = [i for i in chosen if i not in failed]
    outcomes: list[CanaryOutcome] = []
    for _ in range(copies):
        copies_made = [maker.make(i, texts[i], detections[i], rng, inserted) for i in kept]
        for batch in _in_batches(copies_made, batch_size):
            for doc, result in zip(batch, _results(pipe, [d.text for d in batch], seed, batch_size)):
                if not result.get("error"):
                    outcomes += score_canaries(doc, replaced_spans(result))
            done += len(batch)
            if progress:
                progress(min(done, total), total)
    mix = detected_token_mix([texts[i] for i in kept], [detections[i] for i in kept])
    kind = ESTIMATE_KIND if reference is None else REFERENCE_ESTIMATE_KIND
    return canary_report(
        outcomes,
        mix,
        len(texts),
        len(kept),
        len(failed),
        copies,
        inserted,
        seed,
        maker.source.locales,
        kind,
        labels,
    )


def canary_report(
    outcomes: list[CanaryOutcome],
    mix: dict,
    corpus: int,
    sampled: int,
    failed: int,
    copies: int,
    inserted: int,
    seed: int,
    locales: Sequence[str] = (),
    kind: str = ESTIMATE_KIND,
    labels: Sequence[str] = DIRECT_LABELS,
) -> dict:
    """The canary audit's result (`run_canary_audit`): the estimate from the canaries of ``kind``
    (``estimate.kind``), then each kind's canaries, in all and per type (``by_kind``, ``by_kind_and_type``);
    ``locales``: where the canary names and places came from; ``labels``: the canary types made."""
    if kind not in KINDS:
        raise InputError(f"the estimate counts canaries of kind {' or '.join(KINDS)}, got {kind!r}")
    clusters: dict[int, list[CanaryOutcome]] = {}
    for o in outcomes:
        clusters.setdefault(o.document, []).append(o)
    clusters = {d: [o for o in c if o.kind == kind] for d, c in clusters.items()}
    clusters = {d: c for d, c in clusters.items() if c}
    estimated = [o for o in outcomes if o.kind == kind]
    interval = bootstrap_interval(
        list(clusters.values()), lambda c: weighted_recall([o for d in c for o in d], mix), seed=seed
    )
    return {
        "audit": "canary",
        "documents_in_corpus": corpus,
        "documents_sampled": sampled,
        "documents_failed": failed,
        "copies_per_document": copies,
        "inserted_per_copy": inserted,
        "seed": seed,
        "locales": list(locales),
        "canary_types": list(labels),
        "estimate": {
            "token_recall": weighted_recall(estimated, mix),
            "interval": list(interval) if interval else None,
            "kind": kind,
            "method": (
                "token recall of the inserted canaries per type, weighted by the type mix of the "
                "replaced spans"
                if kind == ESTIMATE_KIND
                else "token recall of the canaries re-filled where the reference configuration finds "
                "identifiers, per type, weighted by the type mix of the reference's spans"
            ),
        },
        "all": summarise(outcomes, seed),
        "by_kind": {k: summarise([o for o in outcomes if o.kind == k], seed) for k in KINDS},
        "by_kind_and_type": {k: by_type([o for o in outcomes if o.kind == k], seed) for k in KINDS},
        "detected_type_mix": mix,
        "type_mix_from": "reference" if kind == REFERENCE_ESTIMATE_KIND else "configuration",
        "not_covered": list(NOT_COVERED)
        + (list(NOT_COVERED_WITH_REFERENCE) if kind == REFERENCE_ESTIMATE_KIND else [])
        + ([NOT_COVERED_QUASI] if not set(QUASI_LABELS) & set(labels) else []),
    }
