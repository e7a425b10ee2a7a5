"""Model cards (huggingface_hub ModelCard / ModelCardData) from the template in ``model_cards/``."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import ModelCard, ModelCardData

TEMPLATE = Path(__file__).resolve().parents[2] / "model_cards" / "export.md"
PIPELINE_TAGS = {"fill-mask": "fill-mask", "causal-lm": "text-generation",
                 "token-classification": "token-classification", "feature-extraction": "feature-extraction"}
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


def write_card(folder: Path, *, kind: str, base_model: str, license: str, int8: bool = False,
               optimize: str | None = None, onnx: bool = True, extra: dict | None = None) -> Path:
    """README.md in ``folder`` with Hub metadata and the privacy parameters of the model's use."""
    extra = extra or {}
    data = ModelCardData(
        base_model=base_model, license=license, library_name="transformers", pipeline_tag=PIPELINE_TAGS[kind],
        tags=["de-identification", "privacy", "deid-hf"] + (["onnx"] if onnx else []) + (["int8"] if int8 else []),
        datasets=extra.get("datasets"), model_name=f"{Path(base_model).name} ({kind}{', ONNX' if onnx else ''})",
        eval_results=None,
    )
    metrics = extra.get("metrics") or {}
    card = ModelCard.from_template(
        data, template_path=str(TEMPLATE),
        title=f"{Path(base_model).name}: {'ONNX export' if onnx else 'pipeline'} for deid-hf",
        summary=(f"ONNX export ({kind}{', int8 dynamic quantization' if int8 else ''}"
                 f"{f', graph optimisation {optimize}' if optimize else ''}) of `{base_model}`." if onnx else
                 f"A saved deid-hf pipeline on `{base_model}` ({kind}); load it with "
                 f"`transformers.pipeline(task, model=<this folder>, trust_remote_code=True)`.")
                + ("".join(f"\n- {k}: {v}" for k, v in metrics.items()) if metrics else ""),
        usage=(f'pipe = deid_hf.pipeline("deid-pfilter", model="{folder}", backend="onnx")' if onnx else
               f'pipe = transformers.pipeline(model="{folder}", trust_remote_code=True)'),
        privacy=extra.get("privacy", PRIVACY_TEXT[kind]),
        limits="Outputs equal the PyTorch model's within 1e-4 (fp32); int8 changes probabilities (see the "
               "deid-hf README for the measured tolerance). Detection is never perfect: review a sample.",
    )
    card.save(folder / "README.md")
    return folder / "README.md"
