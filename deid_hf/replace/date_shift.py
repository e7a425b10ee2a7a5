"""Date shift: every date of a document moves by the same random number of days, so intervals between
dates survive; each date is written back in its own format (`deid_hf.replace.dates`). The offset is drawn
once per substitution table: per document, per group of documents (a patient's notes: the table's
``group_seed``, set by the pipeline for ``{"text", "group"}`` inputs), or per corpus with
``shared_table=True``. A date without a year moves the same way; a weekday name moves with the offset; a
month or a year alone moves with the middle of that month or year. Spans holding no calendar date (relative
expressions such as "in two weeks", times of day) are left as they are (not dates under HIPAA).
`full_entity` shifts dates the same way by default (one offset per table, shared with this operator)."""

from __future__ import annotations

import random
from datetime import date, timedelta

from ..errors import InputError
from .base import Strategy
from .dates import rewrite_date_span, unread_date_redrawn
from .names import drawn_once


def check_max_days(max_days) -> int:
    if isinstance(max_days, bool) or not isinstance(max_days, int) or max_days < 1:
        raise InputError(f"date_shift max_days must be a positive integer, got {max_days!r}")
    return max_days


def date_offset(table, rng: random.Random, max_days: int) -> int:
    """The table's offset in days: uniform on [-max_days, -1] and [1, max_days], drawn on first use (from
    the table's ``group_seed`` when it has one, so every document of the group agrees); without a table,
    a fresh one."""
    if table is None:
        days = rng.randint(1, max_days)
        return days if rng.random() < 0.5 else -days
    if "date_offset" not in table.state:
        if "group_seed" in table.state:
            rng = random.Random(f"date_shift:{table.state['group_seed']}")
        days = rng.randint(1, max_days)
        table.state["date_offset"] = days if rng.random() < 0.5 else -days
    return table.state["date_offset"]


def shift_date_span(text: str, start: int, end: int, rng: random.Random, table, max_days: int) -> str | None:
    """``text[start:end]`` with every date moved by the table's offset, in its own format; None without a
    calendar date."""
    shift = timedelta(days=date_offset(table, rng, max_days))
    return rewrite_date_span(text, start, end, lambda old, has_year: _shifted(old, shift))


def _shifted(old: date, shift: timedelta) -> date:
    """``old`` moved by ``shift``; the other way at the ends of the calendar (year 1 or 9999)."""
    try:
        return old + shift
    except OverflowError:
        return old - shift


class DateShift(Strategy):
    name = "date_shift"

    def __init__(self, max_days: int = 365):
        self.max_days = check_max_days(max_days)

    def replace(self, text: str, start: int, end: int, label: str, rng: random.Random, table) -> str | None:
        """The date shifted; a date it cannot read ("12 janvier 1956", `dates.unread_date_redrawn`) with its
        numbers redrawn, once per table; kept without a calendar date ("118 days", "in two weeks")."""
        shifted = shift_date_span(text, start, end, rng, table, self.max_days)
        if shifted is not None:
            return shifted
        original = text[start:end]
        if table is None:
            return unread_date_redrawn(original, rng)
        return drawn_once(
            table, ("DATE_TIME unread", original), lambda r: unread_date_redrawn(original, r), rng
        )

    def surrogate(self, original: str, label: str, rng: random.Random) -> str:
        raise InputError("date_shift needs the document's substitution table: use it through a pipeline")

    def no_guarantee_reason(self) -> str:
        return (
            "date shifting keeps every interval between dates and the shifted date depends on the original "
            "(one offset per document reveals all dates once one is known)"
        )
