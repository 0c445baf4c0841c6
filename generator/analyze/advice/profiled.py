"""Which timed shape the capture is, and whether the kernel loses there.

A capture profiles one dispatch at one size. When the timing campaign measured a shape
that moves the capture's bytes (``streaming.timed_bandwidth``) and the candidate is at
parity or better there while the verdict loses elsewhere, the hotspots describe a shape
the kernel already matches: the plan opens with "profile a losing shape". Kernels with
MFMA are left out (their requested bytes count L2 re-reads, so they match no shape's
ideal bytes). The premise is the verdict's own evidence (VERDICTS rule 12): only a verdict
that rests on the shapes says where the kernel loses, and each shape is read against its
verdict baseline (rule 10), never a correctness anchor or a baseline that times more work.
"""

from __future__ import annotations

from typing import Any

from generator.analyze.advice.context import trace_timing
from generator.analyze.advice.registry import Finding, detector, words
from generator.analyze.advice.streaming import bandwidth, gap_message
from generator.analyze.message import msg
from generator.analyze.advice.view import KernelView

#: How many losing shapes the finding names.
LOSSES_NAMED = 3


def _shape_text(args: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in args.items())


def verdict_ratio(sh: Any) -> float | None:
    """A shape's ratio as the verdict reads it (verdict baseline / candidate), None when it is no verdict shape."""
    return sh.verdict_speedup if sh.is_verdict_shape else None


def losing_shapes(score: Any) -> list[Any]:
    """The verdict shapes the candidate loses (ratio below the HEADROOM threshold), worst first."""
    limit = score.thresholds.headroom
    lost = [sh for sh in score.shapes if (verdict_ratio(sh) or limit) < limit]
    return sorted(lost, key=verdict_ratio)


def named_shape(view: KernelView) -> dict[str, Any] | None:
    """The timed shape an Nsight Compute capture names (``extra["shape"]``, from its provenance):
    ``{shape, shape_id, name}``, or None when the capture names none."""
    shape = view.analysis.extra.get("shape")
    if not isinstance(shape, dict) or not shape.get("shape_id") or not isinstance(shape.get("args"), dict):
        return None
    return {"shape": _shape_text(shape["args"]), "shape_id": shape["shape_id"], "name": shape.get("name") or ""}


def _profiled(view: KernelView) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the timed shape the capture is, its bandwidth reading): the shape its launch names (NCU), else the
    timed shape that moves its bytes (``streaming.timed_bandwidth``; not on MFMA kernels, whose requested
    bytes count L2 re-reads)."""
    named = named_shape(view)
    if named is not None:
        return named, None
    if view.has_mfma:
        return None, None
    bw = bandwidth(view)
    return (bw or {}).get("timed"), bw


@detector("profiled_shape", kind="blocker")
def detect_profiled_shape(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The capture's shape is one the kernel does not lose: profile a losing one."""
    score = view.context.verdict
    if (getattr(score, "verdict", None) != "HEADROOM" or not getattr(score, "shapes", None)
            or score.verdict_basis != "shapes"):  # a pair or a bound decided: the shapes do not say where it loses
        return []
    timed, bw = _profiled(view)
    if not timed:
        return []
    here = next((sh for sh in score.shapes if sh.shape_id == timed["shape_id"]), None)
    lost = losing_shapes(score)
    ratio = verdict_ratio(here) if here is not None else None
    if ratio is None or ratio < score.thresholds.headroom or not lost:
        return []
    return [_profiled_finding(score, here, ratio, lost, timed, bw)]


