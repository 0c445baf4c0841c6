"""Occupancy (waves per SIMD) and its limiter, by the current model of DOMAIN §1.3.

    occupancy = min(vgpr_limit, lds_limit, sgpr_limit, max_waves)
    vgpr_limit = 512 // round_up(arch + accum, 8)          gfx90a / gfx942 / gfx950 (one pool)
               = 256 // max(arch, accum)                     gfx908 (split pools)
    lds_limit  = (LDS_total // lds_per_wg) * ceil(wg / 64) // 4
    sgpr_limit = 800 // round_up(SGPR_Count, 16)

arch VGPRs = max(ISA scan, CSV ``VGPR_Count``): rocprofv3 1.1 reports half the real
allocation on gfx950, so both readings are kept and a disagreement is flagged. Each
limit is capped at the hardware's waves per SIMD (8). Every resource at the lowest limit
binds (``limiters``, in the order VGPR, LDS, SGPR; a tie lists several and ``limiter`` is
the first); at the hardware maximum none binds: ``limiters`` is empty and the limiter ``NONE``.

Example (a held-out gfx950 decode kernel): 248 VGPRs give 512 // 248 = 2 waves, 84,992 B of
LDS per 512-thread workgroup give (163,840 // 84,992) * 8 // 4 = 2: ``["VGPR", "LDS"]``.
"""

from __future__ import annotations

import os
import re

from generator.analyze.message import sentence
from generator.read import rocprof
from generator.errors import InputError
from generator.analyze.message import Msg, msg
from generator.model import Bundle, CaptureRef, Instruction, Occupancy
from generator.words import plural

MAX_WAVES = 8
#: The limiter at the hardware maximum of waves per SIMD: no resource binds.
NONE = "NONE"
VGPR_POOL = 512
SGPR_POOL = 800
LDS_BYTES = {"gfx950": 160 * 1024, "gfx942": 64 * 1024, "gfx90a": 64 * 1024, "gfx908": 64 * 1024}
GFX950_MFMA = ("v_mfma_scale_f32_", "v_mfma_f32_16x16x128_", "v_mfma_f32_32x32x64_")
ARCH_NAMES = {"gfx950": "CDNA4", "gfx942": "CDNA3", "gfx90a": "CDNA2", "gfx908": "CDNA1"}

# A register name not preceded by a word character or a dot; the letter comes first so that
# the regex engine can skip ahead to it.
_VREG = re.compile(r"v(?<![\w.]v)(\d+)(?!\w)")
_VRANGE_HI = re.compile(r"v(?<![\w.]v)\[\d+:(\d+)\]")  # the upper bound of a range
_AREG = re.compile(r"a(?<![\w.]a)(\d+)(?!\w)")
_ARANGE_HI = re.compile(r"a(?<![\w.]a)\[\d+:(\d+)\]")


