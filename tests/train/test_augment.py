"""The training-data engine: refilled copies keep labels on the right text, case copies keep offsets,
look-alikes are unlabelled and leave the gold spans on their words, line pieces cover the note and keep every
span whole."""

import random

import pytest

from deid_hf.corpora import LabelledDocument
from deid_hf.train.augment import (
    SurrogateSource,
    augmented,
    case_copy,
    cased_like,
    line_pieces,
    look_alike_sentence,
    misspelt,
    refilled,
    with_look_alikes,
)
from deid_hf.train.detector import DetectorConfig
from deid_hf.train.loop import config_of_record, recipe_digest, recipe_fields

NOTE = LabelledDocument(
    "Seen by Dr. Ines Moreau on 3/14/2021. Moreau called 617-555-0199.\nFamily at Lakeview Hospital.",
    ((12, 23, "PERSON"), (27, 36, "DATE_TIME"), (38, 44, "PERSON"), (52, 64, "PHONE"), (76, 93, "LOCATION")),
    "patient-1",
    "physionet_deid_dev",
    ("HCPName", "Date", "HCPName", "Phone", "Location"),
)


@pytest.fixture(scope="module")
def source():
    return SurrogateSource()


def test_note_fixture_spans_are_the_identifiers():
    assert [NOTE.text[s:e] for s, e, _ in NOTE.spans] == [
        "Ines Moreau",
        "3/14/2021",
        "Moreau",
        "617-555-0199",
        "Lakeview Hospital",
    ]


@pytest.mark.parametrize("seed", range(5))
def test_refilled_copy_replaces_every_span_and_keeps_the_context(source, seed):
    copy = refilled(NOTE, source, random.Random(seed))
    assert len(copy.spans) == len(NOTE.spans) and copy.original_labels == NOTE.original_labels
    assert [label for *_, label in copy.spans] == [label for *_, label in NOTE.spans]
    filled = [copy.text[s:e] for s, e, _ in copy.spans]
    assert "Ines" not in copy.text and "617-555-0199" not in copy.text
    assert all(f.strip() for f in filled)
    for word in ("Seen by Dr.", " on ", " called ", "Family at "):
        assert word in copy.text  # the context stays
    assert copy.source == "physionet_deid_dev:refilled"


def test_refilled_copy_keeps_date_and_phone_formats(source):
    rng = random.Random(3)
    for _ in range(10):
        copy = refilled(NOTE, source, rng)
        date, phone = (copy.text[s:e] for s, e, label in copy.spans if label in ("DATE_TIME", "PHONE"))
        assert date.count("/") == 2 and date.replace("/", "").isdigit()
        assert sum(ch.isdigit() for ch in phone) >= 10


def test_refilled_names_come_from_many_cultures_and_shapes(source):
    rng = random.Random(0)
    full = {source.person("Ines Moreau", rng) for _ in range(60)}
    assert len(full) >= 50 and all(len(n.split()) >= 2 for n in full)
    assert all(", " in source.person("MOREAU, Ines", rng) for _ in range(10))
    initials = {source.person("I.M.", rng) for _ in range(10)}
    assert all(n.replace(".", "").replace(" ", "").isalpha() and "." in n for n in initials)


@pytest.mark.parametrize(
    ("original", "upper", "lower"),
    [("MOREAU", True, False), ("moreau", False, True)],
)
def test_surrogates_follow_all_caps_and_lower_case_originals(original, upper, lower):
    cased = cased_like(original, "Okafor", random.Random(0))
    assert cased.isupper() == upper and cased.islower() == lower


def test_mixed_case_originals_sometimes_get_other_casings():
    rng = random.Random(0)
    seen = {cased_like("Moreau", "Okafor", rng) for _ in range(200)}
    assert seen == {"Okafor", "OKAFOR", "okafor"}


def test_case_copy_keeps_offsets_and_flips_all_caps_notes():
    rng = random.Random(0)
    copy = case_copy(NOTE, rng)
    assert copy.spans == NOTE.spans and copy.text.lower() == NOTE.text.lower() and copy.text != NOTE.text
    shouting = LabelledDocument(NOTE.text.upper(), NOTE.spans, "p", "physionet_deid_dev")
    assert case_copy(shouting, rng).text == NOTE.text.lower()
    both_move = LabelledDocument("İzmir Straße", (), "p", "x")  # "STRASSE", "i̇zmir": offsets would move
    assert all(case_copy(both_move, rng) is None for _ in range(5))


@pytest.mark.parametrize("seed", range(5))
def test_look_alikes_are_unlabelled_and_gold_stays_on_its_words(seed):
    copy = with_look_alikes(NOTE, random.Random(seed))
    assert len(copy.text) > len(NOTE.text)
    assert [copy.text[s:e] for s, e, _ in copy.spans] == [NOTE.text[s:e] for s, e, _ in NOTE.spans]
    shouting = LabelledDocument(NOTE.text.upper(), NOTE.spans, "p", "physionet_deid_dev")
    assert with_look_alikes(shouting, random.Random(seed)).text.isupper()


