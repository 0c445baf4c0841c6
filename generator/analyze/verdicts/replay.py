"""When the graph replay is no kernel evidence: a capture that failed (rule 10), a replay that
misses work (rule 16).

* *Graph capture failed*: a measured shape whose candidate row fell back to ``eager_event`` (its
  ``graph_capture_error``) while a baseline was graph-replayed has no kernel-clock evidence. It
  leaves the verdict (rule 10 finds no comparable baseline there) and is counted as
  ``graph_capture_failed`` = [k, g]: g the geomean over those shapes of the least call time of a
  usable, like-for-like, unflagged baseline other than the reference, over the candidate's call
  time (call clock; None when no such row exists). Beside it, per shape, the candidate's call
  excess over its own median call on the other measured shapes.
* *Partial replay* (rule 16): over the candidate's usable graph-timed rows with a call time, take
  the shapes of least and largest call. When the call grows between them by more than 3 x the
  graph time's growth (a shrinking graph time counts as 0) and by more than 4 x ``floor_us``, and
  device evidence agrees (a candidate row above a roof anywhere in the campaign, or a graph-timed
  baseline at both shapes whose graph time grows by more than 3 x the candidate's), the replay
  does not time all the work: ``graph_partial``, and no verdict shape rests on the candidate's
  graph rows.
"""

from __future__ import annotations

import math
from typing import Sequence

from generator.analyze.verdicts.clocks import GRAPH_METHODS, call_time
from generator.analyze.verdicts.rules import EAGER_EVENT, geomean, median, same_kernel_clock
from generator.model import record

#: The call must grow by more than this multiple of the graph time's growth (rule 16) ...
CALL_GROWTH_FACTOR = 3.0
#: ... and by more than this multiple of the timing floor.
CALL_GROWTH_FLOORS = 4.0


@record(frozen=True)
class CaptureFailure:
    """One measured shape whose candidate could not be graph-captured (rule 10)."""

    shape_id: str
    args_text: str
    error: str | None  # the first line of ``graph_capture_error``
    call_us: float  # the candidate's call there
    excess_us: float | None  # over its median call on the other measured shapes
    baseline: str | None  # the baseline whose call is least (like-for-like, unflagged, not the reference)
    baseline_call_us: float | None

    def to_json(self) -> dict:
        return {"shape_id": self.shape_id, "args": self.args_text, "error": self.error, "call_us": self.call_us,
                "excess_us": self.excess_us, "baseline": self.baseline, "baseline_call_us": self.baseline_call_us}


def capture_failed(shape) -> bool:
    """The candidate fell back to eager events on a measured shape where a baseline was graph-replayed."""
    cand = shape.providers.get(shape.candidate)
    if not shape.measured or cand is None or cand.timing_method != EAGER_EVENT:
        return False
    return any(r.usable and r.timing_method in GRAPH_METHODS
               for p, r in shape.providers.items() if p != shape.candidate)


def capture_failures(shapes: Sequence, reference: str) -> list[CaptureFailure]:
    """Rule 10's graph-capture failures among the measured shapes, in ledger order."""
    failed = [s for s in shapes if capture_failed(s)]
    if not failed:
        return []
    others = [call_time(s.providers[s.candidate]) for s in shapes
              if s.measured and not capture_failed(s)]
    usual = median(t for t in others if t is not None)
    out = []
    for s in failed:
        cand = s.providers[s.candidate]
        call = call_time(cand)
        base, base_us = _least_call(s, reference)
        error = (cand.graph_capture_error or "").strip().splitlines()
        out.append(CaptureFailure(s.shape_id, s.args_text, error[0] if error else None, call,
                                  call - usual if usual is not None else None, base, base_us))
    return out


def _least_call(shape, reference: str) -> tuple[str | None, float | None]:
    """The usable baseline (not the reference, like-for-like, below every roof) whose call is least."""
    best = (None, None)
    for p, r in shape.providers.items():
        if p in (shape.candidate, reference) or not r.usable or r.like_for_like is False or r.above_roof:
            continue
        t = call_time(r)
        if t is not None and (best[1] is None or t < best[1]):
            best = (p, t)
    return best


def capture_failed_count(failures: Sequence[CaptureFailure]) -> list | None:
    """``graph_capture_failed`` = [k, geomean of baseline call / candidate call or None]; None for none."""
    if not failures:
        return None
    ratios = [f.baseline_call_us / f.call_us for f in failures if f.baseline_call_us and f.call_us]
    return [len(failures), geomean(ratios)]


