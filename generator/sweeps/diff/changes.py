"""The objects of a sweep diff: options, causes, changes, one kernel's diff and the sweep's."""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any, Mapping

from generator.analyze.verdicts import Thresholds, args_text
from generator.model import record
from generator.words import ratio_text

REGRESSION, IMPROVEMENT, NEUTRAL = "regression", "improvement", "neutral"
#: The relative move a shape's speedup must beat (besides its own noise) to be a regression or
#: an improvement (issue 22: one shape 17 % slower with 3 % noise is a regression).
SHAPE_MIN_CHANGE = 0.05
CANDIDATE, BASELINE, ENVIRONMENT, NOISE, UNEXPLAINED = "candidate", "baseline", "environment", "noise", "unexplained"
#: A cause that is the comparison's: the baselines compared with changed (one added, removed, starting or
#: ceasing to pass), so the speedup moved with neither side's time.
COMPARISON = "comparison"
#: A cause that is the check's: the harness's correctness check changed (the candidate and a baseline at the
#: same commit start or cease to pass it together on the same shapes), neither kernel's doing.
CHECK = "check"
#: Who moved, in display order: the candidate, a baseline, the comparison, the check (``Cause.sides``).
SIDES = (CANDIDATE, BASELINE, COMPARISON, CHECK)
#: The sides whose move is no kernel's time: a kernel moved by them alone keeps its standing.
NOT_A_KERNEL = (COMPARISON, CHECK)
DIFF_MARKER = "<!-- kernel-atlas-diff -->"
#: Verdicts from best to worst (a move right is a regression).
VERDICT_RANK = {"WIN": 0, "PARITY": 1, "HEADROOM": 2, "BLOCKED": 3}
#: Verdict order in counts.
VERDICT_ORDER = ("WIN", "PARITY", "HEADROOM", "BLOCKED", "UNTIMED")
#: Environment keys that version a baseline provider (besides its commit).
PROVIDER_ENVIRONMENT = {"pytorch": "torch", "triton": "triton"}


@record(frozen=True)
class DiffOptions:
    """Thresholds of the comparison (see the module docstring)."""

    min_change: float = 0.02  # relative floor every timing change must beat, besides the noise
    stall_points: float = 0.05  # stall-ratio change (as a fraction) that counts as a hotspot shift
    renames: tuple[tuple[str, str], ...] = ()  # (old slug, new slug) pairs compared as one kernel


@record
class Cause:
    """Why a change happened: candidate, baseline, environment, noise or unexplained."""

    kind: str
    detail: str
    sides: tuple[str, ...] = ()  # who moved by this cause: of SIDES (none for noise)

    @property
    def text(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else self.kind

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "detail": self.detail, "sides": list(self.sides)}


class MovedBy:
    """Who moved a change or a kernel, read from its ``causes`` (a change's own, a kernel's summary of its shapes')."""

    causes: list  # Cause

    @property
    def movers(self) -> tuple[str, ...]:
        """Who moved (of SIDES, in that order), by the causes."""
        return movers_of(self.causes)

    @property
    def comparison_only(self) -> bool:
        """The move is the comparison's or the check's alone: no regression or improvement of the candidate
        (nor a baseline's time)."""
        return bool(self.movers) and all(m in NOT_A_KERNEL for m in self.movers)


