"""Rule 14, how sure: how far the verdict geomean moves with the shapes picked.

A percentile bootstrap over the verdict shapes, exactly as VERDICTS.md gives it, so that two
implementations agree: B = 2000 resamples of n shapes with replacement, drawn from one
``random.Random(0)`` as ``rng.choices(range(n), k=n)``, B times in a row, the shapes in the order
their first row appears in the results file; each resample's geomean exp(mean ln s); the B
geomeans sorted; lo at index floor(0.05 B), hi at index ceil(0.95 B) - 1. At least 8 shapes.
The same over the *model shapes* (every stage but ``synthetic`` and ``diagnostic``) when the
verdict shapes mix them with others and at least 8 are model shapes.

It is a sensitivity to the choice of shapes, not a confidence interval over runs.
"""

from __future__ import annotations

import math
import random
from itertools import islice, repeat, starmap
from math import floor
from typing import Sequence

from generator.analyze.verdicts.rules import HEADROOM, PARITY, WIN, Thresholds, reaches

#: Resamples of the bootstrap, and the fewest shapes it is run on.
RESAMPLES = 2000
MIN_SHAPES = 8
#: Stages that are not a model's (sizes picked by hand, diagnostics).
NOT_MODEL_STAGES = frozenset({"synthetic", "diagnostic"})


def bootstrap_interval(speedups: Sequence[float], resamples: int = RESAMPLES) -> list[float] | None:
    """[lo, hi] of the 90 % percentile bootstrap of the geomean; None below MIN_SHAPES values.

    B resamples drawn as rng.choices(range(n), k=n) in a row are rng.choices(logs, k=B * n) cut
    every n: logs[floor(random() * n)] for each of the first B * n draws of a fresh Random(0),
    the same stream for every call (``_uniforms``). Issue 41: the bootstrap over the shared sweep's
    13 campaigns 57.5 ms -> 48.4 ms of CPU, against ``choices`` each call (and 0.115 s -> 0.080 s of
    a cold build of the 25-kernel benchmark sweep before, ``choices`` against int(random() * n)).
    """
    n = len(speedups)
    if n < MIN_SHAPES:
        return None
    logs = [math.log(s) for s in speedups]
    k, width = resamples * n, float(n)  # choices multiplies by a float n
    picked = [logs[floor(u * width)] for u in islice(_uniforms(k), k)]
    chunks = zip(*[iter(picked)] * n)  # each resample's n logs, in draw order
    means = sorted([math.exp(total / n) for total in map(math.fsum, chunks)])
    return [means[math.floor(0.05 * resamples)], means[math.ceil(0.95 * resamples) - 1]]


#: The first draws of ``random.Random(0)``, drawn once per process and lengthened when a call wants more
#: (B x the most verdict shapes: 140,000 floats, 4.5 MB, on the shared sweep).
_DRAWS: list[float] = []
_DRAWN = random.Random(0)


def _uniforms(k: int) -> list[float]:
    """A list holding (at least) the first ``k`` values of ``random.Random(0).random()``."""
    if len(_DRAWS) < k:
        _DRAWS.extend(starmap(_DRAWN.random, repeat((), k - len(_DRAWS))))
    return _DRAWS


def crosses(verdict: str, interval: list[float] | None, thresholds: Thresholds = Thresholds()) -> bool | None:
    """Whether an interval reaches across its verdict's threshold (None without an interval)."""
    if interval is None:
        return None
    lo, hi = interval
    below_win, reaches_headroom = not reaches(lo, thresholds.win), reaches(hi, thresholds.headroom)
    if verdict == WIN:
        return below_win
    if verdict == HEADROOM:
        return reaches_headroom
    if verdict == PARITY:
        return not reaches(lo, thresholds.headroom) or reaches(hi, thresholds.win)
    return None


def verdict_intervals(verdict_shapes: Sequence["ShapeResult"], file_order: dict[str, int]
                      ) -> tuple[list[float] | None, list[float] | None, int]:
    """(interval over every verdict shape, over the model shapes or None, number of model shapes).

    ``file_order`` maps a shape id to the index of its first row in the results file.
    """
    ordered = sorted(verdict_shapes, key=lambda s: file_order.get(s.shape_id, len(file_order)))
    models = [s for s in ordered if s.stage not in NOT_MODEL_STAGES]
    whole = bootstrap_interval([s.verdict_speedup for s in ordered])
    mixed = 0 < len(models) < len(ordered)
    return whole, bootstrap_interval([s.verdict_speedup for s in models]) if mixed else None, len(models)
