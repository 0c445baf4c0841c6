"""When a change is real and who caused it: thresholds, directions, attribution."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from generator.sweeps.diff.changes import (
    BASELINE,
    CANDIDATE,
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
from generator.sweeps.snapshot import ENVIRONMENT_KEYS, KernelSnapshot


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
