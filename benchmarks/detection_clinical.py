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
With ``--learned DIR [DIR ...]`` (`deid-hf train-detector` folders, each trained with one patient fold held
out) rows of the learned model on ONNX Runtime int8 alone, in `clinical` and in `default` (patterns + spaCy +
learned) are added, and only the notes of the folds held out by those folders are measured, each note by
the model that never saw its patient (patient-level cross-validation when the folders cover all 5 folds).
Without them those rows are left out (the cached default model was trained on most dev patients). A folder
with recorded outputs (a shell of `benchmarks/device_training.py`, trained on a GPU machine) is read by
`recorded_model.RecordedDetector`: its fp32 outputs recorded there, the rest of the detector as here.
``--fold K`` measures only the patients of dev fold K (with ``--learned``: by the one folder that held K out
or sealed it). ``--no-fit`` measures the plain pipeline call (no corpus statistics fitted on the notes).
``--lines`` de-identifies each non-blank line of a note as a text of its own (as a user who sends a note
line by line, or a table of short entries), and scores the notes put back together.
Usage: python benchmarks/detection_clinical.py [--patients N | --fold K] [--learned DIR ...] [--no-fit]
    [--lines] [--skip ROW ...] [--only ROW ...] [--tag TAG]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from types import SimpleNamespace

from _common import data_path, print_table, write_results
from recorded_model import RecordedDetector, is_recorded

import deid_hf
from deid_hf.corpora import patient_folds
from deid_hf.detect import CLINICAL_DETECTORS, DEFAULT_DETECTORS, get_detector
from deid_hf.detect.base import Detector
from deid_hf.detect.casing import CAPS_SHARE, caps_share
from deid_hf.detect.lexicon import Vocabulary
from deid_hf.detect.ner import TokenClassificationDetector
from deid_hf.detect.policy import IdentifierPolicyDetector
from deid_hf.evaluation.detection import detection_report, load_gold
from deid_hf.models import TRAINING_FILE
from deid_hf.text import model_text

COLUMNS = [
    "tool",
    "token_precision",
    "token_recall",
    "token_f1",
    "entities_fully_protected",
    "leakage",
    "notes_per_s",
]


def left_out_folds(folder: str) -> tuple[int, int | None]:
    """(held-out fold, sealed fold or None) of a train-detector folder (its deid_hf_training.json): the
    patient folds it never trained on."""
    config = json.loads((Path(folder) / TRAINING_FILE).read_text())["config"]
    if config["held_out_fold"] is None:
        raise SystemExit(f"{folder} was trained on every patient: no held-out fold to measure it on")
    return config["held_out_fold"], config.get("sealed_fold")


def learned_folders(folders: list[str], fold: int | None) -> dict[int, str]:
    """{measured fold: folder}: each folder on the fold it held out, or every folder that left ``fold`` out
    on that fold (a model tuned on its held-out fold, measured once on its sealed fold)."""
    if fold is None:
        return {left_out_folds(f)[0]: f for f in folders}
    chosen = [f for f in folders if fold in left_out_folds(f)]
    if len(chosen) != 1:
        raise SystemExit(f"--fold {fold} needs exactly one --learned folder that never trained on it")
    return {fold: chosen[0]}


def fold_vocabulary(models) -> Vocabulary:
    """The corpus vocabulary the policy reads with fold models: the words every model's training corpora
    share (one model: its own), so that none comes from a measured fold's notes; empty if a model has none
    (never the shipped model's, which saw every dev note)."""
    vocabularies = [m.vocabulary for m in models]
    if any(v is None for v in vocabularies):
        print("a --learned folder has no corpus vocabulary: the policy reads none")
        return Vocabulary(frozenset(), frozenset())
    return Vocabulary(
        frozenset.intersection(*(v.words for v in vocabularies)),
        frozenset.intersection(*(v.common_nouns for v in vocabularies)),
    )


