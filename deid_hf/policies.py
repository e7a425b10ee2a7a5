"""The identifier policies by name: what counts as identifying (`deid_hf.detect.policy` applies them).

`Policy` is a string enum, so ``Policy.HIPAA == "hipaa"`` and a configuration may name a policy by its
string. ``strict-names`` labels silver training data only (`deid_hf.train.silver`); the detectors and
pipelines accept `POLICIES`.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import InputError


class Policy(StrEnum):
    #: HIPAA Safe Harbor as the PhysioNet deid corpus applies it (the default)
    HIPAA = "hipaa"
    #: every span any detector finds
    STRICT = "strict"
    #: GDPR-style anonymization of people in general text: direct identifiers and the quasi-identifiers that
    #: single a person out in combination (`deid_hf.detect.rules.gdpr`)
    GDPR = "gdpr"
    #: silver labels only: names under strict, every other label under hipaa
    STRICT_NAMES = "strict-names"


#: the identifier policies a detector or pipeline accepts
POLICIES = (Policy.HIPAA, Policy.STRICT, Policy.GDPR)
DEFAULT_POLICY = Policy.HIPAA


def follows_gold_of(policy: Policy | str, trained: Policy | str | None) -> bool:
    """Whether a model trained on ``trained`` gold has its spans kept as found under ``policy``: its own
    policy's, and hipaa's under gdpr (gdpr masks whatever hipaa masks but public bodies and laws)."""
    return trained is not None and (trained == policy or (policy == Policy.GDPR and trained == Policy.HIPAA))


def check_policy(policy) -> Policy:
    """``policy`` (a `Policy` or its string) as a `Policy`; anything outside `POLICIES` is an InputError."""
    if not isinstance(policy, str) or policy not in POLICIES:
        raise InputError(f"unknown identifier policy {policy!r}; use one of {', '.join(POLICIES)}")
    return Policy(policy)
