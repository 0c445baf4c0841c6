"""Plain-text report of one capture analysis, laid out like the reference analyzer's.

Sections: summary, occupancy, instruction mix, stall types, top source lines, top
instructions (``--mode asm|src|both``), and with ``--detail`` each hot line's source
context and its stalling instructions.
"""

from __future__ import annotations

import os

from generator.analyze import waves
from generator.analyze.kernel_table import short_kernel_name
from generator.model import UNKNOWN_LOC, CaptureAnalysis, stall_reason
from generator.words import noun, plural

RULE = "═" * 90
BAR_WIDTH = 30


def fmt_cycles(value: float) -> str:
    """Cycles the way the reference prints them: 364, 25.3K, 41.65M."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:.2f}M"
    if abs(value) >= 1e3:
        return f"{value / 1e3:.1f}K"
    return f"{int(value)}"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A text bar of ``width`` cells filled to ``fraction``."""
    filled = max(0, min(width, int(round(fraction * width))))
    return "[" + "█" * filled + "░" * (width - filled) + "]"


def tail(text: str, width: int) -> str:
    """A source path within ``width`` characters, cut at a path separator (never inside a folder's
    name), with an ellipsis: ``…/kernels/pa_decode_fp8.py:1170``. The file and its line always stay
    whole, even when they alone are wider."""
    if len(text) <= width:
        return text
    cut = text.find("/", len(text) - (width - 1))
    if cut < 0:
        cut = text.rfind("/")
    return text if cut <= 0 else "…" + text[cut:]


def head(text: str, width: int) -> str:
    """The first ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def section(title: str) -> list[str]:
    """A titled section header."""
    return ["", RULE, f"  {title}", RULE]


def summary_lines(a: CaptureAnalysis) -> list[str]:
    """Kernel, instruction count and totals."""
    mapped, total = a.source_mapped
    lines = [
        f"  Kernel:        {a.kernel} / {a.capture}" + (f"  [{a.label}]" if a.label else ""),
        f"  Architecture:  {a.arch} (from {a.arch_source})",
        f"  Instructions:  {len(a.instructions)}",
        *(sample_total_lines(a) if a.sampled else legacy_total_lines(a) if a.extra.get("legacy") else [
            f"  Total cycles:  {fmt_cycles(a.total_cycles)}",
            f"  Total stalls:  {fmt_cycles(a.total_stall_cycles)}  ({a.stall_ratio * 100:.1f}% of total cycles)",
            f"  Total idle:    {fmt_cycles(a.total_idle_cycles)}  (idle_cycles: waves not scheduled)"]),
        f"  Source mapped: {mapped} / {plural(total, 'instruction')} ({(mapped / total * 100) if total else 0:.1f}%)",
    ]
    stats = a.wave_duration_stats()
    if stats:
        lines.append(f"  Sampled waves: {stats['count']}  (duration min {stats['min']}, "
                     f"median {stats['median']:g}, max {stats['max']} cycles)")
    w = a.waves_summary
    if w and w.early_exit:
        lines.append(f"  Early exit:    {w.early_exit} of {plural(w.sampled, 'wave')}, {w.early_exit_stall_share * 100:.1f}% "
                     f"of stall cycles; {w.working} working")
    if a.wave_states:
        ws = a.wave_states
        lines.append("  Wave states:   " + "  ".join(f"{k} {ws[k] * 100:.1f}%" for k in ws))
    return lines


def sample_total_lines(a: CaptureAnalysis) -> list[str]:
    """All and stalled samples of a sampled capture (Nsight Compute, AMD PC sampling), in full."""
    unit = a.stall_unit
    return [f"  Total samples: {a.total_cycles:,} {unit}",
            f"  Stalled:       {a.total_stall_cycles:,} {unit}  ({a.stall_ratio * 100:.1f}% of all {unit})"]


def legacy_total_lines(a: CaptureAnalysis) -> list[str]:
    """Totals of an older decoder's capture: latency and hits only (no stall or idle column)."""
    return [f"  Total latency: {fmt_cycles(a.total_cycles)}  (no stall columns: an older decoder)",
            f"  Total hits:    {sum(i.exec_count for i in a.instructions):,}"]


def stall_unit_words(a: CaptureAnalysis) -> str:
    """What the Stall columns count: ``stall cycles``, ``latency cycles`` on an older decoder's
    capture (no stall column), or ``stalled <unit>`` on a sampled capture."""
    if a.extra.get("legacy"):
        return "latency cycles"
    return f"stalled {a.stall_unit}" if a.sampled else "stall cycles"


