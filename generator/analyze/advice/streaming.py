"""Streaming at the roofline: achieved bandwidth (PMC, Nsight Compute or estimated) against the peak."""

from __future__ import annotations

from typing import Any

from generator.analyze import isa
from generator.analyze.advice.reread import invariant_loads
from generator.analyze.advice.registry import (Finding, _pattern, detector, pattern_priority, stalled_premise,
                                               unit_key, words)
from generator.analyze.advice.view import KernelView, _pct
from generator.analyze.message import Msg, english, msg
from generator.analyze.ncu_capture import stall_type

#: Achieved / peak HBM bandwidth from which the finding reads a kernel as memory-bound (DOMAIN §2:
#: 50-60 % of peak is normal for clean streaming; it is not "near peak").
STREAMING_BW_FRACTION = 0.50
#: From this fraction of peak the profiled shape moves its bytes near peak: fewer bytes is the lever;
#: below it, bandwidth is left and more bytes in flight is.
NEAR_PEAK = 0.80
#: SASS opcodes (before the first ".") of the FP32 / FP16 / FP64 ALU, and of the tensor cores: what the
#: AMD ``v_`` (VALU) and MFMA counts are on an NVIDIA capture.
SASS_FP = frozenset((
    "FADD", "FADD32I", "FMUL", "FMUL32I", "FFMA", "FFMA32I", "FMNMX", "FSEL", "FSET", "FSETP", "FCHK", "FRND",
    "FSWZADD", "F2FP", "F2F", "F2I", "MUFU", "HADD2", "HADD2_32I", "HFMA2", "HFMA2_32I", "HMUL2", "HMUL2_32I",
    "HMNMX2", "HSET2", "HSETP2", "DADD", "DMUL", "DFMA", "DMNMX", "DSETP"))
SASS_TENSOR = frozenset(("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BMMA", "BGMMA", "DMMA", "OMMA"))
#: Share of stall cycles in VMEM types (wait, load, store) for a memory-bound reading.
STREAMING_VMEM_SHARE = 0.50
#: Without a bandwidth figure: VMEM stall share and vector instructions per byte moved
#: below which a kernel without MFMA is "likely streaming".
LIKELY_STREAMING_SHARE = 0.80
LIKELY_STREAMING_OPS = 0.05
VMEM_TYPES = ("VMEM-wait", "VMEM-load", "VMEM-store")
#: A timed shape is the captured one when the bytes it moved (effective_gbps x median time)
#: are within this fraction of the capture's estimated bytes.
SAME_BYTES = 0.02
#: A timed shape the ledger declares the capture's is trusted when the capture's bytes (traced grid x
#: streamed bytes per wave) are within this factor of the bytes timed there.
DECLARED_WITHIN = 2.0
#: The profiled dispatch ran this much faster than the timed one at the same bytes: the two
#: rates are not the same measurement (said in ``gap_text``).
FASTER_RATIO = 1.25
#: Catalogue keys of the bandwidth sources (``finding.bw.source.<key>``).
SOURCE_KEYS = {"PMC counters": "pmc", "Nsight Compute DRAM throughput": "ncu"}


def _vmem_bytes_per_wave(view: KernelView) -> float | None:
    """Bytes one wave streams to/from memory, from exec counts of the sampled waves; the loads every
    workgroup issues at the same addresses (``reread``: a norm's gamma/beta) are left out."""
    split = _bytes_split(view)
    return split[0] if split else None


def _bytes_split(view: KernelView) -> tuple[float, float] | None:
    """(streamed bytes per wave, bytes per wave of the loads every workgroup re-reads at the same addresses)."""
    if "bytes_split" in view.memo:
        return view.memo["bytes_split"]
    n = len(view.analysis.waves)
    out = None
    if n:
        same = invariant_loads(tuple(i.asm for i in view.ins), tuple(i.pc_addr for i in view.ins))
        streamed = reread_b = 0.0
        for p, kind in enumerate(view.vmem):
            if kind in ("load", "lds_dma", "store"):
                b = view.ins[p].exec_count * (isa.access_bytes(view.ins[p].asm) or 4) * isa.WAVE_SIZE
                if p in same:
                    reread_b += b
                else:
                    streamed += b
        out = (streamed / n, reread_b / n)
    view.memo["bytes_split"] = out
    return out


