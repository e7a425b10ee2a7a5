"""Load time of the offline causal default: cached transformers checkpoint vs loading the GGUF file.

Usage: python benchmarks/model_load.py
"""

from __future__ import annotations

import time

from _common import print_table, write_results

from deid_hf import models


def timed(fn, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    models.model_path("smollm2-135m")  # make sure the conversion exists (not timed)
    gguf = models.package_file(models.REGISTRY["smollm2-135m"])

    def from_gguf():
        from transformers import AutoModelForCausalLM, AutoTokenizer

        AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)

    rows = [
        {"load": "deid-hf cached checkpoint (model + tokenizer)", "seconds": timed(models.load_causal_lm)},
        {"load": "transformers from GGUF (baseline)", "seconds": timed(from_gguf, repeats=1)},
    ]
    print_table(rows, ["load", "seconds"])
    write_results("model_load", {"rows": rows})


if __name__ == "__main__":
    main()
