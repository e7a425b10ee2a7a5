"""Checks of the NDD metric with the offline default LM (smollm2-135m, causal adaptation).

1. Synonym vs antonym replacements in sentences written for this check: mean NDD(synonym) < mean NDD(antonym).
2. STS-B test pairs whose word-level longest common subsequence covers >= 80% of the shorter sentence (the
   paper's "initial test"): the edit is the span between the pair's common word prefix and suffix;
   Pearson correlation of -NDD with the gold score, beside MiniLM cosine similarity on the same pairs
   (paper, RoBERTa-large: NDD 24.0 vs SC 20.8, Pearson x 100).
Usage: python benchmarks/ndd_checks.py [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import data_path, print_table, write_results
from scipy.stats import pearsonr

from deid_hf.evaluation.similarity import SentenceEncoder
from deid_hf.models import load_causal_lm
from deid_hf.ndd import NDD

# (sentence with {} for the word, original, synonym, antonym)
SYNONYM_ANTONYM = [
    ("The movie was really {} and everyone left the theatre smiling.", "good", "great", "bad"),
    ("She felt {} after hearing the news from her sister.", "happy", "glad", "sad"),
    ("The soup is too {} to eat right now, so let it cool.", "hot", "warm", "cold"),
    ("He is a very {} runner and wins most of his races.", "fast", "quick", "slow"),
    ("The old bridge was {} enough for the heavy trucks to cross.", "strong", "sturdy", "weak"),
    ("Prices went {} sharply last month, so shoppers spent more.", "up", "higher", "down"),
    ("The room was {} and quiet, perfect for studying all night.", "large", "big", "small"),
    ("Our team will {} the final match if we keep playing like this.", "win", "take", "lose"),
    ("The test was {} and most students finished it early.", "easy", "simple", "hard"),
    ("It was a {} morning with sunshine over the whole valley.", "bright", "sunny", "dark"),
    ("The manager was {} with the results and praised the staff.", "pleased", "satisfied", "disappointed"),
    ("Please {} the door when you arrive at the office.", "open", "unlock", "close"),
    ("The store is {} on Sundays, so we shop there every weekend.", "open", "available", "closed"),
    ("The river is very {} here, so swimming is dangerous.", "deep", "profound", "shallow"),
    ("The patient's condition is {} and the doctors are hopeful.", "improving", "recovering", "worsening"),
    ("They arrived {} for the meeting and had time for coffee.", "early", "ahead", "late"),
]


def common_edit(a: str, b: str) -> tuple[int, int, str] | None:
    """(start, end) in a and the replacement from b between their common word prefix and suffix."""
    wa, wb = a.split(), b.split()
    p = 0
    while p < min(len(wa), len(wb)) and wa[p] == wb[p]:
        p += 1
    s = 0
    while s < min(len(wa), len(wb)) - p and wa[-1 - s] == wb[-1 - s]:
        s += 1
    if p == len(wa) and p == len(wb):
        return None
    starts, pos = [], 0
    for word in wa:
        pos = a.index(word, pos)
        starts.append(pos)
        pos += len(word)
    start = starts[p] if p < len(wa) else len(a)
    # a pure insertion (nothing of a differs) is an empty edit at the first differing position
    end = starts[len(wa) - s - 1] + len(wa[len(wa) - s - 1]) if len(wa) - s > p else start
    return start, end, " ".join(wb[p:len(wb) - s])


def lcs_ratio(a: str, b: str) -> float:
    wa, wb = a.split(), b.split()
    dp = [[0] * (len(wb) + 1) for _ in range(len(wa) + 1)]
    for i, x in enumerate(wa):
        for j, y in enumerate(wb):
            dp[i + 1][j + 1] = dp[i][j] + 1 if x == y else max(dp[i][j + 1], dp[i + 1][j])
    return dp[-1][-1] / min(len(wa), len(wb))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    model, tokenizer = load_causal_lm("smollm2-135m")
    ndd = NDD(model, tokenizer)

    rows = []
    for template, original, synonym, antonym in SYNONYM_ANTONYM:
        text = template.format(original)
        start = template.index("{}")
        syn, ant = ndd.batch(text, start, start + len(original), [synonym, antonym])
        rows.append({"sentence": template.format(f"[{original}]")[:48], "synonym": synonym, "ndd_syn": syn,
                     "antonym": antonym, "ndd_ant": ant})
    print_table(rows, ["sentence", "synonym", "ndd_syn", "antonym", "ndd_ant"])
    mean_syn = statistics.mean(r["ndd_syn"] for r in rows)
    mean_ant = statistics.mean(r["ndd_ant"] for r in rows)
    wins = sum(r["ndd_syn"] < r["ndd_ant"] for r in rows)
    print(f"\nmean NDD synonym {mean_syn:.3f} vs antonym {mean_ant:.3f}; synonym lower in {wins}/{len(rows)}\n")

    pairs = []
    for line in data_path("stsbenchmark/sts-test.csv").read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 7 and lcs_ratio(cols[5], cols[6]) >= 0.8:
            pairs.append((float(cols[4]), cols[5], cols[6]))
    pairs = pairs[:args.limit] if args.limit else pairs
    start_time = time.perf_counter()
    neg_ndd = []
    for _, a, b in pairs:
        edit = common_edit(a, b)
        neg_ndd.append(0.0 if edit is None else -ndd(a, *edit))
    seconds = time.perf_counter() - start_time
    gold = [g for g, _, _ in pairs]
    cosine = SentenceEncoder().cosine([a for _, a, _ in pairs], [b for _, _, b in pairs])
    r_ndd, r_cos = pearsonr(neg_ndd, gold)[0], pearsonr(cosine, gold)[0]
    sts = [{"measure": "-NDD (smollm2-135m, causal)", "pearson_x100": 100 * r_ndd},
           {"measure": "MiniLM cosine (baseline, same pairs)", "pearson_x100": 100 * r_cos},
           {"measure": "paper: NDD (RoBERTa-large)", "pearson_x100": 24.0},
           {"measure": "paper: sentence cosine", "pearson_x100": 20.8}]
    print(f"STS-B test, {len(pairs)} pairs with LCS >= 80% of the shorter sentence "
          f"({len(pairs) / seconds:.1f} pairs/s for NDD)\n")
    print_table(sts, ["measure", "pearson_x100"])
    write_results("ndd_checks", {"synonym_antonym": rows, "mean_ndd_synonym": mean_syn,
                                 "mean_ndd_antonym": mean_ant, "synonym_lower": wins, "stsb_pairs": len(pairs),
                                 "stsb": sts})


if __name__ == "__main__":
    main()