def _profiled_finding(score: Any, here: Any, ratio: float, lost: list[Any], timed: dict[str, Any],
                      bw: dict[str, Any] | None) -> Finding:
    """The blocker: the profiled shape (by its bytes, or named by the capture) wins; ``lost`` are where it loses."""
    worst = lost[:LOSSES_NAMED]
    named = ", ".join(f"{_shape_text(sh.args)} ({verdict_ratio(sh):.2f}x)" for sh in worst)
    nums = {"shape": timed["shape"], "cand": score.candidate,
            "cand_us": f"{here.verdict_candidate_us:.2f}", "base_us": f"{here.verdict_baseline_us:.2f}",
            "base": here.verdict_baseline, "x": f"{ratio:.2f}"}
    how = {"mb": f"{bw['bytes'] / 1e6:.1f}"} if bw is not None else {"name": timed["name"] or timed["shape"]}
    variant = "" if bw is not None else ".named"
    which = (f"the capture moves {how['mb']} MB per dispatch, the bytes of the timed shape {nums['shape']}"
             if bw is not None else f"the capture's launch is the timed shape {nums['shape']} ({how['name']})")
    summary = (f"{which}, where {nums['cand']} takes {nums['cand_us']} us against {nums['base_us']} us for "
               f"{nums['base']} ({nums['x']}x); the verdict loses elsewhere, at {len(lost)} "
               f"shape{'' if len(lost) == 1 else 's'}: {named}")
    first = {"shape": _shape_text(worst[0].args), "x": f"{verdict_ratio(worst[0]):.2f}"}
    said = words("profiled_shape", msg(
        "finding.profiled_shape.summary" + variant, n=len(lost), named=[
            msg("finding.profiled_shape.loss", shape=_shape_text(sh.args), x=f"{verdict_ratio(sh):.2f}") for sh in worst],
        **how, **nums), msg("finding.profiled_shape.try", **first))
    said["detail"] = msg("finding.profiled_shape.detail", shape=timed["shape"], x=f"{ratio:.2f}x")
    return Finding(
        detector="profiled_shape",
        title="The profiled shape is not where the kernel loses",
        stall_share=0.0,
        evidence={"summary": summary, "shape": timed["shape"], "shape_id": timed["shape_id"],
                  "speedup": ratio, "losing_shapes": [
                      {"shape": _shape_text(sh.args), "shape_id": sh.shape_id, "speedup": verdict_ratio(sh)} for sh in worst],
                  "n_losing": len(lost), "detail": f"profiled at {timed['shape']} ({ratio:.2f}x)",
                  "matched_by": "bytes" if bw is not None else "named"},
        suggestion=(f"Profile a losing shape, first {first['shape']} at {first['x']}x, before "
                    "optimizing anything. This capture shows a size the kernel already matches, so its hotspots "
                    "need not be what costs time where it loses."),
        priority="high",
        kind="blocker",
        messages=said,
        premise=msg("finding.profiled_shape.premise" + variant, shape=timed["shape"], x=nums["x"], n=len(lost),
                    measured=sum(1 for sh in score.shapes if verdict_ratio(sh) is not None), **how),
    )


@detector("timed_gap", kind="flag")
def detect_timed_gap(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The profiled dispatch ran much faster than the timed runs at the same bytes: say why."""
    if view.has_mfma:
        return []
    bw = bandwidth(view)
    if not bw or not bw.get("gap"):
        return []
    timed = bw["timed"]
    nums = {"x": f"{timed['median_us'] * 1000.0 / bw['kernel_time_ns']:.1f}", "capture": f"{bw['capture_tbs']:.2f}",
            "timed": f"{timed['achieved_tbs']:.2f}"}
    grid = _grid_median(view, bw["kernel_time_ns"])
    who = "The profiled grid's dispatches" if grid else "The profiled dispatch"
    return [Finding(
        detector="timed_gap",
        title=(f"{who} ran {nums['x']}x faster than the timed runs at the same bytes "
               f"({nums['capture']} vs {nums['timed']} TB/s)"),
        stall_share=0.0,
        evidence={"summary": bw["gap"], "bandwidth": bw, "detail": "profiled and timed rates disagree"},
        suggestion=("Read the capture's memory waits as shorter than in the timed runs, and the timed rate as "
                    "including the fixed cost of the timed region; the verdict stands on the timed runs."),
        priority="info",
        kind="flag",
        messages=words("timed_gap", gap_message(bw), title=msg("finding.timed_gap.title" + (".grid" if grid else ""),
                                                               **nums)),
        premise=_gap_premise(bw, timed, grid),
    )]


def _grid_median(view: KernelView, time_ns: float) -> dict[str, Any] | None:
    """The kernel trace's timing of the captured grid when it is the time the bandwidth used
    (a median over the grid's dispatches, not the captured dispatch's own duration)."""
    t = trace_timing(view.analysis, view.context.bundle)
    return t if t and t["median_ns"] == time_ns and t["own_ns"] else None


def _gap_premise(bw: dict[str, Any], timed: dict[str, Any], grid: dict[str, Any] | None):
    """What the two times are: the median of the grid's n dispatches beside the captured one's own
    (layernorm: 4.74 us, median of 112; Dispatch_Id 23 took 5.20 us), or the profiled dispatch's."""
    common = {"capture": f"{bw['kernel_time_ns'] / 1000.0:.2f}", "timed": f"{timed['median_us']:.2f}",
              "shape": timed["shape"]}
    if grid is None:
        return msg("finding.timed_gap.premise", **common)
    return msg("finding.timed_gap.premise.grid", n=grid["n"], id=grid["row"].get("Dispatch_Id"),
               own=f"{grid['own_ns'] / 1000.0:.2f}", **common)
