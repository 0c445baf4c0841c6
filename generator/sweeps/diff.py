"""Compare two sweep snapshots: what changed, whether it is real, and who caused it.

Pure functions: ``diff_snapshots(old, new, options) -> SweepDiff``, then one renderer per
output (``render_text``, ``render_markdown``, ``diff_document``). No file is read here.

When a change is real (the math)
--------------------------------
Every timing comparison is a ratio ``r = new / old`` (a geomean, a shape's speedup, a
candidate or baseline time). Its noise is the measured run-to-run spread: the kernel's
``noise`` (median over shapes of the larger ``p90/p10`` of candidate and best baseline)
for a geomean, the shape's own ``noise`` for a shape, the larger of the OLD and NEW
values. A change is *significant* when

    |ln r| > T,   T = ln max(noise_old, noise_new, 1 + min_change)

so it must beat both the noise and a relative floor (``min_change``, 2 % by default: a
steady 1 % drift is not news even on a very quiet kernel). Verdict changes are always
listed; one whose geomean change does not beat ``T`` is attributed to noise.

Who caused it (attribution)
---------------------------
speedup = best baseline time / candidate time, so a speedup ratio is
``r = b / c`` with ``c = cand_new / cand_old`` and ``b = base_new / base_old`` (for a
kernel: the geomeans of ``c`` and ``b`` over shapes measured on both sides). A side
*moved* when its ratio beats ``T``. Then, in order:

* the candidate moved and its commit changed: **candidate** (``flydsl a -> b``);
* the baseline moved and that provider's library commit changed: **baseline**;
* either side moved and the environment changed (GPU, arch, ROCm, driver, torch,
  triton; torch and triton also version the ``pytorch`` and ``triton`` baselines):
  **environment**;
* a side moved with none of these recorded: **unexplained** (rerun to rule out noise);
* the change does not beat ``T``: **noise**.

Hotspot shifts (primary capture): the top stall type or the occupancy (waves per SIMD,
limiter) changed, or the stall ratio moved by at least ``stall_points`` (5 percentage
points by default); a single ATT capture has no measured noise, so these are facts, not
tests. They are attributed to a changed candidate commit or environment when there is one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from generator.errors import InputError
from generator.model import FORMAT_VERSION
from generator.sweeps.snapshot import ENVIRONMENT_KEYS, KernelSnapshot, ShapePoint, SweepSnapshot
from generator.analyze.verdicts import args_text, geomean

DIFF_MARKER = "<!-- kernel-atlas-diff -->"
#: Verdicts from best to worst (a move right is a regression).
VERDICT_RANK = {"WIN": 0, "PARITY": 1, "HEADROOM": 2, "BLOCKED": 3}
#: Verdict order in counts.
VERDICT_ORDER = ("WIN", "PARITY", "HEADROOM", "BLOCKED", "UNTIMED")
#: Environment keys that version a baseline provider (besides its commit).
PROVIDER_ENVIRONMENT = {"pytorch": "torch", "triton": "triton"}

REGRESSION, IMPROVEMENT, NEUTRAL = "regression", "improvement", "neutral"
CANDIDATE, BASELINE, ENVIRONMENT, NOISE, UNEXPLAINED = "candidate", "baseline", "environment", "noise", "unexplained"


@dataclass(frozen=True)
class DiffOptions:
    """Thresholds of the comparison (see the module docstring)."""

    min_change: float = 0.02  # relative floor every timing change must beat, besides the noise
    stall_points: float = 0.05  # stall-ratio change (as a fraction) that counts as a hotspot shift
    renames: tuple[tuple[str, str], ...] = ()  # (old slug, new slug) pairs compared as one kernel


@dataclass
class Cause:
    """Why a change happened: candidate, baseline, environment, noise or unexplained."""

    kind: str
    detail: str

    @property
    def text(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else self.kind

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "detail": self.detail}


@dataclass
class Change:
    """One difference between the sweeps, on one kernel (or the whole sweep)."""

    kind: str  # verdict, geomean, shape, shape-status, shape-new, shape-removed, kernel-new,
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
            "shape_id": self.shape_id,
            "args": self.args,
            "dtype": self.dtype,
            "text": self.text,
        }


@dataclass
class KernelDiff:
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
        g = self.geomean_change
        if g is not None and g.ratio is not None:
            if g.significant:
                return g.direction
        else:
            for c in self.of_kind("verdict", "geomean"):
                if c.direction != NEUTRAL:
                    return c.direction
        for c in self.of_kind("failures"):
            return c.direction
        return NEUTRAL

    @property
    def geomean_change(self) -> Change | None:
        return next(iter(self.of_kind("geomean")), None)

    @property
    def verdict_change(self) -> Change | None:
        return next(iter(self.of_kind("verdict")), None)

    @property
    def causes(self) -> list[Cause]:
        """The causes of the kernel's headline change (verdict / geomean), else of its shapes."""
        for c in self.of_kind("verdict", "geomean"):
            if c.causes:
                return c.causes
        seen: dict[str, Cause] = {}
        for c in self.significant:
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
            "n_shapes_common": self.n_shapes_common,
            "changes": [c.to_json() for c in self.changes],
        }


