"""p-filter speed: naive per-word masked LM vs the exact batched path vs the fast approximate path on a
realistic-size encoder (MiniLM-L6 with an MLM head), and the causal offline default; documents/s and
words/s in the same run, 2 threads.

The masked LM is the probe of benchmarks/mlm_probe.py (MiniLM fine-tuned as an MLM for a few CPU minutes:
weak, but trained, so the fast path's approximations are measured on real context dependence; an untrained
head gives near-uniform probabilities). Speed does not depend on the weights.
Agreement: token recall and precision (shared/EVALUATION.md) of the exact and the fast path against the
gold spans of presidio records and wikigold sentences (real text), in two slices of ``--agreement-docs``
(the pre-filter's rule was settled looking at the first; the second is held out), at thresholds 1e-1 ... 1e-8.
On 2,000-word documents the naive and exact paths are timed on the first ``--sample-words`` words only
(their cost per word is constant; the whole document would take most of an hour per path on 2 cores).
Usage: python benchmarks/pfilter_speed.py [--docs N] [--agreement-docs N] [--mlm LOCAL_FILL_MASK_CHECKPOINT]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import torch
from _common import data_path, print_table, write_results
from detection_wikigold import wikigold
from mlm_probe import load_probe

from deid_hf.detect.pfilter import CausalWordScorer, MaskedWordScorer, WordScore
from deid_hf.evaluation.detection import DetectionCounts, load_gold
from deid_hf.models import load_causal_lm
from deid_hf.spans import Span

THRESHOLDS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]


def timed(scorer, texts):
    start = time.perf_counter()
    scores = scorer.score_batch(texts)
    seconds = time.perf_counter() - start
    words = sum(1 for doc in scores for w in doc if w.word[0].isalnum())
    return scores, {"docs_per_s": len(texts) / seconds, "words_per_s": words / seconds, "seconds": seconds}


def timed_sample(scorer, text, words):
    """Words/s and word probabilities of a long document's first ``words`` scoreable words. Naive and exact
    cost the same full-window forwards for every word, so their rate does not depend on how many are timed
    (all 2,000 words would take most of an hour per path on 2 cores)."""
    found, ids, owners = scorer._prepare(text, None)
    targets = scorer._targets(text, found, owners)[:words]
    start = time.perf_counter()
    logp = scorer.word_logprobs([(ids, owners, targets)])[0]
    seconds = time.perf_counter() - start
    probabilities = {found[w][0]: math.exp(v) for w, v in logp.items()}
    return probabilities, {"docs_per_s": None, "words_per_s": len(targets) / seconds, "seconds": seconds}


def flagged(scores, threshold):
    return [{w.start for w in doc if w.scored and w.probability < threshold} for doc in scores]


def gold_agreement(mlm, tokenizer, docs) -> list[dict]:
    """Token precision / recall of the exact and the fast path against the gold spans, per threshold."""
    scores = {
        path: MaskedWordScorer(mlm, tokenizer, path=path, batch_size=64).score_batch([d.text for d in docs])
        for path in ("exact", "fast")
    }
    rows = []
    for threshold in THRESHOLDS:
        row = {"threshold": f"{threshold:.0e}"}
        for path, scored in scores.items():
            counts = DetectionCounts()
            for doc, words in zip(docs, scored):
                counts.add(
                    doc,
                    [
                        Span(w.start, w.end, "OTHER", 1.0, "pfilter")
                        for w in words
                        if w.scored and w.probability < threshold
                    ],
                )
            report = counts.report()
            row[f"{path}_precision"], row[f"{path}_recall"] = (
                report["token_precision"],
                report["token_recall"],
            )
        row["recall_diff"] = row["fast_recall"] - row["exact_recall"]
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--agreement-docs", type=int, default=500)
    parser.add_argument(
        "--mlm", help="a local fill-mask checkpoint to use instead of the probe (e.g. bert-base-cased)"
    )
    parser.add_argument("--long-docs", type=int, default=1)
    parser.add_argument(
        "--sample-words",
        type=int,
        default=150,
        help="words timed for the naive and exact paths on long documents",
    )
    args = parser.parse_args()
    torch.set_num_threads(2)
    presidio = load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"))
    short = [d.text for d in presidio[: args.docs]]
    pool = " ".join(d.text.replace("\n", " ") for d in presidio).split()
    long = [" ".join(pool[i * 2000 : (i + 1) * 2000]) for i in range(args.long_docs)]

    if args.mlm:
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        mlm, tokenizer = (
            AutoModelForMaskedLM.from_pretrained(args.mlm).eval(),
            AutoTokenizer.from_pretrained(args.mlm),
        )
        probe = {"model": args.mlm}
    else:
        mlm, tokenizer, probe = load_probe()
    mlm_name = Path(args.mlm).name if args.mlm else "MiniLM-MLM probe"
    causal, causal_tok = load_causal_lm("smollm2-135m")
    rows, results = [], {}
    for corpus, texts in (("presidio (short)", short), ("2,000-word", long)):
        scored = {}
        for path in ("naive", "exact", "fast"):
            scorer = MaskedWordScorer(mlm, tokenizer, path=path, batch_size=64)
            if path != "fast" and corpus != "presidio (short)":
                sample, row = timed_sample(scorer, texts[0], args.sample_words)
                scored[path] = [[WordScore(s, s, "", p, True) for s, p in sample.items()]]
            else:
                scored[path], row = timed(scorer, texts)
            rows.append({"corpus": corpus, "scorer": f"{mlm_name} {path}", **row})
            print(rows[-1], flush=True)
        _, row = timed(CausalWordScorer(causal, causal_tok, batch_size=16), texts)
        rows.append({"corpus": corpus, "scorer": "smollm2-135m causal", **row})
        naive_speed = next(
            r["words_per_s"] for r in rows if r["corpus"] == corpus and r["scorer"].endswith("naive")
        )
        for r in rows:
            if r["corpus"] == corpus:
                r["x_naive"] = r["words_per_s"] / naive_speed
        exact_max = max(
            abs(a.probability - b.probability)
            for da, db in zip(scored["naive"], scored["exact"])
            for a, b in zip(da, db)
        )
        threshold = statistics.median(w.probability for doc in scored["exact"] for w in doc if w.scored)
        sampled = {w.start for doc in scored["exact"] for w in doc}  # long documents: the sampled words only
        fast = [[w for w in doc if w.start in sampled] for doc in scored["fast"]]
        exact_flags, fast_flags = flagged(scored["exact"], threshold), flagged(fast, threshold)
        shared = sum(len(a & b) for a, b in zip(exact_flags, fast_flags))
        recall_of_fast = shared / max(1, sum(len(a) for a in exact_flags))
        results[corpus] = {
            "exact_vs_naive_max_abs_diff": exact_max,
            "threshold": threshold,
            "fast_recall_of_exact_flags": recall_of_fast,
        }
    n = args.agreement_docs
    real = wikigold(2 * n)
    agreement = {
        f"{name} {half}": gold_agreement(mlm, tokenizer, docs[lo : lo + n])
        for name, docs in (("presidio", presidio), ("wikigold", real))
        for half, lo in ((f"0-{n - 1}", 0), (f"{n}-{2 * n - 1}", n))
    }
    print_table(rows, ["corpus", "scorer", "docs_per_s", "words_per_s", "x_naive"])
    print()
    for corpus, r in results.items():
        diff = r["exact_vs_naive_max_abs_diff"]
        print(
            f"{corpus}: exact vs naive max |diff| = {'not run' if diff is None else f'{diff:.2e}'}; "
            f"fast path recovers {r['fast_recall_of_exact_flags']:.3f} of the words the exact path flags "
            f"at p = {r['threshold']:.2e}"
        )
    instrument = (
        f"probe MLM: masked-token top-1 {probe['held_out_sst2_dev']['top1']:.2f}, top-5 "
        f"{probe['held_out_sst2_dev']['top5']:.2f} on SST-2 dev"
        if "held_out_sst2_dev" in probe
        else args.mlm
    )
    columns = ["threshold", "exact_precision", "exact_recall", "fast_precision", "fast_recall", "recall_diff"]
    for name, table in agreement.items():
        print(
            f"\nGold token precision / recall, {name} ({instrument}; wikigold: real text, gold PER/LOC/ORG "
            "only, so precision is understated)\n"
        )
        print_table(table, columns)
    write_results(
        "pfilter_speed", {"rows": rows, "agreement": results, "gold_agreement": agreement, "probe": probe}
    )


if __name__ == "__main__":
    main()
