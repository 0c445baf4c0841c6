"""The why-not-winning panel."""

from __future__ import annotations


from generator.analyze import occupancy
from generator.analyze.message import Items, Msg, msg
from generator.model import record
from generator.site.views.advice import FindingView, config_said, finding_view, plan_basis
from generator.site.views.base import KernelData, SiteContext, fmt_pct
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.source import isa_href
from generator.site.views.speed import shape_caveats
from generator.site.wording import Said, said


# ---- why not winning

@record
class WhyView:
    """For a HEADROOM kernel: the limiter and the top evidence, first on the page."""

    lines: list[Said]
    findings: list[FindingView]
    source: str  # "advice" or "analysis"
    basis: str = ""  # a Sentence: the findings' shares are of the working waves (``advice.plan_basis``)


def _worst(sh) -> Items | str:
    """The worst shape with what stands against reading it as a verdict (the speed panel's caveats)."""
    if sh is None:
        return "—"
    head = msg("speed.v.shape", x=sh.speedup_text, baseline=sh.best_baseline, args=sh.args_text)
    return Items((head, *(msg(key, **kw) for key, kw in shape_caveats(sh))), sep="advice.sweep.sep")


def _geomean_line(k: KernelData, row: IndexRow) -> Msg:
    """The ratio the verdict rests on first (its shapes, or the basis in words), then the geomean
    against any baseline and the worst shape with its caveats."""
    s = k.score
    wins = msg("wins.of", wins=row.kernel_wins, n=row.kernel_n) if row.wins_zh else row.wins_text
    rest = {"geomean": row.geomean_text, "wins": wins, "worst": _worst(s.kernel_worst)}
    if s.verdict_basis == "shapes" and s.verdict_geomean:
        return msg("advice.why.verdict", x=row.ratio_text, n=s.verdict_geomean[1], **rest)
    if s.basis_msg is not None:
        return msg("advice.why.verdict.basis", basis=s.basis_msg, **rest)
    return msg("advice.why.geomean", **rest)


def _analysis_lines(a) -> list[Msg]:
    """Without advice: occupancy, the top stall type and the hottest line of the primary capture."""
    out = []
    o = a.occupancy
    if o:
        nxt = (msg("advice.why.occupancy.next", n=o.next_waves, need=o.next_vgpr_total, total=o.vgpr_total)
               if o.next_waves and o.binds_alone("VGPR") else "")
        by = msg("advice.why.hwmax") if o.at_hardware_max else occupancy.binding_msg(o)
        out.append(msg("advice.why.occupancy", waves=o.waves_per_simd, by=by, next=nxt))
    top = a.top_stall_type
    if top:
        share = a.stall_by_type[top] / a.total_stall_cycles if a.total_stall_cycles else 0
        out.append(msg("advice.why.top", type=top, share=fmt_pct(share), ratio=fmt_pct(a.stall_ratio)))
    hot = a.hot_lines(1)
    if hot:
        out.append(msg("advice.why.hottest", loc=hot[0].source_loc, share=fmt_pct(hot[0].share),
                       type=hot[0].dominant_type))
    return out


@register_panel("why", "Why not winning", 10)
def _why_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> WhyView | None:
    if row.verdict != "HEADROOM":
        return None
    lines: list[Said] = []
    if k.score is not None:
        lines.append(said(_geomean_line(k, row)))
    note = config_said(k)
    if note is not None:  # the limiter below is of another configuration than the timed rows (DOMAIN §1.7)
        lines.append(note)
    if k.why_not:
        for key in ("summary", "limiter", "text"):
            v = k.why_not.get(key)
            if isinstance(v, str) and v:
                lines.append(said(k.why_not["i18n"], en=v) if key == "text" and k.why_not.get("i18n") else Said(v))
        ev = k.why_not.get("evidence")
        if isinstance(ev, list):
            lines.extend(Said(str(e)) for e in ev[:5])
        elif isinstance(ev, str):
            lines.append(Said(ev))
        pi = k.captures.index(k.primary) if k.primary else None
        top = [finding_view(f, isa_href(pi) if pi is not None else None)
               for f in (k.why_not.get("findings") or [])[:3] if isinstance(f, dict)]
        return WhyView(lines, top, "advice", plan_basis(k.primary.analysis if k.primary else None))
    prim = k.primary
    if prim and prim.analysis:
        lines.extend(said(m) for m in _analysis_lines(prim.analysis))
        pi = k.captures.index(prim)
        findings = [finding_view(f, isa_href(pi)) for f in (prim.findings or []) if not f.get("flagged")][:3]
        return WhyView(lines, findings, "advice" if findings else "analysis", plan_basis(prim.analysis) if findings else "")
    lines.append(said(msg("advice.why.nocapture")))
    return WhyView(lines, [], "analysis")
