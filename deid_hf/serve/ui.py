"""The Gradio demo mounted at ``/ui``: the original with its detected spans highlighted beside the result.

It submits through the service's batcher (same options checks, same model thread). Gradio's analytics are
switched off and the theme uses system fonts, so the page requests nothing from outside the server.
"""

from __future__ import annotations

import hmac
import os
import re

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from ..extras import extra  # noqa: E402
from .batching import DynamicBatcher, QueueFull  # noqa: E402
from .config import ServeConfig  # noqa: E402
from .engine import Options, safe_error  # noqa: E402

#: tags of gradio's page template that reach outside the server (a font preconnect, a CDN script)
_OUTSIDE = re.compile(
    rb'<link[^>]*href="https?://[^"]*"[^>]*>|<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', re.S
)

EXAMPLE = "Patient Maria Gonzalez, 67, was seen by Dr. Tanaka on March 3, 2024. Call (217) 555-0143."


def highlighted(text: str, result: dict) -> tuple[list, list]:
    """(original, de-identified) as gr.HighlightedText values: (segment, label or None) pairs."""
    original, new, cursor = [], [], 0
    for span in sorted(result["spans"], key=lambda s: s["start"]):
        if span["start"] > cursor:
            original.append((text[cursor : span["start"]], None))
            new.append((text[cursor : span["start"]], None))
        surface = text[span["start"] : span["end"]]
        original.append((surface, span["label"]))
        new.append((span["replacement"] if span["replaced"] else surface, span["label"]))
        cursor = span["end"]
    if cursor < len(text):
        original.append((text[cursor:], None))
        new.append((text[cursor:], None))
    if "".join(segment for segment, _ in new) != result["text"]:  # never show a wrong alignment
        new = [(result["text"], None)]
    return original, new


def privacy_markdown(privacy: dict) -> str:
    rows = [f"**guarantee:** {privacy.get('guarantee', '-')}"]
    rows += [f"- {key}: {privacy[key]}" for key in ("strategy", "p", "epsilon", "detector") if key in privacy]
    rows += [f"- caveat: {caveat}" for caveat in privacy.get("caveats") or ()]
    return "\n".join(rows)


def build_ui(config: ServeConfig, batcher: DynamicBatcher):
    with extra("serve", "the deid-hf UI"):
        import gradio as gr

    async def deidentify(text: str, strategy: str, detector: str, p: float):
        try:
            key = Options(
                "deidentify",
                config.check_detector(detector),
                config.check_strategy(strategy),
                config.check_p(float(p)),
            )
        except Exception as exc:  # noqa: BLE001 - shown in the page
            raise gr.Error(safe_error(exc)) from None
        if len(text or "") > config.max_text_chars:
            raise gr.Error(f"text of {len(text)} characters (at most {config.max_text_chars})")
        try:
            (result,) = await batcher.submit(key, [text])
        except QueueFull as exc:
            raise gr.Error(f"server busy: {exc}") from None
        if isinstance(result, BaseException):
            raise gr.Error(safe_error(result))
        original, new = highlighted(text, result)
        return original, new, privacy_markdown(result["privacy"])

    theme = gr.themes.Default(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])
    with gr.Blocks(title="deid-hf", theme=theme, analytics_enabled=False) as demo:
        gr.Markdown("## deid-hf: de-identify a text\nNothing you paste is stored or logged.")
        with gr.Row():
            text = gr.Textbox(label="text", value=EXAMPLE, lines=6, elem_id="deid-input")
            with gr.Column():
                own = config.strategy if isinstance(config.strategy, str) else None
                strategy = gr.Dropdown(
                    list(config.allowed_strategies),
                    value=own,
                    label="strategy (operator)"
                    if own
                    else "strategy (empty: the server's operators per label)",
                )
                detector = gr.Dropdown(
                    list(config.allowed_detectors), value=config.detector, label="detector"
                )
                p = gr.Slider(
                    config.min_p,
                    1.0,
                    value=config.p,
                    step=0.05,
                    label="p (probability that a detected item is replaced)",
                    interactive=config.min_p < 1.0,
                )
        button = gr.Button("De-identify", variant="primary", elem_id="deid-submit")
        with gr.Row():
            original = gr.HighlightedText(label="original, detected spans", elem_id="deid-original")
            result = gr.HighlightedText(label="de-identified", elem_id="deid-result")
        privacy = gr.Markdown(elem_id="deid-privacy")
        button.click(deidentify, [text, strategy, detector, p], [original, result, privacy], api_name=False)
    return demo


class LocalPage:
    """ASGI middleware: drops the tags that point outside the server from the UI's HTML pages, so a browser
    on an offline (hospital) network never tries to reach a CDN or a font service."""

    def __init__(self, app, prefix: str = "/ui"):
        self.app, self.prefix = app, prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            return await self.app(scope, receive, send)
        start, chunks = None, []

        async def rewriting_send(message):
            nonlocal start
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                if not headers.get(b"content-type", b"").startswith(b"text/html"):
                    start = False
                    return await send(message)
                start = message
                return None
            if start is False:
                return await send(message)
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return None
            body = _OUTSIDE.sub(b"", b"".join(chunks))
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, rewriting_send)


def mount_ui(app, config: ServeConfig, batcher: DynamicBatcher, path: str = "/ui", throttle=None):
    """The UI at ``path``; with an API key, a login whose password is the key (``throttle``, a
    `app.GuessThrottle`: wrong passwords of all clients together, since the login does not say who asks)."""
    with extra("serve", "the deid-hf UI"):
        import gradio as gr
    auth = None
    if config.api_key is not None:
        key = config.api_key

        def auth(_user: str, password: str) -> bool:
            if throttle is not None and throttle.wait_s("ui login"):
                return False
            if hmac.compare_digest(password.encode(), key.encode()):
                return True
            if throttle is not None:
                throttle.failed("ui login")
            return False

    app.add_middleware(LocalPage, prefix=path)
    return gr.mount_gradio_app(app, build_ui(config, batcher), path=path, auth=auth, show_api=False)
