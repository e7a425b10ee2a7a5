"""deid-hf: de-identification of free text with HuggingFace models (offline by default)."""

from . import corpus  # `deid_hf.corpus.dataset_map_function` after a plain `import deid_hf`
from ._version import __version__
from .errors import CacheError, DeidError, InputError, ModelUnavailableError
from .pipelines import pipeline, register
from .spans import LABELS, Span, merge_spans

register()

__all__ = [
    "LABELS",
    "CacheError",
    "DeidError",
    "InputError",
    "ModelUnavailableError",
    "Span",
    "__version__",
    "corpus",
    "merge_spans",
    "pipeline",
]