class FoldRouter(Detector):
    """Each note detected by the model of its patient's fold (a model that never saw that patient)."""

    name = "token-classification"

    def __init__(self, by_fold: dict, note_fold: dict):
        self.by_fold = by_fold
        # the pipeline's detectors read a note as the models see it (`text.model_text`)
        self.note_fold = note_fold | {model_text(text): fold for text, fold in note_fold.items()}
        self.trained_policy = {m.trained_policy for m in by_fold.values()}.pop()
        self.vocabulary = fold_vocabulary(by_fold.values())

    def detect(self, text):
        return self.detect_batch([text])[0]

    def detect_batch(self, texts):
        return self.detect_with_support(texts)[0]

    def detect_with_support(self, texts):
        """Each fold model's spans and support (`TokenClassificationDetector.detect_with_support`)."""
        out, support = [None] * len(texts), [None] * len(texts)
        for fold, model in self.by_fold.items():
            idx = [i for i, t in enumerate(texts) if self.note_fold[t] == fold]
            found, extra = model.detect_with_support([texts[i] for i in idx])
            for i, spans, more in zip(idx, found, extra):
                out[i], support[i] = spans, more
        return out, support


#: a non-blank line of a note (``--lines``)
LINE = re.compile(r"[^\n]*\S[^\n]*")


def by_line(deidentify):
    """``deidentify`` (texts -> pipeline results) applied to each non-blank line of the texts alone; the
    results put back together per text (spans at the text's offsets, the lines' outputs in its text)."""

    def run(texts):
        lines = [(i, m.start(), m.group()) for i, text in enumerate(texts) for m in LINE.finditer(text)]
        found = deidentify([line for _, _, line in lines])
        spans, outputs, at = [[] for _ in texts], [[] for _ in texts], [0] * len(texts)
        for (i, start, line), result in zip(lines, found):
            spans[i] += [{**s, "start": s["start"] + start, "end": s["end"] + start} for s in result["spans"]]
            outputs[i] += [texts[i][at[i] : start], result["text"]]
            at[i] = start + len(line)
        return [
            {"spans": found_spans, "text": "".join(parts) + text[end:]}
            for text, found_spans, parts, end in zip(texts, spans, outputs, at)
        ]

    return run


