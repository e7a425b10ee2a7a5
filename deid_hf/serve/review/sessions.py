"""Review sessions and their documents: what a session holds, its fingerprint, the uploaded records."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ...corpus_files import FORMATS, read_records
from ...errors import InputError

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


def span_key(start: int, end: int) -> str:
    """The key of a span in a document's decisions: "start:end"."""
    return f"{start}:{end}"


def fingerprint(body: bytes, text_field: str, detector: str, strategy: str, key: bytes) -> str:
    """What a decisions file belongs to: the uploaded bytes and the options, under the review folder's
    ``key`` (`review_key`; a plain hash would let anyone who guesses a short file confirm it was reviewed)."""
    digest = hmac.new(key, body, hashlib.sha256)
    digest.update(json.dumps([text_field, detector, strategy]).encode())
    return digest.hexdigest()


#: the review folder's fingerprint key: random, made on first use, readable by its owner only
KEY_FILE = ".fingerprint-key"


def review_key(root: Path) -> bytes:
    """The fingerprint key of the review folder ``root``, made once (two servers racing agree on one)."""
    path = root / KEY_FILE
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        descriptor, tmp = tempfile.mkstemp(dir=root, prefix=".key-")  # readable by its owner only
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(secrets.token_bytes(32))
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # another server made it first: use that one
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    key = path.read_bytes()
    if len(key) != 32:
        raise InputError(f"the review key {path} is damaged: delete it (saved decisions are then not found)")
    return key


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


def run_documents(
    records: list[dict], output: list[dict], errors: dict[int, str], text_field: str
) -> list[Document]:
    """The documents of a finished run: each input record with the run's spans and text (``deid_spans`` of
    its output row), or its error from the report."""
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
            raise InputError(f"record {n}: no text in field {text_field!r} or no deid_spans in the output")
        doc = Document(text, text=row.get(text_field))
        doc.detected = [
            {k: s[k] for k in ("start", "end", "label", "score", "source")} | {"rule": None} for s in spans
        ]
        doc.spans = [
            {**d, "detected_label": d["label"], "status": "detected", "replacement": s.get("replacement")}
            for d, s in zip(doc.detected, spans)
        ]
        documents.append(doc)
    return documents
