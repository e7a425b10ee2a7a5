import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from datasets import Dataset, DatasetDict

import deid_hf
from deid_hf.cli import main
from deid_hf.replace import STRATEGIES

TEXTS = [
    "Maria Gonzalez lives in Paris.",
    "Call Tom at (217) 555-0143.",
    "Mail anna@example.org today.",
    "Dr. Hiroshi Tanaka saw her on March 3, 2024.",
    "Nothing personal here.",
]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture(scope="module")
def typed_pipe():
    return deid_hf.pipeline("deid-substitution", strategy="typed")


#: operators that replace every label on their own, keyless (the keyed and per-label ones of issue 15 run
#: through the CLI in tests/pipelines/test_steering.py)
CLI_STRATEGIES = [
    s for s in STRATEGIES if s not in ("keep", "custom", "date_shift", "hash", "encrypt", "mask")
]


@pytest.mark.parametrize(
    "strategy",  # zsts scores every word with the LM: minutes on 2 CPU cores
    [pytest.param(s, marks=pytest.mark.slow) if s == "zsts" else s for s in CLI_STRATEGIES],
)
def test_cli_run_every_strategy(tmp_path, strategy, capsys):
    write_jsonl(tmp_path / "in.jsonl", [{"id": i, "text": t} for i, t in enumerate(TEXTS)])
    assert (
        main(
            [
                "run",
                str(tmp_path / "in.jsonl"),
                str(tmp_path / "out.jsonl"),
                "--strategy",
                strategy,
                "--seed",
                "3",
            ]
        )
        == 0
    )
    out = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in out] == list(range(len(TEXTS)))
    assert "Maria Gonzalez" not in out[0]["text"]
    # zsts detects with its own p-filter, as in the API (the default detector would leave record 4 alone)
    assert (out[4]["text"] == TEXTS[4]) is (strategy != "zsts")
    report = json.loads((tmp_path / "out.jsonl.report.json").read_text())
    assert report["written"] == len(TEXTS) and report["privacy"]["strategy"] == strategy
    assert not (tmp_path / "out.jsonl.partial.jsonl").exists()
    assert "copied as they were, not de-identified: id (only 'text' is" in " ".join(
        capsys.readouterr().out.split()
    )


