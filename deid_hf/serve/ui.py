"""The Gradio demo mounted at ``/ui``: the original with its detected spans highlighted beside the result.

It submits through the service's batcher (same options checks, same model thread). Gradio's analytics are
switched off and the theme uses system fonts, so the page requests nothing from outside the server. With an
API key, `KeyGate` asks for the key alone (no username) and keeps the signed-in browser in an HttpOnly cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import os
import re
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from ..extras import extra  # noqa: E402
from .batching import DynamicBatcher, QueueFull  # noqa: E402
from .config import ServeConfig  # noqa: E402
from .engine import Options, safe_error  # noqa: E402

#: tags of gradio's page template that reach outside the server (a font preconnect, a CDN script)
_OUTSIDE = re.compile(
    rb'<link[^>]*href="https?://[^"]*"[^>]*>|<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', re.S
)

#: labels of highlighted spans never wrap mid-word
CSS = ".textspan .label { white-space: nowrap; }"

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


def _option_inputs(gr, config: ServeConfig):
    """The strategy, detector and p inputs of the UI (made inside the caller's layout block)."""
    own = config.strategy if isinstance(config.strategy, str) else None
    strategy = gr.Dropdown(
        list(config.allowed_strategies),
        value=own,
        label="strategy (operator)" if own else "strategy (empty: the server's operators per label)",
    )
    detector = gr.Dropdown(list(config.allowed_detectors), value=config.detector, label="detector")
    p = gr.Slider(
        config.min_p,
        1.0,
        value=config.p,
        step=0.05,
        label="p (probability that a detected item is replaced)",
        interactive=config.min_p < 1.0,
    )
    return strategy, detector, p


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
        return original, new, result["text"], privacy_markdown(result["privacy"])

    theme = gr.themes.Default(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])
    with gr.Blocks(title="deid-hf", theme=theme, analytics_enabled=False, css=CSS) as demo:
        gr.Markdown("## deid-hf: de-identify a text\nNothing you paste is stored or logged.")
        with gr.Row():
            text = gr.Textbox(label="text", value=EXAMPLE, lines=6, elem_id="deid-input")
            with gr.Column():
                strategy, detector, p = _option_inputs(gr, config)
        button = gr.Button("De-identify", variant="primary", elem_id="deid-submit")
        with gr.Row():
            original = gr.HighlightedText(label="original, detected spans", elem_id="deid-original")
            result = gr.HighlightedText(label="de-identified", elem_id="deid-result")
        plain = gr.Textbox(
            label="de-identified text",
            lines=4,
            show_copy_button=True,
            interactive=False,
            elem_id="deid-plain",
        )
        privacy = gr.Markdown(elem_id="deid-privacy")
        gr.Markdown("To review and correct a whole corpus, open [the review page](/review/).")
        button.click(
            deidentify, [text, strategy, detector, p], [original, result, plain, privacy], api_name=False
        )
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


COOKIE = "deid_hf_ui"
LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>deid-hf: sign in</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; }}
.error {{ color: #b91c1c; }}</style></head>
<body><h1>deid-hf</h1>
<p>This server needs its <strong>API key</strong> (the key it was started with: <code>--api-key-env</code>).
There is no username: the key alone.</p>
<form method="post" action="{action}">
<label>API key
<input type="password" name="api_key" autocomplete="current-password" autofocus required></label>
<button type="submit">Sign in</button></form>
<p class="error">{message}</p></body></html>
"""


def session_token(api_key: str) -> str:
    """The cookie value of a signed-in browser: derived from the key, never the key itself."""
    return hmac.new(api_key.encode(), b"deid-hf ui session", hashlib.sha256).hexdigest()


def route_path(scope) -> str:
    """The request's path inside this app: without the ``root_path`` of a mount above it (Starlette keeps the
    mount's prefix in ``path``), so a gate on ``/ui`` also holds when the app is mounted at ``/deid``."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class KeyGate:
    """ASGI middleware: everything under ``prefix`` needs the API key, asked by a page with one password
    field (POSTed to ``login``); a right key sets an HttpOnly, SameSite=Strict cookie. ``throttle`` (an
    `app.GuessThrottle`) answers 429 to a client after repeated wrong keys."""

    #: bytes of a login form read at most
    MAX_FORM = 4096

    def __init__(self, app, api_key: str, prefix: str = "/ui", throttle=None):
        self.app, self.prefix, self.login, self.throttle = app, prefix, f"{prefix}-login", throttle
        self.key, self.token = api_key.encode(), session_token(api_key).encode()

    async def __call__(self, scope, receive, send):
        path = route_path(scope)
        if scope["type"] == "http" and path == self.login:
            return await self._login(scope, receive, send)
        if scope["type"] not in ("http", "websocket") or not (
            path == self.prefix or path.startswith(f"{self.prefix}/")
        ):
            return await self.app(scope, receive, send)
        cookies = SimpleCookie()
        for name, value in scope.get("headers") or ():
            if name == b"cookie":
                cookies.load(value.decode("latin-1"))
        given = cookies[COOKIE].value.encode() if COOKIE in cookies else b""
        if hmac.compare_digest(given, self.token):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 1008})
        if scope["method"] == "GET" and path in (self.prefix, f"{self.prefix}/"):
            return await self._page(send, 200, "")
        return await _respond(
            send, 401, b'{"detail":"sign in at /ui/ with the API key"}', b"application/json"
        )

    async def _login(self, scope, receive, send):
        if scope["method"] != "POST":
            return await _respond(send, 303, b"", b"text/plain", [(b"location", f"{self.prefix}/".encode())])
        body, more = b"", True
        while more and len(body) <= self.MAX_FORM:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        client = f"ui login {(scope.get('client') or ('?',))[0]}"
        if self.throttle is not None and (wait := self.throttle.wait_s(client)):
            retry = [(b"retry-after", str(max(1, round(wait))).encode())]
            return await self._page(send, 429, "Too many wrong keys: try again later.", retry)
        given = parse_qs(body[: self.MAX_FORM].decode("utf-8", "replace")).get("api_key", [""])[0]
        if not hmac.compare_digest(given.encode(), self.key):
            if self.throttle is not None:
                self.throttle.failed(client)
            return await self._page(send, 401, "Wrong API key.")
        cookie = f"{COOKIE}={self.token.decode()}; Path={self.prefix}; HttpOnly; SameSite=Strict"
        headers = [(b"location", f"{self.prefix}/".encode()), (b"set-cookie", cookie.encode())]
        return await _respond(send, 303, b"", b"text/plain", headers)

    async def _page(self, send, status: int, message: str, headers=()):
        page = LOGIN_PAGE.format(action=html.escape(self.login), message=html.escape(message))
        return await _respond(send, status, page.encode(), b"text/html; charset=utf-8", headers)


async def _respond(send, status: int, body: bytes, media_type: bytes, headers=()):
    head = [(b"content-type", media_type), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def mount_ui(app, config: ServeConfig, batcher: DynamicBatcher, path: str = "/ui", throttle=None):
    """The UI at ``path``; with an API key, our one-field login (`KeyGate`, with ``throttle``)."""
    with extra("serve", "the deid-hf UI"):
        import gradio as gr
    app.add_middleware(LocalPage, prefix=path)
    if config.api_key is not None:  # the key alone, asked by our page (Gradio's login asks a username)
        app.add_middleware(KeyGate, api_key=config.api_key, prefix=path, throttle=throttle)
    return gr.mount_gradio_app(app, build_ui(config, batcher), path=path, show_api=False)
