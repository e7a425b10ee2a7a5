"""Detection recall on real text: wikigold (Wikipedia, CoNLL PER/LOC/ORG gold; MISC left out), beside
Presidio.

presidio_synth_pii is synthetic; this checks whether the default's recall carries over to real names, places
and organisations. Token recall and per-type recall follow EVALUATION.md. Precision is printed but means
little here: the gold marks only PER/LOC/ORG, while every tool also (rightly) flags dates, numbers, etc.
The default learned detector's silver text includes the sentences of wikigold's first
`WIKIGOLD_SILVER_ARTICLES` articles (their text, labelled by the `zsts` ensemble; never the gold), so each
row is also measured on the held-out articles alone: that is the figure that compares detectors fairly.
Usage: python benchmarks/detection_wikigold.py [--limit N]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results
from detection import presidio_analyzer

from deid_hf.detect import get_detector
from deid_hf.detect.ner import map_ner_label
from deid_hf.detect.patterns import PRESIDIO_LABELS
from deid_hf.evaluation.detection import GoldDocument, GoldSpan, detection_report
from deid_hf.evaluation.utility import bio_entities, load_conll
from deid_hf.models import load_causal_lm
from deid_hf.train.silver import WIKIGOLD_SILVER_ARTICLES

KINDS = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORG"}
#: labels of the kinds of span this gold marks: precision over these spans alone leaves out the dates and
#: numbers that every tool (rightly) flags and this gold never marks
NAME_LABELS = {"PERSON", "ORG", "LOCATION", "ADDRESS"}


def first_held_out_sentence() -> int:
    """Index, in `wikigold`'s order, of the first sentence of the held-out articles (those no silver text
    comes from); the sentences before the file's first ``-DOCSTART-`` belong to no article and count here."""
    starts, sentences = 0, 0
    for example in load_conll([data_path("wikigold/wikigold.conll.txt")]):
        if example.tokens[0] == "-DOCSTART-":
            if starts == WIKIGOLD_SILVER_ARTICLES:
                return sentences
            starts += 1
        else:
            sentences += 1
    return sentences


def conll_gold(path: str, kinds: dict[str, str]) -> list[GoldDocument]:
    """The sentences of a CoNLL file under ``../shared/data``, in file order, as gold documents (tokens
    joined by spaces); gold entities of the types in ``kinds`` (mapped to the label schema), the others left
    out."""
    docs = []
    for example in load_conll([data_path(path)]):
        if example.tokens[0] == "-DOCSTART-":
            continue
        starts, pos = [], 0
        for token in example.tokens:
            starts.append(pos)
            pos += len(token) + 1
        spans = tuple(
            GoldSpan(starts[a], starts[b - 1] + len(example.tokens[b - 1]), kinds[kind])
            for a, b, kind in bio_entities(example.tags)
            if kind in kinds
        )
        docs.append(GoldDocument(example.text, spans))
    return docs


def wikigold(limit: int | None) -> list[GoldDocument]:
    """wikigold's sentences, in file order, as gold documents."""
    docs = conll_gold("wikigold/wikigold.conll.txt", KINDS)
    return docs[:limit] if limit else docs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="sentences")
    parser.add_argument("--policies", default="strict,hipaa", help="identifier policies of the deid-hf rows")
    parser.add_argument(
        "--detectors", default="fast,default", help="deid-hf detectors to measure; a set written with '|'"
    )
    args = parser.parse_args()
    docs = wikigold(args.limit)
    held_out = first_held_out_sentence()
    texts = [d.text for d in docs]
    analyzer = presidio_analyzer()
    model, tokenizer = load_causal_lm("smollm2-135m")
    tools = {
        "Presidio 2.2.366 + spaCy sm": lambda: [
            [
                (r.start, r.end, PRESIDIO_LABELS.get(r.entity_type) or map_ner_label(r.entity_type))
                for r in analyzer.analyze(t, language="en")
            ]
            for t in texts
        ]
    }
    for name in args.detectors.split(","):
        for policy in args.policies.split(","):
            detector = get_detector(name.split("|"), model, tokenizer, policy=policy)
            tools[f"deid-hf {name.replace('|', ' + ')} {policy}"] = lambda detector=detector: [
                [(s.start, s.end, s.label) for s in spans] for spans in detector.detect_batch(texts)
            ]
    rows = []
    for name, run in tools.items():
        start = time.perf_counter()
        predictions = run()
        seconds = time.perf_counter() - start
        report = detection_report(docs, predictions)
        unseen = detection_report(docs[held_out:], predictions[held_out:]) if held_out < len(docs) else {}
        names = [[p for p in spans if p[2] in NAME_LABELS] for spans in predictions[held_out:]]
        unseen_names = detection_report(docs[held_out:], names) if held_out < len(docs) else {}
        rows.append(
            {
                "tool": name,
                "token_recall": report["token_recall"],
                "entities_fully_protected": report["entities_fully_protected"],
                **{f"recall_{k}": v for k, v in report["per_type_recall"].items()},
                "token_precision": report["token_precision"],
                "held_out_recall": unseen.get("token_recall"),
                "held_out_recall_ORG": unseen.get("per_type_recall", {}).get("ORG"),
                "held_out_precision": unseen.get("token_precision"),
                "held_out_name_precision": unseen_names.get("token_precision"),
                "docs_per_s": len(docs) / seconds,
            }
        )
    print(
        f"wikigold, {len(docs)} sentences, gold PER/LOC/ORG only; held out: sentences {held_out}- "
        f"(articles {WIKIGOLD_SILVER_ARTICLES}-, never silver text)\n"
    )
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
            "held_out_recall",
            "held_out_recall_ORG",
            "held_out_precision",
            "held_out_name_precision",
            "docs_per_s",
        ],
    )
    write_results(
        "detection_wikigold", {"sentences": len(docs), "first_held_out_sentence": held_out, "rows": rows}
    )


if __name__ == "__main__":
    main()
