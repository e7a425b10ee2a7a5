"""`deid-hf run` never mixes, loses or overwrites data, and every bad record is reported, not fatal."""

import json
import os
import re

import pandas as pd
import pytest
from datasets import Dataset

import deid_hf
from deid_hf.cli import main
from deid_hf.corpus import dataset_map_function, run_corpus
from deid_hf.errors import InputError

TEXTS = ["Maria Gonzalez lives in Paris.", "Call Tom at (217) 555-0143.", "Nothing personal here."]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def pipe():
    return deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed")


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_json_scalar_lines_are_per_record_errors(tmp_path, pipe):
    source = tmp_path / "in.jsonl"
    source.write_text('5\nnull\n"text"\n[1]\n' + json.dumps({"text": TEXTS[0]}) + "\n")
    report = run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert report["written"] == 1 and [e["index"] for e in report["errors"]] == [0, 1, 2, 3]
    assert "is a JSON int, not an object" in report["errors"][0]["error"]
    assert "Maria" not in read_jsonl(tmp_path / "out.jsonl")[0]["text"]


def test_invalid_utf8_line_is_a_record_error(tmp_path, pipe):
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"text": "caf\xe9 au lait"}\n' + json.dumps({"text": TEXTS[1]}).encode() + b"\n")
    report = run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert report["written"] == 1 and "not valid UTF-8" in report["errors"][0]["error"]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_mixed_type_columns_get_a_stable_schema(tmp_path, pipe, suffix):
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"text": TEXTS[0], "n": 1, "meta": "a"},
            {"text": TEXTS[1], "n": "two", "meta": {"k": [1, 2]}},
            {"text": TEXTS[2], "n": None, "meta": [3]},
            {"text": "Lone \ud800 surrogate from Paris.", "n": 4.5, "meta": True},
        ],
    )
    report = run_corpus(pipe, source, tmp_path / f"out{suffix}", seed=1)
    assert report["written"] == 4
    out = (
        pd.read_parquet(tmp_path / "out.parquet")
        if suffix == ".parquet"
        else pd.read_csv(tmp_path / "out.csv")
    )
    assert list(out["n"].astype(str))[:2] == ["1", "two"] and json.loads(out["meta"][1]) == {"k": [1, 2]}
    assert "\ufffd" in out["text"][3]


def test_lone_surrogates_round_trip_in_jsonl(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "John Smith \ud800 called 555-123-4567."}])
    report = run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert report["written"] == 1
    text = read_jsonl(tmp_path / "out.jsonl")[0]["text"]
    assert "\ud800" in text and "John" not in text and "555-123" not in text


def test_missing_output_directory_is_created(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    run_corpus(pipe, source, tmp_path / "new" / "deeper" / "out.jsonl", seed=1)
    assert len(read_jsonl(tmp_path / "new" / "deeper" / "out.jsonl")) == 3


def test_unwritable_output_location_is_a_clear_error(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="cannot create the output directory"):
        run_corpus(pipe, source, tmp_path / "file" / "out.jsonl")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write to read-only directories")
def test_read_only_output_directory_is_a_clear_error(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        with pytest.raises(InputError, match="cannot write to the output directory"):
            run_corpus(pipe, source, tmp_path / "ro" / "out.jsonl")
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_read_only_output_directory_is_checked_before_work(tmp_path, pipe, monkeypatch):
    """The permission check itself (also where the tests run as root, who may write anywhere)."""
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(InputError, match="cannot write to the output directory"):
        run_corpus(pipe, source, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl.partial.jsonl").exists()


class Interrupt(Exception):
    pass


def interrupted_run(pipe, source, output, **options):
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 2:  # after the first batch was written
            raise Interrupt

    with pytest.raises(Interrupt):
        run_corpus(pipe, source, output, batch_size=2, progress=progress, **options)
    assert output.with_name(output.name + ".partial.jsonl").exists() and not output.exists()


def test_resume_refuses_another_seed_or_input_and_restart_discards(tmp_path, pipe):
    records = [{"id": i, "text": f"{TEXTS[i % 3]} Ticket {100 + i}."} for i in range(6)]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    other = write_jsonl(tmp_path / "other.jsonl", [{"id": -1, "text": "Anna Berg lives in Oslo."}] * 6)
    output = tmp_path / "out.jsonl"
    interrupted_run(pipe, source, output, seed=1)
    with pytest.raises(InputError, match="different run.*seed.*--restart"):
        run_corpus(pipe, source, output, seed=2)
    with pytest.raises(InputError, match="different run.*input"):
        run_corpus(pipe, other, output, seed=1)
    with pytest.raises(InputError, match="different run.*p"):
        run_corpus(pipe, source, output, seed=1, p=0.5)
    # the same run resumes to exactly what an uninterrupted run writes
    run_corpus(pipe, source, output, seed=1)
    run_corpus(pipe, source, tmp_path / "full.jsonl", seed=1)
    assert output.read_text() == (tmp_path / "full.jsonl").read_text()
    # a partial output of another run is only discarded on request
    interrupted_run(pipe, source, tmp_path / "again.jsonl", seed=1)
    report = run_corpus(pipe, other, tmp_path / "again.jsonl", seed=1, restart=True)
    assert [r["id"] for r in read_jsonl(tmp_path / "again.jsonl")] == [-1] * 6 and report["written"] == 6


def test_modified_input_is_not_resumed(tmp_path, pipe):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS * 2])
    interrupted_run(pipe, source, tmp_path / "out.jsonl", seed=1)
    write_jsonl(source, [{"text": t} for t in reversed(TEXTS * 2)])
    with pytest.raises(InputError, match="different run.*input_size|different run.*input_mtime"):
        run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)


