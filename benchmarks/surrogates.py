"""Surrogates across documents and of natural shape (issue 34), `full_entity` with its defaults:

- PhysioNet dev notes grouped by patient, through `deid-hf run --group-field patient` (local and Ray
  engines): a gold person is a patient and the case-folded words of a gold name mention (titles and "'s"
  dropped); it keeps one surrogate when every replaced mention of it, in all of the patient's notes, gets the
  same surrogate words. Dates: every replaced gold date with a day (a year where written) must move by its
  patient's one offset, so every interval between a patient's dates is kept.
- presidio_synth_pii records 0-749 (750-1499 are held out), in-process: each word of a gold PERSON mention
  that Faker's English lists (en_US and en together) give one role (given name or surname) and its
  surrogate word: the surrogate is in Faker's lists of that role, and a given name the English lists give
  one gender gets a given name of that gender (the surrogate read in every locale deid-hf draws from:
  "Vilma Holm" may become a German name).

Surrogate words are read by position (a pseudonym keeps the title and replaces each name word by one word);
a mention whose replacement does not align word for word is counted apart. No output of a note of the
sealed fold is printed (`--examples` shows inconsistent persons of the other folds only).

PYTHONPATH=<checkout> python benchmarks/surrogates.py [--engines local,ray] [--detector default]; prints a
table, writes benchmarks/results/surrogates.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, data_path, print_table, write_results  # noqa: E402

PERSON_LABELS = {"HCPName", "RelativeProxyName", "PTName"}
DATE_LABELS = {"Date"}
NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
#: a date written with its day (numeric, or a month name with a day; not a month/year such as "8/84")
WITH_DAY = re.compile(
    r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2}|(?<![\d/])\d{1,2}/(?:[0-2]?\d|3[01])(?![\d/])"
    r"|[A-Za-z]{3,}\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]{3,}"
)
BENCHMARK_KEY = "deid-hf surrogates benchmark key"


def name_words(text: str, offset: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, case-folded word) of the name words of ``text``: titles and a possessive left out."""
    from deid_hf.detect.mentions import TITLE

    words = []
    for m in NAME_WORD.finditer(text):
        word = re.sub(r"['’]s$", "", m.group(0))
        if not TITLE.fullmatch(word):
            words.append((offset + m.start(), offset + m.start() + len(word), word.casefold()))
    return words


def surrogate_words(text: str, spans: list[dict], start: int, end: int) -> tuple | None:
    """The surrogate words of the name words of ``text[start:end]``, read by position from the replaced
    spans that cover them; None when a word is not replaced or its span's replacement does not align."""
    wanted = [(s, e) for s, e, _ in name_words(text[start:end], start)]
    found = {}
    for span in spans:
        if not span["replaced"] or span["end"] <= start or span["start"] >= end:
            continue
        original = name_words(text[span["start"] : span["end"]], span["start"])
        new = name_words(span["replacement"])
        if len(original) != len(new):
            continue
        for (s, e, _), (_, _, word) in zip(original, new):
            found[(s, e)] = word
    if not wanted or any(w not in found for w in wanted):
        return None
    return tuple(found[w] for w in wanted)


def person_consistency(notes: list[dict], outputs: list[list[dict]], sealed: set[str]) -> dict:
    """Gold persons (patient, name words) and the surrogates their mentions got (see module docstring)."""
    seen: dict[tuple, set] = defaultdict(set)
    notes_of: dict[tuple, set] = defaultdict(set)
    counts = Counter()
    for note, spans in zip(notes, outputs):
        for gold in note["spans"]:
            if gold["label"] not in PERSON_LABELS:
                continue
            words = tuple(w for _, _, w in name_words(note["text"][gold["start"] : gold["end"]]))
            if not words:
                continue
            counts["mentions"] += 1
            got = surrogate_words(note["text"], spans, gold["start"], gold["end"])
            if got is None:
                counts["not_aligned_or_missed"] += 1
                continue
            person = (note["patient"], words)
            seen[person].add(got)
            notes_of[person].add(note["id"])
    one = [p for p, s in seen.items() if len(s) == 1]
    several = [p for p in seen if len(notes_of[p]) >= 2]
    examples = [
        {"person": " ".join(p[1]), "surrogates": sorted(" ".join(s) for s in seen[p])}
        for p in seen
        if len(seen[p]) > 1 and f"patient-{p[0]}" not in sealed
    ]
    return {
        "persons": len(seen),
        "one_surrogate": len(one) / max(len(seen), 1),
        "persons_in_2plus_notes": len(several),
        "one_surrogate_2plus_notes": sum(len(seen[p]) == 1 for p in several) / max(len(several), 1),
        "mentions": counts["mentions"],
        "mentions_not_aligned_or_missed": counts["not_aligned_or_missed"],
        "examples_outside_sealed_fold": examples,
    }


