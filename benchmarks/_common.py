"""Shared helpers of the benchmark scripts: data location, table printing, JSON results."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"


def data_path(relative: str) -> Path:
    path = DATA / relative
    if not path.exists():
        sys.exit(f"evaluation data {path} is absent (it ships beside the repository, not in it)")
    return path


def print_table(rows: list[dict], columns: list[str]) -> None:
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    print(" | ".join(c.ljust(widths[c]) for c in columns))
    print("-|-".join("-" * widths[c] for c in columns))
    for row in rows:
        print(" | ".join(_fmt(row.get(c)).ljust(widths[c]) for c in columns))


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)


def run_info() -> dict:
    """What a table must carry: the command, commit, date and machine that produced it."""
    import datetime
    import os
    import platform
    import subprocess

    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "command": " ".join(["python", *sys.argv]),
        "commit": commit,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {platform.system()} "
        f"{platform.release()}",
    }


def write_results(name: str, payload: dict) -> Path:
    """``payload`` with `run_info` as ``results/<name>.json``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    info = run_info()
    path.write_text(json.dumps({"run": info, **payload}, indent=2))
    print(f"\n{info['command']} at {info['commit']}, {info['date']}, {info['machine']}")
    print(f"\nwrote {path}")
    return path
