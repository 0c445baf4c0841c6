"""Which timed shape the capture is, and whether the kernel loses there.

A capture profiles one dispatch at one size. When the timing campaign measured a shape
that moves the capture's bytes (``streaming.timed_bandwidth``) and the candidate is at
parity or better there while the verdict loses elsewhere, the hotspots describe a shape
the kernel already matches: the plan opens with "profile a losing shape". Kernels with
MFMA are left out (their requested bytes count L2 re-reads, so they match no shape's
ideal bytes).
"""

from __future__ import annotations

from typing import Any

from generator.analyze.advice.registry import Finding, detector, words
from generator.analyze.advice.streaming import bandwidth, gap_message
from generator.analyze.message import msg
from generator.analyze.advice.view import KernelView

#: How many losing shapes the finding names.
LOSSES_NAMED = 3


def _shape_text(args: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in args.items())


def losing_shapes(score: Any) -> list[Any]:
    """The candidate's measured losses (speedup below the HEADROOM threshold), worst first."""
    limit = score.thresholds.headroom
    lost = [sh for sh in score.shapes if sh.measured and sh.speedup is not None and sh.speedup < limit]
    return sorted(lost, key=lambda sh: sh.speedup)


@detector("profiled_shape", kind="blocker")
def detect_profiled_shape(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The capture's shape is one the kernel does not lose: profile a losing one."""
    score = view.context.verdict
    if view.has_mfma or getattr(score, "verdict", None) != "HEADROOM" or not getattr(score, "shapes", None):
        return []
    bw = bandwidth(view)
    timed = (bw or {}).get("timed")
    if not timed:
        return []
    here = next((sh for sh in score.shapes if sh.shape_id == timed["shape_id"]), None)
    lost = losing_shapes(score)
    if here is None or here.speedup is None or here.speedup < score.thresholds.headroom or not lost:
        return []
    worst = lost[:LOSSES_NAMED]
    named = ", ".join(f"{_shape_text(sh.args)} ({sh.speedup:.2f}x)" for sh in worst)
    cand = here.providers[score.candidate]
    nums = {"mb": f"{bw['bytes'] / 1e6:.1f}", "shape": timed["shape"], "cand": score.candidate,
            "cand_us": f"{cand.median_us:.2f}", "base_us": f"{here.best_baseline_us:.2f}", "base": here.best_baseline,
            "x": f"{here.speedup:.2f}"}
    summary = (f"the capture moves {nums['mb']} MB per dispatch, the bytes of the timed shape {nums['shape']}, "
               f"where {nums['cand']} takes {nums['cand_us']} us against {nums['base_us']} us for {nums['base']} "
               f"({nums['x']}x); the verdict loses elsewhere, at {len(lost)} shape{'' if len(lost) == 1 else 's'}: "
               f"{named}")
    first = {"shape": _shape_text(worst[0].args), "x": f"{worst[0].speedup:.2f}"}
    said = words("profiled_shape", msg(
        "finding.profiled_shape.summary", n=len(lost), named=[
            msg("finding.profiled_shape.loss", shape=_shape_text(sh.args), x=f"{sh.speedup:.2f}") for sh in worst],
        **nums), msg("finding.profiled_shape.try", **first))
    return [Finding(
        detector="profiled_shape",
        title="The profiled shape is not where the kernel loses",
        stall_share=0.0,
        evidence={"summary": summary, "shape": timed["shape"], "shape_id": timed["shape_id"],
                  "speedup": here.speedup, "losing_shapes": [
                      {"shape": _shape_text(sh.args), "shape_id": sh.shape_id, "speedup": sh.speedup} for sh in worst],
                  "n_losing": len(lost), "detail": f"profiled at {timed['shape']} ({here.speedup:.2f}x)"},
        suggestion=(f"Profile a losing shape, first {first['shape']} at {first['x']}x, before "
                    "optimizing anything. This capture shows a size the kernel already matches, so its hotspots "
                    "need not be what costs time where it loses."),
        priority="high",
        kind="blocker",
        messages=said,
        premise=msg("finding.profiled_shape.premise", mb=nums["mb"], shape=timed["shape"], x=nums["x"],
                    n=len(lost), measured=sum(1 for sh in score.shapes if sh.measured and sh.speedup is not None)),
    )]


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
    return [Finding(
        detector="timed_gap",
        title=(f"The profiled dispatch ran {nums['x']}x faster than the timed runs at the same bytes "
               f"({nums['capture']} vs {nums['timed']} TB/s)"),
        stall_share=0.0,
        evidence={"summary": bw["gap"], "bandwidth": bw, "detail": "profiled and timed rates disagree"},
        suggestion=("Read the capture's memory waits as shorter than in the timed runs, and the timed rate as "
                    "including the fixed cost of the timed region; the verdict stands on the timed runs."),
        priority="info",
        kind="flag",
        messages=words("timed_gap", gap_message(bw), **nums),
        premise=msg("finding.timed_gap.premise", capture=f"{bw['kernel_time_ns'] / 1000.0:.2f}",
                    timed=f"{timed['median_us']:.2f}", shape=timed["shape"]),
    )]
