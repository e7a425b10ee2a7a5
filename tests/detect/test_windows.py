"""The learned detector's batch path (`deid_hf.detect.windows`) against the transformers pipeline it
replaces: the same entities, offsets, labels and scores, on this session's tiny model (conftest). The
pipeline pads a text's windows to its longest one and the batch path does not: fp32 and PyTorch scores
agree within float error, the int8 graph's within `INT8_SCORE_TOLERANCE` (its dynamic quantization reads
the padding too)."""

from __future__ import annotations

import copy

import pytest
import torch

from deid_hf.detect import TokenClassificationDetector, get_detector
from deid_hf.errors import InputError
from tests.conftest import tiny_token_classifier

TEXTS = [
    "",
    "   ",
    "Ivan Petrov",
    "Ana Lima was seen in Boston on 12/03/2020.",
    "Çağla Öztürk (née Ünal) – tel. +90 212 555 0101; e-mail cagla@example.org.",
    "Patient Tom Okafor, stable. " * 12,
    "Seen by Maria Gonzalez in Nairobi; follow up on 12/05/2020 with Ana Lima in Lisbon. " * 40,
    "\n".join(f"{i}. Dr. Lee saw Mr. Kim at 4{i} Elm St, room {i}" for i in range(120)),
]


#: how far the int8 graph's scores move with the padding the pipeline adds to a text's shorter windows
INT8_SCORE_TOLERANCE = 0.01


def by_length(texts):
    return sorted(texts, key=len)


def assert_same_entities(found, expected, tolerance=1e-6):
    """The same entities (offsets and names), their scores within ``tolerance`` (float error)."""
    assert [[e[:3] for e in text] for text in found] == [[e[:3] for e in text] for text in expected]
    assert [float(e[3]) for text in found for e in text] == pytest.approx(
        [float(e[3]) for text in expected for e in text], abs=tolerance
    )


@pytest.fixture(scope="module")
def untrained(tmp_path_factory, minilm_tokenizer):
    """An untrained tiny classifier (its labels vary from token to token), its fp32 ONNX graph and its
    tokenizer cut to windows of 16 tokens."""
    from transformers import AutoTokenizer

    from deid_hf.export.onnx import export

    model = tiny_token_classifier(minilm_tokenizer).eval()
    folder = export(
        model, tmp_path_factory.mktemp("fp32") / "ner", "token-classification", tokenizer=minilm_tokenizer
    )
    return model, str(folder), AutoTokenizer.from_pretrained(folder, model_max_length=16)


def detector_of(case, tiny_learned_detector, untrained):
    model, folder, tokenizer = untrained
    backend = case.pop("backend")
    if backend == "pt":
        return TokenClassificationDetector(model, tokenizer, stride=4, **case)
    if backend == "onnx-fp32":
        return TokenClassificationDetector(folder, tokenizer, backend="onnx", stride=4, **case)
    return TokenClassificationDetector(str(tiny_learned_detector), backend="onnx", int8=True, **case)


@pytest.mark.parametrize(
    "case",
    [
        {"backend": "int8"},  # the registry's "learned": the trained tiny model, one window per run
        {"backend": "int8", "threshold": 0.1},  # a lowered "O" logit
        {"backend": "onnx-fp32", "batch_size": 3},  # windows of several texts padded into one batch
        {"backend": "onnx-fp32", "batch_size": 16, "threshold": 0.3},
        {"backend": "pt", "batch_size": 3},
        {"backend": "pt", "batch_size": 16, "threshold": 0.3},
    ],
    ids=[
        "int8",
        "int8-threshold",
        "fp32-batch3",
        "fp32-batch16-threshold",
        "pt-batch3",
        "pt-batch16-threshold",
    ],
)
def test_the_batch_path_finds_what_the_pipeline_finds(tiny_learned_detector, untrained, case):
    detector = detector_of(dict(case), tiny_learned_detector, untrained)
    assert detector.direct
    texts = by_length(TEXTS)
    windows = detector.tokenise(texts)
    assert max(sum(w.text == i for w in windows) for i in range(len(texts))) > 2  # several windows
    direct, piped = detector.entities(texts), detector.pipeline_entities(texts)
    assert sum(map(len, piped)) > 0  # the comparison is not between two empty lists
    assert_same_entities(direct, piped, INT8_SCORE_TOLERANCE if case["backend"] == "int8" else 1e-6)


def test_the_detector_gives_the_same_spans_on_either_path(tiny_learned_detector):
    """Through `detect_batch` (input order restored, filters applied) the two paths agree."""
    detector = get_detector("learned")
    assert detector.direct
    found = detector.detect_batch(TEXTS)
    detector.direct = False
    piped = detector.detect_batch(TEXTS)
    assert [[(s.start, s.end, s.label) for s in text] for text in found] == [
        [(s.start, s.end, s.label) for s in text] for text in piped
    ]
    assert [s.score for text in found for s in text] == pytest.approx(
        [s.score for text in piped for s in text], abs=INT8_SCORE_TOLERANCE
    )


