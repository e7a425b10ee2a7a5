"""Validate `deid-hf audit`: canary recall against gold recall, and the re-identification attack on the
PhysioNet dev notes (issue 38).

Canary validation, per detector: presidio_synth_pii records 0-749 (developed on) and 750-1499, and the dev
notes of the patients outside the sealed fold (developed on) and of all patients (fold 4 is measured in
aggregate only: no example or error listing is printed). Gold recall is EVALUATION.md's token recall,
over every gold type and over the gold types the canaries imitate. Re-identification: the TF-IDF attack on
every note of the dev notes, original text and each strategy (`deid_hf.audit.reid`).

Detection is cached per detector and text (the pipelines of one detector share it), so the gold pass, the
canary audit's detection pass and every strategy of the attack detect each text once.

``--fold-models DIR0 DIR1 DIR2 DIR3`` (`deid-hf train-detector` folders, DIRk trained without dev fold k)
adds rows of `default` with the model that never saw the patients: fold k's notes by DIRk, each fold's
canary audit on its own sample, and a row over folds 0-3 (gold counts summed; the canary estimates
averaged, weighted by the documents each sampled).

    python benchmarks/audit_validation.py --detectors default,fast --sample 300
    python benchmarks/audit_validation.py --no-reid --detectors default --dev-only --fold-models D0 D1 D2 D3
    python benchmarks/audit_validation.py --no-reid --detectors fast --reference default --locales en_US
    python benchmarks/audit_validation.py --no-reid --sets presidio --policy gdpr
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import data_path, print_table, write_results  # noqa: E402
from deid_hf.audit.canary import CANARY_LABELS, canary_labels  # noqa: E402
from deid_hf.audit.command import PARAPHRASE, paraphrase_documents  # noqa: E402
from deid_hf.audit.recall import run_canary_audit  # noqa: E402
from deid_hf.audit.reid import attackable, run_reid_audit  # noqa: E402
from deid_hf.corpora import (  # noqa: E402
    PHYSIONET_FILE,
    PRESIDIO_FILE,
    PRESIDIO_HELD_OUT,
    PRESIDIO_TUNING,
    SEALED_FOLD,
    note_folds,
    physionet_documents,
    presidio_documents,
)
from deid_hf.detect import DEFAULT_DETECTORS  # noqa: E402
from deid_hf.detect.ner import TokenClassificationDetector  # noqa: E402
from deid_hf.evaluation.detection import DetectionCounts, GoldDocument, GoldSpan  # noqa: E402
from deid_hf.pipelines import pipeline  # noqa: E402
from deid_hf.policies import DEFAULT_POLICY, POLICIES  # noqa: E402
from deid_hf.train.augment import checked_locales  # noqa: E402


def cached_pipeline(cache: dict, detector, **options):
    """A `deid-substitution` pipeline whose detector reads and fills ``cache`` (text -> spans)."""
    pipe = pipeline("deid-substitution", detector=detector, **options)
    detect = pipe.detector.detect_batch

    def detect_batch(texts):
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, detect(missing)))
        return [cache[t] for t in texts]

    pipe.detector.detect_batch = detect_batch
    return pipe


def gold_counts(pipe, docs, batch_size: int = 16) -> list[DetectionCounts]:
    """One `DetectionCounts` per document (EVALUATION.md), so that subsets can be summed."""
    counts = []
    for start in range(0, len(docs), batch_size):
        batch = docs[start : start + batch_size]
        for doc, result in zip(
            batch, pipe([d.text for d in batch], seed=0, batch_size=len(batch), errors="raise")
        ):
            one = DetectionCounts()
            gold = GoldDocument(doc.text, tuple(GoldSpan(*span) for span in doc.spans))
            one.add(gold, [(s["start"], s["end"]) for s in result["spans"] if s["replaced"]], result["text"])
            counts.append(one)
    return counts


def gold_recall(counts: list[DetectionCounts], labels=CANARY_LABELS) -> dict:
    """Token recall over every gold type and over the canary types ``labels``, summed over ``counts``."""
    per_type: dict[str, list[int]] = {}
    for c in counts:
        for label, (total, hit) in c.per_type.items():
            per_type.setdefault(label, [0, 0])
            per_type[label][0] += total
            per_type[label][1] += hit
    tp, fn = sum(c.tp for c in counts), sum(c.fn for c in counts)
    canary_total = sum(per_type.get(label, [0, 0])[0] for label in labels)
    canary_hit = sum(per_type.get(label, [0, 0])[1] for label in labels)
    return {
        "token_recall": tp / (tp + fn) if tp + fn else None,
        "token_recall_canary_types": canary_hit / canary_total if canary_total else None,
        "per_type_recall": {label: hit / total for label, (total, hit) in sorted(per_type.items()) if total},
    }


def evaluation_sets() -> list[tuple[str, list, list[list[int]]]]:
    """(name, documents, [subset name and indices]) of the canary validation."""
    presidio = data_path(PRESIDIO_FILE)
    notes = physionet_documents(data_path(PHYSIONET_FILE))
    folds = note_folds(notes)
    open_notes = [i for i, d in enumerate(notes) if folds[d.group] != SEALED_FOLD]
    return [
        ("presidio 0-749 (dev)", presidio_documents(presidio, PRESIDIO_TUNING), None),
        ("presidio 750-1499", presidio_documents(presidio, PRESIDIO_HELD_OUT), None),
        ("notes, folds 0-3 (dev)", notes, open_notes),
        ("notes, all patients", notes, None),
    ]


def canary_rows(detector: str, caches: dict, args) -> list[dict]:
    """The canary rows of ``detector`` under ``args.policy``; detections cached per detector and policy."""
    pipe = cached_pipeline(caches.setdefault((detector, args.policy), {}), detector, policy=args.policy)
    reference = None
    if args.reference and args.reference != detector:
        cache = caches.setdefault((args.reference, args.policy), {})
        reference = cached_pipeline(cache, args.reference, policy=args.policy)
    rows, counted = [], {}
    for name, docs, subset in evaluation_sets():
        if args.dev_only and "(dev)" not in name:
            continue
        if args.sets != "all" and not name.startswith(args.sets):
            continue
        chosen = subset if subset is not None else range(len(docs))
        known = counted.setdefault(id(docs), {})
        missing = [i for i in chosen if i not in known]
        if missing:
            started = time.time()
            known.update(zip(missing, gold_counts(pipe, [docs[i] for i in missing])))
            print(
                f"[{detector}] gold pass over {len(missing)} documents: {time.time() - started:.0f} s",
                flush=True,
            )
        gold = gold_recall([known[i] for i in chosen], canary_labels(args.policy))
        started = time.time()
        canary = run_canary_audit(
            pipe,
            [docs[i].text for i in chosen],
            sample=args.sample,
            copies=args.copies,
            seed=args.seed,
            locales=args.locales,
            reference=reference,
        )
        print(f"[{detector}] canaries on {name}: {time.time() - started:.0f} s", flush=True)
        rows.append(canary_row(name, detector, len(chosen), gold, canary))
        rows[-1]["reference"] = args.reference if reference is not None else "-"
        rows[-1]["policy"] = args.policy
    return rows


def canary_row(data: str, detector: str, documents: int, gold: dict, canary: dict) -> dict:
    """One row of the canary table: gold recall (`gold_recall`) beside the canary audit's estimate."""
    estimate = canary["estimate"]["token_recall"]
    return {
        "data": data,
        "detector": detector,
        "documents": documents,
        "gold recall": gold["token_recall"],
        "gold recall, canary types": gold["token_recall_canary_types"],
        "canary estimate": estimate,
        "interval": "-".join(f"{v:.3f}" for v in canary["estimate"]["interval"]),
        "in-place": canary["by_kind"]["in_place"]["token_recall"],
        "inserted": canary["by_kind"]["inserted"]["token_recall"],
        "estimate - gold": estimate - gold["token_recall"],
        "gold_per_type": gold["per_type_recall"],
        "canary": canary,
    }


