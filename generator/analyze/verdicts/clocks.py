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
  exceeds twice the graph time;
* ``launch_path_us`` = [median over the launch shapes of the call gap less the kernel gap (the candidate's
  graph time - that baseline's), n]: what is left of the gap once the kernel clock has taken its part, each
  side's (call - graph) compared, so work both clocks time (a baseline's wider scope) cancels. Its
  *reading* says what the call gap may be called: ``launch`` (at least the gap, a lower bound), ``kernel``
  (most of the gap is on the kernel clock: not launch overhead), ``small`` (under ``MIN_OVERHEAD_US``: the
  measured gap, nothing more), ``scope`` (against a baseline whose call times other work, a gap that is
  small or that no launch path can check).

The headline pair's clock compares its candidate time with the device timer of its profiled
kernel (the bundle's kernel trace): ``call`` when the pair is over 2 x the timer and the launch
overhead is at least half the pair's time, ``unchecked`` when a figure is missing or the pair is
under 0.8 x the timer (another shape was traced), else ``kernel``.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from generator.analyze.verdicts.rules import FLOOR_FACTOR, median
from generator.model import record
from generator.read.campaign_rows import ResultRow

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
#: A smaller launch overhead (us) is no finding: within the harness's own call-to-call spread.
MIN_OVERHEAD_US = 5.0
#: A call gap whose launch path is under this share of it is mostly kernel time: not called launch overhead.
PATH_SHARE = 0.5
#: What a campaign's call gap may be called (``launch_reading``).
READ_LAUNCH, READ_KERNEL, READ_SMALL, READ_SCOPE = "launch", "kernel", "small", "scope"
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


@record(frozen=True)
class ShapeClocks:
    """One shape's two clocks: the candidate's call and graph times, the fastest baseline call."""

    candidate_call_us: float | None
    candidate_graph_us: float | None
    best_call_us: float | None
    best_call_baseline: str | None
    best_call_graph_us: float | None = None  # the graph time of that baseline's row

    @property
    def call_gap_us(self) -> float | None:
        """What a call of the candidate costs more than the fastest baseline's call."""
        if self.candidate_call_us is None or self.best_call_us is None:
            return None
        return self.candidate_call_us - self.best_call_us

    @property
    def launch_path_us(self) -> float | None:
        """The call gap less the kernel gap: (candidate call - graph) - (that baseline's call - graph)."""
        gap = self.call_gap_us
        if gap is None or self.candidate_graph_us is None or self.best_call_graph_us is None:
            return None
        return gap - (self.candidate_graph_us - self.best_call_graph_us)


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
    return ShapeClocks(call_time(cand), graph_time(cand), best, best_p,
                       graph_time(chosen[best_p]) if best_p is not None else None)


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


def launch_scope_differs(launch: Sequence["ShapeResult"]) -> bool:
    """Whether the fastest baseline call of most launch shapes times other work than the candidate's (rule 8:
    moe_gemm's aiter ``fused_moe`` times routing and sorting too): no launch overhead can be read from it."""
    other = sum(1 for s in launch if s.clocks.best_call_baseline is not None
                and s.providers[s.clocks.best_call_baseline].like_for_like is False)
    return bool(launch) and 2 * other > len(launch)


def launch_path(launch: Sequence["ShapeResult"]) -> list | None:
    """[median launch path over the launch shapes where both sides have a graph time, n], None without one."""
    paths = [s.clocks.launch_path_us for s in launch if s.clocks.launch_path_us is not None]
    return [median(paths), len(paths)] if paths else None


def launch_reading(overhead: list | None, path: list | None, scope_differs: bool) -> str | None:
    """What the call gap may be called (see the module); None without a launch overhead.

    A gap of ``MIN_OVERHEAD_US`` or more is a launch overhead (at least the gap) where the launch path holds at
    least ``PATH_SHARE`` of it, or, against a baseline of the candidate's scope, where no graph time can tell.
    Against a baseline whose call times other work a gap is read only through the launch path: it compares
    each side's call with its own graph time, so work that both of that baseline's clocks time cancels
    (fused_rope_cache: +123.2 of +123.5 us); without it (no graph time, or a replay that misses work, rule 16)
    nothing is read.
    """
    if not overhead:
        return None
    if overhead[0] < MIN_OVERHEAD_US or (path is None and scope_differs):
        return READ_SCOPE if scope_differs else READ_SMALL
    if path is not None and path[0] < PATH_SHARE * overhead[0]:
        return READ_KERNEL
    return READ_LAUNCH


def measured_with_gap(shapes: Sequence["ShapeResult"]) -> int:
    """The measured shapes with a call gap: the set the launch shapes are chosen from."""
    return sum(1 for s in shapes if s.measured and s.clocks.candidate_call_us is not None
               and s.clocks.call_gap_us is not None)


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
