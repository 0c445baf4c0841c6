"""Compare two snapshots: per kernel (verdict, geomean, shapes, hotspot, provenance), then the sweep."""

from __future__ import annotations

import re
from typing import Any, Mapping

from generator.analyze.verdicts import geomean
from generator.errors import InputError
from generator.sweeps.diff.changes import (
    BASELINE,
    CANDIDATE,
    CHECK,
    COMPARISON,
    ENVIRONMENT,
    IMPROVEMENT,
    NEUTRAL,
    NOISE,
    REGRESSION,
    SHAPE_MIN_CHANGE,
    UNEXPLAINED,
    Cause,
    Change,
    DiffOptions,
    KernelDiff,
    SweepDiff,
    fmt_pct,
    fmt_x,
    shape_text,
    unique_labels,
)
from generator.sweeps.diff.rules import (
    _arrow,
    attribute,
    beats,
    changed,
    check_movers,
    check_text,
    comparable_baselines,
    direction_of,
    environment_changes,
    provider_name,
    ratio_of,
    shape_comparison,
    status_move_text,
    status_moves,
    threshold_factor,
    verdict_direction,
)
from generator.sweeps.snapshot import KernelSnapshot, ShapePoint, SweepSnapshot


def diff_kernel(old: KernelSnapshot, new: KernelSnapshot, options: DiffOptions) -> KernelDiff:
    """Every change between two versions of one kernel."""
    old_g, new_g = geomean_pair(old, new)
    kd = KernelDiff(slug=new.slug, name=new.name, old_slug=old.slug, status="same",
                    old_verdict=old.verdict, new_verdict=new.verdict, old_geomean=old_g, new_geomean=new_g,
                    old_ratio=old.headline_value, new_ratio=new.headline_value)
    if old.slug != new.slug:
        kd.changes.append(Change("kernel-renamed", new.slug, "slug", old.slug, new.slug, False, NEUTRAL,
                                 text=f"compared as one kernel: {old.slug} → {new.slug}"))
    shape_changes, cand_ratios, base_ratios = diff_shapes(old, new, options)
    kd.n_shapes_common = len(cand_ratios)
    kd.n_shapes_both = len({s.shape_id for s in old.shapes} & {s.shape_id for s in new.shapes})
    kd.labels = unique_labels(list({s.shape_id: s for s in old.shapes + new.shapes}.values()))
    known = kernel_known_causes(old, new, shape_changes)
    kd.changes += _kernel_level(old, new, options, geomean(cand_ratios), geomean(base_ratios), known,
                                shape_cause_summary(shape_changes))
    comparison = comparison_change(old, new)
    kd.changes += comparison
    kd.changes += launch_change(old, new, comparison)
    kd.changes += shape_changes
    kd.changes += diff_hotspot(old, new, options)
    kd.changes += diff_kernel_provenance(old, new)
    kd.status = "changed" if kd.changes else "same"
    return kd


def geomean_pair(old: KernelSnapshot, new: KernelSnapshot) -> tuple[float | None, float | None]:
    """The two sides' "vs any" geomeans; the score's where both sides are old documents that stored only
    the score's (``KernelSnapshot.vs_any_unrecorded``); (None, None) where one side stored the score's and
    the other "vs any": two different numbers, no change to tell."""
    if old.vs_any_unrecorded and new.vs_any_unrecorded:
        return old.score_geomean, new.score_geomean
    if old.vs_any_unrecorded or new.vs_any_unrecorded:
        return None, None
    return old.kernel_vs_any, new.kernel_vs_any


