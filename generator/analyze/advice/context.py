"""The advice context of a capture: kernel trace (grid, time), agent info, device peak."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any

from generator.analyze.advice.view import AdviceContext
from generator.model import Bundle, CaptureAnalysis
from generator.words import plural

_DISPATCH = re.compile(r"dispatch_(\d+)")
#: The trace columns that tell one launch shape from another (grid, then workgroup).
_GRID_KEYS = tuple(f"Grid_Size_{d}" for d in "XYZ") + tuple(f"Workgroup_Size_{d}" for d in "XYZ")


def context_for(analysis: CaptureAnalysis, bundle: Bundle | None = None, counters: Any = None,
                verdict: Any = None, geomean: float | None = None, config: Any = None,
                base: AdviceContext | None = None) -> AdviceContext:
    """An AdviceContext with the kernel trace, agent info and device peak filled in.

    The traced dispatch is matched by the JIT kernel name and the capture's
    ``dispatch_<N>`` (rocprof's Dispatch_Id); without that id, the most common grid
    of the kernel's dispatches is used and its median duration.
    """
    from generator.analyze import occupancy as occ_model
    from generator.read import rocprof
    from generator.errors import InputError

    ctx = replace(base) if base is not None else AdviceContext()
    ctx.bundle = bundle
    if counters is not None:
        ctx.counters = counters
    if verdict is not None:
        ctx.verdict = verdict
    if geomean is not None:
        ctx.geomean = geomean
    notes = list(ctx.notes)
    if bundle is not None:
        trace = occ_model._trace_path(bundle)
        if trace and analysis.jit_kernel and (ctx.grid is None or ctx.kernel_time_ns is None):
            try:
                rows = rocprof.kernel_dispatches(trace, analysis.jit_kernel)
            except InputError as err:
                rows = []
                notes.append(f"kernel trace unreadable: {err.message}")
            t = grid_timing(rows, analysis.capture)
            row, time_ns = (t["row"], t["median_ns"]) if t else (None, None)
            if row is not None:
                ctx.grid_source = (f"{os.path.basename(trace)} Dispatch_Id {row.get('Dispatch_Id')}, "
                                   f"time: median of the {plural(t['n'], 'dispatch')} of that grid"
                                   if ctx.grid is None else ctx.grid_source)
                to_int = rocprof.to_int
                ctx.grid = ctx.grid or tuple(to_int(row.get(f"Grid_Size_{d}")) or 1 for d in "XYZ")
                ctx.workgroup = ctx.workgroup or tuple(to_int(row.get(f"Workgroup_Size_{d}")) or 1 for d in "XYZ")
                ctx.kernel_time_ns = ctx.kernel_time_ns or time_ns
                ctx.grid_other = ctx.grid_other or occ_model.other_dispatch(row, analysis.capture)
        if ctx.cu_count is None:
            agent = _agent(bundle, analysis.label)
            if agent:
                to_int = rocprof.to_int
                ctx.cu_count = to_int(agent.get("Cu_Count"))
                ctx.simds_per_cu = to_int(agent.get("Simd_Per_Cu")) or ctx.simds_per_cu
                kb = to_int(agent.get("Lds_Size_In_Kb"))
                ctx.lds_total = ctx.lds_total or (kb * 1024 if kb else None)
                ctx.max_waves = ctx.max_waves or to_int(agent.get("Max_Waves_Per_Simd"))
    ncu = analysis.extra.get("ncu") if isinstance(analysis.extra.get("ncu"), dict) else None
    if ncu:
        ctx.wave_size = 32
        blocks, threads = rocprof.to_int(ncu.get("grid_size")), rocprof.to_int(ncu.get("block_size"))
        if ctx.grid is None and blocks and threads:
            ctx.grid, ctx.workgroup = (blocks * threads, 1, 1), (threads, 1, 1)
            ctx.grid_source = "Nsight Compute launch statistics"
        ctx.cu_count = ctx.cu_count or rocprof.to_int(ncu.get("sm_count"))
        if ctx.kernel_time_ns is None and ncu.get("duration_us") is not None:
            ctx.kernel_time_ns = float(ncu["duration_us"]) * 1000.0
    if ctx.peak_tbs is None and analysis.arch:
        try:
            from generator.analyze import device_peaks

            dev = device_peaks.resolve_device(config, arch=analysis.arch)
            ctx.peak_tbs, ctx.peak_name = dev.hbm_tbs, dev.name
        except (InputError, OSError, KeyError, ValueError) as err:  # no device, or a broken peaks file
            notes.append(f"no device peak for {analysis.arch}: {getattr(err, 'message', err)}")
    ctx.notes = notes
    return ctx


def _pick_dispatch(rows: list[dict[str, str]], capture: str) -> tuple[dict[str, str] | None, float | None]:
    """The trace row of the captured dispatch and the median duration (ns) of its grid
    (``grid_timing`` has the count and the row's own duration too)."""
    t = grid_timing(rows, capture)
    return (None, None) if t is None else (t["row"], t["median_ns"])


def grid_timing(rows: list[dict[str, str]], capture: str) -> dict[str, Any] | None:
    """The captured dispatch's trace row and how long the dispatches of its grid take:
    ``{row, median_ns, n, own_ns}`` (``n`` dispatches with a duration; ``own_ns`` the row's own).

    The row is matched by Dispatch_Id (the capture's ``dispatch_<N>``), else the most common
    grid is taken. The median stands for the grid because one dispatch can be an outlier: of
    softmax's 112 dispatches, 6-13 include two of ~950 us (9 and 13, the captured one) among
    ~190 us ones.
    """
    from generator.read.rocprof import to_int

    if not rows:
        return None

    def grid(r):
        return tuple(map(r.get, _GRID_KEYS))

    def dur(r):
        s, e = to_int(r.get("Start_Timestamp")), to_int(r.get("End_Timestamp"))
        return (e - s) if s is not None and e is not None and e > s else None

    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault(tuple(map(r.get, _GRID_KEYS)), []).append(r)
    row = None
    m = _DISPATCH.search(capture or "")
    if m:
        wanted = int(m.group(1))
        row = next((r for r in rows if to_int(r.get("Dispatch_Id")) == wanted), None)
    if row is None:
        row = max(groups.values(), key=len)[0]
    times = sorted(t for t in (dur(r) for r in groups[grid(row)]) if t)
    n = len(times)
    median = (times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2) if times else None
    return {"row": row, "median_ns": median, "n": n, "own_ns": dur(row)}


def trace_timing(analysis: CaptureAnalysis, bundle: Bundle | None) -> dict[str, Any] | None:
    """``grid_timing`` of a capture's kernel in its bundle's kernel trace (None without one)."""
    from generator.analyze import occupancy as occ_model
    from generator.errors import InputError
    from generator.read import rocprof

    trace = occ_model._trace_path(bundle) if bundle is not None else None
    if not trace or not analysis.jit_kernel:
        return None
    try:
        return grid_timing(rocprof.kernel_dispatches(trace, analysis.jit_kernel), analysis.capture)
    except InputError:
        return None


def _agent(bundle: Bundle, label: str) -> dict[str, str] | None:
    from generator.analyze import occupancy as occ_model

    return occ_model.agent_of(bundle, label)
