"""Issue 31: `deid-hf run` and `reidentify` on typed columns, refused path clashes and odd inputs."""

import datetime
import decimal
import json
import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Dataset

import deid_hf
from deid_hf.cli import main
from deid_hf.corpus import run_corpus
from deid_hf.errors import InputError

TEXTS = ["Maria Gonzalez lives in Paris.", "Call Tom at (217) 555-0143."]


@pytest.fixture(scope="module")
def pipe():
    # policy "strict": the bare detectors (no corpus vocabulary involved in these file-handling tests)
    return deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed", policy="strict")


def typed_table() -> pa.Table:
    return pa.table(
        {
            "text": TEXTS,
            "seen": pa.array([datetime.datetime(2024, 3, 3, 9, 30), None], pa.timestamp("us")),
            "day": pa.array([datetime.date(2024, 3, 3), datetime.date(2024, 3, 4)], pa.date32()),
            "tags": [["a", "b"], []],
            "blob": pa.array([b"\x00\xff", b"x"], pa.binary()),
            "amount": pa.array([decimal.Decimal("12.30"), decimal.Decimal("-1.05")], pa.decimal128(6, 2)),
            "score": [float("nan"), 1.5],
        }
    )


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv"])
def test_parquet_with_typed_columns_is_written(tmp_path, pipe, suffix):
    source = tmp_path / "in.parquet"
    pq.write_table(typed_table(), source)
    output = tmp_path / f"out{suffix}"
    report = run_corpus(pipe, source, output, seed=1)
    assert report["written"] == 2 and not report["errors"]
    if suffix == ".jsonl":
        rows = read_jsonl(output)
        assert "NaN" not in output.read_text() and rows[0]["score"] is None
        assert rows[0]["seen"].startswith("2024-03-03T09:30") and rows[0]["day"] == "2024-03-03"
        assert rows[0]["amount"] == "12.30" and rows[0]["tags"] == ["a", "b"] and rows[0]["blob"] == "AP8="
    elif suffix == ".parquet":
        out = pq.read_table(output)
        assert pa.types.is_decimal(out.schema.field("amount").type) and pa.types.is_timestamp(
            out.schema.field("seen").type
        )
        assert out.schema.field("blob").type == pa.binary() and out.column("blob")[0].as_py() == b"\x00\xff"
    else:
        assert len(pd.read_csv(output)) == 2
    assert "Maria" not in output.read_bytes().decode("utf-8", "replace")


def test_saved_dataset_with_typed_columns_is_written(tmp_path, pipe):
    Dataset(typed_table()).save_to_disk(str(tmp_path / "ds"))
    report = run_corpus(pipe, tmp_path / "ds", tmp_path / "out.jsonl", seed=1)
    assert report["written"] == 2 and read_jsonl(tmp_path / "out.jsonl")[1]["amount"] == "-1.05"


def test_nan_and_infinity_never_reach_jsonl(tmp_path, pipe):
    source = tmp_path / "in.parquet"
    pd.DataFrame({"text": TEXTS, "x": [float("inf"), float("nan")]}).to_parquet(source)
    run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert [r["x"] for r in read_jsonl(tmp_path / "out.jsonl")] == [None, None]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("DEID_HF_KEY", "k" * 32)


def cli(*argv) -> int:
    return main([str(a) for a in argv])


@pytest.mark.parametrize("target", ["input", "output", "partial", "report"])
def test_mapping_out_may_not_be_a_file_the_run_reads_or_writes(tmp_path, pipe, target):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    output = tmp_path / "out.jsonl"
    paths = {
        "input": source,
        "output": output,
        "partial": tmp_path / "out.jsonl.partial.jsonl",
        "report": tmp_path / "out.jsonl.report.json",
    }
    before = source.read_bytes()
    with pytest.raises(InputError, match="the mapping file .* is the"):
        run_corpus(pipe, source, output, seed=1, mapping_out=paths[target])
    assert source.read_bytes() == before and not output.exists()


def test_input_named_like_the_partial_output_is_refused_not_deleted(tmp_path, pipe):
    source = write_jsonl(tmp_path / "out.jsonl.partial.jsonl", [{"text": t} for t in TEXTS])
    with pytest.raises(InputError, match="partial output .* is the input"):
        run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1, restart=True)
    assert source.exists()


