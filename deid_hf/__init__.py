"""deid-hf: de-identification of free text with HuggingFace models (offline by default)."""

from .errors import CacheError, DeidError, InputError, ModelUnavailableError
from .pipelines import pipeline, register
from .spans import LABELS, Span, merge_spans
from .train import register_builders

register()
register_builders()

__all__ = [
    "LABELS",
    "CacheError",
    "DeidError",
    "InputError",
    "ModelUnavailableError",
    "Span",
    "merge_spans",
    "pipeline",
]
__version__ = "0.1.0"
