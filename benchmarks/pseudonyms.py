"""full_entity surrogates on presidio_synth_pii held-out records (750-1499), detector "fast" (no LM):

- name leak: gold PERSON name words (capitalised, 3+ letters) still present, as a word, in the output;
- pseudonym consistency: (document, gold person name word) pairs replaced in 2+ different mentions
  ("Kenji Tanaka", "Dr. Tanaka", "TANAKA") whose surrogates all share a word;
- identifier letters kept: replaced ID/NUMBER spans whose surrogate still holds a letter run (3+, not a
  unit) of the original at the same place ("mgonzalez1957" -> "mgonzalez5246");
- phones valid: replaced PHONE spans valid for phonenumbers (region US) whose surrogate is valid too, with
  the same country code.

Run it on another checkout to compare (PYTHONPATH=<checkout> python benchmarks/pseudonyms.py); prints a table,
writes benchmarks/results/pseudonyms.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_path, print_table, write_results  # noqa: E402

TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "mx"}


def _words(text: str) -> list[str]:
    return [re.sub(r"['’]s$", "", w).strip(".,;:") for w in text.split()]


def consistency(mapping: dict[str, str], person_words: set[str]) -> tuple[int, int]:
    """(consistent, total) over the gold person name words of a document that occur in 2+ replaced
    originals: consistent when all their surrogates share a word ("Tanaka" -> "Watkins", "Dr. Tanaka" ->
    "Dr. Watkins")."""
    ok = total = 0
    for word in person_words:
        surrogates = [
            {w.casefold() for w in _words(new)} - TITLES
            for original, new in mapping.items()
            if word in {w.casefold() for w in _words(original)}
        ]
        if len(surrogates) >= 2:
            total += 1
            ok += bool(set.intersection(*surrogates))
    return ok, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=750)
    args = parser.parse_args()
    import phonenumbers

    import deid_hf

    records = json.loads(data_path("presidio_synth_pii/synth_dataset_v2.json").read_text())[
        750 : 750 + args.limit
    ]
    pipe = deid_hf.pipeline("deid-substitution", detector="fast", strategy="full_entity")
    units = {"mg", "mcg", "ml", "kg", "mmhg", "bpm", "hrs", "min", "mins", "sec", "wks", "yrs", "mmol", "meq"}
    counts = dict.fromkeys(
        ("names", "leaked", "consistent", "multi", "ids", "ids_kept", "phones", "phones_ok"), 0
    )
    start = time.perf_counter()
    for n, record in enumerate(records):
        text = record["full_text"]
        out = pipe(text, seed=n, return_mapping=True)
        words = {w.casefold() for w in re.findall(r"\w+", out["text"])}
        person_words = set()
        for span in record["spans"]:
            if span["entity_type"] == "PERSON":
                for word in re.findall(r"[A-Z][a-z]{2,}", span["entity_value"]):
                    counts["names"] += 1
                    counts["leaked"] += word.casefold() in words
                    person_words.add(word.casefold())
        ok, total = consistency(out["mapping"], person_words)
        counts["consistent"] += ok
        counts["multi"] += total
        for s in out["spans"]:
            if not s["replaced"]:
                continue
            original = text[s["start"] : s["end"]]
            if s["label"] in ("ID", "NUMBER") and re.search(r"\d", original):
                counts["ids"] += 1
                runs = [m for m in re.finditer(r"[A-Za-z]{3,}", original) if m.group(0).lower() not in units]
                counts["ids_kept"] += any(s["replacement"][m.start() : m.end()] == m.group(0) for m in runs)
            if s["label"] == "PHONE":
                try:
                    old = phonenumbers.parse(original, "US")
                except phonenumbers.NumberParseException:
                    continue
                if not phonenumbers.is_valid_number(old):
                    continue
                counts["phones"] += 1
                try:
                    new = phonenumbers.parse(s["replacement"], "US")
                    counts["phones_ok"] += (
                        phonenumbers.is_valid_number(new) and new.country_code == old.country_code
                    )
                except phonenumbers.NumberParseException:
                    pass
    seconds = time.perf_counter() - start
    row = {
        "code": str(Path(deid_hf.__file__).resolve().parent.parent),
        "docs": len(records),
        "name_leak": counts["leaked"] / max(counts["names"], 1),
        "consistent": counts["consistent"] / max(counts["multi"], 1),
        "multi_mention_names": counts["multi"],
        "id_letters_kept": counts["ids_kept"] / max(counts["ids"], 1),
        "ids": counts["ids"],
        "phones_valid": counts["phones_ok"] / max(counts["phones"], 1),
        "phones": counts["phones"],
        "docs_per_s": len(records) / seconds,
    }
    print_table([row], list(row))
    write_results("pseudonyms", {"rows": [row], "counts": counts})


if __name__ == "__main__":
    main()
