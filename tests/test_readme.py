"""The README and the documentation site: every code block runs or is checked, shown outputs are real,
the generated tables cover the registries, and the site builds with zero warnings.

Code blocks (docs/contributing.md):
- ```python runs, in order, in one namespace per page, in a temporary folder;
- ```text with ``title="Output"`` right after a python block must equal what that block printed
  (``DEID_HF_DOCS_UPDATE=1`` rewrites those blocks from a fresh run instead);
- ```bash: every ``deid-hf ...`` line parses with the real CLI parser; with ``<!-- test: run -->`` on the
  line before, the block's lines also run;
- ```yaml is a valid configuration, ```json valid JSON, other ```text is shown as is;
- ``<!-- test: needs MODEL -->`` on the line before a block: it runs only where that offline model is ready.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
#: pages whose code blocks are tested: the README and every hand-written page (docs/report is an artifact)
PAGES = [README, *sorted(p for p in DOCS.rglob("*.md") if "report" not in p.relative_to(DOCS).parts)]
LANGUAGES = {"python", "bash", "text", "yaml", "json"}
UPDATE = os.environ.get("DEID_HF_DOCS_UPDATE") == "1"

_FENCE = re.compile(
    r"^(?:<!-- test: (?P<options>[^>]*?) -->\n)?"
    r"```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^```[ \t]*$",
    flags=re.DOTALL | re.MULTILINE,
)


@dataclass
class Block:
    lang: str
    attrs: str
    body: str
    line: int
    body_span: tuple[int, int]
    options: set[str] = field(default_factory=set)
    needs: list[str] = field(default_factory=list)

    @property
    def is_output(self) -> bool:
        return self.lang == "text" and 'title="Output"' in self.attrs


def blocks(text: str) -> list[Block]:
    found = []
    for match in _FENCE.finditer(text):
        options = {o.strip() for o in (match.group("options") or "").split(",") if o.strip()}
        needs = [o.split(None, 1)[1] for o in options if o.startswith("needs ")]
        found.append(
            Block(
                match.group("lang"),
                match.group("attrs"),
                match.group("body"),
                text.count("\n", 0, match.start("lang")) + 1,
                match.span("body"),
                {o for o in options if not o.startswith("needs ")},
                needs,
            )
        )
    return found


def python_blocks(text: str) -> list[str]:
    return [b.body for b in blocks(text) if b.lang == "python"]


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


def _ready(name: str) -> bool:
    from deid_hf import models

    try:
        return any(row["ready"] for row in models.status() if row["name"] == name)
    except Exception:  # the registry cannot say: treat it as not ready, the test says which blocks skipped
        return False


def command_lines(body: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines dropped."""
    joined = body.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def cli_args(line: str) -> list[str] | None:
    """The arguments after ``deid-hf`` of a command line (environment assignments skipped), else None."""
    words = shlex.split(line, comments=True)
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        words = words[1:]
    return words[1:] if words and words[0] == "deid-hf" else None


def run_page(page: Path, workdir: Path) -> tuple[list[str], list[str]]:
    """Run a page's python blocks and its ``run`` bash blocks in ``workdir``. Returns (failures, skipped);
    with DEID_HF_DOCS_UPDATE=1 the page's Output blocks are rewritten from what the blocks printed."""
    from deid_hf.detect import DETECTORS
    from deid_hf.replace import STRATEGIES

    text = page.read_text()
    found = blocks(text)
    namespace: dict = {"__name__": "__docs__"}
    failures, skipped, updates = [], [], []
    registries = (dict(DETECTORS), dict(STRATEGIES))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    try:
        printed = None
        for block in found:
            where = f"{_name(page)}:{block.line}"
            if block.is_output:
                if printed is None:  # the block it shows was skipped
                    continue
                if UPDATE:
                    updates.append((block.body_span, printed))
                elif printed.rstrip("\n") != block.body.rstrip("\n"):
                    failures.append(f"{where}: Output differs\n--- shown\n{block.body}--- printed\n{printed}")
                printed = None
                continue
            printed = None
            missing = [name for name in block.needs if not _ready(name)]
            if missing:
                skipped.append(f"{where} (needs {', '.join(missing)})")
                continue
            if block.lang == "python":
                out = io.StringIO()
                try:
                    with contextlib.redirect_stdout(out):
                        exec(compile(block.body, where, "exec"), namespace)
                except Exception as exc:
                    failures.append(f"{where}: {type(exc).__name__}: {exc}\n{block.body}")
                printed = out.getvalue()
            elif block.lang == "bash" and "run" in block.options:
                for line in command_lines(block.body):
                    done = subprocess.run(
                        line, shell=True, cwd=workdir, env=env, capture_output=True, text=True
                    )
                    if done.returncode != 0:
                        failures.append(f"{where}: `{line}` exited {done.returncode}\n{done.stderr[-2000:]}")
                    printed = done.stdout
    finally:
        DETECTORS.clear()
        DETECTORS.update(registries[0])
        STRATEGIES.clear()
        STRATEGIES.update(registries[1])
    if updates:
        for (start, end), new in sorted(updates, reverse=True):
            text = text[:start] + new.rstrip("\n") + "\n" + text[end:]
        page.write_text(text)
    return failures, skipped


