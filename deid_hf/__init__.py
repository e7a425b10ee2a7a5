"""deid-hf: de-identification of free text with HuggingFace models (offline by default).

``import deid_hf`` stays light (no torch, no transformers): `pipeline` and the other modules load on first
use, and the ``deid-*`` tasks join transformers' ``PIPELINE_REGISTRY`` (in ``transformers.pipelines``,
imported before or after this package) on its first lookup: `transformers.pipeline` of a ``deid-*`` task, or
a listing of the tasks."""

from __future__ import annotations

import functools
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
#: the `PipelineRegistry` methods through which transformers (`transformers.pipeline`, `check_task`,
#: `get_supported_tasks`) and its users read the registered tasks
_REGISTRY_LOOKUPS = ("check_task", "get_supported_tasks", "to_dict")


class _RegisterOnTransformersPipelines(importlib.abc.MetaPathFinder):
    """Once ``transformers.pipelines`` has been imported, makes its ``PIPELINE_REGISTRY`` register the
    ``deid-*`` tasks on its first lookup (`_register_on_first_lookup`), so that
    ``transformers.pipeline("deid-substitution", ...)`` works after a plain ``import deid_hf``; it leaves
    every other import alone and removes itself once used."""

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
            # No import here: this runs under transformers.pipelines' import lock, which a thread importing
            # `deid_hf.pipelines` may be waiting for.
            _register_on_first_lookup(module.PIPELINE_REGISTRY)

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


def _register_on_first_lookup(registry: Any) -> None:
    """Makes `registry`'s lookups (`_REGISTRY_LOOKUPS`) import `deid_hf.pipelines`, which registers the
    ``deid-*`` tasks, before they answer; the first lookup after that registration puts the plain methods
    back. ``check_task`` of another task imports nothing. The import runs in the caller, under no import
    lock of transformers', and the import system's own lock on `deid_hf.pipelines` makes one thread
    register while the others wait."""
    for name in _REGISTRY_LOOKUPS:
        method = getattr(type(registry), name).__get__(registry)  # the class's, also when wrapped before
        setattr(registry, name, _registering_first(registry, method, name == "check_task"))


def _registering_first(registry: Any, method: Any, by_task: bool) -> Any:
    """`method` of `registry`, importing `deid_hf.pipelines` first (``by_task``: only for a ``deid-*``
    task)."""

    @functools.wraps(method)
    def lookup(*args: Any, **kwargs: Any) -> Any:
        task = args[0] if args else kwargs.get("task")
        if not by_task or (isinstance(task, str) and task.startswith("deid-")):
            tasks = getattr(importlib.import_module(".pipelines", __name__), "TASKS", ())
            # in the thread that is importing it, `deid_hf.pipelines` is not done: keep asking until it is
            if tasks and all(deid_task in registry.supported_tasks for deid_task in tasks):
                for name in _REGISTRY_LOOKUPS:
                    vars(registry).pop(name, None)
        return method(*args, **kwargs)

    return lookup


def _is_registry_hook(finder: object) -> bool:
    """True for this package's hook, also one installed before an `importlib.reload` of the package."""
    kind = type(finder)
    return kind.__module__ == __name__ and kind.__qualname__ == _RegisterOnTransformersPipelines.__qualname__


if _REGISTRY_MODULE in sys.modules:  # imported (or, in another thread, being imported): wait until it is
    _register_on_first_lookup(importlib.import_module(_REGISTRY_MODULE).PIPELINE_REGISTRY)
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
