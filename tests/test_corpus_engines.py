"""Corpus runs beyond one process: `deid-hf run --engine ray` and `datasets.map(num_proc=N)`."""

import json

import pytest

from deid_hf.cli import main
from deid_hf.corpus import dataset_map_function, run_corpus
from deid_hf.errors import InputError

TEXTS = [
    "Maria Gonzalez lives in Paris.",
    "Call Tom at (217) 555-0143.",
    "Mail anna@example.org today.",
    "Dr. Hiroshi Tanaka saw her on March 3, 2024.",
    "Nothing personal here.",
]


def test_ray_engine_refuses_a_shared_table():
    from deid_hf.corpus_ray import RayEngine

    with pytest.raises(InputError, match="shared_table"):
        RayEngine({"shared_table": True})
    with pytest.raises(InputError, match="num_workers"):
        RayEngine({}, num_workers=0)


@pytest.mark.slow
def test_ray_engine_writes_what_the_local_engine_writes(tmp_path):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install 'deid-hf[ray]'")
    import deid_hf

    records = [{"id": i, "text": t} for i, t in enumerate(TEXTS * 3)]
    records[7] = {"id": 7, "text": ""}  # a bad record: reported by both engines, never fatal
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    pipe = deid_hf.pipeline("deid-substitution", detector=["fast"], strategy="full_entity")
    local = run_corpus(pipe, tmp_path / "in.jsonl", tmp_path / "local.jsonl", batch_size=4, seed=5)
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        argv = ["run", str(tmp_path / "in.jsonl"), str(tmp_path / "ray.jsonl"), "--engine", "ray"]
        argv += ["--num-workers", "2", "--detector", "fast", "--seed", "5", "--batch-size", "4"]
        assert main(argv) == 0
    finally:
        ray.shutdown()
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    report = json.loads((tmp_path / "ray.jsonl.report.json").read_text())
    assert (
        report["errors"]
        == local["errors"]
        == [{"index": 7, "error": "field 'text' is empty or not a string"}]
    )
    assert report["written"] == len(records) - 1 and report["privacy"] == local["privacy"]
    assert not (tmp_path / "ray.jsonl.partial.jsonl").exists()
    out = [json.loads(line) for line in (tmp_path / "ray.jsonl").read_text().splitlines()]
    assert "Maria Gonzalez" not in out[0]["text"] and out[4]["text"] == TEXTS[4]


@pytest.mark.slow
def test_dataset_map_with_num_proc_equals_one_process():
    from datasets import Dataset

    dataset = Dataset.from_dict({"text": TEXTS * 2})
    options = {"detector": ["fast"], "strategy": "full_entity"}
    one = dataset.map(dataset_map_function(options, "text", seed=3), batched=True, batch_size=2)
    two = dataset.map(dataset_map_function(options, "text", seed=3), batched=True, batch_size=2, num_proc=2)
    assert one["text"] == two["text"] and one["deid_spans"] == two["deid_spans"]
    assert "Maria Gonzalez" not in one["text"][0] and one["text"][4] == TEXTS[4]


#: names that recur across many records, as a patient's or a clinician's do across their notes
FIRST = ["Orlaith", "Tadhgan", "Ximena", "Bexley", "Caoimhe", "Ruairi", "Solveig", "Eamonn"]
LAST = [
    "Quillfeather",
    "Brakowitz",
    "Nakashimo",
    "Vandersloot",
    "Ostergaard",
    "Pelletreau",
    "Hrabal",
    "Dunmorrow",
]


def _recurring_names_corpus(count: int = 120) -> list[dict]:
    templates = [
        "Pt {f} {l} seen this am, resting comfortably.",
        "Spoke with {f} {l} about the plan; wife at bedside.",
        "Note by {f} {l}, RN. Vitals stable overnight.",
        "{l} family updated by phone. {f} asked about discharge.",
    ]
    return [
        {"id": i, "text": templates[i % 4].format(f=FIRST[i % 8], l=LAST[(i * 3) % 8])} for i in range(count)
    ]


def _names_left(texts) -> int:
    return sum(name in text for text in texts for name in FIRST + LAST)


def test_corpus_run_is_as_private_as_one_call_per_record(tmp_path):
    """A corpus run gives each record what one pipeline call on it gives: a name that recurs across the
    corpus is never kept because it recurs (the opt-in `fit_corpus` trades that privacy for precision)."""
    import deid_hf

    records = _recurring_names_corpus()
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    pipe = deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed")
    alone = [pipe(r["text"], seed=5)["text"] for r in records]
    run_corpus(pipe, tmp_path / "in.jsonl", tmp_path / "out.jsonl", batch_size=16, seed=5)
    corpus = [json.loads(line)["text"] for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert corpus == alone
    fitted = deid_hf.pipeline("deid-substitution", detector="fast", strategy="typed")
    run_corpus(fitted, tmp_path / "in.jsonl", tmp_path / "fit.jsonl", batch_size=16, seed=5, fit_corpus=True)
    with_fit = [json.loads(line)["text"] for line in (tmp_path / "fit.jsonl").read_text().splitlines()]
    assert _names_left(with_fit) > _names_left(corpus)  # why it is opt-in: recurring names become vocabulary
    report = json.loads((tmp_path / "fit.jsonl.report.json").read_text())
    assert report["written"] == len(records)
