"""Score multi-shape timings: per shape a speedup, per kernel numbers and one verdict.

Implements ``VERDICTS.md``. The rules, with the math:

* Rows of one (shape, provider): the last *usable* row (status ``ok``, ``correct`` true,
  ``median_us`` > 0) counts; if none is usable, the last row (so a placeholder written
  after a real measurement never hides it).
* Candidate: the configured provider (``flydsl``). Baselines: every other provider
  whose row is usable. Best baseline: the lowest ``median_us``; ties go to the one whose
  row comes first in the file.
* ``speedup = best baseline us / candidate us`` (> 1: the candidate is faster). A shape
  is *measured* when the candidate is usable and a best baseline exists, *measurable*
  when some baseline is usable. A *hard failure* is a measurable shape whose candidate
  status is failed, oom or incorrect; a *harness failure* is a shape where no provider
  is usable and at least one failed (nobody is blamed).
* ``geomean = exp(mean ln s)`` over measured shapes; ``weighted = exp(sum w ln s / sum w)``
  over measured shapes with weight ``w > 0`` (``baseline_time_weight``, else
  ``traffic_weight``; the key order is configuration), None when no shape has one.
  Per baseline, per stage and per model (an ``a|b`` shape counts for each) likewise,
  as ``[geomean, n]``.
* wins / parity / losses: measured shapes with ``s >= win``, ``headroom <= s < win``,
  ``s < headroom`` (1.05 / 0.95 by default).
* Verdict: BLOCKED when no shape is measured or hard failures outnumber measured
  shapes; else WIN (``geomean >= win``), PARITY, or HEADROOM (``geomean < headroom``).
  Thresholds apply to unrounded values (0.949 is HEADROOM though it prints 0.95x); a
  value within 1e-9 (relative) of a threshold counts as reaching it, so that a ratio
  such as 1.05 does not fall below 1.05 through floating-point rounding alone.
* Noise: per measured shape the larger of ``p90/p10`` of the candidate and of the best
  baseline; the kernel's noise is the median over shapes. The verdict is *uncertain*
  when the geomean lies within that factor of a threshold
  (``t / noise <= geomean <= t * noise``).
* ``reference_only``: the best baseline of every measured shape is the reference
  provider (``pytorch`` unless configured or named by ``baseline_matrix.yaml``).
* Suspect reference (rule 7): the candidate is incorrect and so is another provider that
  is not the reference; the check, not the candidate, is the likely culprit, so the shape
  is counted in ``suspect_reference`` and is not a hard failure.
* Like-for-like (rule 8): a baseline row is like-for-like with the candidate's row when
  their ``includes_layout_conversion`` and ``includes_jit`` flags agree (an empty flag is
  unknown and agrees). A measured shape whose best baseline is not like-for-like has a
  *scope mismatch*; ``like_for_like_geomean = [geomean(best like-for-like baseline us /
  candidate us), n]`` over measured shapes that have one; ``not_like_for_like`` when
  ``2 * scope_mismatch_shapes > n_measured``.
* Above the roof (rule 9): a usable row whose ``effective_gbps`` exceeds 1.10 x the
  device's HBM peak is flagged (``above_roof``: sorted ``[shape_id, provider]`` pairs),
  never dropped.

A campaign with a ledger but no results file gets the status ``UNTIMED`` instead of a
verdict: BLOCKED would claim the candidate fails to run, when nothing was run at all.

Public API (used by the site builder): ``score_campaign``, ``score_sweep``,
``KernelScore``, ``ShapeResult``, ``ProviderResult``, ``HeadlinePair``,
``campaign_for_bundle``, ``read_kernels_json``, ``headline_for_campaign`` and the pure
rule functions (``pick_row``, ``best_baseline``, ``geomean``, ``weighted_geomean``,
``classify_speedup``, ``decide_verdict``, ``is_uncertain``).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from generator.read.campaign import (
    SCOPE_FLAGS,
    Campaign,
    LedgerShape,
    ResultRow,
    find_campaign_folders,
    read_campaign,
)
from generator.config import DEFAULT_REFERENCE, SweepConfig, load_config
from generator.analyze import roofline
from generator.read.discover import rel_path
from generator.errors import InputError
from generator.model import FORMAT_VERSION

WIN, PARITY, HEADROOM, BLOCKED = "WIN", "PARITY", "HEADROOM", "BLOCKED"
VERDICTS = (WIN, PARITY, HEADROOM, BLOCKED)
#: Status of a ledger-only campaign (not one of the four verdicts).
UNTIMED = "UNTIMED"
#: Candidate statuses that make a measurable shape a hard failure.
FAILED_STATUSES = frozenset({"failed", "oom", "incorrect"})
#: Relative tolerance when comparing a ratio with a threshold (rounding noise only).
THRESHOLD_EPS = 1e-9
#: A row above this multiple of the device's HBM peak is flagged (VERDICTS rule 9).
ABOVE_ROOF_FACTOR = 1.10
#: Scope flags compared between the candidate and a baseline (rule 8).
COMPARED_SCOPE_FLAGS = ("includes_layout_conversion", "includes_jit")

KERNELS_JSON = os.path.join("docs", "data", "kernels.json")
_CAMPAIGN_URL = re.compile(r"benchmarks/examples/([^/]+)/")


@dataclass(frozen=True)
class Thresholds:
    """Speedup thresholds: WIN at ``>= win``, HEADROOM below ``headroom``."""

    win: float = 1.05
    headroom: float = 0.95

    @classmethod
    def from_config(cls, config: SweepConfig) -> "Thresholds":
        return cls(win=config.win, headroom=config.headroom)


# ---------------------------------------------------------------- pure rules


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


# ---------------------------------------------------------------- per shape


def _fmt_x(value: float | None) -> str:
    """A ratio for display: ``0.87x``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}x"


