"""The captures-side-by-side panel."""

from __future__ import annotations

from typing import Any

from generator.model import record
from generator.site import charts, i18n
from generator.site.text_report import fmt_cycles
from generator.site.views.base import DASH, KernelData, SiteContext, fmt_num, fmt_pct
from generator.site.views.overview import ChartView, chart_view
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


# ---- compare captures

@record
class CompareRow:
    """One compared quantity: capture A, capture B and the change (B - A)."""

    what: str
    a: str
    b: str
    change: str
    css: str = ""
    key: str = ""  # the catalogue key of ``what`` (totals); none: ``what`` is data (a stall type, a line)


@record
class CompareView:
    """Two captures of the kernel side by side (``generator.analyze.compare``)."""

    title: str
    a_name: str
    b_name: str
    a_href: str
    b_href: str
    totals: list[CompareRow]
    stall_types: list[CompareRow]
    wave_states: list[CompareRow]
    lines: list[CompareRow]
    chart: ChartView | None
    notes: list[str]


def _pts(delta: float | None) -> str:
    """A share difference in percentage points: ``+5.0 pts``."""
    return DASH if delta is None else f"{delta * 100:+.1f} pts"


def _total_text(name: str, value: Any) -> str:
    if value is None:
        return DASH
    if name in ("stall_ratio", "mapped_fraction"):
        return fmt_pct(value)
    if isinstance(value, (int, float)) and abs(value) >= 1000:
        return fmt_cycles(value)
    return fmt_num(value)


def compare_view(i: int, title: str, cmp: dict[str, Any], hrefs: dict[str, str]) -> CompareView:
    """Display values of one ``CaptureComparison.to_json()``."""
    a, b = cmp.get("a", {}), cmp.get("b", {})
    a_name = (a.get("label", "") + " \u00b7 " if a.get("label") else "") + str(a.get("capture", "A"))
    b_name = (b.get("label", "") + " \u00b7 " if b.get("label") else "") + str(b.get("capture", "B"))
    totals = []
    for t in cmp.get("totals", []):
        name = str(t.get("name", ""))
        d = t.get("delta")
        change = DASH if d is None else (_pts(d) if name in ("stall_ratio", "mapped_fraction")
                                          else ("+" if d > 0 else "") + _total_text(name, d))
        key = f"cmp.row.{name}" if f"cmp.row.{name}" in i18n.catalogue("en") else ""
        totals.append(CompareRow(name.replace("_", " "), _total_text(name, t.get("a")), _total_text(name, t.get("b")),
                                 change, key=key))
    stalls = [CompareRow(str(r["type"]), fmt_pct(r.get("a_share")), fmt_pct(r.get("b_share")), _pts(r.get("delta")),
                         "up" if (r.get("delta") or 0) > 0.005 else "down" if (r.get("delta") or 0) < -0.005 else "")
              for r in cmp.get("stall_types", [])]
    waves = [CompareRow(str(r["state"]), fmt_pct(r.get("a_share")), fmt_pct(r.get("b_share")), _pts(r.get("delta")))
             for r in (cmp.get("wave_states") or [])]
    lines = []
    for r in cmp.get("lines", []):
        def side(rank: Any, share: Any) -> str:
            return DASH if rank is None else f"#{rank} \u00b7 {fmt_pct(share)}"
        lines.append(CompareRow(str(r.get("source_loc", "")), side(r.get("a_rank"), r.get("a_share")),
                                side(r.get("b_rank"), r.get("b_share")), _pts(r.get("delta"))))
    shares = {r["type"]: [r.get("a_share"), r.get("b_share")] for r in cmp.get("stall_types", [])}
    chart = chart_view(f"compare-{i}", charts.compare_shares(shares, a_name, b_name),
                       "Stall-type shares, A and B", "chart.compare") if shares else None
    return CompareView(title=title, a_name=a_name, b_name=b_name, a_href=hrefs.get(str(a.get("path", "")), ""),
                       b_href=hrefs.get(str(b.get("path", "")), ""), totals=totals, stall_types=stalls,
                       wave_states=waves, lines=lines, chart=chart, notes=list(cmp.get("notes", []))) 


@register_panel("compare", "Captures side by side", 40)
def _compare_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[CompareView] | None:
    if not k.compare:
        return None
    hrefs = {c.rel: f"#c{i}" for i, c in enumerate(k.captures)}
    return [compare_view(i, item.get("title") or "", item.get("comparison", {}), hrefs)
            for i, item in enumerate(k.compare)]