def reason_lines(a: CaptureAnalysis) -> list[str]:
    """Stalled samples per sampler reason (AMD PC sampling: ROCprof Compute Viewer's names)."""
    reasons = a.extra.get("stall_by_reason") or {}
    total = a.total_stall_cycles or 1
    lines = [f"  {'Reason':<14}  {'Stall':>8}  Bar", f"  {'-' * 14}  {'-' * 8}  {'-' * 38}"]
    for name, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {name:<14}  {n:>8,}  {bar(n / total)}  {n / total * 100:5.1f}%")
    return lines


def occupancy_lines(a: CaptureAnalysis) -> list[str]:
    """Occupancy, limiter, both VGPR readings and the next step."""
    o = a.occupancy
    if o is None:
        return ncu_occupancy_lines(a) or ["  (no occupancy: no instructions or no register data)"]
    csv = "n/a" if o.arch_vgpr_csv is None else str(o.arch_vgpr_csv)
    held = (f"limited by {o.limited_by}" if o.cap_binds or not o.limiters else
            f"capped by {o.limited_by}; the grid asks at most {o.grid_waves_per_simd} on its busiest CU: not binding")
    if not o.limiters and o.resident < o.waves_per_simd:  # the 8 is what the resources allow, not what runs
        held += f"; the grid asks at most {o.resident} on its busiest CU"
    lines = [
        f"  occupancy:      {o.waves_per_simd} {noun(o.waves_per_simd, 'wave')}/SIMD, {held}",
        f"  limits:         VGPR {o.vgpr_limit}, LDS {o.lds_limit}, SGPR {o.sgpr_limit}",
        f"  arch_vgpr:      ISA {o.arch_vgpr_isa}, kernel-trace CSV {csv}"
        + ("   <- readings disagree; the larger is used" if o.vgpr_disagreement else ""),
        f"  accum_vgpr:     {o.accum_vgpr}",
        f"  total_vgpr:     {o.vgpr_total} / 512 (combined pool)" if o.arch != "gfx908"
        else f"  max(arch,accum): {o.vgpr_total} / 256 (split pools)",
        f"  sgpr:           {o.sgpr if o.sgpr is not None else 'n/a'}    "
        f"lds: {o.lds_bytes if o.lds_bytes is not None else 'n/a'} B    "
        f"workgroup: {o.workgroup_size if o.workgroup_size is not None else 'n/a'}",
    ]
    if o.next_waves:
        lines.append(next_step_line(o))
    mix = ",  ".join(f"{k}: {v}" for k, v in a.instruction_mix.items())
    lines += ["", "  Instruction mix:", f"    {mix}"]
    return lines


def next_step_line(o) -> str:
    """What one more wave per SIMD needs: the VGPR total where VGPRs bind (with a resource tied at the same
    count), else the resource that binds instead (hgemm_splitk: LDS allows 1 while its 136 VGPRs allow 3, so
    no VGPR total gives a second wave); and whether the grid would fill it."""
    others = " and ".join(r for r in o.limiters if r != "VGPR")
    if "VGPR" in o.limiters:
        line = f"  -> {o.next_waves} waves requires total_vgpr <= {o.next_vgpr_total}"
        if others:
            line += f"  (but {others} binds at the same count: freeing VGPRs alone gains no wave)"
    else:
        line = f"  -> {o.next_waves} waves: {others} binds, not VGPR (the VGPRs allow {o.vgpr_limit})"
    return line + ("  (no more would be resident at this grid)" if o.limiters and not o.cap_binds else "")


def ncu_occupancy_lines(a: CaptureAnalysis) -> list[str]:
    """Nsight Compute's occupancy from details.csv (theoretical, achieved, block limits)."""
    occ = (a.extra.get("ncu") or {}).get("occupancy") or {}
    if not occ or occ.get("achieved_pct") is None:
        return []
    limits = ", ".join(f"{k} {v:g}" for k, v in (occ.get("block_limits") or {}).items() if v is not None)
    lines = [f"  occupancy:      {occ['achieved_pct']:.1f}% achieved, "
             f"{occ.get('theoretical_pct') or 0:.1f}% theoretical (details.csv)"]
    if occ.get("theoretical_warps_per_sm") is not None:
        lines.append(f"  warps per SM:   {occ.get('achieved_warps_per_sm') or 0:.1f} achieved of "
                     f"{occ['theoretical_warps_per_sm']:g} theoretical")
    if limits:
        binds = occ.get("limiter") or ("nothing below the hardware maximum" if occ.get("at_hardware_max") else "—")
        lines.append(f"  block limits:   {limits}  (limited by {binds})")
    return lines


