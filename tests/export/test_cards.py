import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from deid_hf.export.cards import write_card

REPO = Path(__file__).resolve().parents[2]


def test_card_has_hub_metadata_and_the_privacy_text(tmp_path):
    card = write_card(
        tmp_path,
        kind="causal-lm",
        base_model="org/base",
        license="apache-2.0",
        tags=["x"],
        text={"title": "T", "summary": "S", "usage": "U"},
    ).read_text()
    assert card.startswith("---\n") and "pipeline_tag: text-generation" in card and "- x" in card
    assert "epsilon per generated token" in card and "# T" in card


def test_the_card_template_ships_inside_the_wheel(tmp_path):
    source = tmp_path / "source"  # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(
        REPO,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".*", "build", "*.egg-info", "__pycache__", "tests", "benchmarks", "docs", "out", "report"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(source),
            "-w",
            str(tmp_path),
        ],
        check=True,
        cwd=tmp_path,
    )
    wheel = next(tmp_path.glob("deid_hf-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "deid_hf/export/model_cards/export.md" in names
    assert not any(name.startswith("model_cards/") for name in names)  # nothing else at top level
