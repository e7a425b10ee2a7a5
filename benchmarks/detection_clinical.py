"""Detection on real clinical notes (PhysioNet deid dev split, 732 ICU nursing notes of 65 patients, gold
PHI), shared/EVALUATION.md definitions, every detector and Presidio in the same run.

Rows: Presidio 2.2.366 (AnalyzerEngine + spaCy sm, every entity; its spans replaced by typed placeholders for
leakage) and deid-hf detectors through the `deid-substitution` pipeline (full_entity replacement; the
replaced spans are the predictions), each under the identifier policy ``strict`` (every span any detector
finds: today's behaviour) and ``hipaa`` (the default, README "Identifier policy"), plus ablations of the
hipaa policy on `fast` (without case restoration, without the clinical context rules, without corpus
statistics). The hipaa rows' corpus statistics are fitted on the texts of the notes measured (no labels;
what `deid-hf run` does with its input). Metrics overall, per case group (ALL-CAPS notes: at least 90% of
letters upper case; mixed-case: the rest) and per gold type; notes/s single process after a warm-up.
Usage: python benchmarks/detection_clinical.py [--patients N] [--skip ROW ...]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results

import deid_hf
from deid_hf.detect import get_detector
from deid_hf.detect.casing import CAPS_SHARE, caps_share
from deid_hf.detect.policy import PolicyDetector
from deid_hf.evaluation.detection import detection_report, load_gold

COLUMNS = [
    "tool",
    "token_precision",
    "token_recall",
    "token_f1",
    "entities_fully_protected",
    "leakage",
    "notes_per_s",
]


def presidio_rows(docs):
    from detection import presidio_analyzer

    analyzer = presidio_analyzer()

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


def measure(name, docs, detect_all, replace_all, groups):
    detect_all(docs[:10])  # warm-up
    start = time.perf_counter()
    predictions = detect_all(docs)
    seconds = time.perf_counter() - start
    outputs = replace_all(docs, predictions)
    row = {"tool": name, "notes_per_s": len(docs) / seconds}
    for group, keep in groups.items():
        idx = [i for i, d in enumerate(docs) if keep(d)]
        report = detection_report(
            [docs[i] for i in idx], [predictions[i] for i in idx], [outputs[i] for i in idx]
        )
        if group == "all":
            row.update(report)
        else:
            row[group] = {k: v for k, v in report.items()}
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--patients", type=int, default=None, help="only the first N patients (by id)")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="row names to leave out (e.g. 'default strict')"
    )
    args = parser.parse_args()
    path = data_path("physionet_deid_dev/notes.jsonl")
    docs = load_gold(path, text_field="text")
    if args.patients:
        import json

        patients = [json.loads(line)["patient"] for line in path.read_text().splitlines() if line.strip()]
        chosen = set(sorted(set(patients))[: args.patients])
        docs = [d for d, p in zip(docs, patients) if p in chosen]
    texts = [d.text for d in docs]
    groups = {
        "all": lambda d: True,
        "ALL-CAPS": lambda d: caps_share(d.text) >= CAPS_SHARE,
        "mixed-case": lambda d: caps_share(d.text) < CAPS_SHARE,
    }

    rows = []
    if "presidio" not in args.skip:
        detect, replace = presidio_rows(docs)
        rows.append(measure("Presidio 2.2.366 + spaCy sm", docs, detect, replace, groups))

    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity")
    configurations = {
        "patterns strict": ("patterns", "strict", {}),
        "spacy strict": ("spacy", "strict", {}),
        "fast strict": ("fast", "strict", {}),
        "default strict": ("default", "strict", {}),
        "patterns hipaa": ("patterns", "hipaa", {}),
        "spacy hipaa": ("spacy", "hipaa", {}),
        "fast hipaa": ("fast", "hipaa", {}),
        "fast hipaa, no case restoration": ("fast", "hipaa", {"restore_case": False}),
        "fast hipaa, no context rules": ("fast", "hipaa", {"context": False}),
        "fast hipaa, no corpus statistics": ("fast", "hipaa", {"corpus_vocabulary": False}),
        "default hipaa": ("default", "hipaa", {}),
    }
    for name, (spec, policy, ablation) in configurations.items():
        if name in args.skip:
            continue
        detector = get_detector(spec, pipe.model, pipe.tokenizer, policy=policy)
        if ablation:
            detector = PolicyDetector(get_detector(spec, pipe.model, pipe.tokenizer), policy, **ablation)
        if isinstance(detector, PolicyDetector) and detector.corpus_vocabulary:
            detector.fit(texts)
        pipe.detector = detector
        results = {}

        def run(ds, results=results):
            found = pipe([d.text for d in ds], seed=0, batch_size=32)
            results.update(zip(map(id, ds), found))
            return [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in found]

        row = measure(
            f"deid-hf {name}",
            docs,
            run,
            lambda ds, _, results=results: [results[id(d)]["text"] for d in ds],
            groups,
        )
        rows.append(row)
        print(
            f"{name}: P {row['token_precision']:.3f} R {row['token_recall']:.3f} "
            f"leak {row['leakage']:.3f} {row['notes_per_s']:.1f} notes/s",
            flush=True,
        )

    n_caps = sum(groups["ALL-CAPS"](d) for d in docs)
    print(f"\nPhysioNet deid dev: {len(docs)} notes ({n_caps} ALL-CAPS, {len(docs) - n_caps} mixed-case)\n")
    print_table(rows, COLUMNS)
    for group in ("ALL-CAPS", "mixed-case"):
        print(f"\n{group} notes:")
        print_table([{"tool": r["tool"], **r[group]} for r in rows], COLUMNS[:-1])
    print("\nper-type token recall:")
    labels = sorted({k for r in rows for k in r["per_type_recall"]})
    print_table([{"tool": r["tool"], **r["per_type_recall"]} for r in rows], ["tool", *labels])
    suffix = f"_{args.patients}patients" if args.patients else ""
    write_results(f"detection_clinical{suffix}", {"notes": len(docs), "all_caps_notes": n_caps, "rows": rows})


if __name__ == "__main__":
    main()
