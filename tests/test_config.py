"""The typed pipeline configuration (`PipelineConfig`), the identifier policies as an enum, capabilities
declared on the strategy base class, and the deprecation aliases of renamed names."""

from __future__ import annotations

import dataclasses
import importlib
import random

import pytest

from deid_hf.config import KEYS, PIPELINE_DEFAULTS, PipelineConfig, validate
from deid_hf.errors import InputError
from deid_hf.lm import check_backend
from deid_hf.policies import DEFAULT_POLICY, POLICIES, Policy, check_policy
from deid_hf.replace import STRATEGIES, get_strategy
from deid_hf.replace.base import Strategy
from deid_hf.replace.per_label import HipaaAge, PerLabel

KEY = b"k" * 32
CONFIG = {
    "detector": ["patterns", "spacy"],
    "strategy": {"PERSON": "full_entity", "ID": {"type": "mask", "keep_last": 2}, "default": "typed"},
    "policy": "hipaa",
    "score_threshold": 0.3,
    "entities": ["PERSON", "ID"],
    "allow_list": ["Dr"],
    "deny_list": {"ORG": ["Northwind"]},
    "patterns": [{"label": "ID", "regex": "MRN-\\d{6}", "score": 1, "name": "mrn"}],
    "shared_table": True,
    "p": 1,
    "seed": 3,
}


def test_every_default_lives_in_the_dataclass():
    fields = {f.name: f.default for f in dataclasses.fields(PipelineConfig)}
    assert {k: v for k, v in fields.items() if k in PIPELINE_DEFAULTS} == PIPELINE_DEFAULTS
    assert set(KEYS) == set(fields) and PipelineConfig().strategy == PIPELINE_DEFAULTS["strategy"]
    assert all(
        callable(f.metadata["check"]) and f.metadata["help"] for f in dataclasses.fields(PipelineConfig)
    )


def test_from_dict_and_to_dict_round_trip():
    config = PipelineConfig.from_dict(CONFIG)
    assert PipelineConfig.from_dict(config.to_dict()) == config
    assert config.score_threshold == 0.3 and config.p == 1.0 and isinstance(config.p, float)
    assert config.patterns[0]["score"] == 1.0 and config.deny_list == {"ORG": ["Northwind"]}
    assert config.to_dict()["scorer_options"] is None  # every field, the unset ones at their default
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.policy = "strict"


def test_validate_keeps_only_the_given_keys():
    assert validate({}) == {}
    assert validate({"deny_list": ["Acme"], "p": 0.5}) == {"deny_list": {"OTHER": ["Acme"]}, "p": 0.5}


def test_an_unknown_key_names_it_and_the_known_ones():
    with pytest.raises(InputError, match="unknown config key 'polcy'.*did you mean 'policy'") as caught:
        PipelineConfig.from_dict({"polcy": "hipaa"})
    assert all(key in str(caught.value) for key in KEYS)
    with pytest.raises(InputError, match="a deid-hf config is a mapping"):
        PipelineConfig.from_dict(["strategy"])


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"\xff\xfe", "is not UTF-8 text"), (b"p: [1\n", "is not valid YAML")],
)
def test_an_unreadable_config_file_is_one_clear_error(tmp_path, content, message):
    from deid_hf.config import load_config

    (tmp_path / "deid.yaml").write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_config(tmp_path / "deid.yaml")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("policy", "strict-names", "unknown identifier policy 'strict-names'"),
        ("policy", "", "config policy: expected a non-empty string"),
        ("p", 0, r"config p: expected a number in \(0, 1\]"),
        ("seed", True, "config seed: expected an integer"),
        ("shared_table", "yes", "config shared_table: expected true or false"),
        ("scorer_options", ["fast"], "config scorer_options: expected a mapping"),
        ("detector", 3, "config detector: expected a detector name"),
        ("strategy", "shuffle", "unknown strategy 'shuffle'"),
        ("deny_list", {"SSN": ["x"]}, "config deny_list.SSN: unknown label 'SSN'"),
    ],
)
def test_each_field_checks_its_value(field, value, message):
    with pytest.raises(InputError, match=message):
        PipelineConfig(**{field: value})  # the checks run however the config is made
    with pytest.raises(InputError, match=message):
        validate({field: value})