def test_a_model_without_token_types_reads_the_same_on_either_path(minilm_tokenizer):
    """A tokenizer that gives no token types (RoBERTa-like) feeds the model none on the batch path too."""
    import torch
    from transformers import DistilBertConfig, DistilBertForTokenClassification

    from deid_hf.spans import BIO_LABELS

    torch.manual_seed(0)
    config = DistilBertConfig(
        vocab_size=minilm_tokenizer.vocab_size,
        dim=32,
        n_layers=1,
        n_heads=2,
        hidden_dim=37,
        num_labels=len(BIO_LABELS),
        id2label=dict(enumerate(BIO_LABELS)),
        label2id={label: i for i, label in enumerate(BIO_LABELS)},
    )
    model = DistilBertForTokenClassification(config).eval()
    tokenizer = copy.deepcopy(minilm_tokenizer)
    tokenizer.model_input_names = ["input_ids", "attention_mask"]
    detector = TokenClassificationDetector(model, tokenizer, threshold=0.3)
    texts = by_length(TEXTS)
    assert all(w.type_ids is None for w in detector.tokenise(texts))
    piped = detector.pipeline_entities(texts)
    assert sum(map(len, piped)) > 0
    assert_same_entities(detector.entities(texts), piped)


def test_labels_outside_the_bio_scheme_are_grouped_and_named_as_the_pipeline_does(minilm_tokenizer):
    """BILOU-style and plain labels ("U-PER", "MISC"): the pipeline groups them by the whole label and names
    a group by the text after its first "-"; the batch path gives the same groups and names."""

    labels = ("O", "B-PER", "I-PER", "U-PER", "L-LOC", "S-ORG", "MISC")
    model = tiny_token_classifier(minilm_tokenizer, labels).eval()
    tokenizer = copy.deepcopy(minilm_tokenizer)
    tokenizer.model_max_length = 16
    detector = TokenClassificationDetector(model, tokenizer, stride=4, threshold=0.2)
    texts = by_length(TEXTS)
    piped = detector.pipeline_entities(texts)
    names = {e[2] for text in piped for e in text}
    assert names & {"LOC", "ORG"} and "MISC" in names  # groups of the labels outside B-/I-
    assert_same_entities(detector.entities(texts), piped)


def test_a_tokenizer_padding_on_the_left_takes_the_pipeline(tiny_learned_detector):
    """The batch path pads on the right; a left-padding tokenizer is read by the pipeline instead."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_learned_detector))
    assert TokenClassificationDetector(str(tiny_learned_detector), tokenizer=tokenizer).direct
    tokenizer.padding_side = "left"
    assert not TokenClassificationDetector(str(tiny_learned_detector), tokenizer=tokenizer).direct


def test_the_inner_pipeline_does_not_say_where_it_runs(minilm_tokenizer):
    """transformers says "Device set to use cpu" for each pipeline it builds: the user's own pipeline says
    it, the detector's inner one does not (it said it twice per `deid-substitution`)."""
    import logging

    from transformers import pipeline

    said = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    log = logging.getLogger("transformers.pipelines.base")
    level = log.level
    log.addHandler(handler)
    try:
        model = tiny_token_classifier(minilm_tokenizer).eval()
        TokenClassificationDetector(model, minilm_tokenizer)
        assert not any("Device set to use" in message for message in said)
        pipeline("token-classification", model=model, tokenizer=minilm_tokenizer)
        assert any("Device set to use" in message for message in said)  # the handler hears it
    finally:
        log.removeHandler(handler)
    assert log.level == level


