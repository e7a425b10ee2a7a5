import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import BertConfig, BertForMaskedLM

import deid_hf
from deid_hf.detect import TokenClassificationDetector
from deid_hf.detect.pfilter import make_scorer
from deid_hf.errors import InputError, ModelUnavailableError
from deid_hf.export.onnx import cached_export, export, load_ort_model, provider_options
from deid_hf.ndd import NDD
from tests.conftest import tiny_token_classifier

TEXT = "My name is Daniel Okafor and I live in Springfield."
#: int8 dynamic quantization (`quantize`: int8 weights per channel in a 7-bit range) moves word
#: log-probabilities by up to this many nats; see README.
INT8_LOGPROB_TOLERANCE = 8.0

#: every test here exports a model with Optimum (the registry ones once per session, into the cache)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny_bert_export(tmp_path_factory, minilm_tokenizer):
    torch.manual_seed(0)
    model = BertForMaskedLM(
        BertConfig(
            vocab_size=minilm_tokenizer.vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
        )
    ).eval()
    folder = export(
        model, tmp_path_factory.mktemp("mlm") / "onnx", "fill-mask", int8=True, tokenizer=minilm_tokenizer
    )
    return model, folder


@pytest.fixture(scope="module")
def smollm2_export():
    return cached_export("smollm2-135m", "causal-lm")


def probabilities(model, tokenizer, text=TEXT):
    return [w.probability for w in make_scorer(model, tokenizer).score(text)]


def test_fill_mask_export_equals_pytorch(tiny_bert_export, minilm_tokenizer):
    model, folder = tiny_bert_export
    ort = load_ort_model(folder)
    assert type(ort).__name__ == "ORTModelForMaskedLM"
    assert probabilities(ort, minilm_tokenizer) == pytest.approx(
        probabilities(model, minilm_tokenizer), abs=1e-4
    )
    a = NDD(model, minilm_tokenizer).batch(TEXT, 11, 24, ["Maria Gonzalez", "Bob"])
    b = NDD(ort, minilm_tokenizer).batch(TEXT, 11, 24, ["Maria Gonzalez", "Bob"])
    assert b == pytest.approx(a, abs=1e-4)
    card = (folder / "README.md").read_text()
    assert "de-identification" in card and "pipeline_tag: fill-mask" in card and "Privacy parameters" in card


def test_causal_export_from_the_registry_equals_pytorch(smollm2_export, smollm2):
    model, tokenizer = smollm2
    ort = load_ort_model(smollm2_export)
    assert type(ort).__name__ == "ORTModelForCausalLM"
    assert probabilities(ort, tokenizer) == pytest.approx(probabilities(model, tokenizer), abs=1e-4)
    a = NDD(model, tokenizer).batch(TEXT, 11, 24, ["Maria Gonzalez", "Bob"])
    assert NDD(ort, tokenizer).batch(TEXT, 11, 24, ["Maria Gonzalez", "Bob"]) == pytest.approx(a, abs=1e-4)
    int8 = load_ort_model(smollm2_export, int8=True)
    for p32, p8 in zip(probabilities(model, tokenizer), probabilities(int8, tokenizer)):
        assert abs(math.log(p32) - math.log(p8)) <= INT8_LOGPROB_TOLERANCE


def test_token_classification_export_equals_pytorch(tmp_path, minilm_tokenizer):
    model = tiny_token_classifier(
        minilm_tokenizer,
        ("O", "B-PER", "I-PER"),
        num_hidden_layers=1,
        intermediate_size=37,
        max_position_embeddings=512,
    ).eval()
    folder = export(model, tmp_path / "ner", "token-classification", tokenizer=minilm_tokenizer)
    ort = load_ort_model(folder, "token-classification")
    texts = [TEXT, "Call Tom Becker tomorrow."]
    pt_spans = TokenClassificationDetector(model, tokenizer=minilm_tokenizer).detect_batch(texts)
    ort_spans = TokenClassificationDetector(ort, tokenizer=minilm_tokenizer).detect_batch(texts)
    assert [[(s.start, s.end, s.label) for s in d] for d in ort_spans] == [
        [(s.start, s.end, s.label) for s in d] for d in pt_spans
    ]
    assert [s.score for d in ort_spans for s in d] == pytest.approx(
        [s.score for d in pt_spans for s in d], abs=1e-4
    )


def test_an_encoders_int8_graph_is_fused_and_reads_as_its_fp32_graph(tmp_path, tiny_learned_detector):
    """A BERT-like encoder's int8 graph holds the fused int8 attention (`quantize`), and the trained tiny
    detector reads the same entities from it as from its fp32 graph."""
    import onnx

    from deid_hf.export.onnx import QUANTIZED_FILE

    folder = export(str(tiny_learned_detector), tmp_path / "ner", "token-classification", int8=True)
    operators = {node.op_type for node in onnx.load(folder / QUANTIZED_FILE).graph.node}
    assert {"QAttention", "SkipLayerNormalization"} <= operators and "Softmax" not in operators
    texts = ["Ana Lima was seen in Boston on 12/03/2020.", "Call Tom Becker at 555-0101 tomorrow."]
    fp32 = TokenClassificationDetector(str(folder), backend="onnx").detect_batch(texts)
    int8 = TokenClassificationDetector(str(folder), backend="onnx", int8=True).detect_batch(texts)
    assert sum(map(len, fp32)) > 0
    assert [[(s.start, s.end, s.label) for s in d] for d in int8] == [
        [(s.start, s.end, s.label) for s in d] for d in fp32
    ]


