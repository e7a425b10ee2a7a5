"""transformers Pipeline subclasses, registered with ``PIPELINE_REGISTRY`` on import of this module (which
``import deid_hf`` arranges once ``transformers.pipelines`` is imported)."""

from pathlib import Path

from transformers.pipelines import PIPELINE_REGISTRY

from .base import language_model_classes
from .ndd import DeidNDDPipeline
from .paraphrase import DeidParaphrasePipeline
from .pfilter import DeidPFilterPipeline
from .substitution import DeidSubstitutionPipeline, needs_language_model

TASKS = {
    "deid-substitution": DeidSubstitutionPipeline,
    "deid-pfilter": DeidPFilterPipeline,
    "deid-ndd": DeidNDDPipeline,
    "deid-paraphrase": DeidParaphrasePipeline,
}


class DetectorCheckpoint:
    """The first model class of ``deid-substitution``: loads a token-classification checkpoint (the shipped
    detector, the task's default model in ``transformers.pipeline``) as one and refuses any other, which the
    language-model classes after it then load."""

    @classmethod
    def from_pretrained(cls, name_or_path, **kwargs):
        from transformers import AutoConfig, AutoModelForTokenClassification

        from ..lm import is_token_classifier

        try:
            config = AutoConfig.from_pretrained(name_or_path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"no readable config at {name_or_path}") from exc
        if not is_token_classifier(config):
            raise ValueError(f"{name_or_path} is no token classifier")
        return AutoModelForTokenClassification.from_pretrained(name_or_path, **kwargs)


def register() -> None:
    """Register the ``deid-*`` tasks; ``deid-substitution``'s default model is the shipped detector, so that
    ``transformers.pipeline("deid-substitution")`` needs no ``model=``."""
    for task, cls in TASKS.items():
        if task in PIPELINE_REGISTRY.get_supported_tasks():
            continue
        if task == "deid-substitution":
            from ..models import LEARNED_MODEL, model_path

            default = {"pt": (str(Path(model_path(LEARNED_MODEL)).resolve()), None)}
            classes = (DetectorCheckpoint, *language_model_classes())
            PIPELINE_REGISTRY.register_pipeline(
                task, pipeline_class=cls, pt_model=classes, default=default, type="text"
            )
        else:
            PIPELINE_REGISTRY.register_pipeline(
                task, pipeline_class=cls, pt_model=language_model_classes(), type="text"
            )


#: the offline default model of each task (``smollm2-135m`` where not listed)
DEFAULT_MODELS = {"deid-paraphrase": "smollm2-135m-paraphraser"}


def shipped_detector_model(shared: bool = True):
    """(model, tokenizer) of the shipped learned detector: its int8 ONNX Runtime graph (one session per
    process, `shared_ort_model`; ``shared=False``: a session of its own, for a caller that moves it to a
    device) and its tokenizer."""
    from ..export.onnx import load_ort_model, shared_ort_model
    from ..models import LEARNED_MODEL, load_tokenizer, model_path, verified_folder

    folder = verified_folder(Path(model_path(LEARNED_MODEL))).resolve()
    if shared:  # positional, as the learned detector calls it: one lru_cache key, one session
        model = shared_ort_model(str(folder), "token-classification", True, "cpu")
    else:
        model = load_ort_model(folder, "token-classification", int8=True)
    return model, load_tokenizer(str(folder))


def shipped_detector_weights(device):
    """(model, tokenizer) of the shipped learned detector as fp32 PyTorch weights on ``device`` (off the
    CPU: the int8 graph runs on the CPU only unless onnxruntime-gpu is installed), the copy its `learned`
    detectors on that device read too (`detect.ner.shared_weights`)."""
    from ..detect.ner import shared_weights, torch_device
    from ..models import LEARNED_MODEL, load_tokenizer, model_path, verified_folder

    folder = verified_folder(Path(model_path(LEARNED_MODEL))).resolve()
    return shared_weights(str(folder), str(torch_device(device))), load_tokenizer(str(folder))


def pipeline(task: str, model=None, backend: str = "pt", int8: bool = False, provider: str = "cpu", **kwargs):
    """`transformers.pipeline` with offline-registry names resolved to local checkpoints.

    ``model`` defaults to the task's offline default (``DEFAULT_MODELS``; the shipped paraphraser adapter is
    merged into its base once on first use). A ``deid-substitution`` whose detector and strategy use no
    language model (`needs_language_model`) loads none: its model is the shipped detector's int8 graph,
    shared with its ``learned`` detector (a pipeline given a ``device`` gets a session of its own, so that
    moving it leaves the shared one alone). The shipped detector has only its int8 graph: ``backend``,
    ``int8`` and ``provider`` choose the language model's graph where one is loaded.

    ``backend``: "pt" (PyTorch; "pytorch" is accepted too) or "onnx". ``backend="onnx"``: ``model`` is an
    exported directory, an ``ORTModel*`` instance or an offline name (exported once into the cache);
    ``int8`` picks the quantized graph, ``provider`` the execution provider (cpu, cuda, tensorrt). There is
    no fallback to PyTorch: a missing export or provider is an error.
    """
    from transformers import AutoTokenizer
    from transformers import pipeline as hf_pipeline

    from ..errors import InputError
    from ..lm import check_backend, checked_device, is_onnx, off_the_cpu
    from ..models import REGISTRY, model_path

    backend = check_backend(backend)
    if "device" in kwargs:  # a clear error before transformers' own, deep in its loading
        kwargs["device"] = checked_device(kwargs["device"])
    if model is None and task == "deid-substitution" and not needs_language_model(kwargs):
        if backend == "onnx" and provider != "cpu":
            raise InputError(
                f"provider={provider!r} picks the execution provider of a language model's graph, and this "
                "configuration loads none: the detector's int8 graph runs on the CPU (device= runs the "
                "detector's weights on a GPU)"
            )
        if off_the_cpu(kwargs.get("device")):  # transformers moves the pipeline's model there: the weights
            model, tokenizer = shipped_detector_weights(kwargs["device"])
        else:
            model, tokenizer = shipped_detector_model(shared=kwargs.get("device") in (None, "cpu", -1))
        kwargs.setdefault("tokenizer", tokenizer)
        if kwargs.get("device") is None:  # transformers would move the shared int8 session to a GPU it finds
            kwargs["device"] = -1
    model = model or DEFAULT_MODELS.get(task, "smollm2-135m")
    if backend == "onnx":
        from ..export.onnx import cached_export, load_ort_model

        if isinstance(model, str):
            folder = cached_export(model, "causal-lm") if model in REGISTRY else model
            kwargs.setdefault("tokenizer", AutoTokenizer.from_pretrained(folder))
            model = load_ort_model(folder, int8=int8, provider=provider)
        elif not is_onnx(model):
            raise InputError(
                f"backend='onnx' needs an exported directory or an ORTModel, got {type(model).__name__}"
            )
    elif isinstance(model, str):
        model = model_path(model)
    from ..detect.ner import quiet_device_message

    with quiet_device_message():  # transformers' "Device set to use cpu": the device is the caller's choice
        return hf_pipeline(task, model=model, **kwargs)


register()

__all__ = [
    "TASKS",
    "DeidNDDPipeline",
    "DeidPFilterPipeline",
    "DeidSubstitutionPipeline",
    "needs_language_model",
    "pipeline",
    "register",
    "shipped_detector_model",
]
