"""Rule 13, two clocks: what a call of the candidate costs beside what its kernel costs.

A time is on the *kernel clock* when the device alone sets it (``median_us`` of a row timed
``cudagraph``: one graph replay after an L2 flush; a profiler's device timer) and on the *call
clock* when a call from the host is inside it (``eager_median_us``; ``median_us`` of a row timed
``eager_event``). Per shape (rows above a roof, rule 9, left out):

* call gap = the candidate's call time - the least call time of a usable baseline;
* a *launch shape* is a measured shape whose candidate graph time is below 1.25 x ``floor_us`` or
  whose call time is within 10 % of its least call time over the measured shapes (its plateau);
* ``launch_overhead_us`` = [median call gap over the launch shapes, n] (None without one);
* ``launch_bound_shapes`` = [k, n]: of the n measured shapes with both times, k whose call time
  exceeds twice the graph time.

The headline pair's clock compares its candidate time with the device timer of its profiled
kernel (the bundle's kernel trace): ``call`` when the pair is over 2 x the timer and the launch
overhead is at least half the pair's time, ``unchecked`` when a figure is missing or the pair is
under 0.8 x the timer (another shape was traced), else ``kernel``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from generator.analyze.verdicts.rules import FLOOR_FACTOR, median
from generator.read.campaign import ResultRow

#: A candidate call within this factor of its least call time sits on its plateau (a launch shape).
PLATEAU_FACTOR = 1.10
#: A call costing more than this multiple of the graph time is launch-bound.
LAUNCH_BOUND_FACTOR = 2.0
#: The pair is on the call clock above this multiple of its device timer (with the overhead below).
PAIR_CALL_FACTOR = 2.0
#: ... and when the launch overhead is at least this share of the pair's candidate time.
PAIR_OVERHEAD_SHARE = 0.5
#: Below this multiple of its device timer the pair timed another shape than the trace: unchecked.
PAIR_OTHER_SHAPE = 0.8
#: The clocks a campaign, a pair or a number can be on.
KERNEL, CALL, UNCHECKED = "kernel", "call", "unchecked"
#: Timing methods whose ``median_us`` is a graph replay (the kernel clock).
GRAPH_METHODS = frozenset({"cudagraph", "hipgraph", "graph"})
#: Timing methods whose ``median_us`` is a host call between two events (the call clock).
EVENT_METHODS = frozenset({"eager_event", "event", "hip_event", "cuda_event"})


def call_time(row: ResultRow | None) -> float | None:
    """The row's time on the call clock: ``median_us`` when timed with events, else ``eager_median_us``."""
    if row is None or not row.usable:
        return None
    if row.timing_method in EVENT_METHODS:
        return row.median_us
    return row.eager_median_us if row.eager_median_us and row.eager_median_us > 0 else None


def graph_time(row: ResultRow | None) -> float | None:
    """The row's time on the kernel clock: ``median_us`` of a graph replay, else None."""
    if row is None or not row.usable or row.timing_method not in GRAPH_METHODS:
        return None
    return row.median_us


@dataclass(frozen=True)
class ShapeClocks:
    """One shape's two clocks: the candidate's call and graph times, the fastest baseline call."""

    candidate_call_us: float | None
    candidate_graph_us: float | None
    best_call_us: float | None
    best_call_baseline: str | None

    @property
    def call_gap_us(self) -> float | None:
        """What a call of the candidate costs more than the fastest baseline's call."""
        if self.candidate_call_us is None or self.best_call_us is None:
            return None
        return self.candidate_call_us - self.best_call_us


NO_CLOCKS = ShapeClocks(None, None, None, None)


def shape_clocks(chosen: Mapping[str, ResultRow], candidate: str, above_roof: Iterable[str]) -> ShapeClocks:
    """The clocks of one shape from its chosen rows; providers above a roof are left out."""
    flagged = set(above_roof)
    if candidate in flagged:
        return NO_CLOCKS
    cand = chosen.get(candidate)
    best, best_p = None, None
    for p, row in chosen.items():
        t = call_time(row) if p != candidate and p not in flagged else None
        if t is not None and (best is None or t < best):
            best, best_p = t, p
    return ShapeClocks(call_time(cand), graph_time(cand), best, best_p)


def launch_shapes(shapes: Sequence["ShapeResult"], floor_us: float | None) -> list["ShapeResult"]:
    """The measured shapes with a call gap where the kernel cannot hide the launch path."""
    timed = [s for s in shapes if s.measured and s.clocks.candidate_call_us is not None]
    if not timed:
        return []
    plateau = PLATEAU_FACTOR * min(s.clocks.candidate_call_us for s in timed)
    out = []
    for s in timed:
        graph = s.clocks.candidate_graph_us
        small = floor_us is not None and graph is not None and graph < FLOOR_FACTOR * floor_us
        if s.clocks.call_gap_us is not None and (small or s.clocks.candidate_call_us <= plateau):
            out.append(s)
    return out


def launch_overhead(launch: Sequence["ShapeResult"]) -> list | None:
    """[median call gap over the launch shapes, n], None without a launch shape."""
    return [median(s.clocks.call_gap_us for s in launch), len(launch)] if launch else None


def launch_bound(shapes: Sequence["ShapeResult"]) -> list[int]:
    """[k, n]: of the n measured shapes with both times, the k whose call exceeds 2 x the graph time."""
    both = [s.clocks for s in shapes if s.measured and s.clocks.candidate_call_us is not None
            and s.clocks.candidate_graph_us is not None]
    return [sum(1 for c in both if c.candidate_call_us > LAUNCH_BOUND_FACTOR * c.candidate_graph_us), len(both)]


def pair_clock(pair_us: float | None, device_us: float | None, overhead: list | None) -> str:
    """``call`` / ``kernel`` / ``unchecked`` for a headline pair's candidate time (see the module)."""
    if pair_us is None or device_us is None or overhead is None:
        return UNCHECKED
    if pair_us < PAIR_OTHER_SHAPE * device_us:
        return UNCHECKED
    if pair_us > PAIR_CALL_FACTOR * device_us and overhead[0] >= PAIR_OVERHEAD_SHARE * pair_us:
        return CALL
    return KERNEL


#: A report or metadata sentence naming event timing, and one naming a graph replay.
_EVENTS = re.compile(r"\b(?:hip|cuda)?\s*event[s]?\s+timing|\b(?:hip|cuda)event|\beager_event\b|\bevent-timed\b",
                     re.IGNORECASE)
_GRAPH = re.compile(r"graph", re.IGNORECASE)


def texts_clock(texts: Iterable[str]) -> str | None:
    """``call`` when the campaign's reports or metadata name event timing and no graph, else None."""
    texts = list(texts)
    if any(_EVENTS.search(t) for t in texts) and not any(_GRAPH.search(t) for t in texts):
        return CALL
    return None


def rows_clock(rows: Iterable[ResultRow]) -> str | None:
    """``call`` when every timed row of the campaign says it was timed with events, ``kernel`` when
    one was graph-replayed, None when no row names its method."""
    methods = {r.timing_method for r in rows if r.timing_method}
    if methods & GRAPH_METHODS:
        return KERNEL
    if methods and methods <= EVENT_METHODS:
        return CALL
    return None
