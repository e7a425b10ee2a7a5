import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_hf.evaluation.detection import DetectionCounts, GoldDocument, GoldSpan, load_gold

from ..conftest import shared_data


def reference(docs, predictions, outputs):
    """Character-by-character restatement of EVALUATION.md, deliberately naive."""
    tp = fp = fn = ent = full = part = leaked = total = 0
    for doc, pred, out in zip(docs, predictions, outputs):
        toks, i = [], 0
        while i < len(doc.text):
            if doc.text[i].isspace():
                i += 1
                continue
            j = i
            while j < len(doc.text) and not doc.text[j].isspace():
                j += 1
            toks.append((i, j))
            i = j

        def hit(tok, spans):
            return any(len(set(range(*tok)) & set(range(a, b))) > 0 for a, b in spans)

        gold_spans = [(s.start, s.end) for s in doc.spans]
        for tok in toks:
            g, p = hit(tok, gold_spans), hit(tok, pred)
            tp += g and p
            fp += p and not g
            fn += g and not p
        for a, b in gold_spans:
            inside = [t for t in toks if hit(t, [(a, b)])]
            if inside:
                ent += 1
                full += all(hit(t, pred) for t in inside)
                part += any(hit(t, pred) for t in inside)
        strings = {doc.text[a:b].strip().lower() for a, b in gold_spans}
        strings = [s for s in strings if len(s) >= 3]
        total += len(strings)
        leaked += sum(s in out.lower() for s in strings)
    return tp, fp, fn, ent, full, part, leaked, total


@st.composite
def documents(draw):
    text = draw(st.text(alphabet="ab .,\n", min_size=1, max_size=30))

    def spans():
        return st.lists(st.tuples(st.integers(0, len(text) - 1), st.integers(1, 6)), max_size=4)

    gold = tuple(GoldSpan(s, min(s + n, len(text))) for s, n in draw(spans()))
    pred = [(s, min(s + n, len(text))) for s, n in draw(spans())]
    out = draw(st.text(alphabet="ab .", max_size=20))
    return GoldDocument(text, gold), pred, out


@settings(max_examples=300, deadline=None)
@given(st.lists(documents(), min_size=1, max_size=5))
def test_metrics_equal_the_naive_reference(batch):
    counts = DetectionCounts()
    for doc, pred, out in batch:
        counts.add(doc, pred, out)
    tp, fp, fn, ent, full, part, leaked, total = reference(*zip(*batch))
    assert (counts.tp, counts.fp, counts.fn, counts.entities, counts.fully, counts.partially) == (
        tp,
        fp,
        fn,
        ent,
        full,
        part,
    )
    assert (counts.leaked, counts.leak_total) == (leaked, total)


def test_hand_made_cases():
    text = "Call Maria, now. Bob-Smith lives at 5 Elm St."
    doc = GoldDocument(
        text, (GoldSpan(5, 10, "PERSON"), GoldSpan(17, 26, "PERSON"), GoldSpan(36, 44, "ADDRESS"))
    )
    counts = DetectionCounts()
    counts.add(doc, [(5, 7), (36, 38)], output_text="Call X, now. Bob-Smith lives at X Elm St.")
    report = counts.report()
    # tokens: Call | Maria, | now. | Bob-Smith | lives | at | 5 | Elm | St.
    assert (counts.tp, counts.fp, counts.fn) == (2, 0, 3)  # "Maria," hit by overlap; "5" hit
    assert report["entities_fully_protected"] == pytest.approx(1 / 3)
    assert report["entities_partially_protected"] == pytest.approx(2 / 3)
    assert report["per_type_recall"] == {"ADDRESS": pytest.approx(1 / 3), "PERSON": 0.5}
    assert report["leakage"] == pytest.approx(1 / 3)  # only "bob-smith" survives verbatim


def test_empty_predictions():
    counts = DetectionCounts()
    counts.add(GoldDocument("Hi Ann", (GoldSpan(3, 6),)), [])
    report = counts.report()
    assert report["token_recall"] == 0.0 and report["token_precision"] == 0.0 and report["leakage"] is None


@pytest.mark.data
def test_presidio_schema_is_read_directly():
    docs = load_gold(shared_data("presidio_synth_pii/synth_dataset_v2.json"), limit=20)
    assert len(docs) == 20 and all(s.end <= len(d.text) for d in docs for s in d.spans)


def test_evaluate_metric_module_loads_from_a_local_path():
    import evaluate

    from deid_hf.evaluation import metric_path

    metric = evaluate.load(metric_path("deid_detection"))
    text = "Call Maria, now. Bob-Smith lives at 5 Elm St."
    result = metric.compute(
        predictions=[[{"start": 5, "end": 7}, {"start": 36, "end": 38}]],
        references=[
            [
                {"start": 5, "end": 10, "label": "PERSON"},
                {"start": 17, "end": 26, "label": "PERSON"},
                {"start": 36, "end": 44, "label": "ADDRESS"},
            ]
        ],
        texts=[text],
        outputs=["Call X, now. Bob-Smith lives at X Elm St."],
    )
    assert (result["tp"], result["fp"], result["fn"]) == (2, 0, 3)
    assert result["leakage"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"full_text": "x"}\nnot json\n', "is not valid JSON Lines"),
        ("[1, 2, 3]\n", "record 0 is a JSON list, not an object"),
        ('{"full_text": "Ann", "spans": {"start": 0}}\n', "spans must be a list of objects"),
        ('{"full_text": "Ann", "spans": [{"end": 3, "label": "PERSON"}]}\n', "must be integers"),
        ('{"full_text": "Ann", "spans": [{"start": "0", "end": 3}]}\n', "must be integers"),
        ('{"full_text": "Ann", "spans": [{"start": 0, "end": 500}]}\n', "is not inside its text of 3"),
        ('{"full_text": "Ann", "spans": [{"start": 2, "end": 1}]}\n', "span 2-1 is not inside"),
        ("\n", "holds no documents"),
    ],
)
def test_a_gold_file_that_does_not_fit_is_one_clear_error(tmp_path, content, message):
    from deid_hf.errors import InputError

    (tmp_path / "gold.jsonl").write_text(content)
    with pytest.raises(InputError, match=message):
        load_gold(tmp_path / "gold.jsonl")
    (tmp_path / "latin.jsonl").write_bytes('{"full_text": "Zoë"}'.encode("latin-1"))
    with pytest.raises(InputError, match="is not UTF-8"):
        load_gold(tmp_path / "latin.jsonl")
