"""The learned model's operating point: token precision / recall on held-out dev-note patients over a grid of
thresholds (`deid_hf.detect.ner.outside_bias_of`), for the model alone and inside ``default`` under hipaa.

The model must not have seen the measured fold: train it with ``deid-hf train-detector OUT --held-out-fold K
--sealed-fold 4`` (the sealed fold, `deid_hf.corpora.SEALED_FOLD`, is measured only with ``--fold 4`` at the
end of a piece of work). Prints a table and writes results/calibration.json.

    python calibration.py --model /path/to/fold-model --fold 3
"""

from __future__ import annotations

import argparse

from _common import data_path, print_table, write_results

from deid_hf.corpora import SEALED_FOLD, note_folds, physionet_documents
from deid_hf.detect import get_detector
from deid_hf.detect.ner import TokenClassificationDetector
from deid_hf.train.measure import held_out_metrics

THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
COLUMNS = ["detector", "threshold", "token P", "token R", "entities fully protected", "ALL-CAPS R", "mixed R"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a folder written by deid-hf train-detector")
    parser.add_argument("--fold", type=int, required=True, help="the held-out fold the model did not see")
    parser.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)))
    args = parser.parse_args()
    notes = physionet_documents(data_path("physionet_deid_dev/notes.jsonl"))
    fold_of = note_folds(notes)
    held = [d for d in notes if fold_of[d.group] == args.fold]
    if args.fold == SEALED_FOLD:
        print(f"measuring the sealed fold {SEALED_FOLD}: report the figures, read no errors")
    rows = []
    for threshold in map(float, args.thresholds.split(",")):
        model = TokenClassificationDetector(args.model, threshold=threshold)
        for name, detector in (
            ("learned", model),
            ("default, hipaa", get_detector(["patterns", "spacy", model], policy="hipaa")),
        ):
            result = held_out_metrics(detector, {"notes": held})["notes"]
            rows.append(
                {
                    "detector": name,
                    "threshold": threshold,
                    "token P": result["all"]["token_precision"],
                    "token R": result["all"]["token_recall"],
                    "entities fully protected": result["all"]["entities_fully_protected"],
                    "ALL-CAPS R": result.get("upper", {}).get("token_recall"),
                    "mixed R": result.get("mixed", {}).get("token_recall"),
                }
            )
            print_table(rows[-1:], COLUMNS)
    print()
    print_table(rows, COLUMNS)
    write_results(
        "calibration", {"model": args.model, "fold": args.fold, "documents": len(held), "rows": rows}
    )


if __name__ == "__main__":
    main()
