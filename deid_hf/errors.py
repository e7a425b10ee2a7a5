"""Exceptions with one-line, actionable messages (the CLI prints them without a traceback)."""


class DeidError(Exception):
    """Base class: every error deid-hf raises on purpose."""


class InputError(DeidError, ValueError):
    """Bad input: empty text, wrong type, out-of-range parameter, unknown strategy."""


class ModelUnavailableError(DeidError, OSError):
    """A model name that cannot be resolved, or a model package that is not installed."""


class CacheError(DeidError, OSError):
    """The deid-hf cache directory or one of its entries cannot be read or written."""


class MissingExtraError(DeidError, ImportError):
    """A feature whose optional dependencies (an extra of deid-hf: onnx, train, eval) are not installed."""
