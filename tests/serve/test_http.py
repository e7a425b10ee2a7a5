"""`deid-hf serve` over real HTTP (uvicorn on 127.0.0.1, httpx clients)."""

import asyncio
import json
import threading
import time
from datetime import datetime

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")

from deid_hf.errors import InputError  # noqa: E402

from .conftest import ThreadServer  # noqa: E402

# a server process or an in-thread server loads spaCy and the LM: well over 10 s on a shared 2-core machine
pytestmark = pytest.mark.slow

SECRET = "Wilhelmina Zabrowski"  # a name that appears nowhere in the code base or its logs
TEXTS = [
    f"{SECRET} was admitted on March 3, 2024; call (217) 555-0143.",
    "Maria Gonzalez lives in Paris.",
    "Mail anna.keller@example.org today.",
    "Nothing personal here.",
]


def post(base, path, body, **kwargs):
    return httpx.post(f"{base}{path}", json=body, timeout=60, **kwargs)


def test_deidentify_one_text_and_a_batch(server):
    base, _ = server
    single = post(base, "/v1/deidentify", {"text": TEXTS[0], "seed": 3})
    assert single.status_code == 200
    result = single.json()
    assert SECRET not in result["text"] and "555-0143" not in result["text"]
    assert {s["label"] for s in result["spans"]} >= {"PERSON", "PHONE"}
    assert result["privacy"]["strategy"] == "full_entity" and "mapping" not in result
    # a batch mixing bad items with good ones: each good item equals its single-text answer
    batch = post(base, "/v1/deidentify", {"texts": [TEXTS[0], "", 5, None, TEXTS[1]], "seed": 3}).json()
    results = batch["results"]
    assert results[0] == result
    assert results[1] == {"error": "cannot de-identify an empty text"}
    assert results[2] == {"error": "expected a string, got int"}
    assert results[3] == {"error": "expected a string, got NoneType"}
    assert results[4] == post(base, "/v1/deidentify", {"text": TEXTS[1], "seed": 3}).json()
    typed = post(base, "/v1/deidentify", {"text": TEXTS[1], "strategy": "typed"}).json()
    assert typed["text"] == "<PERSON> lives in <LOCATION>." and typed["privacy"]["epsilon"] == 0.0


def test_detect_returns_spans_only(server):
    base, _ = server
    out = post(base, "/v1/detect", {"texts": TEXTS[1:3]}).json()["results"]
    assert [(s["start"], s["end"], s["label"]) for s in out[0]["spans"]] == [
        (0, 14, "PERSON"),
        (24, 29, "LOCATION"),
    ]
    assert any(s["label"] == "EMAIL" for s in out[1]["spans"])
    assert set(out[0]["spans"][0]) == {"start", "end", "label", "score", "source"}


def test_concurrent_clients_get_their_own_results(server):
    """40 clients at once: every answer is the one its text gets alone (batching never mixes items)."""
    base, _ = server
    names = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Tim Berners-Lee"]
    cities = ["London", "Manchester", "Boston", "Geneva"]
    texts = [f"{names[n % 4]} called from {cities[n % 4]} on May {n + 1}, 2023." for n in range(40)]

    async def run():
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            return await asyncio.gather(
                *(client.post("/v1/deidentify", json={"text": t, "seed": 7}) for t in texts)
            )

    answers = asyncio.run(run())
    assert [a.status_code for a in answers] == [200] * len(texts)
    alone = [post(base, "/v1/deidentify", {"text": t, "seed": 7}).json() for t in texts]
    assert [a.json() for a in answers] == alone
    assert len({a["text"] for a in alone}) == len(texts)  # 40 different answers: a mix-up would show
    health = httpx.get(f"{base}/health").json()
    assert health["items"] >= 2 * len(texts) and health["waiting"] == 0


