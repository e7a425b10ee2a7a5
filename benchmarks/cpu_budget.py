"""The CPU time of each part of `default` alone beside Presidio's analyzer on the same dev notes (issue 36).

On N cores `default`'s wall time is at least the sum of its parts' CPU time over N. Parts: the shipped
model's int8 graph on the batch path's windows, one window per run (1 thread, then the physical cores),
spaCy's entity recogniser and the patterns (``detect_batch``), and Presidio on one thread. Each is the best
of ``--repeats`` runs after a warm-up, on texts numbered afresh (no cache answers them). Folds 0-3 only.

Usage: python benchmarks/cpu_budget.py [--docs 100] [--repeats 2]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import print_table, write_results
from throughput import corpora, presidio_tool


def best_seconds(run, texts: list[str], repeats: int) -> float:
    """The least wall time of ``run`` over ``repeats`` runs, each on the texts numbered afresh."""
    run([f"warm-up {t}" for t in texts[:3]])
    times = []
    for r in range(repeats):
        numbered = [f"{r} {t}" for t in texts]
        start = time.perf_counter()
        run(numbered)
        times.append(time.perf_counter() - start)
    return min(times)


def forward_pass(threads: int | None):
    """The shipped model's int8 graph on each window of the texts, one window per run."""
    import onnxruntime
    from transformers import AutoConfig, AutoTokenizer

    from deid_hf.detect.windows import batch_inputs, tokenised_windows
    from deid_hf.export.onnx import QUANTIZED_FILE, session_options
    from deid_hf.models import model_path

    folder = Path(model_path("deid-detector-minilm"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    session = onnxruntime.InferenceSession(
        str(folder / QUANTIZED_FILE), session_options(threads), providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    stride = AutoConfig.from_pretrained(folder).deid_hf_window["stride"]  # the window the model trained with

    def run(texts: list[str]) -> None:
        for window in tokenised_windows(tokenizer, texts, stride):
            inputs = batch_inputs([window], tokenizer.pad_token_id)
            session.run(None, {k: v for k, v in inputs.items() if k in names})

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    from deid_hf.detect import get_detector
    from deid_hf.export.onnx import physical_cores

    found = corpora(args.docs, 0, 0)
    name = next((k for k in found if "notes" in k.lower()), None)
    if name is None:
        raise SystemExit("the PhysioNet dev notes are absent: this benchmark needs ../shared/data")
    texts = [d.text for d in found[name]]
    cores = physical_cores()
    parts = {
        "forward pass, int8, 1 thread": forward_pass(1),
        f"forward pass, int8, {cores} threads": forward_pass(cores),
        "spaCy entity recogniser": get_detector("spacy").detect_batch,
        "patterns": get_detector("patterns").detect_batch,
        "Presidio analyzer (spaCy sm + recognizers)": presidio_tool(),
    }
    seconds = {part: best_seconds(run, texts, args.repeats) for part, run in parts.items()}
    rows = [{"part": part, "seconds": value} for part, value in seconds.items()]
    #: default's parts on one core each: the forward pass with one thread, spaCy, the patterns
    one_core = sum(
        seconds[part] for part in ("forward pass, int8, 1 thread", "spaCy entity recogniser", "patterns")
    )
    presidio = seconds["Presidio analyzer (spaCy sm + recognizers)"]
    print(f"{len(texts)} documents of {name}")
    print_table(rows, ["part", "seconds"])
    print(
        f"default's parts need {one_core:.2f} CPU-seconds before the policy and the replacement; on "
        f"{cores} cores at best {one_core / cores:.2f} s of wall time, {presidio * cores / one_core:.2f}x "
        "Presidio's"
    )
    write_results(
        "cpu_budget",
        {"documents": len(texts), "corpus": name, "cores": cores, "rows": rows, "cpu_seconds": one_core},
    )


if __name__ == "__main__":
    main()