@dataclass
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
        return [k for k in self.kernels if k.direction == REGRESSION]

    @property
    def improvements(self) -> list[KernelDiff]:
        return [k for k in self.kernels if k.direction == IMPROVEMENT]

    @property
    def notable(self) -> list[KernelDiff]:
        """Kernels with a significant change, worst first (the table of the PR comment)."""
        picked = [k for k in self.kernels if k.significant]
        return sorted(picked, key=_kernel_order)

    def biggest_moves(self, n: int = 3) -> list[KernelDiff]:
        """The ``n`` kernels whose geomean moved most (significant moves only)."""
        moved = [k for k in self.kernels
                 if k.geomean_change and k.geomean_change.significant and k.geomean_change.ratio]
        return sorted(moved, key=lambda k: (-_size(k.geomean_change.ratio), k.slug))[:n]


def _kernel_order(k: KernelDiff) -> tuple:
    """Regressions first, then improvements, then the rest; bigger moves first; by slug."""
    rank = {REGRESSION: 0, IMPROVEMENT: 1, NEUTRAL: 2}[k.direction]
    g = k.geomean_change
    return (rank, 0 if k.verdict_change else 1, -_size(g.ratio if g else None), k.slug)


# ---------------------------------------------------------------- the rules


def threshold_factor(noises: Iterable[float | None], min_change: float) -> float:
    """The factor a ratio must exceed: the largest measured noise, at least 1 + min_change."""
    return max([n for n in noises if n is not None and n > 1.0] + [1.0 + min_change])


def beats(ratio: float | None, factor: float) -> bool:
    """True when ``|ln ratio| > ln factor``."""
    return ratio is not None and ratio > 0 and abs(math.log(ratio)) > math.log(factor)


def direction_of(ratio: float | None) -> str:
    """improvement (> 1), regression (< 1) or neutral of a speedup ratio new / old."""
    if ratio is None or ratio == 1.0:
        return NEUTRAL
    return IMPROVEMENT if ratio > 1.0 else REGRESSION


def verdict_direction(old: str | None, new: str | None) -> str:
    """A move toward WIN is an improvement; UNTIMED or a missing verdict is neutral."""
    if old in VERDICT_RANK and new in VERDICT_RANK and old != new:
        return IMPROVEMENT if VERDICT_RANK[new] < VERDICT_RANK[old] else REGRESSION
    return NEUTRAL


def ratio_of(new: float | None, old: float | None) -> float | None:
    """new / old for two positive numbers, else None."""
    if new is None or old is None or old <= 0 or new <= 0:
        return None
    return new / old


def environment_changes(old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, tuple[str | None, str | None]]:
    """Environment keys whose value differs (a key present on one side only counts)."""
    return {k: (old.get(k), new.get(k)) for k in ENVIRONMENT_KEYS if old.get(k) != new.get(k)}


def _arrow(old: Any, new: Any) -> str:
    return f"{'—' if old is None else old} → {'—' if new is None else new}"


def attribute(old: KernelSnapshot, new: KernelSnapshot, significant: bool, factor: float,
              cand_ratio: float | None, base_ratio: float | None,
              providers: Iterable[str | None] = ()) -> list[Cause]:
    """The causes of one timing change (see the module docstring for the rules).

    ``providers``: the best baselines involved (OLD and NEW), whose commits are checked.
    ``cand_ratio`` / ``base_ratio`` None: that side's move is unknown, so a changed commit
    or environment is named as a possible cause.
    """
    if not significant:
        return [Cause(NOISE, f"within the noise (±{(factor - 1) * 100:.1f}%)")]
    cand_moved = cand_ratio is None or beats(cand_ratio, factor)
    base_moved = base_ratio is None or beats(base_ratio, factor)
    causes: list[Cause] = []
    env = environment_changes(old.environment, new.environment)
    if cand_moved and old.candidate_commit != new.candidate_commit:
        causes.append(Cause(CANDIDATE, f"commit {_arrow(old.candidate_commit, new.candidate_commit)}"
                            + _times(cand_ratio, "candidate")))
    if base_moved:
        olds, news = comparable_baselines(old.baselines, new.baselines)
        for p in dict.fromkeys(p for p in providers if p):
            a, b = baseline_commit(olds, p), baseline_commit(news, p)
            if a != b:
                causes.append(Cause(BASELINE, f"{p} {_arrow(a, b)}" + _times(base_ratio, "baseline")))
            elif PROVIDER_ENVIRONMENT.get(p) in env:
                key = PROVIDER_ENVIRONMENT[p]
                causes.append(Cause(BASELINE, f"{p} ({key} {_arrow(*env[key])})" + _times(base_ratio, "baseline")))
    if env and (cand_moved or base_moved):
        causes.append(Cause(ENVIRONMENT, ", ".join(f"{k} {_arrow(*v)}" for k, v in env.items())))
    explained_cand = any(c.kind in (CANDIDATE, ENVIRONMENT) for c in causes)
    explained_base = any(c.kind in (BASELINE, ENVIRONMENT) for c in causes)
    unexplained = []
    if cand_ratio is not None and cand_moved and not explained_cand:
        unexplained.append(_times(cand_ratio, "candidate").strip(" ()"))
    if base_ratio is not None and base_moved and not explained_base:
        unexplained.append(_times(base_ratio, "baseline").strip(" ()"))
    if unexplained or not causes:
        what = ", ".join(unexplained) or "no side's move is known"
        causes.append(Cause(UNEXPLAINED, f"{what}; no commit or environment change recorded"))
    return causes


