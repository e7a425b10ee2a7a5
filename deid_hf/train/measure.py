"""Held-out measurement of a trained detector: EVALUATION.md token metrics per set and per case group."""

from __future__ import annotations

from collections.abc import Sequence

from ..corpora import LabelledDocument, case_group


def held_out_metrics(detector, held_out: dict[str, Sequence[LabelledDocument]]) -> dict:
    """EVALUATION.md token metrics of ``detector`` on each held-out set, also per case group, with docs/s."""
    import time

    from ..evaluation.detection import DetectionCounts, GoldDocument, GoldSpan

    results = {}
    for name, docs in held_out.items():
        if not docs:
            continue
        start = time.perf_counter()
        predicted = detector.detect_batch([d.text for d in docs])
        seconds = time.perf_counter() - start
        counts = {"all": DetectionCounts()}
        for doc, spans in zip(docs, predicted):
            gold = GoldDocument(
                doc.text,
                tuple(
                    GoldSpan(s, e, original) for (s, e, _), original in zip(doc.spans, doc.original_labels)
                ),
            )
            for key in ("all", case_group(doc.text)):
                counts.setdefault(key, DetectionCounts()).add(gold, spans)
        results[name] = {
            "documents": len(docs),
            "docs_per_s": len(docs) / seconds,
            **{key: c.report() for key, c in counts.items()},
        }
    return results
