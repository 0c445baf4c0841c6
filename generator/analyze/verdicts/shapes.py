"""Per shape: each provider's result and the candidate's speedup over the best baseline."""

from __future__ import annotations

import operator
from dataclasses import field
from typing import Any, Mapping, Sequence

from generator.analyze.verdicts.rules import (
    FAILED_STATUSES,
    Roofs,
    Thresholds,
    at_floor,
    best_baseline,
    classify_speedup,
    common_times,
    effective_status,
    is_suspect_reference,
    like_for_like,
    pick_row,
    roof_kind,
    spread,
    verdict_baseline,
)
from generator.analyze.message import sentence
from generator.analyze.verdicts.clocks import NO_CLOCKS, ShapeClocks, shape_clocks
from generator.config import DEFAULT_REFERENCE
from generator.model import record
from generator.read.campaign_rows import SCOPE_FLAGS, LedgerShape, ResultRow
from generator.read.jsonio import compact

_scope_flags = operator.attrgetter(*SCOPE_FLAGS)


def _fmt_x(value: float | None) -> str:
    """A ratio for display: ``0.87x``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}x"


def _fmt_us(value: float | None) -> str:
    """A time for display: ``21.40``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}"


def args_text(args: Mapping[str, Any]) -> str:
    """Shape arguments on one line: ``batch=1 causal=true seq_len=128`` (ledger order)."""
    return " ".join([f"{k}={compact(v)}" for k, v in args.items()])


@record
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
    roof_kind: str = ""  # "hbm" or "compute" when above_roof (rule 9)
    effective_tflops: float | None = None
    cache_state: str | None = None  # what the caches held when timed (``l2_flushed_graph``); display only
    eager_median_us: float | None = None  # the call clock beside a graph-replayed median (rule 13); not in to_json
    graph_capture_error: str | None = None  # why its graph capture failed (rule 10); not in to_json

    @property
    def roof_text(self) -> str:
        """What rule 9 says of this row ("" when it is below every roof)."""
        if self.roof_kind == "hbm":
            return sentence("msg.roof.above", tbs=f"{self.effective_gbps / 1000:.1f}")
        if self.roof_kind == "compute":
            return sentence("msg.roof.compute", tflops=f"{self.effective_tflops:,.0f}")
        return ""

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
            "roof_kind": self.roof_kind or None,
            "effective_tflops": self.effective_tflops,
        }


@record
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
    above_roof: list[str] = field(default_factory=list)  # providers above a roof (rule 9)
    # rule 10: the comparable baseline the verdict rests on, and the times compared (common method)
    verdict_baseline: str | None = None
    verdict_candidate_us: float | None = None
    verdict_baseline_us: float | None = None
    at_floor: bool = False  # rule 11: both compared times below 1.25 x the timing floor
    bound_speedup: float | None = None  # best non-comparable baseline / candidate (rule 12, ``bound``)
    unverified: bool = False  # rule 1: measured with the candidate's or verdict baseline's check not run
    # variants (``variants.py``): provider -> its row, ``speedup`` = verdict baseline / variant (common method)
    variants: dict[str, ProviderResult] = field(default_factory=dict)
    # rule 13: the candidate's call and graph times beside the fastest baseline call
    clocks: ShapeClocks = NO_CLOCKS
    launch_shape: bool = False  # the kernel cannot hide the launch path here (set by ``summarize``)
    replay_partial: bool = False  # rule 16: the candidate's graph row misses work (set by ``summarize``)
    capture_declared: bool = False  # the ledger says the existing capture profiled this shape (unchecked)

    @property
    def verdict_speedup(self) -> float | None:
        """Verdict baseline / candidate on the common timing method (rule 10)."""
        if self.verdict_candidate_us is None or self.verdict_baseline_us is None:
            return None
        return self.verdict_baseline_us / self.verdict_candidate_us

    @property
    def is_verdict_shape(self) -> bool:
        """Measured, with a verdict baseline, and not at the floor: counts in the verdict geomean."""
        return self.measured and self.verdict_baseline is not None and not self.at_floor

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
            "verdict_baseline": self.verdict_baseline,
            "verdict_candidate_us": self.verdict_candidate_us,
            "verdict_baseline_us": self.verdict_baseline_us,
            "verdict_speedup": self.verdict_speedup,
            "at_floor": self.at_floor,
            "unverified": self.unverified,
            "providers": {p: r.to_json() for p, r in self.providers.items()},
            "variants": {p: r.to_json() for p, r in self.variants.items()},
            "candidate_call_us": self.clocks.candidate_call_us,
            "candidate_graph_us": self.clocks.candidate_graph_us,
            "best_call_us": self.clocks.best_call_us,
            "best_call_baseline": self.clocks.best_call_baseline,
            "call_gap_us": self.clocks.call_gap_us,
            "launch_shape": self.launch_shape,
        }