def provider_name(provider: str) -> str:
    """A provider for display (``*``: the one commit recorded for all baselines)."""
    return "all baselines" if provider == "*" else provider


def baseline_commit(baselines: Mapping[str, str], provider: str) -> str | None:
    """A baseline provider's commit; the ``*`` entry (one value for all baselines) otherwise."""
    return baselines.get(provider, baselines.get("*"))


def _times(ratio: float | None, side: str) -> str:
    """`` (candidate time ×1.20)``, or nothing when the ratio is unknown."""
    return "" if ratio is None else f" ({side} time ×{ratio:.2f})"


# ---------------------------------------------------------------- per kernel


def diff_kernel(old: KernelSnapshot, new: KernelSnapshot, options: DiffOptions) -> KernelDiff:
    """Every change between two versions of one kernel."""
    kd = KernelDiff(slug=new.slug, name=new.name, old_slug=old.slug, status="same",
                    old_verdict=old.verdict, new_verdict=new.verdict,
                    old_geomean=old.geomean_vs_best, new_geomean=new.geomean_vs_best)
    if old.slug != new.slug:
        kd.changes.append(Change("kernel-renamed", new.slug, "slug", old.slug, new.slug, False, NEUTRAL,
                                 text=f"compared as one kernel: {old.slug} → {new.slug}"))
    shape_changes, cand_ratios, base_ratios = diff_shapes(old, new, options)
    kd.n_shapes_common = len(cand_ratios)
    kd.changes += _kernel_level(old, new, options, geomean(cand_ratios), geomean(base_ratios))
    kd.changes += shape_changes
    kd.changes += diff_hotspot(old, new, options)
    kd.changes += diff_kernel_provenance(old, new)
    kd.status = "changed" if kd.changes else "same"
    return kd


def _kernel_level(old: KernelSnapshot, new: KernelSnapshot, options: DiffOptions,
                  cand_ratio: float | None, base_ratio: float | None) -> list[Change]:
    """The verdict and geomean changes of a kernel."""
    out = []
    ratio = ratio_of(new.geomean_vs_best, old.geomean_vs_best)
    factor = threshold_factor([old.noise, new.noise], options.min_change)
    significant = beats(ratio, factor)
    providers = sorted({s.best_baseline for s in old.shapes + new.shapes if s.best_baseline})
    causes = attribute(old, new, significant, factor, cand_ratio, base_ratio, providers) if ratio else []
    if old.verdict != new.verdict:
        out.append(Change("verdict", new.slug, "verdict", old.verdict, new.verdict, True,
                          verdict_direction(old.verdict, new.verdict), ratio=ratio, threshold=factor,
                          causes=list(causes) or _provenance_causes(old, new),
                          text=f"verdict {_arrow(old.verdict, new.verdict)}"))
    if ratio is not None and ratio != 1.0:
        out.append(Change("geomean", new.slug, "geomean_vs_best", old.geomean_vs_best, new.geomean_vs_best,
                          significant, direction_of(ratio), ratio=ratio, threshold=factor, causes=causes,
                          text=f"geomean {fmt_x(old.geomean_vs_best)} → {fmt_x(new.geomean_vs_best)} "
                               f"({fmt_pct(ratio)}, noise ±{(factor - 1) * 100:.1f}%)"))
    elif (old.geomean_vs_best is None) != (new.geomean_vs_best is None):
        out.append(Change("geomean", new.slug, "geomean_vs_best", old.geomean_vs_best, new.geomean_vs_best,
                          True, IMPROVEMENT if new.geomean_vs_best is not None else REGRESSION,
                          causes=_provenance_causes(old, new),
                          text=f"geomean {fmt_x(old.geomean_vs_best)} → {fmt_x(new.geomean_vs_best)}"))
    a, b = old.hard_failures, new.hard_failures
    if a != b:
        out.append(Change("failures", new.slug, "hard_failures", a, b, True, REGRESSION if b > a else IMPROVEMENT,
                          causes=_provenance_causes(old, new), text=f"hard failures {a} → {b}"))
    return out


