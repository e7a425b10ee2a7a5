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


def tiny_bert(tokenizer, **config):
    """A randomly initialised BERT masked LM on a real WordPiece tokenizer (seeded)."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    options = {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 64,
        **config,
    }
    return BertForMaskedLM(BertConfig(vocab_size=tokenizer.vocab_size, **options)).eval()


def tiny_llama(tokenizer, **config):
    """A randomly initialised Llama causal LM on the SmolLM2 tokenizer (seeded)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    options = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": 64,
        "pad_token_id": tokenizer.pad_token_id,
        **config,
    }
    return LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), **options)).eval()


@pytest.fixture(scope="session", name="tiny_bert")
def tiny_bert_fixture(minilm_tokenizer):
    return tiny_bert(minilm_tokenizer), minilm_tokenizer


@pytest.fixture(scope="session", name="tiny_llama")
def tiny_llama_fixture(smollm2):
    _, tokenizer = smollm2
    return tiny_llama(tokenizer), tokenizer
