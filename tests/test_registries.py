"""The detector, strategy and model-builder registries, and where deid-hf finds its data."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import deid_hf
from deid_hf import models, paths
from deid_hf.detect import DETECTORS, Detector, detector_names, get_detector, register_detector
from deid_hf.errors import InputError
from deid_hf.replace import STRATEGIES, get_strategy, register_strategy, strategy_names
from deid_hf.replace.redact import Redact
from deid_hf.spans import Span

REPO = Path(__file__).resolve().parent.parent


class Digits(Detector):
    name = "digits"

    def __init__(self, minimum: int = 1):
        self.minimum = minimum

    def detect(self, text):
        import re

        return [
            Span(m.start(), m.end(), "ID", 1.0, self.name)
            for m in re.finditer(rf"\d{{{self.minimum},}}", text)
        ]


@pytest.fixture
def digits_registered():
    register_detector(
        "digits", lambda arg, *_: Digits(int(arg or 1)), help="runs of digits", argument="minimum"
    )
    yield
    del DETECTORS["digits"]


def test_a_registered_detector_parses_everywhere(digits_registered):
    assert "digits[:minimum]" in detector_names()
    assert isinstance(get_detector("digits:3"), Digits) and get_detector("digits:3").minimum == 3
    ensemble = get_detector(["patterns", "digits"])
    assert [d.name for d in ensemble.detectors] == ["patterns", "digits"]
    pipe = deid_hf.pipeline("deid-substitution", detector="digits:4", strategy="redact")
    assert pipe("call 12 or 123456")["text"] == "call 12 or [REDACTED]"
    from deid_hf.cli import build_parser

    assert build_parser().parse_args(["run", "a", "b", "--detector", "patterns,digits:2"]).detector


def test_detector_names_are_checked_with_their_arguments():
    with pytest.raises(InputError, match=r"unknown detector 'regex'; use one of default\[:threshold\], fast"):
        get_detector("regex")
    with pytest.raises(InputError, match="takes no argument"):
        get_detector("patterns:3")
    with pytest.raises(InputError, match=r"token-classification:<model>"):
        get_detector("token-classification")
    with pytest.raises(InputError, match="without ':'"):
        register_detector("a:b", lambda *_: None, help="")


def test_cli_takes_its_choices_from_the_registries(capsys):
    from deid_hf.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "a", "b", "--detector", "patterns,regex"])
    assert "unknown detector 'regex'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "a", "b", "--strategy", "shuffle"])
    from deid_hf.replace import offered_strategies

    assert "choose one of " + ", ".join(offered_strategies()) in capsys.readouterr().err
    help_text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    unwrapped = "".join(help_text.split())  # argparse wraps at the terminal's width, also at hyphens
    for name in [*offered_strategies(), *DETECTORS]:
        assert name in unwrapped


def test_a_registered_strategy_is_a_pipeline_option():
    @register_strategy
    class Stars(Redact):
        name = "stars"

        def surrogate(self, original, label, rng):
            return "*" * len(original)

    try:
        assert "stars" in strategy_names() and isinstance(get_strategy("stars"), Stars)
        pipe = deid_hf.pipeline("deid-substitution", detector="patterns", strategy="stars")
        assert pipe("mail a@b.org")["text"] == "mail *******"
    finally:
        del STRATEGIES["stars"]
    with pytest.raises(InputError, match="Strategy subclass"):
        register_strategy(int)


def test_docs_describe_every_registered_name():
    # hand-written pages only: the generated tables (docs/gen_tables.py) list every name by construction
    pages = [REPO / "README.md", *(REPO / "docs").rglob("*.md")]
    written = "\n".join(page.read_text() for page in pages)
    for name in [*detector_names(), *strategy_names(), *models.REGISTRY]:
        assert f"`{name}`" in written or f'"{name}"' in written, name


def test_data_root_is_beside_the_repository_whatever_the_cwd(tmp_path, monkeypatch):
    monkeypatch.delenv("DEID_HF_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.data_root() == REPO.parent / "shared" / "data"
    assert paths.data_root("x") == Path("x")
    monkeypatch.setenv("DEID_HF_DATA", str(tmp_path))
    assert paths.data_root() == tmp_path
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("DEID_HF_DATA")
    printed = subprocess.run(
        [sys.executable, "-c", "from deid_hf.paths import data_root; print(data_root())"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert printed == str(REPO.parent / "shared" / "data")


def test_bundled_examples_ship_with_the_package():
    examples = paths.bundled_examples()
    assert examples and all({"id", "kind", "text"} <= set(e) for e in examples)


def test_a_missing_extra_names_the_install_command(tmp_path, monkeypatch, capsys):
    from deid_hf.errors import MissingExtraError
    from deid_hf.evaluation.report import write_report

    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'deid-hf\[eval\]'"):
        write_report(tmp_path, None, [], [])
    from deid_hf.cli import main

    (tmp_path / "in.jsonl").write_text('{"text": "Ann"}\n')
    out = str(tmp_path / "out.jsonl")
    assert main(["run", str(tmp_path / "in.jsonl"), out, "--engine", "ray", "--detector", "fast"]) == 2
    assert "deid-hf run --engine ray needs ray" in capsys.readouterr().err
