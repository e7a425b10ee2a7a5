"""De-identify a whole corpus (`deid-hf run`): JSONL, CSV, Parquet or a saved HF dataset.

Resumable and atomic: every finished batch is appended (and fsynced) to ``OUTPUT.partial.jsonl``; a
re-run skips the records already there, so nothing is redone or duplicated; the final file is written to a
temporary name and renamed into place, then the partial file is removed. The partial file starts with the
run's fingerprint (input path, size and modification time, text field, split, p, seed, pipeline options,
deid-hf version): a run with another fingerprint refuses to resume it (``restart=True`` discards it). A
record that cannot be processed (not a JSON object, missing or empty text, a failure inside the pipeline)
is listed in the report and skipped; it never aborts the run. Checked before any work: the output is not
the input (also through symlinks), its directory exists (created) and is writable, some record has the text
field. ``OUTPUT.report.json`` holds the privacy report of the whole run and the per-record errors. With a
fixed seed the output is identical whether or not the run was interrupted (per-document random streams).
Reading and writing the files: `deid_hf.corpus_files`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from .corpus_files import durable_replace, json_line, read_records, write_records
from .corpus_guard import (
    check_paths,
    output_lock,
    run_fingerprint,
)
from .errors import InputError, each_alone_on_failure, first_line
from .privacy import aggregate_per_label, guarantee_without_dp
from .privacy.report import PrivacyReport


def _read_partial(partial: Path, fingerprint: dict) -> dict[int, dict]:
    done = {}
    if not partial.exists():
        return done
    lines = partial.read_text(encoding="utf-8").splitlines()
    try:
        stored = json.loads(lines[0])["fingerprint"] if lines else fingerprint
    except (ValueError, KeyError, TypeError):
        stored = None
    if stored != fingerprint:
        changed = (
            "it has no fingerprint"
            if not isinstance(stored, dict)
            else "its " + ", ".join(k for k in fingerprint if stored.get(k) != fingerprint[k]) + " differ"
        )
        raise InputError(
            f"{partial} holds a partial output of a different run ({changed}); resume with the same "
            f"input and options, or pass --restart (restart=True) to discard it"
        )
    for line in lines[1:]:
        try:
            entry = json.loads(line)
            done[entry["index"]] = entry
        except (ValueError, KeyError, TypeError, RecursionError):  # a line cut by the interruption: redo it
            continue
    return done


def _record_text(record: dict, text_field: str) -> str:
    if not isinstance(record, dict):
        raise InputError(f"record is a {type(record).__name__}, not an object")
    if "__unreadable__" in record:
        raise InputError(record["__unreadable__"])
    if text_field not in record:
        raise InputError(f"no field {text_field!r}")
    text = record[text_field]
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"field {text_field!r} is empty or not a string")
    return text


def _record_group(record: dict, text: str, group_field: str) -> dict:
    """The pipeline input naming the record's group (its type is checked by the pipeline, per item)."""
    if record.get(group_field) in (None, ""):
        raise InputError(f"field {group_field!r} (the group) is missing or empty")
    return {"text": text, "group": record[group_field]}


def _batches(pending: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(pending), size):
        yield pending[i : i + size]


def aggregate_privacy(reports: list[dict | PrivacyReport]) -> PrivacyReport:
    """Whole-run privacy: epsilon is the maximum over documents (the lemma's max over all private tokens;
    see `PrivacyReport.combine`), with the per-label statement of `aggregate_per_label`."""
    combined = PrivacyReport.combine(reports)
    per_label = aggregate_per_label(reports)
    if not per_label:
        return combined
    if combined.dp:
        return combined.with_(details={"per_label": per_label})
    return combined.with_(
        details={"per_label": per_label}, guarantee=guarantee_without_dp(per_label) or combined.guarantee
    )


def run_corpus(pipe, input_path: str | Path, output_path: str | Path, **options) -> dict:
    """De-identify ``text_field`` of every record (`run_locked`), holding the output's lock."""
    mapping_out = options.get("mapping_out")
    check_paths(Path(input_path), Path(output_path), Path(mapping_out) if mapping_out else None)
    with output_lock(Path(output_path)):
        return run_locked(pipe, input_path, output_path, **options)


