"""Issue 31 (Medium 8): a request cannot weaken the server's policy unless the server allows it."""

import argparse
import json

import pytest

from deid_hf.errors import InputError
from deid_hf.serve.command import add_arguments, config_from_args
from deid_hf.serve.config import ServeConfig


@pytest.mark.parametrize("strategy", ["keep", "mask"])
def test_weakening_strategies_are_refused_by_default(strategy):
    with pytest.raises(InputError, match=f"strategy '{strategy}' is not allowed"):
        ServeConfig().check_strategy(strategy)
    assert strategy not in ServeConfig().allowed_strategies


def test_patterns_only_detector_is_refused_by_default():
    with pytest.raises(InputError, match="detector 'patterns' is not allowed"):
        ServeConfig().check_detector("patterns")
    assert ServeConfig().check_detector("fast") == "fast"


def test_allow_strategies_widens_the_list():
    config = ServeConfig(strategies=("keep", "typed"))
    assert config.check_strategy("keep") == "keep"
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    widened = config_from_args(parser.parse_args(["--allow-strategies", "mask"]))
    assert widened.check_strategy("mask") == "mask"


def _serve_args(*argv: str):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return config_from_args(parser.parse_args(list(argv)))


def test_keyed_strategies_are_offered_only_with_a_key_and_custom_never():
    keyless, keyed = ServeConfig(has_key=False), ServeConfig(has_key=True)
    assert "hash" not in keyless.allowed_strategies and "hash" in keyed.allowed_strategies
    with pytest.raises(InputError, match="'encrypt' is not offered here: encrypt needs a secret key"):
        keyless.check_strategy("encrypt")
    assert "custom" not in keyed.allowed_strategies
    with pytest.raises(InputError, match="cannot offer 'custom'.*Python function"):
        ServeConfig(strategies=("custom",))
    with pytest.raises(InputError, match="cannot offer 'hash'.*secret key"):
        ServeConfig(strategy="hash", has_key=False)


def test_a_request_may_name_operators_per_label_within_the_allowed_ones():
    config = ServeConfig(strategies=("typed", "date_shift", "full_entity"))
    key = config.check_strategy({"DATE_TIME": "date_shift", "default": "typed"})
    assert json.loads(key) == {"DATE_TIME": "date_shift", "default": "typed"}
    assert config.check_strategy(None) == "full_entity"
    with pytest.raises(InputError, match="strategy 'keep' is not allowed"):
        config.check_strategy({"PERSON": "keep"})
    with pytest.raises(InputError, match="operators only"):
        config.check_strategy({"PHONE": {"type": "mask", "keep_last": 10}})
    with pytest.raises(InputError, match="unknown label 'NAME'"):
        config.check_strategy({"NAME": "typed"})


def test_serve_reads_a_config_file_and_operator_flags(tmp_path):
    path = tmp_path / "deid.yaml"
    path.write_text(
        "detector: fast\npolicy: hipaa\nallow_list: [Mercy]\n"
        "strategy: {DATE_TIME: date_shift, default: full_entity}\n"
    )
    config = _serve_args("--config", str(path), "--operator", "PHONE=typed")
    assert config.detector == "fast"
    assert config.strategy == {"DATE_TIME": "date_shift", "default": "full_entity", "PHONE": "typed"}
    assert config.pipeline_options == {"policy": "hipaa", "allow_list": ["Mercy"]}
    assert {"date_shift", "typed"} <= set(config.allowed_strategies)  # the server's own operators
    assert _serve_args("--config", str(path), "--strategy", "typed").strategy == "typed"  # flags win
    (tmp_path / "seeded.yaml").write_text("seed: 3\n")
    with pytest.raises(InputError, match="config seed: not a service option"):
        _serve_args("--config", str(tmp_path / "seeded.yaml"))
    # the configuration guide's file: one table per request is the service's own behaviour
    (tmp_path / "unshared.yaml").write_text("detector: fast\nshared_table: false\n")
    assert _serve_args("--config", str(tmp_path / "unshared.yaml")).detector == "fast"
    (tmp_path / "shared.yaml").write_text("shared_table: true\n")
    with pytest.raises(InputError, match="config shared_table: not a service option"):
        _serve_args("--config", str(tmp_path / "shared.yaml"))
    with pytest.raises(InputError, match="LABEL=OPERATOR"):
        _serve_args("--operator", "typed")
    with pytest.raises(InputError, match="--port must be between 0 and 65535, got 99999"):
        _serve_args("--port", "99999")  # before any model loads
    with pytest.raises(InputError, match="unknown detector 'nonsense'"):
        _serve_args("--detectors", "nonsense,fast")
