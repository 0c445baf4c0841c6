"""The overview's first screen (issue 34): the line that defines the ratio, its direction and its clock;
the counts named (kernels profiled / timed / both, ledger shapes / timed shapes); and the top of the sweep
reading ("What the sweep says"), its first groups linked to their place below."""

from __future__ import annotations

from collections import Counter
from dataclasses import field
from typing import Any, Sequence

from generator.analyze.message import msg
from generator.model import record
from generator.site import wording
from generator.site.views.next_step import SEVERITIES
from generator.site.views.measurement import METHODS

#: How many of the reading's groups the first screen lists.
HEAD_READING = 3
#: The clock a timing method reads, by the method's catalogue key (``measurement.METHODS``).
CLOCKS = {"measure.method.graph": "ov.clock.graph", "measure.method.eager": "ov.clock.eager"}


@record
class ReadingLink:
    """One group of the sweep reading on the first screen: its title and its anchor below."""

    said: wording.Said
    href: str
    kernels: wording.Said  # how many kernels the group names


@record
class SeverityCount:
    """How many HEADROOM kernels read one severity, linked to the table filtered to them."""

    level: str
    n: int
    href: str
    said: wording.Said


@record
class OverviewHead:
    """What the overview says before any long table."""

    metric: wording.Said | None
    counts: wording.Said | None
    reading: list[ReadingLink] = field(default_factory=list)
    n_reading: int = 0
    severity: list[SeverityCount] = field(default_factory=list)  # the tune / rewrite split


def reading_anchor(i: int) -> str:
    """The id of the reading's ``i``-th group (from 1)."""
    return f"reading-{i}"


def main_clock(rows: Sequence[Any]) -> str:
    """The catalogue key of the clock most counted rows were timed by (``ov.clock.*``)."""
    methods: Counter[str] = Counter()
    for r in rows:
        for m, _cache, n in (r.timing or {}).get("methods", []):
            methods[METHODS.get(m, "")] += n
    if not methods:
        return "ov.clock.none"
    key = min(methods.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return CLOCKS.get(key, "ov.clock.other")


def metric_line(rows: Sequence[Any], candidate: str) -> wording.Said | None:
    """``ratio = best comparable baseline's time / flydsl's time ...; clock: ...``; None when nothing was timed."""
    if not any(r.timing for r in rows):
        return None
    return wording.said(msg("ov.metric", candidate=candidate, clock=msg(main_clock(rows))))


def counts_line(rows: Sequence[Any]) -> wording.Said:
    """The kernels and shapes, each count named by what it counts."""
    profiled = {r.slug for r in rows if r.n_captures}
    timed = {r.slug for r in rows if r.timing}
    ledger = sum(r.n_shapes or 0 for r in rows)
    timed_shapes = sum(r.timing["timed_shapes"] for r in rows if r.timing)
    return wording.said(msg("ov.counts", kernels=len(rows), profiled=len(profiled), timed=len(timed),
                            both=len(profiled & timed), ledger=f"{ledger:,}", shapes=f"{timed_shapes:,}"))


def severity_split(rows: Sequence[Any]) -> list[SeverityCount]:
    """The HEADROOM kernels by severity (near, tune, rewrite), each linked to the filtered table."""
    n = Counter(r.severity["level"] for r in rows if r.severity)
    return [SeverityCount(level, n[level], f"?severity={level}#kernels",
                          wording.said(msg("ov.head.sev", n=n[level], level=msg(f"diag.severity.{level}"))))
            for level in SEVERITIES if n[level]]


def overview_head(rows: Sequence[Any], candidate: str, reading: Sequence[dict[str, Any]]) -> OverviewHead:
    """The first screen's lines from the overview rows and the sweep reading's items."""
    links = [ReadingLink(item["title_said"], "#" + reading_anchor(i),
                         wording.said(msg("ov.head.kernels", n=len(item.get("kernels") or []))))
             for i, item in enumerate(list(reading)[:HEAD_READING], 1)]
    return OverviewHead(metric_line(rows, candidate), counts_line(rows) if rows else None, links, len(reading),
                        severity_split(rows))
