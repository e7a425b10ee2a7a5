"""The console every `deid-hf` command prints to."""

from __future__ import annotations

from rich.console import Console

#: messages are never wrapped (logs and pipes get whole lines; a terminal wraps them itself); tables still fit
#: the terminal width
console = Console(soft_wrap=True)
