"""Canary insertion, scoring, estimate and intervals on synthetic text (no model)."""

from __future__ import annotations

import random
import re

import pytest

from deid_hf.audit.canary import (
    CANARY_LABELS,
    DIRECT_LABELS,
    QUASI_LABELS,
    CanaryDocument,
    CanaryMaker,
    canary_labels,
    insert_sentences,
    reads_naturally,
    refill_detected,
)
from deid_hf.audit.recall import (
    CanaryOutcome,
    detected_token_mix,
    run_canary_audit,
    score_canaries,
    weighted_recall,
)
from deid_hf.audit.stats import bootstrap_interval, wilson_interval
from deid_hf.errors import InputError
from deid_hf.train.augment import ascii_folded

NOTE = "Seen by Dr. Harriet Quist on 04/05/2021.\nCall 617-555-0143 if worse. Quist to follow."
DETECTED = [
    (NOTE.index(value), NOTE.index(value) + len(value), label)
    for value, label in (("Harriet Quist", "PERSON"), ("04/05/2021", "DATE_TIME"), ("617-555-0143", "PHONE"))
] + [(NOTE.rindex("Quist"), NOTE.rindex("Quist") + 5, "PERSON")]


@pytest.fixture(scope="module")
def maker():
    return CanaryMaker()


def test_the_detected_spans_are_where_the_fixture_says():
    assert [NOTE[s:e] for s, e, _ in DETECTED] == ["Harriet Quist", "04/05/2021", "617-555-0143", "Quist"]


def test_refill_puts_a_surrogate_at_every_detected_span_with_offsets_that_match():
    drawn = iter(["Ann Bo", "11/12/2019", "212-555-0100", "Cy"])
    text, canaries = refill_detected(NOTE, DETECTED, lambda original, label: next(drawn))
    assert [text[s:e] for s, e, _, _ in canaries] == ["Ann Bo", "11/12/2019", "212-555-0100", "Cy"]
    assert [label for _, _, label, _ in canaries] == ["PERSON", "DATE_TIME", "PHONE", "PERSON"]
    assert {kind for *_, kind in canaries} == {"in_place"}
    assert "Quist" not in text and text.startswith("Seen by Dr. Ann Bo on ")


def test_refill_keeps_one_surrogate_per_original_and_the_original_casing():
    text = "SPOKE WITH JO PARK. JO PARK AGREED."
    calls = []
    out, canaries = refill_detected(
        text, [(11, 18, "PERSON"), (20, 27, "PERSON")], lambda o, label: calls.append(o) or "Kim Lee"
    )
    assert calls == ["JO PARK"] and out == "SPOKE WITH KIM LEE. KIM LEE AGREED."
    assert [out[s:e] for s, e, _, _ in canaries] == ["KIM LEE", "KIM LEE"]


def test_refill_skips_labels_that_are_no_canary_type():
    assert "NUMBER" not in CANARY_LABELS
    text, canaries = refill_detected("bp 120/80", [(3, 9, "NUMBER")], lambda o, label: "999/99")
    assert text == "bp 120/80" and canaries == []


def test_refill_takes_only_the_labels_given():
    text = "Age 54, a Polish teacher."
    detected = [(4, 6, "AGE"), (10, 16, "DEMOGRAPHIC"), (17, 24, "OCCUPATION")]
    _, direct = refill_detected(text, detected, lambda o, label: "x", DIRECT_LABELS)
    out, quasi = refill_detected(text, detected, lambda o, label: label.lower(), CANARY_LABELS)
    assert direct == [] and out == "Age age, a demographic occupation."
    assert [label for _, _, label, _ in quasi] == ["AGE", "DEMOGRAPHIC", "OCCUPATION"]


@pytest.mark.parametrize(
    ("policy", "quasi"), [("hipaa", False), ("strict", False), ("gdpr", True), ("strict-names", False)]
)
def test_quasi_identifier_canaries_go_only_to_the_policies_that_remove_them(policy, quasi):
    if policy == "strict-names":  # a silver-labelling policy, no pipeline's
        with pytest.raises(InputError, match="policy"):
            canary_labels(policy)
        return
    labels = canary_labels(policy)
    assert set(DIRECT_LABELS) <= set(labels)
    assert bool(set(QUASI_LABELS) & set(labels)) is quasi


