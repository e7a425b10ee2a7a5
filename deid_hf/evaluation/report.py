"""`deid-hf evaluate report`: detection table, utility table per strategy with each row's privacy
parameter, and the privacy-utility trade-off over p (as Adelani et al. Figure 1) in Markdown, HTML and PNG."""

from __future__ import annotations

import html
import json
import random
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..extras import extra
from ..privacy.report import PrivacyReport
from .utility import (
    Example,
    GoldSpanDetector,
    TrainConfig,
    deidentify_examples,
    load_conll,
    load_snips,
    summarise,
    train_and_test,
)


@dataclass
class UtilitySetup:
    task: str  # "intent" or "ner"
    name: str
    train: list[Example]
    test: list[Example]


def load_setup(
    dataset: str, data_root: Path, train_size: int | None, test_size: int | None, seed: int = 0
) -> UtilitySetup:
    """SNIPS intent, BTC NER (sections a, b, e, f, g train; h test) or WNUT17 NER, optionally subsampled."""
    if dataset == "snips":
        task, train, test = (
            "intent",
            load_snips(data_root / "snips_slotgated", "train"),
            load_snips(data_root / "snips_slotgated", "test"),
        )
    elif dataset == "btc":
        folder = data_root / "btc_broad_twitter_corpus"
        task, train, test = (
            "ner",
            load_conll([folder / f"{s}.conll" for s in "abefg"]),
            load_conll([folder / "h.conll"]),
        )
    elif dataset == "wnut17":
        folder = data_root / "wnut17"
        task, train, test = (
            "ner",
            load_conll([folder / "wnut17train.conll"]),
            load_conll([folder / "emerging.test.annotated"]),
        )
    else:
        raise ValueError(f"unknown utility data set {dataset!r}: snips, btc or wnut17")
    rng = random.Random(seed)
    if train_size and train_size < len(train):
        train = rng.sample(train, train_size)
    if test_size and test_size < len(test):
        test = rng.sample(test, test_size)
    return UtilitySetup(task, dataset, train, test)


def utility_rows(
    setup: UtilitySetup,
    make_pipe: Callable,
    strategies: Sequence[str],
    detectors: Sequence[str],
    seeds: Sequence[int],
    config: TrainConfig,
    p: float = 1.0,
    with_original: bool = True,
    progress: Callable[[str], None] = print,
) -> list[dict]:
    """One row per (strategy, detector) and the original-data row; metric mean +- std over seeds."""
    rows = []
    if with_original:
        progress(f"{setup.name}: original training data")
        scores = [
            train_and_test(setup.task, setup.train, setup.test, seed=s, config=config)["score"] for s in seeds
        ]
        rows.append(
            {
                "data": setup.name,
                "strategy": "original",
                "detector": "-",
                "p": None,
                "privacy": "none (original text)",
                **summarise(scores),
            }
        )
    for detector in detectors:
        for strategy in strategies:
            progress(f"{setup.name}: {strategy} with {detector} spans, p = {p}")
            pipe = make_pipe(strategy, GoldSpanDetector(setup.train) if detector == "gold" else detector)
            scores, privacy = [], None
            for seed in seeds:
                train, privacy = deidentify_examples(pipe, setup.train, p=p, seed=seed)
                scores.append(
                    train_and_test(setup.task, train, setup.test, seed=seed, config=config)["score"]
                )
            rows.append(
                {
                    "data": setup.name,
                    "strategy": strategy,
                    "detector": detector,
                    "p": p,
                    "privacy": privacy_label(privacy),
                    **summarise(scores),
                }
            )
    return rows


def privacy_label(privacy: PrivacyReport | dict) -> str:
    """`PrivacyReport.label` of a report or its ``to_dict()`` form."""
    report = privacy if isinstance(privacy, PrivacyReport) else PrivacyReport.from_dict(privacy)
    return report.label