def test_bad_records_are_reported_and_skipped(tmp_path, typed_pipe):
    from deid_hf.corpus import run_corpus

    (tmp_path / "in.jsonl").write_text(
        json.dumps({"text": TEXTS[0]})
        + "\n{oops\n"
        + json.dumps({"text": ""})
        + "\n"
        + json.dumps({"body": "x"})
        + "\n"
        + json.dumps({"text": TEXTS[1]})
    )
    report = run_corpus(typed_pipe, tmp_path / "in.jsonl", tmp_path / "out.jsonl", seed=1)
    assert report["written"] == 2 and [e["index"] for e in report["errors"]] == [1, 2, 3]
    assert "not valid JSON" in report["errors"][0]["error"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_csv_and_parquet(tmp_path, typed_pipe, suffix):
    from deid_hf.corpus import run_corpus

    frame = pd.DataFrame({"body": TEXTS, "n": range(len(TEXTS))})
    source = tmp_path / f"in{suffix}"
    frame.to_csv(source, index=False) if suffix == ".csv" else frame.to_parquet(source)
    run_corpus(typed_pipe, source, tmp_path / f"out{suffix}", text_field="body", seed=1)
    out = (
        pd.read_csv(tmp_path / f"out{suffix}")
        if suffix == ".csv"
        else pd.read_parquet(tmp_path / f"out{suffix}")
    )
    assert list(out["n"]) == list(range(len(TEXTS))) and out["body"][0] == "<PERSON> lives in <LOCATION>."


def test_a_csv_cell_with_a_line_break_or_a_bare_carriage_return_reads_back_whole(tmp_path):
    from deid_hf.corpus_files import read_records, write_records

    records = [{"text": "x\rY", "id": 1}, {"text": "a\nb\r\nc", "id": 2}, {"text": "plain", "id": 3}]
    write_records(records, tmp_path / "out.csv")
    assert read_records(tmp_path / "out.csv") == [{**r, "id": str(r["id"])} for r in records]  # as written
    assert pd.read_csv(tmp_path / "out.csv")["text"].tolist() == [r["text"] for r in records]


def test_a_csv_cell_is_copied_as_written_and_a_repeated_column_name_is_refused(tmp_path):
    from deid_hf.corpus_files import read_records
    from deid_hf.errors import InputError

    source = tmp_path / "in.csv"
    source.write_text('id,zip,text\n007,02139,"Tom lives here."\n010,00501,x\n', encoding="utf-8")
    assert [(r["id"], r["zip"]) for r in read_records(source)] == [("007", "02139"), ("010", "00501")]
    source.write_text("text,text\na,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="more than once: text"):
        read_records(source)
    source.write_text("id,text,,\n1,a,,\n", encoding="utf-8")  # a spreadsheet's empty columns
    assert read_records(source) == [{"id": "1", "text": "a", "Unnamed: 2": "", "Unnamed: 3": ""}]


def test_saved_dataset_input(tmp_path, typed_pipe):
    from deid_hf.corpus import run_corpus

    DatasetDict({"train": Dataset.from_dict({"text": TEXTS})}).save_to_disk(tmp_path / "ds")
    report = run_corpus(typed_pipe, tmp_path / "ds", tmp_path / "out.jsonl", seed=1)
    assert report["written"] == len(TEXTS)


def test_a_dataset_of_several_splits_needs_one_named(tmp_path, typed_pipe):
    from deid_hf.corpus import run_corpus
    from deid_hf.errors import InputError

    splits = {"train": TEXTS[:2], "test": TEXTS[2:]}
    DatasetDict({k: Dataset.from_dict({"text": v}) for k, v in splits.items()}).save_to_disk(tmp_path / "ds")
    with pytest.raises(InputError, match="has the splits train, test: name one with --split"):
        run_corpus(typed_pipe, tmp_path / "ds", tmp_path / "out.jsonl", seed=1)
    assert not (tmp_path / "out.jsonl").exists()
    report = run_corpus(typed_pipe, tmp_path / "ds", tmp_path / "out.jsonl", seed=1, split="test")
    assert report["written"] == len(splits["test"])


@pytest.mark.parametrize(
    ("saved", "error"),
    [
        ("file", "names a split of a saved DatasetDict; input in.jsonl is a file"),
        ("dataset", "is one Dataset, without splits"),
    ],
)
def test_a_split_of_an_input_without_splits_is_refused(tmp_path, typed_pipe, saved, error):
    from deid_hf.corpus import run_corpus
    from deid_hf.errors import InputError

    if saved == "file":
        source = tmp_path / "in.jsonl"
        write_jsonl(source, [{"text": t} for t in TEXTS])
    else:
        source = tmp_path / "ds"
        Dataset.from_dict({"text": TEXTS}).save_to_disk(source)
    with pytest.raises(InputError, match=error):
        run_corpus(typed_pipe, source, tmp_path / "out.jsonl", seed=1, split="train")


def test_the_report_names_the_fields_copied_as_they_were(tmp_path, typed_pipe):
    from deid_hf.corpus import run_corpus

    records = [{"id": i, "text": t, "comment": "see note"} for i, t in enumerate(TEXTS)]
    records[0]["mrn"] = "x"  # a field of one record only is named too
    write_jsonl(tmp_path / "in.jsonl", records)
    report = run_corpus(typed_pipe, tmp_path / "in.jsonl", tmp_path / "out.jsonl", seed=1)
    assert report["copied_fields"] == ["comment", "id", "mrn"]
    saved = json.loads((tmp_path / "out.jsonl.report.json").read_text())
    assert saved["copied_fields"] == ["comment", "id", "mrn"]


@pytest.mark.slow
def test_killed_run_resumes_to_the_identical_output(tmp_path):
    records = [{"id": i, "text": f"{TEXTS[i % 4]} Ticket {1000 + i}."} for i in range(60)]
    write_jsonl(tmp_path / "in.jsonl", records)
    cmd = [
        sys.executable,
        "-m",
        "deid_hf.cli",
        "run",
        str(tmp_path / "in.jsonl"),
        None,
        "--seed",
        "5",
        "--batch-size",
        "2",
        "--strategy",
        "full_entity",
        "--detector",
        "fast",  # resumption does not depend on the detector; the LM would only make the test slow
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    # the uninterrupted run and the resume run in this process (no second start-up); only the killed run
    # needs a process of its own
    assert main(cmd[3:5] + [str(tmp_path / "full.jsonl")] + cmd[6:]) == 0

    partial = tmp_path / "cut.jsonl.partial.jsonl"
    proc = subprocess.Popen(
        cmd[:5] + [str(tmp_path / "cut.jsonl")] + cmd[6:],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 900  # a hang guard only: the kill waits for 10 lines, however slow
    while time.time() < deadline and (not partial.exists() or len(partial.read_text().splitlines()) < 10):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "cut.jsonl").exists(), "run finished before it could be interrupted"
    lines_before = len(partial.read_text().splitlines())
    assert 10 <= lines_before < 60
    assert main(cmd[3:5] + [str(tmp_path / "cut.jsonl")] + cmd[6:]) == 0
    assert (tmp_path / "cut.jsonl").read_text() == (tmp_path / "full.jsonl").read_text()