def _fmt_us(value: float | None) -> str:
    """A time for display: ``21.40``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}"


def args_text(args: Mapping[str, Any]) -> str:
    """Shape arguments on one line: ``batch=1 causal=true seq_len=128`` (ledger order)."""
    return " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in args.items())


@dataclass
class ProviderResult:
    """One provider on one shape: the row that counts, as a person reads it."""

    provider: str
    status: str  # effective status (``ok`` rows that failed verification read ``incorrect``)
    usable: bool
    median_us: float | None
    p10_us: float | None
    p90_us: float | None
    stable: bool | None
    timing_method: str | None
    reason: str | None
    line: int  # line of the row that counts in the results file
    n_rows: int  # rows this (shape, provider) had
    speedup: float | None = None  # this baseline's time / the candidate's (None otherwise)
    correctness_error: str | None = None
    effective_gbps: float | None = None
    scope: dict[str, bool | None] = field(default_factory=dict)  # the row's scope flags
    like_for_like: bool | None = None  # vs the candidate's row (None for the candidate)
    above_roof: bool = False

    @property
    def time_text(self) -> str:
        """``21.40`` when usable, else the status (``failed``, ``not_configured``...)."""
        return _fmt_us(self.median_us) if self.usable else self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "usable": self.usable,
            "median_us": self.median_us,
            "p10_us": self.p10_us,
            "p90_us": self.p90_us,
            "stable": self.stable,
            "timing_method": self.timing_method,
            "reason": self.reason,
            "speedup": self.speedup,
            "line": self.line,
            "n_rows": self.n_rows,
            "correctness_error": self.correctness_error,
            "effective_gbps": self.effective_gbps,
            "scope": dict(self.scope),
            "like_for_like": self.like_for_like,
            "above_roof": self.above_roof,
        }


@dataclass
class ShapeResult:
    """One ledger shape scored: every provider's time and status, the best baseline, the speedup."""

    shape_id: str
    args: dict[str, Any]
    stage: str
    model: str
    models: tuple[str, ...]
    dtype: str
    source_kind: str | None
    weight: float | None  # production weight used by the weighted geomean
    occurrences: float | None
    candidate: str
    providers: dict[str, ProviderResult]  # file order
    candidate_status: str | None  # None: the candidate has no row for this shape
    candidate_us: float | None
    best_baseline: str | None
    best_baseline_us: float | None
    speedup: float | None
    measured: bool
    measurable: bool
    hard_failure: bool
    harness_failure: bool
    outcome: str | None  # "win", "parity", "loss" (measured shapes only)
    failure_reason: str | None
    noise: float | None  # larger p90/p10 of the candidate and the best baseline
    suspect_reference: bool = False  # rule 7
    scope_mismatch: bool = False  # rule 8: the best baseline times another scope
    like_for_like_baseline: str | None = None
    like_for_like_speedup: float | None = None
    above_roof: list[str] = field(default_factory=list)  # providers above the HBM roof (rule 9)

    @property
    def args_text(self) -> str:
        return args_text(self.args)

    @property
    def speedup_text(self) -> str:
        return _fmt_x(self.speedup)

    @property
    def failure_short(self) -> str | None:
        """The failure reason's first line, at most 120 characters."""
        if not self.failure_reason:
            return None
        first = self.failure_reason.strip().splitlines()[0]
        return first if len(first) <= 120 else first[:119] + "\u2026"

    def summary(self) -> dict[str, Any]:
        """The few fields that name this shape elsewhere (worst / best shape)."""
        return {
            "shape_id": self.shape_id,
            "args": self.args,
            "stage": self.stage,
            "model": self.model,
            "speedup": self.speedup,
            "candidate_us": self.candidate_us,
            "best_baseline": self.best_baseline,
            "best_baseline_us": self.best_baseline_us,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "dtype": self.dtype,
            "source_kind": self.source_kind,
            "weight": self.weight,
            "occurrences": self.occurrences,
            "candidate_status": self.candidate_status,
            "measured": self.measured,
            "measurable": self.measurable,
            "hard_failure": self.hard_failure,
            "harness_failure": self.harness_failure,
            "outcome": self.outcome,
            "failure_reason": self.failure_reason,
            "noise": self.noise,
            "suspect_reference": self.suspect_reference,
            "scope_mismatch": self.scope_mismatch,
            "like_for_like_baseline": self.like_for_like_baseline,
            "like_for_like_speedup": self.like_for_like_speedup,
            "above_roof": list(self.above_roof),
            "providers": {p: r.to_json() for p, r in self.providers.items()},
        }