def score_shape(shape: LedgerShape, rows: Mapping[str, Sequence[ResultRow]], candidate: str,
                thresholds: Thresholds = Thresholds(),
                weight_keys: tuple[str, ...] = ("baseline_time_weight", "traffic_weight"),
                reference: str | None = DEFAULT_REFERENCE, roofs: Roofs | None = None,
                floor_us: float | None = None, variants: Sequence[str] = ()) -> ShapeResult:
    """Score one ledger shape from its rows (provider -> rows in file order).

    ``reference`` names the provider rule 7 does not count as independent; ``roofs`` holds
    the device's peaks for rule 9 (None: not checked); ``floor_us`` the timing floor of rule 11.
    The rows of ``variants`` are no baselines: each is set beside the verdict baseline instead.
    """
    var_rows = {p: rows[p] for p in variants if rows.get(p)}
    if var_rows:
        rows = {p: rs for p, rs in rows.items() if p not in var_rows}
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
    providers = {p: _provider_result(p, r, len(rows[p]), statuses[p], candidate, cand, cand_ok, roofs, shape.dtype)
                 for p, r in chosen.items()}
    measurable = best is not None
    suspect = is_suspect_reference(chosen, candidate, reference)
    best_like = best_baseline(chosen, candidate, like=cand) if measured else None
    spreads = [s for s in (spread(cand), spread(best)) if s is not None] if measured else []
    judged = verdict_baseline(chosen, candidate) if measured else None
    vrow, v_cand_us, v_base_us = judged or (None, None, None)
    return ShapeResult(
        shape_id=shape.shape_id,
        args=shape.args,
        stage=shape.stage,
        model=shape.model,
        models=shape.models,
        dtype=shape.dtype,
        source_kind=shape.source_kind,
        capture_declared=getattr(shape, "capture_declared", False),
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
        verdict_baseline=vrow.provider if vrow else None,
        verdict_candidate_us=v_cand_us,
        verdict_baseline_us=v_base_us,
        at_floor=judged is not None and at_floor(v_cand_us, v_base_us, floor_us),
        bound_speedup=_bound_speedup(chosen, candidate, cand) if measured else None,
        unverified=measured and (cand.correct is None or (vrow is not None and vrow.correct is None)),
        variants=_variant_results(var_rows, vrow, candidate, cand, roofs, shape.dtype) if var_rows else {},
        clocks=shape_clocks(chosen, candidate, [p for p, r in providers.items() if r.above_roof]) if measured else NO_CLOCKS,
    )


def _variant_results(var_rows: Mapping[str, Sequence[ResultRow]], vrow: ResultRow | None, candidate: str,
                     cand: ResultRow | None, roofs: Roofs | None, dtype: str) -> dict[str, ProviderResult]:
    """Each variant's chosen row, its ``speedup`` the verdict baseline's time over the variant's
    on their common timing method (None without a verdict baseline or a common method)."""
    out = {}
    for p, rs in var_rows.items():
        row = pick_row(rs)
        res = _provider_result(p, row, len(rs), effective_status(row), candidate, cand, False, roofs, dtype)
        times = common_times(row, vrow) if vrow is not None else None
        res.speedup = times[1] / times[0] if times else None
        out[p] = res
    return out


def _bound_speedup(chosen: Mapping[str, ResultRow], candidate: str, cand: ResultRow) -> float | None:
    """The best usable baseline that is not comparable with the candidate (rule 10), over the
    candidate's time: what rung ``bound`` of the ladder reads when nothing comparable remains."""
    times = [r.median_us for p, r in chosen.items()
             if p != candidate and r.usable and common_times(cand, r) is None]
    return min(times) / cand.median_us if times else None


def _provider_result(provider: str, row: ResultRow, n_rows: int, status: str, candidate: str,
                     cand: ResultRow | None, cand_ok: bool, roofs: Roofs | None, dtype: str) -> ProviderResult:
    """One provider's chosen row on a shape, as the table shows it (the speedup over the candidate's
    time when both are usable; like-for-like with the candidate's row)."""
    usable = row.usable
    baseline = provider != candidate
    kind = roof_kind(row, roofs, dtype)
    return ProviderResult(  # positional, in field order: a build makes thousands
        provider, status, usable, row.median_us, row.p10_us, row.p90_us, row.stable, row.timing_method,
        row.reason, row.line, n_rows,
        row.median_us / cand.median_us if cand_ok and usable and baseline else None,  # speedup
        row.correctness_error, row.effective_gbps,
        dict(zip(SCOPE_FLAGS, _scope_flags(row))),  # scope
        like_for_like(cand, row) if cand is not None and baseline else None,
        bool(kind), kind, row.effective_tflops, row.cache_state, row.eager_median_us, row.graph_capture_error,
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