def test_output_that_is_the_input_is_refused(tmp_path, pipe, monkeypatch):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": t} for t in TEXTS])
    original = source.read_text()
    (tmp_path / "link.jsonl").symlink_to(source)
    monkeypatch.chdir(tmp_path)
    for output in (source, tmp_path / "link.jsonl", "in.jsonl", tmp_path / "sub" / ".." / "in.jsonl"):
        with pytest.raises(InputError, match="is the input"):
            run_corpus(pipe, source, output)
    assert main(["run", "in.jsonl", "./in.jsonl", "--detector", "fast"]) == 2
    assert source.read_text() == original


def test_csv_without_the_text_column_fails_before_work(tmp_path, pipe):
    pd.DataFrame({"body": TEXTS}).to_csv(tmp_path / "in.csv", index=False)
    with pytest.raises(InputError, match="no record has a field 'text' \\(fields: body\\).*--text-field"):
        run_corpus(pipe, tmp_path / "in.csv", tmp_path / "out.jsonl")
    assert not list(tmp_path.glob("out.jsonl*"))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "in.jsonl",
            b"not json\nalso not\n",
            "no record could be read: line 1 is not valid JSON, and 1 more",
        ),
        ("in.csv", b"text\nJos\xe9 Mu\xf1oz\n", "no record could be read: line 2 is not valid UTF-8"),
        ("in.parquet", b"hello\n", "is not a readable Parquet file"),
    ],
)
def test_an_unreadable_input_is_one_clear_error(tmp_path, pipe, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(InputError, match=re.escape(message)):
        run_corpus(pipe, tmp_path / name, tmp_path / "out.jsonl")
    assert not list(tmp_path.glob("out.jsonl*"))


def test_a_directory_that_is_no_saved_dataset_is_one_clear_error(tmp_path, pipe):
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="no dataset saved with save_to_disk"):
        run_corpus(pipe, tmp_path / "folder", tmp_path / "out.jsonl")


def test_rc_is_nonzero_when_every_record_failed(tmp_path, capsys):
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": ""}, {"text": "  "}, {"text": None}])
    assert main(["run", str(source), str(tmp_path / "out.jsonl"), "--detector", "fast"]) == 1
    assert "every record failed" in capsys.readouterr().err
    good = write_jsonl(tmp_path / "good.jsonl", [{"text": ""}, {"text": TEXTS[0]}])
    assert main(["run", str(good), str(tmp_path / "good-out.jsonl"), "--detector", "fast"]) == 0


def test_dataset_map_reports_bad_rows_and_keeps_good_ones(pipe):
    data = Dataset.from_dict({"text": [TEXTS[0], None, "", TEXTS[1]], "label": [0, 1, 2, 3]})
    # one row a batch: a first batch without an error must not type the error column null
    mapped = data.map(dataset_map_function(pipe, seed=1), batched=True, batch_size=1)
    assert mapped["label"] == [0, 1, 2, 3]
    assert mapped["deid_error"][0] == "" and mapped["deid_error"][3] == ""
    assert "NoneType" in mapped["deid_error"][1] and "empty" in mapped["deid_error"][2]
    assert mapped["text"][1] is None and "<PERSON>" in mapped["text"][0] and "<PHONE>" in mapped["text"][3]
    with pytest.raises(InputError, match="expected a string"):
        data.map(dataset_map_function(pipe, seed=1, errors="raise"), batched=True, batch_size=4)


