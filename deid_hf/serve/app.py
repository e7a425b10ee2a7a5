"""The FastAPI application of `deid-hf serve` (OpenAPI docs at ``/docs``, Gradio UI at ``/ui``).

Endpoints: ``POST /v1/deidentify``, ``POST /v1/detect``, ``POST /v1/reidentify``, ``GET /health``.
A request holds ``text`` (one) or ``texts`` (a batch); a batch answers ``{"results": [...]}`` with a result
or ``{"error": ...}`` per item, so one bad item never fails the others. Texts are never logged: logs hold
batch sizes, timings and error types only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from typing import Any

from ..extras import extra
from .batching import DynamicBatcher, OverBudget, QueueFull
from .config import ServeConfig
from .engine import Engine, ItemError, Options, safe_error

with extra("serve", "deid-hf serve"):
    from fastapi import Depends, FastAPI, HTTPException, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

log = logging.getLogger("deid_hf.serve")


class AsciiJSONResponse(JSONResponse):
    """JSON with non-ASCII characters escaped: an output keeps the original's lone surrogates (as
    ``\\udXXX`` escapes), which UTF-8 cannot encode."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


class TextsRequest(BaseModel):
    text: str | None = Field(None, description="one text (answer: one result)")
    texts: list[Any] | None = Field(None, description="a batch (answer: {'results': [...]}, one per text)")


class DetectRequest(TextsRequest):
    detector: str | None = Field(None, description="e.g. 'fast', 'default', 'patterns,spacy'")


class DeidentifyRequest(DetectRequest):
    strategy: str | dict[str, str] | None = Field(
        None,
        description="an operator (redact, typed, named, word_by_word, full_entity, zsts, ...) or one per "
        'label: {"DATE_TIME": "date_shift", "default": "full_entity"}; only those the server allows',
    )
    group: str | None = Field(
        None,
        description="the texts' group (e.g. a patient): one pseudonym per person and one date offset in "
        "every request of the group (keyed with the server's DEID_HF_KEY; without it, for the server's "
        "lifetime)",
    )
    p: float | None = Field(None, description="probability that a detected item is replaced")
    seed: int | None = Field(None, description="only where the server allows it (--allow-seed)")
    return_mapping: bool = Field(False, description="only where the server allows it (--allow-mapping)")


class _TooLarge(Exception):
    pass


class _TooSlow(Exception):
    pass


class Guard:
    """ASGI middleware: request bodies over ``limit`` bytes get 413 (announced or streamed, also when the
    app answered the cut body with an error of its own), bodies not received within ``body_timeout``
    seconds get 408 (a slow client cannot hold a connection), and any exception that escapes a route
    becomes a 500 logged by type only (a traceback could quote a text)."""

    def __init__(self, app, limit: int, body_timeout: float | None = None):
        self.app, self.limit, self.body_timeout = app, limit, body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        announced = dict(scope.get("headers") or []).get(b"content-length")
        if announced is not None and announced.isdigit() and int(announced) > self.limit:
            return await _plain(send, 413, f"request body over {self.limit} bytes")
        received, started, refused, body_done = 0, False, None, False
        deadline = (
            None if self.body_timeout is None else asyncio.get_running_loop().time() + self.body_timeout
        )

        async def limited_receive():
            nonlocal received, refused, body_done
            if body_done or deadline is None:
                message = await receive()
            else:
                try:
                    remaining = max(deadline - asyncio.get_running_loop().time(), 0)
                    message = await asyncio.wait_for(receive(), remaining)
                except TimeoutError:
                    refused = _TooSlow()
                    raise refused from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > self.limit:
                    refused = _TooLarge()
                    raise refused
            return message

        async def tracking_send(message):
            nonlocal started
            if refused is not None:  # the app answered the cut body itself (FastAPI: 400): ours instead
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await _refusal(send, refused, self.limit, self.body_timeout)
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except (_TooLarge, _TooSlow) as exc:
            if not started:
                await _refusal(send, exc, self.limit, self.body_timeout)
        except Exception as exc:  # noqa: BLE001 - never let a traceback with text reach the logs
            log.error("unhandled %s on %s", type(exc).__name__, scope.get("path"))
            if not started:
                await _plain(send, 500, "internal error")


async def _refusal(send, exc: Exception, limit: int, body_timeout) -> None:
    if isinstance(exc, _TooLarge):
        await _plain(send, 413, f"request body over {limit} bytes")
    else:
        await _plain(send, 408, f"request body not received within {body_timeout:g} s")