def test_limits_and_refused_options(server):
    base, _ = server
    assert post(base, "/v1/deidentify", {"text": "x" * 5001}).status_code == 413  # --max-text-chars 5000
    assert post(base, "/v1/deidentify", {"texts": ["a b"] * 9}).status_code == 413  # --max-items 8
    big = httpx.post(
        f"{base}/v1/deidentify",
        content=b'{"texts": ["' + b"y" * 30000 + b'"]}',
        headers={"content-type": "application/json"},
    )
    assert big.status_code == 413  # --max-body-bytes 20000
    over = post(base, "/v1/deidentify", {"texts": ["a" * 4000, "b" * 5001]}).json()["results"]
    assert "error" not in over[0] and over[1]["error"].startswith("text of 5001 characters")
    mapping = post(base, "/v1/deidentify", {"text": TEXTS[1], "return_mapping": True})
    assert mapping.status_code == 403 and "--allow-mapping" in mapping.json()["detail"]
    loaded = post(base, "/v1/deidentify", {"text": TEXTS[1], "detector": "token-classification:/tmp/x"})
    assert loaded.status_code == 400 and "not allowed" in loaded.json()["detail"]
    assert post(base, "/v1/deidentify", {"text": TEXTS[1], "strategy": "nope"}).status_code == 400
    low_p = post(base, "/v1/deidentify", {"text": TEXTS[1], "p": 0.5})
    assert low_p.status_code == 400 and "minimum" in low_p.json()["detail"]
    assert post(base, "/v1/deidentify", {"text": "a", "texts": ["b"]}).status_code == 422
    assert post(base, "/v1/deidentify", {"text": "   "}).status_code == 422


def test_reidentify_needs_a_reversible_operator(server):
    base, _ = server
    answer = post(base, "/v1/reidentify", {"text": "<PERSON> lives in <LOCATION>."})
    assert answer.status_code == 501 and "reversible" in answer.json()["detail"]


def test_openapi_docs(server):
    base, _ = server
    schema = httpx.get(f"{base}/openapi.json").json()
    assert {"/v1/deidentify", "/v1/detect", "/v1/reidentify", "/health"} <= set(schema["paths"])
    assert httpx.get(f"{base}/docs").status_code == 200


