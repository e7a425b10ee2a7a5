"""The service's HTTP guards (issue 31, low items): streamed over-size bodies, slow bodies, 422s that never
echo a text, throttled key guesses, and a warning when it listens beyond this machine without a key."""

import os
import socket
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")

from deid_hf.serve.config import ServeConfig  # noqa: E402

from .conftest import REPO, ThreadServer, free_port  # noqa: E402

SECRET = "Wilhelmina Zabrowski"
KEY = "k" * 20 + "-secret"


class LengthEngine:
    """Answers each text's length: these tests are about the HTTP layer, not the model."""

    can_reidentify = False

    def warm_up(self):
        pass

    def run_group(self, key, texts):
        return [{"length": len(text)} for text in texts]


def server(**options):
    from deid_hf.serve.app import create_app

    config = ServeConfig(detector="fast", strategy="redact", ui=False, **options)
    return ThreadServer(create_app(config, LengthEngine()))


def test_streamed_body_over_the_limit_gets_413():
    with server(max_body_bytes=1000) as srv:

        def chunks():
            for _ in range(10):
                yield b'{"text": "' + b"a" * 200

        answer = httpx.post(f"{srv.base}/v1/deidentify", content=chunks())  # chunked: no content-length
        assert answer.status_code == 413 and "1000 bytes" in answer.json()["detail"]
        assert httpx.post(f"{srv.base}/v1/deidentify", json={"text": "abc"}).json() == {"length": 3}


def test_a_body_sent_too_slowly_gets_408():
    with server(body_timeout_s=1.0) as srv, socket.create_connection(("127.0.0.1", srv.port)) as sock:
        sock.sendall(
            b"POST /v1/deidentify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"text": "'
        )  # and nothing more
        sock.settimeout(60)
        answer = read_response(sock)
    assert answer.startswith("HTTP/1.1 408") and "not received within 1 s" in answer


def read_response(sock) -> str:
    """The whole response: its headers, then as many body bytes as its content-length says (they may
    come in several segments)."""
    data = b""
    while b"\r\n\r\n" not in data and (chunk := sock.recv(4096)):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    while len(body) < length and (chunk := sock.recv(4096)):
        body += chunk
    return (head + b"\r\n\r\n" + body).decode()


def test_validation_errors_never_echo_the_submitted_value():
    with server() as srv:
        answer = httpx.post(f"{srv.base}/v1/deidentify", json={"text": {"name": SECRET}, "p": SECRET})
    assert answer.status_code == 422
    assert SECRET not in answer.text and answer.json()["detail"][0]["loc"][:2] == ["body", "text"]


def test_repeated_wrong_keys_are_throttled():
    from deid_hf.serve.app import GuessThrottle

    with server(api_key=KEY) as srv:
        body = {"text": "abc"}
        wrong = [
            httpx.post(f"{srv.base}/v1/deidentify", json=body, headers={"X-API-Key": "x" * 20}).status_code
            for _ in range(GuessThrottle.MAX_FAILURES)
        ]
        blocked = httpx.post(f"{srv.base}/v1/deidentify", json=body, headers={"X-API-Key": KEY})
    assert wrong == [401] * GuessThrottle.MAX_FAILURES
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0  # even the right key


def test_a_forwarded_for_header_neither_spreads_guesses_nor_locks_another_client_out():
    from deid_hf.serve.app import GuessThrottle

    with server(api_key=KEY) as srv:
        body = {"text": "abc"}
        answers = [
            httpx.post(
                f"{srv.base}/v1/deidentify",
                json=body,
                headers={"X-API-Key": "x" * 20, "X-Forwarded-For": f"10.0.0.{i}"},
            ).status_code
            for i in range(GuessThrottle.MAX_FAILURES + 1)
        ]
    assert answers[-1] == 429  # the guesses count against the connecting address, whatever the header says


def test_throttle_forgets_failures_outside_its_window():
    from deid_hf.serve.app import GuessThrottle

    throttle = GuessThrottle()
    throttle.WINDOW_S = 0.2
    for _ in range(throttle.MAX_FAILURES):
        throttle.failed("client")
    assert throttle.wait_s("client") > 0 and throttle.wait_s("other") == 0
    time.sleep(0.3)
    assert throttle.wait_s("client") == 0


@pytest.mark.parametrize(
    "host, key, warned",
    [
        ("0.0.0.0", None, True),
        ("192.168.1.5", None, True),
        ("0.0.0.0", KEY, False),
        ("127.0.0.1", None, False),
    ],
)
def test_exposure_warning(host, key, warned):
    from deid_hf.serve.command import exposure_warning

    warning = exposure_warning(host, ServeConfig(api_key=key))
    assert (warning is not None) == warned
    if warned:
        assert host in warning and "no API key" in warning


@pytest.mark.slow
def test_serve_on_every_interface_without_a_key_warns():
    env = {**os.environ, "PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False"}
    command = [sys.executable, "-m", "deid_hf.cli", "serve", "--host", "0.0.0.0", "--port", str(free_port())]
    process = subprocess.Popen(
        [*command, "--detector", "fast", "--no-ui"], stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    try:
        first = process.stderr.readline()  # printed before the model loads
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert "warning: serving on 0.0.0.0 with no API key" in first


def test_repeated_wrong_keys_at_the_ui_sign_in_are_throttled():
    from fastapi import FastAPI

    from deid_hf.serve.app import GuessThrottle
    from deid_hf.serve.ui import KeyGate

    app = FastAPI()
    app.get("/health")(lambda: {"status": "ok"})  # what the test server waits for
    app.add_middleware(KeyGate, api_key=KEY, prefix="/ui", throttle=GuessThrottle())
    with ThreadServer(app) as srv:
        wrong = [
            httpx.post(f"{srv.base}/ui-login", data={"api_key": "x" * 20}).status_code
            for _ in range(GuessThrottle.MAX_FAILURES)
        ]
        blocked = httpx.post(f"{srv.base}/ui-login", data={"api_key": KEY})
    assert wrong == [401] * GuessThrottle.MAX_FAILURES
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0  # even the right key
    assert "set-cookie" not in blocked.headers


def test_the_ui_sign_in_holds_when_the_app_is_mounted_under_a_prefix():
    from fastapi import FastAPI
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Mount, Route

    from deid_hf.serve.ui import KeyGate

    inner = FastAPI()
    inner.get("/ui/secret")(lambda: {"secret": "inside"})
    inner.add_middleware(KeyGate, api_key=KEY, prefix="/ui")
    health = Route("/health", lambda request: JSONResponse({"status": "ok"}))
    with ThreadServer(Starlette(routes=[health, Mount("/deid", app=inner)])) as srv:
        answer = httpx.get(f"{srv.base}/deid/ui/secret")
    assert answer.status_code == 401 and "inside" not in answer.text
