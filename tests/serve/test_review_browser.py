"""The review page (/review) end to end in headless Chromium (Playwright on the Debian package): sign in
with the API key, upload synthetic notes, fix errors with mouse and keyboard, export, re-run with it."""

import json
import os
import subprocess
import sys

import pytest

from .conftest import REPO, free_port, wait_ready
from .test_review_api import FALSE, MISSED, RELABEL
from .test_ui import chromium_path

pytestmark = pytest.mark.slow

KEY = "browser-review-key-0123456789"
FIRST = ["Maria", "Tomasz", "Aiko", "Farid", "Ingrid", "Kwame"]
LAST = ["Gonzalez", "Nowak", "Tanaka", "Haddad", "Lindqvist", "Mensah"]


#: (centre, left, right) of a word of the original pane, in page coordinates
WORD_BOX = """word => {
    document.getElementById('original').scrollIntoView({block: 'center'});
    const node = [...document.getElementById('original').childNodes]
        .find(n => n.nodeType === 3 && n.textContent.includes(word));
    const range = document.createRange();
    const at = node.textContent.indexOf(word);
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    const r = range.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2, left: r.left, right: r.right};
}"""


#: a fourth error of the "fast" detector: "Apgar" (a score) taken for a name
APGAR = "Newborn exam done; Apgar score normal, mother Ingrid Lindqvist present."


def open_document(page, index: int) -> None:
    """Click a document of the list and wait until the page shows it."""
    page.click(f'#documents tr[data-index="{index}"]')
    page.wait_for_function(f"() => document.getElementById('doc-index').innerText === '{index}'")


def synthetic_notes(count: int = 50) -> list[str]:
    """The four notes with errors first, then invented notes (names, dates, phone numbers)."""
    notes = [FALSE, MISSED, RELABEL, APGAR]
    for n in range(count - len(notes)):
        name = f"{FIRST[n % 6]} {LAST[(n * 5) % 6]}"
        notes.append(
            f"Patient {name} was seen on March {n % 27 + 1}, 2024 for a routine visit. "
            f"Call (217) 555-01{n:02d} to reschedule."
        )
    return notes


