"""Label accuracy: of the gold entities a detector finds, the share whose label (the span overlapping most of
the entity) is the gold type mapped to the label schema. The label picks the surrogate (a name for a
PERSON, an address for an ADDRESS), so a wrong one costs utility, not privacy.

Corpora: presidio_synth_pii held-out records 750-1499 (gold types mapped by
`deid_hf.train.detector.PRESIDIO_LABELS`) and wikigold's held-out articles (PER/LOC/ORG; the others give
silver training text), beside Presidio in the same run.
``--spacy-name-score`` overrides `deid_hf.detect.ner.SPACY_NAME_SCORE` (the score of spaCy's names, which
decides whether spaCy's or the learned model's label wins a merge).
Usage: python benchmarks/label_accuracy.py [--detectors default fast] [--spacy-name-score S]
"""

from __future__ import annotations

import argparse
from collections import Counter

from _common import data_path, print_table, write_results
from detection import presidio_analyzer
from detection_wikigold import first_held_out_sentence, wikigold

import deid_hf.detect.ner as ner
from deid_hf.corpora import PRESIDIO_FILE, PRESIDIO_HELD_OUT
from deid_hf.corpora import PRESIDIO_LABELS as PRESIDIO_GOLD_LABELS
from deid_hf.detect import get_detector
from deid_hf.detect.ner import map_ner_label
from deid_hf.detect.patterns import PRESIDIO_LABELS as PRESIDIO_OUTPUT_LABELS
from deid_hf.evaluation.detection import load_gold


def label_accuracy(docs, predictions, gold_labels) -> tuple[float, int, list]:
    """(accuracy, found entities, most frequent confusions) over gold spans with a mapped type."""
    confusion: Counter = Counter()
    for doc, spans in zip(docs, predictions):
        for gold in doc.spans:
            if gold.label not in gold_labels:
                continue
            overlaps = [
                (min(end, gold.end) - max(start, gold.start), label)
                for start, end, label in spans
                if start < gold.end and gold.start < end
            ]
            if overlaps:
                confusion[(gold_labels[gold.label], max(overlaps)[1])] += 1
    found = sum(confusion.values())
    right = sum(n for (want, got), n in confusion.items() if want == got)
    wrong = [f"{want}->{got} {n}" for (want, got), n in confusion.most_common() if want != got][:4]
    return right / max(found, 1), found, wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detectors", nargs="+", default=["default", "fast"])
    parser.add_argument("--spacy-name-score", type=float, default=None)
    args = parser.parse_args()
    if args.spacy_name_score is not None:
        ner.SPACY_NAME_SCORE = args.spacy_name_score
    corpora = {
        "presidio 750-1499": (
            load_gold(data_path(PRESIDIO_FILE))[PRESIDIO_HELD_OUT.start : PRESIDIO_HELD_OUT.stop],
            PRESIDIO_GOLD_LABELS,
        ),
        "wikigold held out": (
            wikigold(None)[first_held_out_sentence() :],
            {"PERSON": "PERSON", "LOCATION": "LOCATION", "ORG": "ORG"},
        ),
    }
    analyzer = presidio_analyzer()
    rows = []
    for corpus, (docs, gold_labels) in corpora.items():
        texts = [d.text for d in docs]
        for name in args.detectors:
            detector = get_detector(name, policy="hipaa")
            predictions = [
                [(s.start, s.end, s.label) for s in spans] for spans in detector.detect_batch(texts)
            ]
            accuracy, found, wrong = label_accuracy(docs, predictions, gold_labels)
            rows.append(
                {
                    "corpus": corpus,
                    "tool": f"deid-hf {name} (hipaa)",
                    "label accuracy": accuracy,
                    "entities found": found,
                    "most frequent confusions": ", ".join(wrong),
                }
            )
        predictions = [
            [
                (r.start, r.end, PRESIDIO_OUTPUT_LABELS.get(r.entity_type) or map_ner_label(r.entity_type))
                for r in analyzer.analyze(text, language="en")
            ]
            for text in texts
        ]
        accuracy, found, wrong = label_accuracy(docs, predictions, gold_labels)
        rows.append(
            {
                "corpus": corpus,
                "tool": "Presidio",
                "label accuracy": accuracy,
                "entities found": found,
                "most frequent confusions": ", ".join(wrong),
            }
        )
    columns = ["corpus", "tool", "label accuracy", "entities found", "most frequent confusions"]
    print(f"spaCy names score: {ner.SPACY_NAME_SCORE}")
    print_table(rows, columns)
    write_results("label_accuracy", {"spacy_name_score": ner.SPACY_NAME_SCORE, "rows": rows})


if __name__ == "__main__":
    main()