def test_feature_extraction_export_from_the_registry(tmp_path):
    from deid_hf.models import load_encoder

    folder = export("minilm", tmp_path / "minilm", "feature-extraction")
    ort = load_ort_model(folder, "feature-extraction")
    model, tokenizer = load_encoder("minilm")
    enc = tokenizer(["Daniel Okafor lives here."], return_tensors="pt")
    with torch.no_grad():
        diff = (ort(**enc).last_hidden_state - model(**enc).last_hidden_state).abs().max().item()
    assert diff < 1e-4


def test_pipelines_run_on_onnx_without_pytorch_fallback(smollm2_export):
    pfilter = deid_hf.pipeline("deid-pfilter", model=str(smollm2_export), backend="onnx")
    assert type(pfilter.model).__name__ == "ORTModelForCausalLM"
    reference = deid_hf.pipeline("deid-pfilter")("Hi Tom Becker.")["words"]
    words = pfilter("Hi Tom Becker.")["words"]
    assert [w["probability"] for w in words] == pytest.approx([w["probability"] for w in reference], abs=1e-4)
    sub = deid_hf.pipeline(
        "deid-substitution",
        model=str(smollm2_export),
        backend="onnx",
        strategy="zsts",
        strategy_options={"embeddings": "glove"},
    )
    assert "Becker" not in sub("My name is Tom Becker.", seed=0)["text"]
    ndd = deid_hf.pipeline("deid-ndd", model=str(smollm2_export), backend="onnx", k=2)
    assert (
        type(ndd.model).__name__ == "ORTModelForCausalLM" and ndd("Tom Becker lives here.", seed=0)["spans"]
    )


def test_missing_export_and_unavailable_providers_are_clear_errors(tmp_path):
    with pytest.raises(ModelUnavailableError, match="export it first"):
        load_ort_model(tmp_path)
    with pytest.raises(ModelUnavailableError, match="CUDAExecutionProvider is not available.*pip uninstall"):
        provider_options("cuda")
    with pytest.raises(ModelUnavailableError, match="TensorrtExecutionProvider is not available"):
        provider_options("tensorrt", trt_cache=tmp_path, fp16=True)
    with pytest.raises(InputError, match="unknown provider"):
        provider_options("rocm")
    with pytest.raises(InputError, match="unknown model kind"):
        export("minilm", tmp_path / "x", "seq2seq")
    with pytest.raises(InputError, match="backend='onnx' needs"):
        deid_hf.pipeline(
            "deid-pfilter",
            model=BertForMaskedLM(
                BertConfig(
                    vocab_size=10,
                    hidden_size=8,
                    num_hidden_layers=1,
                    num_attention_heads=1,
                    intermediate_size=8,
                )
            ),
            backend="onnx",
        )


def test_export_refuses_the_models_own_folder_and_a_folder_of_other_files(tmp_path, capsys):
    """Checked before any work: an export into its model's folder replaced the card and config the model's
    manifest checks, and one into a folder of other files would overwrite them."""
    from deid_hf.cli import main

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("mine")
    argv = ["export", str(model), "--kind", "token-classification"]
    assert main([*argv[:2], str(model), *argv[2:]]) == 2
    assert "holds what it reads" in capsys.readouterr().err and os.listdir(model) == ["config.json"]
    assert main([*argv[:2], str(tmp_path / "notes"), *argv[2:]]) == 2
    assert "holds other files and no earlier output of export" in capsys.readouterr().err
    assert (tmp_path / "notes" / "keep.txt").read_text() == "mine"
    with pytest.raises(ModelUnavailableError, match="no model folder at /nonexistent/model"):
        export("/nonexistent/model", tmp_path / "out", "token-classification")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (CI has none)")
@pytest.mark.gpu
def test_cuda_provider(smollm2_export):
    model = load_ort_model(smollm2_export, provider="cuda")
    assert "CUDAExecutionProvider" in model.providers


def test_cli_export_feature_extraction_optimised(tmp_path):
    from deid_hf.cli import main

    assert (
        main(
            [
                "export",
                "minilm",
                str(tmp_path / "out"),
                "--kind",
                "feature-extraction",
                "--int8",
                "--optimize",
                "O1",
            ]
        )
        == 0
    )
    assert (tmp_path / "out" / "model.onnx").exists() and (tmp_path / "out" / "model_quantized.onnx").exists()
    assert load_ort_model(tmp_path / "out", "feature-extraction", int8=True) is not None
    assert main(["export", "minilm", str(tmp_path / "bad"), "--kind", "audio"]) == 2


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_onnx_runtime_threads_stay_within_the_cpus_the_process_may_use():
    """A process pinned to one CPU (taskset, a container's cpuset) gets one intra-op thread."""
    code = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from deid_hf.export.onnx import session_options; print(session_options().intra_op_num_threads)"
    )
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo)
    assert out.stdout.strip() == "1"