@record
class Change(MovedBy):
    """One difference between the sweeps, on one kernel (or the whole sweep)."""

    kind: str  # verdict, flags, geomean, shape, shape-status, shape-new, shape-removed, kernel-new,
    #           kernel-removed, kernel-renamed, hotspot, provenance
    slug: str | None
    item: str  # what changed: "verdict", "geomean_vs_best", "speedup", "stall_ratio", "rocm"...
    old: Any
    new: Any
    significant: bool
    direction: str  # regression, improvement, neutral
    ratio: float | None = None  # new / old for timing changes
    threshold: float | None = None  # the factor exp(T) the ratio had to beat
    causes: list[Cause] = field(default_factory=list)
    shape_id: str | None = None
    args: dict[str, Any] | None = None
    dtype: str = ""
    text: str = ""  # one display line

    @property
    def shape_text(self) -> str:
        """``M=1 N=128 bf16``: the shape's args, then its dtype."""
        return shape_text(self.args, self.dtype)

    @property
    def cause_text(self) -> str:
        return "; ".join(c.text for c in self.causes)

    def counts(self, strict: bool = False) -> bool:
        """A significant regression or improvement that ``--fail-on-regression`` counts: one the candidate
        moved in (``strict``: anyone, the comparison included)."""
        if not self.significant or self.direction == NEUTRAL:
            return False
        return bool(self.movers) if strict else CANDIDATE in self.movers

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "slug": self.slug,
            "item": self.item,
            "old": self.old,
            "new": self.new,
            "significant": self.significant,
            "direction": self.direction,
            "ratio": self.ratio,
            "threshold": self.threshold,
            "causes": [c.to_json() for c in self.causes],
            "movers": list(self.movers),
            "shape_id": self.shape_id,
            "args": self.args,
            "dtype": self.dtype,
            "text": self.text,
        }


