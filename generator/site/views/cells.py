"""The capture-derived cells of an overview row: the top stall type and stall ratio on the diagnosis's
basis, and the occupancy with what limits it (AMD waves per SIMD, Nsight Compute achieved occupancy); the
verdict's clocks (rules 13-14) and where it loses (rule 15)."""

from __future__ import annotations

from typing import Any

from generator.analyze import occupancy
from generator.model import CaptureAnalysis
from generator.site import i18n, wording
from generator.analyze.message import msg
from generator.analyze.verdicts import launchline
from generator.site.views import where as where_views
from generator.site.views.base import DASH, SiteContext, fmt_pct
from generator.words import ratio_text


def stall_cells(a: CaptureAnalysis | None) -> dict[str, Any]:
    """Top stall type and stall ratio on the diagnosis's basis (DOMAIN §1.5), and whether they are evidence.

    The working waves are the basis when the capture has their hotspots (early-exit waves hold
    >= 20 % of the stalls; pa: "other" 15,732 of 44,892 stall cycles over 78,696 cycles, not the
    whole capture's LDS/SMEM-wait at 65.7 %). A capture with no working wave keeps its numbers,
    marked as no evidence.
    """
    if a is None:
        return {"top_stall": None, "stall_ratio": None, "stall_ratio_text": DASH, "stall_basis": None,
                "capture_representative": None, "stall_title": "", "stall_title_zh": ""}
    working = a.working is not None and a.working.total_stall_cycles > 0
    src = a.working if working else a
    top = next((name for name, cycles in src.stall_by_type.items() if cycles > 0), None)
    w = a.waves_summary
    title = ("", {})
    if not a.representative:
        title = ("ov.stall.unrep", {"sampled": w.sampled})
    elif working:
        title = ("ov.stall.working", {"working": w.working, "early": w.early_exit, "sampled": w.sampled,
                                      "share": fmt_pct(w.early_exit_stall_share)})
    return {"top_stall": top, "stall_ratio": src.stall_ratio, "stall_ratio_text": fmt_pct(src.stall_ratio),
            "stall_basis": "working waves" if working else "all waves", "capture_representative": a.representative,
            "stall_title": i18n.en(title[0], **title[1]) if title[0] else "",
            "stall_title_zh": i18n.zh(title[0], **title[1]) if title[0] else ""}


def occupancy_cells(a: CaptureAnalysis | None) -> dict[str, Any]:
    """Occupancy sort value, text and limiter of a kernel row (AMD waves/SIMD, NCU achieved %)."""
    occ = a.occupancy if a else None
    if occ:
        tie = occupancy.binding_msg(occ) if occ.tied else None
        out = {"occupancy": occ.waves_per_simd, "occupancy_text": f"{occ.waves_per_simd}/SIMD",
               "limiter": occ.limiter, "limiter_text": occ.limited_by, "limiters": list(occ.limiters),
               "limiter_text_zh": wording.plain("zh", tie) if tie else "", "cap_binds": occ.cap_binds}
        if occ.limiters and not occ.cap_binds:  # a cap the dispatch grid never reaches: the reading, not a limit
            said = msg("finding.occupancy_grid.cell", by=occupancy.binding_msg(occ), d=occ.grid_waves_per_simd)
            out.update(limiter_text=wording.plain("en", said), limiter_text_zh=wording.plain("zh", said))
        return out
    ncu_occ = ((a.extra.get("ncu") or {}).get("occupancy") or {}) if a else {}
    achieved = ncu_occ.get("achieved_pct")
    if isinstance(achieved, (int, float)):
        lim = ncu_occ.get("limiter")
        return {"occupancy": round(achieved / 100, 4), "occupancy_text": f"{achieved:.1f}% achieved",
                "limiter": lim, "limiter_text": lim or ("hardware max" if ncu_occ.get("at_hardware_max") else DASH),
                "limiters": list(ncu_occ.get("limiters") or []), "limiter_text_zh": ""}
    return {"occupancy": None, "occupancy_text": DASH, "limiter": None, "limiter_text": DASH, "limiters": [],
            "limiter_text_zh": ""}


