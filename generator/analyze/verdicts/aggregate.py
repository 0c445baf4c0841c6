"""Per kernel: the one verdict over its scored shapes (``summarize`` fills a ``KernelScore``).

``summarize`` counts the shapes, reads the like-for-like evidence (rules 10-12) and climbs the
ladder to the verdict, with the two clocks (rule 13), the graph replay's gaps (rules 10, 16), the
shape bootstrap that says how sure (rule 14), the variants' geomeans and the table's columns.
The record it returns, with its words and JSON, is ``verdicts.kernel.KernelScore``.
"""

from __future__ import annotations

from typing import Any

import generator.analyze.verdicts.clocks as clk
import generator.analyze.verdicts.replay as replay
from generator.analyze.verdicts.headline import HeadlinePair, on_clock
from generator.analyze.verdicts.intervals import crosses, verdict_intervals
from generator.analyze.verdicts.kernel import KernelScore
from generator.analyze.verdicts.reasons import verdict_reason
from generator.analyze.verdicts.rules import (
    BLOCKED,
    Thresholds,
    decide_ladder,
    geomean,
    median,
    methods_differ,
    shape_splits,
    spread,
    weighted_geomean,
)
from generator.analyze.verdicts.shapes import ShapeResult
from generator.config import DEFAULT_REFERENCE


def summarize(op: str, shapes: list[ShapeResult], thresholds: Thresholds = Thresholds(),
              reference: str = DEFAULT_REFERENCE, candidate: str = "flydsl",
              headline: HeadlinePair | None = None, floor_us: float | None = None,
              pair_device_us: float | None = None, clock: str = clk.KERNEL,
              file_order: dict[str, int] | None = None) -> KernelScore:
    """Aggregate scored shapes into a KernelScore (display fields left at their defaults).

    ``headline`` is the profiling sweep's pair (rung ``pair`` of the ladder) and ``floor_us``
    the timing floor the shapes were scored against (rule 11); ``pair_device_us`` the pair's
    kernel on the bundle's device timer and ``clock`` the campaign's (rule 13); ``file_order`` maps a
    shape to the index of its first row, the order rule 14 resamples in (default: ``shapes``' order).
    """
    measured = [s for s in shapes if s.measured]
    speedups = [s.speedup for s in measured]
    g = geomean(speedups)
    per_baseline, stages, models = shape_splits(measured)
    outcomes = [s.outcome for s in measured]
    statuses = [s.candidate_status for s in shapes]
    cand_ok = sum(1 for s in shapes if s.candidate_us is not None)
    n_failed = sum(1 for st in statuses if st in ("failed", "oom"))
    n_incorrect = statuses.count("incorrect")
    n_unsupported = statuses.count("unsupported")
    n_missing = statuses.count(None)
    hard = sum(1 for s in shapes if s.hard_failure)
    noise = median(s.noise for s in measured if s.noise is not None)
    failures = replay.capture_failures(shapes, reference)
    partial = replay.partial_replay(shapes, floor_us)
    if partial is not None:
        replay.drop_graph_evidence(shapes)
    evidence = _evidence(measured, reference)
    kernel_shapes = replay.kernel_evidence(measured, partial is not None)
    launch = clk.launch_shapes(measured, floor_us)
    for shape in launch:
        shape.launch_shape = True
    overhead = clk.launch_overhead(launch)
    pair_clock = clk.pair_clock(headline.candidate_us, pair_device_us, overhead) if headline else None
    kernel_pair = headline.speedup if headline and pair_clock != clk.CALL else None
    verdict, basis = decide_ladder(len(measured), hard, evidence["verdict_g"], evidence["reference_only"],
                                   kernel_pair, evidence["floor_only"], evidence["bound_g"], thresholds)
    weighted = [(s.speedup, s.weight) for s in measured if s.weight is not None and s.weight > 0]
    like = [s for s in measured if s.like_for_like_speedup is not None]
    mismatch = sum(1 for s in measured if s.scope_mismatch)
    score = KernelScore(
        op=op,
        name=op,
        path=op,
        candidate=candidate,
        reference=reference,
        thresholds=thresholds,
        verdict=verdict,
        verdict_reason="",
        verdict_basis=basis,
        n_shapes=len(shapes),
        n_measured=len(measured),
        n_measurable=sum(1 for s in shapes if s.measurable),
        n_not_run=sum(1 for s in shapes if not s.providers),
        geomean_vs_best=g,
        weighted_geomean_vs_best=weighted_geomean(weighted),
        n_weighted=len(weighted),
        per_baseline=per_baseline,
        stage_split=stages,
        model_split=models,
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
        uncertain=False,
        reference_only=bool(measured) and all(s.best_baseline == reference for s in measured),
        providers=_columns(shapes, candidate),
        shapes=shapes,
        suspect_reference=sum(1 for s in shapes if s.suspect_reference),
        scope_mismatch_shapes=mismatch,
        like_for_like_geomean=[geomean(s.like_for_like_speedup for s in like), len(like)] if like else None,
        like_for_like_reference_only=bool(like) and all(s.like_for_like_baseline == reference for s in like),
        like_for_like_mixed=sum(1 for s in like if methods_differ(s.providers[candidate], s.providers[s.like_for_like_baseline])),
        not_like_for_like=2 * mismatch > len(measured),
        above_roof=sorted([s.shape_id, p] for s in shapes for p in s.above_roof),
        verdict_geomean=evidence["verdict_geomean"],
        verdict_reference_only=evidence["reference_only"],
        at_floor=evidence["at_floor"],
        not_comparable=evidence["not_comparable"],
        floor_us=floor_us,
        bound_geomean=evidence["bound_geomean"],
        pair_speedup=headline.speedup if headline and basis == "pair" else None,
        blocked_reason=_BLOCKED_REASONS.get(basis) if verdict == BLOCKED else None,
        unverified=sum(1 for s in measured if s.unverified),
        headline=on_clock(headline, pair_clock),
        variants=_variant_geomeans(shapes),
        launch_overhead_us=overhead,
        launch_baseline=_most_common(s.clocks.best_call_baseline for s in launch),
        launch_scope_differs=clk.launch_scope_differs(launch),
        launch_path_us=clk.launch_path(launch) if partial is None else None,  # rule 16: no graph evidence
        launch_bound_shapes=clk.launch_bound(measured),
        pair_device_us=pair_device_us if headline else None,
        pair_clock=pair_clock,
        graph_capture_failed=replay.capture_failed_count(failures),
        capture_failures=failures,
        graph_partial=partial is not None,
        partial_replay=partial,
        kernel_vs_any=[geomean(s.speedup for s in kernel_shapes), len(kernel_shapes)] if kernel_shapes else None,
        kernel_outcomes=[sum(s.outcome == o for s in kernel_shapes) for o in ("win", "parity", "loss")],
        kernel_worst=min(kernel_shapes, key=lambda s: s.speedup) if kernel_shapes else None,
    )
    if verdict == BLOCKED and basis == "failures" and hard <= len(measured):
        score.blocked_reason = "no measured shape"
    if clock == clk.CALL and basis != "failures":
        _call_clock_only(score)
    _how_sure(score, [s for s in measured if s.is_verdict_shape], file_order or {s.shape_id: i for i, s in enumerate(shapes)})
    score.verdict_reason, score.verdict_reason_msg = verdict_reason(score, shapes)
    return score


