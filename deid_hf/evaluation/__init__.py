"""Evaluation: detection metrics (EVALUATION.md), `evaluate` metric modules, downstream utility."""

import os
from pathlib import Path

from .detection import DetectionCounts, GoldDocument, GoldSpan, load_gold


def data_root(given: str | os.PathLike | None = None) -> Path:
    """The evaluation / training data folder: ``given``, else ``$DEID_HF_DATA``, else ``../shared/data``."""
    return Path(given or os.environ.get("DEID_HF_DATA") or "../shared/data")


def metric_path(name: str = "deid_detection") -> str:
    """Local path of a packaged metric module, for ``evaluate.load``."""
    path = Path(__file__).parent / "metrics" / name / f"{name}.py"
    if not path.exists():
        raise FileNotFoundError(f"no packaged metric {name!r}")
    return str(path)


__all__ = ["DetectionCounts", "GoldDocument", "GoldSpan", "data_root", "load_gold", "metric_path"]