def stall_type_lines(a: CaptureAnalysis) -> list[str]:
    """The per-type stall breakdown table."""
    total = a.total_stall_cycles or 1
    lines = [f"  {'Type':<14}  {'Stall':>8}  Bar", f"  {'-' * 14}  {'-' * 8}  {'-' * 38}"]
    for name, cycles in a.stall_by_type.items():
        frac = cycles / total
        lines.append(f"  {name:<14}  {fmt_cycles(cycles):>8}  {bar(frac)}  {frac * 100:5.1f}%")
    return lines


def top_line_lines(a: CaptureAnalysis, topk: int) -> list[str]:
    """The ranked source lines table."""
    lines = [
        f"  {'#':>3}  {'Stall':>8}  {'%Total':>7}  {'StallBar':<38}  {'DomType':<12}  Source",
        f"  {'-' * 3}  {'-' * 8}  {'-' * 7}  {'-' * 38}  {'-' * 12}  {'-' * 48}",
    ]
    for i, ln in enumerate(a.hot_lines(topk), 1):
        lines.append(
            f"  {i:>3}  {fmt_cycles(ln.stall_cycles):>8}  {ln.share * 100:6.2f}%  "
            f"{bar(ln.stall_rate)} {ln.stall_rate * 100:5.1f}%  {ln.dominant_type:<12}  {tail(ln.source_loc, 48)}"
        )
    return lines


def top_instruction_lines(a: CaptureAnalysis, topk: int) -> list[str]:
    """The ranked instructions table."""
    total = a.total_stall_cycles or 1
    lines = [
        f"  {'#':>3}  {'Stall':>8}  {'%Total':>7}  {'Type':<12}  {'ASM':<48}  Source",
        f"  {'-' * 3}  {'-' * 8}  {'-' * 7}  {'-' * 12}  {'-' * 48}  {'-' * 30}",
    ]
    for i, ins in enumerate(a.top_instructions(topk), 1):
        reason = stall_reason(ins)
        lines.append(
            f"  {i:>3}  {fmt_cycles(ins.stall_cycles):>8}  {ins.stall_cycles / total * 100:6.2f}%  "
            f"{ins.type:<12}  {head(ins.asm, 48):<48}  {tail(ins.source_loc, 38)}"
            + (f"  [{reason}]" if reason else "")
        )
    return lines


def opcode_lines(a: CaptureAnalysis, topk: int = 8) -> list[str]:
    """Stall cycles per opcode (DOMAIN §1.6), the top ``topk``."""
    total = a.total_stall_cycles or 1
    lines = [f"  {'Opcode':<28}  {'Instrs':>6}  {'Stall':>8}  %Total"]
    for op, v in list(a.stall_by_opcode.items())[:topk]:
        if v["stall_cycles"] > 0:
            lines.append(f"  {head(op, 28):<28}  {v['instructions']:>6}  {fmt_cycles(v['stall_cycles']):>8}  "
                         f"{v['stall_cycles'] / total * 100:5.1f}%")
    return lines


def read_source_lines(a: CaptureAnalysis, vpath: str) -> list[str] | None:
    """Lines of the snapshot file for a virtual path, when it exists in the capture."""
    local = a.sources.get(vpath)
    if not local or not os.path.isfile(local):
        return None
    with open(local, encoding="utf-8", errors="replace") as fh:
        return fh.read().splitlines()


def split_loc(loc: str) -> tuple[str, int | None]:
    """``/path/file.py:123`` -> (``/path/file.py``, 123)."""
    path, _, line = loc.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else (loc, None)


def detail_lines(a: CaptureAnalysis, topk: int, context: int) -> list[str]:
    """Each hot line with its source context and its stalling instructions."""
    by_pc = {ins.pc_index: ins for ins in a.instructions}
    out: list[str] = []
    for i, ln in enumerate(a.hot_lines(topk), 1):
        out.append(f"  #{i} {ln.source_loc}  stall {fmt_cycles(ln.stall_cycles)} "
                   f"({ln.share * 100:.2f}%), {ln.dominant_type}")
        path, lineno = split_loc(ln.source_loc)
        text = read_source_lines(a, path) if ln.source_loc != UNKNOWN_LOC else None
        if text and lineno:
            lo, hi = max(1, lineno - context), min(len(text), lineno + context)
            for n in range(lo, hi + 1):
                mark = ">>" if n == lineno else "  "
                out.append(f"     {mark} {n:>5} | {text[n - 1]}")
        elif ln.source_loc != UNKNOWN_LOC:
            out.append("     (source snapshot not available)")
        stalling = sorted((by_pc[pc] for pc in ln.pc_indices if by_pc[pc].stall_cycles > 0),
                          key=lambda ins: -ins.stall_cycles)
        for ins in stalling:
            out.append(f"        pc {ins.pc_index:>5}  {fmt_cycles(ins.stall_cycles):>8}  "
                       f"{ins.type:<13} {ins.asm}")
        out.append("")
    return out


