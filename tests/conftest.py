import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data(relative: str) -> Path:
    """Path of an evaluation data set; skips the test (with the reason) where the clone lacks it."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"evaluation data {path} is absent (it ships beside the repo, not in it)")
    return path


@pytest.fixture(scope="session")
def smollm2():
    from deid_hf.models import load_causal_lm

    return load_causal_lm("smollm2-135m")


@pytest.fixture(scope="session")
def minilm_tokenizer():
    from deid_hf.models import load_tokenizer

    return load_tokenizer("minilm")