def read_date(text: str) -> tuple[date, bool] | None:
    """(the date, has a year) of a text holding exactly one calendar date written with its day."""
    from deid_hf.replace.dates import rewrite_dates

    found = []
    rewrite_dates(text, lambda old, has_year: found.append((old, has_year)) or old)
    return found[0] if len(found) == 1 and WITH_DAY.search(text) else None


def date_intervals(notes: list[dict], outputs: list[list[dict]]) -> dict:
    """Whether every replaced gold date with a day moved by its patient's one offset."""
    moves: dict[int, list] = defaultdict(list)
    for note, spans in zip(notes, outputs):
        for gold in note["spans"]:
            if gold["label"] not in DATE_LABELS:
                continue
            for span in spans:
                if span["replaced"] and span["start"] <= gold["start"] and gold["end"] <= span["end"]:
                    old = read_date(note["text"][span["start"] : span["end"]])
                    new = read_date(span["replacement"])
                    if old and new and old[1] == new[1]:
                        moves[note["patient"]].append((old[0], new[0], old[1]))
    kept = total = patients_kept = 0
    for patient_moves in moves.values():
        with_year = [(new - old).days for old, new, has_year in patient_moves if has_year]
        offset = Counter(with_year or [(n - o).days for o, n, _ in patient_moves]).most_common(1)[0][0]
        ok = sum(_moved_by(old, new, has_year, offset) for old, new, has_year in patient_moves)
        kept += ok
        total += len(patient_moves)
        patients_kept += ok == len(patient_moves)
    return {
        "dates": total,
        "dates_on_patient_offset": kept / max(total, 1),
        "patients_with_dates": len(moves),
        "patients_all_intervals_kept": patients_kept / max(len(moves), 1),
    }


def _moved_by(old: date, new: date, has_year: bool, offset: int) -> bool:
    from datetime import timedelta

    moved = old + timedelta(days=offset)
    return moved == new if has_year else (moved.month, moved.day) == (new.month, new.day)


