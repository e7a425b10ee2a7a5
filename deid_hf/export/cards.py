"""Model cards (huggingface_hub ModelCard / ModelCardData) from the template in ``model_cards/`` (linked
into the package as ``deid_hf/export/model_cards`` so that installed wheels carry it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from huggingface_hub import ModelCard, ModelCardData

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
    "feature-extraction": "Used for similarity (ZSTS candidate ranking, utility metrics); it holds no privacy "
    "parameter.",
}
LIMITS = (
    "Detection is never perfect and a privacy guarantee holds only for what is detected: review a sample."
)


def write_card(
    folder: Path,
    *,
    kind: str,
    base_model: str,
    license: str,
    tags: Sequence[str] = (),
    datasets: Sequence[str] | None = None,
    text: dict | None = None,
) -> Path:
    """README.md in ``folder``: Hub metadata, then the template's sections (title, summary, usage, privacy,
    limits); ``text`` gives them, ``privacy`` defaults to what the model ``kind`` means for privacy."""
    text = {"privacy": PRIVACY_TEXT[kind], "limits": LIMITS, **(text or {})}
    data = ModelCardData(
        base_model=base_model,
        license=license,
        library_name="transformers",
        pipeline_tag=PIPELINE_TAGS[kind],
        tags=["de-identification", "privacy", "deid-hf", *tags],
        datasets=list(datasets) if datasets else None,
        model_name=f"{Path(base_model).name} ({kind})",
    )
    ModelCard.from_template(data, template_path=str(TEMPLATE), **text).save(folder / "README.md")
    return folder / "README.md"
