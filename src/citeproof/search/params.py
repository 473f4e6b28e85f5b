"""What a search may be asked: the engines, their limits, the date window, the query.

Checked before a request plan is built (:mod:`citeproof.search.engines`), so every parameter
an engine cannot use is refused as bad input while nothing has been sent.  Pure.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

from citeproof.errors import SearchDateError, SearchInputError, SearchLimitError, UnknownEngineError

__all__ = [
    "DEFAULT_LIMIT",
    "ENGINES",
    "MAX_QUERY_CHARS",
    "DateBound",
    "Engine",
    "check_limit",
    "check_query",
    "date_window",
    "engine_name",
    "max_limit",
    "parse_date",
]

Engine = Literal["europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"]


ENGINES: tuple[str, ...] = get_args(Engine)


MAX_QUERY_CHARS = 2000


DEFAULT_LIMIT = 25


#: Most items one search may ask each engine for (the engine's own page limit).
_MAX_LIMIT: dict[str, int] = {
    "europepmc": 1000,
    "pubmed": 10_000,
    "litsense": 100,
    "openalex": 200,
    "clinicaltrials": 1000,
    "openfda": 1000,
}


_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?", re.ASCII)


@dataclass(frozen=True, slots=True)
class DateBound:
    """A ``--since``/``--until`` value: as given, and the first and last day it covers."""

    text: str
    first: date
    last: date

    @property
    def eutils(self) -> str:
        """``2015``, ``2015/06`` or ``2015/06/30``: E-utilities keep the given precision."""
        return self.text.replace("-", "/")


def parse_date(value: str, option: str) -> DateBound:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` as a :class:`DateBound`."""
    text = value.strip()
    match = _DATE.fullmatch(text)
    problem = None
    if match is None:
        problem = "is not a date"
    else:
        year = int(match.group(1))
        month = int(match.group(2)) if match.group(2) else None
        day = int(match.group(3)) if match.group(3) else None
        try:
            if month is None:
                return DateBound(text, date(year, 1, 1), date(year, 12, 31))
            if day is None:
                last = calendar.monthrange(year, month)[1]
                return DateBound(text, date(year, month, 1), date(year, month, last))
            day_value = date(year, month, day)
            return DateBound(text, day_value, day_value)
        except (ValueError, calendar.IllegalMonthError):
            problem = "is not a real date"
    raise SearchDateError(
        f"{option} {value!r} {problem}; give YYYY, YYYY-MM or YYYY-MM-DD (e.g. 2015-06-30)."
    )


def date_window(since: str | None, until: str | None) -> tuple[DateBound | None, DateBound | None]:
    low = parse_date(since, "--since") if since is not None else None
    high = parse_date(until, "--until") if until is not None else None
    if low is not None and high is not None and low.first > high.last:
        raise SearchDateError(
            f"--since {since} is after --until {until}; swap them or widen the range."
        )
    return low, high


def max_limit(engine: str) -> int:
    return _MAX_LIMIT[engine_name(engine)]


def engine_name(engine: str) -> str:
    name = engine.strip().lower()
    if name not in _MAX_LIMIT:
        raise UnknownEngineError(
            f"{engine!r} is not a search engine citeproof knows; use one of {', '.join(ENGINES)}."
        )
    return name


def check_limit(engine: str, limit: int) -> None:
    top = _MAX_LIMIT[engine]
    if not 1 <= limit <= top:
        raise SearchLimitError(f"--limit {limit} is out of range for {engine}; give 1 to {top}.")


def check_query(query: str) -> str:
    if not query.strip():
        raise SearchInputError("the search query is empty; give the words to search for.")
    if len(query) > MAX_QUERY_CHARS:
        raise SearchInputError(
            f"the search query has {len(query)} characters, more than {MAX_QUERY_CHARS}; "
            "shorten it."
        )
    return query
