"""The gdpr policy through the substitution pipeline: a person replaced whole and the same way in every
mention; hipaa's output untouched by gdpr's stage."""

import json
import re

import pytest

import deid_hf
from deid_hf.detect import stages
from deid_hf.replace import offered_strategies
from deid_hf.replace.quasi import SPOKEN_NATIONALITIES

KEY = "k" * 32

TEXT = (
    "The applicant, Mr S. Esmer, is a Turkish national and a police officer. He was paid 5,000 euros. "
    "Esmer was arrested on 12 May 1998. The Government stated that Mr Esmer had been released."
)


@pytest.fixture(scope="module")
def gdpr():
    return deid_hf.pipeline("deid-substitution", detector="fast", policy="gdpr")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_person_is_replaced_whole_and_consistently(gdpr, seed):
    out = gdpr(TEXT, seed=seed)["text"]
    assert "Esmer" not in out and "S. " not in out
    first = re.search(r"The applicant, Mr ([A-Z])\. (\w+),", out)
    assert first, out
    surname = first.group(2)
    assert out.count(surname) == 3 and f"Mr {surname} had" in out and f"{surname} was arrested" in out
    for original in ("Turkish", "police officer", "5,000 euros", "12 May 1998"):
        assert original not in out
    assert "The Government stated" in out  # a public body is no personal data


@pytest.mark.parametrize("strategy", [s for s in offered_strategies() if s != "date_shift"])
def test_every_strategy_replaces_the_new_labels(strategy):
    pipe = deid_hf.pipeline("deid-substitution", detector="fast", policy="gdpr", strategy=strategy, key=KEY)
    out = pipe(TEXT, seed=1)
    assert {"DEMOGRAPHIC", "OCCUPATION", "QUANTITY"} <= {s["label"] for s in out["spans"]}
    if strategy != "keep":
        assert "Turkish" not in out["text"] and "police officer" not in out["text"]


def test_the_cli_takes_the_gdpr_policy(tmp_path):
    from deid_hf.cli import main

    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"text": TEXT}) + "\n")
    command = ["run", str(source), str(target), "--detector", "fast", "--policy", "gdpr", "--seed", "1"]
    assert main(command) == 0
    out = json.loads(target.read_text().splitlines()[0])["text"]
    assert "Esmer" not in out and "Turkish" not in out


HIPAA_TEXTS = [
    TEXT,
    "Pt Maria Gonzalez, 67, seen by Dr. Kenji Tanaka on 3/14/2019 at Mercy Hospital; MRN 48213377.",
    "Call Ivan Petrov at 617-555-0143 about the Boston office; he is a nurse and earned $300.",
]


@pytest.mark.parametrize("text", HIPAA_TEXTS)
def test_hipaa_output_is_that_without_gdprs_stage(text, monkeypatch):
    with_stage = deid_hf.pipeline("deid-substitution", detector="fast")(text, seed=4)["text"]
    monkeypatch.setattr(
        stages, "DETECTION_STAGES", [s for s in stages.DETECTION_STAGES if s.name != "whole mentions"]
    )
    without = deid_hf.pipeline("deid-substitution", detector="fast")(text, seed=4)["text"]
    assert with_stage == without


def test_a_statutes_name_and_year_are_no_personal_data(gdpr):
    text = (
        "The claimant, Ms Amina Farouk, a bus driver, was dismissed on 3 May 2019. She claimed under the "
        "Employment Rights Act 1996 and the Trade Union and Labour Relations (Consolidation) Act 1992. The "
        "Tribunal finds that the Home Office was not her employer."
    )
    out = gdpr(text, seed=0)["text"]
    for kept in (
        "Employment Rights Act 1996",
        "Labour Relations (Consolidation) Act 1992",
        "The Tribunal finds",
    ):
        assert kept in out, out
    for masked in ("Farouk", "bus driver", "3 May 2019"):
        assert masked not in out, out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_degree_after_a_name_leaves_the_name_a_person(gdpr, seed):
    out = gdpr("Seen by Wiktor Brzezinski PhD today. Brzezinski will follow up.", seed=seed)["text"]
    assert "Wiktor" not in out and "Brzezinski" not in out
    surname = re.match(r"Seen by \w+ (\w+)", out).group(1)
    assert f"{surname} will follow up" in out  # one person, one surrogate


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_degree_and_its_field_are_replaced_by_another_degree(gdpr, seed):
    text = "Ms Ilse Marr holds a PhD in physics and an MBA. She has a BA in English and a PhD."
    out = gdpr(text, seed=seed)
    degrees = [text[s["start"] : s["end"]] for s in out["spans"] if s["label"] == "OCCUPATION"]
    assert degrees == ["PhD in physics", "MBA", "BA in English", "PhD"]  # "English": no nationality
    assert all(s["replaced"] for s in out["spans"])  # "PhD" alone is a degree here, not a title kept
    for original in ("physics", "MBA", "English"):  # a surrogate may be a PhD
        assert original not in out["text"]
    assert re.search(
        r"holds an? \S.* in \w+ and an \S+\. She has an? \S.* in \w+ and an? \S+\.$", out["text"]
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_language_a_person_speaks_becomes_another_language(gdpr, seed):
    text = "Her native language is Chechen; she is fluent in Swahili and Arabic."
    out = gdpr(text, seed=seed)
    assert [text[s["start"] : s["end"]] for s in out["spans"] if s["label"] == "DEMOGRAPHIC"] == [
        "Chechen",
        "Swahili",
        "Arabic",
    ]
    assert re.fullmatch(r"Her native language is (\w+); she is fluent in (\w+) and (\w+)\.", out["text"])
    for language in re.findall(r"(?:is|in|and) (\w+)(?=[;.])", out["text"]):
        assert language in SPOKEN_NATIONALITIES