@pytest.fixture(scope="module")
def review_process(tmp_path_factory):
    """(base URL, log file) of `python -m deid_hf.cli serve` with an API key and the typed strategy."""
    pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install 'deid-hf[serve]'")
    tmp = tmp_path_factory.mktemp("review-browser")
    port, log_path = free_port(), tmp / "server.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "REVIEW_TEST_KEY": KEY,
        "DEID_HF_REVIEW_DIR": str(tmp / "decisions"),
    }
    env.pop("DEID_HF_KEY", None)
    args = ["--detector", "fast", "--strategy", "typed", "--api-key-env", "REVIEW_TEST_KEY"]
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "deid_hf.cli",
                "serve",
                "--port",
                str(port),
                *args,
                "--log-level",
                "debug",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=REPO,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, process=process)
        yield base, log_path
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def test_review_in_the_browser_fixes_errors_and_exports(review_process, tmp_path):
    from playwright.sync_api import sync_playwright

    from deid_hf.config import load_config
    from deid_hf.pipelines import pipeline

    browser_path = chromium_path()
    base, log_path = review_process
    notes = synthetic_notes()
    upload = "".join(json.dumps({"id": f"note-{n}", "text": t}) + "\n" for n, t in enumerate(notes))
    outside = []

    def local_only(route):
        if route.request.url.startswith(base):
            return route.continue_()
        outside.append(route.request.url)
        return route.abort()

    def result_text(page) -> str:
        return page.inner_text("#result")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        try:
            context = browser.new_context(
                accept_downloads=True, permissions=["clipboard-read", "clipboard-write"]
            )
            page = context.new_page()
            page.route("**/*", local_only)
            page.goto(f"{base}/review/")
            # sign in: the page asks for the API key only, and says so
            page.wait_for_selector("#login:not([hidden])")
            assert "API key" in page.inner_text("#login")
            assert page.eval_on_selector_all("#login input", "is => is.map(i => i.type)") == ["password"]
            page.fill("#api-key", KEY)
            page.click("#login-form button")
            page.wait_for_selector("#open:not([hidden])")
            strategies = page.eval_on_selector_all("#strategy option", "os => os.map(o => o.value)")
            assert "typed" in strategies and "custom" not in strategies and "hash" not in strategies
            page.set_input_files(
                "#file", {"name": "notes.jsonl", "mimeType": "application/json", "buffer": upload.encode()}
            )
            page.click("#open-submit")
            page.wait_for_selector("#review:not([hidden])", timeout=120_000)
            assert page.locator("#documents tbody tr").count() == len(notes)

            # 1. a false span: click it, press r
            open_document(page, 0)
            start = FALSE.index("Hodgkin")
            page.click(f'#original mark[data-start="{start}"]')
            page.keyboard.press("r")
            page.wait_for_function(
                "() => document.getElementById('result').innerText.includes('Hodgkin lymphoma')"
            )
            assert "Brandt" not in result_text(page)

            # 2. a missed name: pick the label, select the word with the mouse, press n
            open_document(page, 1)
            page.select_option("#label", "PERSON")
            page.evaluate("document.activeElement.blur()")
            box = page.evaluate(WORD_BOX, "Zorbath")
            page.mouse.dblclick(box["x"], box["y"])
            page.keyboard.press("n")
            page.wait_for_function(
                "() => document.getElementById('result').innerText.endsWith('<PERSON> came along.')"
            )
            assert page.locator("#original mark.added").inner_text().startswith("Zorbath")

            # 3. a wrong label: select the first span with ], choose the label, click Relabel
            open_document(page, 2)
            page.keyboard.press("]")
            page.wait_for_selector(f'#original mark.selected[data-start="{RELABEL.index("Boston")}"]')
            page.select_option("#label", "ORG")
            page.click("#relabel")
            page.wait_for_function(
                "() => document.getElementById('result').innerText.startsWith('Seen in <ORG> clinic on')"
            )
            # the Copy button copies the de-identified text as shown
            page.click("#copy")
            page.wait_for_function("() => document.getElementById('status').innerText === 'copied'")
            assert page.evaluate("navigator.clipboard.readText()") == page.inner_text("#result")
            # 4. another false span, rejected with the button
            open_document(page, 3)
            page.click(f'#original mark[data-start="{APGAR.index("Apgar")}"]')
            page.click("#reject")
            page.wait_for_function(
                "() => document.getElementById('result').innerText.includes('Apgar score')"
            )
            # 5. a missed full name: select it by dragging the mouse; then accept a span (a)
            open_document(page, 5)
            page.select_option("#label", "PERSON")
            page.evaluate("document.activeElement.blur()")
            first, last = page.evaluate(WORD_BOX, "Tomasz"), page.evaluate(WORD_BOX, "Mensah")
            page.mouse.move(first["left"] + 1, first["y"])
            page.mouse.down()
            page.mouse.move(last["right"] - 1, last["y"], steps=5)
            page.mouse.up()
            page.keyboard.press("n")
            page.wait_for_function("() => !document.getElementById('result').innerText.includes('Mensah')")
            assert page.locator("#original mark.added").inner_text().startswith("Tomasz Mensah")
            page.click("#original mark.detected")
            page.keyboard.press("a")
            page.wait_for_selector("#original mark.accepted")
            # j moves to the next document of the list
            page.evaluate("document.activeElement.blur()")
            before = page.inner_text("#doc-index")
            page.keyboard.press("j")
            page.wait_for_function(f"() => document.getElementById('doc-index').innerText !== '{before}'")

            # exports: the corrected corpus and the allow/deny config
            with page.expect_download() as corpus_download:
                page.click("#export-corpus")
            corpus_download.value.save_as(tmp_path / "corrected.jsonl")
            with page.expect_download() as config_download:
                page.click("#export-config")
            config_download.value.save_as(tmp_path / "review-config.yaml")
        finally:
            browser.close()

    corrected = [json.loads(line) for line in (tmp_path / "corrected.jsonl").read_text().splitlines()]
    assert [r["id"] for r in corrected] == [f"note-{n}" for n in range(len(notes))]
    assert "Hodgkin lymphoma" in corrected[0]["text"] and "Zorbath" not in corrected[1]["text"]
    assert corrected[2]["text"].startswith("Seen in <ORG> clinic on")
    assert "Mensah" not in corrected[5]["text"] and "Apgar score" in corrected[3]["text"]
    config = load_config(tmp_path / "review-config.yaml")
    assert {"Hodgkin", "Apgar"} <= set(config["allow_list"])
    assert config["deny_list"] == {"PERSON": ["Zorbath", "Tomasz Mensah"]}

    # the next run with the exported config: the denied name replaced, the allowed word kept
    before = pipeline("deid-substitution", detector=["fast"], strategy="typed")(notes)
    after = pipeline("deid-substitution", **config)(notes)
    assert "Hodgkin" not in before[0]["text"] and "Zorbath" in before[1]["text"]
    assert "Hodgkin lymphoma" in after[0]["text"] and "Zorbath" not in after[1]["text"]
    assert "Apgar" not in before[3]["text"] and "Apgar score" in after[3]["text"]
    assert any("Mensah" in r["text"] for r in before[6:])  # the same name, missed in other notes...
    assert not any(name in r["text"] for r in after[4:] for name in LAST)  # ...denied in the next run
    assert outside == []
    logged = log_path.read_text()
    assert not any(word in logged for word in ("Hodgkin", "Zorbath", "Brandt", "Gonzalez", "Boston"))
