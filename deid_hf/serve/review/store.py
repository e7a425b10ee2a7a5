"""The review store: sessions in memory, their de-identification and decisions (saved on disk)."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from pathlib import Path

from ...corpus_files import durable_replace
from ...errors import InputError
from ...spans import LABELS, Span
from ..config import ServeConfig
from ..engine import safe_error
from .exports import ReviewExports
from .sessions import (
    ACTIONS,
    CHUNK,
    DECISIONS_FORMAT,
    MAX_SESSIONS,
    Document,
    Session,
    fingerprint,
    review_dir,
    review_key,
    run_documents,
    span_key,
    uploaded_records,
)

log = logging.getLogger("deid_hf.serve.review")


class ReviewStore(ReviewExports):
    """Review sessions in memory, their decisions on disk (offsets and labels only)."""

    def __init__(self, config: ServeConfig, engine, batcher, root: Path | None = None):
        self.config, self.engine, self.batcher = config, engine, batcher
        self.root = root or review_dir()
        self.sessions: dict[str, Session] = {}
        self._key: bytes | None = None

    def _fingerprint(self, body: bytes, text_field: str, detector: str, strategy: str) -> str:
        if self._key is None:
            self._key = review_key(self.root)
        return fingerprint(body, text_field, detector, strategy, self._key)

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
        corpus_print = self._fingerprint(body, text_field, detector, strategy)
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
        documents = run_documents(records, output, errors, text_field)
        digest = hashlib.sha256()
        for name in ("input", "output", "report"):
            digest.update(hashlib.sha256(files[name][1]).digest())
        corpus_print = self._fingerprint(digest.digest(), text_field, detector, strategy)
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
            decision = doc.decisions.get(span_key(s["start"], s["end"]), {})
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
        from ...pipelines.substitution import document_rng, substitute
        from ...replace.apply import SubstitutionTable, apply_strategy
        from ...text import model_text

        pipe = pipe or self._pipeline(session)
        spans = self.effective_spans(doc)
        rng = document_rng(session.seed, doc.original)
        table, text = SubstitutionTable(), model_text(doc.original)
        _, records = apply_strategy(text, spans, pipe.strategy, session.p, rng, table, original=doc.original)
        doc.text = substitute(doc.original, records)
        replaced: dict[tuple[int, int], list[str]] = {}
        for r in records:
            span = next(s for s in spans if s.start <= r.start and r.end <= s.end)
            if r.replaced:
                replaced.setdefault((span.start, span.end), []).append(r.replacement)
        shown = []
        for s in doc.detected:
            decision = doc.decisions.get(span_key(s["start"], s["end"]), {})
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
        key = span_key(start, end)
        detected = {span_key(s["start"], s["end"]): s for s in doc.detected}
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
