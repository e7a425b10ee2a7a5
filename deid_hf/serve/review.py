"""The review workflow at ``/review``: open a corpus, check and correct its spans, export the corrections.

A reviewer uploads a JSONL/CSV/Parquet corpus, which the service de-identifies in the model thread (chunk by
chunk, with progress) with ``explain=True`` so that each span names the rule or stage that kept it; or a
finished run's input, output and report. Per document the reviewer accepts, rejects, relabels or adds
spans; the de-identified text is recomputed at once from the corrected spans (`apply_strategy`, the
pipeline's own strategy). Exports: the corrected corpus (JSONL), a ``--config`` file with allow and deny
lists for the next run, and gold spans (``train-detector --documents``). Decisions are saved after each
change in ``DEID_HF_REVIEW_DIR`` (default ``./deid-hf-review``) as offsets and labels only, never text, so
the file needs no encryption; opening the same files with the same options resumes them. Originals stay in
memory; logs hold counts only.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ..corpus_files import FORMATS, durable_replace, json_line, read_records
from ..errors import InputError
from ..extras import extra
from ..spans import LABELS, Span
from .config import ServeConfig
from .engine import safe_error

with extra("serve", "deid-hf serve"):
    from fastapi import APIRouter, Depends, HTTPException, Request
    from fastapi.responses import FileResponse, PlainTextResponse
from pydantic import BaseModel, Field

log = logging.getLogger("deid_hf.serve.review")

STATIC = Path(__file__).with_name("static")
DECISIONS_FORMAT = "deid-hf-review-1"
#: documents de-identified per model-thread call (other requests run between chunks)
CHUNK = 8
#: a span scoring below this counts as low-score (listed first)
LOW_SCORE = 0.6
ACTIONS = ("accept", "reject", "relabel", "add", "undo")
REVIEW_DIR_ENV = "DEID_HF_REVIEW_DIR"
#: sessions kept in memory (the oldest dropped first): uploads cannot grow memory without bound
MAX_SESSIONS = 8


def review_dir() -> Path:
    return Path(os.environ.get(REVIEW_DIR_ENV) or "deid-hf-review")


@dataclass
class Document:
    """One record: its original text (in memory only), detected spans and the reviewer's decisions."""

    original: str | None
    error: str | None = None
    detected: list[dict] = field(default_factory=list)
    #: "start:end" -> {"action", "label"?}: the reviewer's decision on a detected or added span
    decisions: dict[str, dict] = field(default_factory=dict)
    text: str | None = None  # de-identified, after the decisions
    spans: list[dict] = field(default_factory=list)  # shown spans, with status and replacement


@dataclass
class Session:
    id: str
    name: str
    fingerprint: str
    text_field: str
    detector: str
    strategy: str
    p: float
    records: list[dict]
    documents: list[Document]
    seed: int = field(default_factory=lambda: secrets.randbits(63))
    done: int = 0
    state: str = "running"
    error: str | None = None

    def summary(self) -> dict:
        rows = []
        for n, doc in enumerate(self.documents[: self.done]):
            scores = [s["score"] for s in doc.detected]
            rows.append(
                {
                    "index": n,
                    "spans": len(doc.spans),
                    "low_score": sum(score < LOW_SCORE for score in scores),
                    "min_score": min(scores) if scores else None,
                    "error": doc.error,
                    "decisions": len(doc.decisions),
                }
            )
        rows.sort(key=lambda r: (r["error"] is None, r["low_score"] == 0, r["min_score"] or 1.0, r["index"]))
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "error": self.error,
            "done": self.done,
            "total": len(self.documents),
            "detector": self.detector,
            "strategy": self.strategy,
            "documents": rows,
        }


def _key(start: int, end: int) -> str:
    return f"{start}:{end}"


def fingerprint(body: bytes, text_field: str, detector: str, strategy: str) -> str:
    """What a decisions file belongs to: the uploaded bytes and the options (hashed; holds no text)."""
    digest = hashlib.sha256(body)
    digest.update(json.dumps([text_field, detector, strategy]).encode())
    return digest.hexdigest()


