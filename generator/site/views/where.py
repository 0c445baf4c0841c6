"""Where a kernel loses, in one line (VERDICTS rule 15): the loss split's sides with their severity, else the
configuration that loses most, else how many verdict shapes lose. Shared by the overview row, the kernel
page's header and panel, and the PR snippet."""

from __future__ import annotations

import math
from typing import Any

from generator.analyze.message import Msg, msg
from generator.analyze.verdicts import loses
from generator.analyze.verdicts.rules import reaches
from generator.site.views.base import SiteContext
from generator.words import ratio_text
from generator.site.views.next_step import severity_level


def side_level(g: float, score: Any, ctx: SiteContext) -> str:
    """A side's word: ``wins`` or ``parity`` by the verdict thresholds, else its HEADROOM severity."""
    t = score.thresholds
    if reaches(g, t.win):
        return "wins"
    if reaches(g, t.headroom):
        return "parity"
    return severity_level(g, ctx.severity_near, ctx.severity_tune)


def _x(g: float, score: Any, ctx: SiteContext) -> str:
    """A side's ratio, never rounded across the verdict or severity threshold its word is read against."""
    t = score.thresholds
    return ratio_text(g, (t.headroom, t.win, ctx.severity_near, ctx.severity_tune))


def _level(word: str) -> Msg:
    return msg(f"where.level.{word}")


def _config_of(w: Any) -> dict[str, dict[str, str]]:
    """Each ``by_config`` label's configuration (the stale group "" maps to {})."""
    return {c.label: dict(c.config or {}) for c in w.configs.values()}


def varying_keys(configs: list[dict[str, str]]) -> list[str]:
    """The configuration keys whose values differ between configurations (all keys when none differs)."""
    known = [c for c in configs if c]
    keys = list(dict.fromkeys(k for c in known for k in c if not k.startswith("tile ")))
    return [k for k in keys if len({c.get(k) for c in known}) > 1] or keys


def short_label(config: dict[str, str], keys: list[str]) -> str:
    """A configuration cut to ``keys`` ("tile_m=16, tile_n=64"); "?" for an unknown (stale) one."""
    return ", ".join(f"{k}={config[k]}" for k in keys if k in config) if config else "?"


def _worst_config(w: Any) -> tuple[str, list] | None:
    """The known configuration that loses most, when it holds at least 3 shapes and its geomean is
    1.25x or more below the other shapes' (the loss split's own bar): else None."""
    known = {k: v for k, v in (w.by_config or {}).items() if k}
    if len(known) < 2:
        return None
    worst = min(known, key=lambda k: known[k][0])
    g, n = known[worst]
    rest = [(v[0], v[1]) for k, v in (w.by_config or {}).items() if k != worst]
    total = sum(m for _, m in rest)
    other = math.exp(sum(m * math.log(x) for x, m in rest) / total) if total else None
    if n < loses.MIN_SIDE or other is None or other < loses.MIN_RATIO * g:
        return None
    return worst, known[worst]


def where_msg(score: Any, ctx: SiteContext) -> Msg | None:
    """The line beside the verdict: the loss split's sides with their severity; else the configuration
    that loses most; else how many verdict shapes lose. None where the verdict does not rest on shapes."""
    w = getattr(score, "where", None)
    if w is None or score.verdict_basis != "shapes" or not score.verdict_geomean:
        return None
    split = w.loss_split
    if split is not None:
        (g, n), (g2, n2) = split.losing, split.other
        return msg("where.split", level=_level(side_level(g, score, ctx)), side=loses.side_msg(split),
                   g=_x(g, score, ctx), n=n, level2=_level(side_level(g2, score, ctx)), g2=_x(g2, score, ctx), n2=n2)
    worst = _worst_config(w)
    if worst is not None:
        label, (g, n) = worst
        configs = _config_of(w)
        keys = varying_keys(list(configs.values()))
        return msg("where.config", level=_level(side_level(g, score, ctx)), config=short_label(configs[label], keys),
                   g=_x(g, score, ctx), n=n, k=sum(1 for k in w.by_config if k))
    ratios = [s.verdict_speedup for s in score.shapes if s.is_verdict_shape]
    lose = sum(not reaches(r, score.thresholds.headroom) for r in ratios)
    if not lose:
        return msg("where.none", n=len(ratios))
    key = "where.spread" if len(ratios) >= loses.MIN_SHAPES else "where.few"
    return msg(key, k=lose, n=len(ratios))
