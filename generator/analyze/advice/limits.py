"""Limits: occupancy capped by VGPRs, LDS or SGPRs, a grid too small for the GPU, waves launched without work.

A resource cap is a limit only where the traced dispatch's grid asks a CU for more waves per SIMD than the cap
allows (``Occupancy.cap_binds``); a cap the grid never reaches gets one unranked note (``occupancy_grid``)."""

from __future__ import annotations

from typing import Any

from generator.analyze import isa
import generator.analyze.advice.premises as premises
from generator.analyze.advice.registry import Finding, detector, words
from generator.analyze.advice.view import KernelView, _n, _pct, _waves, _waves_msg, short_loc
from generator.words import noun
from generator.analyze.message import msg
from generator.analyze.occupancy import binding_msg
from generator.model import Occupancy

#: Fewer resident waves per SIMD than this means the grid cannot hide latency.
GRID_MIN_WAVES_PER_SIMD = 2
#: A thin grid (fewer waves per SIMD than ``GRID_MIN_WAVES_PER_SIMD`` on average) is a finding only where at
#: least this share of the SIMDs gets fewer: pa_mqa_logits_fp4's 2,028 waves on 1,024 SIMDs (1.98 per SIMD)
#: leave 20 SIMDs (2 %) with one wave, so "hold at least two waves" has nothing left to gain there.
THIN_MIN_SHARE = 0.10


def _short_simds(waves: int, simds: int) -> int:
    """SIMDs given fewer than ``GRID_MIN_WAVES_PER_SIMD`` waves when ``waves`` (at least one per SIMD) spread
    evenly: each SIMD holds one, and ``waves - simds`` of them a second."""
    return max(0, GRID_MIN_WAVES_PER_SIMD * simds - waves)


def _latency_share(view: KernelView) -> float:
    by_type = view.analysis.stall_by_type
    waits = sum(by_type.get(t, 0) for t in ("VMEM-wait", "LDS/SMEM-wait", "barrier"))
    return waits / view.total_stall if view.total_stall else 0.0


def _limit_priority(view: KernelView, waves: int) -> str:
    if waves <= 2 and _latency_share(view) >= 0.30:
        return "high"
    if waves <= 4:
        return "medium"
    return "low"


def _max_waves(view: KernelView) -> int:
    return view.context.max_waves or 8


def _lds_total(view: KernelView, occ: Occupancy) -> int:
    from generator.analyze import occupancy as occ_model

    return view.context.lds_total or occ_model.LDS_BYTES.get(occ.arch, 64 * 1024)