@record(frozen=True)
class PartialReplay:
    """Rule 16's reading: the candidate's two shapes and how its call and graph times grow between them."""

    small: str  # shape ids: least and largest call
    large: str
    call_us: tuple[float, float]
    graph_us: tuple[float, float]
    evidence: str  # "above_roof" or the baseline whose graph time grows with the call

    @property
    def call_growth(self) -> float:
        return self.call_us[1] - self.call_us[0]

    @property
    def graph_growth(self) -> float:
        return max(0.0, self.graph_us[1] - self.graph_us[0])

    def to_json(self) -> dict:
        return {"small": self.small, "large": self.large, "call_us": list(self.call_us),
                "graph_us": list(self.graph_us), "evidence": self.evidence}


def partial_replay(shapes: Sequence, floor_us: float | None) -> PartialReplay | None:
    """Rule 16: the reading when the candidate's replay misses work, else None."""
    timed = []
    for s in shapes:
        r = s.providers.get(s.candidate)
        if r is not None and r.usable and r.timing_method in GRAPH_METHODS and r.eager_median_us \
                and r.eager_median_us > 0:
            timed.append((r.eager_median_us, s))
    if len(timed) < 2:
        return None
    lo = min(timed, key=lambda t: t[0])[1]
    hi = max(timed, key=lambda t: t[0])[1]
    a, b = lo.providers[lo.candidate], hi.providers[hi.candidate]
    call_growth = b.eager_median_us - a.eager_median_us
    graph_growth = max(0.0, b.median_us - a.median_us)
    if call_growth <= CALL_GROWTH_FACTOR * graph_growth or call_growth <= CALL_GROWTH_FLOORS * (floor_us or 0.0):
        return None
    evidence = _device_evidence(shapes, lo, hi, graph_growth)
    if evidence is None:
        return None
    return PartialReplay(lo.shape_id, hi.shape_id, (a.eager_median_us, b.eager_median_us),
                         (a.median_us, b.median_us), evidence)


def _device_evidence(shapes: Sequence, lo, hi, graph_growth: float) -> str | None:
    """What on the device agrees that work is missing: a candidate row above a roof anywhere in the
    campaign, or a graph-timed baseline at both shapes growing by more than 3 x the candidate's graph."""
    if any(s.candidate in s.above_roof for s in shapes):
        return "above_roof"
    for p, r in lo.providers.items():
        other = hi.providers.get(p)
        if p == lo.candidate or other is None:
            continue
        if r.usable and other.usable and r.timing_method in GRAPH_METHODS and other.timing_method in GRAPH_METHODS:
            if max(0.0, other.median_us - r.median_us) > CALL_GROWTH_FACTOR * graph_growth:
                return p
    return None


def drop_graph_evidence(shapes: Sequence) -> None:
    """Rule 16: the candidate's graph rows are no kernel evidence: no verdict baseline, no floor, no bound."""
    for s in shapes:
        r = s.providers.get(s.candidate)
        if r is not None and r.timing_method in GRAPH_METHODS:
            s.replay_partial = True
            s.verdict_baseline = s.verdict_candidate_us = s.verdict_baseline_us = None
            s.at_floor = False
            s.bound_speedup = None


def kernel_evidence(shapes: Sequence, graph_partial: bool) -> list:
    """The measured shapes whose speedup is a kernel-clock ratio no rule flags (rules 9, 10, 16): the
    candidate and its best baseline both graph-replayed, neither above a roof, the replay complete.
    What a "vs any baseline" number beside a verdict may rest on."""
    if graph_partial:
        return []
    out = []
    for s in shapes:
        cand, best = s.providers.get(s.candidate), s.providers.get(s.best_baseline or "")
        if s.measured and cand is not None and best is not None and same_kernel_clock(cand, best) \
                and not cand.above_roof and not best.above_roof:
            out.append(s)
    return out


def replay_deltas(shapes: Sequence, reference: str) -> list[float]:
    """The replay's fixed cost as the libraries show it ("Numbers beside a verdict"): graph median - call
    median of each usable graph-timed baseline row (not the reference provider, below every roof) whose
    call is the shorter: there the device time shows through the call."""
    out = []
    for s in shapes:
        for p, r in s.providers.items():
            if p in (s.candidate, reference) or not r.usable or r.above_roof or r.timing_method not in GRAPH_METHODS:
                continue
            if r.eager_median_us and 0 < r.eager_median_us < r.median_us:
                out.append(r.median_us - r.eager_median_us)
    return out


def without_replay_cost(pairs: Sequence[tuple[float, float]], cost: float) -> float | None:
    """The verdict geomean with ``cost`` taken off both times of each (candidate, baseline) pair, never more
    than the shorter time - 1 us; None without a pair."""
    logs = []
    for a, b in pairs:
        d = min(cost, min(a, b) - 1.0)
        logs.append(math.log((b - d) / (a - d)))
    return math.exp(sum(logs) / len(logs)) if logs else None
