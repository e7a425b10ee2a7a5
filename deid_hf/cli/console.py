"""The console every `deid-hf` command prints to."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

#: messages are never wrapped (logs and pipes get whole lines; a terminal wraps them itself); tables still fit
#: the terminal width
console = Console(soft_wrap=True)


def show_rows(table: Table, rows: list[dict], json_path: str | None) -> None:
    """Print ``table``; with ``json_path``, also write the ``rows`` behind it there as JSON."""
    console.print(table)
    if json_path:
        Path(json_path).write_text(json.dumps(rows, indent=2))