def run_cli(notes: list[dict], engine: str, detector: str, workdir: Path) -> tuple[list[list[dict]], float]:
    """The spans of `deid-hf run --group-field patient` on ``notes``, and its seconds."""
    source, target = workdir / f"in-{engine}.jsonl", workdir / f"out-{engine}.jsonl"
    with source.open("w", encoding="utf-8") as f:
        for note in notes:
            f.write(json.dumps({"id": note["id"], "patient": note["patient"], "text": note["text"]}) + "\n")
    command = [
        sys.executable,
        "-m",
        "deid_hf.cli",
        "run",
        str(source),
        str(target),
        "--group-field",
        "patient",
    ]
    command += ["--detector", detector, "--engine", engine, "--restart"]
    if engine == "ray":
        command += ["--num-workers", "1"]
    env = {**os.environ, "DEID_HF_KEY": BENCHMARK_KEY, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    return [
        r["deid_spans"] if isinstance(r["deid_spans"], list) else json.loads(r["deid_spans"]) for r in rows
    ], seconds


def role_and_gender(records: list[dict], detector: str) -> dict:
    """On presidio records: surrogate words that keep their original's role and gender (Faker's lists)."""
    import deid_hf
    from deid_hf.replace.names import LOOKUP_LOCALES, locale_lists

    def folded(*lists) -> set[str]:
        return {name.casefold() for names in lists for name in names}

    female, male, last = (folded(us, en) for us, en in zip(locale_lists("en_US"), locale_lists("en")))
    given = female | male
    drawn = [folded(*lists) for lists in zip(*(locale_lists(loc) for loc in LOOKUP_LOCALES))]
    drawn_female, drawn_male, drawn_last = drawn
    pipe = deid_hf.pipeline("deid-substitution", detector=detector)
    counts = Counter()
    outputs = pipe([r["full_text"] for r in records], seed=0)
    for record, out in zip(records, outputs):
        text = record["full_text"]
        for gold in record["spans"]:
            if gold["entity_type"] != "PERSON":
                continue
            start, end = gold["start_position"], gold["end_position"]
            got = surrogate_words(text, out["spans"], start, end)
            originals = [text[s:e] for s, e, _ in name_words(text[start:end], start)]
            if got is None:
                counts["not_aligned_or_missed"] += 1
                continue
            for original, new in zip(originals, got):
                name, new = original.casefold(), new.casefold()
                if (name in given) == (name in last):  # both roles or neither: not scored
                    continue
                counts["role_scored"] += 1
                role_ok = new in (drawn_female | drawn_male) if name in given else new in drawn_last
                counts["role_kept"] += role_ok
                gender = (
                    "female"
                    if name in female and name not in male
                    else "male"
                    if name in male and name not in female
                    else None
                )
                gender_ok = gender is None or new in (drawn_female if gender == "female" else drawn_male)
                counts["gender_scored"] += gender is not None
                counts["gender_kept"] += gender is not None and gender_ok
                counts["both_kept"] += role_ok and gender_ok
    return {
        "records": len(records),
        "words_scored": counts["role_scored"],
        "role_kept": counts["role_kept"] / max(counts["role_scored"], 1),
        "given_names_with_gender": counts["gender_scored"],
        "gender_kept": counts["gender_kept"] / max(counts["gender_scored"], 1),
        "role_and_gender_kept": counts["both_kept"] / max(counts["role_scored"], 1),
        "mentions_not_aligned_or_missed": counts["not_aligned_or_missed"],
    }


def physionet_notes(patients: int | None = None) -> list[dict]:
    rows = [json.loads(line) for line in data_path("physionet_deid_dev/notes.jsonl").read_text().splitlines()]
    if patients is not None:
        keep = sorted({r["patient"] for r in rows})[:patients]
        rows = [r for r in rows if r["patient"] in keep]
    return rows


def sealed_patients(notes: list[dict]) -> set[str]:
    """The patients of the sealed fold (`deid_hf.corpora.SEALED_FOLD`): their outputs are never printed."""
    from deid_hf.corpora import NOTE_FOLDS, SEALED_FOLD, patient_folds

    folds = patient_folds((f"patient-{n['patient']}" for n in notes), NOTE_FOLDS, seed=0)
    return {group for group, fold in folds.items() if fold == SEALED_FOLD}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="local,ray")
    parser.add_argument("--detector", default="default")
    parser.add_argument("--patients", type=int, default=None, help="only the first N patients (by id)")
    parser.add_argument("--presidio", type=int, default=750, help="presidio records 0..N-1 (at most 750)")
    parser.add_argument(
        "--examples", action="store_true", help="print inconsistent persons (not of the sealed fold)"
    )
    args = parser.parse_args()
    notes = physionet_notes(args.patients)
    sealed = sealed_patients(physionet_notes())
    rows, details = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in [e for e in args.engines.split(",") if e]:
            outputs, seconds = run_cli(notes, engine, args.detector, Path(tmp))
            persons = person_consistency(notes, outputs, sealed)
            dates = date_intervals(notes, outputs)
            examples = persons.pop("examples_outside_sealed_fold")
            if args.examples:
                for example in examples:
                    print(example)
            rows.append({"set": f"physionet dev, {engine}", **persons, **dates, "seconds": seconds})
            details[engine] = {
                "persons": persons,
                "dates": dates,
                "inconsistent_outside_sealed_fold": len(examples),
            }
    records = json.loads(data_path("presidio_synth_pii/synth_dataset_v2.json").read_text())[
        : min(args.presidio, 750)
    ]
    natural = role_and_gender(records, args.detector)
    columns = ["set", "persons", "one_surrogate", "persons_in_2plus_notes", "one_surrogate_2plus_notes"]
    columns += [
        "mentions_not_aligned_or_missed",
        "dates",
        "dates_on_patient_offset",
        "patients_all_intervals_kept",
    ]
    if rows:
        print_table(rows, columns)
        print()
    print_table([{"set": "presidio 0-749", **natural}], ["set", *natural])
    write_results(
        "surrogates",
        {
            "detector": args.detector,
            "patients": args.patients,
            "physionet": rows,
            "presidio": natural,
            "details": details,
        },
    )


if __name__ == "__main__":
    main()
