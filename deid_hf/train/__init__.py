"""Training scripts run with accelerate: the DP paraphraser (``paraphraser``) and the learned detector
(``detector``), on one loop (``loop``)."""


def register_builders() -> None:
    """Register the builders of the cached ``smollm2-135m-paraphraser`` and ``deid-detector-minilm`` with the
    model registry (the registry sits below the trainers and never imports them); ``import deid_hf`` calls
    this."""
    from ..models import register_builder
    from .detector import build_default_detector
    from .paraphraser import build_default_paraphraser

    register_builder("smollm2-135m-paraphraser", build_default_paraphraser)
    register_builder("deid-detector-minilm", build_default_detector)
