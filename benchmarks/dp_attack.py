"""Measured lower bounds on the epsilon of the DP paraphraser, beside its nominal epsilon: the
likelihood-ratio distinguishing attack of `deid_hf.audit.dp_attack` between neighbouring synthetic sentences
(one name changed), on the shipped `smollm2-135m-paraphraser`, at several per-token epsilons (what
`deid-hf audit dp` reports).

Usage: python benchmarks/dp_attack.py [--epsilons 1,10,75] [--trials 200] [--max-new-tokens 24]
"""

from __future__ import annotations

import argparse

from _common import print_table, write_results

import deid_hf
from deid_hf.audit.dp_attack import run_dp_audit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="1,10,75", help="per-token epsilons, comma-separated")
    parser.add_argument("--trials", type=int, default=200, help="outputs sampled from each input")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    args = parser.parse_args()
    pipe = deid_hf.pipeline("deid-paraphrase")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    section = run_dp_audit(
        pipe,
        epsilons,
        trials=args.trials,
        max_new_tokens=args.max_new_tokens,
        progress=lambda done, total: print(f"{done}/{total} attacks", flush=True),
    )
    columns = [
        "epsilon_token",
        "pair",
        "epsilon_nominal",
        "epsilon_lower_bound",
        "false_positive_rate",
        "false_negative_rate",
        "largest_ratio_per_token",
    ]
    print_table(section["results"], columns)
    write_results("dp_attack", section)


if __name__ == "__main__":
    main()
