import json
import math

import pytest

from deid_hf.corpus import aggregate_privacy
from deid_hf.errors import InputError
from deid_hf.evaluation.report import privacy_label
from deid_hf.privacy.report import PrivacyReport
from deid_hf.replace import get_strategy

RR = PrivacyReport("randomized_response", True, math.log(2), "epsilon = 0.6931", p=0.5, strategy="named")


def test_report_round_trips_through_json():
    report = RR.with_(detector="fast", caveats=("recall",), details={"pi_support": {"PERSON": 1}})
    data = json.loads(json.dumps(report.to_dict()))
    assert set(data) == {
        "mechanism",
        "dp",
        "epsilon",
        "guarantee",
        "p",
        "epsilon_per_token",
        "strategy",
        "detector",
        "caveats",
        "details",
    }
    assert PrivacyReport.from_dict(data) == report
    with pytest.raises(InputError, match="not a privacy report"):
        PrivacyReport.from_dict({"dp": True})


def test_report_refuses_contradictions():
    with pytest.raises(InputError, match="contradicts"):
        PrivacyReport("randomized_response", True, None, "x")
    with pytest.raises(InputError, match="contradicts"):
        PrivacyReport("randomized_response", True, math.inf, "x")
    with pytest.raises(InputError, match="cannot claim"):
        PrivacyReport("none", True, 1.0, "x")
    with pytest.raises(InputError, match="mechanism must be"):
        PrivacyReport("laplace", False, None, "x")


def test_labels_come_from_fields_not_from_the_text():
    infinite = get_strategy("typed").privacy(0.9, {"PERSON": {"Ann"}})
    none = get_strategy("full_entity").privacy(1.0, {"PERSON": {"Ann"}})
    assert infinite.mechanism == "randomized_response" and not infinite.dp
    assert [privacy_label(r) for r in (RR, infinite, none)] == [
        "epsilon = 0.693",
        "epsilon = inf",
        "no DP guarantee",
    ]
    assert privacy_label(none.with_(guarantee="anything").to_dict()) == "no DP guarantee"


def test_corpus_aggregate_is_the_worst_document():
    low, high = RR.with_(epsilon=0.5, caveats=("a",)), RR.with_(epsilon=2.0, caveats=("a", "b"))
    combined = aggregate_privacy([low.to_dict(), high])
    assert combined.epsilon == 2.0 and combined.dp and combined.caveats == ("a", "b")
    none = get_strategy("full_entity").privacy(1.0, {"PERSON": {"Ann"}})
    assert aggregate_privacy([low, none, high]).label == "no DP guarantee"
    empty = aggregate_privacy([])
    assert not empty.dp and empty.guarantee == "no records processed"


def test_corpus_headline_names_every_label_without_a_guarantee():
    """The whole run's sentence comes from every record's labels, not from the first record without DP."""
    strategy = get_strategy({"PERSON": "full_entity", "PHONE": "mask", "default": "typed"})
    first = strategy.privacy(1.0, {"PERSON": {"Ann"}, "DATE_TIME": {"May 1"}})
    second = strategy.privacy(1.0, {"PHONE": {"555-0100"}})
    combined = aggregate_privacy([first.to_dict(), second.to_dict()])
    assert not combined.dp and combined.mechanism == "none"
    assert set(combined.details["per_label"]) == {"DATE_TIME", "PERSON", "PHONE"}
    assert "PERSON:" in combined.guarantee and "PHONE:" in combined.guarantee
    assert "DATE_TIME" not in combined.guarantee  # typed: epsilon 0 at p = 1
    epsilon_inf = get_strategy("typed").privacy(0.9, {"PERSON": {"Ann"}})
    assert aggregate_privacy([epsilon_inf, first]).mechanism == "none"  # no mechanism is the weaker


def test_a_corpus_is_judged_on_the_documents_where_something_was_replaced():
    """A document where nothing was found says what its operators would give; it decides the corpus's
    report only where nothing was replaced anywhere (in any record order)."""
    strategy = get_strategy({"DATE_TIME": "date_shift", "default": "typed"})
    nothing, person = strategy.privacy(1.0, {}), strategy.privacy(1.0, {"PERSON": {"Ann"}})
    assert not nothing.dp and person.dp
    for reports in ([nothing, person], [person, nothing]):
        combined = aggregate_privacy([r.to_dict() for r in reports])
        assert combined.dp and combined.epsilon == 0.0
        assert not combined.guarantee.startswith("nothing was replaced") and combined.guarantee
    typed = get_strategy("typed")
    reports = [typed.privacy(1.0, {}), typed.privacy(1.0, {"PERSON": {"Ann"}}), typed.privacy(1.0, {})]
    assert not aggregate_privacy(reports).guarantee.startswith("nothing was replaced")
    alone = aggregate_privacy([nothing.to_dict(), nothing.to_dict()])
    assert not alone.dp and alone.guarantee.startswith("nothing was replaced; no DP guarantee")
