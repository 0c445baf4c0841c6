"""The pure scoring rules: verdict names, thresholds, row choice, baselines, geomeans, noise."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from generator.analyze.roofline import (  # noqa: F401 (re-exported)
    ABOVE_ROOF_FACTOR,
    ABOVE_ROOF_TEXT,
    COMPUTE_ROOF_DTYPES,
    COMPUTE_ROOF_FACTOR,
)
from generator.config import SweepConfig
from generator.model import record
from generator.read.campaign_rows import ResultRow
from generator.words import plural  # noqa: F401 (re-exported)

WIN, PARITY, HEADROOM, BLOCKED = "WIN", "PARITY", "HEADROOM", "BLOCKED"
VERDICTS = (WIN, PARITY, HEADROOM, BLOCKED)
#: Status of a ledger-only campaign (not one of the four verdicts).
UNTIMED = "UNTIMED"
#: Candidate statuses that make a measurable shape a hard failure.
FAILED_STATUSES = frozenset({"failed", "oom", "incorrect"})
#: Relative tolerance when comparing a ratio with a threshold (rounding noise only).
THRESHOLD_EPS = 1e-9
#: Scope flags compared between the candidate and a baseline (rule 8).
COMPARED_SCOPE_FLAGS = ("includes_layout_conversion", "includes_jit")
#: Both rows of a shape below this multiple of the sweep's timing floor: at the floor (rule 11).
FLOOR_FACTOR = 1.25
#: The rungs of the evidence ladder (rule 12), in order; ``verdict_basis`` names one.
BASES = ("failures", "shapes", "pair", "floor", "bound", "none")


@record(frozen=True)
class Thresholds:
    """Speedup thresholds: WIN at ``>= win``, HEADROOM below ``headroom``."""

    win: float = 1.05
    headroom: float = 0.95

    @classmethod
    def from_config(cls, config: SweepConfig) -> "Thresholds":
        return cls(win=config.win, headroom=config.headroom)


def pick_row(rows: Sequence[ResultRow]) -> ResultRow:
    """The row of one (shape, provider) that counts: the last usable one, else the last."""
    for row in reversed(rows):
        if row.usable:
            return row
    return rows[-1]


def effective_status(row: ResultRow) -> str:
    """The row's status, with ``ok`` rows that failed verification counted as ``incorrect``."""
    if row.status == "ok" and row.correct is False:
        return "incorrect"
    return row.status


def is_incorrect(row: ResultRow | None) -> bool:
    """True when a row failed verification (status ``incorrect`` or ``correct`` false)."""
    return row is not None and (row.status == "incorrect" or row.correct is False)


def like_for_like(a: ResultRow, b: ResultRow) -> bool:
    """True when two rows time the same scope: compared flags agree or are unknown (rule 8)."""
    for flag in COMPARED_SCOPE_FLAGS:
        x, y = getattr(a, flag), getattr(b, flag)
        if x is not None and y is not None and x != y:
            return False
    return True


def is_suspect_reference(chosen: Mapping[str, ResultRow], candidate: str, reference: str | None) -> bool:
    """Rule 7: the candidate and an independent (non-reference) provider both fail the check."""
    if not is_incorrect(chosen.get(candidate)):
        return False
    return any(is_incorrect(r) for p, r in chosen.items() if p not in (candidate, reference))


@record(frozen=True)
class Roofs:
    """The device's peaks rule 9 checks rows against: HBM in GB/s, dense TFLOP/s by precision."""

    gbps: float | None = None
    tflops: Mapping[str, float] | None = None
    cus: int | None = None  # compute units (SMs): what a GEMM's workgroups are set against (rule 15)

    def compute_peak(self, dtype: str | None) -> float | None:
        """The dense peak (TFLOP/s) of a checked dtype; None for other dtypes or an unknown peak."""
        precision = COMPUTE_ROOF_DTYPES.get((dtype or "").lower())
        return (self.tflops or {}).get(precision) if precision else None


