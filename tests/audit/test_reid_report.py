"""The re-identification attack and the audit report, on synthetic text (no model)."""

from __future__ import annotations

import json
import random

import pytest

from deid_hf.audit.recall import LEFT_TO_REID, run_canary_audit
from deid_hf.audit.reid import run_reid_audit, tfidf_attack, true_person_ranks
from deid_hf.audit.report import write_audit_report
from deid_hf.errors import InputError
from tests.audit.test_canary import DigitsOnly

TOPICS = {
    "ana": "wheeze inhaler nebulizer asthma peak flow",
    "bo": "insulin glucose sliding scale diabetic foot",
    "cy": "cast ankle fracture crutches orthopedics",
    "di": "dialysis fistula potassium renal diet",
}
FILLER = ["patient", "seen", "today", "plan", "discussed", "with", "team", "and", "nurse"]


def corpus(per_person: int = 4, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    texts, people = [], []
    for person, topic in TOPICS.items():
        for _ in range(per_person):
            words = rng.sample(topic.split(), 3) + rng.sample(FILLER, 5)
            rng.shuffle(words)
            texts.append(" ".join(words))
            people.append(person)
    return texts, people


def test_the_attack_names_people_by_their_other_documents():
    texts, people = corpus()
    result = tfidf_attack(texts, people, texts, k=2)
    assert result["documents"] == len(texts) and result["top1"] == 1.0


def test_text_that_carries_nothing_of_the_person_is_attacked_at_about_chance():
    texts, people = corpus(per_person=6)
    blank = [" ".join(random.Random(i).sample(FILLER, 5)) for i in range(len(texts))]
    ranks = true_person_ranks(texts, people, blank)
    assert sum(r == 1 for r in ranks) / len(ranks) < 0.5
    assert true_person_ranks(texts, people, texts) == [1] * len(texts)


def test_the_attacked_document_is_left_out_of_its_person_background():
    texts = ["alpha beta", "gamma delta", "alpha beta"]
    people = ["x", "x", "y"]  # x's other document shares nothing with the first; y's does
    assert true_person_ranks(texts, people, texts)[0] == 2


def test_the_reid_audit_reports_every_variant_beside_chance():
    texts, people = corpus()
    result = run_reid_audit(texts, people, {"blank": lambda: [""] * len(texts)}, k=2)
    assert set(result["results"]) == {"original text", "blank"}
    assert result["chance"] == {"top1": 1 / 4, "top2": 2 / 4}
    assert result["results"]["blank"]["top1"] < result["results"]["original text"]["top1"]
    with pytest.raises(InputError, match="two documents"):
        run_reid_audit(["a", "b"], ["x", "y"], {})


SECRET_TEXTS = [
    f"Zebulon Quackenbush-{n} phoned 617-555-01{n:02d} from Oxnard about invoice 88{n}." for n in range(6)
]


def test_the_report_holds_no_text_and_is_written_whole(tmp_path):
    canary = run_canary_audit(DigitsOnly(), SECRET_TEXTS, sample=4, seed=0)
    reid = run_reid_audit(SECRET_TEXTS, ["p", "q"] * 3, {"typed": lambda: ["<PERSON> phoned"] * 6})
    written = write_audit_report(tmp_path / "rep", {"canary": canary, "reid": reid}, {"strategy": "typed"})
    assert {p.name for p in written.values()} >= {"audit.json", "audit.md", "audit.html"}
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == sorted(p.name for p in written.values())
    report = json.loads(written["json"].read_text())
    assert report["canary"]["documents_sampled"] == 4 and "original text" in report["reid"]["results"]
    for path in written.values():
        content = path.read_bytes().decode("utf-8", "replace").lower()
        for word in ("zebulon", "quackenbush", "oxnard", "555-01", "invoice"):
            assert word not in content, (path.name, word)
    assert "| PHONE |" in written["md"].read_text() and "<table>" in written["html"].read_text()
    # a report of the canary audit alone points to the re-identification audit; one holding it does not
    alone = json.loads(write_audit_report(tmp_path / "alone", {"canary": canary})["json"].read_text())
    assert [i for i in alone["canary"]["not_covered"] if i not in report["canary"]["not_covered"]] == [
        LEFT_TO_REID
    ]


def test_the_report_refuses_a_file_as_folder_and_an_empty_report(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="is a file"):
        write_audit_report(tmp_path / "file", {"canary": {}})
    with pytest.raises(InputError, match="nothing to report"):
        write_audit_report(tmp_path / "rep", {})


def test_a_variant_that_attacks_some_documents_is_compared_with_their_original_text():
    texts, people = corpus()
    subset = {0, 5, 9}
    variant = [("" if i in subset else None) for i in range(len(texts))]
    result = run_reid_audit(texts, people, {"sample": lambda: variant}, k=2)["results"]
    assert result["sample"]["documents"] == 3 and result["original text"]["documents"] == len(texts)
    same = result["sample"]["original_same_documents"]
    assert same["documents"] == 3 and same["top1"] == 1.0 and result["sample"]["top1"] < 1.0
    assert "original_same_documents" not in result["original text"]


def test_the_report_shows_a_sampled_variant_beside_the_original_of_its_documents(tmp_path):
    texts, people = corpus()
    variant = [("" if i in (0, 5, 9) else None) for i in range(len(texts))]
    reid = run_reid_audit(texts, people, {"paraphrase": lambda: variant}, k=2)
    written = write_audit_report(tmp_path / "rep", {"reid": reid})
    markdown = written["md"].read_text()
    assert (
        "| paraphrase | 3 |" in markdown and "| original text, the same 3 documents | 3 | 1.000 |" in markdown
    )


def test_the_paraphraser_rewrites_only_the_documents_chosen(tiny_llama):
    from deid_hf.audit.command import paraphrase_documents
    from deid_hf.pipelines import pipeline

    model, tokenizer = tiny_llama
    pipe = pipeline("deid-paraphrase", model=model, tokenizer=tokenizer, bounds=(0.0, 1.0))
    texts, done = ["Ann went home.", "Bo slept.", "Cy ate. Then left.", "Di ran."], []
    out = paraphrase_documents(pipe, texts, [2, 0], 0, 1, done.append, max_new_tokens=3)
    assert out[1] is None and out[3] is None and done == [1, 2]
    assert all(isinstance(out[i], str) and out[i] != texts[i] for i in (0, 2))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--paraphrase-sample", "0"], "--paraphrase-sample must be at least 1"),
        (["--epsilon", "-1"], "positive"),
    ],
)
def test_bad_paraphrase_options_are_one_clear_error(tmp_path, capsys, options, message):
    from deid_hf.cli import main

    texts, people = corpus()
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"text": t, "patient": p}) + "\n" for t, p in zip(texts, people)))
    argv = ["audit", "reid", str(path), "--group-field", "patient", "--strategies", "paraphrase", *options]
    assert main([*argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--strategies", "paraphrase", "--paraphrase-sample", "0"],
            "--paraphrase-sample must be at least 1",
        ),
        (["--strategies", "redact,hash"], "the hash operator needs a secret key"),
        (["--strategies", "redact,redact"], "must name each strategy once"),
        (["--strategies", "redact", "--epsilon", "3"], "apply to the paraphrase strategy"),
        (["--strategies", "paraphrase", "--paraphraser", "./nope"], "no model folder at ./nope"),
        (["--top-k", "0"], "--top-k must be at least 1"),
        (["--sample", "0"], "--sample and --copies must be at least 1"),
        (["--out", "{tmp}/file/sub"], "cannot be made"),
    ],
)
def test_audit_all_refuses_bad_attack_options_before_the_canary_audit_runs(
    tmp_path, capsys, monkeypatch, options, message
):
    """`audit all` checks the re-identification options and the report folder first: a typo costs no canary
    run."""
    import deid_hf.audit.recall
    from deid_hf.cli import main

    def no_canary_run(*args, **kwargs):
        raise AssertionError("the canary audit ran before the options were checked")

    monkeypatch.setattr(deid_hf.audit.recall, "run_canary_audit", no_canary_run)
    texts, people = corpus()
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"text": t, "patient": p}) + "\n" for t, p in zip(texts, people)))
    monkeypatch.delenv("DEID_HF_KEY", raising=False)
    (tmp_path / "file").write_text("")
    options = [o.replace("{tmp}", str(tmp_path)) for o in options]
    argv = ["audit", "all", str(path), "--group-field", "patient", "--detector", "fast"]
    assert main([*argv, "--out", str(tmp_path / "r"), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deid-hf: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_the_report_shows_no_key_term_or_pattern_of_the_configuration(tmp_path):
    reid = run_reid_audit(SECRET_TEXTS, ["p", "q"] * 3, {"typed": lambda: ["<PERSON> phoned"] * 6})
    configuration = {
        "deny_list": {"PERSON": ["Quackenbush", "Zebulon"]},
        "allow_list": ["Oxnard"],
        "patterns": [{"name": "mrn", "label": "ID", "regex": "88412931", "score": 0.9}],
        "strategy": {"PERSON": {"type": "hash", "key": "s3cr3t-key-of-the-user"}, "default": "typed"},
    }
    written = write_audit_report(tmp_path / "rep", {"reid": reid}, configuration)
    for path in written.values():
        content = path.read_bytes().decode("utf-8", "replace")
        for secret in ("s3cr3t", "Quackenbush", "Zebulon", "Oxnard", "88412931"):
            assert secret not in content, (path.name, secret)
    shown = json.loads(written["json"].read_text())["configuration"]
    assert shown["deny_list"] == {"count": 2} and shown["patterns"] == {"count": 1}
    assert shown["strategy"] == {"PERSON": {"type": "hash", "key": "<set>"}, "default": "typed"}


def test_the_paraphrase_attack_records_its_sample(tiny_llama, monkeypatch):
    """The report's configuration says how many documents were paraphrased, how many failed, and at which
    epsilon per token (the pipeline's default when none is given)."""
    import argparse

    from rich.progress import Progress

    import deid_hf.pipelines
    from deid_hf.audit.command import reid_variants
    from deid_hf.pipelines.paraphrase import DEFAULT_EPSILON

    model, tokenizer = tiny_llama
    build = deid_hf.pipelines.pipeline
    monkeypatch.setattr(
        deid_hf.pipelines,
        "pipeline",
        lambda task, **_: build(task, model=model, tokenizer=tokenizer, bounds=(0.0, 1.0)),
    )
    texts, people = corpus(per_person=2)
    args = argparse.Namespace(
        strategies="paraphrase",
        paraphrase_sample=3,
        epsilon=None,
        seed=0,
        paraphraser=None,
        batch_size=2,
        top_k=5,
    )
    record = {}
    with Progress(disable=True) as bar:
        out = reid_variants(args, {}, texts, people, bar, record)["paraphrase"]()
    assert sum(text is not None for text in out) == 3
    assert record == {"documents": 3, "failed": 0, "epsilon_per_token": DEFAULT_EPSILON}


def test_audit_all_refuses_a_corpus_without_background_before_the_canary_audit(tmp_path, capsys, monkeypatch):
    import deid_hf.audit.recall
    from deid_hf.cli import main

    def no_canary_run(*args, **kwargs):
        raise AssertionError("the canary audit ran before the corpus was checked")

    monkeypatch.setattr(deid_hf.audit.recall, "run_canary_audit", no_canary_run)
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"text": f"note {i}", "patient": str(i)}) + "\n" for i in range(4)))
    argv = ["audit", "all", str(path), "--group-field", "patient", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    assert "no person has two documents" in capsys.readouterr().err
