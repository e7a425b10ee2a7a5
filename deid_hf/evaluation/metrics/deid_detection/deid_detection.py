"""`evaluate` metric module: deid-hf detection metrics (shared/EVALUATION.md definitions).

    metric = evaluate.load(deid_hf.evaluation.metric_path("deid_detection"))
    metric.compute(predictions=[[{"start": 0, "end": 5}]],
                   references=[[{"start": 0, "end": 5, "label": "PERSON"}]],
                   texts=["Maria is here."], outputs=None)

``predictions``: predicted spans per document; ``references``: gold spans per document; ``texts``: the
original documents; ``outputs`` (optional): de-identified documents, for leakage.
"""

import datasets
import evaluate

from deid_hf.evaluation.detection import DetectionCounts, GoldDocument, GoldSpan

_SPAN = {"start": datasets.Value("int32"), "end": datasets.Value("int32")}


class DeidDetection(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=__doc__,
            citation="",
            inputs_description=__doc__,
            features=datasets.Features(
                {
                    "predictions": [_SPAN],
                    "references": [{**_SPAN, "label": datasets.Value("string")}],
                }
            ),
        )

    def _compute(self, predictions, references, texts=None, outputs=None):
        if texts is None or len(texts) != len(references):
            raise ValueError("pass texts=[...] with one original document per reference")
        counts = DetectionCounts()
        for i, (pred, gold, text) in enumerate(zip(predictions, references, texts)):
            doc = GoldDocument(text, tuple(GoldSpan(s, e, lab) for s, e, lab in _rows(gold, True)))
            counts.add(doc, [(s, e) for s, e in _rows(pred, False)], outputs[i] if outputs else None)
        return counts.report()


def _rows(spans, labelled):
    return [
        (s["start"], s["end"], s.get("label", "OTHER")) if labelled else (s["start"], s["end"]) for s in spans
    ]