def test_output_directory_is_refused_before_work(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    (tmp_path / "out.jsonl").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert not (tmp_path / "out.jsonl.partial.jsonl").exists()


def test_reidentify_refuses_output_equal_to_input(tmp_path, capsys, key):
    source = write_jsonl(tmp_path / "deid.jsonl", [{"text": "[ENC:abc] called."}])
    before = source.read_bytes()
    assert cli("reidentify", source, source) == 2
    assert "is the input" in capsys.readouterr().err and source.read_bytes() == before


def test_reidentify_refuses_output_equal_to_mapping(tmp_path, capsys, key):
    source = write_jsonl(tmp_path / "deid.jsonl", [{"text": "x"}])
    mapping = tmp_path / "map.json"
    mapping.write_text("{}")
    link = tmp_path / "out.jsonl"
    link.symlink_to(mapping)
    assert cli("reidentify", source, link, "--mapping", mapping) == 2
    assert "is the mapping file" in capsys.readouterr().err and mapping.read_text() == "{}"


@pytest.mark.parametrize(
    "content",
    [
        '{"format": "deid-hf-mapping-1", "records": [1]}',
        '{"format": "deid-hf-mapping-1", "records": {"x": 1}}',
    ],
)
def test_malformed_mapping_file_is_a_clear_error(tmp_path, capsys, key, content):
    source = write_jsonl(tmp_path / "deid.jsonl", [{"text": "x"}])
    (tmp_path / "map.json").write_text(content)
    assert cli("reidentify", source, tmp_path / "out.jsonl", "--mapping", tmp_path / "map.json") == 2
    assert "damaged" in capsys.readouterr().err


def mapped_run(tmp_path, pipe, records):
    from deid_hf.reidentify import SealedMappingPipe

    source = write_jsonl(tmp_path / "in.jsonl", records)
    run_corpus(
        SealedMappingPipe(pipe), source, tmp_path / "out.jsonl", seed=1, mapping_out=tmp_path / "m.json"
    )
    return tmp_path / "out.jsonl", tmp_path / "m.json"


def test_deleted_mapping_entry_is_an_error_not_skipped(tmp_path, pipe, capsys, key):
    output, mapping = mapped_run(tmp_path, pipe, [{"text": t} for t in TEXTS])
    data = json.loads(mapping.read_text())
    del data["records"]["1"]
    mapping.write_text(json.dumps(data))
    assert cli("reidentify", output, tmp_path / "back.jsonl", "--mapping", mapping) == 2
    assert "record 1 has no entry in the mapping file" in capsys.readouterr().err
    assert not (tmp_path / "back.jsonl").exists()


def test_a_reordered_output_is_refused_not_given_another_records_originals(tmp_path, pipe, capsys, key):
    output, mapping = mapped_run(tmp_path, pipe, [{"id": i, "text": t} for i, t in enumerate(TEXTS)])
    rows = output.read_text().splitlines()
    output.write_text("\n".join(reversed(rows)) + "\n")
    assert cli("reidentify", output, tmp_path / "back.jsonl", "--mapping", mapping) == 2
    assert "record 0 is not the record its mapping entry was written for" in capsys.readouterr().err
    assert not (tmp_path / "back.jsonl").exists()
    output.write_text("\n".join(rows) + "\n")  # as the run wrote it: restored exactly
    assert cli("reidentify", output, tmp_path / "back.jsonl", "--mapping", mapping) == 0
    assert [r["text"] for r in read_jsonl(tmp_path / "back.jsonl")] == TEXTS


def test_reidentify_without_envelopes_or_mapping_says_nothing_was_restored(tmp_path, capsys, key):
    source = write_jsonl(tmp_path / "deid.jsonl", [{"text": "<PERSON> called."}, {"text": "Tom called."}])
    assert cli("reidentify", source, tmp_path / "back.jsonl") == 2
    assert "nothing to re-identify" in capsys.readouterr().err
    assert not (tmp_path / "back.jsonl").exists()


def test_fingerprint_covers_content_key_and_mapping(tmp_path, pipe, monkeypatch):
    from deid_hf.corpus_guard import run_fingerprint
    from deid_hf.reidentify import SealedMappingPipe

    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "Ann"}])
    base = run_fingerprint(pipe, source, "text", "train", 1.0, 1)
    stat = source.stat()
    source.write_text(json.dumps({"text": "Bob"}) + "\n")  # same size
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    edited = run_fingerprint(pipe, source, "text", "train", 1.0, 1)
    assert (
        edited["input_mtime_ns"] == base["input_mtime_ns"] and edited["input_sha256"] != base["input_sha256"]
    )
    monkeypatch.setenv("DEID_HF_KEY", "a" * 32)
    first = run_fingerprint(SealedMappingPipe(pipe), source, "text", "train", 1.0, 1)
    monkeypatch.setenv("DEID_HF_KEY", "b" * 32)
    second = run_fingerprint(SealedMappingPipe(pipe), source, "text", "train", 1.0, 1)
    assert first["mapping"] and not edited["mapping"] and first["key_id"] != second["key_id"]
    assert "a" * 32 not in json.dumps(first)


