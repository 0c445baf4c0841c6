"""The pure scoring rules: verdict names, thresholds, row choice, baselines, geomeans, noise."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from generator.analyze.roofline import ABOVE_ROOF_FACTOR, ABOVE_ROOF_TEXT  # noqa: F401 (re-exported)
from generator.config import SweepConfig
from generator.read.campaign import ResultRow
from generator.words import plural  # noqa: F401 (re-exported)

WIN, PARITY, HEADROOM, BLOCKED = "WIN", "PARITY", "HEADROOM", "BLOCKED"
VERDICTS = (WIN, PARITY, HEADROOM, BLOCKED)
#: Status of a ledger-only campaign (not one of the four verdicts).
UNTIMED = "UNTIMED"
#: Candidate statuses that make a measurable shape a hard failure.
FAILED_STATUSES = frozenset({"failed", "oom", "incorrect"})
#: Relative tolerance when comparing a ratio with a threshold (rounding noise only).
THRESHOLD_EPS = 1e-9
#: A row above this multiple of the device's HBM peak is flagged (VERDICTS rule 9).
#: Scope flags compared between the candidate and a baseline (rule 8).
COMPARED_SCOPE_FLAGS = ("includes_layout_conversion", "includes_jit")


@dataclass(frozen=True)
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


def above_roof(row: ResultRow, roof_gbps: float | None) -> bool:
    """Rule 9: a usable row moving more than 1.10 x the device's HBM peak (GB/s)."""
    return (roof_gbps is not None and row.usable and row.effective_gbps is not None
            and row.effective_gbps > ABOVE_ROOF_FACTOR * roof_gbps)


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


def decide_verdict(geomean_vs_best: float | None, n_measured: int, hard_failures: int,
                   thresholds: Thresholds = Thresholds()) -> str:
    """BLOCKED (nothing measured, or hard failures > measured shapes), else by the geomean."""
    if n_measured == 0 or geomean_vs_best is None or hard_failures > n_measured:
        return BLOCKED
    return verdict_of_speedup(geomean_vs_best, thresholds)


def is_uncertain(geomean_vs_best: float | None, noise: float | None,
                 thresholds: Thresholds = Thresholds()) -> bool:
    """True when the geomean lies within a factor ``noise`` of either threshold."""
    if geomean_vs_best is None or noise is None or noise <= 1.0:
        return False
    return any(t / noise <= geomean_vs_best <= t * noise for t in (thresholds.headroom, thresholds.win))


def spread(row: ResultRow | "ProviderResult" | None) -> float | None:
    """p90 / p10 of a row's timing, None when either is missing or not positive."""
    if row is None or not row.p10_us or not row.p90_us or row.p10_us <= 0 or row.p90_us <= 0:
        return None
    return row.p90_us / row.p10_us


def split_geomeans(groups: Mapping[str, list[float]]) -> dict[str, list]:
    """{key: [geomean, n]} for groups of speedups, keys sorted."""
    return {k: [geomean(v), len(v)] for k, v in sorted(groups.items()) if v}