def test_quasi_identifier_canaries_read_as_such_identifiers_are_written():
    from deid_hf.replace.quasi import NATIONALITIES

    maker, rng = CanaryMaker(QUASI_LABELS), random.Random(5)
    doc = maker.make(0, "Seen today. Doing well.", [], rng, inserted=30)
    values = [(doc.text[s:e], label) for s, e, label, _ in doc.canaries]
    assert {label for _, label in values} == set(QUASI_LABELS)
    # an age of the exemplar's stage of life: an adult's, or an older person's up to 110
    assert all(v.isdigit() and 18 <= int(v) <= 110 for v, label in values if label == "AGE")
    assert all(v in NATIONALITIES for v, label in values if label == "DEMOGRAPHIC")
    jobs = [v for v, label in values if label == "OCCUPATION"]
    assert jobs and all(re.fullmatch(r"[A-Za-z][A-Za-z ,'-]*", v) for v in jobs)
    assert any(f"Works as a {job}. " in doc.text or f"Retired {job}. " in doc.text for job in jobs)


def test_inserted_sentences_sit_at_breaks_and_move_the_other_canaries():
    canaries = [DETECTED[0] + ("in_place",)]
    sentences = [("Call back at {}", "(212) 555-0100", "PHONE"), ("Lives in {}", "Oakton", "LOCATION")]
    text, moved = insert_sentences(NOTE, canaries, sentences, random.Random(3))
    found = {(text[s:e], label, kind) for s, e, label, kind in moved}
    assert found == {
        ("Harriet Quist", "PERSON", "in_place"),
        ("(212) 555-0100", "PHONE", "inserted"),
        ("Oakton", "LOCATION", "inserted"),
    }
    assert "Call back at (212) 555-0100. " in text and "Lives in Oakton. " in text
    assert text.replace("Call back at (212) 555-0100. ", "").replace("Lives in Oakton. ", "") == NOTE


def test_an_all_caps_text_gets_all_caps_sentences():
    text, moved = insert_sentences(
        "PT STABLE. NO CHANGES.", [], [("Lives in {}", "Oakton", "LOCATION")], random.Random(0)
    )
    assert "LIVES IN OAKTON. " in text and [text[s:e] for s, e, _, _ in moved] == ["OAKTON"]


def test_a_canary_copy_holds_fresh_values_of_each_type(maker):
    rng = random.Random(7)
    doc = maker.make(0, NOTE, DETECTED, rng, inserted=len(DIRECT_LABELS) * 2)
    values = {(doc.text[s:e], label) for s, e, label, _ in doc.canaries}
    assert "Harriet Quist" not in doc.text and "617-555-0143" not in doc.text
    assert all(value.strip() == value and value for value, _ in values)
    phones = [v for v, label in values if label == "PHONE"]
    assert phones and all(sum(c.isdigit() for c in v) >= 7 for v in phones)
    assert all("@" in v for v, label in values if label == "EMAIL")
    with pytest.raises(InputError, match="canary types"):
        CanaryMaker(["SHOE_SIZE"])


@pytest.mark.parametrize("locale", ["en_US", "de_DE"])
def test_canary_names_come_from_the_locales_asked_for(locale):
    import importlib

    provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
    names = [*provider.first_names, *provider.last_names]
    known = {word for name in names for word in name.split()}
    one_locale, rng = CanaryMaker(["PERSON"], locales=[locale]), random.Random(3)
    words = [w for _ in range(60) for w in one_locale.inserted_value("PERSON", rng).split() if len(w) > 2]
    folded = {ascii_folded(w) for w in known}
    assert words and all(w in known or w in folded for w in words), [w for w in words if w not in known]
    many = CanaryMaker(["PERSON"])
    assert len(many.source.locales) > 10
    others = [w for _ in range(60) for w in many.inserted_value("PERSON", rng).split() if len(w) > 2]
    assert any(w not in known and w not in folded for w in others)
    with pytest.raises(InputError, match="xx_YY"):
        CanaryMaker(locales=["xx_YY"])


