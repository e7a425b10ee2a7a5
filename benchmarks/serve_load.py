"""Load on `deid-hf serve` (127.0.0.1 only): N concurrent clients (asyncio + httpx) send a bounded number
of single-text requests, with dynamic batching (--max-batch 32, --max-wait-ms 10) and without it
(--max-batch 1); prints requests/s, p50/p99 latency and the requests lost (no answer) or failed (not 200).

The server runs as its own process (`python -m deid_hf.cli serve --no-ui`), started and stopped here.
Texts: presidio_synth_pii documents when ../shared/data has them, else the bundled examples.
Usage: python benchmarks/serve_load.py [--clients 16] [--requests 400] [--detector fast] [--max-seconds 120]
JSON: benchmarks/results/serve_load.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time

import httpx
from _common import DATA, REPO, print_table, write_results

MODES = {
    "dynamic batching": ["--max-batch", "32", "--max-wait-ms", "10"],
    "no batching": ["--max-batch", "1"],
}


def load_texts(limit: int) -> tuple[list[str], str]:
    gold = DATA / "presidio_synth_pii" / "synth_dataset_v2.json"
    if gold.exists():
        from deid_hf.evaluation.detection import load_gold

        return [d.text for d in load_gold(gold, limit=limit)], "presidio_synth_pii"
    from deid_hf.demo import bundled_examples

    return [e["text"] for e in bundled_examples()], "bundled examples"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, detector: str, extra: list[str]) -> subprocess.Popen:
    command = [sys.executable, "-m", "deid_hf.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--detector", detector, "--no-ui", "--log-level", "warning", "--max-queue", "100000", *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise TimeoutError("server not ready after 300 s")


async def load(base: str, texts: list[str], clients: int, requests: int, max_seconds: float) -> dict:
    latencies, failed, lost, sent = [], 0, 0, 0
    stop_at = time.monotonic() + max_seconds
    next_request = 0

    async def client(http: httpx.AsyncClient):
        nonlocal failed, lost, sent, next_request
        while next_request < requests and time.monotonic() < stop_at:
            text = texts[next_request % len(texts)]
            next_request += 1
            sent += 1
            start = time.perf_counter()
            try:
                answer = await http.post("/v1/deidentify", json={"text": text})
            except httpx.HTTPError:
                lost += 1
                continue
            latencies.append(time.perf_counter() - start)
            failed += answer.status_code != 200

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        await warm_up(http, 2)  # the first requests build caches
        latencies.clear()
        failed = lost = sent = next_request = 0
        started = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
        elapsed = time.perf_counter() - started
        health = (await http.get("/health")).json()
    ordered = sorted(latencies)
    return {
        "requests": sent,
        "answered": len(latencies),
        "lost": lost,
        "failed": failed,
        "seconds": elapsed,
        "requests_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(ordered) if ordered else None,
        "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else None,
        "largest_batch": health["largest_batch"],
        "mean_batch": health["items"] / max(1, health["batches"]),
    }


async def warm_up(http, n):
    await asyncio.gather(*(http.post("/v1/deidentify", json={"text": "Warm up, Maria."}) for _ in range(n)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--max-seconds", type=float, default=120.0, help="stop sending after this")
    parser.add_argument("--detector", default="fast", help="fast (no LM) or default (with the LM pass)")
    args = parser.parse_args()
    texts, source = load_texts(200)
    rows = []
    for mode, extra in MODES.items():
        port = free_port()
        server = start_server(port, args.detector, extra)
        try:
            result = asyncio.run(
                load(f"http://127.0.0.1:{port}", texts, args.clients, args.requests, args.max_seconds)
            )
        finally:
            server.terminate()
            server.wait(timeout=60)
        rows.append({"mode": mode, **result})
    print(
        f"\n{args.clients} concurrent clients, up to {args.requests} single-text requests "
        f"({source}), detector {args.detector}, {os.cpu_count()} CPU cores\n"
    )
    columns = ["mode", "requests", "answered", "lost", "failed", "requests_per_s", "p50_ms", "p99_ms"]
    print_table(rows, [*columns, "mean_batch", "largest_batch"])
    write_results(
        "serve_load",
        {"clients": args.clients, "detector": args.detector, "texts": source, "rows": rows},
    )


if __name__ == "__main__":
    main()
