import json

import pytest

from deid_hf.detect import get_detector
from deid_hf.detect.base import Detector
from deid_hf.detect.casing import restore_case
from deid_hf.detect.clinical import ClinicalContextDetector
from deid_hf.detect.lexicon import DocumentFrequency, is_misspelling, is_name_word
from deid_hf.detect.policy import IdentifierPolicyDetector, apply_policy, find_dates, find_phones
from deid_hf.errors import InputError
from deid_hf.evaluation.detection import detection_report, load_gold
from deid_hf.spans import Span

from ..conftest import shared_data


def texts(text, spans):
    return {text[s.start : s.end] for s in spans}


def span_of(text, piece, label):
    start = text.index(piece)
    return Span(start, start + len(piece), label, 0.35, "patterns")


def test_measurements_are_kept_and_identifying_numbers_removed():
    text = "BP 120/80, HR 88, lasix 40mg, sats 97%, bed 12, at 0800; MRN 48213377, ref # 8336652, x2"
    numbers = ["120/80", "88", "40mg", "97%", "12", "0800", "48213377", "8336652", "x2"]
    spans = [span_of(text, n, "NUMBER") for n in numbers]
    kept = texts(text, apply_policy(text, spans, "hipaa"))
    assert kept == {"48213377", "8336652"}
    assert texts(text, apply_policy(text, spans, "strict")) == set(numbers)  # strict: every number


def test_dates_but_not_times_durations_or_scores():
    text = (
        "admitted 10/16 at 0800, CABG 8/28/1995 for 2 days; pain 8/10; PS 10/5; 1/2 tab; "
        "in march of 2022; 20th Oct, 1989; seen at 1900; MI in '84; CVA ’81; moved 10/2003"
    )
    assert texts(text, find_dates(text)) == {
        "10/16",
        "8/28/1995",
        "march of 2022",
        "20th Oct, 1989",
        "'84",
        "’81",
        "10/2003",
    }


def test_year_first_dates_phone_shaped_numbers_and_postal_units():
    text = (
        "seen 2020-06-20 14:11:22; call 723 813 266 or +1-984-182-0190; HR 110 120; 1000-1200 ml; K 7.38-33"
    )
    assert texts(text, find_dates(text)) == {"2020-06-20"}
    assert texts(text, find_phones(text)) == {"723 813 266", "+1-984-182-0190"}
    numbers = ["1-984-182-0190", "1000-1200"]
    kept = apply_policy(text, [span_of(text, n, "NUMBER") for n in numbers], "hipaa")
    assert [(text[s.start : s.end], s.label) for s in kept] == [("1-984-182-0190", "PHONE")]
    address = "Apt. 762 and Rm 5 and P.O. Box 104"
    spans = [span_of(address, a, "ADDRESS") for a in ("Apt. 762", "Rm 5", "P.O. Box 104")]
    assert texts(address, apply_policy(address, spans, "hipaa")) == {"Apt. 762", "P.O. Box 104"}


def test_ages_over_89_only():
    text = "a 98 yo man and his 67 yo wife"
    spans = [span_of(text, "98", "AGE"), span_of(text, "67", "AGE")]
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"98"}


def test_names_need_evidence():
    text = "Neuro: soft abd, Golini aware, Baltimore visit"
    spans = [span_of(text, w, "PERSON") for w in ("soft", "abd", "Golini", "Baltimore")]
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"Golini", "Baltimore"}
    text = "flight on Thursday with Dr. Turgeon and Ms. Møller"  # weekdays: no; non-ASCII names, rare
    spans = [span_of(text, w, "OTHER") for w in ("Thursday", "Turgeon", "Møller")]  # names: not typos
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"Turgeon", "Møller"}


