"""Fuzzed inputs through `deid-substitution`: escaped exceptions and the slowest items (issue 31's goal:
no escaped exception and no item over 2 s on 2 cores across 10,000 inputs with 100 KB pathological shapes).

Each input is a random shape (long words, dotted runs, bracket runs, digit runs, "+1 " runs, many short
lines, random Unicode, prose with identifiers, a mix) at a random size; a share of them (``--large-share``)
are exactly ``--large`` characters. Every input goes through ``deid_hf.pipeline("deid-substitution")`` with
each detector, one call per input. A deid-hf error (`deid_hf.errors.DeidError`, e.g. an empty text) is a
refusal; any other exception has escaped. Texts are never printed or written: items are named by shape
and length only.

Per shape, the slowest item is set beside the baseline of the same run: prose (the sentences below) of
``--large`` characters through the same pipeline, timed before and after the fuzzed inputs (the mean of
the two). On a machine shared with other work, compare shapes with the baseline, not seconds across runs.
Usage: python benchmarks/fuzz_cost.py [--n 10000] [--detectors fast,default] [--seed 0] [--slowest 10]
"""

from __future__ import annotations

import argparse
import random
import time

from _common import print_table, write_results

import deid_hf
from deid_hf.errors import DeidError

#: the goal's bound on one item (seconds on 2 cores)
ITEM_SECONDS = 2.0
PROSE = [
    "Maria Gonzalez was admitted on March 3, 2024 and discharged to 12 Elm Street, Springfield.",
    "Call Dr. Tom Berg at (217) 555-0143 or mail tom.berg@example.org about MRN 4417-22.",
    "The patient reports feeling better after the new medication; follow up in two weeks.",
]


def repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def random_unicode(rng: random.Random, size: int) -> str:
    """Code points from every plane, controls, combining marks and lone surrogates included."""
    ranges = [(0x0, 0x7F), (0x80, 0x2FF), (0x300, 0x36F), (0x400, 0x4FF), (0x4E00, 0x4FFF), (0xD800, 0xDFFF)]
    ranges += [(0x1F300, 0x1F6FF), (0x200B, 0x200F), (0xE000, 0xE0FF)]
    return "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(size))


def short_lines(rng: random.Random, size: int) -> str:
    words = ["ab", "Ann", "12", "+1", "Lee", "x", "Dr.", "(", "a.b"]
    lines, length = [], 0
    while length < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines)[:size]


