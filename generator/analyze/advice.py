"""Optimization advice: recognize known hotspot patterns in an ATT analysis, rank a plan.

An expert reads a stall table by asking, for each wait, *what it waits for*. This
module does the same on the instruction list of a ``CaptureAnalysis``:

* every ``s_waitcnt`` is tied to the memory operations it completes (the counters
  are FIFO: ``vmcnt(N)`` completes all but the N youngest outstanding VMEM ops), and
  its stall is blamed on the *youngest* of them, the one that arrives last;
* registers written by those operations lead to their first consumer (an MFMA, a
  scaling multiply, an LDS read...), which names the pattern (DOMAIN §1.4).

Detectors are small functions registered in order in ``DETECTORS``. Each takes a
``KernelView`` (the analysis plus derived facts and an optional ``AdviceContext``)
and the instruction positions already claimed by earlier detectors, and returns
``Finding``s. ``advise`` runs them in registry order so that a stall cycle is
explained once, by the most specific pattern, and ranks the result:

* *pattern* findings own stall cycles; they are ranked by their share of all
  stall cycles (highest first), as the taxonomy ranks stall types;
* *limit* findings (occupancy, grid size) own no stall cycles (share 0.0); they
  follow the patterns, by priority;
* *flagged* findings (the decorator-line artifact, framework intrinsic lines) say
  how to read the line table; they are not ranked.

Example (flash_attn_func, primary capture): the four ``s_waitcnt vmcnt(0)`` right
after the ``buffer_load_dwordx4 ... lds`` tile loads hold 25.0 % of all stall
cycles -> "s_waitcnt vmcnt(0) drains after DMA-to-LDS loads", ranked first; the
occupancy finding says 248 VGPRs give 2 waves/SIMD and a third needs <= 168.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from generator.analyze import isa
from generator.model import UNKNOWN_LOC, Bundle, CaptureAnalysis, Instruction, Occupancy

#: Pattern findings below this share of the stall cycles are noise, not advice.
MIN_SHARE = 0.02
#: Share thresholds of the priorities of pattern findings.
HIGH_SHARE = 0.20
MEDIUM_SHARE = 0.05
PRIORITIES = ("high", "medium", "low", "info")
#: Path pieces that mark a framework / library source line (not the kernel's own code).
FRAMEWORK_MARKERS = ("/site-packages/", "/dist-packages/", "/python_packages/", "/lib/python3")
#: Achieved / peak HBM bandwidth from which a kernel streams at the roofline (DOMAIN §2:
#: 50-60 % of peak is normal for clean streaming).
STREAMING_BW_FRACTION = 0.50
#: Share of stall cycles in VMEM types (wait, load, store) for a memory-bound reading.
STREAMING_VMEM_SHARE = 0.50
#: Without a bandwidth figure: VMEM stall share and vector instructions per byte moved
#: below which a kernel without MFMA is "likely streaming".
LIKELY_STREAMING_SHARE = 0.80
LIKELY_STREAMING_OPS = 0.05
#: Barrier share from which a kernel is barrier-dominated (or barrier is the top type).
BARRIER_SHARE = 0.20
#: Store share (own issue stalls + waits on stores) from which a kernel is store-bound.
STORE_SHARE = 0.10
#: Unexplained VMEM waits from which "latency exposed" is reported.
EXPOSED_SHARE = 0.10
#: A load run: at least this many VMEM loads, at most GAP other instructions apart.
RUN_MIN_LOADS = 4
RUN_MAX_GAP = 6
#: Stall rate (stall / total cycles) of loads that marks an issue-blocked load.
LOAD_STALL_RATE = 0.50
#: "Consumed at once": the consumer sits at most this many instructions after the wait.
AT_ONCE = 4
#: How far (instructions) to look for a consumer / walk back for a wait's operations.
CONSUMER_WINDOW = 256
WAIT_SCAN = 1024
#: Fewer resident waves per SIMD than this means the grid cannot hide latency.
GRID_MIN_WAVES_PER_SIMD = 2
SIMDS_PER_CU = 4
SCALE_MATH = ("v_mul_", "v_pk_mul_", "v_fma_", "v_pk_fma_", "v_fmac_", "v_mul_legacy", "v_fma_mix")


# ---------------------------------------------------------------- data

@dataclass
class AdviceContext:
    """Optional facts beyond the ATT analysis (all optional; ``context_for`` fills them)."""

    occupancy: Occupancy | None = None  # default: the analysis' own
    counters: Any = None  # generator.analyze.pmc.PmcResult
    verdict: Any = None  # "HEADROOM" or a verdict object with .verdict
    geomean: float | None = None
    grid: tuple[int, int, int] | None = None  # work-items (rocprof Grid_Size_X/Y/Z)
    workgroup: tuple[int, int, int] | None = None
    cu_count: int | None = None
    simds_per_cu: int = SIMDS_PER_CU  # SIMDs per CU (AMD) or sub-partitions per SM (NVIDIA)
    wave_size: int = isa.WAVE_SIZE  # 64 on CDNA, 32 (a warp) on NVIDIA
    kernel_time_ns: float | None = None  # median over the trace dispatches of the captured grid
    peak_tbs: float | None = None
    peak_name: str | None = None
    lds_total: int | None = None  # LDS bytes per CU
    max_waves: int | None = None  # waves per SIMD the hardware allows
    grid_source: str | None = None  # where grid and time come from (the trace row)
    bundle: Bundle | None = None  # read the kernel trace / agent info from it when given
    notes: list[str] = field(default_factory=list)

    @property
    def workgroups(self) -> int | None:
        """Workgroups of the dispatch (ceil per dimension)."""
        if not self.grid or not self.workgroup:
            return None
        n = 1
        for g, w in zip(self.grid, self.workgroup):
            n *= -(-g // max(w, 1))
        return n

    @property
    def waves_per_workgroup(self) -> int | None:
        if not self.workgroup:
            return None
        threads = self.workgroup[0] * self.workgroup[1] * self.workgroup[2]
        return -(-threads // self.wave_size)


@dataclass
class Finding:
    """One piece of advice: a pattern with its evidence, share and suggested change."""

    detector: str
    title: str
    stall_share: float  # of all stall cycles (exclusive: each cycle is explained once)
    evidence: dict[str, Any]  # JSON-able; "summary" is the one-line reading
    suggestion: str
    priority: str  # high, medium, low, info
    kind: str = "pattern"  # pattern, limit, flag
    stall_cycles: int = 0
    claims: frozenset[int] = frozenset()  # instruction positions whose stall it owns

    @property
    def flagged(self) -> bool:
        return self.kind == "flag"

    @property
    def ranked(self) -> bool:
        return self.kind != "flag"

    @property
    def summary(self) -> str:
        return str(self.evidence.get("summary", ""))

    def to_json(self) -> dict[str, Any]:
        """``{detector, title, stall_share, evidence, suggestion, priority, flagged, ranked}``."""
        return {
            "detector": self.detector,
            "title": self.title,
            "stall_share": self.stall_share,
            "stall_cycles": self.stall_cycles,
            "evidence": self.evidence,
            "suggestion": self.suggestion,
            "priority": self.priority,
            "kind": self.kind,
            "flagged": self.flagged,
            "ranked": self.ranked,
        }


@dataclass
class MfmaNote:
    """Pipeline latency of one MFMA and how soon its result is read."""

    pc_index: int
    mnemonic: str
    latency: int  # cycles
    source: str  # where the latency comes from (DOMAIN table or inferred)
    independent_needed: int  # independent instructions that cover the latency
    dependent_pc: int | None  # first instruction reading the result (straight-line)
    independent_between: int | None  # instructions (s_nop N counts N+1) before that read
    dependent_kind: str | None  # "accumulate" (srcC of the next MFMA) or "read"
    short: bool  # the dependent read comes too soon (not an accumulator chain)
    text: str

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "pc_index", "mnemonic", "latency", "source", "independent_needed", "dependent_pc",
            "independent_between", "dependent_kind", "short", "text")}


@dataclass
class SweepFinding:
    """One line of the sweep's findings page: kernels that share a limiter or a pattern."""

    key: str  # "limiter:VGPR", "pattern:lds_dma_drain"
    kind: str  # limiter, pattern
    title: str
    kernels: list[str]
    per_kernel: dict[str, str]  # kernel -> display detail ("25.0 %", "2 waves/SIMD")
    headroom_share: float | None  # of the sweep's headroom (see sweep_findings)
    headroom_kernels: list[str]  # members that are HEADROOM
    text: str
    priority: str

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "key", "kind", "title", "kernels", "per_kernel", "headroom_share",
            "headroom_kernels", "text", "priority")}


