"""What detectors read: the optional context, the kernel view (waits, data flow), text helpers."""

from __future__ import annotations

import functools
import itertools
from dataclasses import field
from typing import Any, Iterable

from generator.analyze import isa
from generator.analyze.message import Msg, msg
from generator.model import Bundle, CaptureAnalysis, Instruction, Occupancy, UNKNOWN_LOC, record
from generator.words import noun, plural

#: Path pieces that mark a framework / library source line (not the kernel's own code).
FRAMEWORK_MARKERS = ("/site-packages/", "/dist-packages/", "/python_packages/", "/lib/python3")
#: How far (instructions) to look for a consumer / walk back for a wait's operations.
CONSUMER_WINDOW = 256
WAIT_SCAN = 1024
SIMDS_PER_CU = 4
#: Instructions after which the next one runs only when a branch jumps to it.
_UNCONDITIONAL = frozenset(("s_branch", "s_endpgm", "s_setpc_b64"))


@record
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
    grid_other: bool = False  # the trace has no row of the captured dispatch: grid and time are another launch's
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


@record(frozen=True)
class IsaFacts:
    """What each instruction's text says (mnemonic, registers read and written, waits, memory
    kind, MFMA), by position. Shared between the views of one program: read-only."""

    mnemonics: list[str]
    defs: list[frozenset[str] | set[str]]
    uses: list[frozenset[str] | set[str]]
    counts: list[dict[str, int]]
    vmem: list[Any]
    lgkm: list[Any]
    mfma: list[bool]
    cross_lane: list[bool]
    waits: dict[str, list[int]]  # counter -> positions of the s_waitcnt that wait on it


_NO_WAIT: dict[str, int] = {}


@functools.lru_cache(maxsize=1 << 16)
def _facts_of(asm: str) -> tuple:
    """(mnemonic, defs, uses, wait counts, vmem kind, lgkm kind, is MFMA, is cross-lane) of one
    instruction text; a listing repeats many (unrolled loops, captures of one kernel), so each
    is parsed once. The values are shared: read-only."""
    m, vmem, lgkm, mfma, cross, defs, uses = isa.text_facts(asm)
    return m, defs, uses, isa.wait_counts(asm) if m.startswith("s_waitcnt") else _NO_WAIT, vmem, lgkm, mfma, cross


@functools.lru_cache(maxsize=8)
def isa_facts(asms: tuple[str, ...]) -> IsaFacts:
    """Parse a program's instructions once: the plan (``advise``) and the MFMA notes
    (``mfma_annotations``) of a capture both view the same listing."""
    cols = list(zip(*map(_facts_of, asms))) if asms else [()] * 8
    mnemonics, defs, uses, counts, vmem, lgkm, mfma, cross = (list(c) for c in cols)
    waits: dict[str, list[int]] = {}
    for p, c in enumerate(counts):
        for counter in c:
            waits.setdefault(counter, []).append(p)
    return IsaFacts(mnemonics=mnemonics, defs=defs, uses=uses, counts=counts, vmem=vmem, lgkm=lgkm, mfma=mfma,
                    cross_lane=cross, waits=waits)


