"""When a change is real and who caused it: thresholds, directions, attribution."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from generator.sweeps.diff.changes import (
    BASELINE,
    CANDIDATE,
    COMPARISON,
    ENVIRONMENT,
    IMPROVEMENT,
    NEUTRAL,
    NOISE,
    PROVIDER_ENVIRONMENT,
    REGRESSION,
    UNEXPLAINED,
    VERDICT_RANK,
    Cause,
)
from generator.sweeps.snapshot import ENVIRONMENT_KEYS, KernelSnapshot, ShapePoint

#: A baseline's status on a shape when it passes (``ShapePoint.baseline_status``).
PASSES = "ok"


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


def changed(old: Any, new: Any) -> bool:
    """A recorded value that differs: both sides record it and they differ (a value one side does not
    record, a sweep without docs/data/kernels.json, is unknown there, not changed)."""
    return old is not None and new is not None and old != new


def environment_changes(old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, tuple[str | None, str | None]]:
    """Environment keys recorded on both sides whose value differs (``changed``)."""
    return {k: (old.get(k), new.get(k)) for k in ENVIRONMENT_KEYS if changed(old.get(k), new.get(k))}


def _arrow(old: Any, new: Any) -> str:
    return f"{'—' if old is None else old} → {'—' if new is None else new}"


def attribute(old: KernelSnapshot, new: KernelSnapshot, significant: bool, factor: float,
              cand_ratio: float | None, base_ratio: float | None,
              providers: Iterable[str | None] = (), known: list[Cause] | None = None) -> list[Cause]:
    """The causes of one timing change (see the module docstring for the rules).

    ``providers``: the best baselines involved (OLD and NEW), whose commits are checked.
    ``cand_ratio`` / ``base_ratio`` None: that side's move is unknown, so a changed commit
    or environment is named as a possible cause. ``known``: causes already found (the comparison's,
    a change of which shapes the candidate passes); with them the baseline's move (when the comparison
    changed) or the lack of any other move is explained, and nothing is "unexplained" for it.
    """
    if not significant:
        return [Cause(NOISE, f"within the noise (±{(factor - 1) * 100:.1f}%)")]
    known = list(known or [])
    compared = any(c.kind == COMPARISON for c in known)
    cand_moved = cand_ratio is None or beats(cand_ratio, factor)
    base_moved = not compared and (base_ratio is None or beats(base_ratio, factor))
    if known and cand_ratio is None:
        cand_moved = False  # the move is the one named; no common shape says the candidate's time moved
    if known and base_ratio is None:
        base_moved = False
    causes: list[Cause] = []
    env = environment_changes(old.environment, new.environment)
    if cand_moved and changed(old.candidate_commit, new.candidate_commit):
        causes.append(Cause(CANDIDATE, f"commit {_arrow(old.candidate_commit, new.candidate_commit)}"
                            + _times(cand_ratio, "candidate"), (CANDIDATE,)))
    if base_moved:
        olds, news = comparable_baselines(old.baselines, new.baselines)
        for p in dict.fromkeys(p for p in providers if p):
            a, b = baseline_commit(olds, p), baseline_commit(news, p)
            if changed(a, b):
                causes.append(Cause(BASELINE, f"{p} {_arrow(a, b)}" + _times(base_ratio, "baseline"), (BASELINE,)))
            elif PROVIDER_ENVIRONMENT.get(p) in env:
                key = PROVIDER_ENVIRONMENT[p]
                causes.append(Cause(BASELINE, f"{p} ({key} {_arrow(*env[key])})" + _times(base_ratio, "baseline"),
                                    (BASELINE,)))
    if env and (cand_moved or base_moved):
        sides = tuple(s for s, moved in ((CANDIDATE, cand_moved), (BASELINE, base_moved)) if moved)
        causes.append(Cause(ENVIRONMENT, ", ".join(f"{k} {_arrow(*v)}" for k, v in env.items()), sides))
    explained_cand = any(c.kind in (CANDIDATE, ENVIRONMENT) for c in causes)
    explained_base = any(c.kind in (BASELINE, ENVIRONMENT) for c in causes)
    unexplained, sides = [], []
    if cand_ratio is not None and cand_moved and not explained_cand:
        unexplained.append(_times(cand_ratio, "candidate").strip(" ()"))
        sides.append(CANDIDATE)
    if base_ratio is not None and base_moved and not explained_base:
        unexplained.append(_times(base_ratio, "baseline").strip(" ()"))
        sides.append(BASELINE)
    if unexplained or not (causes or known):
        what = ", ".join(unexplained) or "no side's move is known"
        causes.append(Cause(UNEXPLAINED, f"{what}; no commit or environment change recorded",
                            tuple(sides) or (CANDIDATE, BASELINE)))
    return known + causes


def status_moves(a: ShapePoint, b: ShapePoint) -> list[tuple[str, str | None, str | None]]:
    """The baselines of a shape that were added, removed, or started or ceased to pass:
    ``(provider, old status, new status)`` (None: no row); none when a side did not record them."""
    olds, news = a.baseline_status, b.baseline_status
    if olds is None or news is None:
        return []
    return [(p, olds.get(p), news.get(p)) for p in sorted(set(olds) | set(news))
            if (olds.get(p) == PASSES) != (news.get(p) == PASSES)]


def status_move_text(provider: str, old: str | None, new: str | None) -> str:
    """``aiter now passes (was failed)``, ``aiter added``, ``aiter no longer passes (now incorrect)``, ``aiter removed``."""
    if old is None:
        return f"{provider} added" + ("" if new == PASSES else f" ({new})")
    if new is None:
        return f"{provider} removed" + ("" if old != PASSES else " (passed)")
    if new == PASSES:
        return f"{provider} now passes (was {old})"
    return f"{provider} no longer passes (now {new})"


#: The statuses a correctness check gives: passing it, failing it.
CHECKED = (PASSES, "incorrect")


def check_movers(old: KernelSnapshot, new: KernelSnapshot, a: ShapePoint, b: ShapePoint) -> list[str]:
    """The baselines that moved with the candidate across the correctness check on a shape (both from
    ``incorrect`` to passing, or back), each at the same commit on both sides: then the check changed
    (the harness's tolerance), not the kernels. Empty when the candidate did not cross it or no baseline did."""
    if a.baseline_status is None or b.baseline_status is None:
        return []
    move = (a.candidate_status, b.candidate_status)
    if set(move) != set(CHECKED):
        return []
    olds, news = comparable_baselines(old.baselines, new.baselines)
    return [p for p in sorted(set(a.baseline_status) & set(b.baseline_status))
            if (a.baseline_status[p], b.baseline_status[p]) == move
            and not changed(baseline_commit(olds, p), baseline_commit(news, p))]


def check_text(candidate: str, providers: list[str], old: KernelSnapshot, new: KernelSnapshot, passes: bool) -> str:
    """``the check changed: flydsl and aiter (same commit 32e1e6d76) now pass it together``."""
    olds, _ = comparable_baselines(old.baselines, new.baselines)
    named = ", ".join(f"{p} (same commit {baseline_commit(olds, p)})" if baseline_commit(olds, p) else p
                      for p in providers)
    verb = "now pass it together" if passes else "now fail it together"
    return f"the correctness check changed: {candidate} and {named} {verb}; neither kernel's doing"


def shape_comparison(a: ShapePoint, b: ShapePoint) -> Cause | None:
    """The comparison's cause of a shape's move: its best baseline changed because a baseline was added,
    removed, or started or ceased to pass (when the statuses are not recorded: any change of the best
    baseline); None when the shape is compared with the same baselines."""
    moves = status_moves(a, b)
    if a.best_baseline == b.best_baseline:
        return None
    involved = [m for m in moves if m[0] in (a.best_baseline, b.best_baseline)]
    if a.baseline_status is not None and b.baseline_status is not None and not involved:
        return None  # both passed on both sides: the order of their times changed (a baseline's move)
    words = [status_move_text(*m) for m in involved]
    words.append(f"best baseline {_arrow(a.best_baseline, b.best_baseline)}")
    return Cause(COMPARISON, "; ".join(words), (COMPARISON,))


def provider_name(provider: str) -> str:
    """A provider for display (``*``: the one commit recorded for all baselines)."""
    return "all baselines" if provider == "*" else provider


def baseline_commit(baselines: Mapping[str, str], provider: str) -> str | None:
    """A baseline provider's commit; the ``*`` entry (one value for all baselines) otherwise."""
    return baselines.get(provider, baselines.get("*"))


def _times(ratio: float | None, side: str) -> str:
    """`` (candidate time ×1.20)``, or nothing when the ratio is unknown."""
    return "" if ratio is None else f" ({side} time ×{ratio:.2f})"


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
