"""Speed and token P/R of every detector against Presidio in the same run: presidio_synth_pii held-out records
(750-1499) and PhysioNet dev notes of the patients the learned detector did not see (its held-out fold).

deid-hf rows run through the `deid-substitution` pipeline (detection, repeated mentions, full_entity
replacement; the replaced spans are the predictions), as in benchmarks/detection.py; Presidio 2.2.366 with
spaCy sm runs in the same process on the same documents. The learned detector runs on PyTorch, ONNX Runtime
fp32 and ONNX Runtime int8 (its folder's ``model.onnx`` / ``model_quantized.onnx``). Speed: single process,
after a warm-up; docs/s and tokens/s (whitespace tokens, the EVALUATION.md unit). Precision / recall per
shared/EVALUATION.md (label-agnostic tokens), also per case group on the notes.
Usage: python benchmarks/detector_speed.py --model DIR [--notes-fold 0] [--limit N] [--skip-zsts]
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from _common import data_path, print_table, write_results
from detection import presidio_analyzer

import deid_hf
from deid_hf.corpora import case_group
from deid_hf.detect import TokenClassificationDetector, get_detector
from deid_hf.evaluation.detection import DetectionCounts, GoldDocument, GoldSpan, load_gold, tokens
from deid_hf.train.detector import DetectorConfig, default_documents
from deid_hf.train.loop import config_of_record


def notes_of_fold(model_dir: str | None, fold: int | None) -> tuple[list[GoldDocument], str]:
    """Dev notes of the learned model's held-out patient fold (read from its training record)."""
    config = DetectorConfig()
    if model_dir:
        saved = json.loads((__import__("pathlib").Path(model_dir) / "deid_hf_training.json").read_text())
        config = config_of_record(
            DetectorConfig, {**saved["config"], **({} if fold is None else {"held_out_fold": fold})}
        )
    config.silver_per_source = 0  # only the held-out notes are read
    data_path("physionet_deid_dev")
    _, held = default_documents(data_path("."), config)
    name = next(k for k in held if k.startswith("physionet"))
    docs = [
        GoldDocument(d.text, tuple(GoldSpan(s, e, o) for (s, e, _), o in zip(d.spans, d.original_labels)))
        for d in held[name]
    ]
    return docs, name


def measure(name: str, docs: list[GoldDocument], predict) -> dict:
    predict(docs[:8])  # warm-up
    start = time.perf_counter()
    predictions = predict(docs)
    seconds = time.perf_counter() - start
    counts = {"all": DetectionCounts()}
    for doc, predicted in zip(docs, predictions):
        for key in ("all", case_group(doc.text)):
            counts.setdefault(key, DetectionCounts()).add(doc, predicted)
    report = counts["all"].report()
    row = {
        "detector": name,
        "docs_per_s": len(docs) / seconds,
        "tokens_per_s": sum(len(tokens(d.text)) for d in docs) / seconds,
        "token_precision": report["token_precision"],
        "token_recall": report["token_recall"],
        "entities_fully_protected": report["entities_fully_protected"],
        "per_type_recall": report["per_type_recall"],
    }
    for group in ("mixed", "upper"):
        if group in counts:
            r = counts[group].report()
            row[f"{group}_P"], row[f"{group}_R"] = r["token_precision"], r["token_recall"]
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="folder written by `deid-hf train-detector`")
    parser.add_argument("--notes-fold", type=int, default=None, help="default: the model's held-out fold")
    parser.add_argument("--limit", type=int, default=None, help="at most N documents per corpus")
    parser.add_argument("--skip-zsts", action="store_true", help="no rows with the (slow) p-filter")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--zsts-learned", action="store_true", help="also a row zsts + learned")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    presidio_docs = load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"))[750:1500]
    notes, notes_name = notes_of_fold(args.model, args.notes_fold)
    corpora = {"presidio_synth_pii 750-1499": presidio_docs, notes_name: notes}
    if args.limit:
        corpora = {k: v[: args.limit] for k, v in corpora.items()}

    analyzer = presidio_analyzer()
    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity")
    learned = {
        "learned PyTorch fp32": TokenClassificationDetector(args.model),
        "learned ORT fp32": TokenClassificationDetector(args.model, backend="onnx"),
        "learned ORT int8": TokenClassificationDetector(args.model, backend="onnx", int8=True),
    }
    int8 = learned["learned ORT int8"]
    configurations = {
        **learned,
        "fast (patterns+spacy)": "fast",
        "patterns+learned int8": ["patterns", int8],
        "default (patterns+spacy+learned int8)": ["patterns", "spacy", int8],
    }
    if not args.skip_zsts:
        configurations["zsts (patterns+spacy+pfilter-propn)"] = "zsts"
        if args.zsts_learned:
            configurations["zsts+learned int8"] = ["patterns", "spacy", "pfilter-propn", int8]

    def presidio(ds):
        return [[(r.start, r.end) for r in analyzer.analyze(d.text, language="en")] for d in ds]

    def through_pipeline(detector):
        def run(ds):
            pipe.detector = detector
            found = pipe([d.text for d in ds], seed=0, batch_size=64)
            return [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in found]

        return run

    results = {}
    columns = ["detector", "docs_per_s", "tokens_per_s", "x_presidio", "token_precision", "token_recall"]
    for corpus, docs in corpora.items():
        rows = [measure("Presidio 2.2.366 + spaCy sm", docs, presidio)]
        for name, spec in configurations.items():
            detector = get_detector(spec, pipe.model, pipe.tokenizer)
            rows.append(measure(f"deid-hf {name}", docs, through_pipeline(detector)))
        for row in rows:
            row["x_presidio"] = row["docs_per_s"] / rows[0]["docs_per_s"]
        print(f"\n{corpus}: {len(docs)} documents, {torch.get_num_threads()} torch threads\n")
        print_table(rows, [*columns, "mixed_P", "mixed_R", "upper_P", "upper_R"])
        results[corpus] = {"documents": len(docs), "rows": rows}
    write_results("detector_speed", {"model": args.model, "corpora": results})


if __name__ == "__main__":
    main()
