"""Date shift: every date of a document moves by the same random number of days, so intervals between
dates survive; each date is written back in its own format (`deid_hf.replace.dates`). The offset is drawn
once per substitution table: per document, per group of documents (a patient's notes: the table's
``group_seed``, set by the pipeline for ``{"text", "group"}`` inputs), or per corpus with
``shared_table=True``. A date without a year moves the same way; a weekday name moves with the offset; a
month or a year alone moves with the middle of that month or year. Spans holding no calendar date (relative
expressions such as "in two weeks", times of day) are left as they are (not dates under HIPAA)."""

from __future__ import annotations

import random
from datetime import timedelta

from ..errors import InputError
from .base import Strategy
from .dates import rewrite_date_span


class DateShift(Strategy):
    name = "date_shift"

    def __init__(self, max_days: int = 365):
        if isinstance(max_days, bool) or not isinstance(max_days, int) or max_days < 1:
            raise InputError(f"date_shift max_days must be a positive integer, got {max_days!r}")
        self.max_days = max_days

    def offset(self, table, rng: random.Random) -> int:
        """The table's offset in days: uniform on [-max_days, -1] and [1, max_days], drawn on first use
        (from the table's ``group_seed`` when it has one, so every document of the group agrees)."""
        if "date_offset" not in table.state:
            if "group_seed" in table.state:
                rng = random.Random(f"date_shift:{table.state['group_seed']}")
            days = rng.randint(1, self.max_days)
            table.state["date_offset"] = days if rng.random() < 0.5 else -days
        return table.state["date_offset"]

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        shift = timedelta(days=self.offset(table, rng))
        return rewrite_date_span(text, start, end, lambda old, has_year: old + shift)

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        raise InputError("date_shift needs the document's substitution table: use it through a pipeline")

    def no_guarantee_reason(self) -> str:
        return (
            "date shifting keeps every interval between dates and the shifted date depends on the original "
            "(one offset per document reveals all dates once one is known)"
        )