def _kernel_level(old: KernelSnapshot, new: KernelSnapshot, options: DiffOptions,
                  cand_ratio: float | None, base_ratio: float | None, known: list[Cause] = (),
                  shape_causes: list[Cause] = ()) -> list[Change]:
    """The verdict and geomean changes of a kernel; ``known``: the causes no timing ratio shows
    (``kernel_known_causes``); ``shape_causes``: the summary of the shapes' own causes, the kernel's cause
    when its common ratios name none."""
    out = []
    old_g, new_g = geomean_pair(old, new)
    ratio = ratio_of(new_g, old_g)
    factor = threshold_factor([old.noise, new.noise], options.min_change)
    significant = beats(ratio, factor)
    providers = sorted({s.best_baseline for s in old.shapes + new.shapes if s.best_baseline})
    causes = attribute(old, new, significant, factor, cand_ratio, base_ratio, providers, list(known)) if ratio else []
    if shape_causes and [c.kind for c in causes] == [UNEXPLAINED] and causes[0].detail.startswith("no side"):
        causes = list(shape_causes)  # the geomean moved with no common ratio beyond it: what the shapes say
    no_vs_any = old_g is None and new_g is None  # rule 16: a replay that misses work
    if not causes and no_vs_any and shape_causes:  # no ratio of the kernel's own on either side: what the shapes say
        causes = list(shape_causes)
    if old.verdict != new.verdict:
        out.append(Change("verdict", new.slug, "verdict", old.verdict, new.verdict, True,
                          verdict_direction(old.verdict, new.verdict), ratio=ratio, threshold=factor,
                          causes=_verdict_causes(causes, known) or _provenance_causes(old, new),
                          text=f"verdict {_arrow(old.verdict, new.verdict)}"))
    out += _ladder_changes(old, new, factor, causes, list(known))
    if ratio is not None and ratio != 1.0:
        out.append(Change("geomean", new.slug, "geomean_vs_best", old_g, new_g,
                          significant, direction_of(ratio), ratio=ratio, threshold=factor, causes=causes,
                          text=f"geomean vs any baseline {fmt_x(old_g)} → {fmt_x(new_g)} "
                               f"({fmt_pct(ratio)}, noise ±{(factor - 1) * 100:.1f}%)"))
    elif (old_g is None) != (new_g is None):
        came = IMPROVEMENT if new_g is not None else REGRESSION
        out.append(Change("geomean", new.slug, "geomean_vs_best", old_g, new_g,
                          True, NEUTRAL if campaign_text(old, new) else came,  # a campaign gone: no time moved
                          causes=list(known) or _provenance_causes(old, new),
                          text=f"geomean vs any baseline {fmt_x(old_g)} → {fmt_x(new_g)}"))
    if old.flags != new.flags:
        gained = [f for f in new.flags if f not in old.flags]
        lost = [f for f in old.flags if f not in new.flags]
        words = [f"now {f.replace('_', ' ')}" for f in gained] + [f"no longer {f.replace('_', ' ')}" for f in lost]
        out.append(Change("flags", new.slug, "flags", ",".join(old.flags), ",".join(new.flags), True, NEUTRAL,
                          causes=list(known) or _provenance_causes(old, new), text="verdict flags: " + "; ".join(words)))
    a, b = old.hard_failures, new.hard_failures
    if a != b:
        out.append(Change("failures", new.slug, "hard_failures", a, b, True, REGRESSION if b > a else IMPROVEMENT,
                          causes=_explained(_provenance_causes(old, new), causes), text=f"hard failures {a} → {b}"))
    return out


def _explained(provenance: list[Cause], causes: list[Cause]) -> list[Cause]:
    """What a change with no ratio of its own is put down to: the provenance that moved, else what the kernel's
    other readings name (a baseline starting to pass), else unexplained."""
    return list(causes) if causes and [c.kind for c in provenance] == [UNEXPLAINED] else provenance


def _verdict_causes(causes: list[Cause], known: list[Cause]) -> list[Cause]:
    """A verdict move's causes: the timing's, unless they say only "noise" while a known cause (the
    comparison, the check, the basis) moved it: then that one (a verdict that moved rung is no noise)."""
    if known and all(c.kind == NOISE for c in causes):
        return list(known)
    return list(causes) or list(known)