def test_where_casing_says_nothing_only_known_names_count():
    # ALL-CAPS line: a word the case restorer left upper case is an abbreviation; a known name still counts
    text = "PT ON CVVH, NKDA. WIFE ANNE AND HO AWARE.\nSeen by Golini"
    words = ("CVVH", "NKDA", "ANNE", "HO", "Golini")
    spans = [span_of(text, w, "PERSON") for w in words]
    shown = restore_case(text)
    assert shown[text.index("HO") : text.index("HO") + 2] == "HO"  # 2-letter names stay abbreviations
    assert texts(text, apply_policy(shown, spans, "hipaa", original=text)) == {"ANNE", "Golini"}
    # a text without capitals: a rare word alone is no name (a clinical abbreviation, a typo), a known
    # name is, and a rare word beside it in the same PERSON span stays with it
    text = "pt afeb, perrl. will consult with patty hoeller and ho re: levoquin"
    spans = [span_of(text, w, "PERSON") for w in ("afeb", "perrl", "patty hoeller", "ho", "levoquin")]
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"patty hoeller"}
    # plural and possessive of an abbreviation: "BP's", "SBP'S" are "BP", "SBP"
    text = "Pt's BP's and SBP'S stable, ABG's drawn; Golini's wife called"
    spans = [span_of(text, w, "OTHER") for w in ("BP's", "SBP'S", "ABG's", "Golini's")]
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"Golini's"}


def test_corpus_vocabulary_and_misspellings():
    vocabulary = DocumentFrequency(min_docs=3).fit(["on cpap 5", "cpap again", "off cpap", "Foley"] * 2)
    assert vocabulary.is_vocabulary("CPAP") and not vocabulary.is_vocabulary("Foley")
    # a rare word written in lower case amid capitals in 3 documents is a common noun there, not a name;
    # lower case in a text without capitals says nothing
    notes = ["Pt on aggrestat, Golini aware.", "Gave aggrestat. BP stable.", "Cont aggrestat per Dr. Golini"]
    common = DocumentFrequency().fit(notes + ["gave golini's aggrestat"] * 5)
    assert common.is_common_noun("Aggrestat") and not common.is_common_noun("Golini's")
    text = "Neuro: Aggrestat given, Golini aware"
    spans = [span_of(text, w, "PERSON") for w in ("Aggrestat", "Golini")]
    assert texts(text, apply_policy(text, spans, "hipaa", vocabulary=common)) == {"Golini"}
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"Aggrestat", "Golini"}  # no corpus: rare
    assert is_misspelling("defecits") and not is_misspelling("bakaitis")
    assert is_name_word("Miller") and not is_name_word("will")


def test_unknown_policy_is_an_input_error():
    with pytest.raises(InputError, match="identifier policy"):
        apply_policy("x", [], "ccpa")
    with pytest.raises(InputError, match="identifier policy"):
        get_detector("patterns", policy="ccpa")


def test_case_restoration_keeps_offsets():
    text = "PT TRANSFERRED TO CCU. DR. POWELL AWARE OF BP 90/60.\nmixed Case line STAYS"
    restored = restore_case(text)
    assert len(restored) == len(text)
    assert restored.lower() == text.lower()
    assert restored.startswith("PT transferred to CCU. Dr. Powell aware")
    assert restored.endswith("mixed Case line STAYS")  # not an ALL-CAPS line: untouched


def test_context_rules_find_clinicians_relatives_and_facilities():
    text = (
        "Dr. o rourke and Dr. Stronczek in room. per dr. kenney. son bill called. "
        "Transfer to Quartermain 2 from Harbor Hospital.\nJean Hudson, RN"
    )
    found = texts(text, ClinicalContextDetector().detect(text))
    for item in ["o rourke", "Stronczek", "kenney", "bill", "Harbor Hospital", "Jean Hudson"]:
        assert item in found
    assert "Transfer" not in " ".join(found)


def test_facilities_and_names_where_casing_says_nothing():
    caps = "PT TAKEN TO UNION HOSPITAL, THEN CARDIAC REHAB. MED FOR COMFORT..BEGIN REHAB. SON BOB AWARE."
    found = texts(caps, ClinicalContextDetector().detect(caps))
    assert found == {"UNION HOSPITAL", "BOB"}
    lower = "had turp at reisterstown hospital. will need poss rehab. went to st. mary hospital. sister sue"
    found = texts(lower, ClinicalContextDetector().detect(lower))
    assert found == {"reisterstown hospital", "st. mary hospital", "sue"}
    mixed = "Went via ambulance to St. Mary Hospital, not to the local hospital or cardiac rehab."
    assert texts(mixed, ClinicalContextDetector().detect(mixed)) == {"St. Mary Hospital"}
    # after a kinship word a capitalised word is a name unless very frequent; in capitals it must be rarer
    # or a given name ("ELENA"); a stop word is none ("Will")
    kin = "Her daughter Elena will pick her up. Son Will Visit later.\nDAUGHTER ELENA CALLED"
    assert texts(kin, ClinicalContextDetector().detect(kin)) == {"Elena", "ELENA"}