def score_shape(shape: LedgerShape, rows: Mapping[str, Sequence[ResultRow]], candidate: str,
                thresholds: Thresholds = Thresholds(),
                weight_keys: tuple[str, ...] = ("baseline_time_weight", "traffic_weight"),
                reference: str | None = DEFAULT_REFERENCE, roof_gbps: float | None = None) -> ShapeResult:
    """Score one ledger shape from its rows (provider -> rows in file order).

    ``reference`` names the provider rule 7 does not count as independent; ``roof_gbps``
    is the device's HBM peak in GB/s for rule 9 (None: not checked).
    """
    # providers in file order of their first row: the order of the table's columns
    present = sorted(((p, rs) for p, rs in rows.items() if rs), key=lambda item: item[1][0].index)
    chosen = {p: pick_row(rs) for p, rs in present}
    cand = chosen.get(candidate)
    best = best_baseline(chosen, candidate)
    cand_ok = cand is not None and cand.usable
    measured = cand_ok and best is not None
    speedup = best.median_us / cand.median_us if measured else None
    statuses = {p: effective_status(r) for p, r in chosen.items()}
    cand_status = statuses.get(candidate)
    providers = {
        p: ProviderResult(
            provider=p, status=statuses[p], usable=r.usable, median_us=r.median_us,
            p10_us=r.p10_us, p90_us=r.p90_us, stable=r.stable, timing_method=r.timing_method,
            reason=r.reason, line=r.line, n_rows=len(rows[p]),
            speedup=(r.median_us / cand.median_us) if cand_ok and r.usable and p != candidate else None,
            correctness_error=r.correctness_error, effective_gbps=r.effective_gbps,
            scope={f: getattr(r, f) for f in SCOPE_FLAGS},
            like_for_like=like_for_like(cand, r) if cand is not None and p != candidate else None,
            above_roof=above_roof(r, roof_gbps),
        )
        for p, r in chosen.items()
    }
    measurable = best is not None
    suspect = is_suspect_reference(chosen, candidate, reference)
    best_like = best_baseline(chosen, candidate, like=cand) if measured else None
    spreads = [s for s in (spread(cand), spread(best)) if s is not None] if measured else []
    return ShapeResult(
        shape_id=shape.shape_id,
        args=shape.args,
        stage=shape.stage,
        model=shape.model,
        models=shape.models,
        dtype=shape.dtype,
        source_kind=shape.source_kind,
        weight=shape.weight(weight_keys),
        occurrences=shape.occurrences,
        candidate=candidate,
        providers=providers,
        candidate_status=cand_status,
        candidate_us=cand.median_us if cand_ok else None,
        best_baseline=best.provider if best else None,
        best_baseline_us=best.median_us if best else None,
        speedup=speedup,
        measured=measured,
        measurable=measurable,
        hard_failure=measurable and cand_status in FAILED_STATUSES and not suspect,
        harness_failure=not measurable and not cand_ok and any(s in FAILED_STATUSES for s in statuses.values()),
        outcome=classify_speedup(speedup, thresholds) if measured else None,
        failure_reason=None if measured else _failure_reason(candidate, cand, chosen, statuses),
        noise=max(spreads) if spreads else None,
        suspect_reference=suspect,
        scope_mismatch=measured and not like_for_like(cand, best),
        like_for_like_baseline=best_like.provider if best_like else None,
        like_for_like_speedup=best_like.median_us / cand.median_us if best_like else None,
        above_roof=[p for p, r in providers.items() if r.above_roof],
    )


def _failure_reason(candidate: str, cand: ResultRow | None, chosen: Mapping[str, ResultRow],
                    statuses: Mapping[str, str]) -> str:
    """Why a shape is not measured, for the person reading the table."""
    if not chosen:
        return "no result rows"
    if cand is None:
        return f"no {candidate} row"
    if not cand.usable:
        status = statuses[candidate]
        reason = cand.reason or next((r.reason for p, r in chosen.items()
                                      if r.reason and statuses[p] in FAILED_STATUSES), None)
        return f"{status}: {reason}" if reason else status
    return "no usable baseline"


# ---------------------------------------------------------------- headline pair


@dataclass
class HeadlinePair:
    """The single (candidate us, baseline us) pair the profiling sweep reports for a kernel."""

    kernel: str  # bundle name
    candidate_us: float | None
    baseline_us: float | None
    baseline_name: str | None
    speedup: float
    verdict: str  # WIN / PARITY / HEADROOM of this one ratio

    @property
    def text(self) -> str:
        """``7.00 us vs 11.60 us (PyTorch), 1.66x``."""
        times = ""
        if self.candidate_us is not None and self.baseline_us is not None:
            times = f"{self.candidate_us:.2f} us vs {self.baseline_us:.2f} us"
            if self.baseline_name:
                times += f" ({self.baseline_name})"
            times += ", "
        return f"{times}{_fmt_x(self.speedup)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "candidate_us": self.candidate_us,
            "baseline_us": self.baseline_us,
            "baseline_name": self.baseline_name,
            "speedup": self.speedup,
            "verdict": self.verdict,
        }


