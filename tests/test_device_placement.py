"""Every tensor the LM code feeds a model is created on ``model.device`` (issue: GPU-correct pipelines).

CI has no GPU, so the model sits on the ``meta`` device: a forward pre-hook records where ``input_ids`` live
and stops the call. Inputs built on the CPU (the old behaviour) are caught here the same way a CUDA model
would reject them with a device-mismatch error.
"""

import pytest
import torch

import deid_hf
from deid_hf.detect import get_detector
from deid_hf.detect.pfilter import CausalWordScorer, MaskedWordScorer
from deid_hf.ndd import NDD
from deid_hf.replace.zsts import ZSTSSubstitution

from .conftest import tiny_bert, tiny_llama

TEXT = "Maria Gonzalez called from Springfield on Monday."


class Reached(Exception):
    """Raised by the hook once the model has been called with its inputs."""


def watch(model):
    """Record the device of the first ``input_ids`` the model sees, then stop the forward."""
    seen = []

    def hook(_module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        seen.append(ids.device)
        raise Reached

    model.register_forward_pre_hook(hook, with_kwargs=True)
    return seen


@pytest.fixture
def meta_llama(smollm2):
    _, tokenizer = smollm2
    return tiny_llama(tokenizer).to("meta"), tokenizer


@pytest.fixture
def meta_bert(minilm_tokenizer):
    return tiny_bert(minilm_tokenizer).to("meta"), minilm_tokenizer


def first_input_device(model, call) -> torch.device:
    seen = watch(model)
    with pytest.raises(Reached):
        call()
    return seen[0]


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_pfilter_inputs_on_model_device(kind, meta_llama, meta_bert):
    model, tokenizer = meta_llama if kind == "causal" else meta_bert
    scorer = CausalWordScorer(model, tokenizer) if kind == "causal" else MaskedWordScorer(model, tokenizer)
    assert first_input_device(model, lambda: scorer.score(TEXT)).type == "meta"


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_ndd_inputs_on_model_device(kind, meta_llama, meta_bert):
    model, tokenizer = meta_llama if kind == "causal" else meta_bert
    ndd = NDD(model, tokenizer)
    assert first_input_device(model, lambda: ndd.batch(TEXT, 0, 5, ["Anna"])).type == "meta"


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_zsts_candidates_on_model_device(kind, meta_llama, meta_bert):
    model, tokenizer = meta_llama if kind == "causal" else meta_bert
    zsts = ZSTSSubstitution(model=model, tokenizer=tokenizer)
    assert first_input_device(model, lambda: zsts._candidates(TEXT, 0, 5)).type == "meta"


@pytest.mark.parametrize(
    ("task", "options"),
    [
        ("deid-substitution", {"detector": "pfilter"}),
        ("deid-pfilter", {}),
        ("deid-ndd", {"detector": ["patterns", "pfilter"]}),
    ],
)
def test_pipelines_honour_device(task, options, smollm2):
    """``device=`` moves the model, and every pipeline then builds its inputs there."""
    _, tokenizer = smollm2
    model = tiny_llama(tokenizer)
    pipe = deid_hf.pipeline(task, model=model, tokenizer=tokenizer, device="meta", **options)
    assert pipe.model.device.type == "meta"
    assert first_input_device(pipe.model, lambda: pipe(TEXT)).type == "meta"


def _learned_member(pipe):
    detector = pipe.detector
    while not hasattr(detector, "members"):
        detector = detector.base
    return next(m for m in detector.members if m.name == "token-classification")


@pytest.mark.parametrize(
    ("options", "device", "graph"),
    [
        ({}, "cpu", True),
        ({"device": "cpu"}, "cpu", True),
        ({"device": "meta"}, "meta", False),
        ({"device": "meta", "detector": "clinical:0.4"}, "meta", False),
    ],
)
def test_the_learned_model_runs_on_the_device_the_pipeline_was_given(options, device, graph):
    """Without a device, or on the CPU, `default`'s learned model is its int8 ONNX graph; on another device
    the caller names, its PyTorch weights run there."""
    learned = _learned_member(deid_hf.pipeline("deid-substitution", **options))
    assert learned.pipe.device.type == device
    assert (type(learned.pipe.model).__name__ == "ORTModelForTokenClassification") is graph
    if "detector" in options:
        assert learned.threshold == 0.4


@pytest.mark.parametrize(
    ("device", "message"),
    [
        ("banana", "device must be"),
        (-3, "device must be"),
        (True, "device must be"),
        ("cuda:99", "CUDA GPU"),  # on a machine without CUDA, and on one with fewer GPUs
    ],
)
def test_a_device_torch_cannot_use_is_an_input_error(device, message):
    from deid_hf.errors import InputError

    with pytest.raises(InputError, match=message):
        deid_hf.pipeline("deid-substitution", device=device)
    with pytest.raises(InputError, match=message):
        get_detector("default", device=device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a machine without CUDA")
@pytest.mark.parametrize("device", ["cuda", 0, "0", torch.device("cuda")])
def test_a_cuda_device_without_cuda_is_an_input_error(device):
    from deid_hf.errors import InputError

    with pytest.raises(InputError, match="needs a CUDA GPU"):
        deid_hf.pipeline("deid-substitution", device=device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a machine without CUDA")
@pytest.mark.parametrize("device", ["cuda", 0])
def test_transformers_pipeline_checks_the_device_as_deid_hf_pipeline_does(device):
    from transformers import pipeline

    from deid_hf.errors import InputError

    with pytest.raises(InputError, match="needs a CUDA GPU"):
        pipeline("deid-substitution", device=device)


@pytest.mark.skipif(torch.backends.mps.is_available(), reason="a machine without an Apple GPU")
def test_a_device_of_another_backend_that_is_not_there_is_an_input_error():
    from deid_hf.errors import InputError
    from deid_hf.lm import checked_device

    with pytest.raises(InputError, match="torch finds no mps device on this machine"):
        checked_device("mps")


@pytest.mark.parametrize(
    ("given", "taken"), [(None, None), (-1, -1), ("-1", -1), ("cpu", "cpu"), ("meta", "meta")]
)
def test_devices_torch_can_use_pass_as_given(given, taken):
    from deid_hf.lm import checked_device

    assert checked_device(given) == taken


def test_a_pipeline_given_a_device_off_the_cpu_holds_weights_it_can_move_there():
    """transformers moves a pipeline's own model to its device: for `default` that is the shipped detector's
    fp32 weights, not the int8 graph (moving an ONNX Runtime session to a GPU needs onnxruntime-gpu)."""
    on_meta = deid_hf.pipeline("deid-substitution", device="meta")
    assert type(on_meta.model).__name__ == "BertForTokenClassification"
    assert on_meta.model.device.type == "meta"
    assert type(deid_hf.pipeline("deid-substitution").model).__name__ == "ORTModelForTokenClassification"


def test_the_weights_on_a_device_are_loaded_once_per_process():
    """A pipeline given a device and its learned detectors there read one copy of the shipped weights."""
    from deid_hf.detect import TokenClassificationDetector
    from deid_hf.models import LEARNED_MODEL, model_path
    from deid_hf.pipelines import shipped_detector_weights

    first = TokenClassificationDetector(model_path(LEARNED_MODEL), device="meta")
    second = TokenClassificationDetector(model_path(LEARNED_MODEL), device="meta")
    model, _ = shipped_detector_weights("meta")
    assert first.pipe.model is second.pipe.model is model
    assert model.device.type == "meta"
    on_cpu = TokenClassificationDetector(model_path(LEARNED_MODEL), device="cpu")
    assert on_cpu.pipe.model is not model and on_cpu.pipe.model.device.type == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (CI has none)")
def test_on_cuda_the_learned_model_of_default_finds_what_its_weights_find_on_the_cpu(tiny_learned_detector):
    from deid_hf.detect import TokenClassificationDetector

    learned = _learned_member(deid_hf.pipeline("deid-substitution", device=0))
    assert learned.pipe.device.type == "cuda"
    on_cpu = TokenClassificationDetector(str(tiny_learned_detector), device="cpu")
    texts = [TEXT, " ".join([TEXT] * 60)]
    found = [[(s.start, s.end, s.label) for s in spans] for spans in learned.detect_batch(texts)]
    assert found == [[(s.start, s.end, s.label) for s in spans] for spans in on_cpu.detect_batch(texts)]


def test_paraphrase_inputs_on_model_device(smollm2, monkeypatch):
    """transformers' ``generate`` cannot run on ``meta``: the inputs handed to it are checked instead."""
    import deid_hf.pipelines.paraphrase as paraphrase

    _, tokenizer = smollm2
    pipe = deid_hf.pipeline(
        "deid-paraphrase",
        model=tiny_llama(tokenizer),
        tokenizer=tokenizer,
        device="meta",
        bounds=(-5.0, 20.0),
    )
    seen = []

    def record(model, inputs, **options):
        seen.append(inputs["input_ids"].device)
        raise Reached

    monkeypatch.setattr(paraphrase, "dp_generate", record)
    with pytest.raises(Reached):
        pipe(TEXT)
    assert seen[0].type == "meta"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (CI has none)")
def test_on_a_gpu_machine_a_pipeline_given_no_device_keeps_the_int8_graph_on_the_cpu():
    """transformers puts a pipeline given no device on the GPU it finds: the shipped int8 session (shared
    with the learned detector) stays on the CPU instead."""
    pipe = deid_hf.pipeline("deid-substitution")
    learned = _learned_member(pipe)
    assert pipe.device.type == learned.pipe.device.type == learned.pipe.model.device.type == "cpu"
    assert type(learned.pipe.model).__name__ == "ORTModelForTokenClassification"


def test_an_execution_provider_for_a_pipeline_that_loads_no_language_model_is_an_input_error():
    from deid_hf.errors import InputError

    with pytest.raises(InputError, match="loads none: the detector's int8 graph runs on the CPU"):
        deid_hf.pipeline("deid-substitution", backend="onnx", provider="cuda")
