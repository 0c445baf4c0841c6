"""The capture-derived cells of an overview row: the top stall type and stall ratio on the diagnosis's
basis, and the occupancy with what limits it (AMD waves per SIMD, Nsight Compute achieved occupancy)."""

from __future__ import annotations

from typing import Any

from generator.analyze import occupancy
from generator.model import CaptureAnalysis
from generator.site import i18n, wording
from generator.site.views.base import DASH, fmt_pct


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
        return {"occupancy": occ.waves_per_simd, "occupancy_text": f"{occ.waves_per_simd}/SIMD",
                "limiter": occ.limiter, "limiter_text": occ.limited_by, "limiters": list(occ.limiters),
                "limiter_text_zh": wording.plain("zh", tie) if tie else ""}
    ncu_occ = ((a.extra.get("ncu") or {}).get("occupancy") or {}) if a else {}
    achieved = ncu_occ.get("achieved_pct")
    if isinstance(achieved, (int, float)):
        lim = ncu_occ.get("limiter")
        return {"occupancy": round(achieved / 100, 4), "occupancy_text": f"{achieved:.1f}% achieved",
                "limiter": lim, "limiter_text": lim or ("hardware max" if ncu_occ.get("at_hardware_max") else DASH),
                "limiters": list(ncu_occ.get("limiters") or []), "limiter_text_zh": ""}
    return {"occupancy": None, "occupancy_text": DASH, "limiter": None, "limiter_text": DASH, "limiters": [],
            "limiter_text_zh": ""}