def test_places_re_filled_in_place_come_from_the_locales_in_the_original_layout():
    """A German corpus gets German streets, postcodes and cities in the original's layout; a facility and
    initials keep their own shapes; en_US keeps US streets."""
    import importlib

    german = importlib.import_module("faker.providers.address.de_DE").Provider
    endings = [*german.street_suffixes_long, *german.street_suffixes_short]
    endings += [ascii_folded(e) for e in endings]
    one, rng = CanaryMaker(locales=["de_DE"]), random.Random(4)
    for _ in range(20):
        street, city = one.value("ADDRESS", rng, "12 Oak Street, Springfield").split(", ")
        assert any(ch.isdigit() for ch in street) and not street.endswith(("Street", "Avenue", "Road"))
        assert street.rsplit(" ", 1)[0].lower().endswith(tuple(e.lower() for e in endings)), street
        assert not any(ch.isdigit() for ch in city)
        assert re.fullmatch(r"\d{5}", one.value("ADDRESS", rng, "02139"))
        # the layout is the original's: a postcode before its city, a US state and ZIP stay what they are
        street, place = one.value("ADDRESS", rng, "Hauptstrasse 7, 10115 Berlin").split(", ")
        assert re.fullmatch(r"\d{5} \D+", place) and not street.endswith(("Street", "Avenue", "Road"))
        assert re.fullmatch(r"[^,\d]+, [A-Z]{2} \d{5}", one.value("ADDRESS", rng, "Boston, MA 02115"))
    assert one.value("LOCATION", rng, "Mercy Hospital").endswith(" Hospital")
    assert re.fullmatch(r"[A-Z]{2}", one.value("LOCATION", rng, "GH"))
    us = CanaryMaker(locales=["en_US"])
    assert us.value("ADDRESS", rng, "12 Oak Street").endswith(("Street", "Avenue", "Road"))


def test_locales_are_read_from_a_comma_list_and_an_empty_one_is_refused():
    from deid_hf.train.augment import checked_locales

    assert checked_locales("en_US, de_DE,") == ("en_US", "de_DE")
    for empty in ("", " , ", []):
        with pytest.raises(InputError, match="locales must be Faker locales"):
            checked_locales(empty)
    with pytest.raises(InputError, match=r"Latin letters.*ja_JP"):
        checked_locales("en_US,ja_JP")


def test_inserted_canaries_read_as_such_identifiers_are_written(maker):
    assert reads_naturally("ADDRESS", "12 Oak Street") and reads_naturally("ORG", "Bond Inc")
    assert not reads_naturally("ADDRESS", "007 Philip Burg") and not reads_naturally(
        "ADDRESS", "9 Ward Inlet"
    )
    assert not reads_naturally("ORG", "Ward, Reed and Goodman") and not reads_naturally("PERSON", "Lee, Ana")
    rng = random.Random(0)
    for label in ("PERSON", "ORG", "ADDRESS"):
        values = [maker.value(label, rng) for _ in range(40)]
        assert all(reads_naturally(label, v) for v in values), label
        assert len(set(values)) > 30, label
    # an in-place canary keeps the shape of what it re-fills, comma and all
    assert "," in maker.value("PERSON", rng, "Quist, Harriet")


def test_scoring_counts_the_canary_tokens_a_replaced_span_covers():
    doc = CanaryDocument(
        3,
        "Met Ann Bo Lee today at 5 Elm St.",
        ((4, 14, "PERSON", "inserted"), (24, 32, "ADDRESS", "inserted")),
    )
    outcomes = score_canaries(doc, [(4, 7, "PERSON"), (24, 26, "NUMBER"), (27, 32, "LOCATION")])
    assert outcomes == [
        CanaryOutcome(3, "PERSON", "inserted", 3, 1),
        CanaryOutcome(3, "ADDRESS", "inserted", 3, 3),
    ]


def test_the_estimate_weights_each_type_by_the_mix_found():
    outcomes = [CanaryOutcome(0, "PERSON", "in_place", 4, 2), CanaryOutcome(1, "PHONE", "inserted", 2, 2)]
    assert weighted_recall(outcomes, {"PERSON": 0.75, "PHONE": 0.25}) == pytest.approx(0.75 * 0.5 + 0.25)
    assert weighted_recall(outcomes, {"EMAIL": 1.0}) == pytest.approx(4 / 6)  # no weight applies: pooled
    mix = detected_token_mix(["Ann Bo at 617-555-0143"], [[(0, 6, "PERSON"), (10, 22, "PHONE")]])
    assert mix == pytest.approx({"PERSON": 2 / 3, "PHONE": 1 / 3})


def test_wilson_interval_matches_the_formula_and_holds_the_share():
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(1.959964**2 / (10 + 1.959964**2), rel=1e-4)
    low, high = wilson_interval(45, 50)
    assert low < 0.9 < high and wilson_interval(0, 0) is None
    assert wilson_interval(450, 500)[1] - wilson_interval(450, 500)[0] < high - low