def roof_kind(row: ResultRow, roofs: Roofs | None, dtype: str | None = None) -> str:
    """Rule 9: ``hbm`` for a usable row moving more than 1.10 x the HBM peak, ``compute`` for one
    computing more than 0.95 x the dense peak of its dtype (the row's own, else ``dtype``), else ""."""
    if roofs is None or not row.usable:
        return ""
    if roofs.gbps is not None and row.effective_gbps is not None and row.effective_gbps > ABOVE_ROOF_FACTOR * roofs.gbps:
        return "hbm"
    peak = roofs.compute_peak(row.dtype or dtype)
    if peak is not None and row.effective_tflops is not None and row.effective_tflops > COMPUTE_ROOF_FACTOR * peak:
        return "compute"
    return ""


def methods_differ(a: Any, b: Any) -> bool:
    """Whether two rows (or provider results) were timed differently: both ``timing_method`` known and unequal."""
    return bool(a.timing_method and b.timing_method and a.timing_method != b.timing_method)


#: The timing method of a host call between two events: call time, never kernel evidence (rule 10).
EAGER_EVENT = "eager_event"


def same_kernel_clock(a: Any, b: Any) -> bool:
    """Rule 10: two rows both graph-replayed: equal ``timing_method``, or either empty when
    neither is ``eager_event`` (two eager rows are call time, not comparable)."""
    if a.timing_method == EAGER_EVENT or b.timing_method == EAGER_EVENT:
        return False
    return not methods_differ(a, b)


def common_times(cand: ResultRow, base: ResultRow) -> tuple[float, float] | None:
    """Rule 10: (candidate us, baseline us) when the baseline is comparable, else None.

    Comparable: both usable, the scope flags agree (rule 8) and both rows are on the kernel
    clock (``same_kernel_clock``): their medians. Rows timed differently never compare, and
    neither do two eager rows (call time).
    """
    if not (cand.usable and base.usable and like_for_like(cand, base) and same_kernel_clock(cand, base)):
        return None
    return cand.median_us, base.median_us


def verdict_baseline(chosen: Mapping[str, ResultRow], candidate: str
                     ) -> tuple[ResultRow, float, float] | None:
    """Rule 10: the comparable baseline the candidate's speedup is lowest against, with the
    (candidate us, baseline us) compared; ties go to the earlier row. None when none is comparable."""
    cand = chosen.get(candidate)
    if cand is None:
        return None
    best = None
    for provider, row in chosen.items():
        if provider == candidate:
            continue
        times = common_times(cand, row)
        if times is None:
            continue
        key = (times[1] / times[0], row.index)
        if best is None or key < best[0]:
            best = (key, row, times)
    return (best[1], *best[2]) if best else None


def at_floor(candidate_us: float, baseline_us: float, floor_us: float | None) -> bool:
    """Rule 11: both times below 1.25 x the timing floor (the harness cannot tell them apart)."""
    return floor_us is not None and max(candidate_us, baseline_us) < FLOOR_FACTOR * floor_us


def timing_floor(rows: Iterable[ResultRow]) -> float | None:
    """Rule 11: the lowest usable ``median_us`` of any row; None when no row is usable."""
    return min((r.median_us for r in rows if r.usable), default=None)


def best_baseline(chosen: Mapping[str, ResultRow], candidate: str,
                  like: ResultRow | None = None) -> ResultRow | None:
    """The usable non-candidate row with the lowest median; ties go to the earlier row.

    With ``like``, only rows like-for-like with that row (the candidate's) compete.
    """
    best = None
    for provider, row in chosen.items():
        if provider == candidate or not row.usable:
            continue
        if like is not None and not like_for_like(like, row):
            continue
        if best is None or (row.median_us, row.index) < (best.median_us, best.index):
            best = row
    return best


def geomean(values: Iterable[float]) -> float | None:
    """exp(mean(ln v)); None for no values."""
    logs = [math.log(v) for v in values]
    return math.exp(math.fsum(logs) / len(logs)) if logs else None


