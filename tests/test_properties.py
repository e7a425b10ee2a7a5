"""Property tests (hypothesis) over every deid pipeline and `deid-hf run`: arbitrary unicode (lone
surrogates, control and zero-width characters, long tokens and lines), batches mixing good and bad items.

Invariants: no exception but deid-hf's own; a bad item is reported in its own output and never takes the
good ones down; spans lie within the text, are sorted and do not overlap, and are offsets into the original;
the output is the original with the replaced spans substituted (unreplaced spans keep their text); a seed
makes the output reproducible. Derandomized (the same examples on every run); the LM pipelines use a tiny
random Llama and few examples so that the module stays CI-sized.
"""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from transformers import pipeline

from deid_hf.corpus import run_corpus
from deid_hf.errors import InputError

from .conftest import tiny_llama as make_tiny_llama

ODD = ["\ud800", "\udfff", "\x00", "\x1b", "\x7f", "\x85", "\u200b", "\u200d", "\ufeff", "\u00ad", "\u202e"]
PII = ["John Smith", "Mary", "Jones", "555-123-4567", "John.Smith@x.com", "Paris", "12", "Dr.", "!?", "2024"]
SPACE = [" ", "\n", "\t", "\r\n", "  "]
piece = st.one_of(
    st.sampled_from(ODD + PII + SPACE),
    st.text(max_size=8),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["a", "1", "-", "x1", " ", "\u200b"]), st.integers(50, 400)
    ),
)
texts = st.lists(piece, max_size=12).map("".join)
good_texts = texts.filter(lambda t: t.strip() and any(c.isalnum() for c in t))
items = st.one_of(texts, st.none(), st.just(""), st.integers(), st.just("\x00\u200b \t"))
PROPERTIES = settings(
    derandomize=True,
    deadline=None,
    max_examples=20,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FEW = settings(PROPERTIES, max_examples=6)


@pytest.fixture(scope="module")
def lm(smollm2):
    _, tokenizer = smollm2
    return make_tiny_llama(tokenizer, max_position_embeddings=4096), tokenizer


@pytest.fixture(scope="module")
def pipes(lm):
    model, tokenizer = lm
    build = lambda task, **options: pipeline(task, model=model, tokenizer=tokenizer, **options)  # noqa: E731
    return {
        "fast-typed": build("deid-substitution", detector="fast", strategy="typed"),
        "fast-full_entity": build("deid-substitution", detector="fast", strategy="full_entity"),
        "default-typed": build("deid-substitution", detector="default", strategy="typed"),
        "zsts": build("deid-substitution", strategy="zsts"),
        "ndd": build("deid-ndd", detector="default", k=2),
        "pfilter": build("deid-pfilter"),
        "paraphrase": build("deid-paraphrase", bounds=(0.0, 1.0)),
    }


def is_good(item) -> bool:
    try:
        from deid_hf.pipelines.base import check_text

        check_text(item)
        return True
    except InputError:
        return False


def check_spans(original: str, spans: list[dict]):
    ordered = sorted(spans, key=lambda s: s["start"])
    assert ordered == spans or sorted(spans, key=lambda s: s["start"]) == ordered
    for a, b in zip(ordered, ordered[1:]):
        assert a["end"] <= b["start"], "spans overlap"
    for s in ordered:
        assert 0 <= s["start"] < s["end"] <= len(original)


def substituted(original: str, spans: list[dict], replaced=lambda s: s.get("replaced", True)) -> str:
    pieces, cursor = [], 0
    for s in sorted(spans, key=lambda s: s["start"]):
        if replaced(s):
            pieces += [original[cursor : s["start"]], s["replacement"]]
            cursor = s["end"]
    return "".join(pieces) + original[cursor:]


def check_batch(batch, outputs, key):
    assert len(outputs) == len(batch)
    for item, out in zip(batch, outputs):
        if is_good(item):
            assert out.get("error") is None, out.get("error")
            assert out[key] is not None
        else:
            assert out["error"] and out[key] is None or out[key] == []


@pytest.mark.parametrize("name", ["fast-typed", "fast-full_entity"])
@PROPERTIES
@given(batch=st.lists(items, min_size=1, max_size=5), seed=st.integers(0, 2**31))
@example(batch=["John Smith\x00", None, "Mary\u200bJones", "", "!?John.Smith@x.com"], seed=0)
@example(batch=["1" * 5000 + " John Smith " + "a-" * 3000], seed=1)
def test_fast_substitution(pipes, name, batch, seed):
    pipe = pipes[name]
    outputs = pipe(batch, seed=seed, batch_size=2)
    check_batch(batch, outputs, "text")
    for item, out in zip(batch, outputs):
        if out.get("error") is None:
            check_spans(item, out["spans"])
            assert out["text"] == substituted(item, out["spans"])
            assert all(s["replaced"] for s in out["spans"])  # p = 1
    assert pipe(batch, seed=seed, batch_size=3) == outputs


@pytest.mark.parametrize("name", ["default-typed", "zsts", "ndd"])
@settings(FEW, max_examples=4)
@given(
    batch=st.lists(st.one_of(good_texts, st.none(), st.just("")), min_size=1, max_size=3),
    seed=st.integers(0, 99),
)
def test_lm_replacing_pipelines(pipes, name, batch, seed):
    batch = [t[:80] if isinstance(t, str) else t for t in batch]
    outputs = pipes[name](batch, seed=seed, batch_size=2)
    check_batch(batch, outputs, "text")
    for item, out in zip(batch, outputs):
        if out.get("error") is None:
            check_spans(item, out["spans"])
            assert out["text"] == substituted(item, out["spans"])
    assert pipes[name](batch, seed=seed, batch_size=2) == outputs


@FEW
@given(batch=st.lists(st.one_of(good_texts, st.none(), st.integers()), min_size=1, max_size=3))
def test_pfilter(pipes, batch):
    batch = [t[:300] if isinstance(t, str) else t for t in batch]
    outputs = pipes["pfilter"](batch, batch_size=2)
    check_batch(batch, outputs, "words")
    for item, out in zip(batch, outputs):
        if out.get("error") is None:
            for w in out["words"]:
                assert 0 <= w["start"] < w["end"] <= len(item) and w["word"] == item[w["start"] : w["end"]]


@settings(FEW, max_examples=4)
@given(
    batch=st.lists(st.one_of(good_texts, st.none(), st.just(" ")), min_size=1, max_size=3),
    seed=st.integers(0, 99),
)
def test_paraphrase(pipes, batch, seed):
    batch = [t[:200] if isinstance(t, str) else t for t in batch]
    outputs = pipes["paraphrase"](batch, seed=seed, batch_size=3, max_new_tokens=4)
    check_batch(batch, outputs, "paraphrase")
    assert pipes["paraphrase"](batch, seed=seed, batch_size=3, max_new_tokens=4) == outputs


record = st.one_of(
    st.fixed_dictionaries(
        {"text": items}, optional={"id": st.integers(), "meta": st.one_of(st.text(), st.integers())}
    ),
    st.none(),
    st.integers(),
    texts,
    st.just("{not json"),
)


@settings(PROPERTIES, max_examples=15)
@given(records=st.lists(record, min_size=1, max_size=6), seed=st.integers(0, 99))
def test_deid_hf_run(pipes, records, seed):
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.jsonl"
        records = [
            *records,
            {"text": "Call John Smith at 555-123-4567.", "id": 1},
        ]  # one good record at least
        lines = [r if r == "{not json" else json.dumps(r) for r in records]
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        report = run_corpus(pipes["fast-typed"], source, Path(folder) / "out" / "out.jsonl", seed=seed)
        out = [json.loads(line) for line in (Path(folder) / "out" / "out.jsonl").read_text().splitlines()]
        assert report["records"] == len(records) and report["written"] + len(report["errors"]) == len(records)
        assert len(out) == report["written"] >= 1 and "John Smith" not in out[-1]["text"]
        failed = {e["index"] for e in report["errors"]}
        originals = [r for i, r in enumerate(records) if i not in failed]
        for original, written in zip(originals, out):
            check_spans(original["text"], written["deid_spans"])
            assert written["text"] == substituted(original["text"], written["deid_spans"])
            assert {k: v for k, v in written.items() if k not in ("text", "deid_spans")} == {
                k: v for k, v in original.items() if k != "text"
            }