def test_no_original_text_in_the_logs(server):
    """The server runs with --log-level debug; after good, bad and refused requests holding SECRET, its
    whole output (uvicorn, deid-hf and library loggers) never contains it."""
    base, log_path = server
    post(base, "/v1/deidentify", {"text": TEXTS[0]})
    surrogate = json.dumps({"texts": [TEXTS[0], "", TEXTS[0] + " \ud800"]})  # escaped: valid JSON
    answer = httpx.post(
        f"{base}/v1/deidentify", content=surrogate, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 200 and answer.json()["results"][1] == {
        "error": "cannot de-identify an empty text"
    }
    post(base, "/v1/detect", {"text": TEXTS[0]})
    post(base, "/v1/deidentify", {"text": TEXTS[0], "return_mapping": True})
    post(base, "/v1/deidentify", {"text": TEXTS[0] * 200})
    post(base, "/v1/deidentify", {"text": TEXTS[0], "strategy": SECRET})
    post(base, "/v1/deidentify", {"text": [TEXTS[0]]})
    time.sleep(0.5)  # let the server flush
    log = log_path.read_text(errors="replace")
    assert "POST /v1/deidentify" in log  # the log is really captured
    for fragment in (SECRET, "Wilhelmina", "Zabrowski", "555-0143"):
        assert fragment not in log


class GatedEngine:
    """The real engine behind a gate: the model thread waits until the test opens it."""

    def __init__(self, config):
        from deid_hf.serve.engine import Engine

        self.engine = Engine(config)
        self.gate = threading.Event()
        self.can_reidentify = False

    def warm_up(self):
        self.engine.warm_up()

    def run_group(self, key, texts):
        self.gate.wait(60)
        return self.engine.run_group(key, texts)


def test_requests_from_many_clients_share_a_batch_and_a_full_queue_answers_503():
    from deid_hf.serve.app import create_app
    from deid_hf.serve.config import ServeConfig

    config = ServeConfig(detector="fast", strategy="typed", max_queue=6, max_wait_ms=0, ui=False)
    engine = GatedEngine(config)
    with ThreadServer(create_app(config, engine)) as srv:

        def health():
            return httpx.get(f"{srv.base}/health").json()

        def until(condition):
            for _ in range(600):
                if condition(health()):
                    return
                time.sleep(0.05)
            raise AssertionError(health())

        async def run():
            async with httpx.AsyncClient(base_url=srv.base, timeout=60) as client:
                first = asyncio.create_task(client.post("/v1/deidentify", json={"text": TEXTS[1]}))
                await asyncio.to_thread(until, lambda h: h["busy"])  # the model thread holds the first
                waiting = [
                    asyncio.create_task(client.post("/v1/deidentify", json={"text": t}))
                    for t in TEXTS[1:] + TEXTS[1:3]
                ]
                await asyncio.to_thread(until, lambda h: h["waiting"] == 5)
                refused = await client.post("/v1/deidentify", json={"texts": TEXTS[:2]})  # 5 + 2 > 6
                engine.gate.set()
                return refused, await first, await asyncio.gather(*waiting)

        refused, first, waiting = asyncio.run(run())
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert first.status_code == 200 and [w.status_code for w in waiting] == [200] * 5
        assert [w.json()["text"] for w in waiting][:2] == [
            "<PERSON> lives in <LOCATION>.",
            "Mail <EMAIL> today.",  # hipaa: relative days are not dates
        ]
        stats = health()
        assert stats["batches"] == 2 and stats["largest_batch"] == 5  # five clients, one model call


def test_api_key():
    from deid_hf.serve.app import create_app
    from deid_hf.serve.config import ServeConfig

    key = "k" * 20 + "-secret"
    config = ServeConfig(detector="fast", strategy="redact", api_key=key, ui=False)
    with ThreadServer(create_app(config)) as srv:
        body = {"text": TEXTS[1]}
        assert httpx.post(f"{srv.base}/v1/deidentify", json=body).status_code == 401
        wrong = httpx.post(f"{srv.base}/v1/deidentify", json=body, headers={"X-API-Key": key[:-1] + "x"})
        assert wrong.status_code == 401
        ok = httpx.post(f"{srv.base}/v1/deidentify", json=body, headers={"X-API-Key": key}, timeout=60)
        assert ok.status_code == 200 and "Maria" not in ok.json()["text"]
        bearer = httpx.post(
            f"{srv.base}/v1/detect", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=60
        )
        assert bearer.status_code == 200
        assert httpx.get(f"{srv.base}/health").status_code == 200  # probes need no key


class ReversiblePipe:
    """Stands in for a pipeline with an encryption operator (a reversible strategy)."""

    strategy = type("Encrypting", (), {"reversible": True})()

    def reidentify(self, text):
        if "ENC(" not in text:
            raise InputError("nothing to reidentify")
        return text.replace("ENC(1)", "Maria Gonzalez")


def test_reidentify_where_the_pipeline_can_and_the_server_allows():
    from deid_hf.serve.app import create_app
    from deid_hf.serve.config import ServeConfig
    from deid_hf.serve.engine import Engine

    class ReversibleEngine(Engine):
        def warm_up(self):
            self._default = ReversiblePipe()

    for allowed in (False, True):
        config = ServeConfig(detector="fast", strategy="typed", allow_reidentify=allowed, ui=False)
        with ThreadServer(create_app(config, ReversibleEngine(config))) as srv:
            body = {"texts": ["ENC(1) lives in Paris.", "plain"]}
            answer = httpx.post(f"{srv.base}/v1/reidentify", json=body)
            if not allowed:
                assert answer.status_code == 403 and "--allow-reidentify" in answer.json()["detail"]
                continue
            assert answer.json()["results"] == [
                {"text": "Maria Gonzalez lives in Paris."},
                {"error": "nothing to reidentify"},
            ]


def test_per_label_operators_and_groups_in_the_request_body(server):
    base, _ = server
    body = {"text": TEXTS[1], "strategy": {"PERSON": "typed", "default": "redact"}}
    assert post(base, "/v1/deidentify", body).json()["text"] == "<PERSON> lives in [REDACTED]."
    refused = post(base, "/v1/deidentify", {"text": TEXTS[1], "strategy": {"PERSON": "keep"}})
    assert refused.status_code == 400 and "'keep' is not allowed" in refused.json()["detail"]
    # one group across requests: one pseudonym for the person, one date offset
    first = post(base, "/v1/deidentify", {"text": "Maria Gonzalez seen on 03/02/2024.", "group": "p1"}).json()
    second = post(base, "/v1/deidentify", {"texts": ["Maria Gonzalez called on 03/09/2024."], "group": "p1"})
    second = second.json()["results"][0]
    assert second["spans"][0]["replacement"] == first["spans"][0]["replacement"] != "Maria Gonzalez"
    shifted = [datetime.strptime(r["spans"][-1]["replacement"], "%m/%d/%Y") for r in (first, second)]
    assert (shifted[1] - shifted[0]).days == 7
