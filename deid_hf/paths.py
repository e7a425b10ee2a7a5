"""Where deid-hf reads and writes: the model cache, the evaluation data, the bundled examples."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

#: the source checkout holding the ``deid_hf`` package (for an installed wheel: its site-packages folder)
REPOSITORY = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """The model cache: ``$DEID_HF_CACHE``, else ``~/.cache/deid_hf``."""
    return Path(os.environ.get("DEID_HF_CACHE") or Path.home() / ".cache" / "deid_hf").expanduser()


def data_root(given: str | os.PathLike[str] | None = None) -> Path:
    """The evaluation / training data folder: ``given``, else ``$DEID_HF_DATA``, else ``shared/data`` beside
    the repository (``../shared/data`` from the repository root, whatever the current directory)."""
    if given:
        return Path(given)
    if os.environ.get("DEID_HF_DATA"):
        return Path(os.environ["DEID_HF_DATA"])
    return REPOSITORY.parent / "shared" / "data"


def bundled_examples() -> list[dict[str, str]]:
    """The examples shipped in ``deid_hf/data/examples.jsonl`` (id, kind, text)."""
    text = resources.files("deid_hf").joinpath("data/examples.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]
