"""Rule ablation: what each named rule of the hipaa policy (`deid_hf.detect.rules.RULES`) buys, measured by
removing it alone and re-running `default` (patterns + spaCy + learned, hipaa, the plain call: no `fit`).

Sets: the PhysioNet dev notes of one patient fold (``--fold K`` with ``--learned DIR``: a `train-detector`
folder that never trained on fold K, so the learned model reads patients it never saw) and presidio_synth_pii
records 0..N-1 (``--presidio N``, the shipped model, which trained on records 0-749). The detectors run once
per set (their spans are cached); each row re-runs only the policy and the replacement. Rows "detector"
remove one of `default`'s detectors instead. A rule pays for
itself when removing it costs recall (or leakage); one whose removal costs nothing and gains precision is a
candidate to go. Aggregate token metrics only (shared/EVALUATION.md): no span or text is printed.
Usage: python benchmarks/rule_ablation.py --learned DIR --fold K [--presidio N] [--families a,b] [--tag TAG]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json

from _common import data_path, print_table, write_results
from detection_clinical import learned_folders

import deid_hf
import deid_hf.detect.clinical
import deid_hf.detect.policy  # noqa: F401  (registers every rule family)
from deid_hf.corpora import patient_folds
from deid_hf.detect import DEFAULT_DETECTORS, get_detector
from deid_hf.detect.ner import TokenClassificationDetector
from deid_hf.detect.rules import RULES
from deid_hf.evaluation.detection import detection_report, load_gold

COLUMNS = ["removed", "family", "set", "token_precision", "token_recall", "leakage", "dP", "dR", "dLeak"]


def memoized(detector):
    """``detector`` with its spans (and support, `Detector.detect_with_support`) of each text kept, read
    once: an ablation re-runs only what the rules decide."""
    detect_batch = detector.detect_batch
    found = detector.detect_with_support or (lambda texts: (detect_batch(texts), [None] * len(texts)))
    cache = {}

    def cached_pairs(texts):
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, zip(*found(missing))))
        return [list(cache[t][0]) for t in texts], [cache[t][1] for t in texts]

    detector.detect_batch = lambda texts: cached_pairs(texts)[0]  # (``detect`` stays: a base may call it)
    if detector.detect_with_support is not None:
        detector.detect_with_support = cached_pairs
    return detector


def fold_notes(fold: int):
    path = data_path("physionet_deid_dev/notes.jsonl")
    docs = load_gold(path, text_field="text")
    groups = [
        f"patient-{json.loads(line)['patient']}" for line in path.read_text().splitlines() if line.strip()
    ]
    fold_of = patient_folds(groups, 5, seed=0)
    return [d for d, g in zip(docs, groups) if fold_of[g] == fold]


def presidio_records(n: int):
    return load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"))[:n]


def measure(pipe, docs) -> dict:
    found = pipe([d.text for d in docs], seed=0, batch_size=32, errors="raise")
    predictions = [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in found]
    return detection_report(docs, predictions, [r["text"] for r in found])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learned", required=True, help="train-detector folder that never saw --fold")
    parser.add_argument("--fold", type=int, required=True)
    parser.add_argument("--presidio", type=int, default=0, help="also presidio records 0..N-1 (N <= 750)")
    parser.add_argument("--families", default="", help="comma-separated rule families (default: all)")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    folder = learned_folders([args.learned], args.fold)[args.fold]
    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity")
    fold_model = TokenClassificationDetector(folder, backend="onnx", int8=True)
    sets = {f"notes fold {args.fold}": (fold_notes(args.fold), fold_model)}
    if args.presidio:
        sets[f"presidio 0-{min(args.presidio, 750) - 1}"] = (
            presidio_records(min(args.presidio, 750)),
            "learned",
        )
    detectors = {}
    for name, (_, learned) in sets.items():
        spec = [learned if part == "learned" else part for part in DEFAULT_DETECTORS]
        detector = get_detector(spec, pipe.model, pipe.tokenizer, policy="hipaa")
        detector.members = [memoized(member) for member in detector.members]
        detectors[name] = detector
    families = set(filter(None, args.families.split(",")))
    # "outcomes" name what became of a span (kept, no name left), not a rule that decides it
    rules = [r for r in RULES if (not families or r.family in families) and "outcomes" not in r.family]
    ablations = [(None, "", contextlib.nullcontext)]
    ablations += [(rule.name, rule.family, functools.partial(without_rule, rule)) for rule in rules]
    if not families:
        for index, part in enumerate(DEFAULT_DETECTORS):
            ablations.append((part, "detector", functools.partial(without_member, detectors, index)))
    rows, baseline = [], {}
    for removed, family, ablation in ablations:
        with ablation():
            for name, (docs, _) in sets.items():
                pipe.detector = detectors[name]
                report = measure(pipe, docs)
                row = {
                    "removed": removed or "(none: every rule)",
                    "family": family,
                    "set": name,
                    **{k: report[k] for k in ("token_precision", "token_recall", "leakage")},
                }
                if removed is None:
                    baseline[name] = row
                for key, short in (("token_precision", "dP"), ("token_recall", "dR"), ("leakage", "dLeak")):
                    before = baseline[name][key]
                    row[short] = None if row[key] is None or before is None else row[key] - before
                rows.append(row)
        print(f"{rows[-1]['removed']}: done", flush=True)
    print_table(rows, COLUMNS)
    write_results(f"rule_ablation{args.tag}", {"rows": rows, "fold": args.fold, "learned": str(folder)})


@contextlib.contextmanager
def without_rule(rule):
    """`RULES` without ``rule``, then with it back in its place."""
    order = ORDER[rule.family]
    RULES.remove(rule.name)
    try:
        yield
    finally:
        later = [name for name in order[order.index(rule.name) + 1 :] if RULES.find(name) is not None]
        RULES.add(rule, before=later[0] if later else None)


@contextlib.contextmanager
def without_member(detectors: dict, index: int):
    """Every set's `default` without its detector number ``index`` (patterns, spaCy or learned)."""
    kept = {name: detector.members for name, detector in detectors.items()}
    for name, detector in detectors.items():
        detector.members = [m for i, m in enumerate(kept[name]) if i != index]
    try:
        yield
    finally:
        for name, detector in detectors.items():
            detector.members = kept[name]


ORDER = {}


if __name__ == "__main__":
    for _rule in RULES:
        ORDER.setdefault(_rule.family, []).append(_rule.name)
    main()
