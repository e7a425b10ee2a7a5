"""Throughput of Presidio, `fast`, `learned` and `default` in one run: docs/s and tokens/s on PhysioNet dev
notes, presidio_synth_pii records and long documents, with token precision / recall beside each row.

Corpora (where ../shared/data has them; a corpus that is absent is skipped): PhysioNet dev notes of folds
0-3 (never the sealed fold 4; the shipped learned model trained on these patients, so its quality here is
not a held-out figure: benchmarks/detection_clinical.py --learned gives cross-validated ones),
presidio_synth_pii records 750-1499 (held out from the learned model's training) and long documents, each
of those records joined by blank lines up to ``--long-chars`` characters (gold spans shifted with them).
deid-hf rows run through ``deid_hf.pipeline("deid-substitution", detector=NAME)`` as users run it
(default policy, replacement included; the replaced spans are the predictions); Presidio 2.2.366 is its
AnalyzerEngine with spaCy en_core_web_sm, every entity (no anonymizer), in the same process on the same
texts. Each tool reads the corpus's first documents once before it is timed (lazy loads are not
measured). tokens/s and P/R: whitespace tokens, label-agnostic (shared/EVALUATION.md).

With ``--device cuda`` (or ``0``) the learned model of `learned` and `default` runs on that GPU (Presidio
and the other detectors stay on the CPU), and a row ``learned forward alone`` gives the docs/s of that
model's forward pass alone over the same documents' windows, in the detector's batches and shapes (inputs
prepared and on the GPU beforehand); ``x_forward`` is the docs/s of `learned` and `default` against it.

Usage: python benchmarks/throughput.py [--docs 100] [--long-docs 2] [--long-chars 50000]
    [--tools presidio,fast,learned,default] [--batch-size 16] [--device DEVICE]
"""

from __future__ import annotations

import argparse
import os
import time

from _common import DATA, print_table, write_results

import deid_hf
from deid_hf.evaluation.detection import DetectionCounts, GoldDocument, GoldSpan, tokens

TOOLS = ("presidio", "fast", "learned", "default")
COLUMNS = [
    "corpus",
    "tool",
    "docs",
    "docs_per_s",
    "tokens_per_s",
    "x_presidio",
    "x_forward",
    "precision",
    "recall",
]


def gold(documents) -> list[GoldDocument]:
    """`deid_hf.corpora` documents as gold documents (labels do not matter to token P/R)."""
    return [GoldDocument(d.text, tuple(GoldSpan(s, e, label) for s, e, label in d.spans)) for d in documents]


def joined(documents: list[GoldDocument], chars: int, count: int) -> list[GoldDocument]:
    """``count`` documents of about ``chars`` characters, each ``documents`` in turn joined by blank lines
    (spans shifted to their place)."""
    out, i = [], 0
    for _ in range(count):
        text, spans = "", []
        while len(text) < chars:
            doc = documents[i % len(documents)]
            i += 1
            offset = len(text) + (2 if text else 0)
            text = f"{text}\n\n{doc.text}" if text else doc.text
            spans += [GoldSpan(s.start + offset, s.end + offset, s.label) for s in doc.spans]
        out.append(GoldDocument(text, tuple(spans)))
    return out


def corpora(docs: int, long_docs: int, long_chars: int) -> dict[str, list[GoldDocument]]:
    """The corpora of ../shared/data that are present, ``docs`` documents each."""
    from deid_hf.corpora import (
        PHYSIONET_FILE,
        PRESIDIO_FILE,
        PRESIDIO_HELD_OUT,
        SEALED_FOLD,
        note_folds,
        physionet_documents,
        presidio_documents,
    )

    found = {}
    if (DATA / PHYSIONET_FILE).is_file():
        notes = physionet_documents(DATA / PHYSIONET_FILE)
        folds = note_folds(notes)
        found["PhysioNet dev notes, folds 0-3"] = gold(
            [d for d in notes if folds[d.group] != SEALED_FOLD][:docs]
        )
    if (DATA / PRESIDIO_FILE).is_file():
        records = gold(presidio_documents(DATA / PRESIDIO_FILE, PRESIDIO_HELD_OUT))
        found["presidio_synth_pii 750-1499"] = records[:docs]
        if long_docs:
            found[f"long documents ({long_chars:,} chars)"] = joined(records, long_chars, long_docs)
    return found


def presidio_tool():
    from detection import presidio_analyzer

    analyzer = presidio_analyzer()

    def run(texts: list[str]) -> list[list[tuple[int, int]]]:
        return [[(r.start, r.end) for r in analyzer.analyze(text, language="en")] for text in texts]

    return run