def _plot_tradeoff(plt, path: Path, utility: list[dict], curve: list[dict]) -> None:
    """The trade-off plot (``plt``: matplotlib.pyplot): score over p per strategy, each point annotated with
    its privacy, beside the original model's score."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for strategy in sorted({r["strategy"] for r in curve}):
        points = sorted((r["p"], r["mean"], r["std"]) for r in curve if r["strategy"] == strategy)
        ax.errorbar(
            [x[0] for x in points],
            [x[1] for x in points],
            yerr=[x[2] for x in points],
            marker="o",
            capsize=3,
            label=strategy,
        )
    for r in curve:
        ax.annotate(
            r["privacy"].replace("epsilon", "ε"),
            (r["p"], r["mean"]),
            fontsize=7,
            textcoords="offset points",
            xytext=(0, 6),
            ha="center",
        )
    original = next(
        (r for r in utility if r["strategy"] == "original" and r["data"] == curve[0]["data"]), None
    )
    if original:
        ax.axhline(original["mean"], color="grey", linestyle="--", label="original")
    ax.set_xlabel("p (probability a detected item is replaced)")
    ax.set_ylabel("test score")
    ax.set_title(f"privacy-utility trade-off, {curve[0]['data']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _report_tables(detection: dict | None, utility: list[dict], curve: list[dict]) -> list[tuple]:
    """(title, header, rows) of every table of the report."""
    tables = []
    if detection:
        rows = [
            [k, "-" if v is None else f"{v:.3f}"]
            for k, v in detection.items()
            if k in ("token_precision", "token_recall", "token_f1", "entities_fully_protected", "leakage")
        ]
        tables.append(("Detection", ["metric", "value"], rows))
    tables.append(
        (
            "Downstream utility (mean ± std over seeds)",
            ["data", "strategy", "detector", "p", "privacy", "score"],
            [
                [
                    r["data"],
                    r["strategy"],
                    r["detector"],
                    "-" if r["p"] is None else r["p"],
                    r["privacy"],
                    f"{r['mean']:.3f} ± {r['std']:.3f}",
                ]
                for r in utility
            ],
        )
    )
    if curve:
        tables.append(
            (
                "Trade-off over p",
                ["data", "strategy", "p", "privacy", "score"],
                [
                    [r["data"], r["strategy"], r["p"], r["privacy"], f"{r['mean']:.3f} ± {r['std']:.3f}"]
                    for r in curve
                ],
            )
        )
    return tables


def _markdown(tables: list[tuple], with_plot: bool) -> str:
    md = ["# deid-hf evaluation report", ""]
    for title, header, rows in tables:
        md += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        md += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows] + [""]
    if with_plot:
        md += ["![privacy-utility trade-off](tradeoff.png)", ""]
    return "\n".join(md)


def _html(tables: list[tuple], with_plot: bool) -> str:
    body = [
        f"<h2>{html.escape(title)}</h2><table><tr>"
        + "".join(f"<th>{html.escape(h)}</th>" for h in header)
        + "</tr>"
        + "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
        + "</table>"
        for title, header, rows in tables
    ]
    if with_plot:
        body.append('<h2>Privacy-utility trade-off</h2><img src="tradeoff.png" alt="trade-off plot">')
    style = (
        "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #bbb;padding:4px 8px;text-align:left}th{background:#eee}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>deid-hf report"
        f"</title><style>{style}</style></head><body><h1>deid-hf evaluation report"
        f"</h1>{''.join(body)}</body></html>"
    )


def write_report(out: Path, detection: dict | None, utility: list[dict], curve: list[dict]) -> dict:
    """report.md, report.html, tradeoff.png (and report.json) in ``out``."""
    with extra("eval", "the report's plot"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    if curve:
        _plot_tradeoff(plt, out / "tradeoff.png", utility, curve)
    tables = _report_tables(detection, utility, curve)
    (out / "report.md").write_text(_markdown(tables, bool(curve)))
    (out / "report.html").write_text(_html(tables, bool(curve)))
    payload = {"detection": detection, "utility": utility, "curve": curve}
    (out / "report.json").write_text(json.dumps(payload, indent=2))
    return payload


def screenshot(html_path: Path, png_path: Path) -> Path:
    """Render the HTML report in headless Chromium (Debian package ``chromium``) to a PNG."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise FileNotFoundError("headless Chromium is not installed: apt-get install -y chromium")
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--screenshot={png_path}",
            "--window-size=1100,1400",
            html_path.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return png_path
