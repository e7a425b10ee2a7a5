"""A real `deid-hf serve` process on 127.0.0.1 (shared by the HTTP and browser tests) and an in-thread one."""

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(base: str, seconds: float = 300, process=None) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{base} not ready after {seconds} s")


#: options of the shared server process
SERVER_ARGS = [
    "--detector",
    "fast",
    "--allow-seed",
    "--max-text-chars",
    "5000",
    "--max-items",
    "8",
    "--max-body-bytes",
    "20000",
    "--log-level",
    "debug",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """(base URL, log file) of `python -m deid_hf.cli serve` (detector fast, seeds allowed, debug logs)."""
    pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
    pytest.importorskip("httpx", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
    port = free_port()
    log_path = tmp_path_factory.mktemp("serve") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False"}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "deid_hf.cli", "serve", "--port", str(port), *SERVER_ARGS],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=REPO,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, process=process)
        yield base, log_path
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


class ThreadServer:
    """uvicorn serving ``app`` from a thread of the test process, on a free port of 127.0.0.1."""

    def __init__(self, app):
        import uvicorn

        from deid_hf.serve.app import UVICORN_OPTIONS

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on", **UVICORN_OPTIONS
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        wait_ready(self.base, seconds=300)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=30)
