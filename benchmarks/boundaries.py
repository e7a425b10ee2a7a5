"""Span boundaries: how many replaced spans start or end inside a word, and how many take a neighbouring word
that is no part of any gold entity, with token P/R (shared/EVALUATION.md), per detector under hipaa.

A span starts inside a word when its start lies inside one word (`cuts_word`; the same for its end); it
takes a neighbour when it overlaps a gold span but its first or last whitespace token overlaps none.
Corpora: presidio_synth_pii records (``--presidio tuning``: 0-749, ``held-out``: 750-1499, ``both``)
and the PhysioNet dev notes of folds 0-3 (``--notes``; the sealed fold is never read).
Usage: python benchmarks/boundaries.py [--detectors fast default] [--presidio tuning|held-out|both|none]
    [--notes] [--tag TAG]
"""

from __future__ import annotations

import argparse
import re
import time

from _common import data_path, print_table, write_results

import deid_hf
from deid_hf.corpora import (
    PHYSIONET_FILE,
    PRESIDIO_FILE,
    PRESIDIO_HELD_OUT,
    PRESIDIO_TUNING,
    SEALED_FOLD,
    note_folds,
    physionet_documents,
    presidio_documents,
)
from deid_hf.evaluation.detection import GoldDocument, GoldSpan, detection_report, tokens

COLUMNS = [
    "corpus",
    "detector",
    "spans",
    "inside_word",
    "neighbour_taken",
    "token_precision",
    "token_recall",
    "missed_tokens",
    "docs_per_s",
]
PRESIDIO_SPLITS = {"tuning": PRESIDIO_TUNING, "held-out": PRESIDIO_HELD_OUT}


_LETTER = re.compile(r"[^\W\d_]")
_CLITIC = re.compile(r"['’](?:s|d|ll|re|ve|t|m)(?![^\W\d_])", re.IGNORECASE)


def cuts_word(text: str, position: int) -> bool:
    """``position`` lies inside one word: between two letters or digits, or at a hyphen or apostrophe
    between two letters ("Swan-|Ganz", "O'|Brien"; not before a clitic: "Tanaka|'s"). Written out here, not
    imported, so that the checkout measured does not define what it is measured by."""
    if not 0 < position < len(text):
        return False
    before, after = text[position - 1], text[position]
    if before.isalnum() and after.isalnum():
        return True
    letter = lambda i: 0 <= i < len(text) and _LETTER.match(text[i]) is not None  # noqa: E731
    if after in "-'’" and letter(position - 1) and letter(position + 1):
        return not _CLITIC.match(text, position)
    if before in "-'’" and letter(position) and letter(position - 2):
        return not _CLITIC.match(text, position - 1)
    return False


def boundary_counts(text: str, spans: list[tuple[int, int]], gold: list[tuple[int, int]]) -> dict:
    inside = sum(cuts_word(text, s) or cuts_word(text, e) for s, e in spans)
    toks = tokens(text)
    taken = 0
    for s, e in spans:
        if not any(a < e and s < b for a, b in gold):
            continue
        mine = [(a, b) for a, b in toks if a < e and s < b]
        edges = {mine[0], mine[-1]} if mine else set()
        taken += any(not any(ga < b and a < gb for ga, gb in gold) for a, b in edges)
    return {"spans": len(spans), "inside_word": inside, "neighbour_taken": taken}


def measure(corpus: str, detector: str, docs) -> dict:
    pipe = deid_hf.pipeline("deid-substitution", detector=detector, policy="hipaa", strategy="redact")
    texts = [d.text for d in docs]
    start = time.perf_counter()
    predicted = []
    for i in range(0, len(texts), 16):
        results = pipe(texts[i : i + 16], seed=0, batch_size=16)
        predicted += [[(s["start"], s["end"]) for s in r["spans"] if s["replaced"]] for r in results]
    seconds = time.perf_counter() - start
    row = {"corpus": corpus, "detector": detector, "spans": 0, "inside_word": 0, "neighbour_taken": 0}
    for doc, spans in zip(docs, predicted):
        for key, value in boundary_counts(doc.text, spans, [(s, e) for s, e, _ in doc.spans]).items():
            row[key] += value
    gold = [GoldDocument(d.text, tuple(GoldSpan(s, e, lab) for s, e, lab in d.spans)) for d in docs]
    report = detection_report(gold, predicted)
    row.update(
        token_precision=report["token_precision"],
        token_recall=report["token_recall"],
        missed_tokens=report["fn"],
    )
    row["docs_per_s"] = len(docs) / seconds
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--detectors", nargs="+", default=["fast", "default"])
    parser.add_argument("--presidio", choices=["tuning", "held-out", "both", "none"], default="tuning")
    parser.add_argument("--notes", action="store_true", help="also the PhysioNet dev notes of folds 0-3")
    parser.add_argument("--tag", default="", help="appended to the results file name (e.g. before/after)")
    args = parser.parse_args()
    corpora = {}
    splits = ["tuning", "held-out"] if args.presidio == "both" else [args.presidio]
    for split in splits if args.presidio != "none" else []:
        records = PRESIDIO_SPLITS[split]
        corpora[f"presidio {records.start}-{records.stop - 1}"] = presidio_documents(
            data_path(PRESIDIO_FILE), records
        )
    if args.notes:
        notes = physionet_documents(data_path(PHYSIONET_FILE))
        fold = note_folds(notes)
        corpora["notes folds 0-3"] = [d for d in notes if fold[d.group] != SEALED_FOLD]
    rows = [measure(name, detector, docs) for name, docs in corpora.items() for detector in args.detectors]
    print_table(rows, COLUMNS)
    write_results(f"boundaries{'-' + args.tag if args.tag else ''}", {"rows": rows})


if __name__ == "__main__":
    main()