def _provenance_causes(old: KernelSnapshot, new: KernelSnapshot) -> list[Cause]:
    """Causes from provenance alone (no timing ratio to test): what changed, if anything."""
    causes = []
    if old.candidate_commit != new.candidate_commit:
        causes.append(Cause(CANDIDATE, f"commit {_arrow(old.candidate_commit, new.candidate_commit)}"))
    olds, news = comparable_baselines(old.baselines, new.baselines)
    for p in sorted(set(olds) | set(news)):
        if olds.get(p) != news.get(p):
            causes.append(Cause(BASELINE, f"{provider_name(p)} {_arrow(olds.get(p), news.get(p))}"))
    env = environment_changes(old.environment, new.environment)
    if env:
        causes.append(Cause(ENVIRONMENT, ", ".join(f"{k} {_arrow(*v)}" for k, v in env.items())))
    return causes or [Cause(UNEXPLAINED, "no commit or environment change recorded")]


def diff_shapes(old: KernelSnapshot, new: KernelSnapshot,
                options: DiffOptions) -> tuple[list[Change], list[float], list[float]]:
    """Per-shape changes, and the candidate / baseline time ratios of shapes measured on both sides."""
    olds = {s.shape_id: s for s in old.shapes}
    news = {s.shape_id: s for s in new.shapes}
    changes: list[Change] = []
    cand_ratios: list[float] = []
    base_ratios: list[float] = []
    for sid, b in news.items():
        a = olds.get(sid)
        if a is None:
            changes.append(Change("shape-new", new.slug, "shape", None, b.speedup, False, NEUTRAL,
                                  shape_id=sid, args=b.args, dtype=b.dtype,
                                  text=f"new shape {shape_text(b.args, b.dtype)}"))
            continue
        c_ratio = ratio_of(b.candidate_us, a.candidate_us)
        b_ratio = ratio_of(b.best_baseline_us, a.best_baseline_us)
        if a.speedup is not None and b.speedup is not None:
            if c_ratio is not None and b_ratio is not None:
                cand_ratios.append(c_ratio)
                base_ratios.append(b_ratio)
            changes += _shape_speedup_change(old, new, a, b, options, c_ratio, b_ratio)
        elif (a.speedup is None) != (b.speedup is None):
            changes.append(_shape_status_change(old, new, a, b))
    for sid, a in olds.items():
        if sid not in news:
            changes.append(Change("shape-removed", new.slug, "shape", a.speedup, None, False, NEUTRAL,
                                  shape_id=sid, args=a.args, dtype=a.dtype,
                                  text=f"shape removed {shape_text(a.args, a.dtype)}"))
    return changes, cand_ratios, base_ratios


def _shape_speedup_change(old: KernelSnapshot, new: KernelSnapshot, a: ShapePoint, b: ShapePoint,
                          options: DiffOptions, c_ratio: float | None, b_ratio: float | None) -> list[Change]:
    """The speedup change of a shape measured on both sides (none when equal)."""
    ratio = ratio_of(b.speedup, a.speedup)
    if ratio is None or ratio == 1.0:
        return []
    factor = threshold_factor([a.noise, b.noise], options.min_change)
    significant = beats(ratio, factor)
    base = "" if a.best_baseline == b.best_baseline else f", best baseline {_arrow(a.best_baseline, b.best_baseline)}"
    return [Change("shape", new.slug, "speedup", a.speedup, b.speedup, significant, direction_of(ratio),
                   ratio=ratio, threshold=factor,
                   causes=attribute(old, new, significant, factor, c_ratio, b_ratio,
                                    [a.best_baseline, b.best_baseline]),
                   shape_id=b.shape_id, args=b.args, dtype=b.dtype,
                   text=f"{fmt_x(a.speedup)} → {fmt_x(b.speedup)} ({fmt_pct(ratio)}){base}")]


def _shape_status_change(old: KernelSnapshot, new: KernelSnapshot, a: ShapePoint, b: ShapePoint) -> Change:
    """A shape that became measured, or stopped being measured."""
    now_measured = b.speedup is not None
    status = b.candidate_status if not now_measured else a.candidate_status
    text = (f"now measured: {fmt_x(b.speedup)} (was {status or 'not run'})" if now_measured
            else f"no longer measured: {status or 'no candidate row'} (was {fmt_x(a.speedup)})")
    return Change("shape-status", new.slug, "measured", a.candidate_status, b.candidate_status, True,
                  IMPROVEMENT if now_measured else REGRESSION, causes=_provenance_causes(old, new),
                  shape_id=b.shape_id, args=b.args, dtype=b.dtype, text=text)


