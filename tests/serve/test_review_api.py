"""The review API of `deid-hf serve` (/review/api) over real HTTP: upload, decisions, exports, resume."""

import json
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")

from .conftest import REPO, ThreadServer  # noqa: E402

pytestmark = pytest.mark.slow

KEY = "review-test-key-0123456789"
HEADERS = {"X-API-Key": KEY}
#: synthetic notes; the "fast" detector takes "Hodgkin" (a disease) for a name, misses "Zorbath" and
#: calls "Boston" a place
FALSE = "Mr. Wilhelm Brandt reports that Hodgkin lymphoma is in remission."
MISSED = "Discussed Babinski sign with the family of Jane Doe. Zorbath came along."
RELABEL = "Seen in Boston clinic on May 2, 2023. Contact Kowalczyk at 555-0143."
FILLER = [
    "Patient Maria Gonzalez was seen by Dr. Tanaka on March 3, 2024.",
    "Follow-up with nurse Oluwaseun Adebayo-Quist next week.",
    "Ms. Ngozi Okonkwo-Baptiste called Friday about her results.",
    "Nothing personal in this note.",
]


def corpus_bytes() -> bytes:
    rows = [{"id": n, "text": text} for n, text in enumerate([FALSE, MISSED, RELABEL, *FILLER])]
    lines = [json.dumps(row) for row in rows]
    lines.insert(3, "{not json")  # an unreadable line: an error, listed first
    lines.append(json.dumps({"id": 99, "note": "no text field"}))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def review_server(tmp_path_factory):
    from deid_hf.serve.app import create_app
    from deid_hf.serve.config import ServeConfig

    root = tmp_path_factory.mktemp("review")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("DEID_HF_REVIEW_DIR", str(root))
    config = ServeConfig(detector="fast", strategy="typed", api_key=KEY)
    try:
        with ThreadServer(create_app(config)) as server:
            yield server.base, root
    finally:
        monkey.undo()