def test_hospital_abbreviations_after_a_place_word():
    text = (
        "Transferred to GH at 0800. W/U BY GBMC. seen at the MGH ER. Sent to OSH, then to NH. TAKEN TO CATH "
        "LAB. HIGH FEVER. due to ICU stay. IN PH 7.3. GOOD COUGH. bleed due to ICH, 2/2 SDH, in LVH. "
        "TSH at TSH."
    )
    found = [(text[s.start : s.end], s.label) for s in ClinicalContextDetector().detect(text)]
    assert found == [("GH", "LOCATION"), ("GBMC", "LOCATION"), ("MGH", "LOCATION")]


def test_place_names_take_their_head_word_and_slashed_phones_are_phones():
    from deid_hf.detect.clinical import extend_places

    text = (
        "in Daytona Beach; TO LAUREL REGIONAL; LAUREL regional; Paris park; call 201/324/1423, BP 120/80/72"
    )
    spans = [span_of(text, place, "LOCATION") for place in ("Daytona", "LAUREL", "Paris")]
    spans.append(Span(text.rindex("LAUREL"), text.rindex("LAUREL") + 6, "LOCATION", 0.5, "test"))
    assert texts(text, extend_places(text, spans)) == {"Daytona Beach", "LAUREL REGIONAL", "LAUREL", "Paris"}
    assert texts(text, find_phones(text)) == {"201/324/1423"}


class _EveryWord(Detector):
    """Flags every word: digits as NUMBER, letters as PERSON (a stand-in for a noisy detector)."""

    name = "every-word"

    def detect(self, text):
        import re

        return [
            Span(m.start(), m.end(), "NUMBER" if m.group()[0].isdigit() else "PERSON", 0.5, self.name)
            for m in re.finditer(r"\S+", text)
        ]


def test_policy_detector_filters_a_noisy_detector_on_case_restored_text():
    text = "PT SEEN BY DR. BAKAITIS ON 10/16 AT 0800. HR 88. LASIX GIVEN."
    spans = IdentifierPolicyDetector(_EveryWord(), "hipaa").detect(text)
    assert texts(text, spans) == {"BAKAITIS", "10/16"}


class _TrainedOnHipaa(_EveryWord):
    """A detector whose gold followed the hipaa policy (as a deid-hf trained token classifier records)."""

    name = "trained"
    trained_policy = "hipaa"

    def detect(self, text):
        self.seen = text
        return super().detect(text)


def test_a_detector_trained_on_the_policy_keeps_its_spans_and_sees_the_text_as_written():
    text = "PT SEEN BY DR. BAKAITIS ON 10/16 AT 0800. HR 88. LASIX GIVEN."
    trained = _TrainedOnHipaa()
    spans = IdentifierPolicyDetector(trained, "hipaa").detect(text)
    assert trained.seen == text  # not the case-restored copy the other detectors get
    assert {"0800.", "88.", "LASIX"} <= texts(text, spans)  # its own spans are not filtered again
    assert texts(text, IdentifierPolicyDetector(_EveryWord(), "hipaa").detect(text)) == {"BAKAITIS", "10/16"}
    trained.trained_policy = "other"
    assert texts(text, IdentifierPolicyDetector(trained, "hipaa").detect(text)) == {"BAKAITIS", "10/16"}


@pytest.mark.filterwarnings("ignore")
def test_fast_hipaa_on_clinical_notes_keeps_its_measured_floor():
    """fast + hipaa on the first 5 dev patients (49 notes): measured P .55 / R .96 (fast strict: P .03 /
    R .88); the floors leave a margin for spaCy versions, and fail if the policy stops filtering."""
    path = shared_data("physionet_deid_dev/notes.jsonl")
    patients = [json.loads(line)["patient"] for line in path.read_text().splitlines() if line.strip()]
    chosen = set(sorted(set(patients))[:5])
    docs = [d for d, p in zip(load_gold(path, text_field="text"), patients) if p in chosen]
    detector = get_detector("fast", policy="hipaa").fit([d.text for d in docs])  # corpus statistics
    report = detection_report(docs, detector.detect_batch([d.text for d in docs]))
    assert report["token_precision"] >= 0.45
    assert report["token_recall"] >= 0.90


