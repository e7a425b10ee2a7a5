"""A fold model trained on a lent GPU machine, read back from its recorded outputs (an experiment helper).

``benchmarks/device_training.py`` trains a model there and records its outputs on the windows the detector
reads of the held-out fold's notes (each token's best label and score, at the operating point and at the
support threshold). `RecordedDetector` is the detector of the shell folder prepared for it: the tokenizer's
windows, the decoding, the merging of windows, the support and the policy are deid-hf's own; only the
forward pass is replaced by the recorded one, and a window without a recorded output, or outputs recorded
at another support threshold than deid-hf's, is an error (the shell's own weights are untrained and never
used).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from device_training import RECORDED

from deid_hf.detect.ner import SUPPORT_THRESHOLD, TokenClassificationDetector


def is_recorded(folder: str) -> bool:
    return (Path(folder) / RECORDED).is_file()


class RecordedDetector(TokenClassificationDetector):
    """`TokenClassificationDetector` of a shell folder, its forward pass read from the recorded outputs."""

    def __init__(self, folder: str, threshold: float | None = None):
        super().__init__(folder, backend="pt")  # the folder's operating point: the one recorded
        if threshold is not None and threshold != self.threshold:
            raise SystemExit(f"{folder} was recorded at threshold {self.threshold}, not {threshold}")
        data = np.load(Path(folder) / RECORDED)
        recorded_at = float(data["support_threshold"]) if "support_threshold" in data else None
        if recorded_at != SUPPORT_THRESHOLD:
            raise SystemExit(
                f"{folder} was recorded at support threshold {recorded_at}, not deid-hf's {SUPPORT_THRESHOLD}"
            )
        cut = np.cumsum(data["lengths"])[:-1]
        keys = [tuple(ids.tolist()) for ids in np.split(data["ids"], cut)]
        parts = [
            np.split(data[name], cut) for name in ("scores", "labels", "support_scores", "support_labels")
        ]
        self.recorded = {key: tuple(part[i] for part in parts) for i, key in enumerate(keys)}

    def start_forward(self, batch, support: bool = False) -> tuple:
        width = max(len(w.ids) for w in batch)
        parts = [np.zeros((len(batch), width), dtype) for dtype in (np.float32, np.int64) * 2]
        for row, window in enumerate(batch):
            found = self.recorded.get(tuple(window.ids))
            if found is None:
                raise SystemExit("a window of the measured notes has no recorded output: record that fold")
            for part, values in zip(parts, found):
                part[row, : len(values)] = values
        return (parts if support else parts[:2]), None
