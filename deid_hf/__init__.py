"""deid-hf: de-identification of free text with HuggingFace models (offline by default).

``import deid_hf`` stays light (no torch, no transformers): `pipeline` and the other modules load on first
use, and the ``deid-*`` tasks join transformers' ``PIPELINE_REGISTRY`` as soon as ``transformers.pipelines``
(where that registry lives) is imported, before or after this package."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

from . import corpus  # `deid_hf.corpus.dataset_map_function` after a plain `import deid_hf`
from ._version import __version__
from .errors import CacheError, DeidError, InputError, ModelUnavailableError
from .spans import LABELS, Span, merge_spans

if TYPE_CHECKING:
    from .pipelines import pipeline, register  # noqa: F401  # loaded by __getattr__

#: the module holding transformers' ``PIPELINE_REGISTRY``; importing `deid_hf.pipelines` registers the tasks
_REGISTRY_MODULE = "transformers.pipelines"


class _RegisterOnTransformersPipelines(importlib.abc.MetaPathFinder):
    """Imports `deid_hf.pipelines` (which registers the ``deid-*`` tasks) right after
    ``transformers.pipelines`` is imported, so that ``transformers.pipeline("deid-substitution", ...)``
    works after a plain ``import deid_hf``; it leaves every other import alone and removes itself once
    used."""

    def __init__(self) -> None:
        self._finding = threading.local()  # set while it asks the other finders (which may ask it back)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _REGISTRY_MODULE or getattr(self._finding, "active", False):
            return None
        self._finding.active = True
        try:
            spec = _spec_from_other_finders(self, fullname, path, target)
        finally:
            self._finding.active = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        load = loader.exec_module

        def load_then_register(module: ModuleType) -> None:
            loader.exec_module = load  # type: ignore[method-assign]  # a loader may serve other modules
            load(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            # A `deid_hf.pipelines` already in sys.modules is being imported, here or in another thread,
            # and registers when done; importing it here, under this module's import lock, would deadlock
            # with a thread that holds its lock and waits for transformers.pipelines.
            if f"{__name__}.pipelines" not in sys.modules:
                importlib.import_module(".pipelines", __name__)

        loader.exec_module = load_then_register  # type: ignore[method-assign]
        return spec


def _spec_from_other_finders(
    hook: importlib.abc.MetaPathFinder, fullname: str, path: Sequence[str] | None, target: ModuleType | None
) -> ModuleSpec | None:
    """The spec that the finders after `hook` on sys.meta_path find for ``fullname`` (None: none does)."""
    for finder in list(sys.meta_path):
        if finder is not hook and hasattr(finder, "find_spec"):
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                return spec
    return None


def _is_registry_hook(finder: object) -> bool:
    """True for this package's hook, also one installed before an `importlib.reload` of the package."""
    kind = type(finder)
    return kind.__module__ == __name__ and kind.__qualname__ == _RegisterOnTransformersPipelines.__qualname__


if _REGISTRY_MODULE in sys.modules:
    importlib.import_module(".pipelines", __name__)
elif not any(_is_registry_hook(finder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _RegisterOnTransformersPipelines())


if not TYPE_CHECKING:  # a type checker that saw it would accept any attribute, typos included

    def __getattr__(name: str) -> Any:
        """`pipeline` and `register` (from `deid_hf.pipelines`) and the package's modules, loaded on first
        use."""
        if name in ("pipeline", "register"):
            return getattr(importlib.import_module(".pipelines", __name__), name)
        module = f"{__name__}.{name}"
        if name.isidentifier() and not name.startswith("_") and importlib.util.find_spec(module):
            return importlib.import_module(module)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The loaded names with `pipeline` and `register` (for ``dir()`` and completion); the modules not yet
    imported stay out, so that ``help(deid_hf)`` does not import every one of them."""
    return sorted({*globals(), "pipeline", "register"})


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