@record
class KernelDiff(MovedBy):
    """Every change of one kernel (matched by slug, or by a rename)."""

    slug: str  # the NEW slug (the OLD one when the kernel was removed)
    name: str
    old_slug: str | None
    status: str  # changed, same, new, removed
    old_verdict: str | None
    new_verdict: str | None
    old_geomean: float | None
    new_geomean: float | None
    changes: list[Change] = field(default_factory=list)
    n_shapes_common: int = 0  # shapes measured on both sides
    n_shapes_both: int = 0  # shapes present on both sides, measured or not (the "of N" of the shape counts)
    old_ratio: float | None = None  # the ratio each side's verdict rests on (VERDICTS rule 12)
    new_ratio: float | None = None
    labels: dict[str, str] = field(default_factory=dict)  # shape id -> its label, unique in the kernel

    def of_kind(self, *kinds: str) -> list[Change]:
        return [c for c in self.changes if c.kind in kinds]

    @property
    def significant(self) -> list[Change]:
        return [c for c in self.changes if c.significant]

    @property
    def direction(self) -> str:
        """regression / improvement of the kernel as a whole.

        The geomean decides when both sides have one (a verdict flip within the noise is
        no regression); else a verdict move (e.g. to BLOCKED); else a change in hard failures.
        """
        g = self.headline_change
        if g is not None and g.ratio is not None:
            if g.significant:
                return g.direction
        else:
            for c in self.of_kind("verdict", "verdict_ratio", "geomean"):
                if c.direction != NEUTRAL:
                    return c.direction
        for c in self.of_kind("failures"):
            return c.direction
        return NEUTRAL

    @property
    def standing(self) -> str:
        """The direction counted as the kernel's regression or improvement: neutral for a move that is
        the comparison's alone (it is listed as a comparison change instead)."""
        return NEUTRAL if self.comparison_only else self.direction

    @property
    def comparison_changed(self) -> bool:
        """Some baseline compared with was added, removed, or started or ceased to pass (or the check changed)."""
        return any(side in c.sides for ch in self.changes for c in ch.causes for side in NOT_A_KERNEL)

    def label(self, c: Change) -> str:
        """A shape change's label, unique in this kernel's tables."""
        return self.labels.get(c.shape_id or "", c.shape_text)

    @property
    def geomean_change(self) -> Change | None:
        """The move of the geomean vs any baseline."""
        return next(iter(self.of_kind("geomean")), None)

    @property
    def headline_change(self) -> Change | None:
        """The move of the kernel's headline number: the ratio its verdict rests on when both sides
        read it on the same basis (VERDICTS rule 12), else the geomean vs any baseline."""
        return next(iter(self.of_kind("verdict_ratio")), None) or self.geomean_change

    @property
    def verdict_change(self) -> Change | None:
        return next(iter(self.of_kind("verdict")), None)

    @property
    def causes_subject(self) -> str:
        """What ``causes`` are about: "verdict", "geomean" or "shapes"."""
        for c in self.of_kind("verdict", "geomean"):
            if c.causes:
                return c.kind
        return "shapes"

    @property
    def shown_causes(self) -> tuple[str, list[Cause]]:
        """What a report says the kernel is listed for, and its causes: ``causes_subject`` and ``causes``,
        unless those are of a headline move within noise while shapes moved beyond theirs: then "shapes"
        and the causes the moved shapes name (a kernel listed for its shapes is not "noise")."""
        headline = [c for c in self.of_kind("verdict", "verdict_ratio", "geomean") if c.causes]
        moved = [c for c in self.significant if c.kind in ("shape", "shape-status")]
        if not headline or any(c.significant for c in headline) or not moved:
            return self.causes_subject, self.causes
        seen: dict[str, Cause] = {}
        for c in moved:
            for cause in c.causes:
                seen.setdefault(cause.text, cause)
        return "shapes", list(seen.values())

    @property
    def shape_regressions(self) -> list[Change]:
        """Shapes whose speedup fell beyond their own noise and ``SHAPE_MIN_CHANGE``, not by the comparison alone."""
        return [c for c in self.changes if c.kind == "shape" and c.significant and c.direction == REGRESSION
                and not c.comparison_only]

    def failing_shapes(self, strict: bool = False) -> list[Change]:
        """The shapes ``--fail-on-regression`` fails on: slower, or no longer measured, with the candidate
        among the movers (``strict``: anyone)."""
        return [c for c in self.changes if c.kind in ("shape", "shape-status") and c.direction == REGRESSION
                and c.counts(strict)]

    def fails(self, strict: bool = False) -> bool:
        """The kernel regressed as a whole with the candidate among the movers (``strict``: anyone)."""
        return self.direction == REGRESSION and (bool(self.movers) if strict else CANDIDATE in self.movers)

    @property
    def causes(self) -> list[Cause]:
        """The causes of the kernel's headline change (verdict / geomean: the summary of its shapes'), else of its shapes."""
        for c in self.of_kind("verdict", "verdict_ratio", "geomean"):
            if c.causes:
                return c.causes
        seen: dict[str, Cause] = {}
        kernel_level = [c for c in self.significant if not c.kind.startswith("shape")]
        for c in kernel_level if any(c.causes for c in kernel_level) else self.significant:  # a summary before its shapes
            for cause in c.causes:
                seen.setdefault(cause.text, cause)
        return list(seen.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "old_slug": self.old_slug,
            "name": self.name,
            "status": self.status,
            "direction": self.direction,
            "old_verdict": self.old_verdict,
            "new_verdict": self.new_verdict,
            "old_geomean": self.old_geomean,
            "new_geomean": self.new_geomean,
            "old_ratio": self.old_ratio,
            "new_ratio": self.new_ratio,
            "n_shapes_common": self.n_shapes_common,
            "n_shapes_both": self.n_shapes_both,
            "movers": list(self.movers),
            "standing": self.standing,
            "changes": [dict(c.to_json(), label=self.label(c)) if c.shape_id else c.to_json() for c in self.changes],
        }


