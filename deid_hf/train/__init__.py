"""Training scripts run with accelerate: the DP paraphraser (``paraphraser``)."""


def register_builders() -> None:
    """Register the builder of the cached ``smollm2-135m-paraphraser`` with the model registry (the registry
    sits below the trainer and never imports it); ``import deid_hf`` calls this."""
    from ..models import register_builder
    from .paraphraser import build_default_paraphraser

    register_builder("smollm2-135m-paraphraser", build_default_paraphraser)
