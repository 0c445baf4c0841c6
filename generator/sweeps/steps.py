"""Step detection: the real changes of level in a series of geomeans, apart from its noise and blips.

Pure functions of numbers, with no history or kernel in them: ``generator.sweeps.history_series`` runs
``detect_steps`` over each kernel's points and tells the regressions among the steps.

Step detection (pure; ``detect_steps``)
---------------------------------------
Work in logs: ``y_i = ln g_i`` for each point with a geomean (points without one are
skipped), ``w_i = ln noise_i`` (0 when unknown; ``noise`` is the kernel's p90/p10
factor), ``f = ln(1 + min_change)``. A *segment* is a run of points on one level; its
level is ``m(S) = median y_j`` and its noise ``n(S) = median w_j`` over ``j in S``.
Point ``i`` fits segment ``S`` when

    |y_i - m(S)| <= T(S, i),   T(S, i) = max(f, n(S), w_i)

i.e. a change must beat both the measured noise and the relative threshold. Scan the
points in order, starting with one segment holding the first point:

1. the point fits the current segment: it joins it;
2. it does not fit, but the next point does: a *blip* that reverts, ignored;
3. neither fits (or it is the last point): a new segment starts at it.

Then adjacent segments whose levels differ by no more than ``max(f, n(S1), n(S2))``
are merged (leftmost pair first, until none is left). Each boundary left is a *step*
at the first point of the later segment, with ``ratio = exp(m(S2) - m(S1))``: a
regression when the ratio is below 1 (the geomean is the candidate's speedup). A step
whose later segment is the last point alone is *unconfirmed*: it may yet be a blip.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from generator.model import record

#: Relative change a step must also beat (besides the noise).
DEFAULT_MIN_CHANGE = 0.05


@record
class Step:
    """A change of level in a series."""

    index: int  # position (in the input) of the first point on the new level
    before: float  # level before (geomean, median of its segment)
    after: float  # level after
    ratio: float  # after / before
    regression: bool  # ratio < 1
    confirmed: bool  # False when the new level rests on the last point alone

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "before": self.before, "after": self.after, "ratio": self.ratio,
                "regression": self.regression, "confirmed": self.confirmed}


@record
class StepReport:
    """The steps of a series and the blips that were ignored."""

    steps: list[Step]
    blips: list[int]  # positions of points that left the level and came straight back


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def detect_steps(values: Sequence[float | None], noises: Sequence[float | None] | None = None,
                 min_change: float = DEFAULT_MIN_CHANGE) -> StepReport:
    """Find the steps of a geomean series (see the module docstring for the math)."""
    noises = list(noises) if noises is not None else [None] * len(values)
    if len(noises) != len(values):
        raise ValueError("values and noises differ in length")
    idx = [i for i, v in enumerate(values) if v is not None and v > 0]
    if not idx:
        return StepReport([], [])
    y = {i: math.log(values[i]) for i in idx}
    w = {i: math.log(noises[i]) if noises[i] and noises[i] > 1 else 0.0 for i in idx}
    floor = math.log(1.0 + min_change)

    def level(seg: list[int]) -> float:
        return _median([y[j] for j in seg])

    def noise(seg: list[int]) -> float:
        return _median([w[j] for j in seg])

    def fits(seg: list[int], i: int) -> bool:
        return abs(y[i] - level(seg)) <= max(floor, noise(seg), w[i])

    segments: list[list[int]] = []
    blips: list[int] = []
    current = [idx[0]]
    for pos in range(1, len(idx)):
        i = idx[pos]
        if fits(current, i):
            current.append(i)
            continue
        nxt = idx[pos + 1] if pos + 1 < len(idx) else None
        if nxt is not None and fits(current, nxt):
            blips.append(i)
            continue
        segments.append(current)
        current = [i]
    segments.append(current)
    merged = True
    while merged:
        merged = False
        for k in range(len(segments) - 1):
            a, b = segments[k], segments[k + 1]
            if abs(level(b) - level(a)) <= max(floor, noise(a), noise(b)):
                segments[k:k + 2] = [sorted(a + b)]
                merged = True
                break
    steps = []
    last = idx[-1]
    for a, b in zip(segments, segments[1:]):
        before, after = math.exp(level(a)), math.exp(level(b))
        ratio = math.exp(level(b) - level(a))
        steps.append(Step(index=b[0], before=before, after=after, ratio=ratio, regression=ratio < 1.0,
                          confirmed=not (len(b) == 1 and b[0] == last)))
    return StepReport(steps, sorted(blips))