# ---------------------------------------------------------------- the kernel view

class KernelView:
    """An analysis plus the derived facts detectors share (loops, registers, waits)."""

    def __init__(self, analysis: CaptureAnalysis, context: AdviceContext | None = None):
        self.analysis = analysis
        self.context = context or AdviceContext()
        self.ins: list[Instruction] = list(analysis.instructions)
        self.total_stall = analysis.total_stall_cycles or sum(i.stall_cycles for i in self.ins)
        self.loops = isa.loops(self.ins)
        self.mnemonics = [isa.mnemonic(i.asm) for i in self.ins]
        du = [isa.defs_uses(i.asm) for i in self.ins]
        self.defs = [d for d, _ in du]
        self.uses = [u for _, u in du]
        self.counts = [isa.wait_counts(i.asm) if m.startswith("s_waitcnt") else {}
                       for i, m in zip(self.ins, self.mnemonics)]
        self.vmem = [isa.vmem_kind(i.asm) for i in self.ins]
        self.lgkm = [isa.lgkm_kind(i.asm) for i in self.ins]
        self.mfma = [isa.is_mfma(i.asm) for i in self.ins]
        self.has_mfma = any(self.mfma)
        self._covered: dict[tuple[int, str], list[int]] = {}

    @property
    def occupancy(self) -> Occupancy | None:
        return self.context.occupancy or self.analysis.occupancy

    # -- shares and evidence

    def share(self, positions: Iterable[int]) -> tuple[float, int]:
        """(share of all stall cycles, stall cycles) of some instruction positions."""
        cycles = sum(self.ins[p].stall_cycles for p in set(positions))
        return (cycles / self.total_stall if self.total_stall else 0.0), cycles

    def pc(self, pos: int) -> int:
        return self.ins[pos].pc_index

    def instr_json(self, positions: Iterable[int], top: int = 5) -> list[dict[str, Any]]:
        """The ``top`` most stalled instructions of ``positions`` (pc, asm, cycles, share, line)."""
        ranked = sorted(set(positions), key=lambda p: (-self.ins[p].stall_cycles, p))[:top]
        out = []
        for p in sorted(ranked, key=lambda p: (-self.ins[p].stall_cycles, p)):
            ins = self.ins[p]
            out.append({
                "pc": ins.pc_index,
                "asm": ins.asm,
                "stall_cycles": ins.stall_cycles,
                "share": ins.stall_cycles / self.total_stall if self.total_stall else 0.0,
                "source": ins.source_loc,
            })
        return out

    def lines_json(self, positions: Iterable[int], top: int = 5) -> list[dict[str, Any]]:
        """Source lines of ``positions`` ranked by the stall they hold there."""
        by_line: dict[str, list[int]] = {}
        for p in set(positions):
            loc = self.ins[p].source_loc or UNKNOWN_LOC
            by_line.setdefault(loc, [0, 0])
            by_line[loc][0] += self.ins[p].stall_cycles
            by_line[loc][1] += 1
        ranked = sorted(by_line.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
        return [{"source": loc, "stall_cycles": c, "instructions": n,
                 "framework": is_framework_path(loc)} for loc, (c, n) in ranked]

    def pcs(self, positions: Iterable[int]) -> list[int]:
        return sorted(self.ins[p].pc_index for p in set(positions))

    # -- waits and data flow

    def loop_of(self, pos: int) -> tuple[int, int] | None:
        return isa.innermost_loop(self.loops, pos)

    def waits(self, counter: str) -> list[int]:
        """Positions of the ``s_waitcnt`` that wait on ``counter``."""
        return [p for p, c in enumerate(self.counts) if counter in c]

    def covered(self, pos: int, counter: str) -> list[int]:
        """Operations (youngest first) the wait at ``pos`` completes on ``counter``.

        Walk back in program order: skip the N youngest operations (``vmcnt(N)``), take
        the older ones; a previous wait with limit N' leaves at most N' operations
        before it outstanding, a previous wait with limit 0 nothing. Inside a loop, the
        walk continues from the loop's back edge (the previous iteration).
        """
        key = (pos, counter)
        if key in self._covered:
            return self._covered[key]
        limit = self.counts[pos].get(counter)
        out: list[int] = []
        if limit is None:
            self._covered[key] = out
            return out
        loop = self.loop_of(pos)
        k, wrapped, skipped, budget, steps = pos - 1, False, 0, None, 0
        while steps < WAIT_SCAN:
            steps += 1
            if k < 0 or (loop and not wrapped and k < loop[0]):
                if loop and not wrapped:
                    k, wrapped = loop[1], True
                    continue
                break
            if wrapped and k <= pos:
                break
            counted = (self.vmem[k] if counter == "vmcnt" else self.lgkm[k]) is not None
            if counted:
                if skipped < limit:
                    skipped += 1
                else:
                    out.append(k)
                if budget is not None:
                    budget -= 1
                    if budget <= 0:
                        break
            else:
                prev = self.counts[k].get(counter)
                if prev is not None:
                    if prev == 0:
                        break
                    budget = prev if budget is None else min(budget, prev)
            k -= 1
        self._covered[key] = out
        return out

    def youngest(self, pos: int, counter: str) -> int | None:
        """The youngest operation a wait completes: the one its stall is blamed on."""
        ops = self.covered(pos, counter)
        return ops[0] if ops else None

    def consumer(self, start: int, regs: set, window: int = CONSUMER_WINDOW) -> int | None:
        """First instruction after ``start`` that reads one of ``regs`` (straight line)."""
        if not regs:
            return None
        for p in range(start + 1, min(len(self.ins), start + 1 + window)):
            if self.uses[p] & regs:
                return p
            if self.mnemonics[p] == "s_endpgm":
                return None
        return None

    def distance(self, a: int, b: int) -> int:
        """Instructions from ``a`` to ``b`` in execution order (``a`` may be last iteration's)."""
        if a <= b:
            return b - a
        loop = self.loop_of(b)
        if loop and loop[0] <= a <= loop[1]:
            return (loop[1] - a + 1) + (b - loop[0])
        return b - a

    def regs_of(self, positions: Iterable[int]) -> set:
        out: set = set()
        for p in positions:
            out |= self.defs[p]
        return out

    def wait_consumer(self, pos: int, counter: str) -> int | None:
        """First reader, after the wait, of what the wait's operations loaded."""
        return self.consumer(pos, self.regs_of(self.covered(pos, counter)))


def is_framework_path(source_loc: str) -> bool:
    """True when a source line lives in an installed framework/library, not the kernel."""
    loc = source_loc.replace("\\", "/")
    return any(m in loc for m in FRAMEWORK_MARKERS)


def short_loc(source_loc: str) -> str:
    """``/a/b/kernel.py:42`` -> ``kernel.py:42`` for text (JSON keeps the full path)."""
    return source_loc.rsplit("/", 1)[-1] if source_loc else UNKNOWN_LOC


def _n(count: int, word: str, plural: str | None = None) -> str:
    """``3 waits``, ``1 wait``."""
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _waves(n: int | float) -> str:
    return f"{n} wave{'' if n == 1 else 's'}/SIMD"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pc_list(pcs: list[int], limit: int = 6) -> str:
    shown = ", ".join(str(p) for p in pcs[:limit])
    return shown + (f" (+{len(pcs) - limit} more)" if len(pcs) > limit else "")


def _lines_text(lines: list[dict[str, Any]], limit: int = 3, framework: bool = False) -> str:
    return ", ".join(short_loc(ln["source"]) + (" (framework)" if framework and ln.get("framework") else "")
                     for ln in lines[:limit])


def pattern_priority(share: float) -> str:
    """Priority of a pattern finding from its stall share."""
    if share >= HIGH_SHARE:
        return "high"
    if share >= MEDIUM_SHARE:
        return "medium"
    return "low"


def _pattern(view: KernelView, detector: str, title: str, claims: Iterable[int],
             evidence: dict[str, Any], suggestion: str) -> Finding:
    claims = frozenset(claims)
    share, cycles = view.share(claims)
    return Finding(detector=detector, title=title, stall_share=share, evidence=evidence,
                   suggestion=suggestion, priority=pattern_priority(share), kind="pattern",
                   stall_cycles=cycles, claims=claims)


# ---------------------------------------------------------------- registry

@dataclass(frozen=True)
class Detector:
    """A registered detector: its name, what it yields, and the function."""

    name: str
    kind: str  # pattern, limit, flag
    fn: Callable[..., list[Finding]]
    doc: str


DETECTORS: list[Detector] = []


def detector(name: str, kind: str = "pattern"):
    """Register a detector function under ``name`` (registry order = claiming order)."""
    def wrap(fn):
        DETECTORS.append(Detector(name=name, kind=kind, fn=fn,
                                  doc=(fn.__doc__ or "").strip().splitlines()[0]))
        return fn
    return wrap


def get_detector(name: str) -> Detector:
    """The registered detector called ``name``."""
    for d in DETECTORS:
        if d.name == name:
            return d
    raise KeyError(name)


# ---------------------------------------------------------------- flags

def _mixed_types(stall_by_type: dict[str, int], total: int, floor: float = 0.10) -> list[str]:
    return sorted((t for t, c in stall_by_type.items() if total and c / total >= floor),
                  key=lambda t: (-stall_by_type[t], t))


@detector("decorator_line", kind="flag")
def detect_decorator_line(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The kernel's entry/decorator line tops the table with mixed stall types (artifact)."""
    a = view.analysis
    n_ins = len(view.ins)
    if not n_ins:
        return []
    sizes = sorted((len(ln.pc_indices) for ln in a.lines), reverse=True)
    entry_loc = view.ins[0].source_loc
    hot = [ln for ln in a.lines if ln.stall_cycles > 0 and ln.source_loc != UNKNOWN_LOC][:3]
    for ln in hot:
        n = len(ln.pc_indices)
        catch_all = n >= 0.25 * n_ins and n == sizes[0]
        mixed = _mixed_types(ln.stall_by_type, ln.stall_cycles)
        if not (catch_all or ln.source_loc == entry_loc) or len(mixed) < 2 or ln.share < MEDIUM_SHARE:
            continue
        real = [x for x in a.lines if x.stall_cycles > 0 and x.source_loc not in (ln.source_loc, UNKNOWN_LOC)
                and not is_framework_path(x.source_loc)][:3]
        why = []
        if ln.source_loc == entry_loc:
            why.append("the kernel's first instruction")
        if catch_all:
            why.append(f"{n} of {n_ins} instructions")
        mix = ", ".join(f"{t} {_pct(ln.stall_by_type[t] / ln.stall_cycles)}" for t in mixed)
        summary = (f"{short_loc(ln.source_loc)} holds {' and '.join(why)}; its {_pct(ln.share)} of the stall "
                   f"cycles mix {mix}")
        return [Finding(
            detector="decorator_line",
            title=f"Entry/decorator line {short_loc(ln.source_loc)} is a debug-info artifact",
            stall_share=ln.share,
            stall_cycles=ln.stall_cycles,
            evidence={
                "summary": summary,
                "source": ln.source_loc,
                "line_share": ln.share,
                "instructions": n,
                "kernel_instructions": n_ins,
                "entry_line": ln.source_loc == entry_loc,
                "types": {t: ln.stall_by_type[t] for t in mixed},
                "real_op_lines": [{"source": x.source_loc, "share": x.share,
                                   "dominant_type": x.dominant_type} for x in real],
            },
            suggestion=("Do not optimize this line: the compiler attributes the waits, address math "
                        "and loop control it cannot map elsewhere to the kernel's entry. Read the "
                        "instruction-level findings and the real op lines"
                        + (f" ({_lines_text([{'source': x.source_loc} for x in real])})" if real else "")
                        + " instead."),
            priority="info",
            kind="flag",
        )]
    return []


@detector("framework_line", kind="flag")
def detect_framework_line(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """A framework/library intrinsic line holds a large share of the stall cycles."""
    a = view.analysis
    out = []
    for ln in [x for x in a.lines if x.stall_cycles > 0][:5]:
        if ln.share < 0.10 or not is_framework_path(ln.source_loc):
            continue
        positions = [p for p, i in enumerate(view.ins) if i.source_loc == ln.source_loc]
        catch_all = max(a.lines, key=lambda x: (len(x.pc_indices), x.source_loc)).source_loc
        callers: dict[str, int] = {}
        for p in positions:
            if view.ins[p].stall_cycles == 0:
                continue
            # The nearest kernel line before the hot instruction, skipping the catch-all
            # entry line (it is everywhere) unless nothing else is near.
            near = [view.ins[q].source_loc for q in range(p - 1, max(-1, p - 65), -1)
                    if view.ins[q].source_loc != UNKNOWN_LOC and not is_framework_path(view.ins[q].source_loc)]
            pick = next((loc for loc in near if loc != catch_all), near[0] if near else None)
            if pick:
                callers[pick] = callers.get(pick, 0) + view.ins[p].stall_cycles
        near = [loc for loc, _ in sorted(callers.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
        top = view.instr_json(positions, 3)
        what = top[0]["asm"] if top else ln.dominant_type
        summary = (f"{short_loc(ln.source_loc)} holds {_pct(ln.share)} of the stall cycles, "
                   f"mostly {ln.dominant_type} ({what})"
                   + (f"; nearest kernel lines before it: {', '.join(short_loc(x) for x in near)}" if near else ""))
        out.append(Finding(
            detector="framework_line",
            title=f"Hot samples on a framework intrinsic line {short_loc(ln.source_loc)}",
            stall_share=ln.share,
            stall_cycles=ln.stall_cycles,
            evidence={"summary": summary, "source": ln.source_loc, "line_share": ln.share,
                      "dominant_type": ln.dominant_type, "instructions": top,
                      "nearby_kernel_lines": near},
            suggestion=("The stall belongs to the kernel code that inlined this helper: the instruction "
                        "findings name what it waits for; change the call site"
                        + (f" ({', '.join(short_loc(x) for x in near)})" if near else "")
                        + ", not the framework line."),
            priority="info",
            kind="flag",
        ))
    return out


# ---------------------------------------------------------------- memory patterns

@detector("lds_dma_drain")
def detect_lds_dma_drain(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """``s_waitcnt vmcnt(0)`` drains the whole queue right after DMA-to-LDS loads."""
    waits, dma = [], set()
    for p in view.waits("vmcnt"):
        if p in taken or view.counts[p]["vmcnt"] != 0:
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
    summary = (f"{_n(len(waits), 's_waitcnt vmcnt(0)', 's_waitcnt vmcnt(0)')} at pc {_pc_list(pcs)} waiting for {len(dma)} "
               f"buffer_load...lds (DMA to LDS) at {_lines_text(dma_lines)}; they hold {_pct(share)} "
               f"of the stall cycles")
    return [_pattern(view, "lds_dma_drain", "s_waitcnt vmcnt(0) drains after DMA-to-LDS loads", waits, {
        "summary": summary,
        "waits": view.instr_json(waits, 6),
        "wait_pcs": pcs,
        "dma_loads": len(dma),
        "dma_load_pcs": view.pcs(dma),
        "dma_load_lines": dma_lines,
    }, ("Each vmcnt(0) waits for every outstanding DMA load, including the tile not needed yet: wait "
        "with vmcnt(N) for just the tile about to be read (N = loads issued after it) and double-buffer "
        "LDS so the next tile's buffer_load...lds overlaps this tile's MFMAs."))]


def _scale_load(view: KernelView, q: int) -> int | None:
    """The scaling consumer of load ``q`` when it loads a scale (narrow, read by scale math)."""
    if view.vmem[q] != "load" or (isa.access_bytes(view.ins[q].asm) or 16) > 8:
        return None
    c = view.consumer(q, view.defs[q])
    if c is None:
        return None
    m = view.mnemonics[c]
    if view.mfma[c]:
        ops, _ = isa.split_operands(view.ins[c].asm)
        scale_regs = set()
        for op in ops[4:]:
            scale_regs.update(isa.registers(op))
        return c if scale_regs & view.defs[q] else None
    return c if m.startswith(SCALE_MATH) else None


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
    summary = (f"{_n(len(waits), 'wait')} at pc {_pc_list(view.pcs(waits))} stall on scale loads "
               f"({_lines_text(lines)}) used {dist[0]}-{dist[-1]} instructions after issue; "
               f"{_pct(share)} of the stall cycles")
    return [_pattern(view, "late_scale_loads", "Scale loads issued too close to their use", waits, {
        "summary": summary,
        "pairs": pairs[:6],
        "scale_load_pcs": view.pcs(loads),
        "scale_load_lines": lines,
        "waits": view.instr_json(waits, 6),
    }, ("Issue the scale loads at the start of the block (before the tile loads), or one iteration "
        "ahead, so the scales are resident when the scaling multiply needs them."))]


@detector("lds_read_into_mfma")
def detect_lds_read_into_mfma(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """An LDS read is consumed right away by an MFMA: the MFMA waits on lgkmcnt."""
    if not view.has_mfma:
        return []
    waits, reads, examples = [], set(), []
    for p in view.waits("lgkmcnt"):
        if p in taken:
            continue
        y = view.youngest(p, "lgkmcnt")
        if y is None or not view.mnemonics[y].startswith(("ds_read", "ds_load")):
            continue
        c = view.consumer(p, view.defs[y], window=AT_ONCE + 1)
        if c is None or not view.mfma[c]:
            continue
        waits.append(p)
        reads.update(view.covered(p, "lgkmcnt"))
        examples.append({"read_pc": view.pc(y), "wait_pc": view.pc(p), "mfma_pc": view.pc(c),
                         "read_to_mfma": view.distance(y, c), "wait_stall_cycles": view.ins[p].stall_cycles})
    if not waits:
        return []
    examples.sort(key=lambda d: (-d["wait_stall_cycles"], d["wait_pc"]))
    gaps = sorted(d["read_to_mfma"] for d in examples)
    share, _ = view.share(waits)
    lines = view.lines_json(waits, 3)
    summary = (f"{_n(len(waits), 'lgkmcnt wait')} at pc {_pc_list(view.pcs(waits))} ({_lines_text(lines)}) sit "
               f"between a ds_read and the MFMA that reads it {gaps[0]}-{gaps[-1]} instructions later; "
               f"{_pct(share)} of the stall cycles")
    return [_pattern(view, "lds_read_into_mfma", "LDS reads consumed at once by MFMA (lgkmcnt stalls)",
                     waits, {
                         "summary": summary,
                         "examples": examples[:6],
                         "waits": view.instr_json(waits, 6),
                         "lines": lines,
                         "lds_reads": len(reads),
                     }, ("Issue all LDS reads of the k-step first, then count lgkmcnt down (N-1, N-2, ...) "
                         "so each MFMA reads data loaded several instructions earlier; keep the next "
                         "k-step's reads in flight while this one's MFMAs run."))]


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
                 and q not in taken and q not in loads]
        if inner:
            loads.update(inner)
            loops.append((lo, hi, len(mf), len(inner)))
    if not loads:
        return []
    rate = _load_rate(view, loads)
    if rate < LOAD_STALL_RATE:
        return []
    waits = _vmcnt_waits_on(view, loads, taken)
    claims = set(loads) | set(waits)
    share, _ = view.share(claims)
    lo, hi, n_mf, n_ld = max(loops, key=lambda t: (t[3], -t[0]))
    summary = (f"{len(loads)} loads between MFMAs of the loop at pc {view.pc(lo)}-{view.pc(hi)} "
               f"({n_mf} MFMA) stall {_pct(rate)} of their cycles"
               + (f"; {_n(len(waits), 'wait')} in the same loop on them" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    return [_pattern(view, "loads_interleaved_with_mfma", "VMEM loads interleaved with MFMA in the loop",
                     claims, {
                         "summary": summary,
                         "loops": [{"first_pc": view.pc(a), "last_pc": view.pc(b), "mfma": m, "loads": n}
                                   for a, b, m, n in loops],
                         "load_stall_rate": rate,
                         "loads": view.instr_json(loads, 6),
                         "wait_pcs": view.pcs(waits),
                         "lines": view.lines_json(loads, 3),
                     }, ("Batch the tile's loads before the MFMA block (or at the end of the previous "
                         "iteration) so the MFMAs run uninterrupted and the loads stop blocking issue."))]


def load_runs(view: KernelView, taken: frozenset = frozenset()) -> list[list[int]]:
    """Runs of >= RUN_MIN_LOADS VMEM loads with no MFMA or wait between them."""
    runs, cur, gap = [], [], 0
    for p, ins in enumerate(view.ins):
        if view.vmem[p] in ("load", "lds_dma") and p not in taken:
            cur.append(p)
            gap = 0
            continue
        breaks = view.mfma[p] or view.counts[p] or view.mnemonics[p].startswith(("s_barrier", "s_endpgm",
                                                                                  "s_branch", "s_cbranch"))
        gap += 1
        if breaks or gap > RUN_MAX_GAP:
            if len(cur) >= RUN_MIN_LOADS:
                runs.append(cur)
            cur, gap = [], 0
    if len(cur) >= RUN_MIN_LOADS:
        runs.append(cur)
    return runs


@detector("back_to_back_loads")
def detect_back_to_back_loads(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Loads issued back to back with no compute between: the VMEM queue saturates."""
    runs = load_runs(view, taken)
    loads = {q for r in runs for q in r}
    if not loads:
        return []
    rate = _load_rate(view, loads)
    if rate < LOAD_STALL_RATE:
        return []
    # In an MFMA kernel, waiting for a tile in the iteration that loaded it means no
    # prefetch distance; elsewhere the waits are plain memory latency (later detectors).
    waits = _vmcnt_waits_on(view, loads, taken) if view.has_mfma else []
    claims = loads | set(waits)
    share, _ = view.share(claims)
    widths = sorted({isa.access_bytes(view.ins[q].asm) or 0 for q in loads})
    narrow = [q for q in loads if (isa.access_bytes(view.ins[q].asm) or 16) < 16]
    biggest = max(runs, key=lambda r: (len(r), -r[0]))
    summary = (f"{_n(len(runs), 'run')} of back-to-back loads ({len(loads)} loads, longest {len(biggest)} at pc "
               f"{view.pc(biggest[0])}-{view.pc(biggest[-1])}, {'/'.join(str(w) for w in widths)} bytes "
               f"per lane) stall {_pct(rate)} of their issue cycles"
               + (f"; {_n(len(waits), 'wait')} on them" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    if view.has_mfma:
        suggestion = ("Prefetch the next tile during this tile's MFMAs (double buffering) so the loads "
                      "spread over the compute instead of filling the VMEM queue at once.")
    elif narrow and len(narrow) * 2 >= len(loads):
        w = min(isa.access_bytes(view.ins[q].asm) or 16 for q in narrow)
        suggestion = (f"The loads move {w} bytes per lane each: have each lane load 16 contiguous bytes "
                      f"(dwordx4) so {16 // max(w, 1)}x fewer load instructions carry the same bytes and "
                      "the VMEM queue stops saturating.")
    else:
        suggestion = ("Interleave independent work between the loads or split them into two waves of "
                      "loads so the VMEM queue does not saturate while the wave has nothing to issue.")
    return [_pattern(view, "back_to_back_loads", "Back-to-back VMEM loads saturate the queue", claims, {
        "summary": summary,
        "runs": [{"first_pc": view.pc(r[0]), "last_pc": view.pc(r[-1]), "loads": len(r),
                  "stall_cycles": sum(view.ins[q].stall_cycles for q in r)} for r in runs[:8]],
        "load_stall_rate": rate,
        "bytes_per_lane": widths,
        "narrow_loads": len(narrow),
        "loads": view.instr_json(loads, 6),
        "wait_pcs": view.pcs(waits),
        "lines": view.lines_json(loads, 3),
    }, suggestion)]


def _serialized_steps(view: KernelView, ops: list[int], window: int = 8) -> int:
    """Cross-lane ops whose input depends on the previous cross-lane op's result."""
    opset = set(ops)
    steps = 0
    for p in ops:
        tainted = set(view.defs[p])
        for q in range(p + 1, min(len(view.ins), p + 1 + window)):
            if view.uses[q] & tainted:
                if q in opset:
                    steps += 1
                    break
                tainted |= view.defs[q]
    return steps


@detector("cross_lane_reduction")
def detect_cross_lane_reduction(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Serialized cross-lane reduction steps (ds_swizzle/bpermute, v_permlane, DPP) stall."""
    ops = [p for p, i in enumerate(view.ins) if isa.is_cross_lane(i.asm)]
    if len(ops) < 2:
        return []
    steps = _serialized_steps(view, ops)
    if steps == 0:
        return []
    ds_ops = {p for p in ops if view.mnemonics[p].startswith(isa.CROSS_LANE_DS)}
    waits = [p for p in view.waits("lgkmcnt") if p not in taken and view.youngest(p, "lgkmcnt") in ds_ops]
    own = [p for p in ops if p not in taken]
    claims = set(own) | set(waits)
    share, _ = view.share(claims)
    kinds: dict[str, int] = {}
    for p in ops:
        m = view.mnemonics[p]
        key = m if not m.startswith("v_") or m.startswith("v_permlane") else "DPP"
        kinds[key] = kinds.get(key, 0) + 1
    summary = (f"{len(ops)} cross-lane ops ({', '.join(f'{k} x{n}' for k, n in sorted(kinds.items()))}), "
               f"{steps} of them waiting on the previous step"
               + (f", {_n(len(waits), 'lgkmcnt wait')} after ds_swizzle/bpermute" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    return [_pattern(view, "cross_lane_reduction", "Serialized cross-lane reduction", claims, {
        "summary": summary,
        "ops": kinds,
        "serialized_steps": steps,
        "wait_pcs": view.pcs(waits),
        "instructions": view.instr_json(claims, 6),
        "lines": view.lines_json(claims, 3),
    }, ("Reduce in registers first (each lane over its own elements), then use DPP row ops or "
        "v_permlane*_swap, which need no LDS round trip and no lgkmcnt wait, and reduce several "
        "independent values per step so the steps overlap."))]


@detector("scalar_load_waits")
def detect_scalar_load_waits(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """lgkmcnt waits on scalar loads (kernel arguments, descriptors) are exposed."""
    waits, loads = [], set()
    for p in view.waits("lgkmcnt"):
        if p in taken:
            continue
        y = view.youngest(p, "lgkmcnt")
        if y is not None and view.lgkm[y] == "smem":
            waits.append(p)
            loads.update(q for q in view.covered(p, "lgkmcnt") if view.lgkm[q] == "smem")
    if not waits:
        return []
    share, _ = view.share(waits)
    lines = view.lines_json(waits, 3)
    first_vmem = next((p for p, k in enumerate(view.vmem) if k), len(view.ins))
    at_entry = [p for p in waits if p < first_vmem]
    summary = (f"{_n(len(waits), 'lgkmcnt wait')} at pc {_pc_list(view.pcs(waits))} waiting on {len(loads)} scalar "
               f"loads (s_load), {len(at_entry)} of the waits before the first vector memory op; "
               f"{_pct(share)} of the stall cycles on {_lines_text(lines, framework=True)}")
    return [_pattern(view, "scalar_load_waits", "lgkmcnt waits on scalar loads (kernel arguments, descriptors)",
                     waits, {
                         "summary": summary,
                         "waits": view.instr_json(waits, 6),
                         "scalar_load_pcs": view.pcs(loads),
                         "waits_before_first_vmem": len(at_entry),
                         "lines": lines,
                     }, ("The wave has too little work to hide scalar-load latency: issue all s_loads "
                         "together before the first wait (or preload kernel arguments into SGPRs), and "
                         "give each wave more work so this fixed cost is amortized."))]


@detector("barrier_dominated")
def detect_barrier(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """s_barrier holds a large share of the stall cycles (or is the top stall type)."""
    # By stall type: s_barrier / s_wait_idle on AMD, barrier-dominated instructions on NVIDIA.
    bars = [p for p, i in enumerate(view.ins) if i.type == "barrier" and p not in taken]
    if not bars:
        return []
    share, cycles = view.share(bars)
    by_type = view.analysis.stall_by_type
    top = next((t for t, c in by_type.items() if c > 0), None)
    if share < BARRIER_SHARE and not (top == "barrier" and share >= 0.10):
        return []
    before = []
    for p in sorted(bars, key=lambda p: -view.ins[p].stall_cycles)[:4]:
        prev = view.ins[p - 1].asm if p > 0 else ""
        before.append({"pc": view.pc(p), "stall_cycles": view.ins[p].stall_cycles, "after": prev})
    summary = (f"{_n(len(bars), 'barrier instruction')} hold {_pct(share)} of the stall cycles "
               f"(top: pc {before[0]['pc']}, {before[0]['stall_cycles']} cycles)")
    return [_pattern(view, "barrier_dominated", "Barrier-dominated: waves wait for the slowest wave",
                     bars, {"summary": summary, "barriers": len(bars), "top": before,
                            "lines": view.lines_json(bars, 3)},
                     ("Cut barriers per iteration (double-buffer LDS so one barrier guards a tile), "
                      "balance the work between the waves of a workgroup, and move independent work "
                      "before the barrier so fast waves have something to do."))]


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
    narrow = [q for q in stores if (isa.access_bytes(view.ins[q].asm) or 16) < 16]
    summary = (f"{_n(len(stores), 'store')} ({'/'.join(str(w) for w in widths)} bytes per lane)"
               + (f" and {_n(len(waits), 'wait')} on them" if waits else "")
               + f" hold {_pct(share)} of the stall cycles")
    if narrow and len(narrow) * 2 >= len(stores):
        suggestion = ("Stores move few bytes per lane: pack the outputs so each lane stores 16 "
                      "contiguous bytes (dwordx4), staging through LDS (cshuffle) if the lane layout "
                      "does not allow it, so fewer store instructions fill the write queue.")
    else:
        suggestion = ("Spread the stores over the epilogue (interleave them with the last compute) and "
                      "make sure each output is written once, in full 64-byte lines.")
    return [_pattern(view, "store_bound", "Store-bound: global stores stall", claims, {
        "summary": summary, "stores": len(stores), "bytes_per_lane": widths, "narrow_stores": len(narrow),
        "instructions": view.instr_json(claims, 6), "lines": view.lines_json(stores, 3),
    }, suggestion)]


def _vmem_bytes_per_wave(view: KernelView) -> float | None:
    """Bytes one wave moves to/from memory, from exec counts of the sampled waves."""
    n = len(view.analysis.waves)
    if not n:
        return None
    total = 0.0
    for p, kind in enumerate(view.vmem):
        if kind in ("load", "lds_dma", "store"):
            total += view.ins[p].exec_count * (isa.access_bytes(view.ins[p].asm) or 4) * isa.WAVE_SIZE
    return total / n


def bandwidth(view: KernelView) -> dict[str, Any] | None:
    """Achieved memory bandwidth: PMC counters when given, else estimated from the ISA.

    The estimate is bytes per wave (every VMEM op of the sampled waves, full EXEC
    assumed) x waves of the dispatch (kernel trace grid) / kernel time.
    """
    ctx = view.context
    pmc = ctx.counters
    if pmc is not None and getattr(pmc, "bw_fraction", None) is not None:
        return {"source": "PMC counters", "achieved_tbs": pmc.achieved_gbps / 1000.0,
                "peak_tbs": pmc.peak_tbs, "fraction": pmc.bw_fraction,
                "l2_hit_rate": getattr(pmc, "l2_hit_rate", None)}
    ncu = view.analysis.extra.get("ncu") if isinstance(view.analysis.extra.get("ncu"), dict) else None
    if ncu and ncu.get("dram_throughput_pct") is not None:
        frac = float(ncu["dram_throughput_pct"]) / 100.0
        gbs = ncu.get("dram_bandwidth_gbs")
        achieved = float(gbs) / 1000.0 if gbs else (frac * ctx.peak_tbs if ctx.peak_tbs else None)
        peak = achieved / frac if achieved and frac else ctx.peak_tbs
        return {"source": "Nsight Compute DRAM throughput", "achieved_tbs": achieved, "peak_tbs": peak,
                "fraction": frac, "l2_hit_rate": (ncu["l2_hit_rate_pct"] / 100.0
                                                  if ncu.get("l2_hit_rate_pct") is not None else None)}
    per_wave = _vmem_bytes_per_wave(view)
    wgs, wpw = ctx.workgroups, ctx.waves_per_workgroup
    if not per_wave or not wgs or not wpw or not ctx.kernel_time_ns or not ctx.peak_tbs:
        return None
    nbytes = per_wave * wgs * wpw
    tbs = nbytes / ctx.kernel_time_ns / 1000.0  # bytes/ns = GB/s
    return {"source": "estimated: VMEM bytes of the ISA x waves of the grid / kernel time (full EXEC, no reuse)",
            "achieved_tbs": tbs, "peak_tbs": ctx.peak_tbs, "fraction": tbs / ctx.peak_tbs,
            "bytes": nbytes, "bytes_per_wave": per_wave, "waves": wgs * wpw,
            "kernel_time_ns": ctx.kernel_time_ns, "grid_source": ctx.grid_source}


VMEM_TYPES = ("VMEM-wait", "VMEM-load", "VMEM-store")


@detector("streaming_roofline")
def detect_streaming(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The kernel streams at the memory roofline: nothing left to win on loads."""
    by_type = view.analysis.stall_by_type
    vmem_share = sum(by_type.get(t, 0) for t in VMEM_TYPES) / view.total_stall if view.total_stall else 0.0
    if vmem_share < STREAMING_VMEM_SHARE:
        return []
    bw = bandwidth(view)
    if bw is None:
        return _likely_streaming(view, vmem_share, taken)
    if bw["fraction"] < STREAMING_BW_FRACTION:
        return []
    if view.has_mfma and bw["source"].startswith("estimated"):
        # Requested VMEM bytes of a tiled MFMA kernel include L2 hits (tiles re-read by many
        # workgroups): they say nothing about HBM without the counters.
        return []
    claims = [p for p, i in enumerate(view.ins) if i.type in VMEM_TYPES and p not in taken]
    n_mfma = sum(view.mfma)
    valu = sum(1 for p, m in enumerate(view.mnemonics) if m.startswith("v_") and not view.mfma[p])
    per_wave = bw.get("bytes_per_wave") or _vmem_bytes_per_wave(view)
    execs = (sum(view.ins[p].exec_count for p, m in enumerate(view.mnemonics) if m.startswith("v_"))
             / max(len(view.analysis.waves), 1))
    ncu = view.analysis.extra.get("ncu") if isinstance(view.analysis.extra.get("ncu"), dict) else None
    if ncu and ncu.get("sm_throughput_pct") is not None:
        tensor = ncu.get("tensor_pipe_pct")
        busy = max(float(ncu["sm_throughput_pct"]), float(tensor or 0.0))
        compute = f"SM throughput {float(ncu['sm_throughput_pct']):.1f}%" + (
            f", tensor pipe {float(tensor):.1f}%" if tensor is not None else "")
        compute += ": no compute headroom" if busy < 50 else ": compute is busy too"
    else:
        compute = ("no MFMA" if not n_mfma else f"{n_mfma} MFMA") + (
            f", {execs / per_wave:.3f} vector instructions per byte" if per_wave else "")
        compute += ": no compute headroom" if not n_mfma else ": memory-bound at this shape"
    f = _pattern(view, "streaming_roofline",
                 f"Streaming at the memory roofline ({_pct(bw['fraction'])} of HBM peak)", claims, {
                     "summary": (_bw_text(bw) + f"; VMEM types hold {_pct(vmem_share)} of the stall cycles; "
                                 f"{compute}"),
                     "bandwidth": bw,
                     "detail": f"{_pct(bw['fraction'])} of HBM peak",
                     "vmem_stall_share": vmem_share,
                     "mfma": n_mfma,
                     "valu_instructions": valu,
                 }, ("Nothing left to win on loads: the kernel moves its bytes near peak bandwidth. The "
                     "remaining levers are moving fewer bytes (fuse with the producer or consumer, narrower "
                     "data types) or overlapping it with other work."))
    f.priority = "low"
    return [f]


def _bw_text(bw: dict[str, Any]) -> str:
    if bw.get("achieved_tbs") and bw.get("peak_tbs"):
        return f"{bw['achieved_tbs']:.2f} TB/s of {bw['peak_tbs']:.1f} TB/s peak ({bw['source']})"
    return f"{_pct(bw['fraction'])} of peak bandwidth ({bw['source']})"


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
    f = _pattern(view, "streaming_roofline", "Likely streaming-bound (no bandwidth figure)", claims, {
        "summary": (f"VMEM types hold {_pct(vmem_share)} of the stall cycles, no MFMA, {per_byte:.3f} vector "
                    "instructions per byte moved; give the kernel trace (grid, time) or PMC counters "
                    "to measure the bandwidth"),
        "bandwidth": None,
        "detail": "likely streaming",
        "vmem_stall_share": vmem_share,
        "vector_instructions_per_byte": per_byte,
    }, ("Probably nothing left to win on loads: confirm the achieved bandwidth; if it is near peak, "
        "the remaining levers are moving fewer bytes (fusion, narrower types)."))
    f.priority = "low"
    return [f]


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
    summary = (f"{_n(len(waits), 'vmcnt wait')} at pc {_pc_list(view.pcs(waits))} stall {_pct(share)} of the "
               f"cycles, a median {median} instructions after the load they wait for ({_lines_text(lines)})")
    return [_pattern(view, "vmem_latency_exposed", "Global-load latency exposed", waits, {
        "summary": summary, "waits": view.instr_json(waits, 6), "load_to_wait_median": median,
        "load_lines": lines,
    }, ("Issue the loads earlier (software-pipeline the next row or tile before processing this one) "
        "and keep more bytes in flight per wave before the first wait; more resident waves also hide it."))]


# ---------------------------------------------------------------- limits

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
    """Occupancy is capped by VGPRs: how many to free for one more wave per SIMD."""
    occ = view.occupancy
    if not occ or occ.limiter != "VGPR" or occ.waves_per_simd >= _max_waves(view) or not occ.next_vgpr_total:
        return []
    need = occ.next_vgpr_total
    free = occ.vgpr_total - need
    nxt = occ.waves_per_simd + 1
    high_regs = [p for p, d in enumerate(view.defs) if any(k == "v" and n >= need - occ.accum_vgpr for k, n in d)]
    other = {"LDS": occ.lds_limit, "SGPR": occ.sgpr_limit}
    also = [f"{k} allows {v}" for k, v in other.items() if v < nxt]
    csv = f", kernel-trace CSV {occ.arch_vgpr_csv}" if occ.arch_vgpr_csv is not None else ""
    summary = (f"{occ.vgpr_total} VGPRs (arch {occ.arch_vgpr_isa} by ISA{csv}, accum {occ.accum_vgpr}) give "
               f"{_waves(occ.waves_per_simd)}; {nxt} waves need <= {need}: free {free}"
               + (f" ({len(high_regs)} instructions write v{need - occ.accum_vgpr} or above)" if high_regs else "")
               + (f"; but {', '.join(also)}" if also else ""))
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
                    "use), keep fewer tiles in flight in registers, or move accumulators to AGPRs/LDS."),
        priority=_limit_priority(view, occ.waves_per_simd),
        kind="limit",
    )]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@detector("lds_sgpr_occupancy", kind="limit")
def detect_lds_sgpr_occupancy(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Occupancy is capped by LDS per workgroup or by SGPRs."""
    occ = view.occupancy
    if not occ or occ.limiter not in ("LDS", "SGPR") or occ.waves_per_simd >= _max_waves(view):
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
        summary = (f"{_kib(occ.lds_bytes)} of LDS per workgroup ({wpw} waves) on {_kib(total)} per CU give "
                   f"{_waves(occ.waves_per_simd)}; {nxt} need <= {_kib(need)} per workgroup: free "
                   f"{_kib(free)} (VGPRs would allow {occ.vgpr_limit})")
        title = (f"LDS-bound occupancy: {_waves(occ.waves_per_simd)} with {_kib(occ.lds_bytes)} "
                 "per workgroup")
        suggestion = (f"Cut LDS per workgroup to {_kib(need)} (free {_kib(free)}): fewer pipeline stages "
                      "or a smaller K tile in LDS, or reuse one buffer for A and B, so two workgroups "
                      "fit per CU.")
    else:
        need = (800 // nxt) // 16 * 16
        free = (occ.sgpr or 0) - need
        ev.update({"sgpr": occ.sgpr, "next_sgpr": need, "sgprs_to_free": free,
                   "detail": f"{_waves(occ.waves_per_simd)}, {occ.sgpr} SGPRs"})
        summary = (f"{occ.sgpr} SGPRs give {_waves(occ.waves_per_simd)}; {nxt} need <= {need}: free {free}")
        title = f"SGPR-bound occupancy: {_waves(occ.waves_per_simd)} with {occ.sgpr} SGPRs"
        suggestion = (f"Bring SGPRs to {need} (free {free}): keep fewer buffer descriptors and loop "
                      "bounds live, recompute scalar addresses instead of holding them.")
    ev["summary"] = summary
    return [Finding(detector="lds_sgpr_occupancy", title=title, stall_share=0.0, evidence=ev,
                    suggestion=suggestion, priority=_limit_priority(view, occ.waves_per_simd), kind="limit")]


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
                   "detail": f"{wgs} workgroups, {waves} waves for {simds} SIMDs"})
        ev["summary"] = (f"{wgs} workgroups of {_n(wpw, 'wave')} = {waves} waves for {cus} CUs x "
                         f"{ctx.simds_per_cu} SIMDs: {idle} SIMDs ({_pct(idle / simds)}) get no wave"
                         + (f", {idle_cus} CUs no workgroup" if idle_cus else ""))
        return [Finding(detector="small_grid",
                        title=f"Grid too small for the GPU: {wgs} workgroups ({waves} waves) on {cus} CUs",
                        stall_share=0.0, evidence=ev,
                        suggestion=("Give every SIMD work: split the problem finer (split-K, smaller tiles, "
                                    "fewer rows per workgroup) or batch several problems into one launch."),
                        priority="high" if waves < simds / 2 else "medium", kind="limit")]
    if per_simd < GRID_MIN_WAVES_PER_SIMD and allowed >= GRID_MIN_WAVES_PER_SIMD:
        ev["detail"] = f"{per_simd:.2f} waves per SIMD of {allowed}"
        ev["summary"] = (f"{wgs} workgroups x {wpw} waves = {waves} waves on {simds} SIMDs: "
                         f"{per_simd:.2f} waves per SIMD while occupancy allows {allowed}")
        return [Finding(detector="small_grid",
                        title=f"Grid fills only {per_simd:.2f} waves per SIMD (occupancy allows {allowed})",
                        stall_share=0.0, evidence=ev,
                        suggestion=("Launch more, smaller workgroups (or more waves per workgroup) so "
                                    "each SIMD holds at least two waves and one can issue while the "
                                    "other waits on memory."),
                        priority="medium", kind="limit")]
    return []


@detector("early_exit_waves", kind="limit")
def detect_early_exit(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Most waves branch to s_endpgm right after the prologue: launched without work."""
    ins = view.ins
    if len(ins) < 8:
        return []
    n0 = ins[0].exec_count
    if n0 < 4:
        return []
    by_addr = {i.pc_addr: k for k, i in enumerate(ins) if i.pc_addr}
    first_work = next((p for p in range(len(ins)) if view.mfma[p] or view.loops and p == view.loops[-1][0]),
                      len(ins))
    limit = min(first_work, max(len(ins) // 4, 16), len(ins) - 1)
    for b in range(limit):
        off = isa.branch_offset(ins[b].asm)
        if off is None or off <= 0 or not view.mnemonics[b].startswith("s_cbranch") or not ins[b].pc_addr:
            continue
        t = by_addr.get(ins[b].pc_addr + 4 + 4 * off)
        if t is None or "s_endpgm" not in view.mnemonics[t:t + 1]:
            continue
        went = ins[b].exec_count - ins[b + 1].exec_count
        if ins[b].exec_count < 0.9 * n0 or went < 0.5 * ins[b].exec_count:
            continue
        frac = went / n0
        summary = (f"{went} of {n0} sampled waves ({_pct(frac)}) take the branch at pc {ins[b].pc_index} "
                   f"({short_loc(ins[b].source_loc)}) straight to s_endpgm; {ins[b + 1].exec_count} do the work")
        return [Finding(
            detector="early_exit_waves",
            title=f"{_pct(frac)} of the waves exit without work",
            stall_share=0.0,
            evidence={"summary": summary, "branch_pc": ins[b].pc_index, "waves_sampled": n0,
                      "waves_exiting": went, "exit_fraction": frac, "source": ins[b].source_loc,
                      "detail": f"{_pct(frac)} of the waves exit at pc {ins[b].pc_index}"},
            suggestion=("Size the grid to the work (e.g. launch partitions only for the context that "
                        "exists) or let each workgroup loop over work items, so the launched waves are "
                        "not spent on the prologue and an early exit."),
            priority="high" if frac >= 0.5 else "medium",
            kind="limit",
        )]
    return []


# ---------------------------------------------------------------- the plan

def advise(analysis: CaptureAnalysis, context: AdviceContext | None = None) -> list[Finding]:
    """The ranked plan of one capture: patterns by stall share, then limits, then flags."""
    if context is None:
        context = AdviceContext()
    if context.bundle is not None:
        context = context_for(analysis, context.bundle, base=context)
    view = KernelView(analysis, context)
    taken: set[int] = set()
    found: list[tuple[int, Finding]] = []
    for order, det in enumerate(DETECTORS):
        for f in det.fn(view, frozenset(taken)):
            if f.kind == "pattern":
                if f.stall_share < MIN_SHARE:
                    continue
                taken |= set(f.claims)
            found.append((order, f))
    return rank(found)


def rank(found: list[tuple[int, Finding]]) -> list[Finding]:
    """Patterns by stall share, then limits by priority, then flags (registry order on ties)."""
    prio = {p: k for k, p in enumerate(PRIORITIES)}
    group = {"pattern": 0, "limit": 1, "flag": 2}
    ordered = sorted(found, key=lambda t: (group[t[1].kind], -t[1].stall_share if t[1].kind == "pattern" else 0,
                                           prio.get(t[1].priority, 9), t[0]))
    return [f for _, f in ordered]


def format_plan(findings: list[Finding]) -> list[str]:
    """Text lines of the plan for the terminal (two-space indent)."""
    lines: list[str] = []
    ranked = [f for f in findings if f.ranked]
    n = 0
    limits_started = False
    for f in ranked:
        if f.kind == "limit" and not limits_started:
            limits_started = True
            if n:
                lines.append("")
            lines.append("  Limits (structural; no stall cycles of their own):")
        n += 1
        share = f"  ({_pct(f.stall_share)} of stall cycles)" if f.kind == "pattern" else ""
        lines.append(f"  {n:>2}. [{f.priority}] {f.title}{share}")
        lines.append(f"      evidence: {f.summary}")
        lines.append(f"      try: {f.suggestion}")
    flags = [f for f in findings if f.flagged]
    if flags:
        if lines:
            lines.append("")
        lines.append("  Flagged (not ranked):")
        for f in flags:
            lines.append(f"   - {f.title}  ({_pct(f.stall_share)} of stall cycles on the line)")
            lines.append(f"      evidence: {f.summary}")
            lines.append(f"      note: {f.suggestion}")
    return lines


def why_not_winning(findings: list[Finding], analysis: CaptureAnalysis) -> str:
    """One or two sentences for a HEADROOM kernel: the limiter and the top evidence.

    The limiter is the most urgent limit finding (occupancy, grid, idle waves); a
    kernel streaming at the roofline is bound by bandwidth unless a limit of high or
    medium priority says otherwise; without either, the top stall type stands in.
    """
    prio = {p: k for k, p in enumerate(PRIORITIES)}
    limits = sorted((f for f in findings if f.kind == "limit"), key=lambda f: prio.get(f.priority, 9))
    patterns = [f for f in findings if f.kind == "pattern"]
    stream = next((f for f in patterns if f.detector == "streaming_roofline"), None)
    lim = limits[0] if limits else None
    if lim is not None and (stream is None or lim.priority in ("high", "medium")):
        limiter = f"{lim.title} ({lim.summary})"
    elif stream is not None:
        limiter = f"memory bandwidth ({stream.summary})"
    else:
        occ = analysis.occupancy
        at = f" at {_waves(occ.waves_per_simd)}" if occ else ""
        limiter = f"stall cycles{at}, mostly {analysis.top_stall_type or 'none'}"
    top = next((f for f in patterns if f is not stream and f.priority in ("high", "medium")), None)
    text = f"Limiter: {limiter}."
    if top is not None:
        text += f" Top evidence: {top.title}, {_pct(top.stall_share)} of stall cycles ({top.summary})."
    return text


# ---------------------------------------------------------------- MFMA annotations

def mfma_annotations(analysis: CaptureAnalysis) -> dict[int, MfmaNote]:
    """Each MFMA's pipeline latency and how many independent instructions precede its first reader."""
    view = KernelView(analysis)
    notes: dict[int, MfmaNote] = {}
    for p, ins in enumerate(view.ins):
        if not view.mfma[p]:
            continue
        lat = isa.mfma_latency(ins.asm)
        if lat is None:
            continue
        need = isa.independent_needed(lat.cycles)
        dst = view.defs[p]
        dep = between = kind = None
        gap = 0
        for q in range(p + 1, min(len(view.ins), p + 1 + 64)):
            if view.uses[q] & dst:
                dep, between = q, gap
                ops, _ = isa.split_operands(view.ins[q].asm)
                src_c = set(isa.registers(ops[3])) if view.mfma[q] and len(ops) > 3 else set()
                front = set()
                for op in ops[1:3]:
                    front.update(isa.registers(op))
                kind = "accumulate" if view.mfma[q] and (dst & src_c) and not (dst & front) else "read"
                break
            if view.defs[q] & dst or view.mnemonics[q] in ("s_endpgm", "s_branch") \
                    or view.mnemonics[q].startswith("s_cbranch"):
                break
            m = re.match(r"s_nop\s+(\d+)", view.ins[q].asm.strip())
            gap += int(m.group(1)) + 1 if m else 1
        short = dep is not None and kind == "read" and between is not None and between < need
        name = view.mnemonics[p]
        text = f"{lat.cycles}-cycle pipeline: a dependent read waits for {need} independent instructions"
        if dep is not None:
            text += (f"; pc {view.pc(dep)} reads the result after {between}"
                     + (" (accumulator chain)" if kind == "accumulate" else "")
                     + (" - too soon, the wave stalls" if short else ""))
        notes[ins.pc_index] = MfmaNote(pc_index=ins.pc_index, mnemonic=name, latency=lat.cycles,
                                       source=lat.source, independent_needed=need,
                                       dependent_pc=view.pc(dep) if dep is not None else None,
                                       independent_between=between, dependent_kind=kind, short=short,
                                       text=text)
    return notes


# ---------------------------------------------------------------- context

_DISPATCH = re.compile(r"dispatch_(\d+)")


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
                rows = rocprof.match_kernel(rocprof.read_kernel_trace(trace), analysis.jit_kernel)
            except InputError as err:
                rows = []
                notes.append(f"kernel trace unreadable: {err.message}")
            row, time_ns = _pick_dispatch(rows, analysis.capture)
            if row is not None:
                ctx.grid_source = (f"{os.path.basename(trace)} Dispatch_Id {row.get('Dispatch_Id')}, "
                                   "time: median over the dispatches of that grid"
                                   if ctx.grid is None else ctx.grid_source)
                to_int = rocprof.to_int
                ctx.grid = ctx.grid or tuple(to_int(row.get(f"Grid_Size_{d}")) or 1 for d in "XYZ")
                ctx.workgroup = ctx.workgroup or tuple(to_int(row.get(f"Workgroup_Size_{d}")) or 1 for d in "XYZ")
                ctx.kernel_time_ns = ctx.kernel_time_ns or time_ns
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
            from generator.analyze import roofline

            dev = roofline.resolve_device(config, arch=analysis.arch)
            ctx.peak_tbs, ctx.peak_name = dev.hbm_tbs, dev.name
        except (InputError, OSError, KeyError, ValueError) as err:  # no device, or a broken peaks file
            notes.append(f"no device peak for {analysis.arch}: {getattr(err, 'message', err)}")
    ctx.notes = notes
    return ctx


def _pick_dispatch(rows: list[dict[str, str]], capture: str) -> tuple[dict[str, str] | None, float | None]:
    """The trace row of the captured dispatch and the median duration (ns) of its grid.

    The row is matched by Dispatch_Id (the capture's ``dispatch_<N>``), else the most
    common grid is taken. The time is the median over every dispatch of that grid:
    a single dispatch may be a cold first call (softmax's dispatch 13 took 963 us,
    the steady state 190 us).
    """
    from generator.read.rocprof import to_int

    if not rows:
        return None, None

    def grid(r):
        return tuple(r.get(f"Grid_Size_{d}") for d in "XYZ") + tuple(r.get(f"Workgroup_Size_{d}") for d in "XYZ")

    def dur(r):
        s, e = to_int(r.get("Start_Timestamp")), to_int(r.get("End_Timestamp"))
        return (e - s) if s is not None and e is not None and e > s else None

    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault(grid(r), []).append(r)
    row = None
    m = _DISPATCH.search(capture or "")
    if m:
        row = next((r for r in rows if to_int(r.get("Dispatch_Id")) == int(m.group(1))), None)
    if row is None:
        row = max(groups.values(), key=len)[0]
    times = sorted(t for t in (dur(r) for r in groups[grid(row)]) if t)
    if not times:
        return row, None
    n = len(times)
    return row, (times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2)


def _agent(bundle: Bundle, label: str) -> dict[str, str] | None:
    from generator.read import rocprof
    from generator.errors import InputError

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


# ---------------------------------------------------------------- the sweep

def _verdict_name(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    return getattr(v, "verdict", None)


def _deficit(verdict: Any, geomean: float | None) -> float:
    """ln(1/geomean) of a HEADROOM kernel (its log-time deficit), else 0."""
    name = _verdict_name(verdict)
    if geomean is None or geomean <= 0 or geomean >= 1:
        return 0.0
    if name is not None and name != "HEADROOM":
        return 0.0
    if name is None and geomean >= 0.95:
        return 0.0
    return math.log(1.0 / geomean)


_LIMIT_KEYS = {"vgpr_occupancy": "VGPR", "small_grid": "grid", "early_exit_waves": "idle waves"}
LIMITER_TITLES = {"VGPR": "VGPR-bound occupancy", "LDS": "LDS-bound occupancy", "SGPR": "SGPR-bound occupancy",
                  "grid": "Grid too small to fill the GPU", "idle waves": "Waves launched without work",
                  "memory bandwidth": "Streaming at the memory roofline"}
#: Findings below this priority stay on their kernel's page, not on the sweep's.
SWEEP_PRIORITIES = ("high", "medium")


def _limiter_key(f: Finding) -> str | None:
    """The sweep-level limiter a finding stands for, or None for a plain pattern."""
    if f.detector == "lds_sgpr_occupancy":
        return str(f.evidence.get("limiter"))
    if f.detector == "streaming_roofline":
        return "memory bandwidth"
    if f.kind == "limit":
        return _LIMIT_KEYS.get(f.detector, f.detector)
    return None


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def sweep_findings(per_kernel: dict[str, tuple[list[Finding], Any, float | None]]) -> list[SweepFinding]:
    """Findings grouped across kernels: shared limiters and shared patterns, by headroom.

    ``per_kernel`` maps a kernel to (its findings, its verdict or None, its geomean
    speedup or None). The sweep's headroom is the sum of ln(1/geomean) over HEADROOM
    kernels (the log-time each must gain to break even; without a verdict, a geomean
    below 0.95 counts). A *limiter* group (kernels bound by VGPRs, LDS, SGPRs, the
    grid, idle waves or memory bandwidth) holds the headroom of its HEADROOM members;
    a *pattern* group explains each member's deficit weighted by the pattern's stall
    share (an estimate: removing stall cycles does not turn one for one into time).
    Only findings of high or medium priority are grouped (the streaming reading is
    always kept: it says where nothing is left to win).
    """
    deficits = {k: _deficit(v, g) for k, (_, v, g) in per_kernel.items()}
    total = sum(deficits.values())
    limiters: dict[str, dict[str, str]] = {}
    patterns: dict[str, dict[str, Finding]] = {}
    titles: dict[str, str] = {}
    for kernel in sorted(per_kernel):
        for f in per_kernel[kernel][0]:
            if f.flagged:
                continue
            key = _limiter_key(f)
            if f.priority not in SWEEP_PRIORITIES and key != "memory bandwidth":
                continue
            if key is not None:
                limiters.setdefault(key, {})[kernel] = str(f.evidence.get("detail") or f.title)
            else:
                patterns.setdefault(f.detector, {})[kernel] = f
                titles.setdefault(f.detector, f.title)
    out: list[SweepFinding] = []
    for key, members in limiters.items():
        kernels = sorted(members)
        losing = [k for k in kernels if deficits.get(k, 0) > 0]
        held = sum(deficits[k] for k in losing) / total if total else None
        title = LIMITER_TITLES.get(key, key)
        text = f"{title}: " + "; ".join(f"{k} ({members[k]})" for k in kernels) + "."
        if held is not None:
            text += (f" Together they hold {_pct(held)} of the sweep's headroom (HEADROOM: {_and(losing)})."
                     if losing else " None of them is HEADROOM.")
        out.append(SweepFinding(key=f"limiter:{key}", kind="limiter", title=title, kernels=kernels,
                                per_kernel=dict(sorted(members.items())), headroom_share=held,
                                headroom_kernels=losing, text=text,
                                priority="high" if held and held >= 0.25 else "medium" if losing else "low"))
    for det, members in patterns.items():
        kernels = sorted(members, key=lambda k: (-members[k].stall_share, k))
        losing = [k for k in kernels if deficits.get(k, 0) > 0]
        explained = (sum(deficits[k] * members[k].stall_share for k in losing) / total) if total else None
        title = titles[det]
        text = f"{title}: " + "; ".join(f"{k} ({_pct(members[k].stall_share)} of its stall cycles)"
                                        for k in kernels) + "."
        if explained is not None:
            text += (f" Weighted by stall share it explains about {_pct(explained)} of the sweep's headroom "
                     f"(HEADROOM: {_and(losing)})." if losing else " None of them is HEADROOM.")
        out.append(SweepFinding(key=f"pattern:{det}", kind="pattern", title=title, kernels=kernels,
                                per_kernel={k: _pct(members[k].stall_share) for k in sorted(members)},
                                headroom_share=explained, headroom_kernels=losing, text=text,
                                priority="high" if explained and explained >= 0.10 else
                                "medium" if losing else "low"))
    out.sort(key=lambda s: (-(s.headroom_share or 0.0), -len(s.kernels), s.key))
    return out