def test_a_quiet_build_on_one_thread_silences_no_other_and_leaves_the_logger_as_it_was():
    """Two threads build pipelines at once (a service's workers): while one is inside
    `quiet_device_message`, another thread's pipeline still says where it runs, and the logger's level is
    the same after both, whatever order they leave in."""
    import logging
    import threading

    from deid_hf.detect.ner import quiet_device_message

    log = logging.getLogger("transformers.pipelines.base")
    level = log.level
    said = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with quiet_device_message():
            first_in.set()
            second_in.wait(5)
            log.warning("Device set to use cpu")  # the inner pipeline's: left out
        first_out.set()

    def second():
        first_in.wait(5)
        with quiet_device_message():
            second_in.set()
            first_out.wait(5)  # the first thread leaves before this one does

    log.addHandler(handler)
    try:
        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        second_in.wait(5)
        log.warning("Device set to use cuda:0")  # the user's own pipeline on this thread: said
        for thread in threads:
            thread.join()
        assert log.level == level
        log.warning("Device set to use cpu")  # after both: said
    finally:
        log.removeHandler(handler)
    assert said == ["Device set to use cuda:0", "Device set to use cpu"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (CI has none)")
def test_on_cuda_the_overlapped_batches_find_what_the_cpu_finds(untrained):
    """On a GPU the next batch runs while the last one is decoded (`start_forward`/`finish_forward`): the
    entities equal the CPU's, batch by batch."""
    model, _, tokenizer = untrained
    texts = by_length(TEXTS)
    on_cpu = TokenClassificationDetector(copy.deepcopy(model), tokenizer, stride=4, batch_size=3)
    on_gpu = TokenClassificationDetector(
        copy.deepcopy(model), tokenizer, stride=4, batch_size=3, device="cuda"
    )
    assert len(on_gpu.tokenise(texts)) > 2 * on_gpu.batch_size  # several batches in flight
    assert_same_entities(on_gpu.entities(texts), on_cpu.entities(texts), 1e-4)


def test_a_batch_width_is_rounded_up_to_a_multiple_and_the_mask_covers_only_the_tokens(untrained):
    from deid_hf.detect.windows import batch_inputs

    _, _, tokenizer = untrained
    windows = TokenClassificationDetector(untrained[0], tokenizer, stride=4).tokenise(
        ["Ana", "Ana Lima in Lisbon"]
    )
    longest = max(len(w.ids) for w in windows)
    inputs = batch_inputs(windows, tokenizer.pad_token_id, multiple=32)
    assert inputs["input_ids"].shape[1] == 32 > longest
    assert inputs["attention_mask"].sum(axis=1).tolist() == [len(w.ids) for w in windows]
    assert (inputs["input_ids"][inputs["attention_mask"] == 0] == tokenizer.pad_token_id).all()
    assert batch_inputs(windows, tokenizer.pad_token_id)["input_ids"].shape[1] == longest


def test_a_group_is_scored_by_the_mean_the_pipeline_takes():
    """The pipeline scores a group by ``np.nanmean`` of its float32 token scores (NaN skipped): the batch
    path gives that number within one float32 rounding (it sums all groups at once, in another order), as
    float32."""
    import numpy as np

    from deid_hf.detect.windows import LabelTable, Window, window_entities

    table = LabelTable.of({0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"})
    scores = [0.5, 0.8184808, 0.6348934, np.nan, 0.5204868, 0.6308061, 0.6492456, 0.9071129, 0.545958, 0.6]
    scores = np.array(scores, dtype=np.float32)
    labels = np.array([0, 1, 2, 2, 2, 3, 4, 4, 4, 0])
    offsets = [(0, 0), *((3 * i, 3 * i + 3) for i in range(8)), (0, 0)]
    window = Window(0, list(range(10)), None, [1, *[0] * 8, 1], offsets)
    found = window_entities(scores, labels, window, table)
    assert [entity[:3] for entity in found] == [(0, 12, "PER"), (12, 24, "LOC")]
    expected = [np.nanmean(scores[1:5]), np.nanmean(scores[5:9])]  # with a NaN, and without
    assert [score.dtype for *_, score in found] == [np.float32, np.float32]
    assert [float(score) for *_, score in found] == pytest.approx([float(e) for e in expected], rel=1e-6)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (CI has none)")
def test_on_cuda_the_support_finds_what_the_cpu_finds(untrained):
    model, _, tokenizer = untrained
    texts = by_length(TEXTS)
    options = {"stride": 4, "batch_size": 3, "threshold": 0.4, "support_threshold": 0.1}
    on_cpu = TokenClassificationDetector(copy.deepcopy(model), tokenizer, **options)
    on_gpu = TokenClassificationDetector(copy.deepcopy(model), tokenizer, device="cuda", **options)
    found, support = on_gpu.entities_and_support(texts)
    expected, expected_support = on_cpu.entities_and_support(texts)
    assert expected_support != expected and sum(map(len, expected)) > 0  # the support reads otherwise
    assert_same_entities(found, expected, 1e-4)
    assert_same_entities(support, expected_support, 1e-4)


@pytest.mark.parametrize("stride", [14, 15, 40, -1, 2.5, "4", True])
def test_a_stride_that_leaves_no_room_or_is_no_count_is_refused(untrained, stride):
    """Windows of 16 tokens hold 14 of text: a stride of 14 or more (the Rust tokenizer would panic), a
    negative or fractional one, is a one-line deid-hf error naming the stride."""
    model, _, tokenizer = untrained
    with pytest.raises(InputError, match="stride"):
        TokenClassificationDetector(model, tokenizer, stride=stride)


def test_the_longest_stride_that_leaves_room_reads_the_text(untrained):
    import numpy as np

    model, _, tokenizer = untrained
    for stride in (13, np.int64(13)):
        detector = TokenClassificationDetector(model, tokenizer, stride=stride)
        assert detector.stride == 13 and len(detector.tokenise(["word " * 40])) > 2
