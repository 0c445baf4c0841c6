"""Series, noise and the move test of a paired ratio (DOMAIN.md §6).

- Series = (runner, op, shape, dtype, metric); runners are never pooled.
- Noise of a series = 1.4826 x MAD of ln(vs_main.ratio) over its PR records with a usable pair
  (status ok, value and ratio > 0), when there are at least 5; else unknown.
- A move: |ln r| > max(ln(1/0.97), 3 x noise) and round(|value - baseline| / unit) >= 2, the unit
  being one step of the last digit printed over the series' values and baselines. Below 1 a
  regression, above an improvement, else within noise.
"""

from __future__ import annotations

import math
import statistics
from decimal import Decimal

from generator.model import record
from generator.read.ci_stream import CiRecord, Pair

#: Their static gate (-3 %) is the smallest move we call one.
GATE = 0.97
#: A move must pass this many times the series' noise.
NOISE_TIMES = 3
#: Fewer usable PR pairs than this: the noise is unknown.
MIN_PAIRS = 5
#: MAD to a normal standard deviation.
MAD_SCALE = 1.4826
#: At least this many steps of the printed digit apart.
MIN_STEPS = 2
REGRESSION, IMPROVEMENT, NOISE = "regression", "improvement", "within_noise"


@record
class Series:
    """One series: its records oldest first, its noise (None: unknown) and printed unit."""

    key: tuple[str, str, str, str, str]
    records: list[CiRecord]
    noise: float | None
    pairs: int  # usable PR pairs the noise rests on
    unit: float

    @property
    def runner(self) -> str:
        return self.key[0]

    @property
    def op(self) -> str:
        return self.key[1]


@record(frozen=True)
class Move:
    """A paired ratio read against its series: ``kind`` is REGRESSION, IMPROVEMENT or NOISE."""

    record: CiRecord
    pair: Pair
    kind: str
    ratio: float
    threshold: float  # the ratio it had to pass on its side (below 1: under it; above: over it)
    noise: float | None
    steps: int | None  # printed-digit steps between value and baseline (None: no baseline)
    by_resolution: bool  # past the ratio bound, yet fewer than MIN_STEPS printed steps
    basis: str  # "noise" (3 x noise is the bound), "gate" (the 3 % gate), "gate, noise unknown"


def digits(x: float) -> int:
    """Digits after the point as ``repr`` writes ``x`` (``15.0`` and zeros: 0; ``1e-05``: 5)."""
    text = repr(float(x))
    if "e" not in text:
        return len(text.partition(".")[2].rstrip("0"))
    exp = Decimal(text).normalize().as_tuple().exponent
    return max(0, -exp) if isinstance(exp, int) else 0


def printed_unit(records: list[CiRecord]) -> float:
    """10^-d, d the most digits over the values and both baselines' values."""
    d = 0
    for r in records:
        for v in (r.value, r.vs_main and r.vs_main.baseline, r.vs_tag and r.vs_tag.baseline):
            if v is not None:
                d = max(d, digits(v))
    return 10.0 ** -d


def usable(r: CiRecord, pair: Pair | None) -> bool:
    """A usable pair: status ok, value and ratio > 0 (a ``main~1`` baseline counts)."""
    return (r.status == "ok" and r.value is not None and r.value > 0 and pair is not None
            and pair.ratio is not None and pair.ratio > 0)


def mad_noise(logs: list[float]) -> float | None:
    """1.4826 x the median absolute deviation, or None under MIN_PAIRS values."""
    if len(logs) < MIN_PAIRS:
        return None
    med = statistics.median(logs)
    return MAD_SCALE * statistics.median([abs(x - med) for x in logs])


def build_series(records: list[CiRecord]) -> dict[tuple, Series]:
    """Every series of the stream, records oldest first (run id, then time), its noise and unit."""
    groups: dict[tuple, list[CiRecord]] = {}
    for r in records:
        groups.setdefault(r.series, []).append(r)
    out = {}
    for key in sorted(groups):
        rs = sorted(groups[key], key=lambda r: (r.order, r.index))
        logs = [math.log(r.vs_main.ratio) for r in rs if r.pr is not None and usable(r, r.vs_main)]
        out[key] = Series(key, rs, mad_noise(logs), len(logs), printed_unit(rs))
    return out


def bound(noise: float | None) -> float:
    """The |ln r| a move must pass: the 3 % gate, or 3 x noise when larger."""
    gate = math.log(1 / GATE)
    return gate if noise is None else max(gate, NOISE_TIMES * noise)


def classify(r: CiRecord, pair: Pair | None, series: Series) -> Move | None:
    """The move of one paired ratio against its series (None: no usable pair)."""
    if not usable(r, pair):
        return None
    ratio = pair.ratio
    t = bound(series.noise)
    steps = None if pair.baseline is None else round(abs(r.value - pair.baseline) / series.unit)
    past = abs(math.log(ratio)) > t
    resolved = steps is None or steps >= MIN_STEPS
    kind = NOISE if not (past and resolved) else (REGRESSION if ratio < 1 else IMPROVEMENT)
    threshold = math.exp(-t) if ratio < 1 else math.exp(t)
    return Move(r, pair, kind, ratio, threshold, series.noise, steps, past and not resolved, basis(series.noise))


def threshold_text(m: Move) -> str:
    """The threshold as printed beside the ratio (``0.969``): 3 decimals, more where 3 would print the ratio's
    own figure though the two differ (0.956 against 0.95628: a regression, not a tie; 0.970 at the gate
    0.97 is a tie, within noise)."""
    d = 3
    while d < 6 and abs(m.threshold - m.ratio) > 1e-9 and f"{m.threshold:.{d}f}" == f"{m.ratio:.{d}f}":
        d += 1
    return f"{m.threshold:.{d}f}"


def basis(noise: float | None) -> str:
    """Which bound a move is read against: the series' noise, or the 3 % gate (said so when the noise is unknown)."""
    if noise is None:
        return "gate, noise unknown"
    return "noise" if NOISE_TIMES * noise > math.log(1 / GATE) else "gate"


def noise_summary(series: dict[tuple, Series]) -> dict:
    """How noisy the stream's series are: count with a known noise, median, 90th percentile
    (nearest rank), worst and its series."""
    known = sorted((s.noise, s.key) for s in series.values() if s.noise is not None)
    if not known:
        return {"known": 0, "unknown": len(series), "median": None, "p90": None, "worst": None, "worst_series": None}
    vals = [n for n, _ in known]
    return {"known": len(vals), "unknown": len(series) - len(vals), "median": statistics.median(vals),
            "p90": vals[math.ceil(0.9 * len(vals)) - 1], "worst": vals[-1], "worst_series": list(known[-1][1])}
