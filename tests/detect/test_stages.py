"""The detection stages: one declared order, extensible by one `add_stage` call; capabilities declared on
the base class."""

import pytest

from deid_hf.detect.policy import IdentifierPolicyDetector
from deid_hf.detect.rules import recording
from deid_hf.detect.stages import (
    DETECTION_STAGES,
    Stage,
    add_stage,
    finish_detection,
    remove_stage,
    stage_names,
)
from deid_hf.detect.user_options import UserOptionsDetector
from deid_hf.errors import InputError
from deid_hf.spans import Span

from .fixed import FixedDetector


def test_the_stages_run_in_one_declared_order():
    assert stage_names() == [
        "case restoration",
        "detectors",
        "identifier policy",
        "context rules",
        "date and phone rules",
        "merge",
        "whole mentions",
        "score threshold",
        "letterless names",
        "word boundaries",
        "patterns and deny list",
        "mentions",
        "allow list",
        "entity filter",
        "one label per surface",
    ]
    assert [s.part for s in DETECTION_STAGES] == ["policy"] * 7 + ["user options"] * 7 + ["replacement"]


@pytest.fixture
def short_spans_dropped():
    def drop_short(owner, document):
        return [s for s in document.spans if s.end - s.start > 3]

    stage = add_stage(Stage.per_document("drop short spans", "user options", drop_short), after="mentions")
    yield stage
    remove_stage(stage.name)


def test_a_user_stage_is_one_entry_in_the_list(short_spans_dropped):
    assert stage_names().index("drop short spans") == stage_names().index("mentions") + 1
    text = "Ann met Oleander Quist at noon."
    detector = UserOptionsDetector(FixedDetector([("Ann", "PERSON"), ("Oleander Quist", "PERSON")]))
    with recording() as log:
        spans = detector.detect(text)
    assert [text[s.start : s.end] for s in spans] == ["Oleander Quist"]
    assert ("Ann", "stage:drop short spans", False) in {(text[d.start : d.end], d.rule, d.kept) for d in log}
    with pytest.raises(InputError, match="already exists"):
        add_stage(Stage.per_document("drop short spans", "user options", lambda owner, document: []))
    with pytest.raises(InputError, match="no detection stage"):
        add_stage(Stage.per_document("another", "user options", lambda o, d: d.spans), after="nothing")


def test_the_replacement_stage_gives_one_label_per_surface():
    text = "Rowan called. Rowan left."
    spans = [Span(0, 5, "PERSON", 0.9, "a"), Span(14, 19, "ORG", 0.5, "b")]
    assert [s.label for s in finish_detection(text, spans)] == ["PERSON", "PERSON"]


@pytest.mark.parametrize(
    ("policy", "label", "repeated"),
    [("gdpr", "OTHER", False), ("gdpr", "PERSON", False), ("hipaa", "OTHER", True)],
)
def test_gdpr_repeats_no_mention_into_a_public_body(policy, label, repeated):
    """A nationality found once is repeated wherever it stands, but under gdpr not into the name of a state's
    body ("the Turkish Government"), in the user-options stage and in the replacement stage alike."""
    text = "The applicant is a Turkish national. The Turkish Government were represented by their Agent."
    detector = UserOptionsDetector(
        IdentifierPolicyDetector(FixedDetector([("Turkish", label)]), policy=policy, context=False)
    )
    second = text.rindex("Turkish")
    for spans in (detector.detect(text), finish_detection(text, detector.detect(text)[:1], detector)):
        assert any(s.start == second for s in spans) == repeated
        assert spans[0].start == text.index("Turkish")


def test_capabilities_are_declared_on_the_base_class():
    bare = FixedDetector([])
    assert bare.fit is None and bare.trained_policy is None and bare.vocabulary is None
    assert bare.detect_with_support is None
    under_policy = IdentifierPolicyDetector(bare, corpus_vocabulary=True)
    steered = UserOptionsDetector(under_policy)
    assert steered.fit == under_policy.fit and steered.fit(["a text"]) is under_policy
    assert UserOptionsDetector(bare).fit is None
    assert not hasattr(steered, "pieces")  # no forwarding of unknown attributes


class TrainedFixed(FixedDetector):
    """A FixedDetector that says it was trained on hipaa gold and reads ``support`` at a lower threshold."""

    trained_policy = "hipaa"

    def __init__(self, pieces, support):
        super().__init__(pieces)
        self.support = FixedDetector(support)

    def detect_with_support(self, texts):
        return self.detect_batch(texts), self.support.detect_batch(texts)