def test_bootstrap_interval_narrows_with_more_documents():
    rng = random.Random(0)
    docs = [(rng.random() < 0.8, 1) for _ in range(400)]

    def ratio(sample):
        return sum(h for h, _ in sample) / sum(t for _, t in sample)

    small, large = bootstrap_interval(docs[:40], ratio), bootstrap_interval(docs, ratio)
    assert small[0] <= ratio(docs[:40]) <= small[1] and large[0] <= ratio(docs) <= large[1]
    assert large[1] - large[0] < small[1] - small[0]


class DigitsOnly:
    """A stand-in pipeline that replaces every token holding a digit, and nothing else."""

    def __call__(self, texts, **_):
        return [
            {
                "text": t,
                "spans": [
                    {"start": m.start(), "end": m.end(), "label": "ID", "replaced": True}
                    for m in re.finditer(r"\S*\d\S*", t)
                ],
            }
            for t in texts
        ]


def test_the_audit_sees_what_a_configuration_misses():
    texts = [
        f"Visit {n}: Dr. Ilse Marr saw the patient on 0{n % 9 + 1}/12/2020. Phone 617-555-01{n:02d}."
        for n in range(12)
    ]
    result = run_canary_audit(DigitsOnly(), texts, sample=8, copies=2, inserted=4, seed=1, batch_size=5)
    assert result["documents_sampled"] == 8 and result["by_kind"]["inserted"]["canaries"] == 8 * 2 * 4
    by_type = result["by_kind_and_type"]["inserted"]
    assert (
        by_type["PHONE"]["token_recall"] > 0.5 and by_type["PHONE"]["survived"] < by_type["PHONE"]["canaries"]
    )
    assert by_type["PERSON"]["token_recall"] == 0 and by_type["PERSON"]["survival_rate"] == 1
    assert set(result["detected_type_mix"]) == {"ID"}
    low, high = result["estimate"]["interval"]
    assert low <= result["estimate"]["token_recall"] <= high


class UnderPolicy(DigitsOnly):
    """A stand-in pipeline with a configuration, as `deid-substitution` has, under ``policy``."""

    def __init__(self, policy):
        from deid_hf.config import PipelineConfig

        self.config = PipelineConfig.from_dict({"policy": policy})


def test_the_canary_types_follow_the_audited_policy_and_the_report_says_which():
    texts = [f"Visit {n}: seen on 0{n % 9 + 1}/12/2020. Stable." for n in range(8)]
    gdpr = run_canary_audit(UnderPolicy("gdpr"), texts, sample=8, inserted=8, seed=3)
    hipaa = run_canary_audit(UnderPolicy("hipaa"), texts, sample=8, inserted=8, seed=3)
    default = run_canary_audit(DigitsOnly(), texts, sample=8, inserted=8, seed=3)
    made = {p: set(r["by_kind_and_type"]["inserted"]) for p, r in (("gdpr", gdpr), ("hipaa", hipaa))}
    assert made["gdpr"] & set(QUASI_LABELS) and not made["hipaa"] & set(QUASI_LABELS)
    assert gdpr["canary_types"] == list(CANARY_LABELS) and hipaa["canary_types"] == list(DIRECT_LABELS)
    assert default["canary_types"] == hipaa["canary_types"]
    assert any(item.startswith("quasi-identifiers (ages") for item in hipaa["not_covered"])
    assert not any("quasi-identifiers" in item for item in gdpr["not_covered"])
    overridden = run_canary_audit(UnderPolicy("hipaa"), texts, sample=8, inserted=8, seed=3, policy="gdpr")
    assert overridden["canary_types"] == list(CANARY_LABELS)


def test_the_audit_refuses_an_empty_sample():
    with pytest.raises(InputError, match="no document"):
        run_canary_audit(DigitsOnly(), ["", "  "], sample=3)
    with pytest.raises(InputError, match="at least one"):
        run_canary_audit(DigitsOnly(), ["text"], sample=0)


class NamesAndDigits(DigitsOnly):
    """A stand-in reference that also finds the two capitalised words after "Dr."."""

    def __call__(self, texts, **_):
        results = super().__call__(texts)
        for text, result in zip(texts, results):
            names = [
                {"start": m.start(1), "end": m.end(1), "label": "PERSON", "replaced": True}
                for m in re.finditer(r"Dr\. ([A-Z]\w+ [A-Z]\w+)", text)
            ]
            result["spans"] = sorted(result["spans"] + names, key=lambda s: s["start"])
        return results