def fold_model_rows(folders: list[str], args) -> list[dict]:
    """`default` on the notes of dev fold k with the model of ``folders[k]`` (trained without fold k):
    one row per fold and one over them all."""
    notes = physionet_documents(data_path(PHYSIONET_FILE))
    folds = note_folds(notes)
    rows, counts, weights = [], [], []
    for k, folder in enumerate(folders):
        if k == SEALED_FOLD:
            raise SystemExit(f"fold {SEALED_FOLD} is sealed: give the models of folds 0-{SEALED_FOLD - 1}")
        model = TokenClassificationDetector(folder, backend="onnx", int8=True)
        detectors = [model if name == "learned" else name for name in DEFAULT_DETECTORS]
        pipe = cached_pipeline({}, detectors, policy=args.policy)
        docs = [d for d in notes if folds[d.group] == k]
        fold_counts = gold_counts(pipe, docs)
        gold = gold_recall(fold_counts, canary_labels(args.policy))
        canary = run_canary_audit(
            pipe,
            [d.text for d in docs],
            sample=args.sample,
            copies=args.copies,
            seed=args.seed,
            locales=args.locales,
        )
        estimate = canary["estimate"]["token_recall"]
        counts += fold_counts
        weights.append((estimate, canary["documents_sampled"]))
        print(f"[fold {k}] gold {gold['token_recall']:.3f}, canary estimate {estimate:.3f}", flush=True)
        rows.append(canary_row(f"notes, fold {k} (dev), its fold model", "default", len(docs), gold, canary))
    gold = gold_recall(counts, canary_labels(args.policy))
    pooled = sum(e * n for e, n in weights) / sum(n for _, n in weights)
    rows.append(
        {
            "data": f"notes, folds 0-{len(folders) - 1} (dev), each by its fold model",
            "detector": "default",
            "documents": len(counts),
            "gold recall": gold["token_recall"],
            "gold recall, canary types": gold["token_recall_canary_types"],
            "canary estimate": pooled,
            "estimate - gold": pooled - gold["token_recall"],
            "gold_per_type": gold["per_type_recall"],
        }
    )
    return rows