def diff_hotspot(old: KernelSnapshot, new: KernelSnapshot, options: DiffOptions) -> list[Change]:
    """Hotspot shifts of the primary capture: top stall type, stall ratio, waves, limiter."""
    a, b = old.hotspot, new.hotspot
    if a is None or b is None:
        if (a is None) != (b is None):
            return [Change("hotspot", new.slug, "capture", a.capture if a else None, b.capture if b else None,
                           False, NEUTRAL, text="capture added" if b else "capture removed")]
        return []
    out = []
    causes = _hotspot_causes(old, new)
    if a.top_stall_type != b.top_stall_type:
        out.append(Change("hotspot", new.slug, "top_stall_type", a.top_stall_type, b.top_stall_type, True,
                          NEUTRAL, causes=causes,
                          text=f"top stall type {_arrow(a.top_stall_type, b.top_stall_type)}"))
    if a.stall_ratio is not None and b.stall_ratio is not None and a.stall_ratio != b.stall_ratio:
        delta = b.stall_ratio - a.stall_ratio
        significant = abs(delta) >= options.stall_points - 1e-12
        out.append(Change("hotspot", new.slug, "stall_ratio", a.stall_ratio, b.stall_ratio, significant,
                          REGRESSION if delta > 0 else IMPROVEMENT, causes=causes if significant else [],
                          text=f"stall ratio {a.stall_ratio * 100:.1f}% → {b.stall_ratio * 100:.1f}% "
                               f"({delta * 100:+.1f} points)"))
    if a.waves_per_simd != b.waves_per_simd:
        worse = (b.waves_per_simd or 0) < (a.waves_per_simd or 0)
        out.append(Change("hotspot", new.slug, "waves_per_simd", a.waves_per_simd, b.waves_per_simd, True,
                          REGRESSION if worse else IMPROVEMENT, causes=causes,
                          text=f"occupancy {_arrow(a.waves_per_simd, b.waves_per_simd)} waves/SIMD"))
    if a.limiter != b.limiter:
        out.append(Change("hotspot", new.slug, "limiter", a.limiter, b.limiter, True, NEUTRAL, causes=causes,
                          text=f"occupancy limiter {_arrow(a.limiter, b.limiter)}"))
    if a.capture != b.capture:
        out.append(Change("provenance", new.slug, "capture", a.capture, b.capture, False, NEUTRAL,
                          text=f"primary capture {_arrow(a.capture, b.capture)}"))
    return out


def _hotspot_causes(old: KernelSnapshot, new: KernelSnapshot) -> list[Cause]:
    """A hotspot shift is the candidate's code or the environment (baselines do not run in it)."""
    causes = [c for c in _provenance_causes(old, new) if c.kind != BASELINE]
    return causes or [Cause(UNEXPLAINED, "no candidate commit or environment change recorded")]