def read_kernels_json(path: str | os.PathLike) -> dict[str, Any]:
    """Parse a sweep's ``docs/data/kernels.json`` (``{"kernels": [...], ...}``)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON: {err.msg}", line=err.lineno) from None
    if isinstance(data, list):
        data = {"kernels": data}
    if not isinstance(data, dict) or not isinstance(data.get("kernels", []), list):
        raise InputError(path, "expected an object with a \"kernels\" list")
    return data


def load_kernels_json(sweep_root: str | os.PathLike | None) -> dict[str, Any] | None:
    """The sweep's kernels.json, or None when the sweep has none."""
    if sweep_root is None:
        return None
    path = os.path.join(os.fspath(sweep_root), KERNELS_JSON)
    return read_kernels_json(path) if os.path.isfile(path) else None


def kernel_entries(kernels_json: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The kernel objects of a kernels.json that name their bundle (``example``)."""
    if not kernels_json:
        return []
    return [k for k in kernels_json.get("kernels", []) if isinstance(k, dict) and isinstance(k.get("example"), str)]


def entry_campaign(entry: Mapping[str, Any]) -> str | None:
    """The campaign folder named by an entry's ``multishape.summary_url``."""
    multishape = entry.get("multishape")
    url = multishape.get("summary_url") if isinstance(multishape, dict) else None
    m = _CAMPAIGN_URL.search(url) if isinstance(url, str) else None
    return m.group(1) if m else None


def campaign_for_bundle(bundle_name: str, config: SweepConfig | None = None,
                        kernels_json: Mapping[str, Any] | None = None,
                        campaigns: Iterable[str] | None = None) -> str | None:
    """The campaign (op) of a bundle, or None.

    Order: ``[kernels.<bundle>] campaign`` of the configuration (an empty string means
    "none"); the folder that the bundle's ``multishape.summary_url`` names in
    kernels.json; the bundle's own name. When ``campaigns`` (the names that exist) is
    given, a name outside it gives None.
    """
    known = set(campaigns) if campaigns is not None else None
    configured = config.kernel(bundle_name).campaign if config else None
    if configured is not None:
        op: str | None = configured or None
    else:
        op = next((entry_campaign(e) for e in kernel_entries(kernels_json) if e["example"] == bundle_name), None)
        op = op or bundle_name
    if op is not None and known is not None and op not in known:
        return None
    return op


def bundles_for_campaign(op: str, config: SweepConfig | None = None,
                         kernels_json: Mapping[str, Any] | None = None,
                         bundle_names: Iterable[str] = ()) -> list[str]:
    """Bundles whose campaign is ``op``, among the configured, kernels.json and given names."""
    names = list(config.kernels) if config else []
    names += [e["example"] for e in kernel_entries(kernels_json)]
    names += list(bundle_names)
    return [n for n in dict.fromkeys(names) if campaign_for_bundle(n, config, kernels_json) == op]


def headline_pair(entry: Mapping[str, Any], candidate: str = "flydsl",
                  thresholds: Thresholds = Thresholds()) -> HeadlinePair | None:
    """The headline pair of one kernels.json entry (``<candidate>_us``, ``baseline_us``...)."""
    cand_us = _positive(entry.get(f"{candidate}_us", entry.get("candidate_us")))
    base_us = _positive(entry.get("baseline_us"))
    if cand_us is not None and base_us is not None:
        speedup = base_us / cand_us
    else:
        speedup = _positive(entry.get("speedup_vs_baseline"))
    if speedup is None:
        return None
    name = entry.get("baseline_name")
    return HeadlinePair(
        kernel=str(entry.get("example")),
        candidate_us=cand_us,
        baseline_us=base_us,
        baseline_name=name if isinstance(name, str) and name else None,
        speedup=speedup,
        verdict=verdict_of_speedup(speedup, thresholds),
    )


def _positive(value: Any) -> float | None:
    """A positive finite number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def headline_for_campaign(op: str, config: SweepConfig | None = None,
                          kernels_json: Mapping[str, Any] | None = None) -> HeadlinePair | None:
    """The headline pair of the first kernels.json kernel whose campaign is ``op``."""
    config = config or SweepConfig()
    thresholds = Thresholds.from_config(config)
    for entry in kernel_entries(kernels_json):
        if campaign_for_bundle(entry["example"], config, kernels_json) == op:
            pair = headline_pair(entry, config.candidate, thresholds)
            if pair:
                return pair
    return None


def headline_note(headline: HeadlinePair | None, score: "KernelScore") -> str | None:
    """A sentence when the headline pair's verdict differs from the multi-shape verdict."""
    if headline is None or score.verdict == UNTIMED or headline.verdict == score.verdict:
        return None
    plural = "s" if score.n_measured != 1 else ""
    geo = f"geomean {_fmt_x(score.geomean_vs_best)} over " if score.geomean_vs_best is not None else ""
    return (f"Headline pair {headline.text} reads {headline.verdict}, but the multi-shape verdict is "
            f"{score.verdict} ({geo}{score.n_measured} measured shape{plural}).")


# ---------------------------------------------------------------- per kernel


@dataclass
class KernelScore:
    """Every number of VERDICTS.md for one campaign, plus its per-shape table.

    Counts: ``n_shapes`` ledger shapes = candidate_ok + candidate_failed (failed + oom)
    + candidate_incorrect + candidate_unsupported + candidate_other (not_configured,
    skipped, unknown, or ok without a verified time) + candidate_missing (no row).
    """

    op: str
    candidate: str
    reference: str
    thresholds: Thresholds
    verdict: str  # WIN / PARITY / HEADROOM / BLOCKED, or UNTIMED
    verdict_reason: str
    n_shapes: int
    n_measured: int
    n_measurable: int
    n_not_run: int
    geomean_vs_best: float | None
    weighted_geomean_vs_best: float | None
    n_weighted: int
    per_baseline: dict[str, list]
    stage_split: dict[str, list]
    model_split: dict[str, list]
    wins: int
    parity: int
    losses: int
    candidate_ok: int
    candidate_failed: int
    candidate_incorrect: int
    candidate_unsupported: int
    candidate_other: int
    candidate_missing: int
    hard_failures: int
    harness_failures: int
    worst: ShapeResult | None
    best: ShapeResult | None
    noise: float | None
    noise_candidate: float | None
    noise_baseline: float | None
    uncertain: bool
    reference_only: bool
    providers: list[str]  # table columns: the candidate, then baselines that ran at least once
    shapes: list[ShapeResult]
    suspect_reference: int = 0  # rule 7
    scope_mismatch_shapes: int = 0  # rule 8
    like_for_like_geomean: list | None = None  # [geomean, n] over shapes with a like-for-like baseline
    like_for_like_reference_only: bool = False
    not_like_for_like: bool = False
    above_roof: list[list[str]] = field(default_factory=list)  # sorted [shape_id, provider] (rule 9)
    # display and context, filled by score_campaign
    name: str = ""
    category: str | None = None
    bundles: list[str] = field(default_factory=list)  # bundles (examples/<name>) of this campaign
    path: str = ""  # campaign folder as shown (relative)
    results_file: str | None = None
    headline: HeadlinePair | None = None
    headline_note: str | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    baseline_commits: dict[str, str] = field(default_factory=dict)  # provider -> commit
    notes: list[str] = field(default_factory=list)

    @property
    def worst_speedup(self) -> float | None:
        return self.worst.speedup if self.worst else None

    @property
    def best_speedup(self) -> float | None:
        return self.best.speedup if self.best else None

    @property
    def is_verdict(self) -> bool:
        """False for an UNTIMED (ledger-only) campaign."""
        return self.verdict in VERDICTS

    # display-ready strings (the CLI and the site use the same words)

    @property
    def geomean_text(self) -> str:
        return _fmt_x(self.geomean_vs_best)

    @property
    def weighted_text(self) -> str:
        return _fmt_x(self.weighted_geomean_vs_best)

    @property
    def wins_text(self) -> str:
        """``wins 7 of 73`` (always shown beside a geomean)."""
        return f"wins {self.wins} of {self.n_measured}"

    @property
    def failures_text(self) -> str:
        """``6 hard, 2 harness``, or ``none``."""
        parts = []
        if self.hard_failures:
            parts.append(f"{self.hard_failures} hard")
        if self.harness_failures:
            parts.append(f"{self.harness_failures} harness")
        return ", ".join(parts) or "none"

    @property
    def worst_text(self) -> str:
        """``0.26x vs hipblaslt (M=16 N=2112 K=7168)``, or an em dash."""
        if not self.worst:
            return "\u2014"
        return f"{self.worst.speedup_text} vs {self.worst.best_baseline} ({self.worst.args_text})"

    @property
    def flag_keys(self) -> list[str]:
        """Machine names of the flags shown beside the verdict (``api/index.json`` ``flags``)."""
        keys = {
            "hard_failures": bool(self.hard_failures),
            "uncertain": self.uncertain,
            "reference_only": self.reference_only,
            "not_like_for_like": self.not_like_for_like,
            "suspect_reference": bool(self.suspect_reference),
            "above_roof": bool(self.above_roof),
        }
        return [k for k, on in keys.items() if on]

    @property
    def flags(self) -> list[str]:
        """Words shown beside the verdict, in the order of ``flag_keys``."""
        out = []
        if self.hard_failures:
            out.append(plural(self.hard_failures, "hard failure"))
        if self.uncertain:
            out.append(f"uncertain (noise {_fmt_x(self.noise)})")
        if self.reference_only:
            out.append(f"reference only ({self.reference})")
        if self.not_like_for_like:
            out.append(self.scope_text)
        if self.suspect_reference:
            out.append(f"{plural(self.suspect_reference, 'suspect reference check')} "
                       f"({self.candidate} and an independent library both fail it)")
        if self.above_roof:
            out.append(f"{plural(len(self.above_roof), 'row')} above the HBM roof")
        return out

    @property
    def scope_text(self) -> str:
        """``not like-for-like: 9 of 9 shapes' best baseline times another scope; like-for-like 166.72x``."""
        text = (f"not like-for-like: the best baseline times another scope on {self.scope_mismatch_shapes} "
                f"of {self.n_measured} shapes")
        if self.like_for_like_geomean:
            g, n = self.like_for_like_geomean
            ref = f", reference {self.reference} only" if self.like_for_like_reference_only else ""
            text += f"; like-for-like {_fmt_x(g)} over {n}{ref}"
        return text

    def to_json(self, shapes: bool = True) -> dict[str, Any]:
        """The ``verdicts --json`` record (every key of expected/verdicts.json, and more)."""
        out = {
            "op": self.op,
            "name": self.name,
            "category": self.category,
            "bundles": list(self.bundles),
            "path": self.path,
            "results_file": self.results_file,
            "candidate": self.candidate,
            "reference": self.reference,
            "thresholds": {"win": self.thresholds.win, "headroom": self.thresholds.headroom},
            "verdict": self.verdict,
            "verdict_reason": self.verdict_reason,
            "n_shapes": self.n_shapes,
            "n_measured": self.n_measured,
            "n_measurable": self.n_measurable,
            "n_not_run": self.n_not_run,
            "geomean_vs_best": self.geomean_vs_best,
            "weighted_geomean_vs_best": self.weighted_geomean_vs_best,
            "n_weighted": self.n_weighted,
            "per_baseline": self.per_baseline,
            "stage_split": self.stage_split,
            "model_split": self.model_split,
            "wins": self.wins,
            "parity": self.parity,
            "losses": self.losses,
            "candidate_ok": self.candidate_ok,
            "candidate_failed": self.candidate_failed,
            "candidate_incorrect": self.candidate_incorrect,
            "candidate_unsupported": self.candidate_unsupported,
            "candidate_other": self.candidate_other,
            "candidate_missing": self.candidate_missing,
            "hard_failures": self.hard_failures,
            "harness_failures": self.harness_failures,
            "worst_speedup": self.worst_speedup,
            "best_speedup": self.best_speedup,
            "worst": self.worst.summary() if self.worst else None,
            "best": self.best.summary() if self.best else None,
            "noise": self.noise,
            "noise_candidate": self.noise_candidate,
            "noise_baseline": self.noise_baseline,
            "uncertain": self.uncertain,
            "reference_only": self.reference_only,
            "suspect_reference": self.suspect_reference,
            "scope_mismatch_shapes": self.scope_mismatch_shapes,
            "like_for_like_geomean": self.like_for_like_geomean,
            "like_for_like_reference_only": self.like_for_like_reference_only,
            "not_like_for_like": self.not_like_for_like,
            "above_roof": [list(x) for x in self.above_roof],
            "flags": self.flag_keys,
            "headline": self.headline.to_json() if self.headline else None,
            "headline_note": self.headline_note,
            "providers": list(self.providers),
            "provenance": dict(self.provenance),
            "baseline_commits": dict(self.baseline_commits),
            "notes": list(self.notes),
        }
        if shapes:
            out["shapes"] = [s.to_json() for s in self.shapes]
        return out


def summarize(op: str, shapes: list[ShapeResult], thresholds: Thresholds = Thresholds(),
              reference: str = DEFAULT_REFERENCE, candidate: str = "flydsl") -> KernelScore:
    """Aggregate scored shapes into a KernelScore (display fields left at their defaults)."""
    measured = [s for s in shapes if s.measured]
    speedups = [s.speedup for s in measured]
    g = geomean(speedups)
    per_baseline: dict[str, list[float]] = {}
    stages: dict[str, list[float]] = {}
    models: dict[str, list[float]] = {}
    for s in measured:
        for p, r in s.providers.items():
            if r.speedup is not None:
                per_baseline.setdefault(p, []).append(r.speedup)
        stages.setdefault(s.stage, []).append(s.speedup)
        for m in s.models or ("",):
            models.setdefault(m, []).append(s.speedup)
    outcomes = [s.outcome for s in measured]
    statuses = [s.candidate_status for s in shapes]
    cand_ok = sum(1 for s in shapes if s.candidate_us is not None)
    n_failed = sum(1 for st in statuses if st in ("failed", "oom"))
    n_incorrect = statuses.count("incorrect")
    n_unsupported = statuses.count("unsupported")
    n_missing = statuses.count(None)
    hard = sum(1 for s in shapes if s.hard_failure)
    noise = median(s.noise for s in measured if s.noise is not None)
    verdict = decide_verdict(g, len(measured), hard, thresholds)
    weighted = [(s.speedup, s.weight) for s in measured if s.weight is not None and s.weight > 0]
    like = [s for s in measured if s.like_for_like_speedup is not None]
    mismatch = sum(1 for s in measured if s.scope_mismatch)
    return KernelScore(
        op=op,
        name=op,
        path=op,
        candidate=candidate,
        reference=reference,
        thresholds=thresholds,
        verdict=verdict,
        verdict_reason=_verdict_reason(verdict, g, len(measured), hard, shapes, candidate, thresholds),
        n_shapes=len(shapes),
        n_measured=len(measured),
        n_measurable=sum(1 for s in shapes if s.measurable),
        n_not_run=sum(1 for s in shapes if not s.providers),
        geomean_vs_best=g,
        weighted_geomean_vs_best=weighted_geomean(weighted),
        n_weighted=len(weighted),
        per_baseline=split_geomeans(per_baseline),
        stage_split=split_geomeans(stages),
        model_split=split_geomeans(models),
        wins=outcomes.count("win"),
        parity=outcomes.count("parity"),
        losses=outcomes.count("loss"),
        candidate_ok=cand_ok,
        candidate_failed=n_failed,
        candidate_incorrect=n_incorrect,
        candidate_unsupported=n_unsupported,
        candidate_other=len(shapes) - cand_ok - n_failed - n_incorrect - n_unsupported - n_missing,
        candidate_missing=n_missing,
        hard_failures=hard,
        harness_failures=sum(1 for s in shapes if s.harness_failure),
        worst=min(measured, key=lambda s: s.speedup) if measured else None,
        best=max(measured, key=lambda s: s.speedup) if measured else None,
        noise=noise,
        noise_candidate=median(x for x in (spread_of(s, candidate) for s in measured) if x is not None),
        noise_baseline=median(x for x in (spread_of(s, s.best_baseline) for s in measured) if x is not None),
        uncertain=verdict != BLOCKED and is_uncertain(g, noise, thresholds),
        reference_only=bool(measured) and all(s.best_baseline == reference for s in measured),
        providers=_columns(shapes, candidate),
        shapes=shapes,
        suspect_reference=sum(1 for s in shapes if s.suspect_reference),
        scope_mismatch_shapes=mismatch,
        like_for_like_geomean=[geomean(s.like_for_like_speedup for s in like), len(like)] if like else None,
        like_for_like_reference_only=bool(like) and all(s.like_for_like_baseline == reference for s in like),
        not_like_for_like=2 * mismatch > len(measured),
        above_roof=sorted([s.shape_id, p] for s in shapes for p in s.above_roof),
    )


def spread_of(shape: ShapeResult, provider: str | None) -> float | None:
    """p90/p10 of one provider on one shape."""
    return spread(shape.providers.get(provider) if provider else None)


def _columns(shapes: list[ShapeResult], candidate: str) -> list[str]:
    """Table columns: the candidate, then providers that took part, in file order.

    A provider takes part when, on some shape that is not a harness failure, its row
    says anything but ``not_configured`` (a shape where everything failed, configured
    or not, says nothing about who was meant to run).
    """
    seen: dict[str, None] = {candidate: None}
    for s in shapes:
        if s.harness_failure:
            continue
        for p, r in s.providers.items():
            if r.status != "not_configured":
                seen[p] = None
    return list(seen)


def _verdict_reason(verdict: str, g: float | None, n_measured: int, hard: int,
                    shapes: list[ShapeResult], candidate: str, t: Thresholds) -> str:
    """One sentence saying which rule gave the verdict."""
    if verdict == BLOCKED:
        if n_measured == 0:
            if not any(s.candidate_status for s in shapes):
                return f"no measured shape: {candidate} has no rows"
            return f"no measured shape ({candidate} usable with a baseline on 0 of {len(shapes)})"
        return f"{hard} hard failures > {n_measured} measured shapes"
    rule = {WIN: f">= {t.win:g}", PARITY: f"in [{t.headroom:g}, {t.win:g})", HEADROOM: f"< {t.headroom:g}"}[verdict]
    return f"geomean {g:.3f}x {rule} over {n_measured} measured shapes"


def score_campaign(campaign: Campaign, config: SweepConfig | None = None,
                   kernels_json: Mapping[str, Any] | None = None) -> KernelScore:
    """Score one campaign (see the module docstring for every rule)."""
    config = config or SweepConfig()
    thresholds = Thresholds.from_config(config)
    candidate = config.candidate
    reference = config.reference or campaign.reference_provider or DEFAULT_REFERENCE
    by_shape = campaign.rows_by_shape()
    roof = hbm_roof_gbps(config, campaign.provenance_for(candidate))
    shapes = [score_shape(sh, by_shape.get(sh.shape_id, {}), candidate, thresholds, config.weight_keys,
                          reference, roof)
              for sh in campaign.ledger]
    score = summarize(campaign.name, shapes, thresholds, reference, candidate)
    score.bundles = bundles_for_campaign(campaign.name, config, kernels_json)
    score.name, score.category = _display(campaign.name, score.bundles, config, kernels_json)
    score.path = campaign.rel
    score.results_file = campaign.results_file
    score.provenance = {**campaign.provenance_for(candidate), **config.provenance}
    score.baseline_commits = campaign.baseline_commits(candidate)
    score.notes = list(campaign.notes) + _row_notes(campaign, by_shape)
    score.headline = headline_for_campaign(campaign.name, config, kernels_json)
    if not campaign.timed:
        score.verdict = UNTIMED
        score.verdict_reason = f"no benchmark results: {score.n_shapes} shapes in the ledger, none timed"
        score.uncertain = False
    score.headline_note = headline_note(score.headline, score)
    return score


def hbm_roof_gbps(config: SweepConfig, provenance: Mapping[str, str]) -> float | None:
    """HBM peak in GB/s of the campaign's device (rule 9): the configured device, else the
    one the ``gpu`` column names, else the one of its ``arch``; None when none is known."""
    try:
        peaks = roofline.load_peaks(config)
    except InputError:
        return None
    names = [config.device] if config.device else []
    names += [g.strip() for g in provenance.get("gpu", "").split(",") if g.strip()]
    for name in names:
        dev = roofline.find_device(peaks, name)
        if dev:
            return dev.hbm_tbs * 1000.0
    arch = provenance.get("arch", "").split(",")[0].strip()
    try:
        return roofline.select_device(peaks, arch=arch).hbm_tbs * 1000.0 if arch else None
    except InputError:
        return None


def plural(n: int, word: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _display(op: str, bundles: list[str], config: SweepConfig,
             kernels_json: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """(display name, category) of a campaign: configuration, then kernels.json, then the op."""
    entries = {e["example"]: e for e in kernel_entries(kernels_json)}
    name = category = None
    for key in [op, *bundles]:
        settings = config.kernel(key)
        name = name or settings.name
        category = category or settings.category
    for b in bundles:
        entry = entries.get(b, {})
        name = name or (entry.get("name") if isinstance(entry.get("name"), str) else None)
        category = category or (entry.get("op_category") if isinstance(entry.get("op_category"), str) else None)
    return name or op, category


def _row_notes(campaign: Campaign, by_shape: Mapping[str, Mapping[str, list[ResultRow]]]) -> list[str]:
    """Notes about rows the rules set aside: unknown shapes, repeated (shape, provider) rows."""
    notes = []
    known = {s.shape_id for s in campaign.ledger}
    stray = sum(len(rs) for sid, provs in by_shape.items() if sid not in known for rs in provs.values())
    if stray:
        notes.append(f"{stray} result rows name shapes that are not in the ledger (ignored)")
    repeated = sum(1 for sid, provs in by_shape.items() if sid in known for rs in provs.values() if len(rs) > 1)
    if repeated:
        notes.append(f"{repeated} (shape, provider) pairs have several rows: the last usable one counts")
    return notes


# ---------------------------------------------------------------- sweep


def score_sweep(sweep_root: str | os.PathLike, config: SweepConfig | None = None,
                kernels_json: Mapping[str, Any] | None = None) -> dict[str, KernelScore | InputError]:
    """Score every campaign under a sweep root; a broken campaign maps to its InputError.

    ``config`` defaults to the sweep's ``kernel-atlas.toml`` and ``kernels_json`` to its
    ``docs/data/kernels.json`` (a broken one of those raises: they concern every kernel).
    """
    root = os.fspath(sweep_root)
    config = config if config is not None else load_config(root)
    if kernels_json is None:
        kernels_json = load_kernels_json(root)
    out: dict[str, KernelScore | InputError] = {}
    for op, folder in find_campaign_folders(root).items():
        out[op] = score_folder(folder, config, kernels_json, name=op,
                               rel=rel_path(folder, root))
    return out


def score_folder(folder: str, config: SweepConfig, kernels_json: Mapping[str, Any] | None = None,
                 name: str | None = None, rel: str | None = None) -> KernelScore | InputError:
    """Read and score one campaign folder; its InputError is returned, not raised."""
    try:
        return score_campaign(read_campaign(folder, name=name, rel=rel), config, kernels_json)
    except InputError as err:
        return err


def verdicts_document(scores: Mapping[str, KernelScore | InputError], root: str | None = None,
                      shapes: bool = True) -> dict[str, Any]:
    """The ``verdicts --json`` document: scored campaigns, untimed ones, errors.

    Error paths are made relative to ``root`` so that the document holds no local path.
    """
    campaigns, untimed, errors = {}, {}, {}
    for op in sorted(scores):
        item = scores[op]
        if isinstance(item, InputError):
            errors[op] = item.relative_to(root)
        elif item.verdict == UNTIMED:
            untimed[op] = {"n_shapes": item.n_shapes, "path": item.path, "name": item.name}
        else:
            campaigns[op] = item.to_json(shapes=shapes)
    return {"format_version": FORMAT_VERSION, "campaigns": campaigns, "untimed": untimed, "errors": errors}
