"""Training scripts run with accelerate: the DP paraphraser (``paraphraser``) and the learned detector
(``detector``), on one loop (``loop``)."""


def register_builders() -> None:
    """Register the builders of the cached ``smollm2-135m-paraphraser`` and ``deid-detector-minilm`` with the
    model registry (the registry sits below the trainers and never imports them), each with a digest of its
    default config, so a cached model of an older recipe is rebuilt; ``import deid_hf`` calls this."""
    from ..models import register_builder
    from .detector import DetectorConfig, build_default_detector
    from .loop import recipe_digest
    from .paraphraser import ParaphraserConfig, build_default_paraphraser

    register_builder(
        "smollm2-135m-paraphraser", build_default_paraphraser, recipe_digest(ParaphraserConfig())
    )
    register_builder("deid-detector-minilm", build_default_detector, recipe_digest(DetectorConfig()))