@detector("vgpr_occupancy", kind="limit")
def detect_vgpr_occupancy(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Occupancy is capped by VGPRs alone: how many to free for one more wave per SIMD."""
    occ = view.occupancy
    if (not occ or not occ.binds_alone("VGPR") or occ.waves_per_simd >= _max_waves(view)
            or not occ.next_vgpr_total or not occ.cap_binds):  # on a tie (DOMAIN §1.3) freeing VGPRs alone
        return []                                          # gains no wave; nor where the grid never reaches the cap
    need = occ.next_vgpr_total
    free = occ.vgpr_total - need
    nxt = occ.waves_per_simd + 1
    floor = need - occ.accum_vgpr
    # max(d) is the highest v register when d names one ("v" sorts after "a"): written at or above floor?
    high_regs = [p for p, d in enumerate(view.defs) if d and max(d) >= ("v", floor)]
    other = {"LDS": occ.lds_limit, "SGPR": occ.sgpr_limit}
    also = [f"{k} allows {v}" for k, v in other.items() if v < nxt]
    csv = f", kernel-trace CSV {occ.arch_vgpr_csv}" if occ.arch_vgpr_csv is not None else ""
    summary = (f"{occ.vgpr_total} VGPRs (arch {occ.arch_vgpr_isa} by ISA{csv}, accum {occ.accum_vgpr}) give "
               f"{_waves(occ.waves_per_simd)}; {nxt} waves need <= {need}: free {free}"
               + (f" ({_n(len(high_regs), 'instruction')} {noun(len(high_regs), 'writes', 'write')} v{need - occ.accum_vgpr} or above)" if high_regs else "")
               + (f"; but {', '.join(also)}" if also else ""))
    said = words("vgpr_occupancy", msg(
        "finding.vgpr_occupancy.summary", total=occ.vgpr_total, arch=occ.arch_vgpr_isa, accum=occ.accum_vgpr,
        csv=msg("finding.vgpr_occupancy.csv", n=occ.arch_vgpr_csv) if occ.arch_vgpr_csv is not None else "",
        waves=_waves_msg(occ.waves_per_simd), next=nxt, need=need, free=free,
        high=msg("finding.vgpr_occupancy.high", n=len(high_regs), reg=need - occ.accum_vgpr) if high_regs else "",
        also=msg("finding.vgpr_occupancy.also", limits=[msg("finding.vgpr_occupancy.allows", res=k, n=v)
                                                        for k, v in other.items() if v < nxt]) if also else ""),
        msg("finding.vgpr_occupancy.try", total=occ.vgpr_total, need=need, free=free, next=nxt),
        waves=_waves_msg(occ.waves_per_simd), free=free, next=nxt)
    said["detail"] = msg("finding.vgpr_occupancy.detail", waves=_waves_msg(occ.waves_per_simd), free=free)
    return [Finding(
        detector="vgpr_occupancy",
        title=f"VGPR-bound occupancy: {_waves(occ.waves_per_simd)}, free {free} VGPRs for wave {nxt}",
        stall_share=0.0,
        evidence={"summary": summary, "waves_per_simd": occ.waves_per_simd, "limiter": "VGPR",
                  "vgpr_total": occ.vgpr_total, "arch_vgpr_isa": occ.arch_vgpr_isa,
                  "arch_vgpr_csv": occ.arch_vgpr_csv, "accum_vgpr": occ.accum_vgpr,
                  "next_waves": nxt, "next_vgpr_total": need, "vgprs_to_free": free,
                  "high_register_writes": len(high_regs), "latency_stall_share": _latency_share(view),
                  "detail": f"{_waves(occ.waves_per_simd)}, free {free} VGPRs",
                  "other_limits": {"LDS": occ.lds_limit, "SGPR": occ.sgpr_limit}},
        suggestion=(f"Bring the combined VGPR count from {occ.vgpr_total} to {need} (free {free}) for a "
                    f"{_ordinal(nxt)} wave per SIMD: shorten live ranges (load fragments just before "
                    "use) or keep fewer tiles in flight in registers."),
        priority=_limit_priority(view, occ.waves_per_simd),
        kind="limit",
        messages=said,
        premise=premises.vgpr_premise(occ),
    )]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@detector("lds_sgpr_occupancy", kind="limit")
def detect_lds_sgpr_occupancy(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Occupancy is capped by LDS per workgroup or by SGPRs, that one resource alone."""
    occ = view.occupancy
    if (not occ or not (occ.binds_alone("LDS") or occ.binds_alone("SGPR"))
            or occ.waves_per_simd >= _max_waves(view) or not occ.cap_binds):
        return []
    nxt = occ.waves_per_simd + 1
    ev: dict[str, Any] = {"waves_per_simd": occ.waves_per_simd, "limiter": occ.limiter, "next_waves": nxt,
                          "other_limits": {"VGPR": occ.vgpr_limit, "LDS": occ.lds_limit, "SGPR": occ.sgpr_limit},
                          "latency_stall_share": _latency_share(view)}
    if occ.limiter == "LDS":
        total = _lds_total(view, occ)
        wpw = -(-(occ.workgroup_size or 64) // isa.WAVE_SIZE)
        wg_needed = -(-(nxt * 4) // wpw)  # workgroups per CU for nxt waves per SIMD
        need = total // wg_needed
        free = (occ.lds_bytes or 0) - need
        ev["detail"] = f"{_waves(occ.waves_per_simd)}, {_kib(occ.lds_bytes)} LDS per workgroup"
        ev.update({"lds_bytes": occ.lds_bytes, "lds_per_cu": total, "waves_per_workgroup": wpw,
                   "workgroups_per_cu_needed": wg_needed, "next_lds_bytes": need, "lds_bytes_to_free": free})
        summary = (f"{_kib(occ.lds_bytes)} of LDS per workgroup ({_n(wpw, 'wave')}) on {_kib(total)} per CU give "
                   f"{_waves(occ.waves_per_simd)}; {nxt} need <= {_kib(need)} per workgroup: free "
                   f"{_kib(free)} (VGPRs would allow {occ.vgpr_limit})")
        title = (f"LDS-bound occupancy: {_waves(occ.waves_per_simd)} with {_kib(occ.lds_bytes)} "
                 "per workgroup")
        suggestion = (f"Cut LDS per workgroup to {_kib(need)} (free {_kib(free)}): fewer pipeline stages "
                      "or a smaller K tile in LDS, or reuse one buffer for A and B, so two workgroups "
                      "fit per CU.")
        said = words("lds_sgpr_occupancy", msg(
            "finding.lds_sgpr_occupancy.lds.summary", lds=_kib(occ.lds_bytes), wpw=wpw, total=_kib(total),
            waves=_waves_msg(occ.waves_per_simd), next=nxt, need=_kib(need), free=_kib(free), vgpr=occ.vgpr_limit),
            msg("finding.lds_sgpr_occupancy.lds.try", need=_kib(need), free=_kib(free)),
            msg("finding.lds_sgpr_occupancy.lds.title", waves=_waves_msg(occ.waves_per_simd), lds=_kib(occ.lds_bytes)))
        said["detail"] = msg("finding.lds_sgpr_occupancy.lds.detail", waves=_waves_msg(occ.waves_per_simd),
                             lds=_kib(occ.lds_bytes))
    else:
        need = (800 // nxt) // 16 * 16
        free = (occ.sgpr or 0) - need
        ev.update({"sgpr": occ.sgpr, "next_sgpr": need, "sgprs_to_free": free,
                   "detail": f"{_waves(occ.waves_per_simd)}, {occ.sgpr} SGPRs"})
        summary = (f"{occ.sgpr} SGPRs give {_waves(occ.waves_per_simd)}; {nxt} need <= {need}: free {free}")
        title = f"SGPR-bound occupancy: {_waves(occ.waves_per_simd)} with {occ.sgpr} SGPRs"
        suggestion = (f"Bring SGPRs to {need} (free {free}): keep fewer buffer descriptors and loop "
                      "bounds live, recompute scalar addresses instead of holding them.")
        said = words("lds_sgpr_occupancy", msg(
            "finding.lds_sgpr_occupancy.sgpr.summary", sgpr=occ.sgpr, waves=_waves_msg(occ.waves_per_simd),
            next=nxt, need=need, free=free),
            msg("finding.lds_sgpr_occupancy.sgpr.try", need=need, free=free),
            msg("finding.lds_sgpr_occupancy.sgpr.title", waves=_waves_msg(occ.waves_per_simd), sgpr=occ.sgpr))
        said["detail"] = msg("finding.lds_sgpr_occupancy.sgpr.detail", waves=_waves_msg(occ.waves_per_simd),
                             sgpr=occ.sgpr)
    ev["summary"] = summary
    premise = (premises.lds_premise(occ, _lds_total(view, occ), -(-(occ.workgroup_size or 64) // isa.WAVE_SIZE), _kib)
               if occ.limiter == "LDS" else premises.sgpr_premise(occ))
    return [Finding(detector="lds_sgpr_occupancy", title=title, stall_share=0.0, evidence=ev,
                    suggestion=suggestion, priority=_limit_priority(view, occ.waves_per_simd), kind="limit",
                    messages=said, premise=premise)]


@detector("occupancy_grid", kind="flag")
def detect_occupancy_grid(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """A resource caps the waves per SIMD, but the grid never asks a CU for more: the cap does not bind."""
    occ = view.occupancy
    if (not occ or not occ.limiters or occ.waves_per_simd >= _max_waves(view) or occ.cap_binds
            or occ.grid_waves_per_simd is None or not view.context.workgroups or not view.context.cu_count):
        return []
    d, c, res = occ.grid_waves_per_simd, occ.waves_per_simd, occ.limited_by
    summary = (f"the grid asks at most {_waves(d)} on its busiest CU and the {res} cap allows {_waves(c)}: "
               "the cap does not bind at this shape")
    nums = {"d": _waves_msg(d), "c": _waves_msg(c), "res": binding_msg(occ)}
    said = words("occupancy_grid", msg("finding.occupancy_grid.summary", **nums),
                 msg("finding.occupancy_grid.try", res=binding_msg(occ)), msg("finding.occupancy_grid.title", **nums))
    return [Finding(
        detector="occupancy_grid",
        title=f"{res} cap not binding: the grid asks {_waves(d)}, the cap allows {_waves(c)}",
        stall_share=0.0,
        evidence={"summary": summary, "grid_waves_per_simd": d, "waves_per_simd": c,
                  "limiters": list(occ.limiters), "cap_binds": False},
        suggestion=(f"Cutting {res} use gains no residency at this launch shape: no CU is given more waves than "
                    "the cap already holds."),
        priority="info",
        kind="flag",
        messages=said,
        premise=premises.occupancy_grid_premise(view.context, d),
    )]


def _kib(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1024:g} KiB" if n % 1024 == 0 or n >= 10 * 1024 else f"{n} B"


@detector("small_grid", kind="limit")
def detect_small_grid(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The grid has fewer waves than the GPU has SIMDs, or too few per SIMD to hide latency."""
    ctx = view.context
    wgs, wpw, cus = ctx.workgroups, ctx.waves_per_workgroup, ctx.cu_count
    if not wgs or not wpw or not cus:
        return []
    simds = cus * ctx.simds_per_cu
    waves = wgs * wpw
    per_simd = waves / simds
    occ = view.occupancy
    allowed = occ.waves_per_simd if occ else _max_waves(view)
    ev: dict[str, Any] = {"workgroups": wgs, "cu_count": cus, "simds": simds, "waves_per_workgroup": wpw,
                          "waves": waves, "waves_per_simd": per_simd, "occupancy_waves_per_simd": allowed,
                          "grid": list(ctx.grid or ()), "workgroup": list(ctx.workgroup or ()),
                          "grid_source": ctx.grid_source}
    if waves < simds:
        idle_cus = max(0, cus - wgs)
        idle = simds - waves
        ev.update({"idle_cus": idle_cus, "idle_simds": idle,
                   "detail": f"{_n(wgs, 'workgroup')}, {_n(waves, 'wave')} for {simds} SIMDs"})
        ev["summary"] = (f"{_n(wgs, 'workgroup')} of {_n(wpw, 'wave')} = {_n(waves, 'wave')} for {cus} CUs x "
                         f"{ctx.simds_per_cu} SIMDs: {_n(idle, 'SIMD')} ({_pct(idle / simds)}) without a wave"
                         + (f", {_n(idle_cus, 'CU')} no workgroup" if idle_cus else ""))
        said = words("small_grid", msg(
            "finding.small_grid.idle.summary", wgs=wgs, wpw=wpw, waves=waves, cus=cus, per_cu=ctx.simds_per_cu,
            idle=idle, pct=_pct(idle / simds),
            cus_idle=msg("finding.small_grid.idle.cus", n=idle_cus) if idle_cus else ""),
            msg("finding.small_grid.idle.try"), msg("finding.small_grid.idle.title", wgs=wgs, waves=waves, cus=cus))
        said["detail"] = msg("finding.small_grid.idle.detail", wgs=wgs, waves=waves, simds=simds)
        return [Finding(detector="small_grid",
                        title=f"Grid too small for the GPU: {_n(wgs, 'workgroup')} ({_n(waves, 'wave')}) on {cus} CUs",
                        stall_share=0.0, evidence=ev,
                        suggestion=("Give every SIMD work: split the problem finer (split-K, smaller tiles, "
                                    "fewer rows per workgroup) or batch several problems into one launch."),
                        priority="high" if waves < simds / 2 else "medium", kind="limit", messages=said,
                        premise=premises.grid_premise(ctx))]
    if (per_simd < GRID_MIN_WAVES_PER_SIMD and allowed >= GRID_MIN_WAVES_PER_SIMD
            and _short_simds(waves, simds) >= THIN_MIN_SHARE * simds):
        ev["detail"] = f"{per_simd:.2f} waves per SIMD of {allowed}"
        ev["summary"] = (f"{_n(wgs, 'workgroup')} x {_n(wpw, 'wave')} = {_n(waves, 'wave')} on {simds} SIMDs: "
                         f"{per_simd:.2f} waves per SIMD while occupancy allows {allowed}")
        said = words("small_grid", msg(
            "finding.small_grid.thin.summary", wgs=wgs, wpw=wpw, waves=waves, simds=simds, per=f"{per_simd:.2f}",
            allowed=allowed), msg("finding.small_grid.thin.try"),
            msg("finding.small_grid.thin.title", per=f"{per_simd:.2f}", allowed=allowed))
        said["detail"] = msg("finding.small_grid.thin.detail", per=f"{per_simd:.2f}", allowed=allowed)
        return [Finding(detector="small_grid",
                        title=f"Grid fills only {per_simd:.2f} waves per SIMD (occupancy allows {allowed})",
                        stall_share=0.0, evidence=ev,
                        suggestion=("Launch more, smaller workgroups (or more waves per workgroup) so "
                                    "each SIMD holds at least two waves and one can issue while the "
                                    "other waits on memory."),
                        priority="medium", kind="limit", messages=said, premise=premises.grid_premise(ctx))]
    return []


def _exit_early(sampled: int, early: int) -> str:
    """``5 sampled waves exit early`` / ``1 sampled wave exits early``: the verb agrees with ``early``."""
    return f"{_n(sampled, 'sampled wave')} {noun(early, 'exits', 'exit')} early"


#: What to do about waves launched without work (either way they were counted).
EARLY_EXIT_TRY = ("Size the grid to the work (e.g. launch partitions only for the context that exists) or let "
                  "each workgroup loop over work items, so the launched waves are not spent on the prologue "
                  "and an early exit.")


def _not_representative(view: KernelView) -> list[Finding]:
    """No sampled wave did work: the capture's hotspots describe launch and exit only (DOMAIN §1.5)."""
    w = view.analysis.waves_summary
    summary = (f"all {_exit_early(w.sampled, w.sampled)} (each runs under 5 % of the longest wave's or 2 % of "
               f"the kernel's {_n(len(view.ins), 'instruction')}): the stall tables describe launch and exit only")
    return [Finding(
        detector="early_exit_waves",
        title="Not representative: every sampled wave exits early",
        stall_share=0.0,
        evidence={"summary": summary, "waves_sampled": w.sampled, "waves_exiting": w.early_exit,
                  "exit_fraction": 1.0, "representative": False,
                  "detail": f"all {_exit_early(w.sampled, w.sampled)}"},
        suggestion=("Re-capture before optimizing anything: trace another dispatch or iteration range, or a "
                    "grid that gives the traced CU (target_cu) work; then read this page again."),
        priority="high",
        kind="blocker",
        premise=premises.early_exit_premise(view),
        messages={**words("early_exit_waves", msg("finding.early_exit_waves.blocker.summary", sampled=w.sampled,
                                                  n=len(view.ins)),
                          msg("finding.early_exit_waves.blocker.try"), msg("finding.early_exit_waves.blocker.title")),
                  "detail": msg("finding.early_exit_waves.blocker.detail", sampled=w.sampled)},
    )]


def _early_exit_words(view: KernelView, branch_pc: int | None = None) -> dict:
    """The messages of the early-exit limit counted from the wave files."""
    w = view.analysis.waves_summary
    pct = _pct(w.early_exit / w.sampled)
    return {**words("early_exit_waves", msg(
        "finding.early_exit_waves.summary", early=w.early_exit, sampled=w.sampled,
        share=_pct(w.early_exit_stall_share), working=w.working,
        ranked=msg("finding.early_exit_waves.ranked") if view.analysis.working is not None else "",
        branch=msg("finding.early_exit_waves.branch", pc=branch_pc) if branch_pc is not None else ""),
        pct=pct), "detail": msg("finding.early_exit_waves.detail", pct=pct)}


def _waves_early_exit(view: KernelView) -> list[Finding]:
    """Early-exit waves counted from the wave files (DOMAIN §1.5), ranked on the working waves."""
    w = view.analysis.waves_summary
    frac = w.early_exit / w.sampled
    summary = (f"{w.early_exit} of {_exit_early(w.sampled, w.early_exit)} and {noun(w.early_exit, 'holds', 'hold')} "
               f"{_pct(w.early_exit_stall_share)} of the stall cycles; {w.working} {noun(w.working, 'does', 'do')} the work")
    ranked = view.analysis.working is not None
    if ranked:
        summary += "; this plan is ranked on the working waves only"
    return [Finding(
        detector="early_exit_waves",
        title=f"{_pct(frac)} of the sampled waves exit without work",
        stall_share=0.0,
        evidence={"summary": summary, "waves_sampled": w.sampled, "waves_exiting": w.early_exit,
                  "exit_fraction": frac, "early_exit_stall_share": w.early_exit_stall_share,
                  "ranked_on_working_waves": ranked,
                  "detail": f"{_pct(frac)} of the waves exit early"},
        suggestion=EARLY_EXIT_TRY,
        priority="high" if frac >= 0.5 else "medium",
        kind="limit",
        messages=_early_exit_words(view),
        premise=premises.early_exit_premise(view),
    )]


@detector("early_exit_waves", kind="limit")
def detect_early_exit(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Waves launched without work: from the wave files' instruction counts, else a branch to s_endpgm."""
    w = view.analysis.waves_summary
    if w is not None and w.sampled and not w.representative:
        return _not_representative(view)
    if w is not None and w.sampled and w.early_exit:
        out = _waves_early_exit(view)
        b = _exit_branch(view, w.early_exit)
        if b is not None:  # the branch that sends them home, as evidence
            pc = view.ins[b].pc_index
            out[0].evidence.update({"branch_pc": pc, "source": view.ins[b].source_loc})
            out[0].evidence["summary"] += f"; they branch at pc {pc} to s_endpgm"
            out[0].messages = _early_exit_words(view, pc)
        return out
    return _branch_to_endpgm(view)


def _endpgm_branches(view: KernelView) -> list[tuple[int, int]]:
    """(instruction index, waves that took it) of each forward conditional branch to s_endpgm before the first
    work (the first MFMA or the last loop), the waves that took it read from the exec counts (Hit) as the
    count at the branch less the count at the next instruction."""
    ins = view.ins
    if len(ins) < 8 or ins[0].exec_count < 4:
        return []
    by_addr = None
    loop_start = view.loops[-1][0] if view.loops else None
    first_work = next((p for p, mfma in enumerate(view.mfma) if mfma or p == loop_start), len(ins))
    limit = min(first_work, max(len(ins) // 4, 16), len(ins) - 1)
    out = []
    for b in range(limit):
        off = isa.branch_offset(ins[b].asm)
        if off is None or off <= 0 or not view.mnemonics[b].startswith("s_cbranch") or not ins[b].pc_addr:
            continue
        if by_addr is None:
            by_addr = {i.pc_addr: k for k, i in enumerate(ins) if i.pc_addr}
        t = by_addr.get(ins[b].pc_addr + 4 + 4 * off)
        if t is not None and "s_endpgm" in view.mnemonics[t:t + 1]:
            out.append((b, ins[b].exec_count - ins[b + 1].exec_count))
    return out


def _most_waves_exit(view: KernelView, branches: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first of ``branches`` that nearly every wave reaches (90 %) and most of those take (half)."""
    n0 = view.ins[0].exec_count if view.ins else 0
    return next(((b, went) for b, went in branches
                 if view.ins[b].exec_count >= 0.9 * n0 and went >= 0.5 * view.ins[b].exec_count), None)


def _exit_branch(view: KernelView, early: int) -> int | None:
    """The branch the wave files' early-exit waves take: the first one to s_endpgm taken by exactly as many
    waves (moe_gemm: pc 12 ``s_cbranch_vccnz``, 24 waves reach it, 16 go on: 8, its 8 early exits), else the one
    most waves take (pa: pc 11, 48 of 56)."""
    branches = _endpgm_branches(view)
    hit = next(((b, went) for b, went in branches if went == early), None) or _most_waves_exit(view, branches)
    return hit[0] if hit else None


def _branch_to_endpgm(view: KernelView) -> list[Finding]:
    """Most waves branch to s_endpgm right after the prologue: launched without work."""
    ins = view.ins
    hit = _most_waves_exit(view, _endpgm_branches(view))
    if hit is None:
        return []
    b, went = hit
    n0 = ins[0].exec_count
    frac = went / n0
    working = ins[b + 1].exec_count
    summary = (f"{went} of {_n(n0, 'sampled wave')} ({_pct(frac)}) {noun(went, 'takes', 'take')} the branch at pc "
               f"{ins[b].pc_index} ({short_loc(ins[b].source_loc)}) straight to s_endpgm; {working} "
               f"{noun(working, 'does', 'do')} the work")
    return [Finding(
        detector="early_exit_waves",
        title=f"{_pct(frac)} of the sampled waves exit without work",
        stall_share=0.0,
        evidence={"summary": summary, "branch_pc": ins[b].pc_index, "waves_sampled": n0,
                  "waves_exiting": went, "exit_fraction": frac, "source": ins[b].source_loc,
                  "detail": f"{_pct(frac)} of the waves exit at pc {ins[b].pc_index}"},
        suggestion=EARLY_EXIT_TRY,
        priority="high" if frac >= 0.5 else "medium",
        kind="limit",
        premise=premises.branch_premise(view, b),
        messages={**words("early_exit_waves", msg(
            "finding.early_exit_waves.branch_summary", went=went, sampled=n0, pct=_pct(frac),
            pc=ins[b].pc_index, loc=short_loc(ins[b].source_loc), working=ins[b + 1].exec_count),
            pct=_pct(frac)), "detail": msg("finding.early_exit_waves.branch_detail", pct=_pct(frac),
                                           pc=ins[b].pc_index)},
    )]
