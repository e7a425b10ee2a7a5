"""The review page and its HTTP API, bound to the service."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...extras import extra
from ...spans import LABELS
from ..config import ServeConfig
from .exports import next_run_yaml
from .sessions import LOW_SCORE, Document
from .store import ReviewStore

with extra("serve", "deid-hf serve"):
    from fastapi import APIRouter, Depends, HTTPException, Request
    from fastapi.responses import FileResponse, PlainTextResponse
from pydantic import BaseModel, Field

STATIC = Path(__file__).parent.parent / "static"


class DecisionRequest(BaseModel):
    action: str = Field(description="accept, reject, relabel, add or undo")
    start: int
    end: int
    label: str | None = Field(None, description="the label of an added or relabelled span")


def _checked(call):
    try:
        return call()
    except KeyError:
        raise HTTPException(
            404,
            "no such review session (a restart or newer sessions dropped it): upload the file again, its "
            "decisions are resumed",
        ) from None
    except InputError as exc:
        raise HTTPException(400, str(exc)) from None


def _download(text: str, name: str, media_type: str):
    return PlainTextResponse(
        text.encode("utf-8", "replace"),
        media_type=f"{media_type}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


def _document_body(index: int, doc: Document) -> dict:
    return {
        "index": index,
        "original": doc.original,
        "text": doc.text,
        "error": doc.error,
        "spans": doc.spans,
        "reviewed": bool(doc.decisions),
    }


class ReviewAPI:
    """The review endpoints, bound to the service (its configuration, engine, batcher and API key)."""

    STATIC_TYPES: ClassVar[dict] = {"review.js": "text/javascript", "review.css": "text/css"}

    def __init__(self, config: ServeConfig, service):
        self.config, self.service = config, service
        self.store = ReviewStore(config, service.engine, service.batcher)
        self.tasks: set = set()

    async def page(self):
        return FileResponse(STATIC / "review.html", media_type="text/html")

    async def static(self, name: str):
        if name not in self.STATIC_TYPES:
            raise HTTPException(404, "not found")
        return FileResponse(STATIC / name, media_type=self.STATIC_TYPES[name])

    async def options(self):
        """What this server can run: strategies, detectors, labels."""
        config = self.config
        return {
            "strategies": list(config.allowed_strategies),
            "strategy": config.strategy if isinstance(config.strategy, str) else None,
            "detectors": list(config.allowed_detectors),
            "detector": config.detector,
            "labels": list(LABELS),
            "low_score": LOW_SCORE,
        }

    async def open_session(
        self,
        request: Request,
        filename: str,
        text_field: str = "text",
        detector: str | None = None,
        strategy: str | None = None,
    ):
        """Upload a corpus (the raw file as the body): the server de-identifies it in the background."""
        if not self.service.ready:
            raise HTTPException(503, "the pipeline is still loading", headers={"Retry-After": "1"})
        body = await request.body()
        chosen_detector = _checked(lambda: self.config.check_detector(detector))
        chosen_strategy = _checked(lambda: self.config.check_strategy(strategy))
        try:  # parsing a large file would hold the event loop
            session = await asyncio.to_thread(
                self.store.open, body, filename, text_field, chosen_detector, chosen_strategy
            )
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None
        task = asyncio.get_running_loop().create_task(self.store.run(session))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return session.summary()

    async def open_run(
        self,
        request: Request,
        text_field: str = "text",
        detector: str | None = None,
        strategy: str | None = None,
    ):
        """Open a finished ``deid-hf run``: a multipart form with its input, output and report files."""
        if not self.service.ready:
            raise HTTPException(503, "the pipeline is still loading", headers={"Retry-After": "1"})
        form = await request.form()
        files = {}
        for name in ("input", "output", "report"):
            upload = form.get(name)
            if upload is None or isinstance(upload, str):
                raise HTTPException(400, f"the form needs a file named {name!r}")
            files[name] = (upload.filename or name, await upload.read())
        chosen_detector = _checked(lambda: self.config.check_detector(detector))
        chosen_strategy = _checked(lambda: self.config.check_strategy(strategy))

        def run():
            return self.store.open_run(files, text_field, chosen_detector, chosen_strategy)

        try:
            session = await self.service.batcher.run_in_model_thread(run)
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None
        return session.summary()

    async def summary(self, session_id: str):
        """Progress and the documents, errors and low-score spans first."""
        return _checked(lambda: self.store.session(session_id)).summary()

    async def document(self, session_id: str, index: int):
        """A document: original, de-identified text and spans (label, score, source, rule, status)."""
        session = _checked(lambda: self.store.session(session_id))
        return _document_body(index, _checked(lambda: self.store.document(session, index)))

    async def decide(self, session_id: str, index: int, decision: DecisionRequest):
        """Accept, reject, relabel, add or undo a span; answers the document recomputed."""
        session = _checked(lambda: self.store.session(session_id))

        def run():
            store = self.store
            return store.decide(session, index, decision.action, decision.start, decision.end, decision.label)

        try:
            doc = await self.service.batcher.run_in_model_thread(run)
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None
        return _document_body(index, doc)

    async def _export(self, session_id: str, build) -> str:
        """``build(session)`` in the model thread, where decisions change (never half of one exported)."""
        session = _checked(lambda: self.store.session(session_id))
        try:
            return await self.service.batcher.run_in_model_thread(build, session)
        except InputError as exc:
            raise HTTPException(400, str(exc)) from None

    async def export_corpus(self, session_id: str):
        """The corrected de-identified corpus (JSONL)."""
        text = await self._export(session_id, self.store.corpus_jsonl)
        return _download(text, "deidentified.jsonl", "application/jsonl")

    async def export_config(self, session_id: str):
        """Allow and deny lists (with the detector and strategy) for ``deid-hf run --config``."""
        config = await self._export(session_id, self.store.next_run_config)
        return _download(next_run_yaml(config), "review-config.yaml", "application/yaml")

    async def export_gold(self, session_id: str, reviewed_only: bool = False):
        """Corrected spans as ``train-detector --documents`` reads them."""
        text = await self._export(session_id, lambda session: self.store.gold_jsonl(session, reviewed_only))
        return _download(text, "gold.jsonl", "application/jsonl")

    def mount(self, app, path: str = "/review") -> None:
        page = APIRouter(include_in_schema=False)
        page.get("")(self.page)
        page.get("/")(self.page)
        page.get("/static/{name}")(self.static)
        api = APIRouter(dependencies=[Depends(self.service.authenticate)], tags=["review"])
        sessions = "/sessions/{session_id}"
        api.get("/options")(self.options)
        api.post("/sessions")(self.open_session)
        api.post("/runs")(self.open_run)
        api.get(sessions)(self.summary)
        api.get(f"{sessions}/documents/{{index}}")(self.document)
        api.post(f"{sessions}/documents/{{index}}/decisions")(self.decide)
        api.get(f"{sessions}/export/corpus.jsonl")(self.export_corpus)
        api.get(f"{sessions}/export/config.yaml")(self.export_config)
        api.get(f"{sessions}/export/gold.jsonl")(self.export_gold)
        app.include_router(page, prefix=path)
        app.include_router(api, prefix=f"{path}/api")


def mount_review(app, config: ServeConfig, service, path: str = "/review") -> ReviewStore:
    """The review page and its API (``{path}/api/...``, API key as for ``/v1``) on ``app``."""
    routes = ReviewAPI(config, service)
    routes.mount(app, path)
    app.state.review = routes.store
    return routes.store
