"""The roofline panel."""

from __future__ import annotations

from dataclasses import dataclass

from generator.site import charts
from generator.site.views.base import DASH, KernelData, SiteContext, fmt_pct
from generator.site.views.overview import ChartView, Fact, IndexRow, chart_view
from generator.site.views.panel import register_panel


@dataclass
class RooflineView:
    chart: ChartView | None
    facts: list[Fact]
    points: list[list[str]]
    notes: list[str]


@register_panel("roofline", "Roofline", 55)
def _roofline_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> RooflineView | None:
    r = k.roofline
    if not r or not r.get("points"):
        return None
    facts = []
    dev = r.get("device") or {}
    if isinstance(dev, dict) and dev.get("name"):
        facts.append(Fact("device", f"{dev.get('name')} ({dev.get('hbm_tbs')} TB/s HBM)"))
    for prec, ridge in (r.get("ridges") or {}).items():
        facts.append(Fact(f"ridge point ({prec})", f"{ridge:.1f} FLOP/byte"))
    counts = r.get("counts")
    if isinstance(counts, dict):
        facts.append(Fact("points", ", ".join(f"{v} {key}" for key, v in counts.items() if v) or DASH))
    pts = [[str(p.get("provider", "")), str(p.get("args", "")), f"{p.get('ai', 0):.3g}",
            f"{p.get('tflops', 0):.3g}", fmt_pct(p.get("fraction_of_roof")),
            str(p.get("bound", "")) + (f" — {p['above_roof']}" if p.get("above_roof") else "")]
           for p in r["points"]]
    return RooflineView(chart_view("roofline", charts.roofline(r), "Roofline: throughput against arithmetic intensity",
                                   "chart.roofline"), facts, pts, [str(n) for n in r.get("notes") or []])
