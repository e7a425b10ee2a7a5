"""Privacy of a replacement chosen per label: the randomized-response lemma label by label.

For each label the operator either draws from a distribution pi independent of the original (redact,
typed, named, word_by_word) and epsilon = max_t log((1 - p + p*pi(t)) / (p*pi(t))) over that label's
private units (Adelani et al. 2020, Lemma 1), or its output depends on the original and there is no DP
guarantee (the operator's reason is reported). The whole text is epsilon-DP only if every label is; its
epsilon is then the maximum over labels (the lemma's maximum over all private tokens).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .randomized_response import randomized_response_epsilon


def per_label_privacy(
    p: float,
    private: Mapping[str, set[str]],
    operators: Mapping[str, tuple[str, Mapping[str, float] | None, str]],
) -> dict:
    """Report for replacement probability ``p``; ``private``: label -> private units seen;
    ``operators``: label -> (operator name, pi or None when the output depends on the original, the reason
    there is then no guarantee). Keys: strategy, p, epsilon (None unless finite and DP), dp, guarantee,
    per_label (the same per label) and, when DP, pi_support."""
    labels = {}
    for label in sorted(private):
        name, pi, reason = operators[label]
        if pi is None:
            labels[label] = {
                "strategy": name,
                "epsilon": None,
                "dp": False,
                "guarantee": f"no DP guarantee ({reason})",
            }
            continue
        epsilon = randomized_response_epsilon(p, pi, private[label])
        finite = math.isfinite(epsilon)
        labels[label] = {
            "strategy": name,
            "epsilon": epsilon if finite else None,
            "dp": finite,
            "guarantee": f"epsilon = {epsilon:.4g} (randomized response, Adelani et al. 2020 lemma, p = {p})"
            if finite
            else f"epsilon = infinity: with p = {p} < 1 some private units outside the support of pi "
            f"survive unreplaced and are then certainly original",
            "pi_support": len(pi),
        }
    names = sorted({name for name, _, _ in operators.values()})
    report = {"strategy": names[0] if len(names) == 1 else "per_label", "p": p}
    without = {label: r for label, r in labels.items() if r["epsilon"] is None}
    if without:
        reasons = sorted({r["guarantee"] for r in without.values()})
        guarantee = (
            reasons[0]
            if len(reasons) == 1
            else "; ".join(f"{label}: {r['guarantee']}" for label, r in without.items())
        )
        report.update(epsilon=None, dp=False, guarantee=guarantee)
    else:
        epsilon = max((r["epsilon"] for r in labels.values()), default=0.0)
        report.update(
            epsilon=epsilon,
            dp=True,
            guarantee=f"epsilon = {epsilon:.4g} (randomized response, Adelani et al. 2020 lemma, p = {p})",
            pi_support={label: r["pi_support"] for label, r in labels.items()},
        )
    report["per_label"] = labels
    return report


def aggregate_per_label(reports: list[dict]) -> dict:
    """Whole-corpus ``per_label``: a label is DP when it is in every document where it occurs, with the
    maximum epsilon over those documents (the lemma's maximum over all private tokens)."""
    merged: dict[str, dict] = {}
    for report in reports:
        for label, entry in (report.get("per_label") or {}).items():
            seen = merged.get(label)
            if seen is None or (seen["dp"] and (not entry["dp"] or entry["epsilon"] > seen["epsilon"])):
                merged[label] = {k: v for k, v in entry.items() if k != "pi_support"}
    return dict(sorted(merged.items()))