def test_fingerprint_covers_where_the_learned_model_runs(tmp_path):
    """A resume on another device would mix the int8 graph's spans with the fp32 weights' (CLI --device)."""
    from deid_hf.corpus_guard import run_fingerprint

    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "Ann"}])
    prints = [
        run_fingerprint(deid_hf.pipeline("deid-substitution", **placed), source, "text", "train", 1.0, 1)
        for placed in ({}, {"device": "cpu"}, {"device": "meta"})
    ]
    assert [f["pipeline"]["detector_device"] for f in prints] == [None, None, "meta"]  # the CPU: the default


def test_device_is_the_local_engines(tmp_path, capsys):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "Ann"}])
    assert cli("run", source, tmp_path / "out.jsonl", "--engine", "ray", "--device", "cuda") == 2
    assert "--device is the local engine's" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("device", ["banana", "cuda:99"])
def test_a_device_torch_cannot_use_is_a_clear_error(tmp_path, capsys, device):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "Ann"}])
    assert cli("run", source, tmp_path / "out.jsonl", "--device", device) == 2
    err = capsys.readouterr().err
    assert f"deid-hf: error: device {device!r}" in err or f"got {device!r}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()


def test_second_run_on_a_locked_output_is_refused(tmp_path, pipe):
    from deid_hf.corpus_guard import output_lock

    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    with output_lock(tmp_path / "out.jsonl"), pytest.raises(InputError, match="another run is writing"):
        run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert not (tmp_path / "out.jsonl.partial.jsonl").exists()
    run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)  # free again


def test_deny_list_terms_are_never_written_in_the_partial_output(tmp_path):
    from deid_hf.corpus_guard import run_fingerprint

    def denying(*terms):
        return deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed", deny_list=list(terms))

    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    fingerprint = run_fingerprint(denying("Quornwell", "Zeldarine"), source, "text", "train", 1.0, 1)
    assert "Quornwell" not in json.dumps(fingerprint) and "Zeldarine" not in json.dumps(fingerprint)
    # the digest still tells deny lists apart (a resume under another list is refused)
    other = run_fingerprint(denying("Quornwell"), source, "text", "train", 1.0, 1)
    assert other["pipeline"]["deny_list"] != fingerprint["pipeline"]["deny_list"]
    again = run_fingerprint(denying("Quornwell", "Zeldarine"), source, "text", "train", 1.0, 1)
    assert again == fingerprint


def test_output_is_on_disk_before_the_partial_output_is_deleted(tmp_path, pipe, monkeypatch):
    """fsync of the output and of its directory (the rename) come before the partial file goes."""
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    output = tmp_path / "out.jsonl"
    events = []
    real_fsync, real_unlink = os.fsync, os.unlink

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def unlink(path, *args, **kwargs):
        events.append(("unlink", str(path)))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "unlink", unlink)
    run_corpus(pipe, source, output, seed=1)
    gone = events.index(("unlink", str(output) + ".partial.jsonl"))
    synced = [path for kind, path in events[:gone] if kind == "fsync"]
    assert str(output.with_name(".out.jsonl.tmp")) in synced  # the output's bytes, before its rename
    assert str(tmp_path) in synced  # the directory, after the rename


def test_a_full_disk_is_a_clear_error_and_the_run_resumes(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    output = tmp_path / "out.jsonl"
    (tmp_path / ".out.jsonl.tmp").symlink_to("/dev/full")  # every write there: ENOSPC
    with pytest.raises(InputError, match="cannot write .*out.jsonl: No space left on device"):
        run_corpus(pipe, source, output, seed=1)
    assert not output.exists() and output.with_name("out.jsonl.partial.jsonl").exists()
    run_corpus(pipe, source, output, seed=1)  # space again: the run finishes from its partial output
    assert len(read_jsonl(output)) == len(TEXTS)