def run_locked(
    pipe,
    input_path: str | Path,
    output_path: str | Path,
    *,
    text_field: str = "text",
    batch_size: int = 32,
    p: float = 1.0,
    seed: int | None = None,
    split: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    restart: bool = False,
    mapping_out: str | Path | None = None,
    group_field: str | None = None,
    fit_corpus: bool = False,
) -> dict:
    """De-identify ``text_field`` of every record; returns (and writes beside the output) the run report.

    ``pipe`` is a deid-substitution pipeline, or an engine whose ``process_batches(records, pending,
    batch_size, text_field, p, seed)`` yields lists of `process_batch` entries in any order (the Ray engine).
    ``mapping_out``: write the results' sealed ``restore`` entries there (`deid_hf.reidentify`).
    ``group_field``: the field naming each record's group (e.g. the patient): the records of one group share
    their date offset and pseudonyms (`deid-substitution` ``{"text", "group"}`` inputs).
    ``fit_corpus``: fit the identifier policy's corpus vocabulary on this input instead of using the model's
    (`detect.policy.IdentifierPolicyDetector.fit`): more precision, less privacy, since a name that recurs
    across many records then needs other evidence. Off by default: each record's output is then what one
    pipeline call on it gives.
    """
    input_path, output = Path(input_path), Path(output_path)
    mapping_out = Path(mapping_out) if mapping_out is not None else None
    check_paths(input_path, output, mapping_out)
    records = read_records(input_path, split)
    _check_run(pipe, records, text_field, group_field, seed, fit_corpus)
    partial = output.with_name(output.name + ".partial.jsonl")
    fingerprint = run_fingerprint(pipe, input_path, text_field, split, p, seed, group_field)
    if fit_corpus:  # the vocabulary of the input decides the output: a resume must fit the same way
        fingerprint["fit_corpus"] = True
    if restart:
        partial.unlink(missing_ok=True)
    done = _read_partial(partial, fingerprint)
    if done:
        restore_shared_table(pipe, records, done, text_field, p, seed)
    pending = [i for i in range(len(records)) if i not in done]
    if progress:
        progress(len(done), len(records))
    with _open_partial(partial, fingerprint) as log:
        for entries in _entry_batches(pipe, records, pending, batch_size, text_field, p, seed, group_field):
            _append_durably(log, entries)
            done.update((e["index"], e) for e in entries)
            if progress:
                progress(len(done), len(records))
    ordered = [done[i] for i in range(len(records))]
    report = _write_results(records, ordered, input_path, output, mapping_out, text_field)
    partial.unlink()
    return report


def _entry_batches(pipe, records, pending, batch_size, text_field, p, seed, group_field) -> Iterator[list]:
    """`process_batch` entries of the pending records, a batch at a time (any order with another engine)."""
    if hasattr(pipe, "process_batches"):  # another engine, e.g. deid_hf.corpus_ray.RayEngine
        yield from pipe.process_batches(records, pending, batch_size, text_field, p, seed, group_field)
        return
    for batch in _batches(pending, batch_size):
        yield process_batch(pipe, records, batch, text_field, p, seed, group_field)


def check_group_key(group_field, seed, key) -> None:
    """InputError when a group field comes without a key or a seed (checked before any model loads)."""
    if group_field is not None and seed is None and key is None:
        raise InputError(
            "a group field needs a key (the environment variable --key-env names, DEID_HF_KEY by default; "
            "key= in Python) or a seed (--seed), so that "
            "a group's date offset and pseudonyms are the same in every process and after a resume"
        )


def _check_run(pipe, records: list, text_field: str, group_field, seed, fit_corpus: bool) -> None:
    """InputError before any work when no record has the text field or an option cannot be honoured;
    with ``fit_corpus``, fits the identifier policy's corpus statistics on the whole input."""
    if records and not any(isinstance(r, dict) and text_field in r for r in records):
        fields = sorted({k for r in records if isinstance(r, dict) for k in r if k != "__unreadable__"})
        unreadable = [r["__unreadable__"] for r in records if isinstance(r, dict) and "__unreadable__" in r]
        if len(unreadable) == len(records):
            more = f", and {len(unreadable) - 1} more" if len(unreadable) > 1 else ""
            raise InputError(
                f"no record could be read: {unreadable[0]}{more} (the input must be UTF-8 JSON Lines, CSV or "
                "Parquet)"
            )
        raise InputError(
            f"no record has a field {text_field!r} (fields: {', '.join(fields) or 'none'}); "
            f"name the text field with --text-field (text_field=)"
        )
    check_group_key(group_field, seed, getattr(pipe, "key", None))
    fit = getattr(pipe, "fit", None) or getattr(getattr(pipe, "detector", None), "fit", None)
    if fit_corpus and fit is None:
        raise InputError("fit_corpus needs a detector under an identifier policy (policy hipaa)")
    if fit_corpus:  # the identifier policy's corpus statistics: from the whole input, so resumes agree
        fit(
            [r.get(text_field) for r in records if isinstance(r, dict) and isinstance(r.get(text_field), str)]
        )


