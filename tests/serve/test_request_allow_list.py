"""Issue 31 (Medium 8): a request cannot weaken the server's policy unless the server allows it."""

import argparse

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
