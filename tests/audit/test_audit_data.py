"""The audits on the evaluation data (skipped, with the reason, where ../shared/data is absent)."""

from __future__ import annotations

import pytest

from deid_hf.audit.recall import run_canary_audit
from deid_hf.audit.reid import tfidf_attack
from deid_hf.corpora import (
    PHYSIONET_FILE,
    PRESIDIO_FILE,
    PRESIDIO_TUNING,
    physionet_documents,
    presidio_documents,
)
from deid_hf.evaluation.detection import GoldDocument, GoldSpan, evaluate_pipeline
from tests.conftest import shared_data


def test_the_attack_names_patients_from_their_other_original_notes_far_above_chance():
    notes = physionet_documents(shared_data(PHYSIONET_FILE))
    texts, people = [d.text for d in notes], [d.group for d in notes]
    result = tfidf_attack(texts, people, texts, k=5)
    chance = 1 / len(set(people))
    assert result["documents"] > 0.9 * len(notes)
    assert result["top1"] > 10 * chance and result["top5"] >= result["top1"]


def test_removing_every_word_leaves_the_attack_near_chance():
    notes = physionet_documents(shared_data(PHYSIONET_FILE))
    texts, people = [d.text for d in notes], [d.group for d in notes]
    assert tfidf_attack(texts, people, [""] * len(texts))["top1"] < 3 / len(set(people))


@pytest.mark.slow
def test_canary_recall_with_a_reference_orders_detectors_as_gold_recall_does_on_presidio_records():
    """Alone, each configuration weighs the types it finds itself (regular expressions find IDs and
    phones, whose canaries they find too); with `default` as the reference, the canaries sit where
    presidio's records write identifiers, and the estimates order the detectors as gold recall does."""
    from deid_hf.pipelines import pipeline

    docs = presidio_documents(shared_data(PRESIDIO_FILE), PRESIDIO_TUNING)[:100]
    gold_docs = [GoldDocument(d.text, tuple(GoldSpan(*s) for s in d.spans)) for d in docs]
    reference = pipeline("deid-substitution", detector="default")
    gold, canary, names_survived = {}, {}, {}
    for detector in ("patterns", "fast"):
        pipe = pipeline("deid-substitution", detector=detector)
        gold[detector] = evaluate_pipeline(pipe, gold_docs)["token_recall"]
        texts = [d.text for d in docs]
        checked = run_canary_audit(pipe, texts, sample=100, seed=0, reference=reference)
        canary[detector] = checked["estimate"]["token_recall"]
        alone = run_canary_audit(pipe, texts, sample=100, seed=0)
        names_survived[detector] = alone["by_kind_and_type"]["inserted"]["PERSON"]["survival_rate"]
    assert gold["patterns"] + 0.1 < gold["fast"] and canary["patterns"] + 0.1 < canary["fast"]
    # regular expressions know names only by their cues ("Dr."): far more name canaries survive them
    assert names_survived["patterns"] > names_survived["fast"] + 0.3