@pytest.mark.parametrize(("policy", "kept"), [("hipaa", {"Kowalczyk"}), ("gdpr", {"Kowalczyk", "Ferraro"})])
def test_the_trained_models_support_reaches_the_policy_it_was_trained_for(policy, kept):
    """Under its own policy the trained model's support decides other detectors' person names; under gdpr
    (not its gold) it is not read."""
    from deid_hf.detect.base import EnsembleDetector

    text = "Seen by Ferraro, Kowalczyk aware"
    other = FixedDetector([("Ferraro", "PERSON"), ("Kowalczyk", "PERSON")])
    trained = TrainedFixed([], [("Kowalczyk", "PERSON")])
    detector = IdentifierPolicyDetector(EnsembleDetector([other, trained]), policy)
    assert {text[s.start : s.end] for s in detector.detect(text)} == kept


def test_the_support_is_read_only_where_another_detector_needs_it():
    class Unasked(TrainedFixed):
        def detect_with_support(self, texts):
            raise AssertionError("support read with no other detector to vouch for")

    text = "Seen by Ferraro, Kowalczyk aware"
    alone = IdentifierPolicyDetector(Unasked([("Kowalczyk", "PERSON")], []), "hipaa")
    assert [text[s.start : s.end] for s in alone.detect(text)] == ["Kowalczyk"]


class Threaded(TrainedFixed):
    """A TrainedFixed that declares ``releases_gil`` and records the thread each call ran on."""

    releases_gil = True

    def __init__(self, pieces, support):
        super().__init__(pieces, support)
        self.threads = []

    def detect_with_support(self, texts):
        import threading

        self.threads.append(threading.current_thread().name)
        return super().detect_with_support(texts)


def test_a_model_that_releases_the_gil_runs_beside_the_others_with_the_same_result():
    """The hipaa-trained model runs on a thread of its own; its spans and its support reach the policy as
    when everything runs on one thread."""
    import threading

    from deid_hf.detect.base import EnsembleDetector

    text = "Seen by Ferraro, Kowalczyk aware"
    other = FixedDetector([("Ferraro", "PERSON"), ("Kowalczyk", "PERSON")])
    threaded = Threaded([("Kowalczyk", "PERSON")], [("Ferraro", "PERSON")])
    found = IdentifierPolicyDetector(EnsembleDetector([other, threaded]), "hipaa").detect(text)
    assert threaded.threads and threaded.threads[0] != threading.current_thread().name
    Threaded.releases_gil = False
    try:
        alone = Threaded([("Kowalczyk", "PERSON")], [("Ferraro", "PERSON")])
        assert IdentifierPolicyDetector(EnsembleDetector([other, alone]), "hipaa").detect(text) == found
        assert alone.threads == [threading.current_thread().name]
    finally:
        Threaded.releases_gil = True
    assert {text[s.start : s.end] for s in found} == {"Ferraro", "Kowalczyk"}  # Ferraro: the support


def test_side_by_side_keeps_the_order_the_context_and_the_errors():
    import contextvars
    import threading

    from deid_hf.detect.base import side_by_side

    seen = contextvars.ContextVar("seen", default="unset")
    seen.set("caller")
    model, rule = Threaded([], []), FixedDetector([])

    def where(tag):
        return lambda: (tag, threading.current_thread().name, seen.get())

    caller = threading.current_thread().name
    results = side_by_side([(rule, where("a")), (model, where("b")), (rule, where("c"))])
    assert [r[0] for r in results] == ["a", "b", "c"]
    assert results[0][1] == results[2][1] == caller and results[1][1] != caller
    assert {r[2] for r in results} == {"caller"}  # the thread sees the caller's context

    def fails():
        raise ValueError("a model's error")

    with pytest.raises(ValueError, match="a model's error"):
        side_by_side([(rule, where("a")), (model, fails)])
    other = Threaded([], [])  # only the first model gets a thread; one listed twice gets none
    twice = side_by_side([(model, where("a")), (other, where("b")), (model, where("c"))])
    assert [r[1] == caller for r in twice] == [True, False, True]


def test_the_learned_model_on_the_cpu_runs_beside_the_others(tiny_learned_detector):
    """(A GPU provider keeps it on the caller's thread; CI has no GPU to build one.)"""
    from deid_hf.detect import get_detector

    assert get_detector("learned").releases_gil
    assert get_detector("patterns").releases_gil is False
