"""Where a document's time goes in the default `deid-substitution`: each detection stage, each detector of
the ensemble, and inside the learned detector its tokenisation, forward pass and decoding, then the
replacement; each stage's seconds and share of the pipeline call.

Timers are wrapped around the stages of `deid_hf.detect.stages.DETECTION_STAGES`, the detectors'
``detect_batch``, the learned detector's steps (``tokenise``: all windows of a batch; ``start_forward``:
the ONNX Runtime forward pass and each token's softmax, done when it returns on the CPU; ``decode``: entity
groups; or, off its batch path, the transformers pipeline's ``preprocess``, ``_forward`` and
``postprocess``) and
`deid_hf.replace.apply.apply_strategy`; nested timers are shown indented and are part of their parent.
The detectors run one after another here (the pipeline runs the learned model beside the others:
`deid_hf.detect.base.side_by_side`), so each one's time is its own. ``--side-by-side`` keeps them as the
pipeline runs them and times only the stages, the replacement and the learned model's forward pass (on its
thread): the forward pass's share of the call is then that of the wall time.
Documents: PhysioNet dev notes of folds 0-3 and presidio_synth_pii records 750-1499 where ../shared/data
has them, else the bundled examples. Nothing of the text is printed. ``--shape NAME --size N``: one
synthetic text of a `fuzz_cost` shape instead (``prose`` for the baseline; no Presidio run beside it).

Usage: python benchmarks/profile_default.py [--notes 100] [--records 100] [--detector default]
           [--side-by-side]
       python benchmarks/profile_default.py --shape dotted_run --size 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import types
from collections import defaultdict
from contextlib import contextmanager

from _common import DATA, print_table, write_results

import deid_hf
from deid_hf.detect import stages
from deid_hf.paths import bundled_examples

SECONDS: dict[str, float] = defaultdict(float)
DEPTH: dict[str, int] = {}
_open: list[str] = []


@contextmanager
def timer(name: str):
    DEPTH.setdefault(name, len(_open))
    _open.append(name)
    start = time.perf_counter()
    try:
        yield
    finally:
        SECONDS[name] += time.perf_counter() - start
        _open.pop()


def timed(name: str, function):
    """``function`` timed under ``name``; a generator it returns is timed item by item (the chunked
    token-classification pipeline tokenises lazily, in a generator)."""

    def wrapper(*args, **kwargs):
        with timer(name):
            result = function(*args, **kwargs)
        return _timed_items(name, result) if isinstance(result, types.GeneratorType) else result

    return wrapper


def _timed_items(name: str, items):
    while True:
        with timer(name):
            try:
                item = next(items)
            except StopIteration:
                return
        yield item


def timed_on_its_thread(name: str, function):
    """``function`` timed under ``name`` one level down, without the nesting of `timer` (it runs on another
    thread while the caller's timers are open)."""
    DEPTH[name] = 2

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            SECONDS[name] += time.perf_counter() - start

    return wrapper


def instrument(pipe, side_by_side: bool = False) -> None:
    """Timers around every stage, detector, learned-detector step and the replacement; ``side_by_side``:
    the detectors left as the pipeline runs them, only the learned model's forward pass timed inside."""
    stages.DETECTION_STAGES[:] = [
        dataclasses.replace(s, run=timed(f"stage: {s.name}", s.run)) for s in stages.DETECTION_STAGES
    ]
    policy_detector = pipe.detector.base
    for member in getattr(policy_detector, "members", ()) if side_by_side else ():
        if getattr(member, "direct", False):
            member.start_forward = timed_on_its_thread(
                "forward (ORT), on its own thread", member.start_forward
            )
    for member in () if side_by_side else getattr(policy_detector, "members", ()):
        label = f"detector: {member.name}"
        if getattr(member, "direct", False):  # the learned token classifier's batch path
            steps = (
                ("tokenise", "tokenise + windows"),
                ("start_forward", "forward (ORT) + softmax"),
                ("decode", "decode"),
            )
            for step, name in steps:
                setattr(member, step, timed(f"  {name}", getattr(member, step)))
        elif hasattr(member, "pipe"):  # the learned token classifier's transformers pipeline
            for step, name in (("preprocess", "tokenise + windows"), ("_forward", "forward (ORT)")):
                setattr(member.pipe, step, timed(f"  {name}", getattr(member.pipe, step)))
            member.pipe.postprocess = timed("  decode + aggregate", member.pipe.postprocess)
        member.detect_batch = timed(label, member.detect_batch)
        if member.detect_with_support is not None:
            member.detect_with_support = timed(label, member.detect_with_support)
        member.releases_gil = False  # one detector after another: each one's own time (the pipeline overlaps)
    import deid_hf.pipelines.substitution as substitution

    substitution.apply_strategy = timed("replacement", substitution.apply_strategy)


def documents(notes: int, records: int) -> list[str]:
    texts = []
    if (DATA / "physionet_deid_dev").exists() and notes:
        from deid_hf.corpora import PHYSIONET_FILE, SEALED_FOLD, note_folds, physionet_documents

        docs = physionet_documents(DATA / PHYSIONET_FILE)
        folds = note_folds(docs)
        tuning = [d for d in docs if folds[d.group] != SEALED_FOLD]
        texts += [d.text for d in tuning[:notes]]
    if (DATA / "presidio_synth_pii").exists() and records:
        from deid_hf.corpora import PRESIDIO_FILE, PRESIDIO_HELD_OUT, presidio_documents

        held_out = PRESIDIO_HELD_OUT[:records]
        texts += [d.text for d in presidio_documents(DATA / PRESIDIO_FILE, held_out)]
    return texts or [e["text"] for e in bundled_examples()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--detector", default="default")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--shape", help="one synthetic text of this fuzz_cost shape instead of the documents")
    parser.add_argument("--size", type=int, default=100_000, help="characters of the --shape text")
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="detectors as the pipeline runs them (the learned model's forward pass on its thread)",
    )
    args = parser.parse_args()
    if args.shape:
        import random

        from fuzz_cost import SHAPES

        texts = [SHAPES[args.shape](random.Random(0), args.size)]
    else:
        texts = documents(args.notes, args.records)
    pipe = deid_hf.pipeline("deid-substitution", detector=args.detector)
    warm_up = ["Ann Lee was seen on 3/4/2024."] if args.shape else texts[:4]
    pipe(warm_up, batch_size=4, seed=0)  # warm-up: lazy loads are not part of the profile
    instrument(pipe, args.side_by_side)
    start = time.perf_counter()
    with timer("pipeline call"):
        pipe(texts, batch_size=args.batch_size, seed=0)
    total = time.perf_counter() - start
    order = sorted(SECONDS, key=lambda name: list(SECONDS).index(name))
    rows = [
        {
            "stage": ("  " * DEPTH[name]) + name.strip(),
            "seconds": SECONDS[name],
            "share": SECONDS[name] / total,
        }
        for name in order
    ]
    peer = None if args.shape else presidio_seconds(texts)
    print(f"{len(texts)} documents, {sum(len(t.split()) for t in texts)} tokens")
    print(f"deid-hf {args.detector}: {total:.2f} s ({len(texts) / total:.1f} docs/s)")
    if peer is not None:
        print(f"Presidio analyzer + spaCy sm, same run: {peer:.2f} s ({len(texts) / peer:.1f} docs/s)")
    print()
    print_table(rows, ["stage", "seconds", "share"])
    write_results(
        f"profile_{args.shape}"
        if args.shape
        else "profile_default" + ("_side_by_side" if args.side_by_side else ""),
        {
            "documents": len(texts),
            "shape": args.shape and {"name": args.shape, "size": args.size},
            "detector": args.detector,
            "side_by_side": args.side_by_side,
            "seconds": total,
            "presidio_seconds": peer,
            "rows": rows,
        },
    )


def presidio_seconds(texts: list[str]) -> float:
    """Presidio's analyzer (every entity it knows) over ``texts``, after a warm-up, in seconds."""
    from detection import presidio_analyzer

    analyzer = presidio_analyzer()
    analyzer.analyze(texts[0], language="en")
    start = time.perf_counter()
    for text in texts:
        analyzer.analyze(text, language="en")
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
