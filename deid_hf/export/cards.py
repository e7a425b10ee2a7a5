"""Model cards (huggingface_hub ModelCard / ModelCardData) from the template in ``model_cards/`` (linked
into the package as ``deid_hf/export/model_cards`` so that installed wheels carry it)."""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Sequence
from pathlib import Path

from huggingface_hub import ModelCard, ModelCardData

from .._version import __version__
from ..models import REGISTRY, ModelSpec
from ..paths import cache_dir

TEMPLATE = (
    Path(__file__).resolve().parent / "model_cards" / "export.md"
)  # a link to the top-level model_cards/
PIPELINE_TAGS = {
    "fill-mask": "fill-mask",
    "causal-lm": "text-generation",
    "token-classification": "token-classification",
    "feature-extraction": "feature-extraction",
}
PRIVACY_TEXT = {
    "fill-mask": "Used as the ZSTS p-filter / NDD language model: a word is flagged when its probability is "
    "below the threshold p (lower p flags fewer, rarer words). No DP guarantee.",
    "causal-lm": "Used as the ZSTS p-filter / NDD language model (threshold p as above) and, fine-tuned, as "
    "the DP paraphraser: logits clamped to [a, b] (sensitivity b - a) and sampled at temperature "
    "T = 2 (b - a) / epsilon give epsilon per generated token, epsilon * n for n tokens.",
    "token-classification": "Used as an NER detector; recall bounds the effective replacement probability p "
    "of randomized-response strategies.",
    "feature-extraction": "Used for similarity (ZSTS candidate ranking, utility metrics); it holds no "
    "privacy parameter.",
}
LIMITS = (
    "Detection is never perfect and a privacy guarantee holds only for what is detected: review a sample."
)


#: a Hub repository id (``org/name``)
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _registry_entry(name_or_path: str | Path) -> ModelSpec | None:
    """The registry spec a name, or a cache entry of deid-hf (a conversion or an ONNX export), stands for."""
    name = str(name_or_path)
    if name in REGISTRY:
        return REGISTRY[name]
    path = Path(name).expanduser()
    if not path.exists() or path.resolve().parent != cache_dir().resolve():
        return None
    entry = path.resolve().name
    names = [n for n in REGISTRY if entry == n or entry.startswith(f"onnx-{n}-")]
    return REGISTRY[max(names, key=len)] if names else None


def hub_base_model(name_or_path: str | Path | None) -> str | None:
    """The Hub id a card's ``base_model`` names: a registry model's base, the ``base_model`` of the card a
    local folder carries, a Hub id as given; None for a local folder without one (never a local path)."""
    if not name_or_path:
        return None
    spec = _registry_entry(name_or_path)
    if spec is not None:
        return spec.base_model
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        card = path / "README.md"
        base = ModelCard.load(card).data.base_model if card.is_file() else None
        base = base[0] if isinstance(base, list) and base else base
        return base if isinstance(base, str) and HUB_ID.fullmatch(base) and not Path(base).exists() else None
    name = str(name_or_path)
    return name if HUB_ID.fullmatch(name) else None


def display_name(name_or_path: str | Path) -> str:
    """How a card names a model: its Hub id (`hub_base_model`), else the folder's name (never a full path)."""
    return hub_base_model(name_or_path) or Path(str(name_or_path)).name


def write_card(
    folder: Path,
    *,
    kind: str,
    base_model: str | Path | None,
    license: str | None = None,
    tags: Sequence[str] = (),
    datasets: Sequence[str] | None = None,
    text: dict | None = None,
    pipeline_tag: str | None = None,
    eval_results: Sequence | None = None,
    extra: dict | None = None,
    model_name: str | None = None,
) -> Path:
    """README.md in ``folder``: Hub metadata, then the template's sections (title, summary, usage, privacy,
    limits); ``text`` gives them, ``privacy`` defaults to what the model ``kind`` means for privacy.

    ``base_model`` (registry name, path or Hub id) is written as the Hub id of the base (`hub_base_model`),
    left out when unknown; ``license`` defaults to the base's (registry), else ``other`` with the licence name
    ``unknown``; ``pipeline_tag`` defaults to the kind's. The deid-hf, transformers and Faker versions that
    wrote the card are recorded; ``eval_results`` (``huggingface_hub.EvalResult``) become its
    ``model-index`` (named ``model_name``), ``extra`` further metadata fields."""
    base = hub_base_model(base_model)
    spec = _registry_entry(base_model) if base_model is not None else None
    license = license or (spec.license if spec else "other")
    text = {"privacy": PRIVACY_TEXT[kind], "limits": LIMITS, **(text or {})}
    data = ModelCardData(
        base_model=base,
        license=license,
        license_name="unknown" if license == "other" else None,
        library_name="transformers",
        pipeline_tag=pipeline_tag or PIPELINE_TAGS[kind],
        tags=["de-identification", "privacy", "deid-hf", *tags],
        datasets=list(datasets) if datasets else None,
        model_name=model_name
        or f"{display_name(base_model).split('/')[-1] if base_model else kind} ({kind})",
        deid_hf_version=__version__,
        transformers_version=importlib.metadata.version("transformers"),
        faker_version=importlib.metadata.version("faker"),
        eval_results=list(eval_results) if eval_results else None,
        **(extra or {}),
    )
    ModelCard.from_template(data, template_path=str(TEMPLATE), **text).save(folder / "README.md")
    return folder / "README.md"
