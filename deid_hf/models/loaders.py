"""Model names resolved to folders (a shipped folder, a cached conversion or merge, a package's files) and
the loaders of tokenizers, transformers models, spaCy pipelines and word vectors."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import CacheError, ModelUnavailableError
from .cache import cached_entry
from .integrity import folder_digest
from .registry import ADAPTER_FILE, HUB_DIR, REGISTRY, SHIPPED, get_spec, package_file


def _convert_gguf(gguf: Path) -> Callable[[Path], dict]:
    def build(out: Path) -> dict:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        # transformers refuses save_pretrained on a GGUF-loaded model: rebuild from a clean config.
        config = quantized.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        model = AutoModelForCausalLM.from_config(config)
        model.load_state_dict(quantized.state_dict())
        model.save_pretrained(out, safe_serialization=True)
        if tokenizer.pad_token is None and config.pad_token_id is not None:  # needed for batching
            tokenizer.pad_token = tokenizer.convert_ids_to_tokens(config.pad_token_id)
        tokenizer.save_pretrained(out)
        return {"source": str(gguf), "source_bytes": gguf.stat().st_size}

    return build


def _merge_adapter(adapter: Path) -> Callable[[Path], dict]:
    def build(out: Path) -> dict:
        import torch
        from peft import PeftModel
        from transformers import AutoModelForCausalLM

        settings = json.loads((adapter / ADAPTER_FILE).read_text())
        base = model_path(settings["base_model"])
        model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
        model.config.deid_hf_clamp = settings["deid_hf_clamp"]
        model.save_pretrained(out, safe_serialization=True)
        load_tokenizer(str(adapter)).save_pretrained(out)
        return {"source": str(adapter), "base": settings["base_model"]}

    return build


def model_path(name_or_path: str, *, rebuild: bool = False) -> str:
    """Local directory for an offline default, else ``name_or_path`` unchanged (local path or Hub id)."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ModelUnavailableError(f"model must be a name or path, not {type(name_or_path).__name__}")
    name_or_path = str(name_or_path)
    if name_or_path not in REGISTRY:
        written_as_path = name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1
        if written_as_path and not Path(name_or_path).expanduser().exists():
            raise ModelUnavailableError(
                f"no model folder at {name_or_path}, and it is not an offline default (deid-hf models "
                "lists them)"
            )
        return name_or_path
    spec = REGISTRY[name_or_path]
    located = package_file(spec)
    if spec.kind == "paraphraser":  # a shipped adapter: merged into its base once
        return str(
            cached_entry(spec.name, _merge_adapter(located), rebuild=rebuild, recipe=folder_digest(located))
        )
    if spec.distribution == SHIPPED:
        return str(located)
    if spec.kind == "causal-lm":
        return str(cached_entry(spec.name, _convert_gguf(located), rebuild=rebuild))
    return str(located)


def _from_pretrained(loader, name_or_path: str, **kwargs):
    path = model_path(name_or_path)
    try:
        return loader.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as exc:
        if name_or_path in REGISTRY:
            shipped = str(path).startswith(str(HUB_DIR))
            fix = "reinstall deid-hf" if shipped else "run `deid-hf models --rebuild`"
            raise CacheError(
                f"model {name_or_path!r} at {path} cannot be loaded ({str(exc).splitlines()[0][:200]}); {fix}"
            ) from None
        raise ModelUnavailableError(
            f"cannot load {name_or_path!r}: it is not an offline default ({', '.join(REGISTRY)}), "
            f"not a readable local model directory, and not in the local Hub cache"
        ) from None


def load_tokenizer(name_or_path: str):
    from transformers import AutoTokenizer

    return _from_pretrained(AutoTokenizer, name_or_path)


def load_causal_lm(name_or_path: str = "smollm2-135m"):
    """(model, tokenizer) of a causal LM in eval mode."""
    from transformers import AutoModelForCausalLM

    model = _from_pretrained(AutoModelForCausalLM, name_or_path).eval()
    return model, load_tokenizer(name_or_path)


def load_encoder(name_or_path: str = "minilm"):
    """(model, tokenizer) of a bare encoder for embeddings, in eval mode."""
    from transformers import AutoModel

    model = _from_pretrained(AutoModel, name_or_path).eval()
    return model, load_tokenizer(name_or_path)


def load_spacy(name: str = "spacy-sm"):
    """The spaCy pipeline, loaded once per process and name (detectors share it)."""
    return _load_spacy(name)


@functools.cache
def _load_spacy(name: str):
    import spacy

    target = REGISTRY[name].file if name in REGISTRY else name
    if name in REGISTRY:
        package_file(REGISTRY[name])
    try:
        return spacy.load(target)
    except OSError:
        raise ModelUnavailableError(
            f"cannot load spaCy pipeline {name!r}: install it or pass the name of an installed one"
        ) from None


@dataclass(frozen=True)
class WordVectors:
    """Word vectors with a vocabulary index; ``vectors`` is memory-mapped."""

    index: dict[str, int]
    vectors: object

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def __getitem__(self, word: str):
        return self.vectors[self.index[word]]


def load_glove(name: str = "glove-50d") -> WordVectors:
    import numpy as np
    import pyarrow.parquet as pq

    folder = package_file(get_spec(name))
    table = pq.read_table(folder / "glove_6B_index.parquet")
    column = table.column(table.column_names[0]).to_pylist()
    vectors = np.load(folder / "glove_6B_50d_emb.npy", mmap_mode="r")
    return WordVectors(index={word: i for i, word in enumerate(column)}, vectors=vectors)