def round_up(value: int, step: int) -> int:
    """Round ``value`` up to a multiple of ``step``."""
    return -(-value // step) * step


def scan_registers(instructions: list[Instruction]) -> tuple[int, int]:
    """(arch VGPRs, accum VGPRs) used by the ISA: highest index + 1 (range upper bounds).

    The operand texts are joined one per line and each pattern runs once over the lot: no
    pattern can match across a line break, so this finds what a scan per instruction finds.
    """
    operands = "\n".join([parts[1] for parts in (ins.asm.split(None, 1) for ins in instructions)
                           if len(parts) > 1])
    v_hi = max(map(int, {*_VRANGE_HI.findall(operands), *_VREG.findall(operands)}), default=-1)  # distinct texts
    a_hi = max(map(int, {*_ARANGE_HI.findall(operands), *_AREG.findall(operands)}), default=-1)
    return v_hi + 1, a_hi + 1


def arch_from_isa(instructions: list[Instruction]) -> str:
    """gfx950 when the ISA uses gfx950-only MFMA forms, else gfx942 (DOMAIN §1.3)."""
    for ins in instructions:
        a = ins.asm.lower()
        if a.startswith("v_mfma") and a.startswith(GFX950_MFMA):
            return "gfx950"
    return "gfx942"


def limits(arch: str, vgpr_arch: int, accum: int, sgpr: int | None, lds_bytes: int | None,
           workgroup_size: int | None, lds_total: int | None = None,
           max_waves: int = MAX_WAVES) -> dict:
    """Every limit, the occupancy, the limiter and the next step, from resource counts."""
    if arch == "gfx908":
        vgpr_total = max(vgpr_arch, accum)
        vgpr_limit = 256 // vgpr_total if vgpr_total else max_waves
    else:
        vgpr_total = round_up(vgpr_arch + accum, 8)
        vgpr_limit = VGPR_POOL // vgpr_total if vgpr_total else max_waves
    lds_total = lds_total or LDS_BYTES.get(arch, 64 * 1024)
    if lds_bytes and workgroup_size:
        waves_per_wg = -(-workgroup_size // 64)
        lds_limit = (lds_total // lds_bytes) * waves_per_wg // 4
    else:
        lds_limit = max_waves
    sgpr_limit = SGPR_POOL // round_up(sgpr, 16) if sgpr else max_waves
    capped = {
        "VGPR": min(vgpr_limit, max_waves),
        "LDS": min(lds_limit, max_waves),
        "SGPR": min(sgpr_limit, max_waves),
    }
    waves = min(capped.values())
    binding = [] if waves >= max_waves else [name for name, value in capped.items() if value == waves]
    next_waves = waves + 1 if waves < max_waves else None
    next_total = None
    if next_waves:
        next_total = (VGPR_POOL // next_waves) // 8 * 8 if arch != "gfx908" else 256 // next_waves
    return {
        "waves": waves,
        "limiter": binding[0] if binding else NONE,
        "limiters": binding,
        "vgpr_limit": capped["VGPR"],
        "lds_limit": capped["LDS"],
        "sgpr_limit": capped["SGPR"],
        "vgpr_total": vgpr_total,
        "next_waves": next_waves,
        "next_vgpr_total": next_total,
    }


#: SIMDs per CU when the agent info does not say (CDNA).
SIMDS_PER_CU = 4


def grid_demand(workgroups: int, waves_per_wg: int, cus: int, simds_per_cu: int = SIMDS_PER_CU) -> int:
    """Waves per SIMD the grid asks of its busiest CU, workgroups dealt round-robin over the CUs:
    ``ceil(ceil(workgroups / cus) * waves_per_wg / simds_per_cu)``.

    Example (moe_gemm on MI350X): grid 8192 x 10 work-items in 256-thread workgroups = 32 x 10 = 320
    workgroups of 4 waves on 256 CUs: 2 workgroups on the busiest CU, 8 waves, 2 waves/SIMD.
    """
    per_cu = -(-workgroups // cus)
    return -(-(per_cu * waves_per_wg) // simds_per_cu)


def _dispatch_row(rows: list[dict], capture_name: str) -> dict | None:
    """The trace row of the captured dispatch (``dispatch_<N>`` = Dispatch_Id), else the first row of
    the most common launch shape (as ``advice.context.grid_timing`` picks it)."""
    if not rows:
        return None
    m = _DISPATCH.search(capture_name)
    if m:
        row = next((r for r in rows if rocprof.to_int(r.get("Dispatch_Id")) == int(m.group(1))), None)
        if row is not None:
            return row
    keys = tuple(f"Grid_Size_{d}" for d in "XYZ") + tuple(f"Workgroup_Size_{d}" for d in "XYZ")
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(map(r.get, keys)), []).append(r)
    return max(groups.values(), key=len)[0]


def other_dispatch(row: dict, capture_name: str) -> bool:
    """True when the capture names a dispatch (``dispatch_<N>``) and ``row`` is another one's: the kernel's
    rows lack it, so the row is the kernel's most common launch (``_dispatch_row``)."""
    m = _DISPATCH.search(capture_name or "")
    return bool(m) and rocprof.to_int(row.get("Dispatch_Id")) != int(m.group(1))


def grid_row_note(row: dict, rows: list[dict], capture_name: str) -> list[str]:
    """A note when the grid is read from another row than the captured dispatch's: the capture names a dispatch
    the kernel's rows lack (pa_mqa_logits_fp4's small capture, dispatch 197: the trace's row 197 is another
    kernel, its 12 rows of pa_mqa_logits_fp4_kernel_0 are all the big grid), so the grid's ask is another run's."""
    if not other_dispatch(row, capture_name):
        return []
    return [sentence("msg.occ.griddispatch", d=_DISPATCH.search(capture_name).group(1), name=row.get("Kernel_Name"), n=len(rows),
                     grid="x".join(str(row.get(f"Grid_Size_{a}")) for a in "XYZ"))]


def row_demand(row: dict | None, agent: dict | None) -> int | None:
    """``grid_demand`` of a kernel-trace row on the agent's CUs (None when either is missing)."""
    if not row or not agent:
        return None
    to_int = rocprof.to_int
    cus = to_int(agent.get("Cu_Count"))
    grid = [to_int(row.get(f"Grid_Size_{d}")) or 1 for d in "XYZ"]
    block = [to_int(row.get(f"Workgroup_Size_{d}")) or 1 for d in "XYZ"]
    if not cus or not all(g > 0 for g in grid) or not all(b > 0 for b in block):
        return None
    wgs = 1
    for g, b in zip(grid, block):
        wgs *= -(-g // b)
    wave = to_int(agent.get("Wave_Front_Size")) or 64
    wpw = -(-(block[0] * block[1] * block[2]) // wave)
    return grid_demand(wgs, wpw, cus, to_int(agent.get("Simd_Per_Cu")) or SIMDS_PER_CU)


def agent_of(bundle: Bundle | None, label: str | None) -> dict | None:
    """The GPU agent row of a capture: its label's agent info, else any agent info of the bundle."""
    if bundle is None:
        return None
    names = ([f"{label}_agent_info.csv"] if label else []) + sorted(
        n for n in bundle.compute_files if n.endswith("agent_info.csv"))
    for name in names:
        path = bundle.compute_files.get(name)
        if not path:
            continue
        try:
            agent = rocprof.gpu_agent(rocprof.read_agent_info(path))
        except InputError:
            continue
        if agent:
            return agent
    return None


def binding_msg(occ: Occupancy) -> Msg:
    """What binds, as a message (``occ.tie.<n>``): "VGPR", or "VGPR and LDS" on a tie."""
    names = occ.limiters or [occ.limiter]
    return msg(f"occ.tie.{len(names)}", **dict(zip("abc", names)))


def _bundle_file(bundle: Bundle | None, *names: str) -> str | None:
    """The first existing compute_viewer file among ``names``."""
    if not bundle:
        return None
    for name in names:
        if name in bundle.compute_files:
            return bundle.compute_files[name]
    return None


def _trace_path(bundle: Bundle | None) -> str | None:
    """The kernel-trace CSV of a bundle (``discover_kernel_trace.csv`` or any ``*kernel_trace.csv``)."""
    found = _bundle_file(bundle, "discover_kernel_trace.csv")
    if found or not bundle:
        return found
    for name in sorted(bundle.compute_files):
        if name.endswith("kernel_trace.csv"):
            return bundle.compute_files[name]
    return None


def resolve_arch(ref: CaptureRef, bundle: Bundle | None, instructions: list[Instruction]
                 ) -> tuple[str, str, dict | None]:
    """(arch, where it came from, GPU agent row) for a capture."""
    info = _bundle_file(bundle, f"{ref.label}_agent_info.csv") if ref.label else None
    if info:
        try:
            agent = rocprof.gpu_agent(rocprof.read_agent_info(info))
        except InputError:
            agent = None
        arch = rocprof.agent_arch(agent) if agent else None
        if arch:
            return arch, "agent_info", agent
    return arch_from_isa(instructions), "isa", None


_DISPATCH = re.compile(r"_dispatch_(\d+)")


#: The resource columns of a kernel-trace row that tell one compiled variant from another.
_VARIANT_COLUMNS = ("VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "LDS_Block_Size",
                    "Scratch_Size", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z")


def _variant_key(row: dict) -> tuple:
    """The compiled-variant identity of a kernel-trace row: its resource columns."""
    return tuple(map(row.get, _VARIANT_COLUMNS))


def _isa_agrees(row: dict, uses_lds: bool, isa_vgprs: int) -> bool:
    """True when a variant's resources fit the captured ISA (DOMAIN §1.3).

    An ISA that reads or writes LDS cannot run with ``LDS_Block_Size`` 0 (nor one without
    LDS use with a block); the CSV's VGPR count lies between half the ISA's allocation
    (rocprofv3 1.1 reports half on gfx950) and the allocation itself.
    """
    lds = rocprof.to_int(row.get("LDS_Block_Size")) or 0
    if uses_lds != (lds > 0):
        return False
    csv_v = rocprof.to_int(row.get("VGPR_Count"))
    alloc = round_up(isa_vgprs, 8)
    return csv_v is None or not isa_vgprs or alloc // 2 <= csv_v <= alloc


def pick_variant(rows: list[dict], instructions: list[Instruction], isa_vgprs: int,
                 capture_name: str) -> tuple[dict | None, str | None]:
    """The kernel-trace row of the captured variant, and a note saying which and why.

    One kernel name can hold several compiled variants (a JIT kernel rebuilt per shape).
    Use the one the ISA agrees with (LDS use, VGPR bound); when several or none agree,
    the row of the capture's dispatch number; else the first row.
    """
    if not rows:
        return None, None
    variants: dict[tuple, list[dict]] = {}
    for r in rows:
        variants.setdefault(_variant_key(r), []).append(r)
    if len(variants) == 1:
        return rows[0], None
    uses_lds = any(i.asm.lower().startswith(("ds_read", "ds_write")) for i in instructions)
    agreeing = [vs for vs in variants.values() if _isa_agrees(vs[0], uses_lds, isa_vgprs)]
    m = _DISPATCH.search(capture_name)
    by_dispatch = next((r for r in rows if m and r.get("Dispatch_Id") == m.group(1)), None)
    desc = "; ".join(f"VGPR {vs[0].get('VGPR_Count')}, SGPR {vs[0].get('SGPR_Count')}, "
                     f"LDS {vs[0].get('LDS_Block_Size')} ({plural(len(vs), 'dispatch')})" for vs in variants.values())
    head = dict(n=len(variants), name=rows[0].get("Kernel_Name"), desc=desc)
    if len(agreeing) == 1:
        row = agreeing[0][0]
        return row, sentence("msg.occ.variants.isa." + ("lds" if uses_lds else "nolds"), **head,
                             v=row.get("VGPR_Count"), isa=isa_vgprs)
    if by_dispatch is not None:
        return by_dispatch, sentence("msg.occ.variants.dispatch." + ("several" if agreeing else "none"), **head,
                                     v=by_dispatch.get("VGPR_Count"), d=m.group(1))
    return rows[0], sentence("msg.occ.variants.first", **head)


def for_capture(ref: CaptureRef, bundle: Bundle | None, instructions: list[Instruction],
                jit_name: str | None) -> tuple[Occupancy | None, str, str]:
    """Occupancy of one capture, with its architecture and the arch's source."""
    arch, arch_source, agent = resolve_arch(ref, bundle, instructions)
    if not instructions:
        return None, arch, arch_source
    isa_v, isa_a = scan_registers(instructions)
    notes: list[str] = []
    row = None
    rows: list[dict] = []
    trace = _trace_path(bundle)
    if trace and jit_name:
        try:
            rows = rocprof.kernel_dispatches(trace, jit_name)
        except InputError as err:
            rows = []
            notes.append(sentence("msg.occ.unreadable", error=err.message))
        row, variant_note = pick_variant(rows, instructions, isa_v, ref.name)
        if variant_note:
            notes.append(variant_note)
        if not rows:
            notes.append(sentence("msg.occ.notfound", name=jit_name, file=os.path.basename(trace)))
    to_int = rocprof.to_int
    csv_v = to_int(row.get("VGPR_Count")) if row else None
    csv_a = to_int(row.get("Accum_VGPR_Count")) if row else None
    sgpr = to_int(row.get("SGPR_Count")) if row else None
    lds = to_int(row.get("LDS_Block_Size")) if row else None
    wg = None
    if row:
        dims = [to_int(row.get(f"Workgroup_Size_{d}")) for d in "XYZ"]
        wg = 1
        for d in dims:
            wg *= d or 1
    arch_v = max(isa_v, csv_v or 0)
    accum = max(csv_a or 0, isa_a)
    disagree = csv_v is not None and csv_v != isa_v
    if disagree:
        notes.append(f"VGPR readings disagree: ISA uses {isa_v}, the kernel trace CSV says {csv_v}; "
                     f"using {arch_v}")
    lds_total = None
    max_waves = MAX_WAVES
    if agent:
        kb = to_int(agent.get("Lds_Size_In_Kb"))
        lds_total = kb * 1024 if kb else None
        max_waves = to_int(agent.get("Max_Waves_Per_Simd")) or MAX_WAVES
    lim = limits(arch, arch_v, accum, sgpr, lds, wg, lds_total, max_waves)
    grid_row = _dispatch_row(rows, ref.name)
    demand = row_demand(grid_row, agent or agent_of(bundle, ref.label))
    if demand is not None:
        notes += grid_row_note(grid_row, rows, ref.name)
    return Occupancy(
        arch=arch,
        kernel=row.get("Kernel_Name") if row else jit_name,
        waves_per_simd=lim["waves"],
        limiter=lim["limiter"],
        limiters=lim["limiters"],
        vgpr_limit=lim["vgpr_limit"],
        lds_limit=lim["lds_limit"],
        sgpr_limit=lim["sgpr_limit"],
        arch_vgpr_isa=isa_v,
        arch_vgpr_csv=csv_v,
        accum_vgpr=accum,
        vgpr_total=lim["vgpr_total"],
        sgpr=sgpr,
        lds_bytes=lds,
        workgroup_size=wg,
        next_waves=lim["next_waves"],
        next_vgpr_total=lim["next_vgpr_total"],
        vgpr_disagreement=disagree,
        notes=notes,
        max_waves=max_waves,
        grid_waves_per_simd=demand,
    ), arch, arch_source