def bandwidth(view: KernelView) -> dict[str, Any] | None:
    """Achieved memory bandwidth: PMC counters when given, else estimated from the ISA (and
    then the timed rate at the capture's bytes when the campaign has them). Worked out once
    per view: three detectors read it.

    The estimate is bytes per wave (every VMEM op of the sampled waves, full EXEC
    assumed) x waves of the dispatch (kernel trace grid) / kernel time.
    """
    if "bandwidth" not in view.memo:
        view.memo["bandwidth"] = _bandwidth(view)
    return view.memo["bandwidth"]


def _bandwidth(view: KernelView) -> dict[str, Any] | None:
    ctx = view.context
    pmc = ctx.counters
    if pmc is not None and getattr(pmc, "bw_fraction", None) is not None:
        return {"source": "PMC counters", "achieved_tbs": pmc.achieved_gbps / 1000.0,
                "peak_tbs": pmc.peak_tbs, "fraction": pmc.bw_fraction,
                "l2_hit_rate": getattr(pmc, "l2_hit_rate", None)}
    ncu = view.analysis.extra.get("ncu") if isinstance(view.analysis.extra.get("ncu"), dict) else None
    if ncu and ncu.get("dram_throughput_pct") is not None:
        return _ncu_bandwidth(ncu, ctx.peak_tbs)
    per_wave = _vmem_bytes_per_wave(view)
    wgs, wpw = ctx.workgroups, ctx.waves_per_workgroup
    if not per_wave or not wgs or not wpw or not ctx.kernel_time_ns or not ctx.peak_tbs:
        return None
    # the re-read loads' bytes come from memory once (one workgroup's worth), then from cache
    once = (_bytes_split(view) or (0.0, 0.0))[1] * wpw
    nbytes = per_wave * wgs * wpw + once
    tbs = nbytes / ctx.kernel_time_ns / 1000.0  # bytes/ns = GB/s
    bw = {"source": "estimated: VMEM bytes of the ISA x waves of the grid / kernel time (full EXEC, no reuse)",
          "achieved_tbs": tbs, "peak_tbs": ctx.peak_tbs, "fraction": tbs / ctx.peak_tbs,
          "bytes": nbytes, "bytes_per_wave": per_wave, "waves": wgs * wpw,
          "kernel_time_ns": ctx.kernel_time_ns, "grid_source": ctx.grid_source,
          **({"reread_bytes_per_wave": once / wpw} if once else {})}
    timed = timed_bandwidth(ctx.verdict, nbytes, ctx.peak_tbs, wgs)
    if timed is None:
        if _timed_any(ctx.verdict):
            # the campaign times the kernel, at none of the capture's shape: the capture's own rate (after
            # dispatches that leave its data in cache) is no HBM reading to stand on (``detect_streaming``)
            bw["unmatched"] = True
        return bw
    if not timed["same_bytes"]:  # the declared shape, at other bytes: its times are not the capture's
        bw["declared"] = timed
        return bw
    # the timing campaign measured these bytes: its figure is the one the verdict stands on
    bw.update({"capture_tbs": tbs, "capture_fraction": tbs / ctx.peak_tbs, "timed": timed,
               "achieved_tbs": timed["achieved_tbs"], "fraction": timed["fraction"],
               "source": f"timing campaign at {timed['shape']} (the capture's bytes)"})
    grid_n = _grid_median_n(view)
    if grid_n:
        bw["grid_n"] = grid_n
    if tbs > FASTER_RATIO * timed["achieved_tbs"]:
        bw["gap"] = gap_text(ctx.kernel_time_ns / 1000.0, timed, grid_n)[0]
    return bw


def _ncu_bandwidth(ncu: dict[str, Any], peak_tbs: float | None) -> dict[str, Any]:
    """Nsight Compute's DRAM reading: its DRAM Throughput percent, its Memory Throughput (DRAM bytes a
    second), and the peak that percent is of (``ncu_metrics.dram_peak_gbs``; without the raw page, the
    bytes a second over the percent).

    The percent (gpu__dram_throughput) is of NCU's sustained peak at the DRAM clock it measured, not of the
    card's nominal peak: silu_and_mul's 157,932,288 bytes over 41.856 us are 3.773 TB/s, 78.48 % of
    1,504 B a cycle x 3.1966 GHz = 4.808 TB/s, and 78.61 % of the H200's 4.8 TB/s. The peak is said
    with the percent to two decimals (4.81 TB/s), so the bytes, the peak and the percent agree."""
    frac = float(ncu["dram_throughput_pct"]) / 100.0
    gbs = ncu.get("dram_bandwidth_gbs")
    achieved = float(gbs) / 1000.0 if gbs else (frac * peak_tbs if peak_tbs else None)
    if ncu.get("dram_peak_gbs"):
        peak = ncu["dram_peak_gbs"] / 1000.0
    else:
        peak = achieved / frac if achieved and frac else peak_tbs
    return {"source": "Nsight Compute DRAM throughput", "achieved_tbs": achieved, "peak_tbs": peak,
            "fraction": frac, "l2_hit_rate": (ncu["l2_hit_rate_pct"] / 100.0
                                              if ncu.get("l2_hit_rate_pct") is not None else None)}


