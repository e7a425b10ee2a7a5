"""De-identify a whole corpus (`deid-hf run`): JSONL, CSV, Parquet or a saved HF dataset.

Resumable and atomic: every finished batch is appended (and fsynced) to ``OUTPUT.partial.jsonl``; a
re-run skips the records already there, so nothing is redone or duplicated; the final file is written to a
temporary name and renamed into place, then the partial file is removed. A record that cannot be processed
(missing or empty text, a failure inside the pipeline) is listed in the report and skipped; it never aborts
the run. ``OUTPUT.report.json`` holds the privacy report of the whole run and the per-record errors. With a
fixed seed the output is identical whether or not the run was interrupted (per-document random streams).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import InputError
from .privacy import aggregate_per_label

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
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    records.append({"__unreadable__": f"line {n} is not valid JSON"})
        return records
    if path.suffix in (".csv", ".parquet"):
        import pandas as pd

        frame = pd.read_csv(path, keep_default_na=False) if path.suffix == ".csv" else pd.read_parquet(path)
        return frame.to_dict(orient="records")
    raise InputError(
        f"unsupported input {path.name}: use .jsonl, .csv, .parquet or a saved dataset directory"
    )


def write_records(records: list[dict], path: Path) -> None:
    """Write atomically: a temporary file in the same directory, then rename."""
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix == ".jsonl":
        with open(tmp, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    else:
        import pandas as pd

        frame = pd.DataFrame(
            [{k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in r.items()} for r in records]
        )
        frame.to_csv(tmp, index=False) if path.suffix == ".csv" else frame.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def _read_partial(partial: Path) -> dict[int, dict]:
    done = {}
    if partial.exists():
        for line in partial.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut by the interruption: redo that record
                continue
            done[entry["index"]] = entry
    return done


def _record_text(record: dict, text_field: str) -> str:
    if "__unreadable__" in record:
        raise InputError(record["__unreadable__"])
    if text_field not in record:
        raise InputError(f"no field {text_field!r}")
    text = record[text_field]
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"field {text_field!r} is empty or not a string")
    return text


def _batches(pending: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(pending), size):
        yield pending[i : i + size]


def aggregate_privacy(reports: list[dict]) -> dict:
    """Whole-run privacy: epsilon is the maximum over documents (the lemma's max over all private tokens)."""
    if not reports:
        return {"dp": None, "epsilon": None, "guarantee": "no records processed"}
    dp = all(r["dp"] for r in reports)
    epsilon = max(r["epsilon"] for r in reports) if dp else None
    without = [r for r in reports if not r["dp"]]
    worst = without[0] if without else max(reports, key=lambda r: r["epsilon"])
    return {
        "strategy": reports[0]["strategy"],
        "p": reports[0]["p"],
        "dp": dp,
        "epsilon": epsilon,
        "guarantee": worst["guarantee"],
        "detector": reports[0]["detector"],
        "caveat": reports[0]["caveat"],
        "per_label": aggregate_per_label(reports),
    }


def run_corpus(
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
    mapping_out: str | Path | None = None,
) -> dict:
    """De-identify ``text_field`` of every record; returns (and writes beside the output) the run report.
    ``mapping_out``: write the results' sealed ``restore`` entries there (`deid_hf.reidentify`)."""
    output = Path(output_path)
    if output.suffix not in FORMATS:
        raise InputError(f"unsupported output {output.name}: use one of {', '.join(FORMATS)}")
    records = read_records(input_path, split)
    partial = output.with_name(output.name + ".partial.jsonl")
    done = _read_partial(partial)
    pending = [i for i in range(len(records)) if i not in done]
    if progress:
        progress(len(done), len(records))
    with open(partial, "a", encoding="utf-8") as log:
        for batch in _batches(pending, batch_size):
            entries = _process_batch(pipe, records, batch, text_field, p, seed)
            log.write("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))
            log.flush()
            os.fsync(log.fileno())
            done.update((e["index"], e) for e in entries)
            if progress:
                progress(len(done), len(records))
    ordered = [done[i] for i in range(len(records))]
    write_records([e["record"] for e in ordered if "record" in e], output)
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
        "privacy": aggregate_privacy([e["privacy"] for e in ordered if "privacy" in e]),
    }
    report_path = output.with_name(output.name + ".report.json")
    tmp = report_path.with_name(f".{report_path.name}.tmp")
    tmp.write_text(json.dumps(report, indent=2))
    os.replace(tmp, report_path)
    partial.unlink()
    return report


def _process_batch(pipe, records, batch, text_field, p, seed) -> list[dict]:
    valid, entries = [], {}
    for i in batch:
        try:
            valid.append((i, _record_text(records[i], text_field)))
        except InputError as exc:
            entries[i] = {"index": i, "error": str(exc)}
    try:
        results = pipe([text for _, text in valid], p=p, seed=seed, batch_size=len(valid)) if valid else []
    except Exception:  # noqa: BLE001 - isolate the failing record(s): one at a time
        results = []
        for i, text in valid:
            try:
                results.append(pipe(text, p=p, seed=seed))
            except Exception as exc:  # noqa: BLE001 - reported per record, never aborts the run
                results.append(exc)
    for (i, _), result in zip(valid, results):
        if isinstance(result, Exception):
            entries[i] = {
                "index": i,
                "error": f"{type(result).__name__}: {str(result).splitlines()[0][:200]}",
            }
            continue
        record = {**records[i], text_field: result["text"], "deid_spans": result["spans"]}
        entries[i] = {"index": i, "record": record, "privacy": result["privacy"]}
        if "restore" in result:  # sealed by `SealedMappingPipe`: ciphertext only
            entries[i]["restore"] = result["restore"]
    return [entries[i] for i in batch]


def dataset_map_function(pipe, text_field: str = "text", **call_options) -> Callable[[dict], dict]:
    """For ``datasets.Dataset.map(fn, batched=True)``: replaces ``text_field``, adds ``deid_spans`` (JSON)."""

    def deidentify(batch: dict) -> dict:
        results = pipe(list(batch[text_field]), batch_size=len(batch[text_field]), **call_options)
        return {
            text_field: [r["text"] for r in results],
            "deid_spans": [json.dumps(r["spans"]) for r in results],
        }

    return deidentify