def upload(base: str, body: bytes, **params) -> dict:
    params = {"filename": "notes.jsonl", **params}
    answer = httpx.post(
        f"{base}/review/api/sessions", params=params, content=body, headers=HEADERS, timeout=60
    )
    assert answer.status_code == 200, answer.text
    session = answer.json()
    deadline = time.monotonic() + 120
    while session["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
        session = httpx.get(f"{base}/review/api/sessions/{session['id']}", headers=HEADERS).json()
    assert session["state"] == "done", session
    return session


def span_of(doc: dict, surface: str) -> dict:
    start = doc["original"].index(surface)
    found = [s for s in doc["spans"] if s["start"] == start and s["end"] == start + len(surface)]
    assert found, f"the detector no longer finds {surface!r} (the test's premise)"
    return found[0]


def decide(base, session, index, **decision):
    url = f"{base}/review/api/sessions/{session['id']}/documents/{index}/decisions"
    return httpx.post(url, json=decision, headers=HEADERS, timeout=60)


def test_review_needs_the_api_key_and_offers_what_runs(review_server):
    base, _ = review_server
    assert httpx.get(f"{base}/review/api/options").status_code == 401
    assert httpx.get(f"{base}/review/").status_code == 200  # the page itself holds no data
    options = httpx.get(f"{base}/review/api/options", headers=HEADERS).json()
    assert "typed" in options["strategies"] and "custom" not in options["strategies"]
    assert "hash" not in options["strategies"]  # no DEID_HF_KEY on this server
    refused = httpx.post(
        f"{base}/review/api/sessions",
        params={"filename": "a.jsonl", "strategy": "custom"},
        content=b'{"text": "x"}\n',
        headers=HEADERS,
    )
    assert refused.status_code == 400 and "not offered" in refused.json()["detail"]
    wrong = httpx.post(
        f"{base}/review/api/sessions", params={"filename": "a.txt"}, content=b"x", headers=HEADERS
    )
    assert wrong.status_code == 400 and ".jsonl" in wrong.json()["detail"]


def test_decisions_update_the_text_and_exports_change_the_next_run(review_server, tmp_path):
    base, root = review_server
    session = upload(base, corpus_bytes())
    rows = session["documents"]
    assert session["total"] == 9 and len(rows) == 9
    assert [r["error"] is not None for r in rows[:2]] == [True, True]  # errors first
    assert all(r["error"] is None for r in rows[2:])
    low = [r["low_score"] > 0 for r in rows[2:]]
    assert low == sorted(low, reverse=True)  # then documents with low-score spans
    doc_url = f"{base}/review/api/sessions/{session['id']}/documents"
    false_doc, missed_doc, relabel_doc = (
        httpx.get(f"{doc_url}/{n}", headers=HEADERS).json() for n in range(3)
    )
    assert any(s["rule"] for s in false_doc["spans"] + missed_doc["spans"] + relabel_doc["spans"])

    hodgkin = span_of(false_doc, "Hodgkin")
    answer = decide(base, session, 0, action="reject", start=hodgkin["start"], end=hodgkin["end"]).json()
    assert "Hodgkin lymphoma" in answer["text"] and "Brandt" not in answer["text"]
    start = MISSED.index("Zorbath")
    answer = decide(base, session, 1, action="add", start=start, end=start + 7, label="PERSON").json()
    assert answer["text"].endswith("<PERSON> came along.")
    assert [s["status"] for s in answer["spans"] if s["start"] == start] == ["added"]
    clinic = span_of(relabel_doc, "Boston")
    answer = decide(base, session, 2, action="relabel", start=clinic["start"], end=clinic["end"], label="ORG")
    assert answer.json()["text"].startswith("Seen in <ORG> clinic on")
    # refusals: an overlap, an unknown label, a span that was never detected, an undo of nothing
    assert (
        decide(base, session, 1, action="add", start=start, end=start + 3, label="PERSON").status_code == 400
    )
    assert (
        decide(
            base, session, 2, action="relabel", start=clinic["start"], end=clinic["end"], label="X"
        ).status_code
        == 400
    )
    assert decide(base, session, 2, action="reject", start=0, end=4).status_code == 400
    assert decide(base, session, 3, action="undo", start=0, end=4).status_code == 400
    # a decision undone: the span is replaced again; redone for the exports
    decide(base, session, 0, action="undo", start=hodgkin["start"], end=hodgkin["end"])
    again = httpx.get(f"{doc_url}/0", headers=HEADERS).json()
    assert "Hodgkin" not in again["text"]
    decide(base, session, 0, action="reject", start=hodgkin["start"], end=hodgkin["end"])

    # decisions on disk: offsets and labels, no text
    (saved,) = root.glob("*.decisions.json")
    raw = saved.read_text()
    assert json.loads(raw)["documents"]["1"] == {f"{start}:{start + 7}": {"action": "add", "label": "PERSON"}}
    assert not any(word in raw for word in ("Hodgkin", "Zorbath", "Boston", "Brandt"))

    exported = f"{base}/review/api/sessions/{session['id']}/export"
    corpus = [
        json.loads(line) for line in httpx.get(f"{exported}/corpus.jsonl", headers=HEADERS).text.splitlines()
    ]
    assert len(corpus) == 9 and corpus[0]["id"] == 0
    assert "Hodgkin lymphoma" in corpus[0]["text"] and "Zorbath" not in corpus[1]["text"]
    assert corpus[3]["error"] and "text" not in corpus[8] and corpus[8]["error"]
    gold = [
        json.loads(line)
        for line in httpx.get(f"{exported}/gold.jsonl?reviewed_only=true", headers=HEADERS).text.splitlines()
    ]
    assert [g["text"] for g in gold] == [FALSE, MISSED, RELABEL]
    assert {"start": start, "end": start + 7, "label": "PERSON"} in gold[1]["spans"]
    assert {"start": clinic["start"], "end": clinic["end"], "label": "ORG"} in gold[2]["spans"]
    assert all(s["start"] != hodgkin["start"] for s in gold[0]["spans"])
    config_text = httpx.get(f"{exported}/config.yaml", headers=HEADERS).text
    (tmp_path / "review.yaml").write_text(config_text)
    (tmp_path / "notes.jsonl").write_text(
        json.dumps({"text": FALSE}) + "\n" + json.dumps({"text": MISSED}) + "\n"
    )

    # the next run (the CLI, with the exported --config) keeps "Hodgkin" and replaces "Zorbath"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "deid_hf.cli",
            "run",
            str(tmp_path / "notes.jsonl"),
            str(tmp_path / "out.jsonl"),
        ]
        + ["--config", str(tmp_path / "review.yaml")],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    out = [json.loads(line)["text"] for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert "Hodgkin lymphoma" in out[0] and "Brandt" not in out[0]
    assert "Zorbath" not in out[1] and out[1].endswith("<PERSON> came along.")

    # the same file uploaded again resumes its decisions
    resumed = upload(base, corpus_bytes())
    doc = httpx.get(f"{base}/review/api/sessions/{resumed['id']}/documents/1", headers=HEADERS).json()
    assert doc["reviewed"] and "Zorbath" not in doc["text"]


def test_ui_asks_for_the_api_key_alone(review_server):
    base, _ = review_server
    login = httpx.get(f"{base}/ui/")
    assert login.status_code == 200 and "API key" in login.text
    assert login.text.count("<input") == 1 and 'type="password"' in login.text
    assert httpx.get(f"{base}/ui/config").status_code == 401  # nothing of the app before signing in
    wrong = httpx.post(f"{base}/ui-login", data={"api_key": "not-the-key-at-all"})
    assert wrong.status_code == 401 and "Wrong API key" in wrong.text and "set-cookie" not in wrong.headers
    right = httpx.post(f"{base}/ui-login", data={"api_key": KEY})
    assert right.status_code == 303 and right.headers["location"] == "/ui/"
    assert KEY not in right.headers["set-cookie"] and "HttpOnly" in right.headers["set-cookie"]
    with httpx.Client(base_url=base, cookies=right.cookies) as client:
        page = client.get("/ui/")
        assert page.status_code == 200 and "gradio" in page.text.lower() and "API key" not in page.text
        assert client.get("/ui/config").status_code == 200


def test_a_csv_upload_with_another_text_field(review_server, tmp_path):
    from deid_hf.config import load_config
    from deid_hf.pipelines import pipeline

    base, _ = review_server
    body = b"id,note\n1,Patient Maria Gonzalez was seen on March 3 2024.\n2,\n3,Ward code KX7-220 updated.\n"
    session = upload(base, body, filename="notes.csv", text_field="note")
    assert [r["index"] for r in session["documents"]][:1] == [1]  # the empty note: an error, first
    assert "no text in field 'note'" in session["documents"][0]["error"]
    url = f"{base}/review/api/sessions/{session['id']}/export/corpus.jsonl"
    corpus = [json.loads(line) for line in httpx.get(url, headers=HEADERS).text.splitlines()]
    assert (
        corpus[0]["id"] == "1" and "Gonzalez" not in corpus[0]["note"]
    )  # a CSV cell as written and "<PERSON>" in corpus[0]["note"]
    assert "note" not in corpus[1] and corpus[1]["error"]
    # a missed identifier: denied, and its shape a pattern of the next run
    code = "Ward code KX7-220 updated."
    start = code.index("KX7")
    answer = decide(base, session, 2, action="add", start=start, end=start + 7, label="ID")
    assert answer.json()["text"] == "Ward code <ID> updated."
    config_text = httpx.get(
        f"{base}/review/api/sessions/{session['id']}/export/config.yaml", headers=HEADERS
    ).text
    (tmp_path / "next.yaml").write_text(config_text)
    config = load_config(tmp_path / "next.yaml")
    assert config["deny_list"] == {"ID": ["KX7-220"]} and [p["label"] for p in config["patterns"]] == ["ID"]
    other = "The ward code is now KX9-514, since last week."
    before = pipeline("deid-substitution", detector=["fast"], strategy="typed")(other)
    after = pipeline("deid-substitution", **config)(other)
    assert "KX9-514" in before["text"] and "KX9-514" not in after["text"] and "<ID>" in after["text"]
    missing = httpx.get(f"{base}/review/api/sessions/nope", headers=HEADERS)
    assert missing.status_code == 404 and "upload the file again" in missing.json()["detail"]


def test_open_a_finished_run(review_server, tmp_path):
    """A `deid-hf run`'s input, output and report: the run's texts and spans, replaced again once decided."""
    base, _ = review_server
    (tmp_path / "in.jsonl").write_bytes(corpus_bytes())
    (tmp_path / "run.yaml").write_text("detector: [fast]\nstrategy: typed\n")
    command = [
        sys.executable,
        "-m",
        "deid_hf.cli",
        "run",
        str(tmp_path / "in.jsonl"),
        str(tmp_path / "out.jsonl"),
    ]
    subprocess.run(
        [*command, "--config", str(tmp_path / "run.yaml")], cwd=REPO, check=True, capture_output=True
    )
    files = {
        name: (path.name, path.read_bytes())
        for name, path in {
            "input": tmp_path / "in.jsonl",
            "output": tmp_path / "out.jsonl",
            "report": tmp_path / "out.jsonl.report.json",
        }.items()
    }
    answer = httpx.post(f"{base}/review/api/runs", files=files, headers=HEADERS, timeout=60)
    assert answer.status_code == 200, answer.text
    session = answer.json()
    assert session["state"] == "done" and session["total"] == 9
    assert [r["error"] is not None for r in session["documents"][:2]] == [True, True]
    run_texts = [json.loads(line)["text"] for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    doc = httpx.get(f"{base}/review/api/sessions/{session['id']}/documents/0", headers=HEADERS).json()
    assert doc["text"] == run_texts[0] and doc["original"] == FALSE
    hodgkin = span_of(doc, "Hodgkin")
    answer = decide(base, session, 0, action="reject", start=hodgkin["start"], end=hodgkin["end"]).json()
    assert "Hodgkin lymphoma" in answer["text"] and "Brandt" not in answer["text"]
    url = f"{base}/review/api/sessions/{session['id']}/export/corpus.jsonl"
    corpus = [json.loads(line) for line in httpx.get(url, headers=HEADERS).text.splitlines()]
    assert corpus[1]["text"] == run_texts[1]  # untouched: the run's own output
    assert "Hodgkin lymphoma" in corpus[0]["text"]
    files["output"] = ("out.jsonl", b"\n".join((tmp_path / "out.jsonl").read_bytes().splitlines()[1:]))
    mismatch = httpx.post(f"{base}/review/api/runs", files=files, headers=HEADERS, timeout=60)
    assert mismatch.status_code == 400 and "not one run" in mismatch.json()["detail"]


def test_shape_patterns_only_for_specific_shapes():
    import re

    from deid_hf.serve.review import shape_pattern

    assert shape_pattern("Zorbath") is None and shape_pattern("2021") is None and shape_pattern("12") is None
    mrn, phone = shape_pattern("MRN-004512"), shape_pattern("555-0143")
    assert re.search(mrn, "see MRN-998877.") and not re.search(mrn, "see MRN-99887.")
    assert not re.search(mrn, "see XMRN-998877")
    assert re.fullmatch(phone, "212-7788") and not re.search(phone, "2127788")