def render_text(a: CaptureAnalysis, topk: int = 15, mode: str = "both",
                detail: bool = False, context: int = 3, advice: list | None = None) -> str:
    """The whole report as text."""
    lines = [f"Capture: {a.path}"]
    warning = waves.not_representative_text(a.waves_summary)
    if warning:
        lines.append(f"  ** {warning}")
    lines += summary_lines(a)
    lines += section("Register Pressure & Occupancy") + occupancy_lines(a)
    words = stall_unit_words(a)
    lines += section("Stall Breakdown by Type" + (f"  ({words})" if words != "stall cycles" else "")) + stall_type_lines(a)
    if a.extra.get("stall_by_reason"):
        lines += section(f"Stall Reasons  ({words})") + reason_lines(a)
    if mode in ("src", "both"):
        lines += section(f"Top-{topk} Hotspot Source Lines  ({words} aggregated)")
        lines += top_line_lines(a, topk)
    if mode in ("asm", "both"):
        lines += section(f"Top-{topk} Hotspot Instructions  (by {words})")
        lines += top_instruction_lines(a, topk)
    if a.stall_by_opcode:
        lines += section("Stall by Opcode" + (f"  ({words})" if a.sampled else "")) + opcode_lines(a)
    if a.working is not None and a.waves_summary is not None:
        w = a.waves_summary
        lines += section(f"Working waves only ({w.working} of {w.sampled}; early-exit waves hold "
                         f"{w.early_exit_stall_share * 100:.1f}% of stalls)")
        lines.append(f"  Total stalls:  {fmt_cycles(a.working.total_stall_cycles)}")
        lines += top_line_lines(a.working, topk) if mode in ("src", "both") else []
        lines += top_instruction_lines(a.working, topk) if mode in ("asm", "both") else []
    if detail:
        lines += section(f"Hot lines in detail (context {context})") + detail_lines(a, topk, context)
    if advice is not None:
        lines += section("Optimization plan")
        lines += advice or ["  (no finding)"]
    if a.notes:
        lines += ["", "  Notes:"] + [f"  - {n}" for n in a.notes]
    return "\n".join(lines) + "\n"


def run_stats_text(name: str, rs, topk: int = 15) -> str:
    """A bundle's run statistics without a capture: its kernel table and, from a launch trace, each
    kernel's measured launch path (``analyze.runstats.RunStats``)."""
    lines = [f"Run statistics: {name}  (no ATT or Nsight Compute capture; from {', '.join(sorted(set(rs.sources.values())))})",
             f"  Kernels:       {len(rs.kernels)}, {rs.total_gpu_ns / 1000:,.1f} us of GPU time"]
    lines += section(f"Top-{topk} Kernels  (by total time)")
    lines.append(f"  {'#':>3}  {'Calls':>6}  {'Total us':>11}  {'Mean us':>10}  {'%':>6}  Kernel")
    for k in rs.kernels[:topk]:
        lines.append(f"  {k.rank:>3}  {k.calls:>6}  {k.total_ns / 1000:>11,.2f}  {k.avg_ns / 1000:>10,.2f}  "
                     f"{k.percent:>6.1f}  {k.short_name}")
    if rs.launch:
        lines += section("Launch Path  (median per call, measured: host API, queue, kernel)")
        lines.append(f"  {'Calls':>6}  {'API us':>9}  {'Queue us':>9}  {'Kernel us':>10}  {'Total us':>9}  Call / Kernel")
        for p in rs.launch[:topk]:
            lines.append(f"  {p.calls:>6}  {p.api_ns / 1000:>9,.2f}  {p.queue_ns / 1000:>9,.2f}  {p.kernel_ns / 1000:>10,.2f}  "
                         f"{p.total_ns / 1000:>9,.2f}  {p.api} / {short_kernel_name(p.kernel)}")
    if rs.notes:
        lines += ["", "  Notes:"] + [f"  - {n}" for n in rs.notes]
    return "\n".join(lines) + "\n"
