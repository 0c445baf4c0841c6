"""The why-not-winning panel."""

from __future__ import annotations

from dataclasses import dataclass

from generator.site.views.advice import FindingView, finding_view
from generator.site.views.base import KernelData, SiteContext, fmt_pct
from generator.site.views.overview import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.source import isa_href


# ---- why not winning

@dataclass
class WhyView:
    """For a HEADROOM kernel: the limiter and the top evidence, first on the page."""

    lines: list[str]
    findings: list[FindingView]
    source: str  # "advice" or "analysis"


@register_panel("why", "Why not winning", 10)
def _why_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> WhyView | None:
    if row.verdict != "HEADROOM":
        return None
    lines: list[str] = []
    if k.score is not None:
        lines.append(f"Geomean {row.geomean_text} against the best baseline, wins {row.wins_text}; "
                     f"worst shape {k.score.worst_text}.")
    if k.why_not:
        for key in ("summary", "limiter", "text"):
            v = k.why_not.get(key)
            if isinstance(v, str) and v:
                lines.append(v)
        ev = k.why_not.get("evidence")
        if isinstance(ev, list):
            lines.extend(str(e) for e in ev[:5])
        elif isinstance(ev, str):
            lines.append(ev)
        pi = k.captures.index(k.primary) if k.primary else None
        top = [finding_view(f, isa_href(pi) if pi is not None else None)
               for f in (k.why_not.get("findings") or [])[:3] if isinstance(f, dict)]
        return WhyView(lines, top, "advice")
    prim = k.primary
    if prim and prim.analysis:
        a = prim.analysis
        o = a.occupancy
        if o:
            lines.append(f"Occupancy {o.waves_per_simd} waves/SIMD, limited by {o.limited_by}"
                         + (f"; {o.next_waves} waves need at most {o.next_vgpr_total} VGPRs in all "
                            f"(now {o.vgpr_total})" if o.next_waves and o.limiter == "VGPR" else "") + ".")
        top = a.top_stall_type
        if top:
            share = a.stall_by_type[top] / a.total_stall_cycles if a.total_stall_cycles else 0
            lines.append(f"Top stall type {top}: {fmt_pct(share)} of stall cycles "
                         f"(stall ratio {fmt_pct(a.stall_ratio)}).")
        hot = a.hot_lines(1)
        if hot:
            lines.append(f"Hottest line {hot[0].source_loc} ({fmt_pct(hot[0].share)} of stalls, "
                         f"{hot[0].dominant_type}).")
        pi = k.captures.index(prim)
        findings = [finding_view(f, isa_href(pi)) for f in (prim.findings or []) if not f.get("flagged")][:3]
        return WhyView(lines, findings, "advice" if findings else "analysis")
    lines.append("No capture was analyzed for this kernel, so there is no evidence to show.")
    return WhyView(lines, [], "analysis")
