"""The learned detector's batch path (`deid_hf.detect.windows`) against the transformers pipeline it
replaces: the same entities, offsets, labels and scores, on this session's tiny model (conftest)."""

from __future__ import annotations

import pytest

from deid_hf.detect import TokenClassificationDetector, get_detector
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


def by_length(texts):
    return sorted(texts, key=len)


@pytest.fixture(scope="module")
def fp32_export(tmp_path_factory, minilm_tokenizer):
    """An untrained tiny classifier's fp32 ONNX graph (its labels vary from token to token) and its
    tokenizer cut to windows of 16 tokens."""
    from transformers import AutoTokenizer

    from deid_hf.export.onnx import export

    folder = tmp_path_factory.mktemp("fp32") / "ner"
    export(
        tiny_token_classifier(minilm_tokenizer).eval(),
        folder,
        "token-classification",
        tokenizer=minilm_tokenizer,
    )
    return str(folder), AutoTokenizer.from_pretrained(folder, model_max_length=16)


def detector_of(case, tiny_learned_detector, fp32_export):
    if case.pop("fp32", False):
        folder, tokenizer = fp32_export
        return TokenClassificationDetector(folder, tokenizer, backend="onnx", stride=4, **case)
    return TokenClassificationDetector(str(tiny_learned_detector), backend="onnx", int8=True, **case)


@pytest.mark.parametrize(
    "case",
    [
        {},  # the registry's "learned": the trained tiny model, int8, one window per run
        {"threshold": 0.1},  # a lowered "O" logit
        {"fp32": True, "batch_size": 3},  # windows of several texts padded into one batch
        {"fp32": True, "batch_size": 16, "threshold": 0.3},
    ],
    ids=["int8", "int8-threshold", "fp32-batch3", "fp32-batch16-threshold"],
)
def test_the_batch_path_finds_what_the_pipeline_finds(tiny_learned_detector, fp32_export, case):
    detector = detector_of(dict(case), tiny_learned_detector, fp32_export)
    assert detector.direct
    texts = by_length(TEXTS)
    windows = detector.tokenise(texts)
    assert (
        max(sum(w.text == i for w in windows) for i in range(len(texts))) > 2
    )  # long texts: several windows
    direct, piped = detector.entities(texts), detector.pipeline_entities(texts)
    assert sum(map(len, piped)) > 0  # the comparison is not between two empty lists
    assert [[e[:3] for e in text] for text in direct] == [[e[:3] for e in text] for text in piped]
    assert [[float(e[3]) for e in text] for text in direct] == [[float(e[3]) for e in text] for text in piped]


def test_the_detector_gives_the_same_spans_on_either_path(tiny_learned_detector):
    """Through `detect_batch` (input order restored, filters applied) the two paths agree."""
    detector = get_detector("learned")
    assert detector.direct
    found = detector.detect_batch(TEXTS)
    detector.direct = False
    assert detector.detect_batch(TEXTS) == found


def test_the_pytorch_backend_keeps_the_pipeline(tiny_learned_detector):
    detector = TokenClassificationDetector(str(tiny_learned_detector))
    assert not detector.direct
    assert detector.detect_batch(["Ana Lima was seen in Boston."])[0] == detector.detect(
        "Ana Lima was seen in Boston."
    )