def _peak_text(bw: dict[str, Any]) -> str:
    """The peak as the bandwidth line says it: Nsight Compute's to two decimals (its percent is of the
    peak at the measured DRAM clock, 4.81 TB/s on the demo's H200), a configured peak to one."""
    return f"{bw['peak_tbs']:.2f}" if bw["source"] == "Nsight Compute DRAM throughput" else f"{bw['peak_tbs']:.1f}"


def _timed_any(score: Any) -> bool:
    """Whether the campaign has a usable timed rate of the candidate at some shape."""
    cand = getattr(score, "candidate", None)
    return any((r := sh.providers.get(cand)) is not None and r.usable and r.effective_gbps
               for sh in getattr(score, "shapes", None) or [])


def _grid_median_n(view: KernelView) -> int | None:
    """How many trace dispatches of the profiled grid the kernel time is the median of (None when the
    time is not that median: given in the context, or the profiled dispatch's own)."""
    from generator.analyze.advice.context import trace_timing

    t = trace_timing(view.analysis, view.context.bundle)
    ok = t and t["own_ns"] and t["median_ns"] == view.context.kernel_time_ns
    return t["n"] if ok else None


def grid_keys(score: Any, workgroups: int | None) -> set[str]:
    """The shape arguments that take the capture's workgroup count as a value in some ledger shape (M for a
    norm launching one workgroup per row: rmsnorm's 1,024 workgroups and its M=1024 shapes). Empty: the
    campaign does not say which argument the grid follows."""
    if not workgroups:
        return set()
    return {k for sh in getattr(score, "shapes", None) or [] for k, v in sh.args.items()
            if isinstance(v, int) and not isinstance(v, bool) and v == workgroups}


def timed_bandwidth(score: Any, nbytes: float, peak_tbs: float,
                    workgroups: int | None = None) -> dict[str, Any] | None:
    """The candidate's timed bandwidth at the capture's size, with the range the usable baselines
    reached there. The shape is the one the ledger declares the capture's (``capture_declared``) when
    the bytes timed there are within ``DECLARED_WITHIN`` of the capture's (a stale declaration is not
    trusted: layernorm's and rmsnorm's name M=32768 N=8192, 128x and 32x their captures' bytes); else the
    measured shape whose bytes (effective_gbps x median time) match the capture's within ``SAME_BYTES``
    (the fastest of several) and, where an argument follows the grid (``grid_keys``), whose argument is
    the capture's ``workgroups`` (rmsnorm's 1,024-workgroup capture moves the bytes of M=4096 N=2048, but
    is not that shape); None when neither. ``same_bytes``: the shape's bytes are the capture's
    within ``SAME_BYTES`` (only then are the two times compared)."""
    cand = getattr(score, "candidate", None)
    best = declared = None
    keys = grid_keys(score, workgroups)
    for sh in getattr(score, "shapes", None) or []:
        r = sh.providers.get(cand)
        if r is None or not r.usable or not r.effective_gbps or not r.median_us:
            continue
        ratio = r.effective_gbps * r.median_us * 1e3 / nbytes  # GB/s x us = 1e3 bytes
        if (getattr(sh, "capture_declared", False) and 1.0 / DECLARED_WITHIN <= ratio <= DECLARED_WITHIN
                and (declared is None or abs(ratio - 1.0) < declared[2])):
            declared = (sh, r, abs(ratio - 1.0))
        on_grid = not keys or any(sh.args.get(k) == workgroups for k in keys)
        if (abs(ratio - 1.0) <= SAME_BYTES and on_grid
                and (best is None or r.effective_gbps > best[1].effective_gbps)):
            best = (sh, r, abs(ratio - 1.0))
    pick = declared or best
    if pick is None:
        return None
    sh, r, off = pick
    others = [p.effective_gbps / 1000.0 for name, p in sh.providers.items()
              if name != cand and p.usable and p.effective_gbps]
    floor = min(x.providers[cand].median_us for x in score.shapes
                if cand in x.providers and x.providers[cand].usable and x.providers[cand].median_us)
    return {"shape": " ".join(f"{k}={v}" for k, v in sh.args.items()), "shape_id": sh.shape_id,
            "median_us": r.median_us, "floor_us": floor, "achieved_tbs": r.effective_gbps / 1000.0,
            "fraction": r.effective_gbps / 1000.0 / peak_tbs,
            "baselines_tbs": [min(others), max(others)] if others else None,
            "matched_by": "declared" if declared else "bytes", "same_bytes": off <= SAME_BYTES}