def test_drug_names_and_acronyms_are_not_names_but_known_names_in_capitals_are():
    text = "Gave Motrin and Oxycontin for pain. Hx of COPD and PTCA. Golini aware; son ROBERT called."
    spans = [span_of(text, w, "PERSON") for w in ("Motrin", "Oxycontin", "COPD", "PTCA", "Golini", "ROBERT")]
    assert texts(text, apply_policy(text, spans, "hipaa")) == {"Golini", "ROBERT"}
    assert len(apply_policy(text, spans, "strict")) == 6


class _TrainedDates(Detector):
    """Stands for a model trained on hipaa gold: its spans are kept as found (bar bare numbers)."""

    name = "trained"
    trained_policy = "hipaa"

    def detect(self, text):
        pieces = ("9", "/7", "2000", "3/4/2021", "March", "Tuesday", "8 pm")
        dates = [span_of(text, piece, "DATE_TIME") for piece in pieces]
        places = [span_of(text, piece, "LOCATION") for piece in ("from", "Sam from")]
        return dates + places + [Span(text.index("Conto"), text.index("Conto") + 5, "ORG", 0.5, self.name)]


def test_a_trained_models_spans_are_whole_words_without_bare_numbers_or_function_words_alone():
    text = "Sats 9 /7 at 2000; seen 3/4/2021 and in March; Sam from Contoso on Tuesday at 8 pm"
    found = texts(text, IdentifierPolicyDetector(_TrainedDates(), "hipaa", context=False).detect(text))
    assert found == {"3/4/2021", "March", "Sam", "Contoso"}  # a subword piece widened to its word
    assert len(IdentifierPolicyDetector(_TrainedDates(), "strict", context=False).detect(text)) == 9


def test_a_trained_models_spans_keep_names_that_are_function_words_and_dotted_dates_trimmed():
    from deid_hf.detect.policy import keep_trained

    text = "Seen 04.03.2021 by Will and May, US office; 患者张伟于北京就诊; Springfield, IL 62704"
    pieces = [("04.03.2021", "DATE_TIME"), ("Will", "PERSON"), ("May", "PERSON"), ("US", "LOCATION")]
    spans = [span_of(text, piece, label) for piece, label in pieces] + [span_of(text, "张伟", "PERSON")]
    spans.append(span_of(text, ", IL", "ADDRESS"))
    kept = keep_trained(text, spans, [])
    found = [text[s.start : s.end] for s in kept]
    assert found == ["04.03.2021", "Will", "May", "US", "张伟", "IL"]  # CJK not widened; no leading comma


@pytest.mark.parametrize(
    ("text", "piece", "word"),
    [
        ("Isfahan (Persian: اصفهان) is a city.", "اصفه", "اصفهان"),  # Arabic: written with spaces
        ("Moshe Levi (משה לוי) called.", "מש", "משה"),  # Hebrew
        ("Anjali (अंजलि) called.", "अं", "अंजलि"),  # Devanagari, its vowel signs inside the word
        ("Rene\u0301 Noire called.", "Rene", "Rene\u0301"),  # a combining accent ends the Latin word
        ("患者张伟于北京就诊", "张伟", "张伟"),  # Chinese has no spaces: a piece is not widened
    ],
)
def test_a_subword_piece_is_widened_to_its_word_in_scripts_written_with_spaces(text, piece, word):
    from deid_hf.detect.policy import keep_trained

    kept = keep_trained(text, [span_of(text, piece, "PERSON")], [])
    assert [text[s.start : s.end] for s in kept] == [word]


@pytest.mark.parametrize(
    ("piece", "label", "kept"),
    [
        ("Dr.", "OTHER", False),  # a title alone is no identifier
        ("Mrs", "PERSON", False),
        ("Prof. Dr.", "OTHER", False),
        ("Dr. Kenji Tanaka", "PERSON", True),  # with a name it stays
        ("Drew", "PERSON", True),  # a name that starts like a title
    ],
)
def test_a_trained_models_title_alone_is_dropped(piece, label, kept):
    from deid_hf.detect.policy import keep_trained

    text = f"Patient seen by {piece} today."
    assert bool(keep_trained(text, [span_of(text, piece, label)], [])) == kept


