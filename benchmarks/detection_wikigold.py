"""Detection recall on real text: wikigold (Wikipedia, CoNLL PER/LOC/ORG gold; MISC left out), beside
Presidio.

presidio_synth_pii is synthetic; this checks whether the default's recall carries over to real names, places
and organisations. Token recall and per-type recall follow EVALUATION.md. Precision is printed but means
little here: the gold marks only PER/LOC/ORG, while every tool also (rightly) flags dates, numbers, etc.
Usage: python benchmarks/detection_wikigold.py [--limit N]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results
from detection import presidio_analyzer

from deid_hf.detect import get_detector
from deid_hf.evaluation.detection import GoldDocument, GoldSpan, detection_report
from deid_hf.evaluation.utility import bio_entities, load_conll
from deid_hf.models import load_causal_lm

KINDS = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORG"}


def wikigold(limit: int | None) -> list[GoldDocument]:
    docs = []
    for example in load_conll([data_path("wikigold/wikigold.conll.txt")]):
        if example.tokens[0] == "-DOCSTART-":
            continue
        starts, pos = [], 0
        for token in example.tokens:
            starts.append(pos)
            pos += len(token) + 1
        spans = tuple(
            GoldSpan(starts[a], starts[b - 1] + len(example.tokens[b - 1]), KINDS[kind])
            for a, b, kind in bio_entities(example.tags)
            if kind in KINDS
        )
        docs.append(GoldDocument(example.text, spans))
    return docs[:limit] if limit else docs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="sentences")
    parser.add_argument("--policies", default="strict,hipaa", help="identifier policies of the deid-hf rows")
    parser.add_argument("--detectors", default="fast,default", help="deid-hf detectors to measure")
    args = parser.parse_args()
    docs = wikigold(args.limit)
    texts = [d.text for d in docs]
    analyzer = presidio_analyzer()
    model, tokenizer = load_causal_lm("smollm2-135m")
    tools = {
        "Presidio 2.2.366 + spaCy sm": lambda: [
            [(r.start, r.end) for r in analyzer.analyze(t, language="en")] for t in texts
        ]
    }
    for name in args.detectors.split(","):
        for policy in args.policies.split(","):
            detector = get_detector(name, model, tokenizer, policy=policy)
            tools[f"deid-hf {name} {policy}"] = lambda detector=detector: detector.detect_batch(texts)
    rows = []
    for name, run in tools.items():
        start = time.perf_counter()
        predictions = run()
        seconds = time.perf_counter() - start
        report = detection_report(docs, predictions)
        rows.append(
            {
                "tool": name,
                "token_recall": report["token_recall"],
                "entities_fully_protected": report["entities_fully_protected"],
                **{f"recall_{k}": v for k, v in report["per_type_recall"].items()},
                "token_precision": report["token_precision"],
                "docs_per_s": len(docs) / seconds,
            }
        )
    print(f"wikigold, {len(docs)} sentences, gold PER/LOC/ORG only\n")
    print_table(
        rows,
        [
            "tool",
            "token_recall",
            "entities_fully_protected",
            "recall_PERSON",
            "recall_LOCATION",
            "recall_ORG",
            "token_precision",
            "docs_per_s",
        ],
    )
    write_results("detection_wikigold", {"sentences": len(docs), "rows": rows})


if __name__ == "__main__":
    main()
