"""Privacy of a replacement chosen per label: the randomized-response lemma label by label.

For each label the operator either draws from a distribution pi independent of the original (redact,
typed, named, word_by_word) and epsilon = max_t log((1 - p + p*pi(t)) / (p*pi(t))) over that label's
private units (Adelani et al. 2020, Lemma 1), or its output depends on the original and there is no DP
guarantee (the operator's reason is reported). The whole text is epsilon-DP only if every label is; its
epsilon is then the maximum over labels (the lemma's maximum over all private tokens).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from .randomized_response import randomized_response_epsilon
from .report import PrivacyReport


def _label_privacy(
    p: float, name: str, pi: Mapping[str, float] | None, reason: str, units: set[str]
) -> dict[str, Any]:
    """One label's entry: strategy, epsilon, dp, guarantee (and the support of pi when there is one)."""
    if pi is None:
        return {"strategy": name, "epsilon": None, "dp": False, "guarantee": f"no DP guarantee ({reason})"}
    epsilon = randomized_response_epsilon(p, pi, units)
    finite = math.isfinite(epsilon)
    return {
        "strategy": name,
        "epsilon": epsilon if finite else None,
        "dp": finite,
        "guarantee": f"epsilon = {epsilon:.4g} (randomized response, Adelani et al. 2020 lemma, p = {p})"
        if finite
        else f"epsilon = infinity: with p = {p} < 1 some private units outside the support of pi "
        f"survive unreplaced and are then certainly original",
        "pi_support": len(pi),
    }


def guarantee_without_dp(per_label: Mapping[str, Mapping[str, Any]]) -> str:
    """The sentence of a report where some label has no finite epsilon: that reason when every such label
    has the same one, else each label's."""
    without = {label: r for label, r in per_label.items() if r["epsilon"] is None}
    reasons = sorted({str(r["guarantee"]) for r in without.values()})
    if len(reasons) == 1:
        return reasons[0]
    return "; ".join(f"{label}: {r['guarantee']}" for label, r in without.items())


def _without_guarantee(
    p: float,
    labels: dict[str, dict[str, Any]],
    operators: Mapping[str, tuple[str, Mapping[str, float] | None, str]],
    strategy: str,
    per_label: dict[str, dict[str, Any]],
) -> PrivacyReport:
    """The report when some label has no finite epsilon: its reasons, and "none" as the mechanism when some
    label's output depends on the original (else the lemma holds with epsilon = inf)."""
    without = {label: r for label, r in labels.items() if r["epsilon"] is None}
    independent = all(operators[label][1] is not None for label in without)
    return PrivacyReport(
        mechanism="randomized_response" if independent else "none",
        dp=False,
        epsilon=None,
        guarantee=guarantee_without_dp(per_label),
        p=p,
        strategy=strategy,
        details={"per_label": per_label},
    )


def per_label_privacy(
    p: float,
    private: Mapping[str, set[str]],
    operators: Mapping[str, tuple[str, Mapping[str, float] | None, str]],
) -> PrivacyReport:
    """Report for replacement probability ``p``; ``private``: label -> private units seen;
    ``operators``: label -> (operator name, pi or None when the output depends on the original, the reason
    there is then no guarantee). ``details["per_label"]``: strategy, epsilon, dp, guarantee per label."""
    labels = {label: _label_privacy(p, *operators[label], private[label]) for label in sorted(private)}
    names = sorted({name for name, _, _ in operators.values()})
    strategy = names[0] if len(names) == 1 else "per_label"
    per_label = {label: {k: v for k, v in r.items() if k != "pi_support"} for label, r in labels.items()}
    if any(r["epsilon"] is None for r in labels.values()):
        return _without_guarantee(p, labels, operators, strategy, per_label)
    epsilon = max((r["epsilon"] for r in labels.values()), default=0.0)
    return PrivacyReport(
        mechanism="randomized_response",
        dp=True,
        epsilon=epsilon,
        guarantee=f"epsilon = {epsilon:.4g} (randomized response, Adelani et al. 2020 lemma, p = {p})",
        p=p,
        strategy=strategy,
        details={
            "per_label": per_label,
            "pi_support": {label: r["pi_support"] for label, r in labels.items()},
        },
    )


def nothing_replaced_privacy(
    p: float, operators: Mapping[str, tuple[str, Mapping[str, float] | None, str]]
) -> PrivacyReport:
    """Report of a document where nothing was replaced: the guarantee the operators of every label would give
    (an epsilon over no private unit would claim a guarantee a strategy without one does not have)."""
    report = per_label_privacy(p, {label: set() for label in operators}, operators)
    reasons = sorted({reason for _, pi, reason in operators.values() if pi is None})  # each once
    guarantee = f"no DP guarantee ({'; '.join(reasons)})" if reasons else report.guarantee
    return report.with_(
        guarantee=f"nothing was replaced; {guarantee}", details={"per_label": {}, "nothing_replaced": True}
    )


def aggregate_per_label(reports: Iterable[PrivacyReport | Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Whole-corpus ``per_label``: a label is DP when it is in every document where it occurs, with the
    maximum epsilon over those documents (the lemma's maximum over all private tokens)."""
    merged: dict[str, dict[str, Any]] = {}
    for report in reports:
        details = report.details if isinstance(report, PrivacyReport) else report.get("details") or {}
        for label, entry in (details.get("per_label") or {}).items():
            seen = merged.get(label)
            if seen is None or (seen["dp"] and (not entry["dp"] or entry["epsilon"] > seen["epsilon"])):
                merged[label] = {k: v for k, v in entry.items() if k != "pi_support"}
    return dict(sorted(merged.items()))