def test_a_trained_models_names_lose_edge_words_in_lower_case_and_a_persons_possessive():
    from deid_hf.detect.policy import keep_trained

    text = (
        "The pianist met Budjana 's cousin at Macy's, a South Korean company; van Gogh, michael, anita morris"
        " too, and Chicago's mayor of the group, the 3M company, the 7-Eleven store, JOHN SMITH'S car and 'S."
    )
    pieces = [
        ("pianist", "OTHER"),  # a common word alone: no name
        ("Budjana 's cousin", "PERSON"),  # a person's possessive is no part of the name
        ("Macy's", "ORG"),  # a shop's is
        ("a South Korean company", "ORG"),
        ("van Gogh", "PERSON"),  # a name particle stays
        ("anita morris", "PERSON"),  # known person names in lower case stay
        ("michael", "PERSON"),  # even frequent ones
        ("Chicago's mayor", "LOCATION"),
        ("of the group", "ORG"),
        ("the 3M company", "ORG"),  # a word with a digit is never cut
        ("the 7-Eleven store", "ORG"),
        ("JOHN SMITH'S", "PERSON"),
        ("'S", "PERSON"),  # a possessive alone: nothing left
    ]
    kept = keep_trained(text, [span_of(text, piece, label) for piece, label in pieces], [])
    assert [text[s.start : s.end] for s in kept] == [
        "Budjana",
        "Macy's",
        "South Korean",
        "van Gogh",
        "anita morris",
        "michael",
        "Chicago",
        "3M",
        "7-Eleven",
        "JOHN SMITH",
    ]
    # where lower case says little (no capitals, a sentence begun in lower case, "i"): the possessive goes
    for text in ("the pianist met budjana's cousin", "At Macy's i met budjana's cousin, a pianist"):
        pieces = [("pianist", "OTHER"), ("budjana's", "PERSON")]
        kept = keep_trained(text, [span_of(text, piece, label) for piece, label in pieces], [])
        assert sorted(text[s.start : s.end] for s in kept) == ["budjana", "pianist"]


def test_a_trained_models_date_is_left_to_the_date_rule_that_overlaps_it():
    text = "Born May 6 , 1913 at 11:34:35 in Ohio; seen the 5th"
    model = _FixedSpans(
        "model", [("May 6 , 1913 at 11:34:35", "DATE_TIME", 0.9), ("the 5th", "DATE_TIME", 0.9)], "hipaa"
    )
    kept = IdentifierPolicyDetector(model, "hipaa", context=False).detect(text)
    # the rule's date (no year after a spaced comma, no time of day); a date no rule finds stays as found
    assert [(text[s.start : s.end], s.label) for s in kept] == [
        ("May 6", "DATE_TIME"),
        ("the 5th", "DATE_TIME"),
    ]


def test_a_trained_models_ages_follow_the_policy_age_rule():
    text = "Patient, 67 years old, lives with her mother, 92 years old, and her son (aged forty)."
    model = _FixedSpans(
        "model",
        [("67 years old", "AGE", 0.9), ("92 years old", "AGE", 0.9), ("aged forty", "AGE", 0.9)],
        trained_policy="hipaa",
    )
    kept = IdentifierPolicyDetector(model, "hipaa", context=False).detect(text)
    assert [(text[s.start : s.end], s.label) for s in kept] == [("92 years old", "AGE")]
    assert len(IdentifierPolicyDetector(model, "strict", context=False).detect(text)) == 3


def test_under_gdpr_a_hipaa_trained_model_keeps_every_age_and_drops_public_bodies():
    text = "Patient, 67 years old, wrote to the Ministry of Justice about Dr. Imre Szabo."
    model = _FixedSpans(
        "model",
        [("67 years old", "AGE", 0.9), ("Ministry of Justice", "ORG", 0.9), ("Imre Szabo", "PERSON", 0.9)],
        trained_policy="hipaa",
    )
    gdpr = IdentifierPolicyDetector(model, "gdpr", context=False).detect(text)
    hipaa = IdentifierPolicyDetector(model, "hipaa", context=False).detect(text)
    assert {"67 years old", "Dr. Imre Szabo"} <= texts(text, gdpr) and "Ministry of Justice" not in texts(
        text, gdpr
    )
    assert texts(text, hipaa) == {"Ministry of Justice", "Imre Szabo"}


