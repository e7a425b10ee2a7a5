"""The dynamic batcher alone (no web framework, no model)."""

import asyncio
import threading

import pytest

from deid_hf.errors import InputError, MissingExtraError
from deid_hf.serve.batching import DynamicBatcher, QueueFull
from deid_hf.serve.config import ServeConfig


def test_items_submitted_together_share_one_call_and_keep_their_own_results():
    calls = []

    def run_group(key, texts):
        calls.append((key, list(texts)))
        return [ValueError(t) if t == "bad" else f"{key}:{t.upper()}" for t in texts]

    async def main():
        batcher = DynamicBatcher(run_group, max_batch=8, max_wait_ms=50)
        batcher.start()
        answers = await asyncio.gather(
            batcher.submit("a", ["x", "bad"]), batcher.submit("b", ["y"]), batcher.submit("a", ["z"])
        )
        await batcher.stop()
        return answers, batcher.stats

    answers, stats = asyncio.run(main())
    assert answers[0][0] == "a:X" and isinstance(answers[0][1], ValueError)
    assert answers[1] == ["b:Y"] and answers[2] == ["a:Z"]
    assert sorted(calls) == [("a", ["x", "bad", "z"]), ("b", ["y"])]  # grouped by options, one batch
    assert stats["batches"] == 1 and stats["largest_batch"] == 4


def test_a_failing_group_fails_only_its_items_and_a_full_queue_refuses():
    gate = threading.Event()

    def run_group(key, texts):
        gate.wait(10)
        if key == "broken":
            raise RuntimeError("model failure")
        return list(texts)

    async def main():
        batcher = DynamicBatcher(run_group, max_batch=1, max_wait_ms=0, max_queue=2)
        batcher.start()
        first = asyncio.create_task(batcher.submit("ok", ["1"]))
        while not batcher.stats["busy"]:
            await asyncio.sleep(0.01)
        queued = asyncio.create_task(batcher.submit("broken", ["2", "3"]))
        await asyncio.sleep(0)
        with pytest.raises(QueueFull):
            await batcher.submit("ok", ["4"])
        gate.set()
        results = await first, await queued
        await batcher.stop()
        return results

    first, queued = asyncio.run(main())
    assert first == ["1"]
    assert all(isinstance(r, RuntimeError) for r in queued)


def test_server_config_refuses_unsafe_requests():
    config = ServeConfig(detector="fast", strategy="typed")
    assert config.check_detector(None) == "fast"
    with pytest.raises(InputError, match="not allowed"):  # patterns finds no names: the server lists it
        config.check_detector("patterns,spacy")
    widened = ServeConfig(detector="fast", strategy="typed", detectors=("patterns", "spacy"))
    assert widened.check_detector("patterns,spacy") == "patterns,spacy"
    # a p-filter's threshold may be raised (more words flagged), never lowered below the server's
    assert config.check_detector("pfilter:1e-2") == "pfilter:1e-2"
    for weaker in ("pfilter:1e-4", "pfilter-propn:1e-300", "pfilter:abc"):
        with pytest.raises(InputError, match="not allowed"):
            config.check_detector(weaker)
    own = ServeConfig(detector="default,pfilter:0.05", strategy="typed")
    for weaker in ("pfilter:0.01", "pfilter"):  # plain "pfilter": the default threshold, below the server's
        with pytest.raises(InputError, match="not allowed"):
            own.check_detector(weaker)
    assert own.check_detector("pfilter:0.1") == "pfilter:0.1"
    low = ServeConfig(detector="pfilter:1e-4", strategy="typed")
    assert low.check_detector("pfilter:5e-4") == "pfilter:5e-4"  # above the server's own, below the default
    with pytest.raises(InputError, match="not allowed"):  # the other p-filter, below the server's threshold
        own.check_detector("pfilter-propn:0.01")
    listed = ServeConfig(detector="patterns", strategy="typed", detectors=("patterns", "pfilter:1e-4"))
    assert listed.check_detector("pfilter:1e-4") == "pfilter:1e-4"  # what the operator lists is taken
    with pytest.raises(InputError) as refused:
        config.check_detector("pfilter:<b>x</b>")
    assert "<b>" not in str(refused.value)
    with pytest.raises(InputError) as refused:  # a name a client made up is not echoed
        config.check_detector("Ilsabet Marrowind")
    assert "Ilsabet" not in str(refused.value)
    with pytest.raises(InputError, match="not allowed"):
        config.check_detector("token-classification:/some/path")
    with pytest.raises(InputError, match="minimum"):
        config.check_p(0.5)  # p below the server's own
    assert ServeConfig(p=1.0, min_p=0.2).check_p(0.5) == 0.5
    with pytest.raises(InputError, match="at least 16"):
        ServeConfig(api_key="short")


def test_missing_extra_is_a_clear_error(monkeypatch):
    import sys

    from deid_hf.extras import extra

    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if fastapi were not installed
    with (
        pytest.raises(MissingExtraError, match=r"pip install 'deid-hf\[serve\]'"),
        extra("serve", "deid-hf serve"),
    ):
        import fastapi  # noqa: F401


def test_serve_command_refuses_bad_settings_before_starting(monkeypatch, capsys):
    from deid_hf.cli import main

    monkeypatch.delenv("DEID_HF_TEST_KEY", raising=False)
    assert main(["serve", "--api-key-env", "DEID_HF_TEST_KEY"]) == 2
    assert "DEID_HF_TEST_KEY: that environment variable is not set" in capsys.readouterr().err
    assert main(["serve", "--p", "0.5", "--min-p", "0.9"]) == 2
    assert "min_p" in capsys.readouterr().err