class KernelView:
    """An analysis plus the derived facts detectors share (loops, registers, waits)."""

    def __init__(self, analysis: CaptureAnalysis, context: AdviceContext | None = None):
        self.analysis = analysis
        self.context = context or AdviceContext()
        self.ins: list[Instruction] = list(analysis.instructions)
        self.total_stall = analysis.total_stall_cycles or sum(i.stall_cycles for i in self.ins)
        facts = isa_facts(tuple([i.asm for i in self.ins]))
        self.mnemonics, self.defs, self.uses = facts.mnemonics, facts.defs, facts.uses
        self.counts, self.vmem, self.lgkm, self.mfma = facts.counts, facts.vmem, facts.lgkm, facts.mfma
        self.cross_lane, self._waits = facts.cross_lane, facts.waits
        self.has_mfma = any(self.mfma)
        self._covered: dict[tuple[int, str], list[int]] = {}
        self.memo: dict[str, Any] = {}  # facts a detector family works out once per view

    @functools.cached_property
    def loops(self) -> list[tuple[int, int]]:
        """Loop bodies (``isa.loops``), worked out when a detector first asks, less the backward branches no
        wave can take to run a body again (``loops_back``)."""
        return [span for span in isa.loops(self.ins, self.mnemonics) if self.loops_back(span)]

    def loops_back(self, span: tuple[int, int]) -> bool:
        """Whether a backward branch can bring a wave back into its span from the span itself. Not when it
        lands on s_endpgm (an exit: fused_rope_cache's pc 159 branches back to the s_endpgm at pc 94), nor when
        the block holding it follows an unconditional branch and no branch of the span jumps into it: only code
        before the span reaches it (flash_attn_func's s_branch at pc 1912 to pc 123 sits in a block entered by
        the jump at pc 11 alone, the path into the kernel's main body, not a way back)."""
        lo, hi = span
        if self.mnemonics[lo] == "s_endpgm":
            return False
        start = next((q for q in range(hi, lo, -1) if self.mnemonics[q - 1] in _UNCONDITIONAL), lo)
        if start == lo:
            return True
        targets = self._targets()
        return any(lo <= b < start and start <= t <= hi for b, t in targets.items())

    def _targets(self) -> dict[int, int]:
        """``{position of a branch: position of its target}`` (``isa.branch_targets``, by position)."""
        if "targets" not in self.memo:
            at = {i.pc_index: n for n, i in enumerate(self.ins)}
            self.memo["targets"] = {at[b]: at[t] for b, t in isa.branch_targets(self.ins).items() if b in at and t in at}
        return self.memo["targets"]

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

    def iterates(self, loop: tuple[int, int]) -> bool:
        """Whether a loop may run its body more than once per wave: not when the exec counts (Hit) show it
        runs once, its first instruction run at least once and no more often than the instruction after its
        backward branch (pa's loops at pc 141-284 and 350-934, 8 runs for 8 exits: once per working wave at
        the profiled shape, so a wave there has no next tile). Counts that show neither (none at all, or a
        first instruction never run) leave it iterating, as every loop was read before; preshuffle_gemm's at
        pc 206-346 runs 1,020 times for 68 exits."""
        lo, hi = loop
        first = self.ins[lo].exec_count
        after = self.ins[hi + 1].exec_count if hi + 1 < len(self.ins) else 0
        return not 0 < first <= after

    def iterating_loop_of(self, pos: int) -> tuple[int, int] | None:
        """The innermost loop holding ``pos`` that iterates (``iterates``), else None."""
        for lo, hi in self.loops:  # innermost first
            if lo <= pos <= hi and self.iterates((lo, hi)):
                return lo, hi
        return None

    def waits(self, counter: str) -> list[int]:
        """Positions of the ``s_waitcnt`` that wait on ``counter``."""
        return list(self._waits.get(counter, ()))

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
        kinds, counts = (self.vmem if counter == "vmcnt" else self.lgkm), self.counts
        skipped, budget = 0, None
        for k in itertools.islice(self._walk_back(pos), WAIT_SCAN):
            if k is None:  # the back edge: on into the previous iteration
                continue
            if kinds[k] is not None:  # an operation counted on ``counter``
                if skipped < limit:
                    skipped += 1
                else:
                    out.append(k)
                if budget is not None:
                    budget -= 1
                    if budget <= 0:
                        break
            else:
                prev = counts[k].get(counter)
                if prev is not None:
                    if prev == 0:
                        break
                    budget = prev if budget is None else min(budget, prev)
        self._covered[key] = out
        return out

    def _walk_back(self, pos: int) -> Iterable[int | None]:
        """Positions before ``pos`` in execution order, youngest first: back to the start of
        the program, or of the innermost loop and then (after ``None``, the back edge) from the
        loop's end down to just after ``pos``."""
        loop = self.loop_of(pos)
        if not loop:
            return range(pos - 1, -1, -1)
        return itertools.chain(range(pos - 1, loop[0] - 1, -1), (None,), range(loop[1], pos, -1))

    def youngest(self, pos: int, counter: str) -> int | None:
        """The youngest operation a wait completes: the one its stall is blamed on."""
        ops = self.covered(pos, counter)
        return ops[0] if ops else None

    def consumer(self, start: int, regs: set, window: int = CONSUMER_WINDOW) -> int | None:
        """First instruction after ``start`` that reads one of ``regs`` (straight line)."""
        if not regs:
            return None
        uses, mnemonics = self.uses, self.mnemonics
        for p in range(start + 1, min(len(self.ins), start + 1 + window)):
            if not uses[p].isdisjoint(regs):
                return p
            if mnemonics[p] == "s_endpgm":
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


_n = plural  # ``3 waits``, ``1 wait``


def _waves(n: int | float) -> str:
    return f"{n} {noun(n, 'wave')}/SIMD"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pc_list(pcs: list[int], limit: int = 6) -> str:
    shown = ", ".join(str(p) for p in pcs[:limit])
    return shown + (f" (+{len(pcs) - limit} more)" if len(pcs) > limit else "")


def _lines_text(lines: list[dict[str, Any]], limit: int = 3, framework: bool = False) -> str:
    return ", ".join(short_loc(ln["source"]) + (" (framework)" if framework and ln.get("framework") else "")
                     for ln in lines[:limit])


def _pc_span(pcs: list[int]) -> str | None:
    """Consecutive pcs as one range ("40-51"), a single pc as itself; None when they are not consecutive."""
    if not pcs or pcs != list(range(pcs[0], pcs[0] + len(pcs))):
        return None
    return str(pcs[0]) if len(pcs) == 1 else f"{pcs[0]}-{pcs[-1]}"


def _pcs_text(pcs: list[int]) -> str:
    """The pcs as a range when consecutive, else listed (``_pc_list``)."""
    return _pc_span(pcs) or _pc_list(pcs)


def _pcs_msg(pcs: list[int]) -> Any:
    """``_pcs_text`` as a message parameter."""
    return _pc_span(pcs) or _pc_list_msg(pcs)


# -- the same text helpers as messages (generator.analyze.message): data stays data

def _pc_list_msg(pcs: list[int], limit: int = 6) -> Any:
    """``_pc_list`` as a message parameter: the shown pcs as data, "+N more" as words."""
    shown = ", ".join(str(p) for p in pcs[:limit])
    return msg("finding.more", items=shown, more=len(pcs) - limit) if len(pcs) > limit else shown


def _lines_msg(lines: list[dict[str, Any]], limit: int = 3, framework: bool = False) -> list[Any]:
    """``_lines_text`` as a list parameter: each file:line as data, "(framework)" as words."""
    return [msg("finding.framework_loc", loc=short_loc(ln["source"])) if framework and ln.get("framework")
            else short_loc(ln["source"]) for ln in lines[:limit]]


def _waves_msg(n: int | float) -> Msg:
    """``_waves`` as a message: ``2 waves/SIMD``."""
    return msg("finding.waves", n=n)
