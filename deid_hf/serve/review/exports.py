"""Review exports: the corrected corpus, gold spans and a ``--config`` file for the next run."""

from __future__ import annotations

import json
import re

from ...corpus_files import json_line
from ...errors import InputError
from .sessions import Session


class ReviewExports:
    """The exports of `ReviewStore` (it provides ``config`` and ``effective_spans``)."""

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
        from ...config import validate

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