def spans_by_line(detect):
    """``detect`` (documents -> spans) applied to each non-blank line of the documents alone."""

    def run(docs):
        out = []
        for doc in docs:
            lines = list(LINE.finditer(doc.text))
            found = detect([SimpleNamespace(text=m.group()) for m in lines])
            out.append(
                [
                    (s + m.start(), e + m.start(), *rest)
                    for m, spans in zip(lines, found)
                    for s, e, *rest in spans
                ]
            )
        return out

    return run


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
    parser.add_argument("--fold", type=int, default=None, help="only the patients of this fold (of 5)")
    parser.add_argument(
        "--learned", nargs="*", default=None, help="train-detector folders (one per held-out fold)"
    )
    parser.add_argument("--skip", nargs="*", default=[], help="row names to leave out (e.g. 'zsts strict')")
    parser.add_argument("--only", nargs="*", default=None, help="only these rows ('presidio' for Presidio)")
    parser.add_argument(
        "--no-fit",
        action="store_true",
        help="the plain pipeline call: no corpus statistics fitted on the measured notes",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="each non-blank line of a note de-identified as a text of its own",
    )
    parser.add_argument(
        "--tag", default="", help="appended to the results file name (e.g. the models' recipe)"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="the --learned models' operating point: an entity when p(e) / (p(e) + p(O)) >= T "
        "for its best label e (default: each folder's own)",
    )
    parser.add_argument(
        "--ensemble",
        nargs="*",
        default=[],
        help="extra hipaa rows, each a detector set written with '|' "
        "(e.g. 'patterns|spacy:LOCATION+ORG|learned'; 'learned' is the --learned folders)",
    )
    args = parser.parse_args()
    path = data_path("physionet_deid_dev/notes.jsonl")
    docs = load_gold(path, text_field="text")
    patients = [json.loads(line)["patient"] for line in path.read_text().splitlines() if line.strip()]
    if args.patients:
        chosen = set(sorted(set(patients))[: args.patients])
        docs = [d for d, p in zip(docs, patients) if p in chosen]
    folders = learned_folders(args.learned or [], args.fold)
    if args.fold is not None or folders:
        groups_ = [f"patient-{p}" for p in patients]  # the training documents' groups
        fold_of = patient_folds(groups_, 5, seed=0)
        wanted = {args.fold} if args.fold is not None else set(folders)
        docs = [d for d, g in zip(docs, groups_) if fold_of[g] in wanted]
        note_fold = {d.text: fold_of[g] for d, g in zip(load_gold(path, text_field="text"), groups_)}
        if args.lines:  # a line written alike in notes of two measured folds goes to one of their models
            note_fold |= {m.group(): note_fold[d.text] for d in docs for m in LINE.finditer(d.text)}
    skip = lambda name: name in args.skip or (args.only is not None and name not in args.only)  # noqa: E731
    texts = [d.text for d in docs]
    groups = {
        "all": lambda d: True,
        "ALL-CAPS": lambda d: caps_share(d.text) >= CAPS_SHARE,
        "mixed-case": lambda d: caps_share(d.text) < CAPS_SHARE,
    }

    rows = []
    if not skip("presidio"):
        from detection import presidio_rows

        detect, replace = presidio_rows()
        detect = spans_by_line(detect) if args.lines else detect
        rows.append(measure("Presidio 2.2.366 + spaCy sm", docs, detect, replace, groups))

    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity")
    configurations = {
        "patterns strict": ("patterns", "strict", {}),
        "spacy strict": ("spacy", "strict", {}),
        "fast strict": ("fast", "strict", {}),
        "zsts strict": ("zsts", "strict", {}),
        "patterns hipaa": ("patterns", "hipaa", {}),
        "spacy hipaa": ("spacy", "hipaa", {}),
        "fast hipaa": ("fast", "hipaa", {}),
        "fast hipaa, no case restoration": ("fast", "hipaa", {"restore_case": False}),
        "fast hipaa, no context rules": ("fast", "hipaa", {"context": False}),
        "fast hipaa, no corpus statistics": ("fast", "hipaa", {"corpus_vocabulary": False}),
        "zsts hipaa": ("zsts", "hipaa", {}),
    }
    if folders:  # the learned rows, "default" included, read each note with the model that never saw it
        learned = FoldRouter(
            {
                k: RecordedDetector(f, args.threshold)
                if is_recorded(f)  # a fold model trained on a GPU machine (device_training.py)
                else TokenClassificationDetector(f, backend="onnx", int8=True, threshold=args.threshold)
                for k, f in folders.items()
            },
            note_fold,
        )
        configurations["learned int8 hipaa"] = (learned, "hipaa", {})
        clinical = [learned if name == "learned" else name for name in CLINICAL_DETECTORS]
        configurations["clinical (patterns + spacy places + learned int8) hipaa"] = (clinical, "hipaa", {})
        default = [learned if name == "learned" else name for name in DEFAULT_DETECTORS]
        configurations["default (patterns + spacy + learned int8) strict"] = (default, "strict", {})
        configurations["default (patterns + spacy + learned int8) hipaa"] = (default, "hipaa", {})
        for spec in args.ensemble:
            parts = [learned if name == "learned" else name for name in spec.split("|")]
            configurations[f"{spec.replace('|', ' + ')} hipaa"] = (parts, "hipaa", {})
    else:
        print("no --learned folders: the rows with the learned model (default, clinical) are left out")

    def deidentify(texts):
        return pipe(texts, seed=0, batch_size=32, errors="raise")  # a failed record is no miss

    deidentify = by_line(deidentify) if args.lines else deidentify
    for name, (spec, policy, ablation) in configurations.items():
        if skip(name):
            continue
        detector = get_detector(spec, pipe.model, pipe.tokenizer, policy=policy)
        if ablation:
            detector = IdentifierPolicyDetector(
                get_detector(spec, pipe.model, pipe.tokenizer), policy, **ablation
            )
        if isinstance(detector, IdentifierPolicyDetector) and detector.corpus_vocabulary and not args.no_fit:
            detector.fit(texts)
        pipe.detector = detector
        results = {}

        def run(ds, results=results):
            found = deidentify([d.text for d in ds])
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
    suffix = (
        f"_{args.patients}patients" if args.patients else f"_fold{args.fold}" if args.fold is not None else ""
    )
    suffix += f"_learned{''.join(map(str, sorted(folders)))}" if folders else ""
    suffix += "_lines" if args.lines else ""
    suffix += f"_{args.tag}" if args.tag else ""
    write_results(f"detection_clinical{suffix}", {"notes": len(docs), "all_caps_notes": n_caps, "rows": rows})


if __name__ == "__main__":
    main()