def restore_shared_table(pipe, records: list, done: dict[int, dict], text_field: str, p, seed) -> None:
    """Before a resume with a corpus-wide substitution table (``shared_table``): replay the finished
    records, in the order they were processed, through the strategy with their stored spans (no detection
    runs), so that the table holds what it held when the run stopped: every original keeps its surrogate and
    a seeded resume is byte-identical. Nothing is read from or written to disk but the input and the partial
    output (which holds offsets and surrogates, never an original). Without a seed the draws cannot be
    replayed: InputError."""
    table = getattr(pipe, "table", None)
    if table is None:
        return
    if seed is None:
        raise InputError(
            "a shared substitution table cannot be resumed without a seed (its surrogates were drawn at "
            "random and the partial output holds no originals): pass --restart (restart=True), or run "
            "with --seed to make the run resumable"
        )
    from .pipelines.substitution import document_rng
    from .replace.apply import apply_strategy
    from .spans import Span
    from .text import model_text

    for i in sorted(done):
        if "record" not in done[i]:
            continue
        original = records[i][text_field]
        units = [
            Span(u["start"], u["end"], u["label"], u["score"], u["source"])
            for u in done[i]["record"]["deid_spans"]
        ]
        spans = _spans_of_units(model_text(original), units, pipe.strategy)
        rng = document_rng(seed, original)
        apply_strategy(model_text(original), spans, pipe.strategy, p, rng, table, original=original)


def _spans_of_units(text: str, units: list, strategy) -> list:
    """The detected spans behind a record's replacement units: a per-word operator's words of one span
    (same label, score and source, whitespace between) joined again; other units are their spans."""
    from .spans import Span

    spans: list = []
    for unit in units:
        last = spans[-1] if spans else None
        if (
            last is not None
            and strategy.for_label(unit.label).per_word
            and (last.label, last.score, last.source) == (unit.label, unit.score, unit.source)
            and text[last.end : unit.start].isspace()
        ):
            spans[-1] = Span(last.start, unit.end, last.label, last.score, last.source)
        else:
            spans.append(unit)
    return spans


def _open_partial(partial: Path, fingerprint: dict):
    """The partial output opened for appending, its fingerprint written first when it is new."""
    fresh = not partial.exists() or partial.stat().st_size == 0
    try:
        log = open(partial, "a", encoding="utf-8")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise InputError(f"cannot write {partial}: {exc.strerror}") from None
    if fresh:
        log.write(json.dumps({"fingerprint": fingerprint}) + "\n")
    return log


def _append_durably(log, entries: list[dict]) -> None:
    try:
        log.write("".join(json_line(e) for e in entries))
        log.flush()
        os.fsync(log.fileno())
    except OSError as exc:  # a full disk: what is already there stays, a re-run resumes from it
        raise InputError(
            f"cannot write {log.name}: {exc.strerror or exc}; free space and run again"
        ) from None


def _write_results(
    records, ordered: list[dict], input_path: Path, output: Path, mapping_out, text_field: str
) -> dict:
    """Write the output, the mapping (``mapping_out``) and the report; returns the report. The report's
    ``copied_fields`` names the input's other fields, which the output holds as they were."""
    write_records([{**records[e["index"]], **e["record"]} for e in ordered if "record" in e], output)
    if mapping_out is not None:
        from .reidentify import write_mapping

        written = [e for e in ordered if "record" in e]  # keyed by row of the output file
        write_mapping(mapping_out, {row: e["restore"] for row, e in enumerate(written) if "restore" in e})
    report = {
        "input": str(input_path),
        "output": str(output),
        "records": len(records),
        "written": sum("record" in e for e in ordered),
        "errors": [{"index": e["index"], "error": e["error"]} for e in ordered if "error" in e],
        "copied_fields": copied_fields(records, text_field),
        "privacy": aggregate_privacy([e["privacy"] for e in ordered if "privacy" in e]).to_dict(),
    }
    report_path = output.with_name(output.name + ".report.json")
    tmp = report_path.with_name(f".{report_path.name}.tmp")
    tmp.write_text(json.dumps(report, indent=2), encoding="utf-8")
    durable_replace(tmp, report_path)
    return report


def copied_fields(records: list, text_field: str) -> list[str]:
    """The fields of the input other than ``text_field``: a run copies them as they are (names only)."""
    fields = {k for r in records if isinstance(r, dict) for k in r}
    return sorted(fields - {text_field, "__unreadable__"})