@pytest.mark.parametrize(
    ("content", "errors"),
    [
        (b"id,text\n1,caf\xe9 au lait\n2,Call Tom at (217) 555-0143.\n", {0: "line 2 is not valid UTF-8"}),
        (
            b"id,text\n1,a,b,c\n2,Call Tom at (217) 555-0143.\n3\n",
            {0: "line 2 has 4 fields", 2: "line 4 has 1"},
        ),
    ],
)
def test_bad_csv_rows_are_record_errors_in_their_place(tmp_path, pipe, content, errors):
    source = tmp_path / "in.csv"
    source.write_bytes(content)
    report = run_corpus(pipe, source, tmp_path / "out.csv", seed=1)
    assert {e["index"]: e["error"] for e in report["errors"]}.keys() == errors.keys()
    for error in report["errors"]:
        assert errors[error["index"]] in error["error"]
    out = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    assert list(out["id"]) == [2] and "555-0143" not in out["text"][0]


def test_unclosed_csv_quote_names_its_line(tmp_path, pipe):
    source = tmp_path / "in.csv"
    source.write_text('id,text\n1,fine\n2,"never closed\n3,more\n')
    with pytest.raises(InputError, match="quoted field opened on line 3 is never closed"):
        run_corpus(pipe, source, tmp_path / "out.csv", seed=1)


def recurring_names(n: int) -> list[dict]:
    """Records whose patients and clinicians recur: most originals are first seen before an interruption."""
    first, last = ["Maria", "Edward", "Hannah"], ["Gonzalez", "Hernandez", "Cuomo"]
    return [
        {
            "id": i,
            "text": f"{first[i % 3]} {last[i * 2 % 3]} was seen on 2021-03-{1 + i:02d} by Dr. {last[i % 2]}.",
        }
        for i in range(n)
    ]


def test_shared_table_resumes_byte_identical(tmp_path):
    """The corpus-wide table is rebuilt from the finished records on resume (issue 31, medium 5)."""

    def fresh():  # each run its own pipeline and table, as in a new `deid-hf run` process
        return deid_hf.pipeline(
            "deid-substitution", detector="fast", strategy="full_entity", shared_table=True
        )

    source = write_jsonl(tmp_path / "in.jsonl", recurring_names(12))
    output = tmp_path / "out.jsonl"
    interrupted_run(fresh(), source, output, seed=4)
    partial = output.with_name(output.name + ".partial.jsonl").read_text()
    for name in ("Maria", "Gonzalez", "Hernandez", "Cuomo", "2021-03-01"):
        assert name not in partial  # the partial output holds no original
    run_corpus(fresh(), source, output, seed=4)
    run_corpus(fresh(), source, tmp_path / "full.jsonl", seed=4)
    assert output.read_text() == (tmp_path / "full.jsonl").read_text()
    surrogates = {}  # every original keeps one surrogate across the interruption
    for record, written in zip(recurring_names(12), read_jsonl(output)):
        for unit in written["deid_spans"]:
            original = record["text"][unit["start"] : unit["end"]]
            surrogates.setdefault((unit["label"], original), set()).add(unit["replacement"])
    assert all(len(found) == 1 for found in surrogates.values())


def test_shared_table_without_a_seed_refuses_to_resume(tmp_path):
    pipe = deid_hf.pipeline("deid-substitution", detector="fast", strategy="full_entity", shared_table=True)
    source = write_jsonl(tmp_path / "in.jsonl", recurring_names(6))
    interrupted_run(pipe, source, tmp_path / "out.jsonl")
    with pytest.raises(InputError, match="shared substitution table.*seed.*--restart"):
        run_corpus(pipe, source, tmp_path / "out.jsonl")
    assert run_corpus(pipe, source, tmp_path / "out.jsonl", restart=True)["written"] == 6


@pytest.mark.parametrize(
    "name, content",
    [
        ("in.jsonl", '{"text": "Maria Gonzalez lives in Paris."}\n{"text": "Call Tom."}\n'),
        ("in.csv", "text\nMaria Gonzalez lives in Paris.\nCall Tom.\n"),
    ],
)
def test_a_utf8_byte_order_mark_keeps_the_first_record(tmp_path, pipe, name, content):
    source = tmp_path / name
    source.write_bytes(b"\xef\xbb\xbf" + content.encode())
    report = run_corpus(pipe, source, tmp_path / "out.jsonl", seed=1)
    assert report["errors"] == [] and report["written"] == 2
    assert "Maria" not in (tmp_path / "out.jsonl").read_text()
