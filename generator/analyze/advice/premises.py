"""The premises of the structural findings (limits, blockers): the checked fact each suggestion rests on.

A pattern finding's premise counts the instructions that stall (``registry.stalled_premise``). A limit
stands on resources and launch facts instead: the highest VGPR the ISA names, the LDS or SGPRs of a
workgroup, the traced dispatch's grid, the sampled waves that exit early. Each premise is a message
(``finding.<detector>.premise*``) whose numbers ``tests/test_premise_audit.py`` recomputes from the
capture's own files (code.json, wave files, the kernel trace, ``expected/occupancy.json``).

Example (flash_attn_func): "the ISA's highest vector register is v241 (242 arch VGPRs), the kernel
trace CSV says 124, accum 0: 248 of the 512 VGPRs per SIMD give 2 waves/SIMD".
"""

from __future__ import annotations

from typing import Any

from generator.analyze.advice.view import AdviceContext, KernelView, _pct, _waves_msg
from generator.analyze.message import Msg, msg
from generator.model import Occupancy

#: SGPRs a SIMD holds (DOMAIN §1.3: ``sgpr_limit = 800 // round_up(SGPR_Count, 16)``).
SGPR_POOL = 800


def vgpr_premise(occ: Occupancy) -> Msg:
    """Which VGPR counts make the allocation, and the waves it gives."""
    key = "finding.vgpr_occupancy.premise" + ("" if occ.arch_vgpr_csv is not None else ".isa")
    params: dict[str, Any] = {"top": occ.arch_vgpr_isa - 1, "arch": occ.arch_vgpr_isa, "accum": occ.accum_vgpr,
                              "total": occ.vgpr_total, "waves": _waves_msg(occ.waves_per_simd)}
    if occ.arch_vgpr_csv is not None:
        params["csv"] = occ.arch_vgpr_csv
    return msg(key, **params)


def lds_premise(occ: Occupancy, lds_total: int, wpw: int, kib) -> Msg:
    """How many workgroups of this LDS size a CU holds, and the waves that gives."""
    fit = lds_total // occ.lds_bytes if occ.lds_bytes else 0
    return msg("finding.lds_sgpr_occupancy.lds.premise", wg=occ.workgroup_size or 64, wpw=wpw,
               lds=kib(occ.lds_bytes), per_cu=kib(lds_total), fit=fit, waves=_waves_msg(occ.waves_per_simd))


def sgpr_premise(occ: Occupancy) -> Msg:
    """The SGPR allocation (rounded up to 16) and the waves 800 SGPRs hold."""
    rounded = -(-(occ.sgpr or 0) // 16) * 16
    return msg("finding.lds_sgpr_occupancy.sgpr.premise", sgpr=occ.sgpr, rounded=rounded,
               pool=SGPR_POOL, waves=_waves_msg(occ.waves_per_simd))


def grid_premise(ctx: AdviceContext) -> Msg:
    """The traced dispatch's launch: workgroups, waves, and the SIMDs that would hold them."""
    wgs, wpw = ctx.workgroups or 0, ctx.waves_per_workgroup or 0
    grid = "x".join(str(g) for g in ctx.grid or ())
    block = "x".join(str(w) for w in ctx.workgroup or ())
    return msg("finding.small_grid.premise" + (".other" if ctx.grid_other else ""), grid=grid, block=block, wgs=wgs, wpw=wpw, waves=wgs * wpw,
               simds=(ctx.cu_count or 0) * ctx.simds_per_cu)


def occupancy_grid_premise(ctx: AdviceContext, demand: int) -> Msg:
    """How the traced dispatch's workgroups fall on its busiest CU, and the waves per SIMD that asks."""
    wgs, wpw, cus = ctx.workgroups or 0, ctx.waves_per_workgroup or 0, ctx.cu_count or 1
    per_cu = -(-wgs // cus)
    return msg("finding.occupancy_grid.premise" + (".other" if ctx.grid_other else ""), grid="x".join(str(g) for g in ctx.grid or ()),
               block="x".join(str(w) for w in ctx.workgroup or ()), wgs=wgs, wpw=wpw, cus=cus, per_cu=per_cu,
               waves=per_cu * wpw, simds=ctx.simds_per_cu, d=_waves_msg(demand))


def early_exit_premise(view: KernelView) -> Msg:
    """How many sampled waves exit early and the stall cycles they hold (counted from the wave files)."""
    w = view.analysis.waves_summary
    return msg("finding.early_exit_waves.premise", early=w.early_exit, sampled=w.sampled,
               cycles=w.early_exit_stall_cycles, share=_pct(w.early_exit_stall_share))


def branch_premise(view: KernelView, b: int) -> Msg:
    """The exec counts around the branch that sends waves to ``s_endpgm`` (code.json's Hit column)."""
    ins = view.ins
    return msg("finding.early_exit_waves.branch_premise", pc=ins[b].pc_index, first=ins[0].exec_count,
               at=ins[b].exec_count, after=ins[b + 1].exec_count)
