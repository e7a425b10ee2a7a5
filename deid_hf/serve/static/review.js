// deid-hf review page: plain JavaScript, no build step. Talks to /review/api with the API key (if any).
"use strict";
const $ = (id) => document.getElementById(id);
const state = { options: null, session: null, doc: null, selected: null, index: null, order: [] };

function apiKey() { return sessionStorage.getItem("deid-hf-api-key") || ""; }

async function api(path, init = {}) {
  const headers = Object.assign({}, init.headers || {});
  if (apiKey()) headers["X-API-Key"] = apiKey();
  const response = await fetch(`/review/api${path}`, Object.assign({}, init, { headers }));
  if (response.status === 401) { showLogin("the API key is missing or wrong"); throw new Error("unauthorized"); }
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
    throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
  return response;
}

function show(id) { for (const s of ["login", "open", "review"]) $(s).hidden = s !== id; }
function status(text) { $("status").textContent = text; }

function showLogin(message) {
  show("login");
  $("login-error").textContent = apiKey() ? message : "";
}

async function start() {
  try {
    state.options = await (await api("/options")).json();
  } catch (e) {
    if (e.message !== "unauthorized") status(e.message);
    return;
  }
  fill($("detector"), state.options.detectors, state.options.detector);
  const strategies = state.options.strategy ? state.options.strategies : ["", ...state.options.strategies];
  fill($("strategy"), strategies, state.options.strategy || "", (s) => s || "(the server's operators per label)");
  fill($("label"), state.options.labels, "PERSON");
  show("open");
}

function fill(select, values, chosen, text = (v) => v) {
  select.replaceChildren(...values.map((v) => new Option(text(v), v, false, v === chosen)));
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem("deid-hf-api-key", $("api-key").value);
  $("api-key").value = "";
  start();
});

$("open-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("open-error").textContent = "";
  const file = $("file").files[0];
  const query = new URLSearchParams({ filename: file.name, text_field: $("text-field").value });
  if ($("detector").value) query.set("detector", $("detector").value);
  if ($("strategy").value) query.set("strategy", $("strategy").value);
  $("open-submit").disabled = true;
  try {
    const body = await file.arrayBuffer();
    state.session = await (await api(`/sessions?${query}`, { method: "POST", body })).json();
    $("progress").hidden = false;
    await poll();
  } catch (e) {
    $("open-error").textContent = e.message;
  } finally {
    $("open-submit").disabled = false;
  }
});

$("run-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("open-error").textContent = "";
  const form = new FormData();
  form.append("input", $("run-input").files[0]);
  form.append("output", $("run-output").files[0]);
  form.append("report", $("run-report").files[0]);
  const query = new URLSearchParams({ text_field: $("text-field").value });
  if ($("detector").value) query.set("detector", $("detector").value);
  if ($("strategy").value) query.set("strategy", $("strategy").value);
  $("run-submit").disabled = true;
  try {
    state.session = await (await api(`/runs?${query}`, { method: "POST", body: form })).json();
    await poll();
  } catch (e) {
    $("open-error").textContent = e.message;
  } finally {
    $("run-submit").disabled = false;
  }
});

async function poll() {
  for (;;) {
    const summary = await (await api(`/sessions/${state.session.id}`)).json();
    state.session = summary;
    $("progress").max = summary.total;
    $("progress").value = summary.done;
    status(`${summary.name}: ${summary.done} of ${summary.total} de-identified`);
    if (summary.state === "failed") throw new Error(summary.error);
    if (summary.state === "done") break;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  $("progress").hidden = true;
  show("review");
  $("session-name").textContent = `${state.session.name} (${state.session.total} documents)`;
  renderList();
}

async function refreshList() {
  state.session = await (await api(`/sessions/${state.session.id}`)).json();
  renderList();
}

function renderList() {
  const rows = state.session.documents.map((d) => {
    const tr = document.createElement("tr");
    tr.dataset.index = d.index;
    if (d.error) tr.classList.add("error");
    if (d.index === state.index) tr.classList.add("current");
    const cells = [d.index, d.spans, d.low_score, d.min_score === null ? "-" : d.min_score.toFixed(2),
      d.error ? `error: ${d.error}` : d.decisions ? `reviewed (${d.decisions})` : ""];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.append(td); }
    tr.addEventListener("click", () => openDocument(d.index));
    return tr;
  });
  state.order = state.session.documents.map((d) => d.index);
  $("documents").tBodies[0].replaceChildren(...rows);
}

async function openDocument(index) {
  state.index = index;
  state.selected = null;
  $("doc-error").textContent = "";
  state.doc = await (await api(`/sessions/${state.session.id}/documents/${index}`)).json();
  for (const tr of $("documents").tBodies[0].rows) tr.classList.toggle("current", Number(tr.dataset.index) === index);
  renderDocument();
}

function shownSpans(spans) {
  // every kept span; a rejected one only where no kept span overlaps it
  const kept = spans.filter((s) => s.status !== "rejected");
  const rejected = spans.filter((s) => s.status === "rejected" && !kept.some((k) => k.start < s.end && s.start < k.end));
  return [...kept, ...rejected].sort((a, b) => a.start - b.start);
}