def test_look_alike_sentences_and_misspellings():
    rng = random.Random(0)
    sentences = {look_alike_sentence(rng) for _ in range(50)}
    assert len(sentences) > 40 and not any("{" in s for s in sentences)
    spellings = {misspelt("Vancomycin", rng, share=1.0) for _ in range(50)}
    assert "Vancomycin" not in spellings and all(abs(len(s) - 10) <= 1 for s in spellings)


def test_augmented_applies_each_part_to_its_documents_only():
    silver = LabelledDocument("Met Ana Lima in Porto.", ((4, 12, "PERSON"),), "s", "silver:gum")
    plain = augmented([NOTE, silver], refills=0, case_variants=False, look_alikes=0, seed=0)
    assert plain == [NOTE, silver]
    out = augmented([NOTE, silver], refills=2, case_variants=False, look_alikes=1, seed=0)
    assert [d.source for d in out] == [
        "physionet_deid_dev",
        "silver:gum",
        "physionet_deid_dev:refilled",
        "physionet_deid_dev:refilled",
        "physionet_deid_dev:look-alikes",
    ]
    cased = augmented([NOTE, silver], refills=1, case_variants=True, look_alikes=0, seed=0)
    assert (
        len(cased) == 6
        and augmented([NOTE, silver], refills=1, case_variants=True, look_alikes=0, seed=0) == cased
    )
    for doc in cased:
        assert all(0 <= s < e <= len(doc.text) for s, e, _ in doc.spans)


def test_engine_fields_leave_the_recipe_digest_alone_when_off():
    assert recipe_digest(DetectorConfig()) == recipe_digest(DetectorConfig(refills=0, sealed_fold=None))
    assert recipe_digest(DetectorConfig(refills=2)) != recipe_digest(DetectorConfig())
    assert recipe_digest(DetectorConfig(sealed_fold=4)) != recipe_digest(DetectorConfig())


#: a note whose second span runs over a line break
LINES = LabelledDocument(
    "Pt seen by Dr. Ines Moreau.\n\nBP 120/80.\nSon Paul\nMoreau called.\n  \n"
    "Neuro: A&O x3.\nPlan: cont abx.\n",
    ((15, 26, "PERSON"), (44, 55, "PERSON")),
    "patient-1",
    "physionet_deid_dev",
)


def test_lines_fixture_spans_are_the_identifiers():
    assert [LINES.text[s:e] for s, e, _ in LINES.spans] == ["Ines Moreau", "Paul\nMoreau"]


@pytest.mark.parametrize("seed", range(8))
def test_line_pieces_cover_every_line_once_and_keep_spans_whole(seed):
    pieces = line_pieces(LINES, random.Random(seed))
    lines = [line for line in LINES.text.splitlines() if line.strip()]
    assert [line for p in pieces for line in p.text.splitlines() if line.strip()] == lines
    # at most PIECE_LINES lines, and one more where a span runs over the last line break
    assert all(1 <= len(p.text.split("\n")) - p.text.count("\n\n") <= 4 for p in pieces)
    assert all(p.text == p.text.strip() for p in pieces)
    found = [p.text[s:e] for p in pieces for s, e, _ in p.spans]
    assert found == ["Ines Moreau", "Paul\nMoreau"]
    assert all(p.source == "physionet_deid_dev:piece" and p.group == "patient-1" for p in pieces)


def test_line_pieces_vary_with_the_draw_and_only_for_clinical_gold():
    cuts = {tuple(p.text for p in line_pieces(LINES, random.Random(seed))) for seed in range(8)}
    assert len(cuts) > 1
    silver = LabelledDocument("Met Ana Lima.\nIn Porto.", ((4, 12, "PERSON"),), "s", "silver:gum")
    out = augmented([LINES, silver], refills=0, case_variants=False, look_alikes=0, seed=0, pieces=2)
    assert out[:2] == [LINES, silver] and len(out) > 2
    assert {d.source for d in out[2:]} == {"physionet_deid_dev:piece"}
    assert recipe_digest(DetectorConfig(line_pieces=0)) != recipe_digest(DetectorConfig(line_pieces=1))


def test_a_record_without_a_neutral_field_reads_back_at_its_neutral_value():
    """A recipe recorded before line pieces (or with them off) has no ``line_pieces``: it reads back as 0,
    not as today's default."""
    before = recipe_fields(DetectorConfig(line_pieces=0))
    assert "line_pieces" not in before
    assert config_of_record(DetectorConfig, before) == DetectorConfig(line_pieces=0)
    assert config_of_record(DetectorConfig, recipe_fields(DetectorConfig())) == DetectorConfig()