SHAPES = {
    "long_word": lambda rng, n: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
    "dotted_run": lambda rng, n: repeat(rng.choice(["a.", "1.", "ab.", "a.b."]), n),
    "bracket_run": lambda rng, n: "(" * (n // 2) + ")" * (n - n // 2),
    "nested_brackets": lambda rng, n: repeat(rng.choice(["((", "([{", "(a)"]), n),
    # letters between brackets, none repeated: the models read every character (no filler to blank)
    "bracketed_letters": lambda rng, n: "".join(
        rng.choice("([{") + rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n // 2 + 1)
    )[:n],
    "digit_run": lambda rng, n: "".join(rng.choice("0123456789") for _ in range(n)),
    "plus_one_run": lambda rng, n: repeat("+1 ", n),
    "short_lines": short_lines,
    "unicode": random_unicode,
    "prose": lambda rng, n: repeat(" ".join(rng.sample(PROSE, len(PROSE))) + " ", n),
    "mixed": lambda rng, n: "".join(
        SHAPES[rng.choice(BASE_SHAPES)](rng, n // 4) for _ in range(4)
    ),  # four shapes back to back
}
BASE_SHAPES = [name for name in SHAPES if name != "mixed"]


def fuzzed_inputs(n: int, seed: int, large: int, large_share: float):
    """(shape, text) of ``n`` inputs: a ``large_share`` of them ``large`` characters, the rest 1 to
    10,000 (log-uniform); a text over 20 characters starts with its number (detectors cache by text)."""
    rng = random.Random(seed)
    for number in range(n):
        shape = rng.choice(list(SHAPES))
        size = large if rng.random() < large_share else int(10 ** rng.uniform(0, 4))
        text = SHAPES[shape](rng, max(size, 1))
        # its number first: no two inputs are equal, so no detector answers one from its cache
        yield shape, f"{number} {text}"[: len(text)] if len(text) > 20 else text


def run_one(pipe, text: str) -> tuple[float, str | None, bool]:
    """(seconds, exception type or None, refused) of one pipeline call."""
    start = time.perf_counter()
    try:
        out = pipe(text)
        if not isinstance(out.get("text"), str) or any(
            not 0 <= s["start"] < s["end"] <= len(text) for s in out["spans"]
        ):
            return time.perf_counter() - start, "InconsistentOutput", False
        return time.perf_counter() - start, None, False
    except DeidError:
        return time.perf_counter() - start, None, True
    except Exception as exc:  # noqa: BLE001 - counted: an escaped exception is what this script looks for
        return time.perf_counter() - start, type(exc).__name__, False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="fuzzed inputs")
    parser.add_argument("--detectors", default="fast,default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--large", type=int, default=100_000, help="characters of a large input")
    parser.add_argument("--large-share", type=float, default=0.05, help="share of large inputs")
    parser.add_argument("--slowest", type=int, default=10, help="slowest items listed")
    args = parser.parse_args()
    inputs = list(fuzzed_inputs(args.n, args.seed, args.large, args.large_share))
    items, baselines = [], {}
    for detector in args.detectors.split(","):
        pipe = deid_hf.pipeline("deid-substitution", detector=detector, strategy="typed")
        pipe(PROSE[0])  # warm-up
        before = prose_seconds(pipe, args.large)
        for number, (shape, text) in enumerate(inputs):
            seconds, escaped, refused = run_one(pipe, text)
            items.append(
                {
                    "detector": detector,
                    "input": number,
                    "shape": shape,
                    "length": len(text),
                    "seconds": seconds,
                    "escaped": escaped,
                    "refused": refused,
                }
            )
        baselines[detector] = (before + prose_seconds(pipe, args.large)) / 2
    rows = summary_rows(items, baselines)
    print(f"prose of {args.large} characters (the baseline): ", end="")
    print(", ".join(f"{detector} {seconds:.2f} s" for detector, seconds in baselines.items()))
    columns = ["detector", "shape", "inputs", "refused", "escaped", "over_2s", "max_s", "max_length"]
    print_table(rows, [*columns, "max_over_prose"])
    slowest = sorted(items, key=lambda item: -item["seconds"])[: args.slowest]
    print(f"\nslowest {len(slowest)} items:")
    print_table(slowest, ["detector", "input", "shape", "length", "seconds", "escaped"])
    escaped = [item for item in items if item["escaped"]]
    kinds = ", ".join(sorted({item["escaped"] for item in escaped})) or "none"
    print(f"\nescaped exceptions: {len(escaped)} ({kinds})")
    print(f"items over {ITEM_SECONDS:g} s: {sum(item['seconds'] > ITEM_SECONDS for item in items)}")
    write_results(
        "fuzz_cost",
        {
            "options": vars(args),
            "prose_seconds": baselines,
            "summary": rows,
            "slowest": slowest,
            "escaped": escaped,
        },
    )


def prose_seconds(pipe, size: int) -> float:
    """Seconds of one call on prose of ``size`` characters (numbered: no cache hit)."""
    text = f"{time.perf_counter_ns()} " + repeat(" ".join(PROSE) + " ", size)
    return run_one(pipe, text[:size])[0]


def summary_rows(items: list[dict], baselines: dict[str, float]) -> list[dict]:
    """Per detector and shape: counts, the slowest item and its ratio to the detector's prose baseline."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for item in items:
        groups.setdefault((item["detector"], item["shape"]), []).append(item)
    return [
        {
            "detector": detector,
            "shape": shape,
            "inputs": len(group),
            "refused": sum(item["refused"] for item in group),
            "escaped": sum(bool(item["escaped"]) for item in group),
            "over_2s": sum(item["seconds"] > ITEM_SECONDS for item in group),
            "max_s": max(item["seconds"] for item in group),
            "max_length": max(item["length"] for item in group),
            "max_over_prose": max(item["seconds"] for item in group) / baselines[detector],
        }
        for (detector, shape), group in sorted(groups.items())
    ]


if __name__ == "__main__":
    main()
