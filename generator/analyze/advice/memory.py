"""Memory patterns: DMA-to-LDS drains, late scale loads, load runs and placement, stores, exposed latency."""

from __future__ import annotations

import re
from typing import Iterable

from generator.analyze import isa
from generator.analyze.advice.registry import Finding, _pattern, detector, hot, stalled_premise, words
from generator.analyze.advice.view import (CONSUMER_WINDOW, KernelView, _lines_msg, _lines_text, _n, _pc_list, _pc_list_msg,
                                          _pcs_msg, _pcs_text, _pct)
from generator.words import noun
from generator.analyze.message import english, msg

#: Floating-point multiplies that apply a scale: these mnemonics with a float type (``FLOAT_TYPE``);
#: integer multiplies (v_mul_lo_u32, v_mul_hi_i32, v_mad_u32_u24) are address math, not scaling.
SCALE_MATH = ("v_mul_", "v_pk_mul_", "v_fma_", "v_pk_fma_", "v_fmac_", "v_mac_", "v_mad_", "v_pk_mad_",
              "v_fmamk_", "v_fmaak_", "v_cvt_scalef32")
FLOAT_TYPE = re.compile(r"_(?:f16|f32|f64|bf16)(?![0-9])|_legacy|_mix|^v_cvt_scalef32")
#: Steps that carry a loaded scale on to its multiply unchanged in meaning: moves, float-to-float
#: conversions (fp8/bf8/f16/bf16 to f32) and the e8m0 exponent shift (``v_lshlrev_b32 d, 23, v``).
SCALE_CARRY = re.compile(r"^v_mov_b(?:32|64)|^v_cvt_(?:pk_)?f32_(?:f16|bf16|fp8|bf8)|^v_lshlrev_b32\S*\s+[^,]+,\s*23,")
#: How many carrying steps the walk from a scale load to its multiply follows.
SCALE_HOPS = 3
#: A load run: at least this many VMEM loads, at most GAP other instructions apart.
RUN_MIN_LOADS = 4
RUN_MAX_GAP = 6
#: Instructions that end a load run (besides MFMAs and waits).
RUN_BREAKS = ("s_barrier", "s_endpgm", "s_branch", "s_cbranch")
#: Stall rate (stall / total cycles, code.json Stall / Latency) of loads that marks an issue-blocked load.
LOAD_STALL_RATE = 0.50
#: Store share (own issue stalls + waits on stores) from which a kernel is store-bound.
STORE_SHARE = 0.10
#: Unexplained VMEM waits from which "latency exposed" is reported.
EXPOSED_SHARE = 0.10