def paraphrased_notes(notes, size: int, seed: int, epsilon: float | None) -> list[str | None]:
    """``size`` notes of folds 0-3 whose patient has another note (seeded), paraphrased by the shipped
    paraphraser; ``None`` for the others."""
    folds, people = note_folds(notes), [d.group for d in notes]
    pool = [i for i in attackable(people) if folds[people[i]] != SEALED_FOLD]
    chosen = random.Random(seed).sample(pool, min(size, len(pool)))
    return paraphrase_documents(
        pipeline("deid-paraphrase"),
        [d.text for d in notes],
        chosen,
        seed,
        8,
        lambda done: print(f"[reid] paraphrased {done}/{len(chosen)}", flush=True),
        **({"epsilon": epsilon} if epsilon else {}),
    )


def reid_result(cache: dict, strategies: list[str], seed: int, paraphrase_size: int, epsilon) -> dict:
    """The attack on every dev note, original text and each strategy (the default detector); the
    paraphraser on ``paraphrase_size`` notes of folds 0-3."""
    notes = physionet_documents(data_path(PHYSIONET_FILE))
    texts, people = [d.text for d in notes], [d.group for d in notes]

    def deidentify(strategy: str):
        if strategy == PARAPHRASE:
            return lambda: paraphrased_notes(notes, paraphrase_size, seed, epsilon)
        name, consistent = strategy.removesuffix("+consistent"), strategy.endswith("+consistent")
        pipe = cached_pipeline(
            cache, "default", strategy=name, **({"shared_table": True} if consistent else {})
        )
        inputs = [{"text": t, "group": p} for t, p in zip(texts, people)]
        return lambda: [r["text"] for r in pipe(inputs, seed=seed, batch_size=16)]

    variants = {strategy: deidentify(strategy) for strategy in strategies}
    return run_reid_audit(texts, people, variants, progress=lambda name: print(f"[reid] {name}", flush=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detectors", default="default,fast")
    parser.add_argument("--sample", type=int, default=300, help="documents of each set copied with canaries")
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--locales",
        type=checked_locales,
        default=None,
        help="comma-separated Faker locales of the canary names and places (default: the audit's, many "
        "cultures)",
    )
    parser.add_argument(
        "--strategies", default="redact,typed,full_entity,full_entity+consistent,typed+consistent,paraphrase"
    )
    parser.add_argument("--paraphrase-sample", type=int, default=40, help="notes the paraphraser rewrites")
    parser.add_argument("--epsilon", type=float, default=None, help="paraphraser's epsilon per token")
    parser.add_argument(
        "--reference",
        default=None,
        help="detector of the reference configuration (`deid-hf audit canary --reference`) for the other "
        "detectors' rows",
    )
    parser.add_argument("--no-reid", action="store_true")
    parser.add_argument("--no-canary", action="store_true")
    parser.add_argument("--dev-only", action="store_true", help="canaries on the sets developed on only")
    parser.add_argument("--sets", choices=("all", "presidio", "notes"), default="all", help="canary sets")
    parser.add_argument(
        "--policy",
        choices=[str(p) for p in POLICIES],
        default=str(DEFAULT_POLICY),
        help="identifier policy of the canary rows (the re-identification rows use the default)",
    )
    parser.add_argument("--tag", default="", help="suffix of the results file")
    parser.add_argument(
        "--fold-models", nargs="*", default=None, help="train-detector folders, DIRk without dev fold k"
    )
    args = parser.parse_args()
    caches: dict = {}
    payload = {}
    if not args.no_canary:
        rows = [row for detector in args.detectors.split(",") for row in canary_rows(detector, caches, args)]
        rows += fold_model_rows(args.fold_models, args) if args.fold_models else []
        columns = ["data", "detector", "reference", "policy", "documents", "gold recall"]
        columns.append("gold recall, canary types")
        print_table(
            rows, [*columns, "canary estimate", "interval", "in-place", "inserted", "estimate - gold"]
        )
        payload["canary"] = rows
    if not args.no_reid:
        reid = reid_result(
            caches.setdefault(("default", str(DEFAULT_POLICY)), {}),
            args.strategies.split(","),
            args.seed,
            args.paraphrase_sample,
            args.epsilon,
        )
        k = reid["k"]
        table = [{"text": "chance", "top-1": reid["chance"]["top1"], f"top-{k}": reid["chance"][f"top{k}"]}]
        for name, r in reid["results"].items():
            table.append(
                {"text": name, "documents": r["documents"], "top-1": r["top1"], f"top-{k}": r[f"top{k}"]}
            )
            if same := r.get("original_same_documents"):
                table.append(
                    {
                        "text": "original text, same documents",
                        "documents": same["documents"],
                        "top-1": same["top1"],
                        f"top-{k}": same[f"top{k}"],
                    }
                )
        print_table(table, ["text", "documents", "top-1", f"top-{k}"])
        payload["reid"] = reid
    write_results(f"audit_validation{args.tag}", payload)


if __name__ == "__main__":
    main()