def nvidia(view: KernelView) -> bool:
    """Whether the capture is Nsight Compute's (SASS, warp-stall samples) rather than AMD ATT's."""
    return getattr(view.analysis, "vendor", "amd") == "nvidia"


def sass_opcode(asm: str) -> str:
    """``@!P3  FMUL R7, R7, 0.25`` -> ``FMUL``: the SASS opcode without predicate and modifiers."""
    words = asm.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".", 1)[0] if words else ""


def compute_counts(view: KernelView) -> dict[str, int]:
    """The vector / matrix instruction counts of the listing in the vendor's ISA: AMD ``v_`` (VALU) and
    MFMA; on NVIDIA the SASS FP ALU (``SASS_FP``) and tensor (``SASS_TENSOR``) opcodes."""
    if nvidia(view):
        ops = [sass_opcode(i.asm) for i in view.ins]
        return {"sass_fp_instructions": sum(o in SASS_FP for o in ops),
                "sass_tensor_instructions": sum(o in SASS_TENSOR for o in ops)}
    return {"mfma": sum(view.mfma),
            "valu_instructions": sum(1 for p, m in enumerate(view.mnemonics) if m.startswith("v_") and not view.mfma[p])}


def profiled_shape(view: KernelView, bw: dict[str, Any]) -> str | None:
    """The shape the capture profiled: the timed shape of its bytes, or the NCU capture's own."""
    if bw.get("timed") or bw.get("declared"):
        return (bw.get("timed") or bw["declared"])["shape"]
    shape = view.analysis.extra.get("shape")
    args = shape.get("args") if isinstance(shape, dict) else None
    return " ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) and args else None


