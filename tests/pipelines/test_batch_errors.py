"""One bad item of a batch is reported in its own output (``errors="report"``, the default) and never takes
the good items down; ``errors="raise"`` raises for the call; a single bad input always raises."""

import pytest
from transformers import pipeline

from deid_hf.errors import InputError

GOOD = ["Maria Gonzalez called 555-123-4567 on Monday.", "Tom lives in Paris."]
BATCH = [GOOD[0], "", None, "  \x00\u200b ", GOOD[1]]
TASKS = {
    "deid-substitution": ({"detector": "fast", "strategy": "typed"}, {"seed": 1}, "text"),
    "deid-ndd": ({"detector": "fast", "k": 2}, {"seed": 1}, "text"),
    "deid-pfilter": ({}, {}, "words"),
    "deid-paraphrase": ({"bounds": (0.0, 1.0)}, {"seed": 1, "max_new_tokens": 3}, "paraphrase"),
}


@pytest.fixture(scope="module")
def pipes(tiny_llama):
    model, tokenizer = tiny_llama
    return {
        task: pipeline(task, model=model, tokenizer=tokenizer, **options)
        for task, (options, _, _) in TASKS.items()
    }


@pytest.mark.parametrize("batch_size", [1, 3])
@pytest.mark.parametrize("task", list(TASKS))
def test_bad_items_are_reported_per_item(pipes, task, batch_size):
    _, call, key = TASKS[task]
    out = pipes[task](BATCH, batch_size=batch_size, **call)
    assert len(out) == len(BATCH)
    assert "empty" in out[1]["error"] and "NoneType" in out[2]["error"] and "empty" in out[3]["error"]
    assert all("error" not in out[i] and out[i][key] for i in (0, 4))
    if task != "deid-paraphrase":  # paraphrase sampling depends on the batch's composition
        assert out[0] == pipes[task](GOOD[0], **call) and out[4] == pipes[task](GOOD[1], **call)


@pytest.mark.parametrize("task", list(TASKS))
def test_errors_raise_and_single_inputs_raise(pipes, task):
    _, call, _ = TASKS[task]
    with pytest.raises(InputError, match="empty text"):
        pipes[task]([GOOD[0], ""], errors="raise", **call)
    with pytest.raises(InputError, match="empty text"):
        pipes[task]("", **call)
    with pytest.raises(InputError, match="errors must be 'report' or 'raise'"):
        pipes[task](GOOD, errors="ignore", **call)


@pytest.mark.parametrize("task", list(TASKS))
def test_odd_characters_never_crash(pipes, task):
    _, call, key = TASKS[task]
    texts = [
        "John Smith \ud800 called 555-123-4567",
        "Nul\x00 and\x1b[0m escape\x7f",
        "Zero\u200bwidth\ufeff",
    ]
    for out in pipes[task](texts, batch_size=2, **call):
        assert "error" not in out and out[key]


def test_a_failure_inside_the_pipeline_is_isolated(pipes, monkeypatch):
    pipe = pipes["deid-substitution"]
    detect_batch = pipe.detector.detect_batch

    def failing(texts):
        if any("BOOM" in t for t in texts):
            raise RuntimeError("detector exploded")
        return detect_batch(texts)

    monkeypatch.setattr(pipe.detector, "detect_batch", failing)
    out = pipe([GOOD[0], "BOOM here", GOOD[1]], batch_size=3, seed=1)
    assert out[1]["error"] == "RuntimeError: detector exploded" and out[1]["text"] is None
    assert "<PERSON>" in out[0]["text"] and "<LOCATION>" in out[2]["text"]
    with pytest.raises(RuntimeError):
        pipe([GOOD[0], "BOOM here"], batch_size=2, seed=1, errors="raise")


def test_each_alone_on_failure_fails_only_the_bad_item():
    from deid_hf.errors import each_alone_on_failure

    calls = []

    def process(items):
        calls.append(list(items))
        if "bad" in items:
            raise ValueError("cannot process")
        return [item.upper() for item in items]

    first, bad, last = each_alone_on_failure(process, ["a", "bad", "c"])
    assert (first, last) == ("A", "C") and isinstance(bad, ValueError)
    assert calls == [["a", "bad", "c"], ["a"], ["bad"], ["c"]]  # the batch, then each alone
    calls.clear()
    assert each_alone_on_failure(process, ["a", "b"]) == ["A", "B"] and calls == [["a", "b"]]
    assert isinstance(each_alone_on_failure(process, ["bad"])[0], ValueError) and len(calls) == 2
