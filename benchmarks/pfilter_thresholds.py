"""ZSTS Table 1 shape: p-filter token precision / recall / F1 over thresholds on presidio_synth_pii,
alone and added to the "fast" ensemble (patterns + spaCy), with the offline default LM (smollm2-135m, causal).

One scoring pass per document; every threshold is applied to the same word probabilities. Rows: the
paper's p-filter (every word scored), the same with the stop-word pre-filter, and the ensemble
(patterns + spaCy, the "fast" detector) with the pre-filtered p-filter added.
Thresholds are not tuned on this set. Usage: python benchmarks/pfilter_thresholds.py [--limit N]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results

from deid_hf.detect import get_detector
from deid_hf.detect.pfilter import make_scorer, prefiltered, split_words, stop_words
from deid_hf.evaluation.detection import DetectionCounts, detection_report, load_gold
from deid_hf.models import load_causal_lm
from deid_hf.spans import Span, merge_spans

THRESHOLDS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--lowercase", action="store_true", help="lower-case words as the paper does")
    args = parser.parse_args()
    docs = load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"), limit=args.limit)
    texts = [d.text for d in docs]
    model, tokenizer = load_causal_lm("smollm2-135m")
    scorer = make_scorer(model, tokenizer, lowercase=args.lowercase)
    start = time.perf_counter()
    scores = scorer.score_batch(texts)
    seconds = time.perf_counter() - start
    ensemble = get_detector("fast").detect_batch(texts)
    stop = stop_words()
    rows = []
    for threshold in THRESHOLDS:
        alone, without_stop_words, combined = DetectionCounts(), DetectionCounts(), DetectionCounts()
        for doc, words, base in zip(docs, scores, ensemble):
            flagged = [i for i, w in enumerate(words) if w.scored and w.probability < threshold]
            spans = [Span(words[i].start, words[i].end, "OTHER", 1.0, "pfilter") for i in flagged]
            tokens = split_words(doc.text)  # aligned with ``words``: one score per word or punctuation token
            kept = [
                Span(words[i].start, words[i].end, "OTHER", 1.0, "pfilter")
                for i in flagged
                if not prefiltered(doc.text, tokens, i, stop)
            ]
            alone.add(doc, spans)
            without_stop_words.add(doc, kept)
            combined.add(doc, merge_spans(kept + base))
        for name, counts in (
            ("pfilter (all words)", alone),
            ("pfilter, stop words skipped", without_stop_words),
            ("fast+pfilter (stop words skipped)", combined),
        ):
            r = counts.report()
            rows.append(
                {
                    "detector": name,
                    "threshold": f"{threshold:.0e}",
                    "precision": r["token_precision"],
                    "recall": r["token_recall"],
                    "f1": r["token_f1"],
                    "fully_protected": r["entities_fully_protected"],
                }
            )
    r = detection_report(docs, ensemble)
    rows.append(
        {
            "detector": "fast (baseline)",
            "threshold": "-",
            "precision": r["token_precision"],
            "recall": r["token_recall"],
            "f1": r["token_f1"],
            "fully_protected": r["entities_fully_protected"],
        }
    )
    print(
        f"presidio_synth_pii, {len(docs)} records; smollm2-135m scoring: {len(docs) / seconds:.1f} docs/s"
        f"{' (lower-cased)' if args.lowercase else ''}\n"
    )
    print_table(rows, ["detector", "threshold", "precision", "recall", "f1", "fully_protected"])
    write_results(
        "pfilter_thresholds" + ("_lowercase" if args.lowercase else ""),
        {"records": len(docs), "docs_per_s": len(docs) / seconds, "rows": rows},
    )


if __name__ == "__main__":
    main()