def weighted_geomean(pairs: Iterable[tuple[float, float | None]]) -> float | None:
    """exp(sum w ln s / sum w) over (s, w) pairs with w > 0; None when there is none."""
    used = [(s, w) for s, w in pairs if w is not None and w > 0]
    if not used:
        return None
    total = math.fsum(w for _, w in used)
    return math.exp(math.fsum(w * math.log(s) for s, w in used) / total)


def median(values: Iterable[float]) -> float | None:
    """The median (mean of the middle two for an even count); None for no values."""
    xs = sorted(values)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def reaches(value: float, threshold: float) -> bool:
    """value >= threshold, forgiving a relative rounding error of THRESHOLD_EPS."""
    return value >= threshold * (1.0 - THRESHOLD_EPS)


def classify_speedup(speedup: float, thresholds: Thresholds = Thresholds()) -> str:
    """``win`` (>= win), ``parity`` (>= headroom) or ``loss``."""
    if reaches(speedup, thresholds.win):
        return "win"
    if reaches(speedup, thresholds.headroom):
        return "parity"
    return "loss"


def verdict_of_speedup(speedup: float, thresholds: Thresholds = Thresholds()) -> str:
    """WIN, PARITY or HEADROOM for one ratio (a geomean or a headline pair)."""
    return {"win": WIN, "parity": PARITY, "loss": HEADROOM}[classify_speedup(speedup, thresholds)]


def decide_ladder(n_measured: int, hard_failures: int, verdict_g: float | None, reference_only: bool,
                  pair: float | None, n_floor_only: int, bound_g: float | None,
                  thresholds: Thresholds = Thresholds()) -> tuple[str, str]:
    """Rule 12, the evidence ladder: (verdict, basis); the first rung that applies decides.

    ``verdict_g`` is the geomean over the verdict shapes (None: there are none) and
    ``reference_only`` says every verdict baseline is the reference; ``pair`` is the headline
    pair's ratio; ``n_floor_only`` counts comparable measured shapes when all of them sit at the
    floor (else 0); ``bound_g`` is the geomean against the baselines that are not comparable.
    """
    if n_measured == 0 or hard_failures > n_measured:
        return BLOCKED, "failures"
    if verdict_g is not None:
        verdict = verdict_of_speedup(verdict_g, thresholds)
        if verdict != WIN or not reference_only:
            return verdict, "shapes"
    if pair is not None:
        return verdict_of_speedup(pair, thresholds), "pair"
    if verdict_g is None and n_floor_only:
        return PARITY, "floor"
    if bound_g is not None and not reaches(bound_g, thresholds.headroom):
        return HEADROOM, "bound"
    return BLOCKED, "none"


def spread(row: ResultRow | "ProviderResult" | None) -> float | None:
    """p90 / p10 of a row's timing, None when either is missing or not positive."""
    if row is None or not row.p10_us or not row.p90_us or row.p10_us <= 0 or row.p90_us <= 0:
        return None
    return row.p90_us / row.p10_us


def split_geomeans(groups: Mapping[str, list[float]]) -> dict[str, list]:
    """{key: [geomean, n]} for groups of speedups, keys sorted."""
    return {k: [geomean(v), len(v)] for k, v in sorted(groups.items()) if v}


def shape_splits(shapes: Sequence[Any]) -> tuple[dict[str, list], dict[str, list], dict[str, list]]:
    """``per_baseline``, ``stage_split`` and ``model_split`` ({key: [geomean, n]}) over ``shapes`` (measured
    shapes): each usable baseline's speedup, and the best-baseline speedup by stage and by model (a shape of
    several models counts for each; a shape of none under "")."""
    per_baseline: dict[str, list[float]] = {}
    stages: dict[str, list[float]] = {}
    models: dict[str, list[float]] = {}
    for s in shapes:
        for p, r in s.providers.items():
            if r.speedup is not None:
                per_baseline.setdefault(p, []).append(r.speedup)
        stages.setdefault(s.stage, []).append(s.speedup)
        for m in s.models or ("",):
            models.setdefault(m, []).append(s.speedup)
    return split_geomeans(per_baseline), split_geomeans(stages), split_geomeans(models)