def _ladder_changes(old: KernelSnapshot, new: KernelSnapshot, factor: float, causes: list,
                    known: list[Cause] = ()) -> list[Change]:
    """What moved in the evidence the verdict rests on (VERDICTS rule 12): its basis, and the ratio
    it reads when the basis stayed (ratios of different bases are not compared)."""
    if old.verdict_basis is None or new.verdict_basis is None:
        return []  # a side written before the ladder
    if old.verdict_basis != new.verdict_basis:
        return [Change("basis", new.slug, "verdict_basis", old.verdict_basis, new.verdict_basis, True, NEUTRAL,
                       causes=[c for c in known if c.kind == COMPARISON and c.detail.startswith("verdict basis")]
                       or list(known) or list(causes) or _provenance_causes(old, new),
                       text=f"verdict basis {_arrow(old.verdict_basis, new.verdict_basis)} "
                            f"({fmt_x(old.verdict_value)} → {fmt_x(new.verdict_value)})")]
    ratio = ratio_of(new.verdict_value, old.verdict_value)
    if ratio is None or ratio == 1.0:
        return []
    return [Change("verdict_ratio", new.slug, "verdict_value", old.verdict_value, new.verdict_value,
                   beats(ratio, factor), direction_of(ratio), ratio=ratio, threshold=factor, causes=causes,
                   text=f"verdict ratio ({new.verdict_basis}) {fmt_x(old.verdict_value)} → {fmt_x(new.verdict_value)} "
                        f"({fmt_pct(ratio)}, noise ±{(factor - 1) * 100:.1f}%{_interval_text(old, new)})")]


def _interval_text(old: KernelSnapshot, new: KernelSnapshot) -> str:
    """``, interval 1.02x–1.19x → 0.80x–0.95x`` when the verdict engine gave the ratio's interval (``verdict_ci``)."""
    def one(k: KernelSnapshot) -> str:
        ci = k.extras.get("verdict_ci")
        ok = isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci)
        return f"{fmt_x(ci[0])}–{fmt_x(ci[1])}" if ok else "—"
    a, b = one(old), one(new)
    return "" if a == b == "—" else f", interval {a} → {b}"


#: A launch-overhead move counts when it is larger than this many µs and this share of the old value.
LAUNCH_MIN_US, LAUNCH_MIN_SHARE = 1.0, 0.10


def launch_change(old: KernelSnapshot, new: KernelSnapshot, comparison: list[Change] = ()) -> list[Change]:
    """The move of the candidate's launch overhead (``launch_overhead_us``: [median µs, shapes]) when both
    sides give it: beyond ``LAUNCH_MIN_US`` and ``LAUNCH_MIN_SHARE`` of the old value it is significant (a
    larger overhead is the launcher's regression). It is shown, and never decides the kernel's direction.
    The overhead is against the fastest baseline's call: where the baselines moved (``comparison``), so did it."""
    a, b = old.extras.get("launch_overhead_us"), new.extras.get("launch_overhead_us")
    if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and a and b) or a[0] == b[0]:
        return []
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a[0], b[0])):
        return []
    delta = b[0] - a[0]
    significant = abs(delta) > max(LAUNCH_MIN_US, LAUNCH_MIN_SHARE * abs(a[0]))
    return [Change("launch", new.slug, "launch_overhead_us", a[0], b[0], significant,
                   REGRESSION if delta > 0 else IMPROVEMENT,
                   causes=(_baseline_causes(comparison) or _hotspot_causes(old, new)) if significant else [],
                   text=f"launch overhead {a[0]:.1f} → {b[0]:.1f} µs ({delta:+.1f} µs)")]


def _baseline_causes(comparison: list[Change]) -> list[Cause]:
    """The causes of a move of the baselines compared with (one started or ceased to pass, the best changed):
    the launch overhead is set against the fastest baseline's call, so it moves with them."""
    return [cause for c in comparison if c.item == "baselines" for cause in c.causes]


def shape_cause_summary(shape_changes: list[Change]) -> list[Cause]:
    """The causes the significant shape moves name (noise and unexplained left out), one per cause with
    its number of shapes: ``baseline: aiter 1a → 2b on 3 shapes``."""
    seen: dict[tuple, int] = {}
    for c in shape_changes:
        if not c.significant or c.kind not in ("shape", "shape-status"):
            continue
        for cause in c.causes:
            if cause.kind not in (NOISE, UNEXPLAINED):
                key = (cause.kind, _TIMES.sub("", cause.detail), cause.sides)
                seen[key] = seen.get(key, 0) + 1
    return [Cause(kind, f"{detail} on {_count(n, 'shape')}", sides) for (kind, detail, sides), n in seen.items()]


