import json

import pytest

import deid_hf
from deid_hf.evaluation.report import load_setup, utility_rows, write_report
from deid_hf.evaluation.utility import (
    Example,
    GoldSpanDetector,
    TrainConfig,
    bio_entities,
    bio_spans,
    deidentify_examples,
    entity_f1,
    load_conll,
    load_snips,
    train_and_test,
)

from ..conftest import SHARED_DATA, shared_data


def test_bio_entities_and_spans():
    tokens = ["play", "the", "beatles", "in", "new", "york", "city"]
    tags = ["O", "O", "B-artist", "O", "B-city", "I-city", "I-city"]
    assert bio_entities(tags) == [(2, 3, "artist"), (4, 7, "city")]
    text = " ".join(tokens)
    assert [(text[s.start : s.end], s.label) for s in bio_spans(tokens, tags)] == [
        ("beatles", "PERSON"),
        ("new york city", "LOCATION"),
    ]
    assert bio_entities(["I-PER", "I-PER", "B-PER", "O", "I-LOC"]) == [
        (0, 2, "PER"),
        (2, 3, "PER"),
        (4, 5, "LOC"),
    ]
    assert [s.label for s in bio_spans(["Ann", "in", "Rome"], ["B-person", "O", "B-location"])] == [
        "PERSON",
        "LOCATION",
    ]


def test_entity_f1():
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    assert entity_f1(gold, gold) == 1.0
    assert entity_f1(gold, [["B-PER", "O", "O", "B-LOC"]]) == pytest.approx(0.5)
    assert entity_f1(gold, [["O"] * 4]) == 0.0


@pytest.fixture(scope="module")
def tiny_ner():
    train = [
        Example(["Tom", "lives", "in", "Paris"], ["B-PER", "O", "O", "B-LOC"]),
        Example(["Ann", "Lee", "met", "Bob"], ["B-PER", "I-PER", "O", "B-PER"]),
    ] * 4
    return train


def test_tags_follow_the_replacement_words(tiny_ner):
    pipe = deid_hf.pipeline("deid-substitution", strategy="full_entity", detector=GoldSpanDetector(tiny_ner))
    out, privacy = deidentify_examples(pipe, tiny_ner[:2], p=1.0, seed=0)
    assert "Tom" not in out[0].tokens and "Paris" not in out[0].tokens
    assert len(out[0].tokens) == len(out[0].tags) and out[0].tags[0] == "B-PER"
    assert out[1].tags[:1] == ["B-PER"] and "B-LOC" in out[0].tags and privacy["dp"] is False
    typed, privacy = deidentify_examples(
        deid_hf.pipeline("deid-substitution", strategy="typed", detector=GoldSpanDetector(tiny_ner)),
        tiny_ner[:2],
        p=1.0,
        seed=0,
    )
    assert typed[1].tokens == ["<PERSON>", "met", "<PERSON>"] and typed[1].tags == ["B-PER", "O", "B-PER"]
    assert privacy["epsilon"] == 0.0


@pytest.mark.slow
def test_accelerate_loop_is_deterministic_under_a_seed(tiny_ner):
    config = TrainConfig(max_steps=4, batch_size=4)
    first = train_and_test("ner", tiny_ner, tiny_ner[:2], seed=1, config=config)
    again = train_and_test("ner", tiny_ner, tiny_ner[:2], seed=1, config=config)
    other = train_and_test("ner", tiny_ner, tiny_ner[:2], seed=2, config=config)
    assert first == again and first["steps"] == 4
    assert first["final_loss"] != other["final_loss"]


@pytest.mark.slow
@pytest.mark.data
def test_intent_rows_and_report(tmp_path):
    shared_data("snips_slotgated")
    setup = load_setup("snips", SHARED_DATA, train_size=24, test_size=12)
    assert setup.task == "intent" and len(setup.train) == 24

    def make_pipe(strategy, detector):
        return deid_hf.pipeline("deid-substitution", strategy=strategy, detector=detector)

    rows = utility_rows(
        setup,
        make_pipe,
        ["typed"],
        ["gold"],
        [0, 1],
        TrainConfig(max_steps=2, batch_size=8),
        progress=lambda msg: None,
    )
    assert [r["strategy"] for r in rows] == ["original", "typed"] and rows[1]["privacy"] == "epsilon = 0"
    assert all(0.0 <= r["mean"] <= 1.0 and len(r["runs"]) == 2 for r in rows)
    curve = [{**rows[1], "p": p} for p in (0.5, 1.0)]
    write_report(tmp_path, {"token_precision": 0.8, "token_recall": 0.9, "leakage": None}, rows, curve)
    assert "| snips | typed | gold | 1.0 | epsilon = 0 |" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "tradeoff.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "report.json").read_text())["utility"][0]["strategy"] == "original"


@pytest.mark.data
def test_loaders_read_the_shared_data():
    snips = load_snips(shared_data("snips_slotgated"), "test")
    assert len(snips) == 700 and all(len(e.tokens) == len(e.tags) for e in snips)
    btc = load_conll([shared_data("btc_broad_twitter_corpus/h.conll")])
    assert len(btc) > 1000 and any(t != "O" for e in btc for t in e.tags)


@pytest.mark.slow
@pytest.mark.data
def test_cli_evaluate_detection_and_utility(tmp_path):
    from deid_hf.cli import main

    data = shared_data("presidio_synth_pii/synth_dataset_v2.json")
    assert (
        main(
            [
                "evaluate",
                "detection",
                "--data",
                str(data),
                "--limit",
                "20",
                "--detector",
                "patterns",
                "--json",
                str(tmp_path / "det.json"),
            ]
        )
        == 0
    )
    report = json.loads((tmp_path / "det.json").read_text())
    assert 0 < report["token_recall"] <= 1 and report["leakage"] is not None
    assert (
        main(
            [
                "evaluate",
                "utility",
                "--dataset",
                "btc",
                "--data-root",
                str(SHARED_DATA),
                "--train-size",
                "16",
                "--test-size",
                "8",
                "--max-steps",
                "2",
                "--seeds",
                "1",
                "--strategies",
                "typed",
                "--detectors",
                "gold",
                "--json",
                str(tmp_path / "u.json"),
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / "u.json").read_text())
    assert [r["strategy"] for r in rows] == ["original", "typed"]


def test_gold_spans_are_found_in_the_text_the_models_see():
    from deid_hf.text import model_text

    example = Example(["\U0001f600Marek", "called"], ["B-PERSON", "O"])  # a tweet's emoji, blanked for models
    detector = GoldSpanDetector([example])
    assert detector.detect(model_text(example.text)) == detector.detect(example.text) == example.spans