function renderDocument() {
  const doc = state.doc;
  $("document").hidden = false;
  $("doc-index").textContent = doc.index;
  const original = $("original");
  original.replaceChildren();
  $("result").textContent = doc.text === null ? "" : doc.text;
  if (doc.error) { $("doc-error").textContent = doc.error; return; }
  let cursor = 0;
  for (const span of shownSpans(doc.spans)) {
    if (span.start < cursor) continue;
    original.append(doc.original.slice(cursor, span.start));
    const mark = document.createElement("mark");
    mark.textContent = doc.original.slice(span.start, span.end);
    mark.dataset.start = span.start;
    mark.dataset.end = span.end;
    mark.dataset.label = span.label;
    mark.className = span.status;
    if (span.score < state.options.low_score && span.status === "detected") mark.classList.add("low");
    if (state.selected && state.selected.start === span.start && state.selected.end === span.end) mark.classList.add("selected");
    mark.title = `${span.label} score ${span.score.toFixed(2)} from ${span.source}${span.rule ? ` (${span.rule})` : ""}, ${span.status}`;
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.dataset.text = span.label;  // drawn by CSS: not part of the text a selection measures
    mark.append(badge);
    mark.addEventListener("click", (event) => { event.stopPropagation(); select(span); });
    original.append(mark);
    cursor = span.end;
  }
  original.append(doc.original.slice(cursor));
  const rows = doc.spans.map((s) => {
    const tr = document.createElement("tr");
    tr.dataset.start = s.start;
    tr.dataset.end = s.end;
    const cells = [doc.original.slice(s.start, s.end), s.label, s.score.toFixed(2),
      s.rule ? `${s.source} / ${s.rule}` : s.source, s.status, s.replacement || ""];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.append(td); }
    if (state.selected && state.selected.start === s.start && state.selected.end === s.end) tr.classList.add("current");
    tr.addEventListener("click", () => select(s));
    return tr;
  });
  $("spans").tBodies[0].replaceChildren(...rows);
}

function select(span) {
  state.selected = { start: span.start, end: span.end };
  $("label").value = span.label;
  renderDocument();
}

function selectionOffsets() {
  const selection = window.getSelection();
  const original = $("original");
  if (!selection.rangeCount || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!original.contains(range.startContainer) || !original.contains(range.endContainer)) return null;
  const before = document.createRange();
  before.setStart(original, 0);
  before.setEnd(range.startContainer, range.startOffset);
  let start = before.toString().length;
  let end = start + range.toString().length;
  const text = state.doc.original;
  while (start < end && /\s/.test(text[start])) start++;  // a double-click selects the trailing space
  while (end > start && /\s/.test(text[end - 1])) end--;
  return start < end ? { start, end } : null;
}

async function decide(action) {
  if (!state.doc || state.doc.error) return;
  let target = state.selected;
  const label = $("label").value;
  if (action === "add") {
    target = selectionOffsets();
    if (!target) { $("doc-error").textContent = "select the missed text in the original first"; return; }
  } else if (!target) {
    $("doc-error").textContent = "click a span first"; return;
  }
  $("doc-error").textContent = "";
  try {
    const body = JSON.stringify({ action, start: target.start, end: target.end, label: ["add", "relabel"].includes(action) ? label : null });
    state.doc = await (await api(`/sessions/${state.session.id}/documents/${state.doc.index}/decisions`,
      { method: "POST", body, headers: { "Content-Type": "application/json" } })).json();
    if (action === "add") { window.getSelection().removeAllRanges(); state.selected = target; }
    renderDocument();
    status(`document ${state.doc.index}: ${action} saved`);
    refreshList();
  } catch (e) {
    $("doc-error").textContent = e.message;
  }
}

for (const action of ["accept", "reject", "relabel", "undo", "add"]) {
  $(action).addEventListener("mousedown", (event) => event.preventDefault());  // keep the text selection
  $(action).addEventListener("click", () => decide(action));
}

function step(delta) {
  if (!state.order.length) return;
  const at = state.order.indexOf(state.index);
  const next = state.order[Math.min(state.order.length - 1, Math.max(0, at + delta))];
  if (next !== undefined) openDocument(next);
}

function moveSpan(delta) {
  if (!state.doc || !state.doc.spans.length) return;
  const spans = state.doc.spans;
  const at = state.selected ? spans.findIndex((s) => s.start === state.selected.start && s.end === state.selected.end) : -1;
  const next = at < 0 ? (delta > 0 ? 0 : spans.length - 1) : Math.min(spans.length - 1, Math.max(0, at + delta));
  select(spans[next]);
}

document.addEventListener("keydown", (event) => {
  if ($("review").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
  const keys = { a: "accept", r: "reject", l: "relabel", u: "undo", n: "add" };
  if (keys[event.key]) { event.preventDefault(); decide(keys[event.key]); }
  else if (event.key === "]" || event.key === "[") moveSpan(event.key === "]" ? 1 : -1);
  else if (event.key === "j") step(1);
  else if (event.key === "k") step(-1);
});

async function download(path, name) {
  try {
    const blob = await (await api(path)).blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (e) {
    status(e.message);
  }
}

$("export-corpus").addEventListener("click", () => download(`/sessions/${state.session.id}/export/corpus.jsonl`, "deidentified.jsonl"));
$("export-config").addEventListener("click", () => download(`/sessions/${state.session.id}/export/config.yaml`, "review-config.yaml"));
$("export-gold").addEventListener("click", () => download(`/sessions/${state.session.id}/export/gold.jsonl`, "gold.jsonl"));
$("download-doc").addEventListener("click", () => {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([state.doc.text || ""], { type: "text/plain" }));
  link.download = `document-${state.doc.index}.txt`;
  link.click();
});
$("copy").addEventListener("click", async () => {
  const text = (state.doc && state.doc.text) || "";
  try { await navigator.clipboard.writeText(text); status("copied"); }
  catch (e) {
    const area = document.createElement("textarea");
    area.value = text; document.body.append(area); area.select(); document.execCommand("copy"); area.remove();
    status("copied");
  }
});

start();
