"""Where a kernel loses (VERDICTS rule 15): the one line beside the verdict, and the kernel page's panel
(the loss split's two sides with their severity, the configurations, the shape-space chart and the
shapes that could not be graph-captured)."""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any

from generator.analyze.message import msg
from generator.analyze.verdicts import loses
from generator.model import record
from generator.site import charts, i18n
from generator.site.views.base import KernelData, SiteContext, fmt_x
from generator.site.views.where import _config_of, _level, _x, short_label, side_level, varying_keys, where_msg
from generator.site.views.index_row import IndexRow
from generator.site.views.overview_chart import ChartView, chart_view
from generator.site.views.panel import register_panel
from generator.site.wording import Said, said


@record
class SideView:
    side: Said
    ratio_text: str
    n: int
    level: str  # wins, parity, near, tune, rewrite
    level_said: Said
    losing: bool
    configs: str = ""  # the side's shapes by configuration, "tile_m=16, tile_n=64 (8); ? (1)" (rule 15)


@record
class ConfigRow:
    label: str
    workgroups: str  # "1-4 of 256 CUs"
    ratio_text: str
    n: int
    level: str


@record
class CaptureFailureRow:
    args: str
    error: str
    call_text: str  # "437.4 us (+180.6 us over its usual call)"
    baseline_text: str


@record
class WhereView:
    line: Said | None
    sides: list[SideView] = field(default_factory=list)
    configs: list[ConfigRow] = field(default_factory=list)
    stale: Said | None = None  # shapes whose configuration is unknown (a stale detail)
    chart: ChartView | None = None
    capture_failures: list[CaptureFailureRow] = field(default_factory=list)
    capture_note: Said | None = None


def _side_configs(score: Any, losing: bool) -> str:
    """VERDICTS rule 15: a side described by its shapes' configurations first (the threshold is one description
    of them): each configuration with its count of the side's shapes, most first ("?": a stale detail);
    "" when the verdict shapes use one configuration."""
    w = score.where
    if not w.by_config:
        return ""
    configs = _config_of(w)
    keys = varying_keys(list(configs.values()))
    side = set(w.loss_split.shapes)
    counts: dict[str, int] = {}
    for s in score.shapes:
        c = w.configs.get(s.shape_id) if s.is_verdict_shape else None
        if c is not None and (s.shape_id in side) == losing:
            label = short_label(dict(c.config or {}), keys)
            counts[label] = counts.get(label, 0) + 1
    return "; ".join(f"{label} ({n})" for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _sides(score: Any, ctx: SiteContext) -> list[SideView]:
    split = score.where.loss_split
    out = []
    for losing, (g, n) in ((True, split.losing), (False, split.other)):
        word = side_level(g, score, ctx)
        out.append(SideView(said(loses.side_msg(split, losing)), _x(g, score, ctx), n, word, said(_level(word)), losing,
                            _side_configs(score, losing)))
    return out


def _configs(score: Any, ctx: SiteContext) -> list[ConfigRow]:
    w = score.where
    if not w.by_config:
        return []
    configs = _config_of(w)
    keys = varying_keys(list(configs.values()))
    groups: dict[str, list[int]] = {}
    for s in score.shapes:
        c = w.configs.get(s.shape_id) if s.is_verdict_shape else None
        if c is not None and c.workgroups is not None:
            groups.setdefault(c.label, []).append(c.workgroups)
    rows = []
    for label, (g, n) in sorted(w.by_config.items(), key=lambda kv: kv[1][0]):
        wg = groups.get(label)
        span = (f"{min(wg):,}" if min(wg) == max(wg) else f"{min(wg):,}\u2013{max(wg):,}") if wg else ""
        if span and w.cus:
            span += f" / {w.cus} CUs"
        rows.append(ConfigRow(short_label(configs.get(label, {}), keys), span, _x(g, score, ctx), n, side_level(g, score, ctx)))
    return rows


def _chart(score: Any) -> ChartView | None:
    """Each verdict shape's ratio against the split's feature (or the one that explains most), coloured by
    configuration."""
    w = score.where
    shapes = [s for s in score.shapes if s.is_verdict_shape]
    if len(shapes) < 2:
        return None
    feature = w.loss_split.feature if w.loss_split else None
    if feature is None:
        found = loses.search(shapes, w.configs, [math.log(s.verdict_speedup) for s in shapes])
        feature = found.feature if found else None
    if feature is None:
        return None
    cols = dict(loses.features(shapes, w.configs))
    if feature not in cols:
        return None
    keys = varying_keys([dict(c.config or {}) for c in w.configs.values()])
    labels = [short_label(dict(w.configs[s.shape_id].config or {}), keys) if w.by_config else "" for s in shapes]
    fig = charts.shape_space(cols[feature], [s.verdict_speedup for s in shapes], labels,
                             [s.args_text for s in shapes], feature, score.thresholds.win, score.thresholds.headroom)
    return chart_view("where", fig, i18n.en("chart.where"), "chart.where")


def _capture_failures(score: Any) -> list[CaptureFailureRow]:
    out = []
    for f in score.capture_failures:
        call = f"{f.call_us:,.1f} us" + (f" ({f.excess_us:+,.1f} us over its usual call)" if f.excess_us is not None else "")
        base = f"{f.baseline}: {f.baseline_call_us:,.1f} us" if f.baseline else "\u2014"
        out.append(CaptureFailureRow(f.args_text, f.error or "", call, base))
    return out


def where_view(k: KernelData, ctx: SiteContext) -> WhereView | None:
    """The panel's data; None where there is nothing to say (no verdict shapes, no capture failure)."""
    s = k.score
    if s is None:
        return None
    line = where_msg(s, ctx)
    fails = _capture_failures(s)
    if line is None and not fails:
        return None
    view = WhereView(said(line) if line is not None else None, capture_failures=fails)
    if fails:
        g = s.graph_capture_failed[1]
        view.capture_note = said(msg("where.capture.note", n=len(fails), total=s.n_measured, g=fmt_x(g)) if g else
                                 msg("where.capture.note.nog", n=len(fails), total=s.n_measured))
    if s.where is not None and line is not None:
        view.sides = _sides(s, ctx) if s.where.loss_split else []
        view.configs = _configs(s, ctx)
        view.stale = said(msg("where.stale", n=s.where.stale_detail)) if s.where.stale_detail else None
        # the chart where a split or the configurations say where the losses are (else the header's line is all)
        view.chart = _chart(s) if view.sides or view.configs else None
    if not (view.sides or view.configs or fails):  # nothing beyond the header's line
        return None
    return view


@register_panel("where", "Where it loses", 8)
def _where_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> WhereView | None:
    return where_view(k, ctx)