def comparable_baselines(old: Mapping[str, str], new: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Both sides' baseline commits in one form.

    A built site records one merged commit for all baselines (``*``), a sweep one per
    provider: when only one side is merged, the other is merged too (distinct values
    joined by ", ", in provider order) so that the same sweep read both ways is equal.
    """
    def merged(b: Mapping[str, str]) -> dict[str, str]:
        values = dict.fromkeys(v for _, v in sorted(b.items()))
        return {"*": ", ".join(values)} if values else {}

    a_star, b_star = set(old) == {"*"}, set(new) == {"*"}
    if a_star and not b_star:
        return dict(old), merged(new)
    if b_star and not a_star:
        return merged(old), dict(new)
    return dict(old), dict(new)


def diff_kernel_provenance(old: KernelSnapshot, new: KernelSnapshot) -> list[Change]:
    """Changes of the candidate commit, a baseline's commit, or the environment."""
    out = []
    if old.candidate_commit != new.candidate_commit:
        out.append(Change("provenance", new.slug, "candidate_commit", old.candidate_commit, new.candidate_commit,
                          False, NEUTRAL, text=f"candidate commit {_arrow(old.candidate_commit, new.candidate_commit)}"))
    olds, news = comparable_baselines(old.baselines, new.baselines)
    for p in sorted(set(olds) | set(news)):
        a, b = olds.get(p), news.get(p)
        if a != b:
            out.append(Change("provenance", new.slug, f"baseline:{p}", a, b, False, NEUTRAL,
                              text=f"baseline {provider_name(p)} {_arrow(a, b)}"))
    for k, (a, b) in environment_changes(old.environment, new.environment).items():
        out.append(Change("provenance", new.slug, k, a, b, False, NEUTRAL, text=f"{k} {_arrow(a, b)}"))
    return out


# ---------------------------------------------------------------- the sweep


def diff_snapshots(old: SweepSnapshot, new: SweepSnapshot, options: DiffOptions = DiffOptions()) -> SweepDiff:
    """Compare two snapshots: kernels matched by slug (and by ``options.renames``)."""
    if old.format_version != new.format_version:
        raise InputError(new.label, f"format version {new.format_version} differs from the old side's "
                                    f"{old.format_version}: rebuild both sides with the same kernel-atlas")
    pairs: dict[str, str] = {}  # old slug -> new slug
    for a, b in options.renames:
        if a not in old.kernels:
            raise InputError(old.label, f"--rename {a}={b}: no kernel {a!r} on the old side "
                                        f"(kernels: {', '.join(sorted(old.kernels)) or 'none'})")
        if b not in new.kernels:
            raise InputError(new.label, f"--rename {a}={b}: no kernel {b!r} on the new side "
                                        f"(kernels: {', '.join(sorted(new.kernels)) or 'none'})")
        pairs[a] = b
    for slug in old.kernels:
        if slug in new.kernels and slug not in pairs and slug not in pairs.values():
            pairs[slug] = slug
    kernels: list[KernelDiff] = []
    for a, b in pairs.items():
        kernels.append(diff_kernel(old.kernels[a], new.kernels[b], options))
    paired_new = set(pairs.values())
    removed = [old.kernels[s] for s in old.kernels if s not in pairs]
    added = [new.kernels[s] for s in new.kernels if s not in paired_new]
    for k in removed:
        kernels.append(KernelDiff(slug=k.slug, name=k.name, old_slug=k.slug, status="removed",
                                  old_verdict=k.verdict, new_verdict=None, old_geomean=k.geomean_vs_best,
                                  new_geomean=None, changes=[Change(
                                      "kernel-removed", k.slug, "kernel", k.verdict, None, True, NEUTRAL,
                                      text=f"kernel removed (was {k.verdict or 'no verdict'}"
                                           f"{', ' + fmt_x(k.geomean_vs_best) if k.geomean_vs_best else ''})")]))
    for k in added:
        kernels.append(KernelDiff(slug=k.slug, name=k.name, old_slug=None, status="new",
                                  old_verdict=None, new_verdict=k.verdict, old_geomean=None,
                                  new_geomean=k.geomean_vs_best, changes=[Change(
                                      "kernel-new", k.slug, "kernel", None, k.verdict, True, NEUTRAL,
                                      text=f"new kernel ({k.verdict or 'no verdict'}"
                                           f"{', ' + fmt_x(k.geomean_vs_best) if k.geomean_vs_best else ''})")]))
    kernels.sort(key=lambda k: k.slug)
    notes = rename_hints(removed, added)
    for side, snap in (("old", old), ("new", new)):
        for item, problem in snap.errors.items():
            notes.append(f"{side} side: {item} could not be read: {problem}")
    return SweepDiff(
        old_label=old.label,
        new_label=new.label,
        old_counts=old.verdict_counts(),
        new_counts=new.verdict_counts(),
        kernels=kernels,
        provenance=diff_sweep_provenance(old.provenance, new.provenance),
        notes=notes,
        options=options,
    )


def rename_hints(removed: list[KernelSnapshot], added: list[KernelSnapshot]) -> list[str]:
    """A note for each removed kernel that looks renamed: same campaign or most shape ids shared."""
    notes = []
    for a in removed:
        for b in added:
            common = len(a.shape_ids & b.shape_ids)
            smaller = min(len(a.shape_ids), len(b.shape_ids))
            same_op = a.op is not None and a.op == b.op
            if same_op or (smaller and common * 2 >= smaller):
                why = f"same campaign {a.op!r}" if same_op else f"{common} of {smaller} shape ids in common"
                notes.append(f"kernel {a.slug!r} is gone and {b.slug!r} is new ({why}): if it was renamed, "
                             f"compare them with --rename {a.slug}={b.slug}")
    return notes


def diff_sweep_provenance(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    """Sweep-level provenance keys whose value differs."""
    out = []
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            out.append(Change("provenance", None, k, old.get(k), new.get(k), False, NEUTRAL,
                              text=f"{k} {_arrow(old.get(k), new.get(k))}"))
    return out


# ---------------------------------------------------------------- formatting


def fmt_x(value: float | None) -> str:
    """``0.87x``; an em dash for None."""
    return "—" if value is None else f"{value:.2f}x"


def fmt_pct(ratio: float | None) -> str:
    """``+20.0%`` / ``-16.7%`` for a ratio new / old."""
    return "—" if ratio is None else f"{(ratio - 1.0) * 100:+.1f}%"


def shape_text(args: Mapping[str, Any] | None, dtype: str = "") -> str:
    """Shape arguments on one line as the verdict tables print them, then the dtype: ``M=1 N=128 bf16``."""
    return " ".join(t for t in (args_text(args or {}), dtype) if t)


def counts_text(old: Mapping[str, int], new: Mapping[str, int]) -> str:
    """``WIN 4 → 3, PARITY 0, HEADROOM 9 → 10``: every verdict present on either side."""
    parts = []
    for v in VERDICT_ORDER:
        a, b = old.get(v, 0), new.get(v, 0)
        if a or b:
            parts.append(f"{v} {a}" if a == b else f"{v} {a} → {b}")
    return ", ".join(parts) or "no verdicts"


def headline(d: SweepDiff) -> str:
    """One line: regressions / improvements, verdict counts, the biggest moves."""
    reg, imp = len(d.regressions), len(d.improvements)
    parts = [f"{reg} regression{'s' if reg != 1 else ''}, {imp} improvement{'s' if imp != 1 else ''}"
             if reg or imp else "no significant change of any kernel's standing"]
    parts.append(f"verdicts {counts_text(d.old_counts, d.new_counts)}")
    moves = d.biggest_moves()
    if moves:
        parts.append("biggest moves: " + ", ".join(
            f"{k.name} {fmt_x(k.old_geomean)} → {fmt_x(k.new_geomean)} ({fmt_pct(k.geomean_change.ratio)})"
            for k in moves))
    return " · ".join(parts)


def environment_summary(d: SweepDiff) -> str:
    """The measured environment changes of all kernels: ``rocm 7.2.0 → 7.3.0 (2 kernels)``."""
    seen: dict[str, list[str]] = {}
    for k in d.kernels:
        for c in k.of_kind("provenance"):
            if c.item in ENVIRONMENT_KEYS:
                seen.setdefault(c.text, []).append(k.slug)
    return ", ".join(f"{text} ({len(slugs)} kernel{'s' if len(slugs) != 1 else ''})" for text, slugs in seen.items())


def diff_document(d: SweepDiff) -> dict[str, Any]:
    """The ``diff --json`` document."""
    return {
        "format_version": FORMAT_VERSION,
        "kind": "kernel-atlas-diff",
        "old": {"label": d.old_label, "verdict_counts": d.old_counts},
        "new": {"label": d.new_label, "verdict_counts": d.new_counts},
        "options": {"min_change": d.options.min_change, "stall_points": d.options.stall_points,
                    "renames": [list(p) for p in d.options.renames]},
        "headline": headline(d),
        "environment": environment_summary(d),
        "regressions": [k.slug for k in d.regressions],
        "improvements": [k.slug for k in d.improvements],
        "kernels": [k.to_json() for k in d.kernels if k.changes],
        "unchanged": [k.slug for k in d.kernels if not k.changes],
        "provenance": [c.to_json() for c in d.provenance],
        "notes": list(d.notes),
    }


def render_text(d: SweepDiff, max_rows: int = 20) -> str:
    """The terminal report: headline, significant changes per kernel, then a summary of the rest."""
    lines = [f"{d.old_label} → {d.new_label}: {headline(d)}"]
    env = environment_summary(d)
    if env:
        lines.append("environment: " + env)
    for k in d.notable:
        lines.append("")
        lines.append(f"{k.name} ({k.slug}): " + "; ".join(
            c.text for c in k.significant if c.kind not in ("shape", "shape-status")))
        shapes = significant_shapes(k)
        for c in shapes[:max_rows]:
            lines.append(f"  {c.shape_text}: {c.text}  [{c.cause_text}]")
        if len(shapes) > max_rows:
            lines.append(f"  ... and {len(shapes) - max_rows} more shapes")
        if k.causes:
            lines.append(f"  cause: {'; '.join(c.text for c in k.causes)}")
    quiet = [k for k in d.kernels if k.changes and not k.significant]
    if quiet:
        lines.append("")
        lines.append("within noise or provenance only: " + ", ".join(k.slug for k in quiet))
    lines += [f"note: {n}" for n in d.notes]
    return "\n".join(lines) + "\n"


def _size(ratio: float | None) -> float:
    """|ln ratio| rounded, so that equal moves tie and keep their order."""
    return round(abs(math.log(ratio)), 9) if ratio else 0.0


def significant_shapes(k: KernelDiff) -> list[Change]:
    """A kernel's shape changes beyond noise: regressions first, the biggest first, else ledger order."""
    moved = [c for c in k.significant if c.kind in ("shape", "shape-status")]
    return sorted(moved, key=lambda c: (0 if c.direction == REGRESSION else 1,
                                        -(_size(c.ratio) if c.ratio else math.inf)))


# ---------------------------------------------------------------- markdown


def _md(text: Any) -> str:
    """Escape a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def kernel_link(k: KernelDiff, site_url: str | None) -> str:
    """``[Softmax](https://site/kernels/softmax/)``; relative ``kernels/<slug>/`` without a site URL."""
    base = (site_url.rstrip("/") + "/") if site_url else ""
    if k.status == "removed":
        return f"{_md(k.name)} (`{k.slug}`)"
    return f"[{_md(k.name)}]({base}kernels/{k.slug}/)"


def _verdict_cell(k: KernelDiff) -> str:
    if k.old_verdict == k.new_verdict:
        return k.new_verdict or "—"
    return f"{k.old_verdict or '—'} → **{k.new_verdict or '—'}**"


def _geomean_cell(k: KernelDiff) -> str:
    g = k.geomean_change
    if g is None:
        return fmt_x(k.new_geomean if k.status != "removed" else k.old_geomean)
    text = f"{fmt_x(g.old)} → {fmt_x(g.new)}"
    if g.ratio is not None:
        text += f" ({fmt_pct(g.ratio)})" if g.significant else f" ({fmt_pct(g.ratio)}, noise)"
    return text


def _shapes_cell(k: KernelDiff) -> str:
    moved = [c for c in k.significant if c.kind in ("shape", "shape-status")]
    down = sum(1 for c in moved if c.direction == REGRESSION)
    up = sum(1 for c in moved if c.direction == IMPROVEMENT)
    if not moved:
        return "—"
    return f"{down} ↓ {up} ↑ of {k.n_shapes_common}"


def _hotspot_cell(k: KernelDiff) -> str:
    shifts = [c for c in k.of_kind("hotspot") if c.significant]
    return "; ".join(_md(c.text) for c in shifts) or "—"


def render_markdown(d: SweepDiff, site_url: str | None = None, marker: bool = True, max_rows: int = 20) -> str:
    """The pull-request comment: marker, headline, a table of significant changes, the rest folded."""
    lines = [DIFF_MARKER] if marker else []
    lines.append(f"### Kernel Atlas: `{_md(d.old_label)}` → `{_md(d.new_label)}`")
    lines.append("")
    lines.append(f"**{headline(d)}**")
    env = environment_summary(d)
    if env:
        lines.append("")
        lines.append("Environment changed: " + _md(env))
    notable = d.notable
    if notable:
        lines += ["", "| Kernel | Verdict | Geomean vs best | Shapes beyond noise | Hotspot | Cause |",
                  "|---|---|---|---|---|---|"]
        for k in notable:
            cause = "; ".join(_md(c.text) for c in k.causes) or "—"
            if k.status in ("new", "removed"):
                cause = k.status
            lines.append(f"| {kernel_link(k, site_url)} | {_verdict_cell(k)} | {_geomean_cell(k)} | "
                         f"{_shapes_cell(k)} | {_hotspot_cell(k)} | {cause} |")
    lines += _details_shapes(d, site_url, max_rows)
    lines += _details_noise(d, site_url)
    lines += _details_new_removed(d, site_url, max_rows)
    lines += _details_provenance(d, site_url)
    if d.notes:
        lines += ["", *[f"- {_md(n)}" for n in d.notes]]
    lines += ["", f"<sub>A change counts when it beats the measured noise (p90/p10) and "
                  f"{d.options.min_change * 100:g}%; hotspot shifts: top stall type, occupancy, or the stall "
                  f"ratio by {d.options.stall_points * 100:g} points.</sub>"]
    return "\n".join(lines) + "\n"


def _fold(summary: str, body: list[str]) -> list[str]:
    """A ``<details>`` block (nothing when the body is empty)."""
    if not body:
        return []
    return ["", "<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]


def _details_shapes(d: SweepDiff, site_url: str | None, max_rows: int) -> list[str]:
    """Per-shape changes beyond noise, per kernel, with args."""
    body: list[str] = []
    total = 0
    for k in d.notable:
        shapes = significant_shapes(k)
        if not shapes:
            continue
        total += len(shapes)
        body += [f"**{kernel_link(k, site_url)}**", "", "| Shape | Speedup | Change | Cause |", "|---|---|---|---|"]
        for c in shapes[:max_rows]:
            speed = f"{fmt_x(c.old)} → {fmt_x(c.new)}" if c.kind == "shape" else _md(c.text)
            change = fmt_pct(c.ratio) if c.ratio is not None else ("↑" if c.direction == IMPROVEMENT else "↓")
            body.append(f"| `{_md(c.shape_text)}` | {speed} | {change} | {_md(c.cause_text)} |")
        if len(shapes) > max_rows:
            body.append(f"| … and {len(shapes) - max_rows} more | | | |")
        body.append("")
    return _fold(f"Per-shape changes beyond noise ({total})", body[:-1] if body else body)


def _details_noise(d: SweepDiff, site_url: str | None) -> list[str]:
    """Geomean and shape moves that stay within the noise, and minor hotspot moves."""
    body = []
    for k in d.kernels:
        quiet = [c for c in k.changes if not c.significant and c.kind in ("geomean", "shape", "hotspot")]
        if not quiet:
            continue
        g = [c for c in quiet if c.kind == "geomean"]
        shapes = [c for c in quiet if c.kind == "shape"]
        hot = [c for c in quiet if c.kind == "hotspot"]
        parts = [c.text for c in g + hot]
        if shapes:
            parts.append(f"{len(shapes)} shape{'s' if len(shapes) != 1 else ''} moved within noise")
        body.append(f"- {kernel_link(k, site_url)}: {_md('; '.join(parts))}")
    return _fold(f"Within noise or below the thresholds ({len(body)} kernels)", body)


def _details_new_removed(d: SweepDiff, site_url: str | None, max_rows: int) -> list[str]:
    """New and removed kernels and shapes."""
    body = []
    for k in d.kernels:
        for c in k.of_kind("kernel-new", "kernel-removed", "kernel-renamed"):
            body.append(f"- {kernel_link(k, site_url)}: {_md(c.text)}")
        for kind, word in (("shape-new", "new"), ("shape-removed", "removed")):
            shapes = k.of_kind(kind)
            if shapes:
                listed = ", ".join(f"`{_md(c.shape_text)}`" for c in shapes[:max_rows])
                more = f" and {len(shapes) - max_rows} more" if len(shapes) > max_rows else ""
                body.append(f"- {kernel_link(k, site_url)}: {len(shapes)} {word} shape"
                            f"{'s' if len(shapes) != 1 else ''}: {listed}{more}")
    return _fold(f"New and removed ({len(body)})", body)


def _details_provenance(d: SweepDiff, site_url: str | None) -> list[str]:
    """Sweep and per-kernel provenance changes."""
    body = [f"- sweep: {_md(c.text)}" for c in d.provenance]
    for k in d.kernels:
        prov = k.of_kind("provenance")
        if prov:
            body.append(f"- {kernel_link(k, site_url)}: {_md('; '.join(c.text for c in prov))}")
    return _fold(f"Provenance changes ({len(body)})", body)