@record
class SweepDiff:
    """The comparison of two sweeps."""

    old_label: str
    new_label: str
    old_counts: dict[str, int]
    new_counts: dict[str, int]
    kernels: list[KernelDiff]  # by slug
    provenance: list[Change]  # sweep-level provenance changes
    notes: list[str]
    options: DiffOptions

    @property
    def regressions(self) -> list[KernelDiff]:
        """Kernels that regressed, a move of the comparison alone left out."""
        return [k for k in self.kernels if k.standing == REGRESSION]

    @property
    def shape_regressions(self) -> list[Change]:
        """Every shape of every kernel that regressed beyond its own noise, not by the comparison alone."""
        return [c for k in self.kernels for c in k.shape_regressions]

    @property
    def improvements(self) -> list[KernelDiff]:
        """Kernels that improved, a move of the comparison alone left out."""
        return [k for k in self.kernels if k.standing == IMPROVEMENT]

    @property
    def comparison_changes(self) -> list[KernelDiff]:
        """Kernels whose baselines compared with changed (added, removed, starting or ceasing to pass)."""
        return [k for k in self.kernels if k.comparison_changed]

    def failing(self, strict: bool = False) -> tuple[list[KernelDiff], list[Change]]:
        """What ``--fail-on-regression`` fails on: the kernels and shapes the candidate regressed in
        (``strict``: also those a baseline or the comparison moved down)."""
        return ([k for k in self.kernels if k.fails(strict)],
                [c for k in self.kernels for c in k.failing_shapes(strict)])

    @property
    def notable(self) -> list[KernelDiff]:
        """Kernels with a significant change, worst first (the table of the PR comment)."""
        picked = [k for k in self.kernels if k.significant]
        return sorted(picked, key=_kernel_order)

    def biggest_moves(self, n: int = 3) -> list[KernelDiff]:
        """The ``n`` kernels whose geomean moved most (significant moves only; not the comparison's alone)."""
        moved = [k for k in self.kernels if not k.comparison_only
                 and k.headline_change and k.headline_change.significant and k.headline_change.ratio]
        return sorted(moved, key=lambda k: (-_size(k.headline_change.ratio), k.slug))[:n]


def movers_of(causes: list[Cause]) -> tuple[str, ...]:
    """The sides the causes name, in SIDES order."""
    named = {s for c in causes for s in c.sides}
    return tuple(s for s in SIDES if s in named)


def _kernel_order(k: KernelDiff) -> tuple:
    """Regressions first, then improvements, then the rest; bigger moves first; by slug."""
    rank = {REGRESSION: 0, IMPROVEMENT: 1, NEUTRAL: 2}[k.standing]
    g = k.headline_change
    return (rank, 0 if k.verdict_change else 1, -_size(g.ratio if g else None), k.slug)


#: The verdict thresholds a ratio is shown against (``Thresholds``' defaults: a snapshot keeps no configuration).
CUTS = (Thresholds().headroom, Thresholds().win)


def fmt_x(value: float | None) -> str:
    """``0.87x``, never rounded across a verdict threshold (``0.947x``: ``words.ratio_text``); an em dash for None."""
    return ratio_text(value, CUTS)


def fmt_pct(ratio: float | None) -> str:
    """``+20.0%`` / ``-16.7%`` for a ratio new / old."""
    return "—" if ratio is None else f"{(ratio - 1.0) * 100:+.1f}%"


def shape_text(args: Mapping[str, Any] | None, dtype: str = "") -> str:
    """Shape arguments on one line as the verdict tables print them, then the dtype: ``M=1 N=128 bf16``."""
    return " ".join(t for t in (args_text(args or {}), dtype) if t)


def unique_labels(points: list[Any]) -> dict[str, str]:
    """Shape id -> its label (``shape_text``), unique among ``points``: two shapes that print alike get
    what tells them apart (their stage, then their model, else their shape id)."""
    labels = {p.shape_id: shape_text(p.args, p.dtype) for p in points}
    groups: dict[str, list[Any]] = {}
    for p in points:
        groups.setdefault(labels[p.shape_id], []).append(p)
    for text, same in groups.items():
        if len(same) < 2:
            continue
        for key in ("stage", "model"):
            values = [getattr(p, key, "") or "" for p in same]
            if len(set(values)) == len(values) and all(values):
                for p, v in zip(same, values):
                    labels[p.shape_id] = f"{text} {key}={v}"
                break
        else:
            for p in same:
                labels[p.shape_id] = f"{text} ({p.shape_id})"
    return labels


def _size(ratio: float | None) -> float:
    """|ln ratio| rounded, so that equal moves tie and keep their order."""
    return round(abs(math.log(ratio)), 9) if ratio else 0.0
