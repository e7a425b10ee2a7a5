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
CSV and Parquet outputs have one type per column: a column whose values mix types (or hold lists or
dicts) is written as JSON strings; lone surrogates, which UTF-8 cannot hold, become U+FFFD there (JSONL
keeps them as ``\\udXXX`` escapes).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from ._version import __version__
from .errors import InputError
from .privacy import aggregate_per_label
from .privacy.report import PrivacyReport
from .text import utf8_safe

FORMATS = (".jsonl", ".csv", ".parquet")


def read_records(path: str | Path, split: str = "train") -> list[dict]:
    """Records of a JSONL/CSV/Parquet file or of a dataset directory saved with ``save_to_disk``."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"input {path} does not exist")
    if path.is_dir():
        import datasets

        loaded = datasets.load_from_disk(str(path))
        if isinstance(loaded, datasets.DatasetDict):
            if split not in loaded:
                raise InputError(f"dataset {path} has no split {split!r} (has {', '.join(loaded)})")
            loaded = loaded[split]
        return loaded.to_list()
    if path.suffix == ".jsonl":
        records = []
        for n, raw in enumerate(path.read_bytes().splitlines(), 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                records.append({"__unreadable__": f"line {n} is not valid UTF-8"})
                continue
            if line.strip():
                try:
                    record = json.loads(line)
                except ValueError:
                    record = {"__unreadable__": f"line {n} is not valid JSON"}
                if not isinstance(record, dict):
                    record = {"__unreadable__": f"line {n} is a JSON {type(record).__name__}, not an object"}
                records.append(record)
        return records
    if path.suffix == ".csv":
        return _csv_records(path)
    if path.suffix == ".parquet":
        import pandas as pd

        return pd.read_parquet(path).to_dict(orient="records")
    raise InputError(
        f"unsupported input {path.name}: use .jsonl, .csv, .parquet or a saved dataset directory"
    )


def _csv_records(path: Path) -> list[dict]:
    """A CSV's rows as records (pandas' column types); a row that is not valid UTF-8 or has another number
    of fields than the header becomes a record error in its place; a quote never closed is an InputError."""
    import csv
    import io

    import pandas as pd

    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        header = next(reader, [])
        for row in reader:
            if row:
                rows.append((reader.line_num, row))
    except csv.Error:
        start = rows[-1][0] + 1 if rows else 2
        raise InputError(f"{path.name}: a quoted field opened on line {start} is never closed") from None
    problems = {}
    for n, (line, row) in enumerate(rows):
        if any("\udc80" <= ch <= "\udcff" for cell in row for ch in cell):
            problems[n] = f"line {line} is not valid UTF-8"
        elif len(row) != len(header):
            problems[n] = f"line {line} has {len(row)} fields, the header {len(header)}"
    if any("\udc80" <= ch <= "\udcff" for ch in "".join(header)):
        raise InputError(f"{path.name}: the header line is not valid UTF-8")
    good = io.StringIO()
    writer = csv.writer(good)
    writer.writerows([header, *(row for n, (_, row) in enumerate(rows) if n not in problems)])
    good.seek(0)
    records = iter(pd.read_csv(good, keep_default_na=False).to_dict(orient="records") if header else [])
    return [{"__unreadable__": problems[n]} if n in problems else next(records) for n in range(len(rows))]


def _cell(value):
    return utf8_safe(value) if isinstance(value, str) else value


def plain(value):
    """``value`` as JSON can hold it: dates and times as ISO 8601, decimals as strings (exact), bytes as
    base64, numpy scalars and arrays as numbers and lists, NaN, infinities and missing values as None."""
    import numpy as np

    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if hasattr(value, "isoformat"):  # datetime, date, time, pandas Timestamp (NaT is missing)
        return None if value != value else value.isoformat()
    return None if _missing(value) else str(value)  # Decimal, pd.NA, ...


def _missing(value) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _stable_columns(records: list[dict]) -> list[dict]:
    """One type per column: a column mixing types (bool, int, float, str, ...) or holding lists or dicts
    is written as JSON strings (strings stay as they are); missing values stay missing."""
    import numpy as np

    columns: dict[str, set] = {}
    for record in records:
        for key, value in record.items():
            if value is not None and not _missing(value):  # None, NaN, NaT: missing in any column
                columns.setdefault(key, set()).add(type(value))
    as_json = {
        key
        for key, types in columns.items()
        if any(issubclass(t, (list, dict, tuple, np.ndarray)) for t in types)
        or (len(types) > 1 and types != {int, float})
    }
    return [
        {
            key: _cell(
                value
                if key not in as_json or value is None or isinstance(value, str)
                else json.dumps(plain(value), ensure_ascii=False)
            )
            for key, value in record.items()
        }
        for record in records
    ]


def _json_line(record) -> str:
    record = plain(record)
    line = json.dumps(record, ensure_ascii=False, allow_nan=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: kept as \udXXX escapes
        line = json.dumps(record, allow_nan=False)
    return line + "\n"


def write_records(records: list[dict], path: Path) -> None:
    """Write atomically: a temporary file in the same directory, then rename."""
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix == ".jsonl":
        with open(tmp, "w", encoding="utf-8") as out:
            out.writelines(_json_line(record) for record in records)
    else:
        import pandas as pd

        frame = pd.DataFrame(_stable_columns(records))
        frame.to_csv(tmp, index=False) if path.suffix == ".csv" else frame.to_parquet(tmp, index=False)
    durable_replace(tmp, path)


def durable_replace(tmp: Path, path: Path) -> None:
    """Rename ``tmp`` onto ``path`` once its bytes are on disk; a full disk is a clear error."""
    try:
        with open(tmp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(tmp, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


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
        except (ValueError, KeyError, TypeError):  # a line cut by the interruption: redo that record
            continue
    return done


def run_fingerprint(
    pipe, input_path: Path, text_field: str, split: str, p: float, seed, group_field: str | None = None
) -> dict:
    """What must not change between a partial output and its resumption (an option given as an object,
    e.g. a `Detector` instance, counts by its type only)."""
    stat = input_path.stat()
    options = getattr(pipe, "options", {})
    key = getattr(pipe, "key", None)
    model = getattr(getattr(getattr(pipe, "model", None), "config", None), "_name_or_path", None)
    return json.loads(
        json.dumps(
            {
                "input": str(input_path.resolve()),
                "input_size": stat.st_size,
                "input_mtime_ns": stat.st_mtime_ns,
                "input_sha256": content_hash(input_path),
                # which key (a keyed digest, never the key) and whether restore lists are sealed: a resume
                # under another key or without them would mix keys or leave rows out of the mapping
                "key_id": key_id(key),
                "mapping": bool(getattr(pipe, "seals_mapping", False)),
                "text_field": text_field,
                "group_field": group_field,
                "split": split,
                "p": p,
                "seed": seed,
                "pipeline": {"task": getattr(pipe, "task_name", None), "model": model, **options},
                "version": __version__,
            },
            default=lambda value: f"<{type(value).__module__}.{type(value).__qualname__}>",
        )
    )


def same_file(a: Path, b: Path) -> bool:
    """``a`` and ``b`` name one file (also through symlinks and hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def written_files(output: Path) -> dict[str, Path]:
    """What a run on ``output`` writes or deletes, by role."""
    return {
        "output": output,
        "partial output": output.with_name(output.name + ".partial.jsonl"),
        "report": output.with_name(output.name + ".report.json"),
        "temporary output": output.with_name(f".{output.name}.tmp"),
        "lock file": output.with_name(output.name + ".lock"),
    }


def check_clashes(inputs: dict[str, Path], outputs: dict[str, Path]) -> None:
    """InputError when a file to write (or delete) is one of the files read or another file written."""
    named = list(outputs.items())
    for n, (role, path) in enumerate(named):
        for other_role, other in [*inputs.items(), *named[:n]]:
            if same_file(path, other) or (other.is_dir() and path.resolve().is_relative_to(other.resolve())):
                raise InputError(f"the {role} {path} is the {other_role} {other}: choose another path")


def content_hash(path: Path) -> str:
    """SHA-256 of a file, or of a directory's files (names and contents, in name order)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]:
        digest.update(str(file.relative_to(path)).encode() if path.is_dir() else b"")
        with open(file, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def key_id(key) -> str | None:
    """A digest naming the key without revealing it (None without a key)."""
    if key is None:
        return None
    from .replace.keys import resolve_key, subkey

    return subkey(resolve_key(key, None, "run"), "deid-hf run fingerprint", 16).hex()


def _check_paths(input_path: Path, output: Path, mapping_out: Path | None = None) -> None:
    if output.suffix not in FORMATS:
        raise InputError(f"unsupported output {output.name}: use one of {', '.join(FORMATS)}")
    if not input_path.exists():
        raise InputError(f"input {input_path} does not exist")
    if output.is_dir():
        raise InputError(f"output {output} is a directory: name a file (e.g. {output / 'out.jsonl'})")
    outputs = written_files(output)
    if mapping_out is not None:
        outputs["mapping file"] = mapping_out
    check_clashes({"input": input_path}, outputs)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output directory {output.parent}: {exc.strerror}") from None
    if not os.access(output.parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write to the output directory {output.parent} (permission denied)")


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
    return combined.with_(details={"per_label": per_label}) if per_label else combined


@contextlib.contextmanager
def output_lock(output: Path) -> Iterator[None]:
    """Held while a run writes ``output`` (``OUTPUT.lock``, removed at the end): a second run on the same
    output is refused, never mixed. The lock is taken on a file that is still the one at that path (a run
    ending meanwhile removes it), so removing it is safe."""
    import fcntl

    path = output.with_name(output.name + ".lock")
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InputError(
                f"another run is writing {output} (it holds {path}): wait for it or choose another output"
            ) from None
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # removed by the run that held it: lock the new file
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def run_corpus(pipe, input_path: str | Path, output_path: str | Path, **options) -> dict:
    """De-identify ``text_field`` of every record (`run_locked`), holding the output's lock."""
    mapping_out = options.get("mapping_out")
    _check_paths(Path(input_path), Path(output_path), Path(mapping_out) if mapping_out else None)
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
    split: str = "train",
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
    ``fit_corpus``: fit the identifier policy's corpus vocabulary on this input instead of using the
    model's (`detect.policy.PolicyDetector.fit`): more precision, less privacy, since a name that recurs
    across many records then needs other evidence. Off by default: each record's output is then what one
    pipeline call on it gives.
    """
    input_path, output = Path(input_path), Path(output_path)
    mapping_out = Path(mapping_out) if mapping_out is not None else None
    _check_paths(input_path, output, mapping_out)
    records = read_records(input_path, split)
    if records and not any(isinstance(r, dict) and text_field in r for r in records):
        fields = sorted({k for r in records if isinstance(r, dict) for k in r if k != "__unreadable__"})
        raise InputError(
            f"no record has a field {text_field!r} (fields: {', '.join(fields) or 'none'}); "
            f"name the text field with --text-field (text_field=)"
        )
    if group_field is not None and seed is None and getattr(pipe, "key", None) is None:
        raise InputError(
            "a group field needs a key (key=, or the environment variable of --key-env) or a seed, so that "
            "a group's date offset and pseudonyms are the same in every process and after a resume"
        )
    fit = getattr(pipe, "fit", None) or getattr(getattr(pipe, "detector", None), "fit", None)
    if fit_corpus and fit is None:
        raise InputError("fit_corpus needs a detector under an identifier policy (policy hipaa)")
    if fit_corpus:  # the identifier policy's corpus statistics: from the whole input, so resumes agree
        fit(
            [r.get(text_field) for r in records if isinstance(r, dict) and isinstance(r.get(text_field), str)]
        )
    partial = output.with_name(output.name + ".partial.jsonl")
    fingerprint = run_fingerprint(pipe, input_path, text_field, split, p, seed, group_field)
    if fit_corpus:  # the vocabulary of the input decides the output: a resume must fit the same way
        fingerprint["fit_corpus"] = True
    if restart:
        partial.unlink(missing_ok=True)
    done = _read_partial(partial, fingerprint)
    pending = [i for i in range(len(records)) if i not in done]
    if progress:
        progress(len(done), len(records))
    fresh = not partial.exists() or partial.stat().st_size == 0
    try:
        log = open(partial, "a", encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise InputError(f"cannot write {partial}: {exc.strerror}") from None
    with log:
        if fresh:
            log.write(json.dumps({"fingerprint": fingerprint}) + "\n")
        if hasattr(pipe, "process_batches"):  # another engine, e.g. deid_hf.corpus_ray.RayEngine
            batches = pipe.process_batches(records, pending, batch_size, text_field, p, seed, group_field)
        else:
            batches = (
                process_batch(pipe, records, b, text_field, p, seed, group_field)
                for b in _batches(pending, batch_size)
            )
        for entries in batches:
            log.write("".join(_json_line(e) for e in entries))
            log.flush()
            os.fsync(log.fileno())
            done.update((e["index"], e) for e in entries)
            if progress:
                progress(len(done), len(records))
    ordered = [done[i] for i in range(len(records))]
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
        "privacy": aggregate_privacy([e["privacy"] for e in ordered if "privacy" in e]).to_dict(),
    }
    report_path = output.with_name(output.name + ".report.json")
    tmp = report_path.with_name(f".{report_path.name}.tmp")
    tmp.write_text(json.dumps(report, indent=2), encoding="utf-8")
    durable_replace(tmp, report_path)
    partial.unlink()
    return report


def process_batch(pipe, records, batch, text_field, p, seed, group_field=None) -> list[dict]:
    valid, entries = [], {}
    for i in batch:
        try:
            text = _record_text(records[i], text_field)
            valid.append((i, text if group_field is None else _record_group(records[i], text, group_field)))
        except InputError as exc:
            entries[i] = {"index": i, "error": str(exc)}
    try:
        results = (
            pipe([text for _, text in valid], p=p, seed=seed, batch_size=len(valid), errors="report")
            if valid
            else []
        )
    except Exception:  # noqa: BLE001 - isolate the failing record(s): one at a time
        results = []
        for _, text in valid:
            try:
                results.append(pipe(text, p=p, seed=seed))
            except Exception as exc:  # noqa: BLE001 - reported per record, never aborts the run
                results.append(exc)
    for (i, _), result in zip(valid, results):
        if isinstance(result, dict) and result.get("error"):
            entries[i] = {"index": i, "error": result["error"]}
            continue
        if isinstance(result, Exception):
            entries[i] = {
                "index": i,
                "error": f"{type(result).__name__}: {str(result).splitlines()[0][:200]}",
            }
            continue
        # only what changed: the output takes the other fields, with their types, from the input
        record = {text_field: result["text"], "deid_spans": result["spans"]}
        entries[i] = {"index": i, "record": record, "privacy": result["privacy"]}
        if "restore" in result:  # sealed by `SealedMappingPipe`: ciphertext only
            entries[i]["restore"] = result["restore"]
    return [entries[i] for i in batch]


def dataset_map_function(pipe, text_field: str = "text", **call_options) -> Callable[[dict], dict]:
    """For ``datasets.Dataset.map(fn, batched=True)``: replaces ``text_field``, adds ``deid_spans`` (JSON)
    and ``deid_error``. A bad row (None, empty, not a string, a failure inside the pipeline) gets
    ``text_field`` None, ``deid_spans`` "[]" and its message in ``deid_error``; the other rows are processed
    (``errors="raise"`` in ``call_options``: the batch raises instead, as ``datasets.map`` would).

    ``pipe`` is a pipeline, or a dict of ``deid_hf.pipeline("deid-substitution", **pipe)`` options: then each
    process of ``map(..., num_proc=N)`` builds its pipeline once, and only the options are pickled and hashed
    (datasets fingerprints the function; a pipeline inside it is pickled whole, model included).
    """
    return _DatasetMapFunction(pipe, text_field, call_options)


#: pipelines built from options, one per process and options
_BUILT: dict[str, object] = {}


class _DatasetMapFunction:
    def __init__(self, pipe, text_field: str, call_options: dict):
        self.options = dict(pipe) if isinstance(pipe, dict) else None
        self.pipe = None if isinstance(pipe, dict) else pipe
        self.text_field, self.call_options = text_field, call_options

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
        texts = list(batch[self.text_field])
        results = self._pipeline()(texts, batch_size=len(texts), **self.call_options) if texts else []
        return {
            self.text_field: [r["text"] for r in results],
            "deid_spans": [json.dumps(r["spans"]) for r in results],
            "deid_error": [r.get("error") for r in results],
        }