class _FixedSpans(Detector):
    """Returns the given (piece, label, score) spans of any text."""

    def __init__(self, name, pieces, trained_policy=None):
        self.name, self.pieces, self.trained_policy = name, pieces, trained_policy

    def detect(self, text):
        return [
            Span(text.index(p), text.index(p) + len(p), label, score, self.name)
            for p, label, score in self.pieces
        ]


def test_a_number_after_an_id_context_is_an_id_whatever_a_model_calls_it():
    text = "Patient MRN 4839201 seen by the team; call 42"
    numbers = _FixedSpans("patterns", [("4839201", "NUMBER", 0.35), ("42", "NUMBER", 0.35)])
    model = _FixedSpans("model", [("4839201", "ADDRESS", 0.61)], trained_policy="hipaa")
    detector = IdentifierPolicyDetector(get_detector([numbers, model]), "hipaa", context=False)
    assert [(text[s.start : s.end], s.label) for s in detector.detect(text)] == [("4839201", "ID")]
    patterns = get_detector("patterns", policy="hipaa")
    text = "Hi, my order 88213-A never arrived; ticket 4471 is open. Bed 4471 is free."
    found = [(s.start, s.end, s.label) for s in patterns.detect(text)]
    order, ticket = text.index("88213-A"), text.index("4471")
    assert (order, order + 7, "ID") in found and (ticket, ticket + 4, "ID") in found
    assert text.rindex("4471") not in [start for start, _, _ in found]  # a bed number is not an identifier
    for measurement in (
        "Order 1000 mL NS bolus",
        "Per order 2000 units heparin",
        "order 10.5 then",
        "order 1000mg",
    ):
        assert patterns.detect(measurement) == [], measurement


def test_a_confident_token_classifier_types_names_that_spacy_types_otherwise():
    text = "Hi Sam, this is Jordan from Contoso support."
    spacy_only = {text[s.start : s.end]: s.label for s in get_detector("spacy").detect(text)}
    assert spacy_only.get("Jordan") == "LOCATION"  # spaCy sm's guess for this name
    model = _FixedSpans("model", [("Jordan", "PERSON", 0.6)])
    merged = {text[s.start : s.end]: s.label for s in get_detector(["spacy", model]).detect(text)}
    assert merged["Jordan"] == "PERSON"


def test_a_validated_phone_number_stays_a_phone_whatever_a_model_calls_it():
    text = "You can reach me at (217) 555-0143 after six."
    model = _FixedSpans("model", [("555-0143", "ADDRESS", 0.8)], trained_policy="hipaa")
    for policy in ("hipaa", "strict"):
        merged = get_detector(["patterns", model], policy=policy).detect(text)
        assert [(text[s.start : s.end], s.label) for s in merged] == [("(217) 555-0143", "PHONE")]
    text = "Your member number is 2125550143. MRN 4155550143"  # bare digits: a confident model's ID wins
    model = _FixedSpans("model", [("2125550143", "ID", 0.85)], trained_policy="hipaa")
    merged = get_detector(["patterns", model], policy="hipaa").detect(text)
    assert [(text[s.start : s.end], s.label) for s in merged] == [("2125550143", "ID"), ("4155550143", "ID")]


def test_drug_names_are_kept_in_the_cache_and_read_back(tmp_path, monkeypatch):
    from drug_named_entity_recognition import drugs_finder

    from deid_hf.detect import lexicon

    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    lexicon.drug_names.cache_clear()
    try:
        computed = lexicon.drug_names()
        (written,) = (tmp_path / "lexicon").glob("drug-names-*.txt")
        assert frozenset(written.read_text(encoding="utf-8").split()) == computed
        assert "oxycontin" in computed and computed <= set(drugs_finder.drug_variant_to_canonical)
        written.write_text("onlyword", encoding="utf-8")  # the cache file is what a later process reads
        lexicon.drug_names.cache_clear()
        assert lexicon.drug_names() == frozenset({"onlyword"})
    finally:
        lexicon.drug_names.cache_clear()


def test_drug_names_without_a_writable_cache(tmp_path, monkeypatch):
    from deid_hf.detect import lexicon

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("DEID_HF_CACHE", str(blocker))  # the cache cannot be created under a file
    lexicon.drug_names.cache_clear()
    try:
        assert "oxycontin" in lexicon.drug_names()
    finally:
        lexicon.drug_names.cache_clear()
