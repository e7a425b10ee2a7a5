"""Checks of the NDD metric with the offline default LM (smollm2-135m, causal adaptation), in two
configurations: the library default (KL, weights mu^distance, mu = 0.9) and the paper's STS-B setup
(section 5.1.1: Hellinger distance, mean pooling of the neighbours).

1. Synonym vs antonym replacements: mean NDD(synonym) < mean NDD(antonym). Set A was written in the first
   session; set B in a later one, before any NDD was computed on it, to these rules: the word sits in the
   first half of the sentence (the causal adaptation sees only the right context), synonym and antonym are
   single words of the same part of speech and sense that fit the sentence grammatically. Set A breaks that
   rule in three rows ("went higher sharply", "arrived ahead for", "very profound"); it is kept unchanged.
2. STS-B test pairs whose word-level longest common subsequence covers >= 80% of the shorter sentence (the
   paper's "initial test"): the edit is the span between the pair's common prefix and suffix of word and
   punctuation tokens; Pearson correlation of -NDD with the gold score, beside MiniLM cosine similarity on
   the same pairs (paper, RoBERTa: NDD 24.0 vs SC 20.8, Pearson x 100).
Usage: python benchmarks/ndd_checks.py [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import data_path, print_table, write_results
from scipy.stats import pearsonr

from deid_hf.detect.pfilter import split_words
from deid_hf.evaluation.similarity import SentenceEncoder
from deid_hf.models import load_causal_lm
from deid_hf.ndd import NDD

# (sentence with {} for the word, original, synonym, antonym)
SET_A = [
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
SET_B = [
    ("The hotel staff were {} to us during our whole stay in the city.", "kind", "friendly", "rude"),
    ("My grandfather is still very {} and walks five miles every morning.", "healthy", "fit", "sick"),
    ("The new phone is {} and fits easily into any pocket.", "tiny", "small", "huge"),
    ("The water in the lake was {} and we could see the fish below.", "clear", "transparent", "murky"),
    ("The lecture was {} and many students fell asleep before the end.", "boring", "dull", "exciting"),
    ("He always speaks {} in meetings, so nobody misunderstands him.", "clearly", "plainly", "vaguely"),
    ("The restaurant was {} tonight, and we waited an hour for a table.", "crowded", "busy", "empty"),
    ("The city streets are {} at night, so people walk home without fear.", "safe", "secure", "dangerous"),
    (
        "The exam results were {}, and the whole class celebrated together.",
        "excellent",
        "outstanding",
        "terrible",
    ),
    ("Our neighbours are very {} and often invite us over for dinner.", "generous", "kind", "stingy"),
    ("The baby was {} all night, so the parents finally got some sleep.", "quiet", "calm", "noisy"),
    ("The path up the mountain is {}, so even small children can climb it.", "gentle", "easy", "steep"),
    ("I always {} my keys when I come home late at night.", "lose", "misplace", "find"),
    ("The company will {} more workers next year because sales are growing.", "hire", "employ", "fire"),
    ("The weather was {} all week, so we stayed at the beach every day.", "warm", "mild", "freezing"),
    ("The bread is {} because it was baked only an hour ago.", "fresh", "new", "stale"),
    ("The shop assistant was {} and answered all of our questions.", "helpful", "useful", "unhelpful"),
    ("The road was {} after the rain, and several cars slid off it.", "slippery", "slick", "dry"),
    ("His answer was {} and the teacher gave him full marks.", "correct", "right", "wrong"),
    ("The children were {} to see the circus arrive in their town.", "excited", "thrilled", "bored"),
    ("The box is {}, so one person can carry it up the stairs.", "light", "lightweight", "heavy"),
    (
        "The museum was {} yesterday, so we could see every painting without waiting.",
        "empty",
        "quiet",
        "packed",
    ),
    ("The doctor said the wound is {} and will not leave a scar.", "minor", "small", "serious"),
    ("The factory {} its production last year to meet the growing demand.", "increased", "raised", "reduced"),
    ("The old man was {} and gave all his money to the local school.", "rich", "wealthy", "poor"),
]
CONFIGS = {
    "default (KL, mu^d)": {"divergence": "kl", "weights": "distance"},
    "paper STS (Hellinger, mean)": {"divergence": "hellinger", "weights": "mean"},
}


def common_edit(a: str, b: str) -> tuple[int, int, str] | None:
    """(start, end) in a and the replacement from b between their common prefix and suffix of word and
    punctuation tokens (so a changed last word keeps its full stop as an unedited neighbour). The edit runs
    from the end of the common prefix to the start of the common suffix, whitespace included, so that
    a[:start] + replacement + a[end:] is b."""
    ta, tb = split_words(a), split_words(b)
    words_a, words_b = [a[s:e] for s, e, _ in ta], [b[s:e] for s, e, _ in tb]
    p = 0
    while p < min(len(ta), len(tb)) and words_a[p] == words_b[p]:
        p += 1
    if p == len(ta) == len(tb):
        return None
    s = 0
    while s < min(len(ta), len(tb)) - p and words_a[-1 - s] == words_b[-1 - s]:
        s += 1
    start_a, start_b = (ta[p - 1][1], tb[p - 1][1]) if p else (0, 0)
    end_a, end_b = (ta[len(ta) - s][0], tb[len(tb) - s][0]) if s else (len(a), len(b))
    return start_a, end_a, b[start_b:end_b]


def lcs_ratio(a: str, b: str) -> float:
    wa, wb = a.split(), b.split()
    dp = [[0] * (len(wb) + 1) for _ in range(len(wa) + 1)]
    for i, x in enumerate(wa):
        for j, y in enumerate(wb):
            dp[i + 1][j + 1] = dp[i][j] + 1 if x == y else max(dp[i][j + 1], dp[i + 1][j])
    return dp[-1][-1] / min(len(wa), len(wb))


def synonym_antonym(scorers: dict[str, NDD]) -> tuple[list[dict], list[dict]]:
    rows, summary = [], []
    for set_name, sentences in (("A", SET_A), ("B", SET_B)):
        for template, original, synonym, antonym in sentences:
            text = template.format(original)
            start = template.index("{}")
            row = {
                "set": set_name,
                "sentence": template.format(f"[{original}]")[:44],
                "synonym": synonym,
                "antonym": antonym,
            }
            for config, ndd in scorers.items():
                row[f"{config}: syn"], row[f"{config}: ant"] = ndd.batch(
                    text, start, start + len(original), [synonym, antonym]
                )
            rows.append(row)
    for config in scorers:
        for set_name in ("A", "B", "A+B"):
            chosen = [r for r in rows if r["set"] in set_name.split("+")]
            syn = statistics.mean(r[f"{config}: syn"] for r in chosen)
            ant = statistics.mean(r[f"{config}: ant"] for r in chosen)
            wins = sum(r[f"{config}: syn"] < r[f"{config}: ant"] for r in chosen)
            # the paper's Syn-Ant column: Pearson of -NDD with the label (1 synonym, 0 antonym) over all pairs
            labelled = [(-r[f"{config}: syn"], 1) for r in chosen] + [
                (-r[f"{config}: ant"], 0) for r in chosen
            ]
            summary.append(
                {
                    "config": config,
                    "set": set_name,
                    "mean_ndd_synonym": syn,
                    "mean_ndd_antonym": ant,
                    "synonym_lower": f"{wins}/{len(chosen)}",
                    "holds": syn < ant,
                    "pearson_x100": 100 * pearsonr(*zip(*labelled))[0],
                }
            )
    return rows, summary


def stsb_pearson(scorers: dict[str, NDD], limit: int | None) -> tuple[list[dict], int]:
    pairs = []
    for line in data_path("stsbenchmark/sts-test.csv").read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 7 and lcs_ratio(cols[5], cols[6]) >= 0.8:
            pairs.append((float(cols[4]), cols[5], cols[6]))
    pairs = pairs[:limit] if limit else pairs
    gold = [g for g, _, _ in pairs]
    edits = [common_edit(a, b) for _, a, b in pairs]
    # diagnostic subset: the causal adaptation sees only the right context, so a sentence-final edit has
    # nothing but punctuation to compare; these are the pairs with >= 3 words right of the edit
    right_context = [
        i for i, ((_, a, _), e) in enumerate(zip(pairs, edits)) if e and len(a[e[1] :].split()) >= 3
    ]
    rows = []
    for config, ndd in scorers.items():
        start_time = time.perf_counter()
        neg_ndd = [0.0 if edit is None else -ndd(a, *edit) for (_, a, _), edit in zip(pairs, edits)]
        seconds = time.perf_counter() - start_time
        rows.append(
            {
                "measure": f"-NDD smollm2-135m, {config}",
                "pairs": len(pairs),
                "pearson_x100": 100 * pearsonr(neg_ndd, gold)[0],
                "pairs_per_s": len(pairs) / seconds,
            }
        )
        rows.append(
            {
                "measure": "  same, >= 3 words right of the edit",
                "pairs": len(right_context),
                "pearson_x100": 100
                * pearsonr([neg_ndd[i] for i in right_context], [gold[i] for i in right_context])[0],
            }
        )
    cosine = SentenceEncoder().cosine([a for _, a, _ in pairs], [b for _, _, b in pairs])
    rows += [
        {
            "measure": "MiniLM cosine (baseline, same pairs)",
            "pairs": len(pairs),
            "pearson_x100": 100 * pearsonr(cosine, gold)[0],
        },
        {
            "measure": "  same, >= 3 words right of the edit",
            "pairs": len(right_context),
            "pearson_x100": 100
            * pearsonr([cosine[i] for i in right_context], [gold[i] for i in right_context])[0],
        },
        {"measure": "paper: NDD (RoBERTa, Hellinger, mean)", "pearson_x100": 24.0},
        {"measure": "paper: sentence cosine", "pearson_x100": 20.8},
    ]
    return rows, len(pairs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    model, tokenizer = load_causal_lm("smollm2-135m")
    scorers = {config: NDD(model, tokenizer, **options) for config, options in CONFIGS.items()}

    rows, summary = synonym_antonym(scorers)
    print_table(
        rows,
        ["set", "sentence", "synonym", "antonym", *(f"{c}: {x}" for c in CONFIGS for x in ("syn", "ant"))],
    )
    print()
    print_table(
        summary,
        ["config", "set", "mean_ndd_synonym", "mean_ndd_antonym", "synonym_lower", "holds", "pearson_x100"],
    )
    print("(pearson_x100: -NDD vs label 1 synonym / 0 antonym, the paper's Syn-Ant column: NDD 19.1, SC 7.8)")
    sts, n = stsb_pearson(scorers, args.limit)
    print(f"\nSTS-B test, {n} pairs with LCS >= 80% of the shorter sentence\n")
    print_table(sts, ["measure", "pairs", "pearson_x100", "pairs_per_s"])
    write_results("ndd_checks", {"synonym_antonym": rows, "summary": summary, "stsb_pairs": n, "stsb": sts})


if __name__ == "__main__":
    main()
