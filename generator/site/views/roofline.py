"""The roofline panel."""

from __future__ import annotations

from dataclasses import field
from functools import lru_cache

from markupsafe import Markup

from generator.analyze.message import Msg, msg
from generator.model import record
from generator.site import charts, i18n, wording
from generator.site.views.base import DASH, KernelData, SiteContext, fmt_pct
from generator.site.views.overview import ChartView, Fact, chart_view
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


@record
class RooflineView:
    chart: ChartView | None
    facts: list[Fact]
    points: list[list[str]]
    notes: list[str]
    bounds_zh: list[str] = field(default_factory=list)  # the last column of ``points`` in 中文

    @property
    def rows(self) -> list[tuple[list[str], str]]:
        """Each point's cells with its bound in 中文 (the table's rows)."""
        return list(zip(self.points, self.bounds_zh))


@register_panel("roofline", "Roofline", 55)
def _roofline_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> RooflineView | None:
    r = k.roofline
    if not r or not r.get("points"):
        return None
    facts = []
    dev = r.get("device") or {}
    if isinstance(dev, dict) and dev.get("name"):
        facts.append(Fact.of("roof.device", "roof.v.device", name=dev.get("name"), tbs=dev.get("hbm_tbs")))
    for prec, ridge in (r.get("ridges") or {}).items():
        facts.append(Fact(i18n.en("roof.ridge", prec=prec), f"{ridge:.1f} FLOP/byte", zh=i18n.marked(
            "zh", "roof.v.ridge", v=f"{ridge:.1f}"), label_zh=i18n.marked("zh", "roof.ridge", prec=prec)))
    counts = r.get("counts")
    if isinstance(counts, dict):
        shown = [(v, key) for key, v in counts.items() if v]
        en = ", ".join(f"{v} {key}" for v, key in shown)
        zh = Markup("，").join(Markup('<span translate="no">{}</span> {}').format(v, bound_zh(key)) for v, key in shown)
        left = left_out_msg(r.get("left_out"))
        if left is not None:  # VERDICTS rules 9 and 13: these points carry no bound, and are counted apart
            en = "; ".join(x for x in (en, wording.plain("en", left)) if x)
            zh = Markup("；").join(x for x in (zh, Markup.escape(wording.plain("zh", left))) if x)
        facts.append(Fact(i18n.en("roof.points"), en or DASH, "roof.points", zh=zh or DASH))
    pts = [[str(p.get("provider", "")), str(p.get("args", "")), f"{p.get('ai', 0):.3g}",
            f"{p.get('tflops', 0):.3g}", fmt_pct(p.get("fraction_of_roof")),
            point_bound(p)]
           for p in r["points"]]
    bounds = [point_bound_zh(p) for p in r["points"]]
    return RooflineView(chart_view("roofline", charts.roofline(r), "Roofline: throughput against arithmetic intensity",
                                   "chart.roofline"), facts, pts, list(r.get("notes") or []), bounds)


def point_bound(p: dict) -> str:
    """A point's bound (the last column of the points table), or why it carries none: above a roof (VERDICTS
    rule 9: a row that does less work than modelled is no reading of the kernel), on the call clock (rule 13), or
    the candidate's where its graph replay misses work (rule 16), or at the timing floor (rule 11)."""
    return str(p["no_bound"]) if p.get("no_bound") else str(p.get("bound", ""))


def point_bound_zh(p: dict) -> Markup:
    """``point_bound`` in 中文."""
    return i18n.zh_said(p["no_bound"]) if p.get("no_bound") else bound_zh(str(p.get("bound", "")))


def left_out_msg(left: object) -> Msg | None:
    """"7 above a roof, 29 on the call clock: no bound" of a roofline's ``left_out``; None when none is."""
    if not isinstance(left, dict):
        return None
    keys = (("above_roof", "roof.points.above"), ("call_clock", "roof.points.call"),
            ("partial_replay", "roof.points.partial"), ("at_floor", "roof.points.floor"))
    parts = [msg(key, n=left[name]) for name, key in keys if left.get(name)]
    return msg("roof.points.nobound", parts=parts) if parts else None


@lru_cache(maxsize=64)
def bound_zh(bound: str) -> Markup:
    """A roofline bound label (memory-, compute-, latency-bound) in 中文; an unknown one as data."""
    key = f"roof.bound.{bound}"
    if key in i18n.catalogue("zh"):
        return Markup.escape(i18n.zh(key))
    return Markup('<span translate="no">{}</span>').format(bound)
