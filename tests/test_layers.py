"""The package's layers: every module imports only modules of its own layer or of layers below, counting the
lazy imports inside functions; the components (``deid_hf.<name>``) import each other without cycles, and so
do the modules inside each component."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from deid_hf.extras import EXTRAS

PACKAGE = Path(__file__).resolve().parent.parent / "deid_hf"

#: lowest first; a component is ``deid_hf.<first name>`` (``deid_hf`` itself: the package's ``__init__``)
LAYERS = [
    # pure: no models, no I/O beyond reading arguments
    {"_version", "errors", "extras", "spans", "privacy", "validate", "text", "policies", "deprecation"},
    # where things live, how a language model is read, labelled corpora and their splits
    {"paths", "lm", "models", "corpora"},
    # components built on a model: detection, replacement, NDD, DP paraphrase, ONNX export (pipelines load
    # exported models) and model cards; the training loop the trainers and the utility evaluation share
    {"detect", "replace", "ndd", "paraphrase", "export", "config", "reidentify", "training_loop"},
    # transformers pipelines and the corpus run over them
    {"pipelines", "corpus", "corpus_files", "corpus_guard", "corpus_ray"},
    # applications: training, evaluation, audits, the demo, the CLI, the package's entry point
    {"train", "evaluation", "audit", "demo", "cli", "serve", ""},
]
LAYER = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str, package: Path) -> bool:
    base = package.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(path: Path, package: Path) -> list[tuple[int, str]]:
    """(line, module) of every ``deid_hf`` import in ``path``, at module level or inside functions."""
    name = module_name(path, package)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:  # `from deid_hf import models` imports the module deid_hf.models
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if _is_module(sub, package) else base))
    return [(line, target) for line, target in found if target.split(".")[0] == package.name]


def component(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_violations(package: Path = PACKAGE) -> list[str]:
    problems = []
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package)
        own = component(name)
        if own not in LAYER:
            problems.append(f"{name}: component {own!r} has no layer in tests/test_layers.py")
            continue
        for line, target in imports(path, package):
            other = component(target)
            if other not in LAYER:
                problems.append(f"{name}:{line} imports {target}, whose component has no layer")
            elif LAYER[other] > LAYER[own]:
                problems.append(
                    f"{path.relative_to(package.parent)}:{line}: {name} (layer {LAYER[own]}) imports "
                    f"{target} (layer {LAYER[other]})"
                )
    return problems


def component_cycles(package: Path = PACKAGE) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        own = component(module_name(path, package))
        for _, target in imports(path, package):
            if component(target) != own:
                graph.setdefault(own, set()).add(component(target))
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def module_cycles(package: Path = PACKAGE) -> list[list[str]]:
    """The import cycles between modules (lazy imports counted), each as its sorted modules: the strongly
    connected components of the import graph with more than one module (Tarjan)."""
    graph = {}
    for path in package.rglob("*.py"):
        name = module_name(path, package)
        graph[name] = sorted({target for _, target in imports(path, package) if target != name})
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            members = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(members) > 1:
                cycles.append(sorted(members))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(cycles)


@pytest.mark.parametrize("name", sorted(LAYER))
def test_modules_of_a_component_import_each_other_without_cycles(name):
    assert [cycle for cycle in module_cycles() if component(cycle[0]) == name] == []


def test_every_module_imports_only_its_layer_and_below():
    assert layer_violations() == []


def test_components_import_each_other_without_cycles():
    assert component_cycles() == []


def test_the_checker_sees_lazy_relative_and_from_package_imports(tmp_path):
    package = tmp_path / "deid_hf"
    (package / "detect").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text("def build():\n    from .train import fit\n")
    (package / "train.py").write_text("from deid_hf import models\n")
    (package / "detect" / "__init__.py").write_text("from ..errors import InputError\n")
    (package / "detect" / "x.py").write_text("def f():\n    from .. import cli\n")
    (package / "errors.py").write_text("")
    (package / "cli.py").write_text("")
    problems = layer_violations(package)
    assert len(problems) == 2, problems
    assert "deid_hf.detect.x (layer 2) imports deid_hf.cli (layer 4)" in problems[0]
    assert "deid_hf.models (layer 1) imports deid_hf.train (layer 4)" in problems[1]
    assert component_cycles(package) == [["models", "train", "models"]]
    assert module_cycles(package) == [["deid_hf.models", "deid_hf.train"]]
    (package / "detect" / "y.py").write_text("from .z import g\n")
    (package / "detect" / "z.py").write_text("def g():\n    from . import y\n")
    assert ["deid_hf.detect.y", "deid_hf.detect.z"] in module_cycles(package)


@pytest.mark.parametrize("name", ["errors", "spans", "privacy", "validate", "paths", "lm"])
def test_the_lower_layers_exist(name):
    assert name in LAYER and _is_module(f"deid_hf.{name}", PACKAGE)


def private_imports(root: Path) -> list[str]:
    """``from deid_hf... import _name`` anywhere under ``root``: a private name used outside its module."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("deid_hf")):
                found += [
                    f"{path}:{node.lineno}: {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    return found


@pytest.mark.parametrize("folder", ["deid_hf", "tests", "benchmarks"])
def test_no_private_name_is_imported_from_another_module(folder):
    assert private_imports(PACKAGE.parent / folder) == []


OPTIONAL = {"evaluate": "eval"}
OPTIONAL |= {"matplotlib": "eval", "scipy": "dev", "fastapi": "serve", "uvicorn": "serve", "httpx": "serve"}
OPTIONAL |= {"gradio": "serve", "ray": "ray", "playwright": "dev"}


def unguarded_optional_imports(package: Path = PACKAGE) -> list[str]:
    """Imports of an extra's module not inside ``with extra(...)``: the slim core must import without them,
    and a feature that needs one must name the ``pip install deid-hf[...]`` that adds it."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if "metrics" in path.relative_to(package).parts:  # `evaluate` loads these scripts itself
            continue
        tree = ast.parse(path.read_text(), str(path))
        guarded: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.With) and any(
                isinstance(item.context_expr, ast.Call)
                and getattr(item.context_expr.func, "id", None) == "extra"
                for item in node.items
            ):
                guarded |= {id(inner) for inner in ast.walk(node)}
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for name in names:
                if name.split(".")[0] in OPTIONAL and id(node) not in guarded:
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {name}")
    return found


def test_optional_dependencies_are_imported_only_behind_their_extra():
    assert unguarded_optional_imports() == []
    assert set(OPTIONAL.values()) - {"dev"} <= set(EXTRAS)


def test_extras_match_pyproject():
    import tomllib

    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        requirements = " ".join(extras[extra]).replace("-", "_")
        assert all(module in requirements for module in modules), (extra, modules)
    core = " ".join(project["dependencies"])
    assert not any(module in core for module in OPTIONAL)
    dev = next(r for r in extras["dev"] if r.startswith("deid-hf["))
    included = set(dev.removeprefix("deid-hf[").rstrip("]").split(","))
    assert set(EXTRAS) <= set(extras) and set(EXTRAS) <= included