def process_batch(pipe, records, batch, text_field, p, seed, group_field=None) -> list[dict]:
    """The partial-output entries of the records ``batch`` (indices): ``record``, ``privacy`` (and
    ``restore``) of each processed record, ``error`` of each bad one."""
    valid, entries = [], {}
    for i in batch:
        try:
            text = _record_text(records[i], text_field)
            valid.append((i, text if group_field is None else _record_group(records[i], text, group_field)))
        except InputError as exc:
            entries[i] = {"index": i, "error": str(exc)}
    results = each_alone_on_failure(
        lambda texts: pipe(texts, p=p, seed=seed, batch_size=len(texts), errors="report"),
        [text for _, text in valid],
    )
    for (i, _), result in zip(valid, results):
        if isinstance(result, Exception):
            entries[i] = {"index": i, "error": f"{type(result).__name__}: {first_line(result)}"}
        elif result.get("error"):
            entries[i] = {"index": i, "error": result["error"]}
        else:
            # only what changed: the output takes the other fields, with their types, from the input
            record = {text_field: result["text"], "deid_spans": result["spans"]}
            entries[i] = {"index": i, "record": record, "privacy": result["privacy"]}
            if "restore" in result:  # sealed by `SealedMappingPipe`: ciphertext only
                entries[i]["restore"] = result["restore"]
    return [entries[i] for i in batch]


def dataset_map_function(
    pipe, text_field: str = "text", group_field: str | None = None, **call_options
) -> Callable[[dict], dict]:
    """For ``datasets.Dataset.map(fn, batched=True)``: replaces ``text_field``, adds ``deid_spans`` (JSON)
    and ``deid_error`` ("" for a good row); the other columns stay as they are. A bad row (None, empty, not
    a string, a missing group, a failure inside the pipeline) gets ``text_field`` None, ``deid_spans`` "[]"
    and its message in ``deid_error``; the other rows are processed (``errors="raise"`` in
    ``call_options``: the batch raises instead, as ``datasets.map`` would). A batch that already has
    ``deid_spans`` or ``deid_error`` (an earlier pass over another column) is refused: rename those first.

    ``pipe`` is a pipeline, or a dict of ``deid_hf.pipeline("deid-substitution", **pipe)`` options: then each
    process of ``map(..., num_proc=N)`` builds its pipeline once, and only the options are pickled and hashed
    (datasets fingerprints the function; a pipeline inside it is pickled whole, model included).
    ``group_field``: the column naming each row's group (e.g. the patient): a group's rows share their date
    offset and pseudonyms, in every process, which needs the pipeline's ``key=`` or a ``seed=``.
    """
    built = (
        pipe
        if isinstance(pipe, dict)
        else {**getattr(pipe, "options", {}), "key": getattr(pipe, "key", None)}
    )
    seed = call_options.get("seed", built.get("seed"))
    check_group_key(group_field, seed, built.get("key"))
    return _DatasetMapFunction(pipe, text_field, group_field, call_options)


#: pipelines built from options, one per process and options
_BUILT: dict[str, object] = {}


#: the columns `dataset_map_function` adds
ADDED_COLUMNS = ("deid_spans", "deid_error")


class _DatasetMapFunction:
    def __init__(self, pipe, text_field: str, group_field: str | None, call_options: dict):
        self.options = dict(pipe) if isinstance(pipe, dict) else None
        self.pipe = None if isinstance(pipe, dict) else pipe
        self.text_field, self.group_field, self.call_options = text_field, group_field, call_options

    def __getstate__(self) -> dict:
        return {**self.__dict__, "pipe": None} if self.options is not None else self.__dict__

    def _pipeline(self):
        if self.pipe is None:
            key = json.dumps(self.options, sort_keys=True, default=repr)
            if key not in _BUILT:
                from .pipelines import pipeline

                _BUILT[key] = pipeline("deid-substitution", **self.options)
            self.pipe = _BUILT[key]
        return self.pipe

    def __call__(self, batch: dict) -> dict:
        taken = [column for column in ADDED_COLUMNS if column in batch]
        if taken:
            raise InputError(
                f"the dataset already has {', '.join(taken)} (an earlier pass?): rename them first, e.g. "
                "dataset.rename_columns({'deid_spans': 'text_deid_spans', 'deid_error': 'text_deid_error'})"
            )
        for field in filter(None, (self.text_field, self.group_field)):
            if field not in batch:
                raise InputError(f"the dataset has no column {field!r} (has {', '.join(batch)})")
        inputs: list = list(batch[self.text_field])
        results: list = [None] * len(inputs)
        if self.group_field is not None:  # a row without its group gets its error, never an ungrouped output
            missing = InputError(f"field {self.group_field!r} (the group) is missing or empty")
            for i, group in enumerate(batch[self.group_field]):
                if group in (None, ""):
                    if self.call_options.get("errors") == "raise":
                        raise missing
                    results[i] = {"text": None, "spans": [], "error": str(missing)}
                else:
                    inputs[i] = {"text": inputs[i], "group": group}
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            done = self._pipeline()([inputs[i] for i in todo], batch_size=len(todo), **self.call_options)
            for i, result in zip(todo, done):
                results[i] = result
        return {
            self.text_field: [r["text"] for r in results],
            "deid_spans": [json.dumps(r["spans"]) for r in results],
            # "" for a good row: a first batch of None would type the column null, and a later error fail
            "deid_error": [r.get("error") or "" for r in results],
        }
