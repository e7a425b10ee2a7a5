"""The audit report: ``audit.json``, ``audit.md`` and ``audit.html`` (with its plots embedded), written
atomically. It states what was measured, on how many documents, the intervals and what the audit does not
cover; it holds counts, rates, labels and the configuration, never a document's text."""

from __future__ import annotations

import base64
import html
import io
import json
import os
from pathlib import Path

from .._version import __version__
from ..config import reportable_configuration
from ..errors import InputError, MissingExtraError
from .recall import LEFT_TO_REID


def _rate(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(pair) -> str:
    return "-" if not pair else f"{pair[0]:.3f}-{pair[1]:.3f}"


#: the canary kinds as table titles name them
_KIND_TITLES = {"in_place": "In-place", "inserted": "Inserted"}


def canary_tables(result: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the canary audit."""
    head = ["canaries", "tokens", "token recall", "95% interval", "survived", "survival rate", "95% interval"]

    def row(name: str, s: dict) -> list[str]:
        return [
            name,
            str(s["canaries"]),
            str(s["tokens"]),
            _rate(s["token_recall"]),
            _interval(s["token_recall_interval"]),
            str(s["survived"]),
            _rate(s["survival_rate"]),
            _interval(s["survival_interval"]),
        ]

    kinds = [row("all", result["all"])] + [row(k, s) for k, s in result["by_kind"].items()]
    counted = result["estimate"]["kind"]
    tables = [("Canaries by kind", ["kind", *head], kinds)]
    for kind, types in result["by_kind_and_type"].items():
        counts = " (the estimate's)" if kind == counted else ""
        title = f"{_KIND_TITLES[kind]} canaries{counts} by type"
        tables.append((title, ["type", *head], [row(label, s) for label, s in types.items()]))
    return tables


def reid_tables(result: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the re-identification audit."""
    k = result["k"]
    rows = [
        ["chance", "-", _rate(result["chance"]["top1"]), "-", _rate(result["chance"][f"top{k}"]), "-", "-"]
    ]

    def row(name: str, r: dict) -> list[str]:
        return [
            name,
            str(r["documents"]),
            _rate(r["top1"]),
            _interval(r["top1_interval"]),
            _rate(r[f"top{k}"]),
            _interval(r[f"top{k}_interval"]),
            _rate(r["mean_reciprocal_rank"]),
        ]

    for name, r in result["results"].items():
        rows.append(row(name, r))
        if same := r.get("original_same_documents"):
            rows.append(row(f"original text, the same {same['documents']} documents", same))
    head = ["text attacked", "documents", "top-1", "95% interval", f"top-{k}", "95% interval", "MRR"]
    return [("Re-identification attack", head, rows)]


def dp_tables(result: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the DP paraphraser's distinguishing attack."""
    head = ["epsilon per token", "pair", "nominal epsilon", "measured lower bound", "FPR", "FNR"]
    rows = [
        [
            f"{r['epsilon_token']:g}",
            str(r["pair"]),
            f"{r['epsilon_nominal']:g}",
            f"{r['epsilon_lower_bound']:.2f}",
            _rate(r["false_positive_rate"]),
            _rate(r["false_negative_rate"]),
        ]
        for r in result["results"]
    ]
    return [("DP paraphraser: distinguishing attack", head, rows)]


#: the report's sections, in order, with their tables
SECTIONS = {"canary": canary_tables, "reid": reid_tables, "dp": dp_tables}


def summary_lines(report: dict) -> list[str]:
    """What was measured, in sentences."""
    lines = [f"Configuration: {json.dumps(report.get('configuration', {}), sort_keys=True)}."]
    if canary := report.get("canary"):
        estimate, kind = canary["estimate"], canary["estimate"]["kind"]
        counted, named = canary["by_kind"][kind]["canaries"], _KIND_TITLES[kind].lower()
        locales = ", ".join(canary.get("locales") or ["of the default"])
        types = ", ".join(canary.get("canary_types") or ["those of the audit"])
        if estimate["token_recall"] is None:
            why = (
                "the reference replaced no span of a canary type in the sample"
                if kind == "in_place"
                else "no canary sentence was inserted"
            )
            recall = f"no estimate: no {named} canary was made ({why})"
        else:
            recall = f"{_rate(estimate['token_recall'])} (95% interval {_interval(estimate['interval'])})"
        copies = f"{canary['copies_per_document']} cop{'y' if canary['copies_per_document'] == 1 else 'ies'}"
        lines.append(
            f"Canary recall, the estimate: {recall}, from the {counted} {named} canaries "
            f"of {canary['all']['canaries']} made in {canary['documents_sampled']} of "
            f"{canary['documents_in_corpus']} documents ({copies} each); "
            f"{estimate['method']} ({_weights(canary) or 'the canaries pooled: no type found has one'}); "
            f"canary types {types}; canary names and places from the locales {locales}."
        )
    if reid := report.get("reid"):
        original = reid["results"]["original text"]
        lines.append(
            f"Re-identification: {reid['attacker']}; {original['documents']} documents of "
            f"{reid['people_with_two_or_more']} people attacked among {reid['people']} candidates; "
            f"chance top-1 {_rate(reid['chance']['top1'])}, original text top-1 {_rate(original['top1'])}."
        )
    if dp := report.get("dp"):
        proved = max(r["epsilon_lower_bound"] for r in dp["results"])
        lines.append(
            f"DP paraphraser: {dp['attack']}; {dp['trials']} outputs of each of {dp['pairs']} pairs per "
            f"epsilon; the largest epsilon proved at 95% confidence is {proved:.2f}."
        )
    return lines


def _weights(canary: dict) -> str:
    """The type weights the estimate used: the type mix over the types its canaries cover, renormalised."""
    covered = canary["by_kind_and_type"][canary["estimate"]["kind"]]
    used = {label: w for label, w in canary["detected_type_mix"].items() if label in covered}
    total = sum(used.values())
    return ", ".join(f"{label} {_rate(w / total)}" for label, w in used.items()) if total else ""


def markdown(report: dict, plots: dict[str, str]) -> str:
    parts = ["# deid-hf audit", "", f"deid-hf {report['version']}.", ""]
    parts += [f"- {line}" for line in summary_lines(report)] + [""]
    for section, tables in SECTIONS.items():
        if section not in report:
            continue
        for title, head, rows in tables(report[section]):
            parts += [f"## {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            parts += ["| " + " | ".join(row) + " |" for row in rows] + [""]
        if section in plots:
            parts += [f"![{section}]({plots[section]})", ""]
        parts += ["Not covered:", ""] + [f"- {item}" for item in report[section]["not_covered"]] + [""]
    return "\n".join(parts)


def html_page(report: dict, images: dict[str, bytes]) -> str:
    esc = html.escape
    body = [f"<h1>deid-hf audit</h1><p>deid-hf {esc(report['version'])}</p><ul>"]
    body += [f"<li>{esc(line)}</li>" for line in summary_lines(report)] + ["</ul>"]
    for section, tables in SECTIONS.items():
        if section not in report:
            continue
        for title, head, rows in tables(report[section]):
            body.append(
                f"<h2>{esc(title)}</h2><table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
            )
            body += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows]
            body.append("</table>")
        if section in images:
            data = base64.b64encode(images[section]).decode()
            body.append(f'<img alt="{section}" src="data:image/png;base64,{data}">')
        body.append(
            "<p>Not covered:</p><ul>" + "".join(f"<li>{esc(i)}</li>" for i in report[section]["not_covered"])
        )
        body.append("</ul>")
    style = "body{font-family:sans-serif;max-width:60em;margin:auto}td,th{padding:2px 8px;text-align:right}"
    head = f"<meta charset='utf-8'><title>deid-hf audit</title><style>{style}</style>"
    return f"<!doctype html><html><head>{head}</head><body>{''.join(body)}</body></html>"


def _figure_png(draw) -> bytes:
    from ..extras import extra

    with extra("eval", "the audit report's plots"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.5))
    draw(ax)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def canary_plot(result: dict) -> bytes:
    """Token recall of the estimate's canaries by type, with the 95% intervals."""
    counted = result["by_kind_and_type"][result["estimate"]["kind"]]
    labels = list(counted)
    values = [counted[label]["token_recall"] or 0.0 for label in labels]
    intervals = [counted[label]["token_recall_interval"] or [v, v] for label, v in zip(labels, values)]
    errors = [
        [v - lo for v, (lo, _) in zip(values, intervals)],
        [hi - v for v, (_, hi) in zip(values, intervals)],
    ]

    def draw(ax):
        ax.bar(labels, values, yerr=errors, capsize=3, color="#4c72b0")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("canary token recall")
        ax.tick_params(axis="x", rotation=45)

    return _figure_png(draw)


def reid_plot(result: dict) -> bytes:
    """Top-1 and top-k accuracy of the attack on each text, beside chance."""
    k, names = result["k"], list(result["results"])
    top1 = [result["results"][n]["top1"] for n in names]
    topk = [result["results"][n][f"top{k}"] for n in names]

    def draw(ax):
        at = range(len(names))
        ax.bar([x - 0.2 for x in at], top1, width=0.4, label="top-1")
        ax.bar([x + 0.2 for x in at], topk, width=0.4, label=f"top-{k}")
        ax.axhline(result["chance"]["top1"], color="black", linestyle=":", label="chance top-1")
        ax.axhline(result["chance"][f"top{k}"], color="grey", linestyle="--", label=f"chance top-{k}")
        ax.set_xticks(list(at), names, rotation=20, ha="right")
        ax.set_ylim(0, 1.0)
        ax.set_ylabel("attack accuracy")
        ax.legend(fontsize=7)

    return _figure_png(draw)


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def check_report_folder(out: str | Path) -> Path:
    """The report folder, checked before an audit spends its time: not a file, and under a folder."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"the report folder {out} is a file: name a folder")
    parent = next((p for p in out.absolute().parents if p.exists()), None)
    if parent is None or not parent.is_dir():
        raise InputError(f"the report folder {out} cannot be made: {parent} is no folder")
    if not os.access(parent, os.W_OK):
        raise InputError(f"the report folder {out} cannot be made: {parent} is not writable")
    return out


def write_audit_report(out: str | Path, sections: dict, configuration: dict | None = None) -> dict[str, Path]:
    """Write ``sections`` (``{"canary": run_canary_audit(...), "reid": run_reid_audit(...), "dp":
    run_dp_audit(...)}``, any of them) as ``audit.json``, ``audit.md``, ``audit.html`` and one PNG per
    plotted section into the folder ``out``; returns the paths. Without matplotlib (``deid-hf[eval]``) the
    plots are left out, and the report says so."""
    out = check_report_folder(out)
    if not set(SECTIONS) & set(sections):
        raise InputError("nothing to report: run the canary, reid or dp audit")
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "version": __version__,
        "configuration": reportable_configuration(configuration or {}),
        **sections,
    }
    if "canary" in report and "reid" in report:  # the canary section need not point to the report's own
        canary = report["canary"]
        report["canary"] = {**canary, "not_covered": [i for i in canary["not_covered"] if i != LEFT_TO_REID]}
    images, plots, written = {}, {}, {}
    for name, draw in (("canary", canary_plot), ("reid", reid_plot)):
        if name in sections:
            try:
                images[name] = draw(sections[name])
            except MissingExtraError as exc:
                report.setdefault("notes", []).append(f"no plots: {exc}")
                continue
            plots[name] = f"audit_{name}.png"
            written[name] = out / plots[name]
            _write_atomically(written[name], images[name])
    for suffix, content in (
        ("json", json.dumps(report, indent=2)),
        ("md", markdown(report, plots)),
        ("html", html_page(report, images)),
    ):
        written[suffix] = out / f"audit.{suffix}"
        _write_atomically(written[suffix], content.encode("utf-8"))
    return written
