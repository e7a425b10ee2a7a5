"""transformers Pipeline subclasses, registered with ``PIPELINE_REGISTRY`` on import of deid_hf."""

from transformers import AutoModelForCausalLM, AutoModelForMaskedLM
from transformers.pipelines import PIPELINE_REGISTRY

from .ndd import DeidNDDPipeline
from .pfilter import DeidPFilterPipeline
from .substitution import DeidSubstitutionPipeline

TASKS = {
    "deid-substitution": DeidSubstitutionPipeline,
    "deid-pfilter": DeidPFilterPipeline,
    "deid-ndd": DeidNDDPipeline,
}


def register() -> None:
    for task, cls in TASKS.items():
        if task not in PIPELINE_REGISTRY.get_supported_tasks():
            PIPELINE_REGISTRY.register_pipeline(task, pipeline_class=cls,
                                                pt_model=(AutoModelForMaskedLM, AutoModelForCausalLM), type="text")


def pipeline(task: str, model="smollm2-135m", **kwargs):
    """`transformers.pipeline` with offline-registry names resolved to local checkpoints."""
    from transformers import pipeline as hf_pipeline

    from ..models import model_path

    if isinstance(model, str):
        model = model_path(model)
    return hf_pipeline(task, model=model, **kwargs)


__all__ = ["DeidNDDPipeline", "DeidPFilterPipeline", "DeidSubstitutionPipeline", "pipeline", "register", "TASKS"]