_TIMES = re.compile(r" \((candidate|baseline) time ×[0-9.]+\)")


def _provenance_causes(old: KernelSnapshot, new: KernelSnapshot) -> list[Cause]:
    """Causes from provenance alone (no timing ratio to test): what changed, if anything."""
    causes = []
    if changed(old.candidate_commit, new.candidate_commit):
        causes.append(Cause(CANDIDATE, f"commit {_arrow(old.candidate_commit, new.candidate_commit)}", (CANDIDATE,)))
    olds, news = comparable_baselines(old.baselines, new.baselines)
    for p in sorted(set(olds) | set(news)):
        if changed(olds.get(p), news.get(p)):
            causes.append(Cause(BASELINE, f"{provider_name(p)} {_arrow(olds.get(p), news.get(p))}", (BASELINE,)))
    env = environment_changes(old.environment, new.environment)
    if env:
        causes.append(Cause(ENVIRONMENT, ", ".join(f"{k} {_arrow(*v)}" for k, v in env.items()),
                            (CANDIDATE, BASELINE)))
    return causes or [Cause(UNEXPLAINED, "no commit or environment change recorded", (CANDIDATE, BASELINE))]


def kernel_known_causes(old: KernelSnapshot, new: KernelSnapshot, shape_changes: list[Change]) -> list[Cause]:
    """The summary of a kernel's shape causes that no timing ratio shows: the comparison's (baselines
    added, removed, starting or ceasing to pass; the clock the pair basis reads; the verdict's basis when
    the candidate did not cause it) and the candidate's passing more or fewer shapes."""
    out = []
    campaign = campaign_text(old, new)
    if campaign:
        out.append(Cause(COMPARISON, campaign, (COMPARISON,)))
    comparison = comparison_summary(old, new)
    if comparison:
        out.append(Cause(COMPARISON, comparison, (COMPARISON,)))
    clocks = old.extras.get("pair_clock"), new.extras.get("pair_clock")
    if all(clocks) and clocks[0] != clocks[1]:
        out.append(Cause(COMPARISON, f"pair clock {_arrow(*clocks)}", (COMPARISON,)))
    gained = [c for c in shape_changes if c.kind == "shape-status" and c.item == "candidate" and c.direction == IMPROVEMENT]
    lost = [c for c in shape_changes if c.kind == "shape-status" and c.item == "candidate" and c.direction == REGRESSION]
    words = []
    if gained:
        words.append(f"now measured on {_count(len(gained), 'more shape')}")
    if lost:
        words.append(f"no longer measured on {_count(len(lost), 'shape')}")
    if words:
        commit = (f" (commit {_arrow(old.candidate_commit, new.candidate_commit)})"
                  if changed(old.candidate_commit, new.candidate_commit) else "")
        out.append(Cause(CANDIDATE, ", ".join(words) + commit, (CANDIDATE,)))
    checked: dict[str, int] = {}
    for c in shape_changes:
        if c.kind == "shape-status" and c.item == "check":
            detail = c.causes[0].detail
            checked[detail] = checked.get(detail, 0) + 1
    out += [Cause(CHECK, f"{detail} on {_count(n, 'shape')}", (CHECK,)) for detail, n in checked.items()]
    basis = _basis_cause(old, new, any(c.kind == CANDIDATE for c in out))
    if basis is not None and basis.kind == COMPARISON:
        out.append(basis)
    return out


def campaign_text(old: KernelSnapshot, new: KernelSnapshot) -> str:
    """``campaign removed: its 12 shapes are no longer timed`` when one side has the kernel's campaign and the
    other none (a bundle alone): the verdict and the geomean come or go with it, no time moved."""
    if old.op and not new.op:
        return f"campaign removed: its {_count(len(old.shapes), 'shape')} no longer timed"
    if new.op and not old.op:
        return f"campaign added: {_count(len(new.shapes), 'shape')} timed"
    return ""


