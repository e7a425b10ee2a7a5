"""Labelled corpora: one document type, one reader per corpus, the named splits of the evaluation data.

`LabelledDocument` is a text with gold spans in the label schema (`deid_hf.spans.LABELS`) and the group
(a patient, a record) that keeps related documents on one side of every split. Readers map each corpus'
labels onto the schema: presidio_synth_pii (`PRESIDIO_LABELS`), the PhysioNet deid dev notes
(`PHYSIONET_LABELS`) and JSONL files of the documented layout (`read_documents`).

Named splits: presidio records `PRESIDIO_TUNING` may be trained and tuned on, `PRESIDIO_HELD_OUT` only
measured; the dev notes are dealt into `NOTE_FOLDS` patient-level folds (`note_folds`), of which
`SEALED_FOLD` is read by nobody (no error listings, no examples) and only measured for reported figures.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .spans import LABELS

PRESIDIO_FILE = "presidio_synth_pii/synth_dataset_v2.json"
PHYSIONET_FILE = "physionet_deid_dev/notes.jsonl"
#: presidio_synth_pii entity types -> schema
PRESIDIO_LABELS = {
    "PERSON": "PERSON",
    "STREET_ADDRESS": "ADDRESS",
    "ZIP_CODE": "ADDRESS",
    "GPE": "LOCATION",
    "ORGANIZATION": "ORG",
    "CREDIT_CARD": "ID",
    "IBAN_CODE": "ID",
    "US_SSN": "ID",
    "US_DRIVER_LICENSE": "ID",
    "DATE_TIME": "DATE_TIME",
    "PHONE_NUMBER": "PHONE",
    "AGE": "AGE",
    "EMAIL_ADDRESS": "EMAIL",
    "DOMAIN_NAME": "URL",
    "IP_ADDRESS": "IP",
    "TITLE": "OTHER",
    "NRP": "OTHER",
}
#: PhysioNet deid gold labels -> schema ("Other" PHI are identifying numbers)
PHYSIONET_LABELS = {
    "HCPName": "PERSON",
    "PTName": "PERSON",
    "RelativeProxyName": "PERSON",
    "Date": "DATE_TIME",
    "DateYear": "DATE_TIME",
    "Location": "LOCATION",
    "Phone": "PHONE",
    "Age": "AGE",
    "Other": "ID",
}

#: presidio_synth_pii records that may be trained and tuned on / that are only measured
PRESIDIO_TUNING = range(0, 750)
PRESIDIO_HELD_OUT = range(750, 1500)
#: patient-level folds of the PhysioNet dev notes (`note_folds`), and the fold nobody reads
NOTE_FOLDS = 5
SEALED_FOLD = 4


@dataclass(frozen=True)
class LabelledDocument:
    """A text with gold spans ``(start, end, schema label)``; ``group`` keeps related documents (a
    patient's notes) on one side of every split."""

    text: str
    spans: tuple[tuple[int, int, str], ...]
    group: str
    source: str = ""
    #: the corpus' own label of each span (for per-type figures)
    original_labels: tuple[str, ...] = ()


def _checked(spans, text: str, where: str) -> tuple[tuple[int, int, str], ...]:
    out = []
    for start, end, label in spans:
        if label not in LABELS:
            raise InputError(f"{where}: label {label!r} is not in the schema ({', '.join(LABELS)})")
        if not 0 <= start < end <= len(text):
            raise InputError(f"{where}: span [{start}, {end}) is outside the text")
        out.append((start, end, label))
    return tuple(out)


def presidio_documents(path: str | Path, records: range) -> list[LabelledDocument]:
    """presidio_synth_pii records ``records`` with their entity types mapped onto the schema."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    docs = []
    for i in records:
        if i >= len(rows):
            break
        spans = rows[i]["spans"]
        docs.append(
            LabelledDocument(
                rows[i]["full_text"],
                _checked(
                    [
                        (
                            s["start_position"],
                            s["end_position"],
                            PRESIDIO_LABELS.get(s["entity_type"], "OTHER"),
                        )
                        for s in spans
                    ],
                    rows[i]["full_text"],
                    f"{path} record {i}",
                ),
                f"presidio-{i}",
                "presidio_synth_pii",
                tuple(s["entity_type"] for s in spans),
            )
        )
    return docs


def physionet_documents(path: str | Path) -> list[LabelledDocument]:
    """PhysioNet deid notes (``{"patient", "text", "spans"}`` per line), grouped by patient."""
    docs = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        spans = [(s["start"], s["end"], PHYSIONET_LABELS.get(s["label"], "OTHER")) for s in row["spans"]]
        docs.append(
            LabelledDocument(
                row["text"],
                _checked(spans, row["text"], f"{path}:{number}"),
                f"patient-{row['patient']}",
                "physionet_deid_dev",
                tuple(s["label"] for s in row["spans"]),
            )
        )
    return docs


def jsonl_rows(path: str | Path, kind: str) -> Iterator[tuple[int, object]]:
    """(line number, parsed JSON or None where the line is not JSON) of every non-blank line of a training
    file; InputError naming ``kind`` when the file is missing."""
    if not Path(path).is_file():
        raise InputError(f"{kind} file {path} does not exist")
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except ValueError:
                yield number, None


def read_documents(path: str | Path) -> list[LabelledDocument]:
    """JSONL of ``{"text": str, "spans": [{"start", "end", "label"}], "group": str (optional)}``; labels in
    the schema (or PhysioNet / presidio names, mapped)."""
    mapping = {**PRESIDIO_LABELS, **PHYSIONET_LABELS}
    docs = []
    for number, row in jsonl_rows(path, "documents"):
        try:
            text = row["text"]
            spans = [(s["start"], s["end"], str(s["label"])) for s in row.get("spans", [])]
            if not all(type(a) is int and type(b) is int for a, b, _ in spans):  # not 5.7, not true
                raise TypeError("a span's start and end are integers")
        except (ValueError, KeyError, TypeError):
            text = None
        if not isinstance(text, str):
            raise InputError(f"{path}:{number}: expected a JSON object with 'text' and 'spans'")
        spans = [(s, e, label if label in LABELS else mapping.get(label, label)) for s, e, label in spans]
        docs.append(
            LabelledDocument(
                text,
                _checked(spans, text, f"{path}:{number}"),
                str(row.get("group", f"line-{number}")),
                Path(path).name,
                tuple(label for _, _, label in spans),
            )
        )
    return docs


def patient_folds(groups: Iterable[str], folds: int, seed: int = 0) -> dict[str, int]:
    """Group -> fold: the sorted groups shuffled under ``seed`` and dealt round-robin."""
    ordered = sorted(set(groups))
    random.Random(seed).shuffle(ordered)
    return {group: i % folds for i, group in enumerate(ordered)}


def note_folds(documents: Sequence[LabelledDocument], folds: int = NOTE_FOLDS) -> dict[str, int]:
    """Patient -> fold of the dev notes (`patient_folds` with seed 0: the split every figure uses)."""
    return patient_folds((d.group for d in documents), folds, seed=0)


def case_group(text: str) -> str:
    """ "upper" when the text has letters and none is lower case, else "mixed"."""
    return "upper" if any(c.isalpha() for c in text) and text == text.upper() else "mixed"
