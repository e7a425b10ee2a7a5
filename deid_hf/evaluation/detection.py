"""Detection metrics exactly as defined in shared/EVALUATION.md (label-agnostic, token level).

Tokens are the whitespace-separated pieces of the original text. A token [s, e) is gold- (predicted-)
sensitive iff it overlaps a gold (predicted) span [a, b): s < b and a < e. TP/FP/FN are summed over all
documents (micro). An entity is *fully protected* when all its tokens are predicted-sensitive, *partially*
when at least one is. Leakage: distinct gold entity strings (stripped, lower-cased, >= 3 characters) still
found (case-insensitive substring) in the de-identified output, summed over documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class GoldSpan:
    start: int
    end: int
    label: str = "OTHER"


@dataclass(frozen=True)
class GoldDocument:
    text: str
    spans: tuple[GoldSpan, ...]


def tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text)]


def _flags(toks: list[tuple[int, int]], spans: Iterable) -> list[bool]:
    spans = [(s.start, s.end) if hasattr(s, "start") else (s[0], s[1]) for s in spans]
    return [any(s < b and a < e for a, b in spans) for s, e in toks]


@dataclass
class DetectionCounts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    entities: int = 0
    fully: int = 0
    partially: int = 0
    per_type: dict = field(default_factory=dict)  # label -> [gold tokens, recalled tokens]
    leaked: int = 0
    leak_total: int = 0

    def add(self, doc: GoldDocument, predicted: Sequence, output_text: str | None = None) -> None:
        toks = tokens(doc.text)
        gold = _flags(toks, doc.spans)
        pred = _flags(toks, predicted)
        self.tp += sum(g and p for g, p in zip(gold, pred))
        self.fp += sum(p and not g for g, p in zip(gold, pred))
        self.fn += sum(g and not p for g, p in zip(gold, pred))
        for span in doc.spans:
            inside = [i for i, (s, e) in enumerate(toks) if s < span.end and span.start < e]
            if not inside:
                continue
            self.entities += 1
            self.fully += all(pred[i] for i in inside)
            self.partially += any(pred[i] for i in inside)
            counts = self.per_type.setdefault(span.label, [0, 0])
            counts[0] += len(inside)
            counts[1] += sum(pred[i] for i in inside)
        if output_text is not None:
            strings = {doc.text[s.start : s.end].strip().lower() for s in doc.spans}
            strings = {s for s in strings if len(s) >= 3}
            lowered = output_text.lower()
            self.leak_total += len(strings)
            self.leaked += sum(s in lowered for s in strings)

    def report(self) -> dict:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "token_precision": precision,
            "token_recall": recall,
            "token_f1": f1,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "entities": self.entities,
            "entities_fully_protected": self.fully / self.entities if self.entities else 0.0,
            "entities_partially_protected": self.partially / self.entities if self.entities else 0.0,
            "per_type_recall": {
                label: (hit / total if total else 0.0)
                for label, (total, hit) in sorted(self.per_type.items())
            },
            "leakage": self.leaked / self.leak_total if self.leak_total else None,
        }


def detection_report(
    docs: Sequence[GoldDocument], predictions: Sequence[Sequence], outputs: Sequence[str] | None = None
) -> dict:
    """EVALUATION.md metrics of per-document predicted spans (and de-identified outputs, for leakage)."""
    counts = DetectionCounts()
    for i, (doc, predicted) in enumerate(zip(docs, predictions)):
        counts.add(doc, predicted, outputs[i] if outputs is not None else None)
    return counts.report()


def load_gold(
    path: str | Path, text_field: str = "full_text", limit: int | None = None
) -> list[GoldDocument]:
    """Gold documents from JSON (a list) or JSONL (one object per line).

    Schema: ``{"<text_field>": str, "spans": [{"start"|"start_position": int, "end"|"end_position": int,
    "label"|"entity_type": str}]}``; presidio_synth_pii's schema is read directly (``text`` where the
    record has no ``text_field``). Ends are exclusive. A record or span that does not fit is an
    `InputError` naming it.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"gold file {path} does not exist")
    try:
        raw = path.read_text(encoding="utf-8")
        records = (
            json.loads(raw)
            if path.suffix == ".json"
            else [json.loads(x) for x in raw.splitlines() if x.strip()]
        )
    except UnicodeDecodeError:
        raise InputError(f"gold file {path} is not UTF-8") from None
    except ValueError as exc:
        raise InputError(
            f"gold file {path} is not valid JSON{'' if path.suffix == '.json' else ' Lines'}: {exc}"
        ) from None
    if not isinstance(records, list):
        raise InputError(f"gold file {path} must hold a list of documents (JSON) or one per line (JSONL)")
    docs = [_gold_document(record, i, path, text_field) for i, record in enumerate(records[:limit])]
    if not docs:
        raise InputError(f"gold file {path} holds no documents")
    return docs


def _gold_document(record, i: int, path: Path, text_field: str) -> GoldDocument:
    """One gold record as a document; an `InputError` naming record ``i`` where it does not fit."""
    where = f"{path}: record {i}"
    if not isinstance(record, dict):
        raise InputError(f"{where} is a JSON {type(record).__name__}, not an object")
    text = record.get(text_field, record.get("text"))
    if not isinstance(text, str):
        raise InputError(f"{where} has no string field {text_field!r}")
    spans = record.get("spans", [])
    if not isinstance(spans, list) or not all(isinstance(s, dict) for s in spans):
        raise InputError(f"{where}: spans must be a list of objects with start, end and label")
    gold = []
    for s in spans:
        start, end = s.get("start", s.get("start_position")), s.get("end", s.get("end_position"))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
            raise InputError(f"{where}: a span's start and end must be integers, got {start!r} and {end!r}")
        if not 0 <= start < end <= len(text):
            raise InputError(f"{where}: span {start}-{end} is not inside its text of {len(text)} characters")
        gold.append(GoldSpan(start, end, str(s.get("label", s.get("entity_type", "OTHER")))))
    return GoldDocument(text, tuple(gold))


def evaluate_pipeline(
    pipe, docs: Sequence[GoldDocument], *, seed: int | None = 0, batch_size: int = 32, progress=None
) -> dict:
    """EVALUATION.md metrics of a `deid-substitution` pipeline: its replaced spans are the predictions and
    its output text is checked for leakage."""
    counts = DetectionCounts()
    for start in range(0, len(docs), batch_size):
        batch = docs[start : start + batch_size]
        for doc, result in zip(batch, pipe([d.text for d in batch], seed=seed, batch_size=len(batch))):
            counts.add(
                doc, [(s["start"], s["end"]) for s in result["spans"] if s["replaced"]], result["text"]
            )
        if progress:
            progress(min(start + batch_size, len(docs)), len(docs))
    return counts.report()
