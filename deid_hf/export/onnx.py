"""Optimum ONNX export of the models deid-hf pipelines use, optional int8 / graph optimisation, and
loading them as ONNX Runtime models on a chosen execution provider.

Kinds (Optimum task): ``fill-mask``, ``causal-lm`` (``text-generation-with-past``: with past key values),
``token-classification``, ``feature-extraction``. A registry name (``smollm2-135m``, ``minilm``) exports
its converted local checkpoint; any other path or Hub id is passed to Optimum. Each export writes a model
card (README.md). int8 (`quantize`) is ``model_quantized.onnx``: a BERT-like encoder's attention, GELU and
layer norms fused by ONNX Runtime's transformer optimizer, then dynamic int8 quantization (weights per
channel, activations at run time); optimisation is `ORTOptimizer` at level O1-O3, applied to ``model.onnx``
in place.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from ..errors import InputError, ModelUnavailableError

KINDS = {
    "fill-mask": ("fill-mask", "ORTModelForMaskedLM"),
    "causal-lm": ("text-generation-with-past", "ORTModelForCausalLM"),
    "token-classification": ("token-classification", "ORTModelForTokenClassification"),
    "feature-extraction": ("feature-extraction", "ORTModelForFeatureExtraction"),
}
QUANTIZED_FILE = "model_quantized.onnx"
#: how `quantize` makes the int8 graph (recorded in a cached export: a change rebuilds it)
INT8_RECIPE = "fused-encoder, int8 weights per channel, 7-bit range, dynamic activations"
#: model types whose fused graph ONNX Runtime's transformer optimizer builds (its ``model_type``)
FUSED_TYPES = {"bert": "bert", "roberta": "bert", "xlm-roberta": "bert", "distilbert": "bert"}
PROVIDERS = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
}


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InputError(f"unknown model kind {kind!r}; choose one of {', '.join(KINDS)}")


def export(
    model, output: str | Path, kind: str, *, int8: bool = False, optimize: str | None = None, tokenizer=None
) -> Path:
    """Export ``model`` (registry name, path, Hub id or in-memory PreTrainedModel) to ``output``: a new or
    empty folder, or an earlier export (`paths.check_model_output`), never the model's own folder."""
    from ..models import model_path
    from ..paths import check_model_output

    source = model_path(model) if isinstance(model, str) else None
    check_model_output(output, "export", ("model.onnx",), reads=[source] if source else ())
    return export_unchecked(model, output, kind, int8=int8, optimize=optimize, tokenizer=tokenizer)


def export_unchecked(
    model, output: str | Path, kind: str, *, int8: bool = False, optimize: str | None = None, tokenizer=None
) -> Path:
    """`export` without the check of ``output`` (a trained checkpoint's graphs are written beside it)."""
    from optimum.exporters.onnx import main_export

    from ..models import model_path
    from .cards import LIMITS, display_name, write_card

    _check_kind(kind)
    if optimize not in (None, "O1", "O2", "O3"):
        raise InputError(f"optimize must be O1, O2 or O3, got {optimize!r}")
    output = Path(output)
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(model, str):
            source, name = model_path(model), model
        else:  # an in-memory model: save it so Optimum exports exactly these weights
            source, name = tmp, getattr(model.config, "_name_or_path", "") or type(model).__name__
            model.save_pretrained(tmp)
            if tokenizer is None:
                raise InputError("exporting an in-memory model needs its tokenizer")
        if tokenizer is not None:
            tokenizer.save_pretrained(source)
        try:
            main_export(source, output, task=KINDS[kind][0], do_validation=False, local_files_only=True)
        except (OSError, ValueError, KeyError) as exc:
            raise ModelUnavailableError(
                f"cannot export {name!r} as {kind}: {str(exc).splitlines()[0][:200]}"
            ) from None
    if int8:
        quantize(output)
    if optimize:
        from optimum.onnxruntime import ORTOptimizer
        from optimum.onnxruntime.configuration import OptimizationConfig

        level = {"O1": 1, "O2": 2, "O3": 99}[optimize]
        optimizer = ORTOptimizer.from_pretrained(output)
        optimizer.optimize(OptimizationConfig(optimization_level=level), save_dir=output, file_suffix="")
    options = (", int8 dynamic quantization" if int8 else "") + (
        f", graph optimisation {optimize}" if optimize else ""
    )
    write_card(
        output,
        kind=kind,
        base_model=name,
        tags=["onnx"] + (["int8"] if int8 else []),
        text={
            "title": f"{Path(name).name}: ONNX export for deid-hf",
            "summary": f"ONNX export ({kind}{options}) of `{display_name(name)}`.",
            "usage": 'pipe = deid_hf.pipeline("deid-pfilter", model="<this folder>", backend="onnx")',
            "limits": "fp32 outputs equal the PyTorch model's within 1e-4; int8 changes probabilities "
            "(see the deid-hf benchmarks for the measured tolerance). " + LIMITS,
        },
    )
    return output