def test_readme_is_short_and_shows_a_csv_run_on_its_first_screen():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move the rest into docs/"
    first_screen = "\n".join(lines[:50])
    assert re.search(r"^deid-hf run \S+\.csv ", first_screen, flags=re.MULTILINE)
    assert "make demo" in first_screen and "make test" in first_screen
    readme = "\n".join(lines)
    assert not re.search(r"\bround\b|\bissue \d+", readme, flags=re.IGNORECASE)


def test_readme_has_a_quick_start_with_its_output():
    found = blocks(README.read_text())
    kinds = [b.lang + (":output" if b.is_output else "") for b in found]
    assert "python" in kinds and kinds[kinds.index("python") + 1] == "text:output"
    assert python_blocks("x\n```python\na = 1\n```\n```bash\nb\n```\n") == ["a = 1\n"]


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_code_block_is_tagged(page):
    found = blocks(page.read_text())
    fences = len(re.findall(r"^```", page.read_text(), flags=re.MULTILINE))
    assert fences == 2 * len(found), f"{_name(page)}: a fence is not closed or not recognised"
    for i, block in enumerate(found):
        assert block.lang in LANGUAGES, f"{_name(page)}:{block.line}: tag the block with one of {LANGUAGES}"
        if block.is_output:
            assert i > 0 and found[i - 1].lang in ("python", "bash"), f"{_name(page)}:{block.line}"
        assert not block.options - {"run"}, f"{_name(page)}:{block.line}: unknown test option"


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text()):
        if "://" not in target:
            assert (REPO / target).exists(), target


def test_every_cli_line_parses():
    from deid_hf.cli import build_parser

    checked = 0
    for page in PAGES:
        for block in blocks(page.read_text()):
            if block.lang != "bash":
                continue
            for line in command_lines(block.body):
                args = cli_args(line)
                if args is None:
                    continue
                try:
                    build_parser().parse_args(args)
                except SystemExit:
                    pytest.fail(f"{_name(page)}:{block.line}: `{line}` does not parse")
                checked += 1
    assert checked >= 10


def test_yaml_and_json_blocks_are_valid():
    from deid_hf.config import load_config

    for page in PAGES:
        for block in blocks(page.read_text()):
            if block.lang == "yaml":
                load_config(yaml.safe_load(block.body))
            elif block.lang == "json":
                json.loads(block.body)


def _gen_tables():
    spec = importlib.util.spec_from_file_location("gen_tables", DOCS / "gen_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_tables_cover_the_registries():
    from deid_hf import models
    from deid_hf.detect import detector_names
    from deid_hf.detect.policy import POLICIES
    from deid_hf.replace import strategy_names
    from deid_hf.spans import LABELS

    gen = _gen_tables()
    expanded = gen.expand("<!-- gen:detectors -->\n<!-- gen:strategies -->\n<!-- gen:models -->\n")
    for name in [*detector_names(), *strategy_names(), *models.REGISTRY]:
        assert f"`{name}`" in expanded, name
    assert all(f"`{p}`" in gen.policies() for p in POLICIES)
    assert all(f"`{label}`" in gen.labels() for label in LABELS)
    cli = gen.cli()
    for option in ("--text-field", "--detector", "--strategy", "--api-key-env", "--held-out-fold"):
        assert f"`{option}`" in cli
    with pytest.raises(KeyError, match="unknown generated table"):
        gen.expand("<!-- gen:nope -->\n")
    markers = {
        m for page in DOCS.rglob("*.md") for m in re.findall(r"<!-- gen:([a-z-]+) -->", page.read_text())
    }
    assert markers == set(gen.TABLES), "every generated table is used somewhere, and only those"


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", [p for p in PAGES if any(b.lang == "python" for b in blocks(p.read_text()))], ids=_name
)
def test_python_blocks_run(page, tmp_path, monkeypatch, registered_learned):
    from deid_hf.detect import DETECTORS

    monkeypatch.setitem(DETECTORS, "learned", registered_learned)  # the shipped model, as users run it
    monkeypatch.chdir(tmp_path)  # blocks that write files write here
    failures, skipped = run_page(page, tmp_path)
    assert not failures, "\n\n".join(failures)
    if skipped:
        pytest.skip(f"blocks skipped, their model not ready: {'; '.join(skipped)}; every other block ran")


@pytest.mark.slow
def test_docs_build_strict_without_warnings(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert not re.search(r"^WARNING", output, flags=re.MULTILINE), output[-4000:]
    assert (tmp_path / "site" / "reference" / "registries" / "index.html").is_file()
