"""Where deid-hf reads and writes: the model cache, the evaluation data, the bundled examples, and the check
of a folder a command writes a model into (`check_model_output`)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from .errors import InputError

#: the installed ``deid_hf`` package, which holds the shipped models (``deid_hf/hub``)
PACKAGE = Path(__file__).resolve().parent
#: the source checkout holding the ``deid_hf`` package (for an installed wheel: its site-packages folder)
REPOSITORY = PACKAGE.parent


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


def check_model_output(
    folder: str | Path, command: str, markers: tuple[str, ...], reads: Sequence[str | Path] = ()
) -> Path:
    """``folder`` as a model output of ``command``, checked before any work: a new or empty folder, or an
    earlier output of the command (it holds one of ``markers``), which the command replaces; never a folder
    the command reads (``reads``: the source model, a training file) or holds one of them, and never a folder
    inside the installed package (the shipped models live there: every default run reads them)."""
    folder = Path(folder)
    resolved = folder.resolve()
    if resolved == PACKAGE or PACKAGE in resolved.parents:
        raise InputError(
            f"{command}: the output folder {folder} is inside the installed deid_hf package, which holds the "
            "shipped models that every default run reads: name a folder outside it"
        )
    for read in map(Path, reads):
        if read.exists() and (read.resolve() == resolved or resolved in read.resolve().parents):
            raise InputError(
                f"{command}: the output folder {folder} holds what it reads ({read}): name another"
            )
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{command}: the output {folder} is a file: name a folder")
    if folder.is_dir() and any(folder.iterdir()) and not any((folder / m).exists() for m in markers):
        raise InputError(
            f"{command}: the output folder {folder} holds other files and no earlier output of {command} "
            "(it would be replaced): name a new or empty folder"
        )
    return folder