def _basis_cause(old: KernelSnapshot, new: KernelSnapshot, candidate_moved: bool) -> Cause | None:
    """Who changed the rung the verdict rests on (VERDICTS rule 12): the candidate when either side rests
    on its failures or it passes other shapes now, else the comparison (the baselines compared with)."""
    a, b = old.verdict_basis, new.verdict_basis
    if not a or not b or a == b:
        return None
    if candidate_moved or "failures" in (a, b):
        return None
    why = " (a profiled pair decides now)" if b == "pair" else " (the profiled pair decides no more)" if a == "pair" else ""
    return Cause(COMPARISON, f"verdict basis {_arrow(a, b)}{why}", (COMPARISON,))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def comparison_facts(old: KernelSnapshot, new: KernelSnapshot) -> dict[str, list[list[Any]]]:
    """What changed in the baselines a kernel is compared with, over the shapes on both sides:
    ``{"moves": [[provider, old status, new status, shapes]], "best": [[old best, new best, shapes]]}``
    (status None: no row; ``best``: the changes of best baseline those moves caused)."""
    olds = {s.shape_id: s for s in old.shapes}
    moves: dict[tuple, int] = {}
    best: dict[tuple, int] = {}
    for b in new.shapes:
        a = olds.get(b.shape_id)
        if a is None:
            continue
        for m in status_moves(a, b):
            moves[m] = moves.get(m, 0) + 1
        if shape_comparison(a, b) is not None:
            best[(a.best_baseline, b.best_baseline)] = best.get((a.best_baseline, b.best_baseline), 0) + 1
    return {"moves": [[*m, n] for m, n in moves.items()], "best": [[*pair, n] for pair, n in best.items()]}


def comparison_summary(old: KernelSnapshot, new: KernelSnapshot) -> str:
    """``aiter now passes (was failed) on 3 shapes; best baseline pytorch → aiter on 3 shapes``
    (``comparison_facts`` in words; empty when the baselines compared with did not change)."""
    return comparison_text(comparison_facts(old, new))


def comparison_text(facts: Mapping[str, list[list[Any]]]) -> str:
    """:func:`comparison_facts` in one line."""
    parts = [f"{status_move_text(p, a, b)} on {_count(n, 'shape')}" for p, a, b, n in facts.get("moves", [])]
    parts += [f"best baseline {_arrow(a, b)} on {_count(n, 'shape')}" for a, b, n in facts.get("best", [])]
    return "; ".join(parts)


def comparison_change(old: KernelSnapshot, new: KernelSnapshot) -> list[Change]:
    """One change saying which baselines compared with changed, when any did (``new``: the facts), and one
    when the clock the pair basis reads changed (``pair_clock``, when the verdict engine gives it)."""
    out = []
    campaign = campaign_text(old, new)
    if campaign:
        out.append(Change("comparison", new.slug, "campaign", old.op, new.op, True, NEUTRAL,
                          causes=[Cause(COMPARISON, campaign, (COMPARISON,))], text=campaign))
    facts = comparison_facts(old, new)
    text = comparison_text(facts)
    if text:
        out.append(Change("comparison", new.slug, "baselines", None, facts, True, NEUTRAL,
                          causes=[Cause(COMPARISON, text, (COMPARISON,))], text=f"baselines compared: {text}"))
    clocks = old.extras.get("pair_clock"), new.extras.get("pair_clock")
    if all(clocks) and clocks[0] != clocks[1]:
        out.append(Change("comparison", new.slug, "pair_clock", clocks[0], clocks[1], True, NEUTRAL,
                          causes=[Cause(COMPARISON, f"pair clock {_arrow(*clocks)}", (COMPARISON,))],
                          text=f"pair clock {_arrow(*clocks)}"))
    return out


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
            compared = shape_comparison(a, b)
            if c_ratio is not None and b_ratio is not None:
                cand_ratios.append(c_ratio)
                if compared is None:  # a baseline's own move (another baseline's time is no move of it)
                    base_ratios.append(b_ratio)
            changes += _shape_speedup_change(old, new, a, b, options, c_ratio, b_ratio, compared)
        elif (a.speedup is None) != (b.speedup is None):
            changes.append(_shape_status_change(old, new, a, b))
    for sid, a in olds.items():
        if sid not in news:
            changes.append(Change("shape-removed", new.slug, "shape", a.speedup, None, False, NEUTRAL,
                                  shape_id=sid, args=a.args, dtype=a.dtype,
                                  text=f"shape removed {shape_text(a.args, a.dtype)}"))
    return changes, cand_ratios, base_ratios


