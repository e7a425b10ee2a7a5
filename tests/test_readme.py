"""The README's ```python blocks run as written, in order, in one namespace (they load the offline LM)."""

import re
from pathlib import Path

import pytest

from deid_hf import models
from deid_hf.paths import cache_dir

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def test_the_readme_has_python_snippets():
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 3 and all(block.strip() for block in blocks)
    assert python_blocks("x\n```python\na = 1\n```\n```bash\nb\n```\n") == ["a = 1\n"]


@pytest.mark.slow
def test_readme_python_snippets_run(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # snippets that write files write here
    namespace: dict = {}
    paraphraser_ready = any(
        row["ready"] for row in models.status() if row["name"] == "smollm2-135m-paraphraser"
    )
    skipped = []
    for i, block in enumerate(python_blocks(README.read_text())):
        if "deid-paraphrase" in block and not paraphraser_ready:
            skipped.append(i)  # its first use fine-tunes the default paraphraser (about 25 min)
            continue
        try:
            exec(compile(block, f"README.md python block {i}", "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"README python block {i} fails: {type(exc).__name__}: {exc}\n{block}")
    if skipped:
        pytest.skip(
            f"README blocks {skipped} need the default paraphraser, not built in {cache_dir()} "
            f"(`deid-hf models --build` builds it, about 25 min); every other block ran"
        )