@detector("streaming_roofline")
def detect_streaming(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Memory waits dominate at half the HBM peak or more, on the profiled shape: its bandwidth reading."""
    by_type = view.analysis.stall_by_type
    vmem_share = sum(by_type.get(t, 0) for t in VMEM_TYPES) / view.total_stall if view.total_stall else 0.0
    if vmem_share < STREAMING_VMEM_SHARE:
        return []
    bw = bandwidth(view)
    if bw is None:
        return _likely_streaming(view, vmem_share, taken)
    if bw["fraction"] < STREAMING_BW_FRACTION or bw.get("unmatched"):
        return []
    if view.has_mfma and bw["source"].startswith("estimated"):
        # Requested VMEM bytes of a tiled MFMA kernel include L2 hits (tiles re-read by many
        # workgroups): they say nothing about HBM without the counters.
        return []
    claims = [p for p, i in enumerate(view.ins) if i.type in VMEM_TYPES and p not in taken]
    counts = compute_counts(view)
    n_mfma = counts.get("mfma", counts.get("sass_tensor_instructions", 0))
    per_wave = bw.get("bytes_per_wave") or _vmem_bytes_per_wave(view)
    execs = (sum(view.ins[p].exec_count for p, m in enumerate(view.mnemonics) if m.startswith("v_"))
             / max(len(view.analysis.waves), 1))
    ncu = view.analysis.extra.get("ncu") if isinstance(view.analysis.extra.get("ncu"), dict) else None
    if ncu and ncu.get("sm_throughput_pct") is not None:
        tensor = ncu.get("tensor_pipe_pct")
        busy = max(float(ncu["sm_throughput_pct"]), float(tensor or 0.0))
        compute = f"SM throughput {float(ncu['sm_throughput_pct']):.1f}%" + (
            f", tensor pipe {float(tensor):.1f}%" if tensor is not None else "")
        compute += ": compute is not the limit" if busy < 50 else ": compute is busy too"
        what = [msg("finding.streaming_roofline.sm", pct=f"{float(ncu['sm_throughput_pct']):.1f}%")] + (
            [msg("finding.streaming_roofline.tensor", pct=f"{float(tensor):.1f}%")] if tensor is not None else [])
        reading = "not_limit" if busy < 50 else "busy"
    else:
        compute = ("no MFMA" if not n_mfma else f"{n_mfma} MFMA") + (
            f", {execs / per_wave:.3f} vector instructions per byte" if per_wave else "")
        compute += ": compute is not the limit" if not n_mfma else ": memory-bound at this shape"
        what = [msg("finding.streaming_roofline.mfma", n=n_mfma) if n_mfma else msg("finding.streaming_roofline.no_mfma")] + (
            [msg("finding.streaming_roofline.per_byte", v=f"{execs / per_wave:.3f}")] if per_wave else [])
        reading = "not_limit" if not n_mfma else "memory_bound"
    ev: dict = {}
    pct = _pct(bw["fraction"])
    if nvidia(view):
        premise = _memory_wait_premise(view, ev, pct)
    else:
        premise = stalled_premise(view, unit_key(view, "finding.streaming_roofline.premise"), _vmem_typed(view), ev,
                                  bw=pct)
    compute_m = msg("finding.streaming_roofline.compute", what=what, reading=msg(f"finding.streaming_roofline.{reading}"))
    said, summary = _summary(view, bw, vmem_share, compute, compute_m, ncu)
    shape = profiled_shape(view, bw)
    detail_key = "finding.streaming_roofline.detail" + (".at" if shape else "")
    near = bw["fraction"] >= NEAR_PEAK
    try_key = "finding.streaming_roofline.try" + (".near" if near else ".wide" if _wide_and_full(view, ncu)
                                                  else ".full" if _amd_full(view) else "")
    launches = _profiled_launches(view)
    try_kw: dict[str, Any] = {"pct": pct, **({"n": launches} if launches else {})}
    try_key += ".launches" if launches else ""
    f = _pattern(view, "streaming_roofline", english("finding.streaming_roofline.title", pct=pct), claims, {
        "summary": summary,
        "bandwidth": bw,
        "detail": english(detail_key, pct=pct, shape=shape),
        "profiled_shape": shape,
        "near_peak": near,
        "vmem_stall_share": vmem_share,
        **counts, **ev,
    }, english(try_key, **try_kw), {
        **words("streaming_roofline", said, msg(try_key, **try_kw), pct=pct),
        "detail": msg(detail_key, pct=pct, shape=shape) if shape else msg(detail_key, pct=pct)}, premise)
    if nvidia(view):  # the share of the memory-wait samples, as the summary says it (not of whole instructions)
        f.stall_cycles = sum(_memory_wait_samples(view).values())
        f.stall_share = vmem_share
    # the priority follows the share, as the plan's rank does (registry.rank orders patterns by share)
    f.priority = pattern_priority(f.stall_share)
    return [f]


def _memory_wait_samples(view: KernelView) -> dict[int, int]:
    """NVIDIA: the not-issued samples of the memory-wait reasons (``VMEM_TYPES``: long scoreboard, LG/TEX
    throttle, store drain) per instruction position that holds any. An instruction's type is its dominant
    reason, so its samples are not all memory waits: vec_add's exit BRA holds 27 drain samples beside 5
    branch-resolving and 3 wait ones (source_sass.csv)."""
    out = {}
    for p, ins in enumerate(view.ins):
        n = sum(v for r, v in ins.extra.get("stall_reasons_not_issued", {}).items()
                if stall_type(r, ins.asm) in VMEM_TYPES)
        if n:
            out[p] = n
    return out


def _memory_wait_premise(view: KernelView, evidence: dict[str, Any], pct: str) -> Msg:
    """The NVIDIA premise: the instructions holding memory-wait samples, and those samples alone (vec_add's
    launch 0: 1,142 long-scoreboard on the HFMA2 after the loads + 27 drain on the exit BRA = 1,169 of
    1,227, 95.3 %, the summary's share; the two instructions' samples of every reason were 1,177)."""
    at = _memory_wait_samples(view)
    n = sum(at.values())
    evidence["premise_pcs"] = view.pcs(sorted(at))
    share = _pct(n / view.total_stall) if view.total_stall else _pct(0.0)
    return msg("finding.streaming_roofline.premise.reasons", bw=pct, n=len(at), cycles=n, share=share)


def _profiled_launches(view: KernelView) -> int | None:
    """How many launches the Nsight Compute capture profiled, when more than one (vec_add: 2, at 57.8 % and
    88.2 % of the peak): then "one shape was profiled" is not what the capture holds."""
    n = view.analysis.extra.get("launches") if nvidia(view) else None
    return n if isinstance(n, int) and n > 1 else None


def _amd_full(view: KernelView) -> bool:
    """An AMD capture already at the hardware's resident waves per SIMD (softmax: 8 of 8): more resident
    threads are no way left to raise the bytes in flight."""
    occ = view.occupancy
    return not nvidia(view) and occ is not None and occ.at_hardware_max


def _wide_and_full(view: KernelView, ncu: dict[str, Any] | None) -> bool:
    """An NVIDIA launch whose global loads are all 128-bit (``LDG.E.128``, the widest a thread issues)
    at a theoretical occupancy of the hardware maximum: neither wider loads nor more resident threads
    are left, so the bytes in flight grow only with more independent loads per thread."""
    occ = (ncu or {}).get("occupancy") or {}
    if not occ.get("at_hardware_max") or (occ.get("theoretical_pct") or 0) < 100:
        return False
    loads = []
    for ins in view.ins:
        words = ins.asm.split()
        words = words[1:] if words and words[0].startswith("@") else words
        if words and words[0].split(".")[0] == "LDG":
            loads.append(words[0].split("."))
    return bool(loads) and all("128" in parts for parts in loads)


def _summary(view: KernelView, bw: dict[str, Any], vmem_share: float, compute: str, compute_m: Msg,
             ncu: dict | None) -> tuple[Msg, str]:
    """The summary as a message and in English: AMD's VMEM stall cycles, or NCU's global-memory warp-stall
    samples with Nsight Compute's own bottleneck reading."""
    if not nvidia(view):
        said = msg("finding.streaming_roofline.summary", bw=_bw_msg(bw), vmem=_pct(vmem_share), compute=compute_m)
        return said, (_bw_text(bw) + f"; VMEM types hold {_pct(vmem_share)} of the stall cycles; {compute}")
    kind = ((ncu or {}).get("bottleneck") or {}).get("kind")
    key = "finding.streaming_roofline.summary.samples" + (".kind" if kind else "")
    params = {"vmem": _pct(vmem_share), **({"kind": kind} if kind else {})}
    said = msg(key, bw=_bw_msg(bw), compute=compute_m, **params)
    return said, english(key, bw=_bw_text(bw), compute=compute, **params)


def gap_text(capture_us: float, timed: dict[str, Any], grid_n: int | None = None) -> tuple[str, Msg]:
    """Why the profiled dispatch and the timed run disagree at the same bytes, from the numbers
    (English, and as a message). ``grid_n``: the capture time is the median of the trace's ``grid_n``
    dispatches of the profiled grid (``finding.timed_gap.summary.grid``), not the profiled dispatch's own."""
    ratio = timed["median_us"] / capture_us
    nums = {"capture": f"{capture_us:.2f}", "timed": f"{timed['median_us']:.2f}", "shape": timed["shape"],
            "ratio": f"{ratio:.1f}", "floor": f"{timed['floor_us']:.2f}", **({"n": grid_n} if grid_n else {})}
    key = "finding.timed_gap.summary" + (".grid" if grid_n else "")
    rest = (timed["median_us"] - timed["floor_us"]) / capture_us
    if rest > FASTER_RATIO:
        tail = msg("finding.timed_gap.cache", ratio=f"{rest:.1f}")
    else:
        tail = msg("finding.timed_gap.floor")
    return english(key, tail=english(tail.key, **tail.kw), **nums), msg(key, tail=tail, **nums)


def _bw_text(bw: dict[str, Any]) -> str:
    if bw.get("achieved_tbs") and bw.get("peak_tbs"):
        text = f"{bw['achieved_tbs']:.2f} TB/s of {_peak_text(bw)} TB/s peak ({bw['source']})"
    else:
        text = f"{_pct(bw['fraction'])} of peak bandwidth ({bw['source']})"
    timed = bw.get("timed")
    if timed and timed.get("baselines_tbs"):
        lo, hi = timed["baselines_tbs"]
        text += f", baselines {lo:.2f}-{hi:.2f} TB/s there" if hi - lo >= 0.005 else f", baselines {lo:.2f} TB/s there"
    if bw.get("gap"):
        text += f"; {bw['gap']}"
    return text


def _bw_msg(bw: dict[str, Any]) -> Msg:
    """``_bw_text`` as a message."""
    src = bw["source"]
    timed = bw.get("timed")
    if timed:
        source = msg("finding.bw.source.timed", shape=timed["shape"])
    else:
        source = msg(f"finding.bw.source.{SOURCE_KEYS.get(src, 'estimated')}")
    if bw.get("achieved_tbs") and bw.get("peak_tbs"):
        base = msg("finding.bw.tbs", achieved=f"{bw['achieved_tbs']:.2f}", peak=_peak_text(bw), source=source)
    else:
        base = msg("finding.bw.fraction", pct=_pct(bw["fraction"]), source=source)
    baselines: Msg | str = ""
    if timed and timed.get("baselines_tbs"):
        lo, hi = timed["baselines_tbs"]
        baselines = (msg("finding.bw.baselines.range", lo=f"{lo:.2f}", hi=f"{hi:.2f}") if hi - lo >= 0.005
                     else msg("finding.bw.baselines.one", lo=f"{lo:.2f}"))
    gap: Msg | str = ""
    if bw.get("gap"):
        gap = msg("finding.bw.gap", gap=gap_message(bw))
    if not baselines and not gap:
        return base
    return msg("finding.bw.more", base=base, baselines=baselines, gap=gap)


def gap_message(bw: dict[str, Any]) -> Msg:
    """The message of ``bw["gap"]`` (a timed bandwidth's disagreement with the capture)."""
    return gap_text(bw["kernel_time_ns"] / 1000.0, bw["timed"], bw.get("grid_n"))[1]


def _vmem_typed(view: KernelView) -> list[int]:
    """Positions of the VMEM-typed instructions (waits on, loads and stores to global memory)."""
    return [p for p, i in enumerate(view.ins) if i.type in VMEM_TYPES]


def _vector_per_byte(view: KernelView) -> float | None:
    """Vector instructions executed per byte moved (per wave, from exec counts)."""
    per_wave = _vmem_bytes_per_wave(view)
    if not per_wave:
        return None
    execs = sum(view.ins[p].exec_count for p, m in enumerate(view.mnemonics) if m.startswith("v_"))
    return execs / max(len(view.analysis.waves), 1) / per_wave


def _likely_streaming(view: KernelView, vmem_share: float, taken: frozenset) -> list[Finding]:
    """Without a bandwidth figure: a kernel with no MFMA, almost all stalls on VMEM, little math."""
    per_byte = _vector_per_byte(view)
    if view.has_mfma or vmem_share < LIKELY_STREAMING_SHARE or per_byte is None or per_byte > LIKELY_STREAMING_OPS:
        return []
    claims = [p for p, i in enumerate(view.ins) if i.type in VMEM_TYPES and p not in taken]
    ev: dict = {}
    premise = stalled_premise(view, "finding.streaming_roofline.likely.premise", _vmem_typed(view), ev)
    f = _pattern(view, "streaming_roofline", "Likely streaming-bound (no bandwidth figure)", claims, {
        "summary": (f"VMEM types hold {_pct(vmem_share)} of the stall cycles, no MFMA, {per_byte:.3f} vector "
                    "instructions per byte moved; give the kernel trace (grid, time) or PMC counters "
                    "to measure the bandwidth"),
        "bandwidth": None,
        "detail": "likely streaming",
        "vmem_stall_share": vmem_share,
        "vector_instructions_per_byte": per_byte, **ev,
    }, english("finding.streaming_roofline.likely.try"),
        {**words("streaming_roofline", msg("finding.streaming_roofline.likely.summary", vmem=_pct(vmem_share),
                                        per_byte=f"{per_byte:.3f}"),
              msg("finding.streaming_roofline.likely.try"), msg("finding.streaming_roofline.likely.title")),
        "detail": msg("finding.streaming_roofline.likely.detail")}, premise)
    f.priority = pattern_priority(f.stall_share)  # as the plan ranks it (by share)
    return [f]
