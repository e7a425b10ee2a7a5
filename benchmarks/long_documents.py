"""Long documents: characters/s of the `fast` detector (through `deid-substitution`, typed placeholders)
beside Presidio's AnalyzerEngine (spaCy en_core_web_sm), same process, same texts.

Texts are presidio_synth_pii records (synthetic PII in realistic sentences) concatenated to 10,000, 100,000
and 1,000,000 characters, in two shapes: one line (newlines replaced by spaces) and paragraphs (records
separated by blank lines). Linear time means characters/s stays flat as the size grows. Presidio refuses
texts over spaCy's ``nlp.max_length`` (1,000,000 characters); a tool that fails is listed with its error.
Usage: python benchmarks/long_documents.py [--sizes 10000,100000,1000000] [--shapes line,paragraphs]
"""

from __future__ import annotations

import argparse
import time

from _common import data_path, print_table, write_results

import deid_hf
from deid_hf.evaluation.detection import load_gold


def build_text(records: list[str], size: int, shape: str) -> str:
    sep = "\n\n" if shape == "paragraphs" else " "
    parts, length, i = [], 0, 0
    while length < size:
        text = records[i % len(records)]
        text = text if shape == "paragraphs" else " ".join(text.split())
        parts.append(text)
        length += len(text) + len(sep)
        i += 1
    return sep.join(parts)[:size]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--shapes", default="line,paragraphs")
    parser.add_argument("--tools", default="fast,presidio")
    args = parser.parse_args()
    records = [d.text for d in load_gold(data_path("presidio_synth_pii/synth_dataset_v2.json"))]
    tools = {}
    if "fast" in args.tools:
        pipe = deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed")
        pipe(records[0])  # warm-up
        tools["deid-hf fast"] = lambda text: len(pipe(text)["spans"])
    if "presidio" in args.tools:
        from detection import presidio_analyzer

        analyzer = presidio_analyzer()
        analyzer.analyze(records[0], language="en")  # warm-up
        tools["Presidio 2.2.366 + spaCy sm"] = lambda text: len(analyzer.analyze(text, language="en"))
    rows = []
    for shape in args.shapes.split(","):
        for size in map(int, args.sizes.split(",")):
            text = build_text(records, size, shape)
            for name, run in tools.items():
                start = time.perf_counter()
                try:
                    spans, error = run(text), None
                except Exception as exc:  # noqa: BLE001 - reported in the table
                    spans, error = None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
                seconds = time.perf_counter() - start
                row = {
                    "tool": name,
                    "shape": shape,
                    "chars": len(text),
                    "seconds": seconds,
                    "chars_per_s": None if error else len(text) / seconds,
                    "spans": spans,
                    "error": error,
                }
                rows.append(row)
                print_table([row], list(row))
    print()
    print_table(rows, ["tool", "shape", "chars", "seconds", "chars_per_s", "spans", "error"])
    write_results("long_documents", {"rows": rows})


if __name__ == "__main__":
    main()