def clock_cells(s: Any) -> dict[str, Any]:
    """Rules 13-14 on a row: the interval over the shapes (numbers in the cell, words in its title), the
    launch overhead with its baseline, and a call-clock pair named as call time."""
    ci, cim = s.verdict_ci, s.verdict_ci_models
    cuts = (s.thresholds.headroom, s.thresholds.win)  # an end beside a threshold never rounded across it
    cell = f"{ratio_text(ci[0], cuts, unit='')}\u2013{ratio_text(ci[1], cuts, unit='')}" if ci else ""  # the model shapes' interval is in the title (the cell stays narrow)
    interval, launch, call = s.interval_msg, s.launch_msg, s.call_pair_msg
    lo, shown = s.launch_overhead_us, launchline.overview_us(s)
    return {"interval_text": cell,
            "interval_title": wording.plain("en", interval) if interval else "",
            "interval_title_zh": wording.plain("zh", interval) if interval else "",
            "launch_text": f"{shown:+.0f}" if shown is not None else "",  # whole us: the header names the unit
            "launch_title": "; ".join(wording.plain("en", m) for m in (launch, call) if m),
            "launch_title_zh": "；".join(wording.plain("zh", m) for m in (launch, call) if m),
            "verdict_ci": ci, "verdict_ci_models": cim, "launch_overhead_us": lo, "launch_sort": shown, "launch_reading": launchline.reading(s),
            "launch_path_us": s.launch_path_us, "launch_baseline": s.launch_baseline,
            "pair_clock": s.pair_clock,
            "call_text": wording.plain("en", call) if call else "", "call_zh": wording.plain("zh", call) if call else ""}


def where_cells(s: Any, ctx: SiteContext) -> dict[str, Any]:
    """Where it loses (rule 15) and what leaves the kernel verdict (rules 10, 16), on a row."""
    if s is None:
        return {}
    m = where_views.where_msg(s, ctx)
    r = replay_msg(s, ctx)
    w = s.where
    panel = bool(s.capture_failures or (w is not None and (w.loss_split or w.by_config)))  # views.loses.where_view
    return {"where_text": wording.plain("en", m) if m else "", "where_zh": wording.plain("zh", m) if m else "",
            "where_anchor": "#where" if panel else "#speed",
            "graph_capture_failed": s.graph_capture_failed, "graph_partial": s.graph_partial,
            "replay_text": wording.plain("en", r) if r else "", "replay_zh": wording.plain("zh", r) if r else ""}


def replay_msg(s: Any, ctx: SiteContext) -> Any:
    """The verdict ratio without the graph replay's fixed cost, when that moves it across a verdict or severity
    threshold ("Numbers beside a verdict": rmsnorm 0.814 -> 0.707 crosses tune); None otherwise."""
    if not s.replay_cost or s.verdict_basis != "shapes" or not s.verdict_geomean or s.replay_cost[1] is None:
        return None
    g, cost, without = s.verdict_geomean[0], s.replay_cost[0], s.replay_cost[1]
    edges = (s.thresholds.win, s.thresholds.headroom, ctx.severity_near, ctx.severity_tune)
    if not any((g >= t) != (without >= t) for t in edges):
        return None
    # never rounded onto the side of the threshold it crosses (layernorm 0.748 -> "0.748x", not "0.75x": tune)
    return msg("head.replay", x=ratio_text(without, edges), c=f"{cost:.2f}")


def shape_cells(s: Any) -> dict[str, Any]:
    """The verdict shapes' ratios (the overview chart's dots, each on the kernel clock: VERDICTS rule 10)
    and each one's verdict baseline."""
    shapes = [sh for sh in s.shapes if sh.is_verdict_shape]
    return {"shape_speedups": [sh.verdict_speedup for sh in shapes],
            "shape_baselines": [sh.verdict_baseline for sh in shapes]}
