"""Evaluation: detection metrics (EVALUATION.md), `evaluate` metric modules, downstream utility."""

from pathlib import Path

from .detection import DetectionCounts, GoldDocument, GoldSpan, load_gold


def metric_path(name: str = "deid_detection") -> str:
    """Local path of a packaged metric module, for ``evaluate.load``."""
    path = Path(__file__).parent / "metrics" / name / f"{name}.py"
    if not path.exists():
        raise FileNotFoundError(f"no packaged metric {name!r}")
    return str(path)


__all__ = ["DetectionCounts", "GoldDocument", "GoldSpan", "load_gold", "metric_path"]