def deid_tool(name: str, batch_size: int, device: str | None):
    pipe = deid_hf.pipeline("deid-substitution", detector=name, device=device)

    def run(texts: list[str]) -> list[list[tuple[int, int]]]:
        found = pipe(texts, seed=0, batch_size=batch_size)
        return [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in found]

    run.pipe = pipe
    return run


def learned_detector(detector):
    """The `TokenClassificationDetector` inside a pipeline's detector (its members and bases searched)."""
    from deid_hf.detect.ner import TokenClassificationDetector

    if isinstance(detector, TokenClassificationDetector):
        return detector
    inner = [getattr(detector, "base", None), *getattr(detector, "members", ())]
    return next((found for d in inner if d is not None and (found := learned_detector(d))), None)


def forward_row(corpus: str, run, docs: list[GoldDocument]) -> dict:
    """docs/s of the learned model's forward pass alone over ``docs``' windows (`gpu_speed.forward_alone`:
    inputs built and on the device beforehand), synchronised with a GPU; the median of three passes."""
    import statistics

    import torch
    from gpu_speed import forward_alone

    detector = learned_detector(run.pipe.detector)
    sync = torch.cuda.synchronize if detector.pipe.device.type == "cuda" else (lambda: None)
    forward = forward_alone(detector, [d.text for d in docs])
    forward(None)  # warm-up
    seconds = []
    for _ in range(3):
        sync()
        start = time.perf_counter()
        forward(None)
        sync()
        seconds.append(time.perf_counter() - start)
    texts = [d.text for d in docs]
    median = statistics.median(seconds)
    return {
        "corpus": corpus,
        "tool": "learned forward alone",
        "docs": len(docs),
        "seconds": median,
        "docs_per_s": len(docs) / median,
        "tokens_per_s": sum(len(tokens(t)) for t in texts) / median,
    }


def measure(corpus: str, tool: str, run, docs: list[GoldDocument]) -> dict:
    texts = [d.text for d in docs]
    run(texts[:4] if len(texts[0]) < 10_000 else [texts[0][:10_000]])  # warm-up
    start = time.perf_counter()
    predictions = run(texts)
    seconds = time.perf_counter() - start
    counts = DetectionCounts()
    for doc, predicted in zip(docs, predictions):
        counts.add(doc, predicted)
    report = counts.report()
    return {
        "corpus": corpus,
        "tool": tool,
        "docs": len(docs),
        "seconds": seconds,
        "docs_per_s": len(docs) / seconds,
        "tokens_per_s": sum(len(tokens(t)) for t in texts) / seconds,
        "precision": report["token_precision"],
        "recall": report["token_recall"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100, help="documents per corpus (notes, records)")
    parser.add_argument("--long-docs", type=int, default=2, help="long documents (0: none)")
    parser.add_argument("--long-chars", type=int, default=50_000, help="characters of each long document")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"among {', '.join(TOOLS)}")
    parser.add_argument("--batch-size", type=int, default=16, help="the deid-hf pipeline's batch size")
    parser.add_argument("--device", default=None, help="where the learned model runs (cpu, cuda, 0, ...)")
    args = parser.parse_args()
    tools = args.tools.split(",")
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tool(s) {', '.join(unknown)}; choose among {', '.join(TOOLS)}")
    found = corpora(args.docs, args.long_docs, args.long_chars)
    if not found:
        print(
            f"no evaluation data under {DATA} (it ships beside the repository, not in it): nothing to measure"
        )
        return
    load_before = os.getloadavg()[0]
    runs = {
        t: presidio_tool() if t == "presidio" else deid_tool(t, args.batch_size, args.device) for t in tools
    }
    on_gpu = [r for t, r in runs.items() if t in ("learned", "default") and r.pipe.device.type == "cuda"]
    rows = []
    for corpus, docs in found.items():
        corpus_rows = [measure(corpus, tool, run, docs) for tool, run in runs.items()]
        forward = on_gpu and forward_row(corpus, on_gpu[0], docs)
        peer = next((r for r in corpus_rows if r["tool"] == "presidio"), None)
        for row in corpus_rows:
            row["x_presidio"] = peer and row["docs_per_s"] / peer["docs_per_s"]
            if forward and row["tool"] in ("learned", "default"):
                row["x_forward"] = row["docs_per_s"] / forward["docs_per_s"]
        rows += corpus_rows + ([forward] if forward else [])
    load = {"start": load_before, "end": os.getloadavg()[0]}
    print(f"1-minute load average: {load['start']:.2f} at the start, {load['end']:.2f} at the end\n")
    print_table(rows, COLUMNS)
    write_results("throughput", {"load_average_1min": load, "rows": rows})


if __name__ == "__main__":
    main()
