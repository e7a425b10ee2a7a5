import pytest

from deid_hf.corpora import LabelledDocument
from deid_hf.errors import InputError
from deid_hf.train import silver
from deid_hf.train.detector import DetectorConfig, default_documents
from deid_hf.train.silver import (
    SILVER_SOURCES,
    WIKIGOLD_SILVER_ARTICLES,
    detokenize,
    silver_documents,
    strict_names,
    unlabelled_texts,
    wikigold_articles,
)
from tests.conftest import shared_data


def test_detokenize_joins_tokens_as_running_text():
    assert detokenize(["I", "'", "m", "here", "(", "now", ")", "."]) == "I'm here (now)."
    assert detokenize(["Don", "'t", "pay", "$", "5", ",", "or", "50", "%", "!"]) == "Don't pay $5, or 50%!"
    assert detokenize(["John", "'s", "car"]) == "John's car"


def test_unlabelled_texts_sample_every_source_but_evaluation_sets():
    root = shared_data("gum_ner").parent
    texts = unlabelled_texts(root, 5, seed=1)
    assert {source for source, _ in texts} == set(SILVER_SOURCES)
    assert all(len(t.split()) >= 3 for _, t in texts)
    assert sum(source == "sst2" for source, _ in texts) == 5
    assert texts == unlabelled_texts(root, 5, seed=1) and texts != unlabelled_texts(root, 5, seed=2)


def test_whole_sources_give_every_text_and_wikigold_keeps_its_held_out_articles():
    root = shared_data("wikigold").parent
    shared_data("gum_ner")
    texts = unlabelled_texts(root, 5, seed=1, whole=("wikigold",))
    articles = wikigold_articles(root / "wikigold" / "wikigold.conll.txt")
    silver = [detokenize(ex.tokens) for a in articles[:WIKIGOLD_SILVER_ARTICLES] for ex in a]
    held_out = {detokenize(ex.tokens) for a in articles[WIKIGOLD_SILVER_ARTICLES:] for ex in a}
    assert len(articles) == 145 and 0 < WIKIGOLD_SILVER_ARTICLES < len(articles)
    assert [t for s, t in texts if s == "wikigold"] == [t for t in silver if len(t.split()) >= 3]
    assert not held_out & {t for _, t in texts}
    assert sum(source == "gum" for source, _ in texts) == 5


def test_silver_whole_names_known_sources():
    assert DetectorConfig(silver_whole=["gum"]).silver_whole == ("gum",)
    with pytest.raises(InputError, match="silver_whole must name silver sources"):
        DetectorConfig(silver_whole=("wiki",))
    for wrong in ("gum", 3, None):
        with pytest.raises(InputError, match="silver_whole"):
            DetectorConfig(silver_whole=wrong)


def test_silver_documents_carry_the_detector_spans_and_are_cached(tmp_path, monkeypatch):
    root = shared_data("gum_ner").parent
    docs = silver_documents(root, 4, detector="patterns", policy="strict", cache=tmp_path)
    assert len(docs) == len(unlabelled_texts(root, 4)) and all(d.source.startswith("silver:") for d in docs)
    assert all(d.text[s:e].strip() for d in docs for s, e, _ in d.spans)
    assert len(list(tmp_path.iterdir())) == 1

    def no_labelling(*_):
        raise AssertionError("labelled again instead of read from the cache")

    monkeypatch.setattr(silver, "label_texts", no_labelling)
    assert silver_documents(root, 4, detector="patterns", policy="strict", cache=tmp_path) == docs


def test_default_documents_add_the_silver_asked_for(tmp_path, monkeypatch):
    root = shared_data("physionet_deid_dev").parent
    shared_data("presidio_synth_pii")
    monkeypatch.setenv("DEID_HF_CACHE", str(tmp_path))
    gold, _ = default_documents(root, DetectorConfig(silver_per_source=0))
    config = DetectorConfig(silver_per_source=2, silver_detector="patterns", silver_whole=("wikigold",))
    mixed, _ = default_documents(root, config)
    added = [d for d in mixed if d.source.startswith("silver:")]
    assert not any(d.source.startswith("silver:") for d in gold)
    assert len(mixed) == len(gold) + len(added) and len(added) == len(
        unlabelled_texts(root, 2, whole=("wikigold",))
    )


def test_silver_config_is_checked():
    with pytest.raises(InputError, match="silver_per_source"):
        DetectorConfig(silver_per_source=-1)
    with pytest.raises(InputError, match="silver_policy"):
        DetectorConfig(silver_policy="gdpr")


def test_a_missing_silver_source_is_named(tmp_path):
    with pytest.raises(InputError, match=r"silver source 'abcd' could not be read.*--silver 0"):
        unlabelled_texts(tmp_path, 3)


def test_strict_names_keeps_names_and_applies_hipaa_to_the_rest():
    text = (
        "Ann Lee joined the Army of the Potomac on September 1, 1862, two weeks later, with 5000 men aged 24."
    )

    def at(piece, label):
        return (text.index(piece), text.index(piece) + len(piece), label)

    strict = LabelledDocument(
        text,
        (
            at("Ann Lee", "PERSON"),
            at("the Army of the Potomac", "ORG"),
            at("September 1, 1862", "DATE_TIME"),
            at("two weeks later", "DATE_TIME"),
            at("5000", "NUMBER"),
            at("24", "AGE"),
        ),
        "g",
        "silver:gum",
    )
    relabelled = strict_names(strict)
    assert [(text[s:e], label) for s, e, label in relabelled.spans] == [
        ("Ann Lee", "PERSON"),
        ("Army of the Potomac", "ORG"),
        ("September 1, 1862", "DATE_TIME"),
    ]
    assert relabelled.original_labels == ("PERSON", "ORG", "DATE_TIME")
    assert (relabelled.group, relabelled.source) == ("g", "silver:gum")


def test_strict_names_gives_dates_their_label_and_drops_names_without_a_word():
    text = "Born May 5, 1990 in (the Bronx) , said 」 and Bullock 's friend."

    def at(piece, label):
        return (text.index(piece), text.index(piece) + len(piece), label)

    strict = LabelledDocument(
        text,
        (at("May", "PERSON"), at("(the Bronx)", "LOCATION"), at("」", "PERSON"), at("Bullock 's", "ORG")),
        "g",
    )
    assert [(text[s:e], label) for s, e, label in strict_names(strict).spans] == [
        ("May 5, 1990", "DATE_TIME"),  # the date rule outranks the strict teacher's name
        ("Bronx", "LOCATION"),
        ("Bullock", "ORG"),
    ]


def test_strict_names_silver_reads_the_strict_labels(tmp_path, monkeypatch):
    root = shared_data("gum_ner").parent
    strict = silver_documents(root, 3, detector="patterns", policy="strict", cache=tmp_path)

    def no_labelling(*_):
        raise AssertionError("labelled again instead of read from the strict cache")

    monkeypatch.setattr(silver, "label_texts", no_labelling)
    mixed = silver_documents(root, 3, detector="patterns", policy="strict-names", cache=tmp_path)
    assert mixed == [strict_names(d) for d in strict] and len(list(tmp_path.iterdir())) == 1
