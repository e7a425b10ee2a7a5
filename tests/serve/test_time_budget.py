"""A text past the service's time budget gets 504 and frees the model thread for the next request."""

import asyncio
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")

from deid_hf.errors import InputError  # noqa: E402
from deid_hf.serve.config import ServeConfig  # noqa: E402

from .conftest import ThreadServer  # noqa: E402

pytestmark = pytest.mark.slow  # an in-thread server loads spaCy

SENTENCE = "Maria Gonzalez was seen in Paris on 2021-03-04 and called (217) 555-0143. "
#: the longest text the server takes: spaCy and the patterns need many times the 1 s budget on it
LONG_TEXT = (SENTENCE * (100_000 // len(SENTENCE) + 1))[:100_000]
SHORT_TEXT = "Call Tom at (217) 555-0143."


def test_a_text_over_the_budget_gets_504_and_the_next_request_is_not_starved():
    from deid_hf.serve.app import create_app

    config = ServeConfig(
        detector="fast", strategy="typed", max_batch=1, max_wait_ms=0, item_budget_s=1.0, ui=False
    )
    with ThreadServer(create_app(config)) as srv:

        def health():
            return httpx.get(f"{srv.base}/health").json()

        def until_busy():
            for _ in range(600):
                if health()["busy"]:
                    return
                time.sleep(0.05)
            raise AssertionError(health())

        async def run():
            async with httpx.AsyncClient(base_url=srv.base, timeout=300) as client:
                slow = asyncio.create_task(client.post("/v1/deidentify", json={"text": LONG_TEXT}))
                await asyncio.to_thread(until_busy)  # the model thread holds the long text
                normal = await client.post("/v1/deidentify", json={"text": SHORT_TEXT})
                # asked while the long text's call still runs in the background
                return await slow, normal, await asyncio.to_thread(health)

        slow, normal, stats = asyncio.run(run())
    assert slow.status_code == 504 and "time budget" in slow.json()["detail"]
    assert "Maria" not in slow.text and "555-0143" not in slow.text  # the error never echoes the text
    assert normal.status_code == 200 and "<PHONE>" in normal.json()["text"]
    # the short request was answered before the long call ended: it did not wait behind it
    assert stats["over_budget"] == 1 and stats["abandoned"] == 1


@pytest.mark.parametrize("budget", [0, -1.0])
def test_budget_must_be_positive(budget):
    with pytest.raises(InputError, match="item_budget_s"):
        ServeConfig(item_budget_s=budget)


def test_threads_asking_for_one_new_pipeline_share_the_one_built():
    # an abandoned over-budget call runs beside the next batch: both may ask the engine at once
    import threading

    from deid_hf.serve.engine import Engine

    engine = Engine(ServeConfig(detector="patterns", strategy="typed", ui=False))
    start, built = threading.Barrier(4), []

    def ask():
        start.wait()
        built.append(engine.pipeline("patterns", "redact"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 4 and all(pipe is built[0] for pipe in built)