def _shape_speedup_change(old: KernelSnapshot, new: KernelSnapshot, a: ShapePoint, b: ShapePoint,
                          options: DiffOptions, c_ratio: float | None, b_ratio: float | None,
                          compared: Cause | None = None) -> list[Change]:
    """The speedup change of a shape measured on both sides (none when equal); ``compared``: the
    comparison's cause when its best baseline changed with the baselines passing."""
    ratio = ratio_of(b.speedup, a.speedup)
    if ratio is None or ratio == 1.0:
        return []
    factor = threshold_factor([a.noise, b.noise], max(options.min_change, SHAPE_MIN_CHANGE))
    significant = beats(ratio, factor)
    base = "" if a.best_baseline == b.best_baseline else f", best baseline {_arrow(a.best_baseline, b.best_baseline)}"
    return [Change("shape", new.slug, "speedup", a.speedup, b.speedup, significant, direction_of(ratio),
                   ratio=ratio, threshold=factor,
                   causes=attribute(old, new, significant, factor, c_ratio, None if compared else b_ratio,
                                    [a.best_baseline, b.best_baseline], [compared] if compared else None),
                   shape_id=b.shape_id, args=b.args, dtype=b.dtype,
                   text=f"{fmt_x(a.speedup)} → {fmt_x(b.speedup)} ({fmt_pct(ratio)}){base}")]