async def _plain(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class GuessThrottle:
    """Failed key (or UI password) attempts per client: after `MAX_FAILURES` within `WINDOW_S` seconds
    the client is refused (429) until the oldest of them leaves the window, whatever it sends."""

    MAX_FAILURES = 10
    WINDOW_S = 60.0
    #: clients remembered at most (the oldest forgotten first): memory stays bounded
    MAX_CLIENTS = 10_000

    def __init__(self):
        self._failures: dict[str, list[float]] = {}

    def wait_s(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = time.monotonic()
        recent = [t for t in self._failures.get(client, []) if now - t < self.WINDOW_S]
        if recent:
            self._failures[client] = recent
        else:
            self._failures.pop(client, None)
        return self.WINDOW_S - (now - recent[0]) if len(recent) >= self.MAX_FAILURES else 0.0

    def failed(self, client: str) -> None:
        self._failures.setdefault(client, []).append(time.monotonic())
        while len(self._failures) > self.MAX_CLIENTS:
            del self._failures[next(iter(self._failures))]


class Service:
    """The endpoints, bound to one configuration, engine and batcher."""

    def __init__(self, config: ServeConfig, engine: Engine):
        self.config, self.engine = config, engine
        self.batcher = DynamicBatcher(
            engine.run_group, config.max_batch, config.max_wait_ms, config.max_queue, config.item_budget_s
        )
        self.ready, self.load_error = False, None
        self.throttle = GuessThrottle()

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        self.batcher.start()
        loading = asyncio.get_running_loop().create_task(self._load())
        yield
        loading.cancel()
        await self.batcher.stop()

    async def _load(self) -> None:
        try:
            await self.batcher.run_in_model_thread(self.engine.warm_up)
            self.ready = True
            log.info("pipeline ready (detector %s, strategy %s)", self.config.detector, self.config.strategy)
        except Exception as exc:  # noqa: BLE001 - reported on /health
            self.load_error = safe_error(exc)
            log.error("pipeline failed to load: %s", type(exc).__name__)

    def authenticate(self, request: Request) -> None:
        """API key in ``X-API-Key`` or ``Authorization: Bearer``, compared in constant time."""
        if self.config.api_key is None:
            return
        client = request.client.host if request.client else "unknown"
        wait = self.throttle.wait_s(client)
        if wait:
            raise HTTPException(
                429, "too many wrong API keys: try again later", headers={"Retry-After": str(int(wait) + 1)}
            )
        given = request.headers.get("x-api-key")
        if given is None and request.headers.get("authorization", "").lower().startswith("bearer "):
            given = request.headers["authorization"][7:]
        if given is None or not hmac.compare_digest(given.encode(), self.config.api_key.encode()):
            self.throttle.failed(client)
            raise HTTPException(401, "missing or wrong API key", headers={"WWW-Authenticate": "Bearer"})

    def _items(self, request: TextsRequest) -> tuple[bool, list]:
        single = request.text is not None
        if single == (request.texts is not None):
            raise HTTPException(422, "give exactly one of 'text' and 'texts'")
        items = [request.text] if single else request.texts
        if len(items) > self.config.max_items:
            raise HTTPException(413, f"{len(items)} texts in one request (at most {self.config.max_items})")
        limit = self.config.max_text_chars
        if single and len(items[0]) > limit:
            raise HTTPException(413, f"text of {len(items[0])} characters (at most {limit})")
        return single, items

    async def answer(self, request: TextsRequest, key: Options, group: str | None = None):
        """Submit the request's texts (``{"text", "group"}`` items with a ``group``); a bad item gets its
        own error, the others their results."""
        single, items = self._items(request)
        limit = self.config.max_text_chars
        results: list = [None] * len(items)
        valid = []
        for n, item in enumerate(items):
            if not isinstance(item, str):
                results[n] = ItemError(f"expected a string, got {type(item).__name__}")
            elif len(item) > limit:
                results[n] = ItemError(f"text of {len(item)} characters (at most {limit})")
            else:
                valid.append(n)
        try:
            payloads = [items[n] if group is None else {"text": items[n], "group": group} for n in valid]
            done = await self.batcher.submit(key, payloads) if valid else []
        except QueueFull as exc:
            raise HTTPException(503, f"server busy: {exc}", headers={"Retry-After": "1"}) from None
        for n, result in zip(valid, done):
            results[n] = result
        failures = [type(r).__name__ for r in results if isinstance(r, BaseException)]
        if failures:  # counts and types only
            log.info(
                "%d of %d item(s) failed: %s", len(failures), len(results), ", ".join(sorted(set(failures)))
            )
        if single:
            if isinstance(results[0], OverBudget):
                raise HTTPException(504, safe_error(results[0]))
            if isinstance(results[0], BaseException):
                raise HTTPException(422, safe_error(results[0]))
            return results[0]
        return {"results": [{"error": safe_error(r)} if isinstance(r, BaseException) else r for r in results]}

    async def deidentify(self, request: DeidentifyRequest):
        """De-identify one text or a batch (the deid-substitution pipeline's output per text)."""
        config = self.config
        if request.seed is not None and not config.allow_seed:
            raise HTTPException(
                403,
                "per-request seeds are disabled: a seeded output can be reproduced by anyone who guesses "
                "the original (start the server with --allow-seed for tests only)",
            )
        if request.return_mapping and not config.allow_mapping:
            raise HTTPException(403, "mappings are disabled on this server (start it with --allow-mapping)")
        key = _checked(
            lambda: Options(
                "deidentify",
                config.check_detector(request.detector),
                config.check_strategy(request.strategy),
                config.check_p(request.p),
                request.seed,
                request.return_mapping,
            )
        )
        return await self.answer(request, key, request.group)

    async def detect(self, request: DetectRequest):
        """Sensitive spans (start, end, label, score, source) of one text or a batch."""
        key = _checked(
            lambda: Options("detect", self.config.check_detector(request.detector), self.config.strategy_key)
        )
        return await self.answer(request, key)

    async def reidentify(self, request: TextsRequest):
        """Restore originals; only with a reversible (encryption) operator and --allow-reidentify."""
        if not self.ready:
            raise HTTPException(503, "the pipeline is still loading", headers={"Retry-After": "1"})
        if not self.engine.can_reidentify:
            raise HTTPException(
                501,
                f"the configured pipeline (strategy {self.config.strategy!r}) cannot reidentify: it needs "
                "a reversible (encryption) operator",
            )
        if not self.config.allow_reidentify:
            raise HTTPException(403, "reidentification is disabled on this server (--allow-reidentify)")
        return await self.answer(
            request, Options("reidentify", self.config.detector, self.config.strategy_key)
        )

    async def health(self):
        """Readiness (503 while loading), queue depth and batching counters."""
        body = {
            "status": "ok" if self.ready else ("error" if self.load_error else "loading"),
            "error": self.load_error,
            "waiting": self.batcher.waiting,
            "max_queue": self.config.max_queue,
            "max_batch": self.config.max_batch,
            "abandoned": self.batcher.abandoned,
            **self.batcher.stats,
        }
        return JSONResponse(body, status_code=200 if self.ready else 503)


async def _validation_error(request, exc) -> JSONResponse:
    """422 naming where and what is wrong, never the submitted value (a text may be in it)."""
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": errors}, status_code=422)


def _checked(build):
    from ..errors import InputError

    try:
        return build()
    except InputError as exc:
        raise HTTPException(400, str(exc)) from None


def create_app(config: ServeConfig | None = None, engine: Engine | None = None) -> FastAPI:
    """The service's FastAPI app; ``engine`` defaults to `Engine(config)` (tests pass their own)."""
    config = config or ServeConfig()
    service = Service(config, engine or Engine(config))
    app = FastAPI(
        default_response_class=AsciiJSONResponse,
        title="deid-hf",
        summary="De-identify free text: detect personal information and replace it, with a privacy report.",
        version=_version(),
        lifespan=service.lifespan,
    )
    app.add_middleware(Guard, limit=config.max_body_bytes, body_timeout=config.body_timeout_s)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.state.service = service
    guarded = [Depends(service.authenticate)]
    app.post("/v1/deidentify", dependencies=guarded, summary="De-identify one text or a batch")(
        service.deidentify
    )
    app.post("/v1/detect", dependencies=guarded, summary="Spans of one text or a batch")(service.detect)
    app.post("/v1/reidentify", dependencies=guarded, summary="Restore originals")(service.reidentify)
    app.get("/health", summary="Readiness and queue")(service.health)
    if config.ui:
        from .ui import mount_ui

        mount_ui(app, config, service.batcher, throttle=service.throttle)
        from .review import mount_review

        mount_review(app, config, service)
    return app


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deid-hf")
    except PackageNotFoundError:
        return "0"


#: uvicorn's options: a client is the address it connects from; a forwarded-for header from any client
#: would let one client spread its key guesses over made-up addresses, or lock another address out
UVICORN_OPTIONS = {"proxy_headers": False}


def serve(config: ServeConfig, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Run the service with uvicorn until interrupted."""
    with extra("serve", "deid-hf serve"):
        import uvicorn
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(create_app(config), host=host, port=port, log_level=log_level, **UVICORN_OPTIONS)
