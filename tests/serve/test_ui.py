"""The Gradio UI of `deid-hf serve`, driven in headless Chromium (Playwright on the Debian package)."""

import shutil

import pytest

pytestmark = pytest.mark.slow


def chromium_path() -> str:
    pytest.importorskip(
        "playwright", reason="playwright is not installed (dev extra: pip install -e '.[dev]')"
    )
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip(
            "no chromium on PATH: apt-get install -y chromium (Playwright's own download is not used)"
        )
    return path


def test_ui_highlights_spans_beside_the_result(server):
    from playwright.sync_api import sync_playwright

    browser_path = chromium_path()
    base, _ = server
    outside = []

    def local_only(route):
        if route.request.url.startswith(base):
            return route.continue_()
        outside.append(route.request.url)
        return route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route("**/*", local_only)
            page.goto(f"{base}/ui/")
            page.fill("#deid-input textarea", "Maria Gonzalez lives in Paris. Call (217) 555-0143.")
            page.click("#deid-submit")
            page.wait_for_selector("#deid-result .textspan.hl", timeout=60_000)
            original = page.eval_on_selector_all(
                "#deid-original .textspan.hl",
                "els => els.map(e => [e.querySelector('.text').innerText,"
                " e.querySelector('.label').innerText])",
            )
            result = page.eval_on_selector_all(
                "#deid-result .textspan",
                "els => els.map(e => e.querySelector('.text').innerText)",
            )
            privacy = page.inner_text("#deid-privacy")
        finally:
            browser.close()
    assert ("Maria Gonzalez", "PERSON") in [tuple(x) for x in original]
    assert ("Paris", "LOCATION") in [tuple(x) for x in original]
    assert any(label == "PHONE" for _, label in original)
    shown = "".join(result)
    assert shown and "Maria" not in shown and "Gonzalez" not in shown and "555-0143" not in shown
    assert "lives in" in shown
    assert "no DP guarantee" in privacy  # full_entity, the server's default strategy
    assert outside == []  # the page asks nothing from outside the server