def _shape_status_change(old: KernelSnapshot, new: KernelSnapshot, a: ShapePoint, b: ShapePoint) -> Change:
    """A shape that became measured, or stopped being measured: by the candidate (its status changed;
    ``item`` "candidate") or by the comparison (a baseline started or ceased to pass; ``item`` "baselines")."""
    now_measured = b.speedup is not None
    by_candidate = a.candidate_status != b.candidate_status or a.baseline_status is None or b.baseline_status is None
    with_check = check_movers(old, new, a, b) if by_candidate else []
    if with_check:  # the candidate and a baseline at the same commit crossed the check together
        text = (f"now measured: {fmt_x(b.speedup)} (was {a.candidate_status})" if now_measured
                else f"no longer measured: {b.candidate_status} (was {fmt_x(a.speedup)})")
        causes = [Cause(CHECK, check_text("the candidate", with_check, old, new, now_measured),
                        (CHECK,))]
        return Change("shape-status", new.slug, "check", a.candidate_status, b.candidate_status, True,
                      IMPROVEMENT if now_measured else REGRESSION, causes=causes,
                      shape_id=b.shape_id, args=b.args, dtype=b.dtype, text=text)
    if by_candidate:
        status = b.candidate_status if not now_measured else a.candidate_status
        text = (f"now measured: {fmt_x(b.speedup)} (was {status or 'not run'})" if now_measured
                else f"no longer measured: {status or 'no candidate row'} (was {fmt_x(a.speedup)})")
        commit = (f"commit {_arrow(old.candidate_commit, new.candidate_commit)}"
                  if changed(old.candidate_commit, new.candidate_commit) else "same commit")
        causes = [Cause(CANDIDATE, f"{_arrow(a.candidate_status, b.candidate_status)}, {commit}", (CANDIDATE,))]
    else:
        moves = "; ".join(status_move_text(*m) for m in status_moves(a, b)) or "no baseline passes"
        text = (f"now measured: {fmt_x(b.speedup)} (no baseline passed before)" if now_measured
                else f"no longer measured: no baseline passes (was {fmt_x(a.speedup)})")
        causes = [Cause(COMPARISON, moves, (COMPARISON,))]
    return Change("shape-status", new.slug, "candidate" if by_candidate else "baselines",
                    a.candidate_status, b.candidate_status, True,
                    IMPROVEMENT if now_measured else REGRESSION, causes=causes,
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
    return causes or [Cause(UNEXPLAINED, "no candidate commit or environment change recorded", (CANDIDATE,))]


def diff_kernel_provenance(old: KernelSnapshot, new: KernelSnapshot) -> list[Change]:
    """Changes of the candidate commit, a baseline's commit, or the environment."""
    out = []
    if changed(old.candidate_commit, new.candidate_commit):
        out.append(Change("provenance", new.slug, "candidate_commit", old.candidate_commit, new.candidate_commit,
                          False, NEUTRAL, text=f"candidate commit {_arrow(old.candidate_commit, new.candidate_commit)}"))
    olds, news = comparable_baselines(old.baselines, new.baselines)
    for p in sorted(set(olds) | set(news)):
        a, b = olds.get(p), news.get(p)
        if changed(a, b):
            out.append(Change("provenance", new.slug, f"baseline:{p}", a, b, False, NEUTRAL,
                              text=f"baseline {provider_name(p)} {_arrow(a, b)}"))
    for k, (a, b) in environment_changes(old.environment, new.environment).items():
        out.append(Change("provenance", new.slug, k, a, b, False, NEUTRAL, text=f"{k} {_arrow(a, b)}"))
    return out


def diff_snapshots(old: SweepSnapshot, new: SweepSnapshot, options: DiffOptions = DiffOptions()) -> SweepDiff:
    """Compare two snapshots: kernels matched by slug (and by ``options.renames``)."""
    if old.format_version != new.format_version:
        raise InputError(new.label, f"format version {new.format_version} differs from the old side's "
                                    f"{old.format_version}: rebuild both sides with the same kernel-atlas")
    pairs: dict[str, str] = {}  # old slug -> new slug
    for a, b in options.renames:
        a, b = slug_named(old, a), slug_named(new, b)
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
                                  old_verdict=k.verdict, new_verdict=None, old_geomean=k.kernel_vs_any,
                                  new_geomean=None, changes=[Change(
                                      "kernel-removed", k.slug, "kernel", k.verdict, None, True, NEUTRAL,
                                      text=f"kernel removed (was {k.verdict or 'no verdict'}"
                                           f"{', ' + fmt_x(k.kernel_vs_any) if k.kernel_vs_any else ''})")]))
    for k in added:
        kernels.append(KernelDiff(slug=k.slug, name=k.name, old_slug=None, status="new",
                                  old_verdict=None, new_verdict=k.verdict, old_geomean=None,
                                  new_geomean=k.kernel_vs_any, changes=[Change(
                                      "kernel-new", k.slug, "kernel", None, k.verdict, True, NEUTRAL,
                                      text=f"new kernel ({k.verdict or 'no verdict'}"
                                           f"{', ' + fmt_x(k.kernel_vs_any) if k.kernel_vs_any else ''})")]))
    kernels.sort(key=lambda k: k.slug)
    notes = rename_hints(removed, added)
    notes += error_notes(old.errors, new.errors)
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


def slug_named(snap: SweepSnapshot, name: str) -> str:
    """The slug of the kernel ``name`` names on one side: its slug, else its campaign (as ``verdicts`` prints
    it), bundle or title when exactly one kernel has it; ``name`` itself otherwise (then an unknown one)."""
    if name in snap.kernels:
        return name
    found = [k.slug for k in snap.kernels.values() if name in (k.op, k.bundle, k.name)]
    return found[0] if len(found) == 1 else name


def error_notes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One note per item that could not be read: on both sides (the same problem), or on one."""
    notes = []
    for item in sorted(set(old) | set(new)):
        if old.get(item) == new.get(item):
            notes.append(f"both sides: {item} could not be read: {new[item]}")
            continue
        for side, errors in (("old", old), ("new", new)):
            if item in errors:
                notes.append(f"{side} side: {item} could not be read: {errors[item]}")
    return notes


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
    """Sweep-level provenance keys whose value differs; a key one side does not record is said as such
    (unknown there, not a change: a sweep without docs/data/kernels.json records no date)."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        text = (f"{k} {_arrow(a, b)}" if changed(a, b)
                else f"{k} {a if a is not None else b} (recorded by the {'old' if a is not None else 'new'} side only)")
        out.append(Change("provenance", None, k, a, b, False, NEUTRAL, text=text))
    return out
