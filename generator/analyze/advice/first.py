"""One first step per kernel (DOMAIN §1.7, VERDICTS rule 15): which reading the overview, the kernel
page, the PR snippet and the sweep reading all name first.

In order, the first that applies:

1. ``config``: the primary capture is another configuration than the timed rows: time the captured
   configuration, or capture the timed one (the cheaper fix is named beside it);
2. ``launcher``: the launch finding with a positive gap, when the kernel verdict is no loss (WIN,
   PARITY, or BLOCKED while the kernel-clock geomean against the best baseline is at least the WIN
   threshold);
3. ``profile``: a loss split names where the kernel loses: profile a shape there, unless the primary
   capture is of a shape on that side (its timed shape, read from its findings' evidence: the shape its
   launch names or whose bytes it moves), when its findings describe the losing side: go on;
4. ``finding``: the primary capture's top-ranked finding of the kernel (not the launcher);
5. ``launcher``: the launch finding with a positive gap, when the captures give nothing to act on;
6. ``profile``: a HEADROOM verdict on its shapes with nothing else: profile its worst shape.

A shape to profile is a losing verdict shape (its ratio below the HEADROOM threshold) and never the
capture's own shape: that one is profiled already.

Findings of different units (a share of stall cycles, a share of a call) are never ranked against
each other here: each rung reads one kind.
"""

from __future__ import annotations

from typing import Any, Sequence

from generator.analyze.verdicts.rules import BLOCKED, HEADROOM, PARITY, WIN, reaches
from generator.model import record

LAUNCH = "launch_overhead"


@record(frozen=True)
class FirstStep:
    """The kind of a kernel's first step, the finding it is (an index into the primary capture's
    findings), or the shape to profile."""

    kind: str  # "config", "launcher", "profile", "finding"
    finding: int | None = None
    shape: Any = None  # a ShapeResult (kind "profile")
    side: Any = None  # the loss split it aims at (kind "profile"), or None


def _get(f: Any, key: str, default: Any = None) -> Any:
    return f.get(key, default) if isinstance(f, dict) else getattr(f, key, default)


def _launch(findings: Sequence) -> int | None:
    """The launch finding with a positive gap (a flag costs nothing), as an index."""
    for i, f in enumerate(findings):
        ev = _get(f, "evidence") or {}
        if _get(f, "detector") == LAUNCH and not _get(f, "flagged", False) and _get(f, "suggestion") \
                and (ev.get("launch_overhead_us") or 0) > 0:
            return i
    return None


def _top(findings: Sequence) -> int | None:
    """The top-ranked finding of the kernel itself (ranked, not flagged, with a suggestion, not the launcher)."""
    for i, f in enumerate(findings):
        if _get(f, "detector") != LAUNCH and _get(f, "ranked", True) and not _get(f, "flagged", False) \
                and _get(f, "suggestion"):
            return i
    return None


def no_kernel_loss(score: Any) -> bool:
    """WIN or PARITY, or BLOCKED while the kernel-clock geomean against the best baseline reaches WIN."""
    if score is None:
        return False
    if score.verdict in (WIN, PARITY):
        return True
    g = (getattr(score, "kernel_vs_any", None) or [None])[0]
    return score.verdict == BLOCKED and g is not None and reaches(g, score.thresholds.win)


def captured_shape(findings: Sequence) -> str | None:
    """The timed shape the primary capture is (its shape id), as its findings' evidence names it: the
    profiled-shape blocker's ``shape_id``, else a bandwidth reading's ``timed.shape_id``; None when no
    finding places the capture on a timed shape."""
    for f in findings:
        ev = _get(f, "evidence") or {}
        if _get(f, "detector") == "profiled_shape" and ev.get("shape_id"):
            return ev["shape_id"]
    for f in findings:
        timed = ((_get(f, "evidence") or {}).get("bandwidth") or {}).get("timed") or {}
        if timed.get("shape_id"):
            return timed["shape_id"]
    return None


def losing_shape(score: Any, captured: str | None = None) -> Any:
    """The shape to profile: the worst of the split's losing side, else the worst verdict shape; a losing
    one (below the HEADROOM threshold) that is not the capture's own shape; None when none is left."""
    split = score.where.loss_split if getattr(score, "where", None) is not None else None
    limit = score.thresholds.headroom
    shapes = [s for s in score.shapes if s.is_verdict_shape and s.shape_id != captured
              and s.verdict_speedup is not None and s.verdict_speedup < limit]
    if split is not None:
        side = set(split.shapes)
        shapes = [s for s in shapes if s.shape_id in side]
    return min(shapes, key=lambda s: s.verdict_speedup) if shapes else None


def choose(score: Any, findings: Sequence, other_config: bool) -> FirstStep | None:
    """The first step of one kernel (module docstring); None when nothing applies."""
    if other_config:
        return FirstStep("config")
    launch, top = _launch(findings), _top(findings)
    if launch is not None and no_kernel_loss(score):
        return FirstStep("launcher", launch)
    captured = captured_shape(findings)
    split = score.where.loss_split if score is not None and getattr(score, "where", None) is not None else None
    if split is not None and not (top is not None and captured in split.shapes):
        shape = losing_shape(score, captured)
        if shape is not None:
            return FirstStep("profile", shape=shape, side=split)
    if top is not None:
        return FirstStep("finding", top)
    if launch is not None:
        return FirstStep("launcher", launch)
    if score is not None and score.verdict == HEADROOM and score.verdict_basis == "shapes":
        shape = losing_shape(score, captured)
        return FirstStep("profile", shape=shape) if shape is not None else None
    return None