def test_the_pipeline_defaults_depend_on_the_strategy():
    assert PipelineConfig().resolved_detector() == "default"
    assert PipelineConfig().resolved_policy() is Policy.HIPAA
    zsts = PipelineConfig(strategy="zsts")
    assert zsts.resolved_detector() == "pfilter" and zsts.resolved_policy() is Policy.STRICT
    own = PipelineConfig(strategy="zsts", detector="patterns")
    assert own.resolved_detector() == "patterns" and own.resolved_policy() is Policy.HIPAA
    assert PipelineConfig(policy="strict").resolved_policy() is Policy.STRICT


def test_policies_are_an_enum_equal_to_their_names():
    assert Policy.HIPAA == "hipaa" and f"{Policy.STRICT}" == "strict" and DEFAULT_POLICY is Policy.HIPAA
    assert check_policy("strict") is Policy.STRICT and check_policy(Policy.HIPAA) is Policy.HIPAA
    assert Policy.STRICT_NAMES not in POLICIES  # silver labels only
    for wrong in ("strict-names", None, "HIPAA"):
        with pytest.raises(InputError, match="unknown identifier policy"):
            check_policy(wrong)


def test_only_encrypt_is_reversible_and_it_keeps_ages_exactly():
    assert [name for name, cls in STRATEGIES.items() if cls.reversible] == ["encrypt"]
    assert get_strategy("encrypt", key=KEY, policy=Policy.HIPAA).__class__ is not PerLabel
    typed = get_strategy("full_entity", policy="hipaa")
    assert isinstance(typed, PerLabel) and isinstance(typed.for_label("AGE"), HipaaAge)
    per_label = get_strategy({"AGE": "encrypt", "default": "redact"}, key=KEY, policy=Policy.HIPAA)
    assert not isinstance(per_label.for_label("AGE"), HipaaAge)


def test_backend_has_one_canonical_spelling():
    assert check_backend("pt") == check_backend("pytorch") == "pt" and check_backend("onnx") == "onnx"
    with pytest.raises(InputError, match="backend must be 'pt'"):
        check_backend("tensorflow")


@pytest.mark.parametrize(
    "module, old, new",
    [
        ("deid_hf.detect.policy", "PolicyDetector", "deid_hf.detect.policy.IdentifierPolicyDetector"),
        ("deid_hf.detect.steering", "SteeredDetector", "deid_hf.detect.user_options.UserOptionsDetector"),
        ("deid_hf.detect.steering", "check_pattern", "deid_hf.detect.user_options.check_pattern"),
        ("deid_hf.detect.steering", "DenyList", "deid_hf.detect.user_options.DenyList"),
        ("deid_hf.detect.steering", "RegexRecognizer", "deid_hf.detect.user_options.RegexRecognizer"),
        ("deid_hf.detect.steering", "LABELS", "deid_hf.spans.LABELS"),
    ],
)
def test_a_renamed_name_still_works_and_warns(module, old, new):
    new_module, _, new_name = new.rpartition(".")
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated.*use {new}"):
        found = getattr(importlib.import_module(module), old)
    assert found is getattr(importlib.import_module(new_module), new_name)
    with pytest.raises(AttributeError):
        importlib.import_module(module).NoSuchName  # noqa: B018


def test_strategy_policy_is_renamed_replacement_distribution():
    redact = get_strategy("redact")
    with pytest.warns(DeprecationWarning, match="use Strategy.replacement_distribution"):
        assert redact.policy("PERSON") == redact.replacement_distribution("PERSON") == {"[REDACTED]": 1.0}

    class OldStyle(Strategy):  # a user strategy written against the old name still reports its pi
        name = "old-style"

        def surrogate(self, original: str, label: str, rng: random.Random) -> str:
            return "X"

        def policy(self, label: str):
            return {"X": 1.0}

    assert OldStyle().replacement_distribution("PERSON") == {"X": 1.0}
    assert OldStyle().privacy_terms("PERSON") == ("old-style", {"X": 1.0}, OldStyle().no_guarantee_reason())

    class OldStyleSuper(Strategy):  # an old-style override that defers to the base for some labels
        name = "old-style-super"

        def surrogate(self, original: str, label: str, rng: random.Random) -> str:
            return "X"

        def policy(self, label: str):
            return {"X": 1.0} if label == "PERSON" else super().policy(label)

    with pytest.warns(DeprecationWarning):
        assert OldStyleSuper().replacement_distribution("DATE") is None
    assert OldStyleSuper().replacement_distribution("PERSON") == {"X": 1.0}