def cpu_flags() -> set[str]:
    """The instruction-set flags of this CPU (``/proc/cpuinfo``; empty where it is absent)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {
        flag
        for line in text.splitlines()
        if line.startswith("flags")
        for flag in line.split(":", 1)[1].split()
    }


def quantize(folder: str | Path) -> Path:
    """``model_quantized.onnx`` from ``folder``'s ``model.onnx`` (`INT8_RECIPE`): a BERT-like encoder fused
    first (attention, GELU, skip layer norms: ONNX Runtime's quantizer keeps them as fused int8 operators),
    then int8 weights per output channel in a 7-bit range (no overflow on CPUs without VNNI) with activations
    quantized at run time."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoConfig

    folder = Path(folder)
    source = folder / "model.onnx"
    model_type = FUSED_TYPES.get(AutoConfig.from_pretrained(folder).model_type)
    large = any(folder.glob("model.onnx_data*"))  # over 2 GB: its weights in a file beside the graph
    with tempfile.TemporaryDirectory() as tmp:
        if model_type:
            from onnxruntime.transformers.optimizer import optimize_model

            fused = Path(tmp) / "fused.onnx"  # heads and hidden size read from the graph
            optimize_model(str(source), model_type=model_type, opt_level=1).save_model_to_file(
                str(fused), use_external_data_format=large
            )
            source = fused
        quantize_dynamic(
            source,
            folder / QUANTIZED_FILE,
            per_channel=True,
            reduce_range=True,
            weight_type=QuantType.QInt8,
            use_external_data_format=large,
            # the fused operators' outputs have no inferred type: they are float
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    return folder / QUANTIZED_FILE


def export_token_classifier(folder: str | Path) -> dict:
    """ONNX fp32 + int8 of the token-classification checkpoint in ``folder``, written beside it."""
    export_unchecked(str(folder), folder, "token-classification", int8=True)
    return {"files": ["model.onnx", QUANTIZED_FILE], "quantization": INT8_RECIPE}


def physical_cores() -> int:
    """Physical cores of the machine, at most the CPUs this process may run on (a ``taskset``, a container's
    cpuset or a Ray worker's CPUs): more threads than those would only wait for each other."""
    import os

    try:
        import psutil

        cores = psutil.cpu_count(logical=False) or os.cpu_count() or 1
    except ImportError:
        cores = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        cores = min(cores, len(os.sched_getaffinity(0)) or cores)
    return cores


def session_options(threads: int | None = None, spinning: bool = False):
    """ONNX Runtime session options for CPU inference: ``intra_op_num_threads`` = physical cores (or
    ``threads``), one inter-op thread, all graph optimisations, and idle threads that sleep instead of
    spinning (spinning threads compete with the tokenizer and other processes on a shared CPU)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or physical_cores()
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return options


def provider_options(
    provider: str, trt_cache: str | Path | None = None, fp16: bool = False
) -> tuple[str, dict]:
    """ONNX Runtime provider name and options; a clear error when it is not available here."""
    import onnxruntime

    if provider not in PROVIDERS:
        raise InputError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    name = PROVIDERS[provider]
    if name not in onnxruntime.get_available_providers():
        raise ModelUnavailableError(
            f"{name} is not available in this onnxruntime "
            f"({', '.join(onnxruntime.get_available_providers())}); "
            f"on a CUDA machine run `pip uninstall -y onnxruntime` and then `pip install 'deid-hf[gpu]'` "
            f"(onnxruntime-gpu replaces the CPU onnxruntime: both install the same onnxruntime module)"
        )
    options = {}
    if provider == "tensorrt":
        options = {"trt_fp16_enable": fp16, "trt_engine_cache_enable": trt_cache is not None}
        if trt_cache is not None:
            options["trt_engine_cache_path"] = str(trt_cache)
    return name, options


def load_ort_model(
    path: str | Path,
    kind: str | None = None,
    *,
    int8: bool = False,
    provider: str = "cpu",
    options=None,
    **provider_kwargs,
):
    """An ``ORTModelFor*`` from an exported directory; ``kind`` is read from its config when omitted;
    ``options``: an ``onnxruntime.SessionOptions`` (default: ONNX Runtime's own)."""
    import optimum.onnxruntime as ort
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    path = Path(path)
    file_name = QUANTIZED_FILE if int8 else "model.onnx"
    if not (path / file_name).exists():
        raise ModelUnavailableError(f"{path} has no {file_name}: export it first with `deid-hf export`")
    if kind is None:
        config = AutoConfig.from_pretrained(path)
        kind = "fill-mask" if config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES else "causal-lm"
    _check_kind(kind)
    name, provider_settings = provider_options(provider, **provider_kwargs)
    cls = getattr(ort, KINDS[kind][1])
    use_cache = {"use_cache": True} if kind == "causal-lm" else {}
    return cls.from_pretrained(
        path,
        file_name=file_name,
        provider=name,
        provider_options=provider_settings,
        session_options=options,
        **use_cache,
    )


@functools.lru_cache(maxsize=8)
def shared_ort_model(path: str, kind: str, int8: bool = False, provider: str = "cpu"):
    """`load_ort_model` once per process for each (folder, kind, graph, provider), on CPU with
    `session_options`: the pipelines and detectors that run one model share its session (ONNX Runtime runs
    are thread-safe)."""
    options = session_options() if provider == "cpu" else None
    return load_ort_model(path, kind, int8=int8, provider=provider, options=options)


def cached_export(name: str, kind: str) -> Path:
    """The ONNX export (fp32 and int8) of an offline default, built once into the deid-hf cache."""
    from ..models import cached_entry

    def build(out: Path) -> dict:
        export(name, out, kind, int8=True)
        return {"kind": kind}

    return cached_entry(f"onnx-{name}-{kind}", build, recipe=INT8_RECIPE)
