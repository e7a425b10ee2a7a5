"""Issue 34's goals on a slice of the evaluation data, through `benchmarks/surrogates.py`'s measures: one
pseudonym per gold person across a patient's notes and kept date intervals (`deid-hf run --group-field`,
local engine, fast detector, 20 development patients outside the sealed fold), kept name roles and genders
(presidio records 0-99). Skipped where ../shared/data is absent."""

import json
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import REPO, shared_data

sys.path.insert(0, str(REPO / "benchmarks"))

pytestmark = pytest.mark.slow


def test_one_pseudonym_per_person_and_kept_intervals_across_a_patients_notes():
    shared_data("physionet_deid_dev/notes.jsonl")
    import surrogates

    notes = surrogates.physionet_notes()
    sealed = surrogates.sealed_patients(notes)
    patients = sorted({n["patient"] for n in notes if f"patient-{n['patient']}" not in sealed})[:20]
    notes = [n for n in notes if n["patient"] in patients]
    with tempfile.TemporaryDirectory() as tmp:
        outputs, _ = surrogates.run_cli(notes, "local", "fast", Path(tmp))
    persons = surrogates.person_consistency(notes, outputs, sealed)
    dates = surrogates.date_intervals(notes, outputs)
    assert persons["persons_in_2plus_notes"] >= 3 and dates["dates"] >= 20  # the slice measures something
    assert persons["one_surrogate"] >= 0.99, persons["examples_outside_sealed_fold"]
    assert dates["dates_on_patient_offset"] == 1.0


def test_given_names_surnames_and_genders_are_kept():
    path = shared_data("presidio_synth_pii/synth_dataset_v2.json")
    import surrogates

    kept = surrogates.role_and_gender(json.loads(path.read_text())[:100], "fast")
    assert kept["words_scored"] >= 20 and kept["given_names_with_gender"] >= 10
    assert kept["role_and_gender_kept"] >= 0.95