def test_a_reference_shows_the_misses_a_configuration_cannot_see_in_itself():
    """Alone, a configuration that never finds names weighs only what it finds (digits) and looks perfect;
    with a reference that finds the names, the canaries re-fill them and the estimate counts them."""
    texts = [f"Visit {n}: Dr. Ilse Marr saw the patient. Ticket 88{n}." for n in range(10)]
    alone = run_canary_audit(DigitsOnly(), texts, sample=10, seed=2)
    checked = run_canary_audit(DigitsOnly(), texts, sample=10, seed=2, reference=NamesAndDigits())
    assert alone["estimate"]["kind"] == "inserted" and alone["estimate"]["token_recall"] == 1.0
    assert checked["estimate"]["kind"] == "in_place" and set(checked["detected_type_mix"]) == {"ID", "PERSON"}
    in_place = checked["by_kind_and_type"]["in_place"]
    assert in_place["PERSON"]["token_recall"] == 0 and in_place["ID"]["token_recall"] == 1
    assert checked["estimate"]["token_recall"] == pytest.approx(checked["detected_type_mix"]["ID"])
    assert any("reference misses" in item for item in checked["not_covered"])
    assert not any("reference misses" in item for item in alone["not_covered"])


class Nothing(DigitsOnly):
    """A stand-in reference that finds nothing."""

    def __call__(self, texts, **_):
        return [{"text": t, "spans": []} for t in texts]


def test_the_summary_names_the_canaries_the_estimate_counts_and_says_when_there_is_none():
    from deid_hf.audit.report import summary_lines

    texts = [f"Visit {n}: Dr. Ilse Marr saw the patient. Ticket 88{n}." for n in range(6)]
    result = run_canary_audit(DigitsOnly(), texts, sample=6, seed=0, reference=NamesAndDigits())
    line = next(x for x in summary_lines({"canary": result}) if x.startswith("Canary recall"))
    counted = result["by_kind"]["in_place"]["canaries"]
    assert f"from the {counted} in-place canaries of {result['all']['canaries']} made" in line
    assert "PERSON" in line and "ID" in line  # the type weights
    empty = run_canary_audit(DigitsOnly(), texts, sample=6, seed=0, reference=Nothing())
    assert empty["estimate"]["token_recall"] is None
    line = next(x for x in summary_lines({"canary": empty}) if x.startswith("Canary recall"))
    assert "no estimate: no in-place canary was made (the reference replaced no span of a canary type" in line


def test_a_reference_shares_what_counts_and_the_resolved_policy_not_how_the_audited_one_scores():
    from deid_hf.audit.command import checked_reference, reference_options

    audited = {"strategy": "zsts", "score_threshold": 0.5, "allow_list": ["Ward 4"], "entities": ["PERSON"]}
    assert reference_options(audited, ["default"]) == {
        "detector": ["default"],
        "policy": "strict",  # zsts with its own p-filter runs under strict: the reference must too
        "strategy": "typed",
        "allow_list": ["Ward 4"],
        "entities": ["PERSON"],
    }
    assert checked_reference(" default, patterns", {"detector": "fast"}) == ["default", "patterns"]
    for bad, message in (("", "must name detectors"), ("fats", "unknown detector"), ("fast", "audited")):
        with pytest.raises(InputError, match=message):
            checked_reference(bad, {"detector": "fast"})


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("José Núñez", "Jose Nunez"),
        ("Michał Groß", "Michal Gross"),
        ("Søren Ærø", "Soren AEro"),
        ("Đorđe", "Dorde"),
    ],
)
def test_names_and_places_are_folded_to_ascii_letter_by_letter(written, folded):
    """Letters Unicode does not decompose ("ł", "ß", "ø") are written out, not dropped ("Gro" for "Groß")."""
    assert ascii_folded(written) == folded


def test_the_report_names_the_policy_the_pipeline_applies():
    from deid_hf.audit.command import effective

    assert effective({"strategy": "zsts"})["policy"] == "strict"  # ZSTS with its own p-filter
    assert effective({})["policy"] == "hipaa" and effective({"policy": "gdpr"})["policy"] == "gdpr"
