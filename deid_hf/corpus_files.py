"""Corpus files (`deid-hf run`'s input and output): JSONL, CSV, Parquet or a saved HF dataset in; a
record that cannot be read becomes a per-record error in its place (``__unreadable__``), never a failed run.
Out: one type per CSV/Parquet column (mixed columns as JSON strings; lone surrogates as U+FFFD, JSONL keeps
them as escapes; CSV rows end in CRLF), written to a temporary name, fsynced and renamed into place
(`durable_replace`)."""

from __future__ import annotations

import base64
import json
import math
import os
from pathlib import Path

from .errors import InputError
from .text import utf8_safe

FORMATS = (".jsonl", ".csv", ".parquet")


def read_records(path: str | Path, split: str | None = None) -> list[dict]:
    """Records of a JSONL/CSV/Parquet file or of a dataset directory saved with ``save_to_disk``; ``split``
    names the split of a saved ``DatasetDict`` (needed when it has more than one) and nothing else."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"input {path} does not exist")
    if path.is_dir():
        return _dataset_records(path, split)
    if split is not None:
        raise InputError(
            f"--split (split=) names a split of a saved DatasetDict; input {path.name} is a file"
        )
    if path.suffix == ".jsonl":
        return _jsonl_records(path)
    if path.suffix == ".csv":
        return _csv_records(path)
    if path.suffix == ".parquet":
        import pandas as pd

        try:
            return pd.read_parquet(path).to_dict(orient="records")
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise InputError(
                f"input {path} is not a readable Parquet file: {str(exc).splitlines()[0]}"
            ) from None
    raise InputError(
        f"unsupported input {path.name}: use .jsonl, .csv, .parquet or a saved dataset directory"
    )


def _dataset_records(path: Path, split: str | None) -> list[dict]:
    """Records of a dataset saved with ``save_to_disk``: a Dataset, or one split of a DatasetDict."""
    import datasets

    try:
        loaded = datasets.load_from_disk(str(path))
    except FileNotFoundError:
        raise InputError(
            f"input {path} is a directory but no dataset saved with save_to_disk: name a .jsonl, .csv or "
            ".parquet file, or such a dataset directory"
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        if split is None and len(loaded) > 1:
            raise InputError(
                f"dataset {path} has the splits {', '.join(loaded)}: name one with --split (split=); "
                "each split is a run of its own"
            )
        split = split if split is not None else next(iter(loaded))
        if split not in loaded:
            raise InputError(f"dataset {path} has no split {split!r} (has {', '.join(loaded)})")
        loaded = loaded[split]
    elif split is not None:
        raise InputError(f"--split (split=) {split!r}: dataset {path} is one Dataset, without splits")
    return loaded.to_list()


def _jsonl_records(path: Path) -> list[dict]:
    """A JSONL file's objects; a line that is not UTF-8, not JSON or not an object becomes a record error."""
    records = []
    for n, raw in enumerate(_without_bom(path.read_bytes()).splitlines(), 1):
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
            except RecursionError:  # arrays or objects nested deeper than the parser goes
                record = {"__unreadable__": f"line {n} nests JSON too deeply"}
            if not isinstance(record, dict):
                record = {"__unreadable__": f"line {n} is a JSON {type(record).__name__}, not an object"}
            records.append(record)
    return records


def _without_bom(data: bytes) -> bytes:
    """The file's bytes without a leading UTF-8 byte order mark (editors on Windows write one)."""
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _csv_records(path: Path) -> list[dict]:
    """A CSV's rows as records, every cell the string written there ("007" stays "007"); a row that is not
    valid UTF-8 or has another number of fields than the header becomes a record error in its place; a quote
    never closed, or a column name written twice, is an InputError."""
    import csv
    import io

    text = _without_bom(path.read_bytes()).decode("utf-8", errors="surrogateescape")
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
    header = [name or f"Unnamed: {i}" for i, name in enumerate(header)]  # an empty cell, as pandas names it
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(f"{path.name}: the header names a column more than once: {', '.join(repeated)}")
    return [
        {"__unreadable__": problems[n]} if n in problems else dict(zip(header, row))
        for n, (_, row) in enumerate(rows)
    ]


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


def json_line(record) -> str:
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
    try:
        if path.suffix == ".jsonl":
            with open(tmp, "w", encoding="utf-8") as out:
                out.writelines(json_line(record) for record in records)
        else:
            import pandas as pd

            frame = pd.DataFrame(_stable_columns(records))
            if path.suffix == ".csv":  # rows end in CRLF (RFC 4180), so a cell holding a bare "\r" is quoted
                frame.to_csv(tmp, index=False, lineterminator="\r\n")
            else:
                frame.to_parquet(tmp, index=False)
    except OSError as exc:  # a full disk, a quota: the partial output stays, a re-run resumes
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
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