def uploaded_records(body: bytes, filename: str, what: str = "uploaded file") -> list[dict]:
    """The records of an uploaded JSONL/CSV/Parquet file (`read_records` on a temporary copy)."""
    suffix = Path(filename).suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"unsupported {what} {filename!r}: upload .jsonl, .csv or .parquet")
    if not body:
        raise InputError(f"the {what} is empty")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(body)
        records = read_records(path)
    if not records:
        raise InputError(f"the {what} holds no records")
    return records


class ReviewStore:
    """Review sessions in memory, their decisions on disk (offsets and labels only)."""

    def __init__(self, config: ServeConfig, engine, batcher, root: Path | None = None):
        self.config, self.engine, self.batcher = config, engine, batcher
        self.root = root or review_dir()
        self.sessions: dict[str, Session] = {}

    # opening ------------------------------------------------------------------------------------------

    def open(self, body: bytes, filename: str, text_field: str, detector: str, strategy: str) -> Session:
        """A session of the uploaded file (its records read with `read_records`); decisions saved earlier
        for the same bytes and options are loaded back."""
        records = uploaded_records(body, filename)
        documents = []
        for n, record in enumerate(records):
            text = record.get(text_field)
            if "__unreadable__" in record:
                documents.append(Document(None, error=str(record["__unreadable__"])))
            elif not isinstance(text, str) or not text:
                documents.append(Document(None, error=f"record {n} has no text in field {text_field!r}"))
            elif len(text) > self.config.max_text_chars:
                error = f"text of {len(text)} characters (at most {self.config.max_text_chars})"
                documents.append(Document(None, error=error))
            else:
                documents.append(Document(text))
        corpus_print = fingerprint(body, text_field, detector, strategy)
        session = Session(
            secrets.token_urlsafe(12),
            Path(filename).name,
            corpus_print,
            text_field,
            detector,
            strategy,
            self.config.p,
            records,
            documents,
        )
        return self._opened(session)

    def open_run(self, files: dict, text_field: str, detector: str, strategy: str) -> Session:
        """A session of a finished `deid-hf run`: ``files`` maps "input", "output" and "report" to (file
        name, bytes). Its spans and texts are the run's (``deid_spans``); a document is replaced again, with
        ``strategy``, once it has a decision."""
        records = uploaded_records(files["input"][1], files["input"][0], "input")
        output = uploaded_records(files["output"][1], files["output"][0], "output")
        try:
            report = json.loads(files["report"][1])
            errors = {int(e["index"]): str(e["error"]) for e in report["errors"]}
            counts = report["records"], report["written"]
            run_p = float((report.get("privacy") or {}).get("p", 1.0))
        except (ValueError, KeyError, TypeError):
            raise InputError("the report is not a deid-hf run report (OUTPUT.report.json)") from None
        if counts != (len(records), len(output)) or len(records) - len(errors) != len(output):
            raise InputError(
                f"these files are not one run: the report counts {counts[0]} records and {counts[1]} "
                f"written, the input has {len(records)}, the output {len(output)}"
            )
        rows = iter(output)
        documents = []
        for n, record in enumerate(records):
            if n in errors:
                documents.append(Document(None, error=errors[n]))
                continue
            row, text = next(rows), record.get(text_field)
            spans = row.get("deid_spans")
            spans = json.loads(spans) if isinstance(spans, str) else spans
            if not isinstance(text, str) or not isinstance(spans, list):
                raise InputError(
                    f"record {n}: no text in field {text_field!r} or no deid_spans in the output"
                )
            doc = Document(text, text=row.get(text_field))
            doc.detected = [
                {k: s[k] for k in ("start", "end", "label", "score", "source")} | {"rule": None}
                for s in spans
            ]
            doc.spans = [
                {**d, "detected_label": d["label"], "status": "detected", "replacement": s.get("replacement")}
                for d, s in zip(doc.detected, spans)
            ]
            documents.append(doc)
        digest = hashlib.sha256()
        for name in ("input", "output", "report"):
            digest.update(hashlib.sha256(files[name][1]).digest())
        corpus_print = fingerprint(digest.digest(), text_field, detector, strategy)
        name = Path(files["output"][0]).name
        session = Session(
            secrets.token_urlsafe(12),
            name,
            corpus_print,
            text_field,
            detector,
            strategy,
            run_p,
            records,
            documents,
        )
        session.done, session.state = len(documents), "done"
        session = self._opened(session)
        for doc in session.documents:
            if doc.decisions:
                self._replace(session, doc)
        return session

    def _opened(self, session: Session) -> Session:
        documents, corpus_print = session.documents, session.fingerprint
        saved = self._saved_decisions(corpus_print)
        for index, decisions in saved.items():
            if 0 <= index < len(documents) and documents[index].original is not None:
                documents[index].decisions = decisions
        self.sessions[session.id] = session
        while len(self.sessions) > MAX_SESSIONS:
            del self.sessions[next(iter(self.sessions))]
        log.info("review session opened: %d record(s), %d with saved decisions", len(documents), len(saved))
        return session

    def _decisions_path(self, corpus_print: str) -> Path:
        return self.root / f"{corpus_print[:32]}.decisions.json"

    def _saved_decisions(self, corpus_print: str) -> dict[int, dict]:
        path = self._decisions_path(corpus_print)
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            log.warning("a decisions file is damaged; starting afresh")
            return {}
        if data.get("format") != DECISIONS_FORMAT or data.get("fingerprint") != corpus_print:
            return {}
        return {int(n): dict(d) for n, d in data.get("documents", {}).items()}

    def save(self, session: Session) -> None:
        """Write the session's decisions atomically: offsets, actions and labels, never text."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self._decisions_path(session.fingerprint)
        data = {
            "format": DECISIONS_FORMAT,
            "fingerprint": session.fingerprint,
            "documents": {str(n): d.decisions for n, d in enumerate(session.documents) if d.decisions},
        }
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True))
        durable_replace(tmp, path)

    async def run(self, session: Session) -> None:
        """De-identify the session's documents chunk by chunk in the model thread (progress in ``done``)."""
        try:
            for first in range(0, len(session.documents), CHUNK):
                chunk = session.documents[first : first + CHUNK]
                await self.batcher.run_in_model_thread(self._detect_chunk, session, chunk)
                session.done = first + len(chunk)
            session.state = "done"
            log.info("review session de-identified: %d document(s)", len(session.documents))
        except Exception as exc:  # noqa: BLE001 - shown to the reviewer, logged by type only
            session.state, session.error = "failed", safe_error(exc)
            log.error("review session failed: %s", type(exc).__name__)

    def _pipeline(self, session: Session):
        return self.engine.pipeline(session.detector, session.strategy)

    def _detect_chunk(self, session: Session, chunk: list[Document]) -> None:
        pipe = self._pipeline(session)
        todo = [doc for doc in chunk if doc.original is not None]
        if not todo:
            return
        results = pipe([doc.original for doc in todo], p=session.p, explain=True, batch_size=len(todo))
        for doc, result in zip(todo, results):
            if result.get("error"):
                doc.error = str(result["error"])
                continue
            rules = {
                (e["start"], e["end"]): e["rule"] for e in result.get("explanation") or () if e.get("kept")
            }
            doc.detected = [
                {
                    "start": s["start"],
                    "end": s["end"],
                    "label": s["label"],
                    "score": s["score"],
                    "source": s["source"],
                    "rule": rules.get((s["start"], s["end"])),
                }
                for s in result["spans"]
            ]
            self._replace(session, doc, pipe)

    # reviewing ----------------------------------------------------------------------------------------

    def session(self, session_id: str) -> Session:
        if session_id not in self.sessions:
            raise KeyError(session_id)
        return self.sessions[session_id]

    def document(self, session: Session, index: int) -> Document:
        if not 0 <= index < session.done:
            raise InputError(f"no document {index} (the session has {session.done} ready)")
        return session.documents[index]

    def effective_spans(self, doc: Document) -> list[Span]:
        """The spans to replace after the decisions: detected ones not rejected (relabelled ones with their
        new label) and the added ones."""
        spans = []
        for s in doc.detected:
            decision = doc.decisions.get(_key(s["start"], s["end"]), {})
            if decision.get("action") == "reject":
                continue
            label = decision.get("label", s["label"])
            spans.append(Span(s["start"], s["end"], label, s["score"], s["source"]))
        for key, decision in doc.decisions.items():
            if decision.get("action") == "add":
                start, end = map(int, key.split(":"))
                spans.append(Span(start, end, decision["label"], 1.0, "review"))
        return sorted(spans, key=lambda s: s.start)

    def _replace(self, session: Session, doc: Document, pipe=None) -> None:
        """Recompute the document's de-identified text from its corrected spans (the pipeline's strategy,
        the session's seed: an unchanged document keeps its surrogates)."""
        from ..pipelines.substitution import document_rng, substitute
        from ..replace.apply import SubstitutionTable, apply_strategy
        from ..text import model_text

        pipe = pipe or self._pipeline(session)
        spans = self.effective_spans(doc)
        rng = document_rng(session.seed, doc.original)
        _, records = apply_strategy(
            model_text(doc.original), spans, pipe.strategy, session.p, rng, SubstitutionTable()
        )
        doc.text = substitute(doc.original, records)
        replaced: dict[tuple[int, int], list[str]] = {}
        for r in records:
            span = next(s for s in spans if s.start <= r.start and r.end <= s.end)
            if r.replaced:
                replaced.setdefault((span.start, span.end), []).append(r.replacement)
        shown = []
        for s in doc.detected:
            decision = doc.decisions.get(_key(s["start"], s["end"]), {})
            action = decision.get("action")
            status = {"reject": "rejected", "accept": "accepted", "relabel": "relabelled"}.get(
                action, "detected"
            )
            label = decision.get("label", s["label"])
            shown.append({**s, "label": label, "detected_label": s["label"], "status": status})
        for key, decision in doc.decisions.items():
            if decision.get("action") == "add":
                start, end = map(int, key.split(":"))
                shown.append(
                    {"start": start, "end": end, "label": decision["label"], "score": 1.0}
                    | {"source": "review", "rule": None, "detected_label": None, "status": "added"}
                )
        for s in shown:
            s["replacement"] = " ".join(replaced.get((s["start"], s["end"]), [])) or None
        doc.spans = sorted(shown, key=lambda s: s["start"])

    def decide(self, session: Session, index: int, action: str, start: int, end: int, label: str | None):
        """Apply one decision to a document, recompute its text, save the session's decisions."""
        doc = self.document(session, index)
        if doc.original is None:
            raise InputError(f"document {index} failed ({doc.error}): nothing to review")
        if action not in ACTIONS:
            raise InputError(f"unknown action {action!r}; expected one of {', '.join(ACTIONS)}")
        if label is not None and label not in LABELS:
            raise InputError(f"unknown label {label!r}; expected one of {', '.join(LABELS)}")
        key = _key(start, end)
        detected = {_key(s["start"], s["end"]): s for s in doc.detected}
        if action == "undo":
            if doc.decisions.pop(key, None) is None:
                raise InputError(f"no decision on characters {start}-{end} to undo")
        elif action == "add":
            if label is None:
                raise InputError("adding a span needs a label")
            if not 0 <= start < end <= len(doc.original) or not doc.original[start:end].strip():
                raise InputError(f"characters {start}-{end} are not a non-blank part of the document")
            clash = [s for s in self.effective_spans(doc) if s.start < end and start < s.end]
            if clash:
                other = clash[0]
                raise InputError(
                    f"characters {start}-{end} overlap the span {other.start}-{other.end}: reject it first"
                )
            doc.decisions[key] = {"action": "add", "label": label}
        else:
            if key not in detected:
                raise InputError(f"no detected span at characters {start}-{end}")
            if action == "relabel":
                if label is None:
                    raise InputError("relabelling a span needs a label")
                doc.decisions[key] = {"action": "relabel", "label": label}
            else:
                doc.decisions[key] = {"action": action}
        self._replace(session, doc)
        self.save(session)
        return doc

    # exports ------------------------------------------------------------------------------------------

    def ready(self, session: Session) -> None:
        if session.state != "done":
            raise InputError(f"the session is {session.state}: wait until every document is de-identified")

    def corpus_jsonl(self, session: Session) -> str:
        """The corrected de-identified corpus: each record with its text field de-identified (a failed
        record keeps its other fields and gets ``error`` instead of text)."""
        self.ready(session)
        lines = []
        for record, doc in zip(session.records, session.documents):
            if doc.error is not None or doc.text is None:
                out = {k: v for k, v in record.items() if k not in (session.text_field, "__unreadable__")}
                lines.append(json_line({**out, "error": doc.error}))
            else:
                lines.append(json_line({**record, session.text_field: doc.text}))
        return "".join(lines)

    def gold_jsonl(self, session: Session, reviewed_only: bool = False) -> str:
        """``{"text", "spans": [{"start", "end", "label"}]}`` per document, as ``train-detector --documents``
        reads them."""
        self.ready(session)
        lines = []
        for doc in session.documents:
            if doc.original is None or doc.error is not None or (reviewed_only and not doc.decisions):
                continue
            spans = [{"start": s.start, "end": s.end, "label": s.label} for s in self.effective_spans(doc)]
            lines.append(json_line({"text": doc.original, "spans": spans}))
        return "".join(lines)

    def next_run_config(self, session: Session) -> dict:
        """A ``--config`` dict for the next run: the server's pipeline options with the session's detector
        and strategy; the words of rejected spans join ``allow_list``, those of added spans ``deny_list``
        (by label) and, where they hold digits, ``patterns`` (`shape_pattern`: other values of that shape).
        A word both rejected and added somewhere is denied only (replacing is the safe side)."""
        from ..config import validate

        base = dict(self.config.pipeline_options or {})
        patterns = {p["regex"]: p for p in base.get("patterns") or ()}
        allowed = dict.fromkeys(base.get("allow_list") or ())
        denied_base = base.get("deny_list") or {}
        if isinstance(denied_base, list):
            denied_base = {"OTHER": denied_base}
        denied = {label: dict.fromkeys(terms) for label, terms in denied_base.items()}
        for doc in session.documents:
            if doc.original is None:
                continue
            for key, decision in doc.decisions.items():
                start, end = map(int, key.split(":"))
                word = doc.original[start:end].strip()
                if decision["action"] == "reject":
                    allowed[word] = None
                elif decision["action"] == "add":
                    denied.setdefault(decision["label"], {})[word] = None
                    regex = shape_pattern(word)
                    if regex is not None and regex not in patterns:
                        name = f"review-{decision['label'].lower()}-{len(patterns) + 1}"
                        patterns[regex] = {
                            "label": decision["label"],
                            "regex": regex,
                            "score": 0.9,
                            "name": name,
                        }
        every_denied = {w.casefold() for terms in denied.values() for w in terms}
        config = {
            **{k: v for k, v in base.items() if k not in ("allow_list", "deny_list", "patterns")},
            "detector": session.detector.split(","),
            "strategy": json.loads(session.strategy)
            if session.strategy.startswith("{")
            else session.strategy,
        }
        if session.strategy == self.config.strategy_key and self.config.strategy_options:
            config["strategy_options"] = self.config.strategy_options
        allow_list = [w for w in allowed if w.casefold() not in every_denied]
        if allow_list:
            config["allow_list"] = allow_list
        if denied:
            config["deny_list"] = {label: list(terms) for label, terms in sorted(denied.items()) if terms}
        if patterns:
            config["patterns"] = list(patterns.values())
        validate(config)
        return config


def shape_pattern(word: str) -> str | None:
    """A regex for values shaped like ``word`` (each digit run as ``\\d{n}``, the rest literal), or None
    where that shape would be too loose: no digits, or one digit run and no letters (a year, a count)."""
    parts = re.findall(r"\d+|\D+", word)
    runs = [part for part in parts if part[0].isdigit()]
    if not runs or (len(runs) < 2 and not any(ch.isalpha() for ch in word)):
        return None
    regex = "".join(rf"\d{{{len(part)}}}" if part[0].isdigit() else re.escape(part) for part in parts)
    return rf"(?<!\w){regex}(?!\w)"


def next_run_yaml(config: dict) -> str:
    import yaml

    header = "# deid-hf review corrections: deid-hf run --config this-file.yaml ...\n"
    return header + yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


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