def _call_clock_only(score: KernelScore) -> None:
    """A campaign timed on the call clock alone has no kernel evidence: BLOCKED, its rung-2
    geomean kept beside as ``call_geomean`` (rule 13)."""
    score.clock = clk.CALL
    score.call_geomean = score.verdict_geomean
    score.verdict, score.verdict_basis = BLOCKED, "none"
    score.blocked_reason = "timed on the call clock only"
    score.pair_speedup = None


def _how_sure(score: KernelScore, verdict_shapes: list[ShapeResult], file_order: dict[str, int]) -> None:
    """Rule 14: the shape bootstrap of a ``shapes`` verdict and whether it reaches across a threshold;
    ``uncertain`` is the intervals' (the p90/p10 spread stays a per-shape figure)."""
    if score.verdict_basis != "shapes" or score.verdict == BLOCKED:
        score.uncertain = False
        return
    whole, models, n_models = verdict_intervals(verdict_shapes, file_order)
    score.verdict_ci, score.verdict_ci_models, score.n_model_shapes = whole, models, n_models
    score.uncertain_ci = crosses(score.verdict, whole, score.thresholds)
    score.uncertain_models = crosses(score.verdict, models, score.thresholds)
    score.uncertain = bool(score.uncertain_ci or score.uncertain_models)


def _most_common(names) -> str | None:
    """The name given most often (ties: the first given), None for none."""
    counts: dict[str, int] = {}
    for n in names:
        if n:
            counts[n] = counts.get(n, 0) + 1
    return max(counts, key=counts.get) if counts else None


#: ``blocked_reason`` by the rung that gave BLOCKED.
_BLOCKED_REASONS = {"failures": "hard failures", "none": "no like-for-like baseline"}


def _evidence(measured: list[ShapeResult], reference: str) -> dict[str, Any]:
    """The like-for-like reading of the measured shapes (rules 10-12) for the ladder."""
    judged = [s for s in measured if s.verdict_baseline is not None]
    verdict_shapes = [s for s in judged if not s.at_floor]
    bound = [s.bound_speedup for s in measured if s.verdict_baseline is None and s.bound_speedup is not None]
    g = geomean(s.verdict_speedup for s in verdict_shapes)
    bound_g = geomean(bound)
    return {
        "verdict_g": g,
        "verdict_geomean": [g, len(verdict_shapes)] if verdict_shapes else None,
        "reference_only": bool(verdict_shapes) and all(s.verdict_baseline == reference for s in verdict_shapes),
        "at_floor": len(judged) - len(verdict_shapes),
        "floor_only": len(judged) if judged and not verdict_shapes else 0,
        "not_comparable": len(measured) - len(judged),
        "bound_g": bound_g,
        "bound_geomean": [bound_g, len(bound)] if bound else None,
    }


def _variant_geomeans(shapes: list[ShapeResult]) -> dict[str, list]:
    """Each variant's [geomean of verdict baseline / variant, n] over the shapes where it has one."""
    ratios: dict[str, list[float]] = {}
    for s in shapes:
        for p, r in s.variants.items():
            ratios.setdefault(p, [])
            if r.speedup is not None:
                ratios[p].append(r.speedup)
    return {p: [geomean(xs), len(xs)] if xs else [None, 0] for p, xs in ratios.items()}


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