@detector("lds_dma_drain")
def detect_lds_dma_drain(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """``s_waitcnt vmcnt(0)`` drains the whole queue right after DMA-to-LDS loads."""
    waits, dma = [], set()
    for p in view.waits("vmcnt"):
        if p in taken or view.counts[p]["vmcnt"] != 0 or not view.ins[p].stall_cycles:
            continue
        loads = [q for q in view.covered(p, "vmcnt") if view.vmem[q] == "lds_dma"]
        if loads:
            waits.append(p)
            dma.update(loads)
    if not waits:
        return []
    pcs = view.pcs(waits)
    dma_lines = view.lines_json(dma, 4)
    share, _ = view.share(waits)
    ev: dict = {}
    premise = stalled_premise(view, "finding.lds_dma_drain.premise", waits, ev)
    summary = (f"{_n(len(waits), 's_waitcnt vmcnt(0)', 's_waitcnt vmcnt(0)')} at pc {_pc_list(pcs)} waiting for {len(dma)} "
               f"buffer_load...lds (DMA to LDS) at {_lines_text(dma_lines)}; {noun(len(waits), 'it holds', 'they hold')} {_pct(share)} "
               f"of the stall cycles")
    return [_pattern(view, "lds_dma_drain", "s_waitcnt vmcnt(0) drains after DMA-to-LDS loads", waits, {
        "summary": summary,
        "waits": view.instr_json(waits, 6),
        "wait_pcs": pcs,
        "dma_loads": len(dma),
        "dma_load_pcs": view.pcs(dma),
        "dma_load_lines": dma_lines, **ev,
    }, *_drain_advice(view, waits, dma, dma_lines, share), premise)]


def lds_buffers(view: KernelView) -> tuple[int, int | None] | None:
    """(stages, LDS bytes per stage) when the kernel's name says it already multi-buffers LDS (FlyDSL's
    ``_S<n>_`` with n >= 2, DOMAIN §1.7; hgemm_splitk: 2 stages of 48 KiB in its 96 KiB); else None."""
    from generator.analyze import config_match

    cfg = config_match.capture_config(view.analysis.jit_kernel) or {}
    stages = cfg.get("stages")
    if not isinstance(stages, int) or stages < 2:
        return None
    occ = view.occupancy
    lds = occ.lds_bytes if occ is not None and occ.lds_bytes else None
    return stages, (lds // stages if lds else None)


def drain_gaps(view: KernelView, waits: list[int]) -> str:
    """"1-9": how many instructions before each wait its youngest DMA-to-LDS load was issued (the
    load its stall is blamed on), as a range over the waits."""
    gaps = sorted({view.distance(next(q for q in view.covered(p, "vmcnt") if view.vmem[q] == "lds_dma"), p)
                   for p in waits})
    return f"{gaps[0]}-{gaps[-1]}" if len(gaps) > 1 else str(gaps[0])


def _drain_advice(view: KernelView, waits: list[int], dma: set[int], dma_lines: list, share: float) -> tuple[str, dict]:
    """The drain's suggestion, from what the ISA shows: each wait blocks on a DMA load issued a few
    instructions before it, so issue the next tile's loads first and wait for this tile only.

    The code cannot tell which tile a wait's loads fill, so it does not say that a wait drains a tile
    "not needed yet": on the sweep the drained loads are the tile read right after (flash_attn_func: 4
    loads issued 1-9 instructions before each wait; hgemm_splitk: 3-17, its second tile only)."""
    summary = msg("finding.lds_dma_drain.summary", n=len(waits), pcs=_pc_list_msg(view.pcs(waits)),
                  dma=len(dma), lines=_lines_msg(dma_lines), share=_pct(share))
    gaps = drain_gaps(view, waits)
    staged = lds_buffers(view)
    if staged is None:
        return (f"Each vmcnt(0) waits for a DMA load issued {gaps} {noun(gaps, 'instruction')} before it: issue the next tile's "
                "buffer_load...lds before waiting for this one (double-buffer LDS), then wait with vmcnt(N) for "
                "this tile only (N = the loads issued after it), so the next tile's loads overlap this tile's "
                "MFMAs."), words("lds_dma_drain", summary, suggestion=msg("finding.lds_dma_drain.try", gaps=gaps))
    stages, per = staged
    size = f"{stages} x {per // 1024} KiB" if per else f"{stages} stages"
    m = msg("finding.lds_dma_drain.try.staged", size=size, gaps=gaps)
    text = (f"The LDS is already multi-buffered ({size}), but each vmcnt(0) waits for a DMA load issued {gaps} "
            f"{noun(gaps, 'instruction')} before it: issue the next stage's buffer_load...lds before waiting for this one, then "
            "wait with vmcnt(N) for this tile only (N = the loads issued after it), so the next stage's loads stay "
            "in flight during this tile's MFMAs.")
    return text, words("lds_dma_drain", summary, suggestion=m)


def scale_math(view: KernelView, p: int) -> bool:
    """True when instruction ``p`` is floating-point scaling math (``SCALE_MATH`` with a float type)."""
    m = view.mnemonics[p]
    return m.startswith(SCALE_MATH) and FLOAT_TYPE.search(m) is not None


def _reader(view: KernelView, start: int, regs: set) -> int | None:
    """First instruction after ``start`` (straight line, ``CONSUMER_WINDOW``) that reads what ``start``
    left in ``regs``: a register overwritten before any read (``v_maximum3_f32 v52, ...`` over a
    loaded v52) no longer holds the value, so a later reader of it does not count."""
    live = set(regs)
    for p in range(start + 1, min(len(view.ins), start + 1 + CONSUMER_WINDOW)):
        if not live:
            return None
        if not view.uses[p].isdisjoint(live):
            return p
        if view.mnemonics[p] == "s_endpgm":
            return None
        live -= view.defs[p]
    return None


def _scale_load(view: KernelView, q: int) -> int | None:
    """The scaling consumer of load ``q`` when it loads a scale: a narrow load whose value reaches,
    through at most ``SCALE_HOPS`` moves or float conversions (``SCALE_CARRY``), an MFMA's scale
    operand or a floating-point multiply (``scale_math``). Any other first reader (integer address
    math: v_mul_lo_u32, v_add_u32, v_lshl_add_u64 ...) means the load is not a scale."""
    if view.vmem[q] != "load" or (isa.access_bytes(view.ins[q].asm) or 16) > 8:
        return None
    at, regs = q, view.defs[q]
    for _ in range(SCALE_HOPS + 1):
        c = _reader(view, at, regs)
        if c is None:
            return None
        if view.mfma[c]:
            ops, _ = isa.split_operands(view.ins[c].asm)
            scale_regs = set()
            for op in ops[4:]:
                scale_regs.update(isa.registers(op))
            return c if scale_regs & regs else None
        if scale_math(view, c):
            return c
        if not SCALE_CARRY.search(view.ins[c].asm):
            return None
        at, regs = c, view.defs[c]
    return None


@detector("late_scale_loads")
def detect_late_scale_loads(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Scale loads issued too close to the multiply that uses them (MFMA kernels)."""
    if not view.has_mfma:
        return []
    waits, loads, pairs = [], set(), []
    for p in view.waits("vmcnt"):
        if p in taken:
            continue
        y = view.youngest(p, "vmcnt")
        if y is None or view.ins[p].stall_cycles == 0:
            continue
        c = _scale_load(view, y)
        if c is None:
            continue
        waits.append(p)
        loads.add(y)
        pairs.append({"load_pc": view.pc(y), "wait_pc": view.pc(p), "use_pc": view.pc(c),
                      "use": view.ins[c].asm, "distance": view.distance(y, c),
                      "wait_stall_cycles": view.ins[p].stall_cycles})
    if not waits:
        return []
    pairs.sort(key=lambda d: (-d["wait_stall_cycles"], d["wait_pc"]))
    dist = sorted(d["distance"] for d in pairs)
    share, _ = view.share(waits)
    lines = view.lines_json(loads, 3)
    ev: dict = {}
    premise = stalled_premise(view, "finding.late_scale_loads.premise", waits, ev)
    summary = (f"{_n(len(waits), 'wait')} at pc {_pc_list(view.pcs(waits))} {noun(len(waits), 'stalls', 'stall')} on scale loads "
               f"({_lines_text(lines)}) used {dist[0]}-{dist[-1]} instructions after issue; "
               f"{_pct(share)} of the stall cycles")
    return [_pattern(view, "late_scale_loads", "Scale loads issued too close to their use", waits, {
        "summary": summary,
        "pairs": pairs[:6],
        "scale_load_pcs": view.pcs(loads),
        "scale_load_lines": lines,
        "waits": view.instr_json(waits, 6), **ev,
    }, ("Issue the scale loads at the start of the block (before the tile loads), or one iteration "
        "ahead, so the scales are resident when the scaling multiply needs them."),
        words("late_scale_loads", msg("finding.late_scale_loads.summary", n=len(waits),
                                      pcs=_pc_list_msg(view.pcs(waits)), lines=_lines_msg(lines),
                                      dist=f"{dist[0]}-{dist[-1]}", share=_pct(share))), premise)]


def _vmcnt_waits_on(view: KernelView, loads: set, taken: frozenset) -> list[int]:
    """vmcnt waits whose youngest completed operation is one of ``loads``."""
    return [p for p in view.waits("vmcnt") if p not in taken and view.youngest(p, "vmcnt") in loads]


def _load_rate(view: KernelView, loads: Iterable[int]) -> float:
    stall = sum(view.ins[q].stall_cycles for q in loads)
    total = sum(view.ins[q].total_cycles for q in loads)
    return stall / total if total else 0.0


@detector("loads_interleaved_with_mfma")
def detect_loads_interleaved(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """VMEM loads sit between the MFMAs of one loop and stall issuing (80-95 % typical)."""
    loads, loops = set(), []
    for lo, hi in view.loops:
        mf = [p for p in range(lo, hi + 1) if view.mfma[p]]
        if not mf:
            continue
        inner = [q for q in range(mf[0] + 1, mf[-1]) if view.vmem[q] in ("load", "lds_dma")
                 and q not in taken and q not in loads and view.ins[q].stall_cycles]
        if inner:
            loads.update(inner)
            loops.append((lo, hi, len(mf), len(inner)))
    if not loads:
        return []
    rate = _load_rate(view, loads)
    if rate < LOAD_STALL_RATE:
        return []
    # the sentence says "in the same loop": a wait after the loop (the epilogue draining the last
    # iteration's loads) is not one batching the loads would remove (moe_gemm: 5 of 16 sit past pc 470)
    waits = [p for p in _vmcnt_waits_on(view, loads, taken) if any(a <= p <= b for a, b, _m, _n in loops)]
    claims = set(loads) | set(waits)
    share, _ = view.share(claims)
    ev: dict = {}
    premise = stalled_premise(view, "finding.loads_interleaved_with_mfma.premise", loads, ev, rate=_pct(rate))
    lo, hi, n_mf, n_ld = max(loops, key=lambda t: (t[3], -t[0]))
    summary = (f"{_n(len(loads), 'load')} between MFMAs of the loop at pc {view.pc(lo)}-{view.pc(hi)} "
               f"({n_mf} MFMA) {noun(len(loads), 'stalls', 'stall')} {_pct(rate)} of {noun(len(loads), 'its', 'their')} total cycles"
               + (f"; {_n(len(waits), 'wait')} in the same loop on {noun(len(loads), 'it', 'them')}" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    return [_pattern(view, "loads_interleaved_with_mfma", "VMEM loads interleaved with MFMA in the loop",
                     claims, {
                         "summary": summary,
                         "loops": [{"first_pc": view.pc(a), "last_pc": view.pc(b), "mfma": m, "loads": n}
                                   for a, b, m, n in loops],
                         "load_stall_rate": rate,
                         "loads": view.instr_json(loads, 6),
                         "wait_pcs": view.pcs(waits),
                         "lines": view.lines_json(loads, 3), **ev,
                     }, *_interleaved_advice(view, loops, msg(
                         "finding.loads_interleaved_with_mfma.summary" + (".waits" if waits else ""),
                         n=len(loads), pcs=f"{view.pc(lo)}-{view.pc(hi)}", mfma=n_mf, rate=_pct(rate),
                         waits=len(waits), share=_pct(share))), premise)]


def _interleaved_advice(view: KernelView, loops: list[tuple[int, int, int, int]], summary) -> tuple[str, dict]:
    """Batch the loads before the MFMA block; "or at the end of the previous iteration" only where a loop holding
    them iterates (``KernelView.iterates``): pa's loop at pc 350-934 runs once per working wave at the profiled
    shape, so it has no previous iteration to load in."""
    if any(view.iterates((a, b)) for a, b, _m, _n in loops):
        return ("Batch the tile's loads before the MFMA block (or at the end of the previous iteration) so the MFMAs "
                "run uninterrupted and the loads stop blocking issue.", words("loads_interleaved_with_mfma", summary))
    return ("Batch the tile's loads before the MFMA block so the MFMAs run uninterrupted and the loads stop blocking "
            "issue; each wave runs this loop once at the profiled shape, so there is no previous iteration to load in.",
            words("loads_interleaved_with_mfma", summary, msg("finding.loads_interleaved_with_mfma.try.once")))


def load_runs(view: KernelView, taken: frozenset = frozenset()) -> list[list[int]]:
    """Runs of >= RUN_MIN_LOADS VMEM loads with no MFMA or wait between them."""
    runs, cur, gap = [], [], 0
    for p, (kind, mfma, waits, m) in enumerate(zip(view.vmem, view.mfma, view.counts, view.mnemonics)):
        if (kind == "load" or kind == "lds_dma") and p not in taken:
            cur.append(p)
            gap = 0
            continue
        breaks = mfma or waits or m.startswith(RUN_BREAKS)
        gap += 1
        if breaks or gap > RUN_MAX_GAP:
            if len(cur) >= RUN_MIN_LOADS:
                runs.append(cur)
            cur, gap = [], 0
    if len(cur) >= RUN_MIN_LOADS:
        runs.append(cur)
    return runs


def hot_width(view: KernelView, positions: list[int]) -> tuple[int, list[int], float]:
    """(bytes per lane, those positions, their share of the positions' stall cycles) of the access
    width that holds the most stall cycles (the wider on a tie): the width the hot path moves."""
    by_width: dict[int, list[int]] = {}
    for q in positions:
        by_width.setdefault(isa.access_bytes(view.ins[q].asm) or 0, []).append(q)
    stall = {w: sum(view.ins[q].stall_cycles for q in qs) for w, qs in by_width.items()}
    w = max(by_width, key=lambda k: (stall[k], k))
    total = sum(stall.values())
    return w, sorted(by_width[w]), (stall[w] / total if total else 0.0)


def narrow(width: int) -> bool:
    """A known access width under 16 bytes per lane (dwordx4)."""
    return 0 < width < 16


@detector("back_to_back_loads")
def detect_back_to_back_loads(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Loads issued back to back with no compute between: the VMEM queue saturates.

    Decided on the loads of the runs that stall (the hot path): the widening advice is given only
    when the width holding most of their stall cycles is under 16 bytes per lane (cold narrow loads,
    e.g. a tail that never stalls, do not count).
    """
    runs = [r for r in load_runs(view, taken) if hot(view, r)]
    loads = set(hot(view, [q for r in runs for q in r]))
    if not loads:
        return []
    rate = _load_rate(view, loads)
    if rate < LOAD_STALL_RATE:
        return []
    # In an MFMA kernel, waiting for a tile in the iteration that loaded it means no
    # prefetch distance; elsewhere the waits are plain memory latency (later detectors).
    in_runs = {q for r in runs for q in r}
    waits = _vmcnt_waits_on(view, in_runs, taken) if view.has_mfma else []
    claims = loads | set(waits)
    share, _ = view.share(claims)
    widths = sorted({isa.access_bytes(view.ins[q].asm) or 0 for q in loads})
    w, at_w, w_share = hot_width(view, sorted(loads))
    ev: dict = {}
    premise = stalled_premise(view, "finding.back_to_back_loads.premise", loads, ev, m=len(at_w),
                              wshare=_pct(w_share), w=w)
    biggest = max(runs, key=lambda r: (len(r), -r[0]))
    # the runs hold every load; the rate, widths and share are of the ones that stall (pa: 14 and 12)
    summary = (f"{_n(len(runs), 'run')} of back-to-back loads ({len(in_runs)} loads, longest {len(biggest)} at pc "
               f"{view.pc(biggest[0])}-{view.pc(biggest[-1])}); the {len(loads)} that {noun(len(loads), 'stalls', 'stall')} "
               f"({'/'.join(str(w) for w in widths)} bytes per lane) {noun(len(loads), 'stalls', 'stall')} {_pct(rate)} "
               f"of {noun(len(loads), 'its', 'their')} total cycles"
               + (f"; {_n(len(waits), 'wait')} on {noun(len(loads), 'it', 'them')}" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    said = msg("finding.back_to_back_loads.summary" + (".waits" if waits else ""), runs=len(runs), n=len(loads),
               total=len(in_runs),
               longest=len(biggest), pcs=f"{view.pc(biggest[0])}-{view.pc(biggest[-1])}",
               widths="/".join(str(w) for w in widths), rate=_pct(rate), waits=len(waits), share=_pct(share))
    # "this tile's MFMAs" only where a run sits in an iterating loop with MFMAs: a prologue or epilogue run has
    # no MFMAs to overlap (moe_gemm 142-157 before its loop at 239-470), and a wave that runs its loop once has no
    # next tile (pa's runs sit in its outer loop, pc 141-935, which each working wave runs once at the profiled shape)
    in_mfma_loop = any(lo <= r[0] <= hi and any(view.mfma[lo:hi + 1]) and view.iterates((lo, hi))
                       for r in runs for lo, hi in view.loops)
    if in_mfma_loop:
        advice = msg("finding.back_to_back_loads.try.mfma")
        suggestion = ("Prefetch the next tile during this tile's MFMAs (double buffering) so the loads "
                      "spread over the compute instead of filling the VMEM queue at once.")
    elif narrow(w) and not view.has_mfma:
        advice = msg("finding.back_to_back_loads.try.narrow", w=w, fewer=16 // w)
        suggestion = (f"The loads move {w} bytes per lane each: have each lane load 16 contiguous bytes "
                      f"(dwordx4) so {16 // w}x fewer load instructions carry the same bytes and "
                      "the VMEM queue stops saturating.")
    else:
        advice = msg("finding.back_to_back_loads.try")
        suggestion = ("Interleave independent work between the loads, or issue them in two batches, so the VMEM "
                      "queue does not saturate.")
    return [_pattern(view, "back_to_back_loads", "Back-to-back VMEM loads saturate the queue", claims, {
        "summary": summary,
        "runs": [{"first_pc": view.pc(r[0]), "last_pc": view.pc(r[-1]), "loads": len(r),
                  "stall_cycles": sum(view.ins[q].stall_cycles for q in r)} for r in runs[:8]],
        "load_stall_rate": rate,
        "bytes_per_lane": widths,
        "hot_bytes_per_lane": w,
        "narrow_loads": sum(1 for q in loads if narrow(isa.access_bytes(view.ins[q].asm) or 0)),
        "loads": view.instr_json(loads, 6),
        "wait_pcs": view.pcs(waits),
        "lines": view.lines_json(loads, 3), **ev,
    }, suggestion, words("back_to_back_loads", said, advice), premise)]


@detector("store_bound")
def detect_store_bound(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Global stores stall issue (write queue full) or are waited on."""
    stores = {p for p, k in enumerate(view.vmem) if (k == "store" or view.ins[p].type == "VMEM-store")
              and p not in taken}
    if not stores:
        return []
    waits = [p for p in view.waits("vmcnt") if p not in taken and view.youngest(p, "vmcnt") in stores]
    claims = stores | set(waits)
    share, _ = view.share(claims)
    if share < STORE_SHARE:
        return []
    widths = sorted({isa.access_bytes(view.ins[q].asm) or 0 for q in stores})
    stalled = hot(view, stores)
    ev: dict = {}
    if stalled:
        w, at_w, w_share = hot_width(view, stalled)
        premise = stalled_premise(view, "finding.store_bound.premise", claims, ev, m=len(at_w),
                                  wshare=_pct(w_share), w=w)
    else:
        w = 0
        premise = stalled_premise(view, "finding.store_bound.premise.waits", claims, ev)
    summary = (f"{_n(len(stores), 'store')} ({'/'.join(str(w) for w in widths)} bytes per lane)"
               + (f" and {_n(len(waits), 'wait')} on {noun(len(stores), 'it', 'them')}" if waits else "")
               + f" {noun(len(stores) + len(waits), 'holds', 'hold')} {_pct(share)} of the stall cycles")
    said = msg("finding.store_bound.summary" + (".waits" if waits else ""), n=len(stores),
               widths="/".join(str(w) for w in widths), waits=len(waits), share=_pct(share))
    # the widening advice only when the stores that stall are narrow (DOMAIN §1.4: the hot path decides)
    advice = msg("finding.store_bound.try" + (".narrow" if narrow(w) else ""))
    if narrow(w):
        suggestion = ("Stores move few bytes per lane: pack the outputs so each lane stores 16 "
                      "contiguous bytes (dwordx4), staging through LDS (cshuffle) if the lane layout "
                      "does not allow it, so fewer store instructions fill the write queue.")
    else:
        suggestion = ("Spread the stores over the epilogue (interleave them with the last compute) and "
                      "make sure each output is written once, in full 64-byte lines.")
    return [_pattern(view, "store_bound", "Store-bound: global stores stall", claims, {
        "summary": summary, "stores": len(stores), "bytes_per_lane": widths, "hot_bytes_per_lane": w,
        "narrow_stores": sum(1 for q in stores if narrow(isa.access_bytes(view.ins[q].asm) or 0)),
        "instructions": view.instr_json(claims, 6), "lines": view.lines_json(stores, 3), **ev,
    }, suggestion, words("store_bound", said, advice), premise)]


@detector("vmem_latency_exposed")
def detect_vmem_latency(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Waits on global loads with nothing to overlap them (after the specific patterns)."""
    waits = [p for p in view.waits("vmcnt") if p not in taken and view.ins[p].stall_cycles > 0
             and view.youngest(p, "vmcnt") is not None]
    if not waits:
        return []
    share, _ = view.share(waits)
    if share < EXPOSED_SHARE:
        return []
    dist = sorted(view.distance(view.youngest(p, "vmcnt"), p) for p in waits)
    median = dist[len(dist) // 2]
    lines = view.lines_json([view.youngest(p, "vmcnt") for p in waits], 3)
    ev: dict = {}
    premise = stalled_premise(view, "finding.vmem_latency_exposed.premise", waits, ev)
    summary = (f"{_n(len(waits), 'vmcnt wait')} at pc {_pc_list(view.pcs(waits))} {noun(len(waits), 'holds', 'hold')} "
               f"{_pct(share)} of the stall cycles, a median {_n(median, 'instruction')} after the load "
               f"{noun(len(waits), 'it waits', 'they wait')} for ({_lines_text(lines)})")
    said = msg("finding.vmem_latency_exposed.summary", n=len(waits), pcs=_pc_list_msg(view.pcs(waits)),
               share=_pct(share), median=median, lines=_lines_msg(lines))
    late = late_loads(view, waits) if straight_line(view, waits) else None
    if late is not None and late[0]:  # the share the suggestion's first sentence acts on (the first step shows it)
        ev["late_loads"] = {"pcs": view.pcs(late[0]), "after_wait_pc": view.pc(late[1]), "wait_pcs": view.pcs(late[2])}
        ev["step_share"] = view.share(late[2])[0]
    return [_pattern(view, "vmem_latency_exposed", "Global-load latency exposed", waits, {
        "summary": summary, "waits": view.instr_json(waits, 6), "load_to_wait_median": median,
        "load_lines": lines, **ev,
    }, *(_latency_advice(view, said) if late is None else _straight_advice(view, said, late, waits)), premise)]


def straight_line(view: KernelView, waits: list[int]) -> bool:
    """Whether the waits sit in no iterating loop of a listing whose loops can be read (code.json carries
    addresses): a wave there has no next row or tile to load early."""
    return any(i.pc_addr for i in view.ins) and not any(view.iterating_loop_of(p) for p in waits)


def run_once(view: KernelView, waits: list[int]) -> bool:
    """Whether some of the waits sit in a loop the waves run once (``KernelView.iterates``): the suggestion
    says so, not that they sit in no loop."""
    return any((loop := view.loop_of(p)) is not None and not view.iterates(loop) for p in waits)


def late_loads(view: KernelView, waits: list[int]) -> tuple[list[int], int | None, list[int]]:
    """Loop-free code: the global loads issued after an earlier vmcnt wait that stalls, whose address reads
    nothing an earlier global load returned (so they could be issued before that wait); with that wait and
    the finding's waits on them. Registers are followed forward: a load's destination is tainted, an
    instruction that reads a tainted register taints what it writes, any other write clears it. A late load
    must also have run as often as that wait (every wave that waited issued it: no branch in between skips
    it). Real cases: quant's load at pc 19 comes after the stalling wait at pc 17, and the wait at pc 65 waits
    on it; pa's loads at pc 298-312 ran 8 times against the wait at pc 9's 56 (48 waves exit at pc 11): none
    of them is late."""
    end = max((q for p in waits for q in view.covered(p, "vmcnt")), default=-1)
    tainted: set = set()
    first_wait, late = None, []
    for p in range(end + 1):
        depends = not view.uses[p].isdisjoint(tainted)
        if view.vmem[p] == "load":
            if first_wait is not None and not depends and view.ins[p].exec_count == view.ins[first_wait].exec_count:
                late.append(p)
            tainted |= view.defs[p]
        elif depends:
            tainted |= view.defs[p]
        else:
            tainted -= view.defs[p]
        if first_wait is None and view.counts[p].get("vmcnt") is not None and view.ins[p].stall_cycles:
            first_wait = p
    on_late = [p for p in waits if set(view.covered(p, "vmcnt")) & set(late)]
    return late if on_late else [], first_wait, on_late


def _straight_advice(view: KernelView, summary, late: tuple[list[int], int | None, list[int]],
                     waits: list[int]) -> tuple[str, dict]:
    """The exposed-latency suggestion in loop-free code: no "software-pipeline the next row or tile" (there is
    none); the loads the data shows issued after a stalling wait they do not need, else more bytes per wave."""
    loads, wait, on_late = late
    if loads:
        share = _pct(view.share(on_late)[0])
        stores = len({q for p in on_late for q in view.covered(p, "vmcnt") if view.vmem[q] == "store"})
        params = {"n": len(loads), "pcs": _pcs_msg(view.pcs(loads)), "wait": view.pc(wait),
                  "wpcs": _pcs_msg(view.pcs(on_late)), "share": share, **({"stores": stores} if stores else {})}
        head_key = "finding.vmem_latency_exposed.head.late" + (".stores" if stores else "")
        also = f" (and on {_n(stores, 'store')} issued before them)" if stores else ""
        head = (f"Issue the {_n(len(loads), 'global load')} at pc {_pcs_text(view.pcs(loads))} before the wait at pc "
                f"{view.pc(wait)}, so the round trips overlap the earlier loads' instead of following them. Their "
                f"addresses read nothing an earlier load returns; {share} of the stall cycles wait on them{also} at pc "
                f"{_pcs_text(view.pcs(on_late))}, the rest on the first loads' round trip, which only more bytes in "
                "flight per wave hide.")
    elif run_once(view, waits):
        params, head_key = {}, "finding.vmem_latency_exposed.head.once"
        head = ("Keep more bytes in flight per wave before the first wait: each wave runs the loop holding the waits "
                "once at the profiled shape, so it has no next row or tile to load early; give each wave more of the "
                "data, its loads issued before the first wait.")
    else:
        params, head_key = {}, "finding.vmem_latency_exposed.head.straight"
        head = ("Keep more bytes in flight per wave before the first wait: the waits sit in no loop, so a wave has "
                "no next row or tile to load early; give each wave more of the data, its loads issued before the first wait.")
    tail, tail_msg = _waves_tail(view)
    text = head + (" " + tail if tail else "")
    parts = msg(head_key, **params)
    return text, words("vmem_latency_exposed", summary,
                       msg("finding.vmem_latency_exposed.try.parts", head=parts, tail=tail_msg) if tail else parts)


def _waves_tail(view: KernelView) -> tuple[str, object]:
    """What more resident waves can do for exposed latency (``waves_reading``), as a sentence of its own;
    ("", None) when the occupancy is unknown."""
    reading = waves_reading(view)
    if reading is None:
        return "", None
    case, nums = reading
    if case == "at_max":  # the sentence names the maximum only
        nums = {"max": nums["max"]}
    key = f"finding.vmem_latency_exposed.waves.{case}"
    return english(key, **nums), msg(key, **nums)


def waves_reading(view: KernelView) -> tuple[str, dict] | None:
    """Whether more resident waves can hide exposed latency: ("grid", ...) where the grid, not a resource, sets
    them; ("at_max", ...) at the hardware maximum; ("more", ...) below it; None when the occupancy is unknown.

    The waves resident are the fewer of what the resources allow and what the traced grid gives its
    busiest CU: a cap the grid never reaches is not what runs (rmsnorm: the cap allows 8, its 1024
    workgroups of 4 waves give each SIMD 4; fused_rope_cache: 8 and 1), and there only a launch with
    more workgroups adds waves."""
    occ = view.occupancy
    if occ is None:
        return None
    if occ.resident < min(occ.waves_per_simd, occ.max_waves):
        return "grid", {"waves": occ.resident, "cap": occ.waves_per_simd, "max": occ.max_waves}
    return ("at_max" if occ.at_hardware_max else "more"), {"waves": occ.waves_per_simd, "max": occ.max_waves}


def _latency_advice(view: KernelView, summary) -> tuple[str, dict]:
    """The exposed-latency suggestion: "more resident waves also hide it" only when the occupancy is
    known and below the hardware maximum; at the maximum it says so, and unknown it makes no claim
    (``waves_reading``)."""
    reading = waves_reading(view)
    head = ("Issue the loads earlier (software-pipeline the next row or tile before processing this one) "
            "and keep more bytes in flight per wave before the first wait")
    if reading is None:
        return head + ".", words("vmem_latency_exposed", summary,
                                 msg("finding.vmem_latency_exposed.try.occupancy_unknown"))
    case, nums = reading
    if case == "grid":
        return (head + f"; the grid, not a resource, sets the resident waves: it gives the busiest CU {nums['waves']} "
                f"per SIMD while the resources allow {nums['cap']} of the hardware's {nums['max']}, so only "
                "a launch with more workgroups adds waves to hide it."), \
            words("vmem_latency_exposed", summary, msg("finding.vmem_latency_exposed.try.grid", **nums))
    if case == "at_max":
        return (head + f"; the kernel already runs the hardware maximum of {nums['max']} waves per SIMD, so "
                "more resident waves cannot hide it: each wave must keep more loads in flight."), \
            words("vmem_latency_exposed", summary, msg("finding.vmem_latency_exposed.try.at_max", **nums))
    return (head + f"; more resident waves also hide it (now {nums['waves']} of the hardware's "
            f"{nums['max']} per SIMD)."), words("vmem_latency_exposed", summary,
                                                 msg("finding.vmem_latency_exposed.try", **nums))
