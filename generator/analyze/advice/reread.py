"""Loads every workgroup issues at the same addresses (a norm's gamma/beta, a bias): not streamed bytes.

The capture's bytes are bytes per wave x waves of the grid (``streaming.bandwidth``). A load whose
address depends on nothing but the lane (``v0``: the work-item ids) and the kernel arguments reads the
same bytes in every workgroup: they come from HBM once and from cache after, so counting them once per
wave inflates the bytes the capture implies (layernorm at M=256 N=8192: 16,384 B a wave instead of
8,192, the bytes of M=256 N=16384). Such a load is left out of the per-wave bytes when

* its address (the registers it reads, followed back through the instructions that wrote them) reaches
  no register the program did not write itself but the work-item ids and the pointers the scalar loads
  read (the kernel arguments); a workgroup id, data read from memory or LDS, a ``readlane`` make it
  differ between workgroups;
* its buffer descriptor is not one any store uses (the buffer is read only);
* neither it nor an instruction its address comes from is inside a loop (a loop-carried address is not
  followed: kept).

Anything unsure keeps the load counted, as before.
"""

from __future__ import annotations

import bisect
import functools
import re

from generator.analyze import isa

#: Scalar and vector registers named by an operand: ``s3``, ``s[4:7]``, ``v0``, ``v[2:5]``, ``vcc``, ``ttmp9``
#: (where some targets hold the workgroup ids).
_REG = re.compile(r"(?<![\w.])([sva]|ttmp)(?:\[(\d+):(\d+)\]|(\d+))(?![\w])|(?<![\w.])(vcc)(?:_(lo|hi))?(?![\w])")
#: Opcodes that write no register named by their first operand.
_NO_DEST = ("s_cmp", "s_bitcmp", "s_waitcnt", "s_barrier", "s_branch", "s_cbranch", "s_nop", "s_endpgm",
            "s_setprio", "s_sleep", "s_dcache", "s_sendmsg", "s_set", "s_wait", "s_store", "s_buffer_store",
            "buffer_store", "global_store", "flat_store", "scratch_store", "tbuffer_store", "ds_write",
            "ds_store", "buffer_atomic", "global_atomic", "flat_atomic", "v_cmpx", "s_trap", "s_icache")
#: Writers whose value differs between workgroups (memory, LDS, one lane's value): an address they feed varies.
_VARYING = ("buffer_", "global_", "flat_", "scratch_", "tbuffer_", "ds_", "v_readlane", "v_readfirstlane",
            "s_getreg", "s_memtime", "s_memrealtime")
_SMEM_LOAD = ("s_load", "s_buffer_load")
#: VOP2 ``_e32`` forms that read VCC implicitly / VOPC ``_e32`` and carry-out forms that write it.
_READS_VCC = ("v_cndmask_b32_e32", "v_addc_co_u32_e32", "v_subb_co_u32_e32", "v_subbrev_co_u32_e32")
_WRITES_VCC = ("v_cmp_", "v_add_co_u32_e32", "v_sub_co_u32_e32", "v_subrev_co_u32_e32", "v_addc_co_u32_e32",
               "v_subb_co_u32_e32", "v_subbrev_co_u32_e32")


@functools.lru_cache(maxsize=1 << 14)
def _regs(operand: str) -> frozenset[tuple[str, int]]:
    """The registers one operand names; operands repeat across a listing (``v3``, ``s[4:7]``), so each
    text is read once: the set is shared, read-only."""
    out: set[tuple[str, int]] = set()
    for m in _REG.finditer(operand):
        if m.group(5):
            out |= {("vcc", 0)} if m.group(6) == "lo" else {("vcc", 1)} if m.group(6) else {("vcc", 0), ("vcc", 1)}
        elif m.group(4) is not None:
            out.add((m.group(1), int(m.group(4))))
        else:
            out |= {(m.group(1), n) for n in range(int(m.group(2)), int(m.group(3)) + 1)}
    return frozenset(out)


def defs_uses(asm: str) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """(registers written, registers read) of one instruction, scalar ones and VCC included."""
    m = isa.mnemonic(asm)
    ops = isa.split_operands(asm)[0]
    regs = [_regs(o) for o in ops]
    if not regs or m.startswith(_NO_DEST) or (m.startswith("v_cmp_") and m.endswith("_e32")):
        defs, uses = set(), set().union(*regs) if regs else set()
    else:
        defs, uses = set(regs[0]), set().union(*regs[1:]) if len(regs) > 1 else set()
    if m.startswith(_READS_VCC):
        uses |= {("vcc", 0), ("vcc", 1)}
    if m.startswith(_WRITES_VCC) and m.endswith("_e32"):
        defs |= {("vcc", 0), ("vcc", 1)}
    if m.startswith("v_permlane") and "swap" in m:
        uses |= defs
    return defs, uses


def descriptor(asm: str) -> frozenset[tuple[str, int]]:
    """The buffer descriptor (``s[4:7]``, third operand) of a ``buffer_`` instruction, else empty."""
    ops = isa.split_operands(asm)[0]
    if not isa.mnemonic(asm).startswith(("buffer_", "tbuffer_")) or len(ops) < 3:
        return frozenset()
    return _regs(ops[2])


def invariant_loads(asms: tuple[str, ...], pc_addrs: tuple[int, ...]) -> frozenset[int]:
    """Positions of the loads every workgroup issues at the same addresses (see the module's doc).

    The registers of the whole listing are read only when some load is left to follow: a buffer load outside
    every loop, on a descriptor no store uses (issue 41, with the memo of ``_regs`` and the writers' index
    of ``_reaching``: 0.10 s -> 0.04 s of a cold build's CPU on the 25-kernel benchmark sweep, 11 listings)."""
    mnem = [isa.mnemonic(a) for a in asms]
    spans = _branch_spans(mnem, asms, pc_addrs)
    if spans is None:
        return frozenset()  # a branch whose target is unknown: nothing is followed
    loops = [(t, b) for b, t in spans if t <= b]
    skips = [(b, t) for b, t in spans if t > b]
    kinds = [isa.vmem_kind(a) for a in asms]
    stored = set().union(*[descriptor(a) for a, k in zip(asms, kinds) if k == "store"] or [set()])
    loads = [p for p, a in enumerate(asms) if kinds[p] == "load" and mnem[p].startswith(("buffer_", "tbuffer_"))
             and not descriptor(a) & stored and not _in_loop(p, loops)]
    if not loads:
        return frozenset()
    du = [defs_uses(a) for a in asms]
    pointers = _pointer_registers(mnem, du)
    writers = _writers(du)
    return frozenset(p for p in loads if _same_everywhere(p, du, writers, mnem, skips, loops, pointers))


def _branch_spans(mnem: list[str], asms: tuple[str, ...], pc_addrs: tuple[int, ...]) -> list[tuple[int, int]] | None:
    """``(branch position, target position)`` of every branch; None when one's target is not in the listing."""
    by_addr = {addr: n for n, addr in enumerate(pc_addrs) if addr}
    out = []
    for k, m in enumerate(mnem):
        if not (m == "s_branch" or m.startswith("s_cbranch_")) or "fork" in m or "join" in m:
            continue
        off = isa.branch_offset(asms[k])
        target = by_addr.get(pc_addrs[k] + 4 + 4 * off) if off is not None and pc_addrs[k] else None
        if target is None:
            return None
        out.append((k, target))
    return out


def _in_loop(p: int, loops: list[tuple[int, int]]) -> bool:
    return any(first <= p <= last for first, last in loops)


def _pointer_registers(mnem: list[str], du: list[tuple[set, set]]) -> set[tuple[str, int]]:
    """Scalar registers the scalar loads read before the program writes them: the argument pointers."""
    written: set[tuple[str, int]] = set()
    out = set()
    for m, (defs, uses) in zip(mnem, du):
        if m.startswith(_SMEM_LOAD):
            out |= {r for r in uses if r not in written}
        written |= defs
    return out


def _writers(du: list[tuple[set, set]]) -> dict[tuple[str, int], list[int]]:
    """The positions that write each register, in program order."""
    out: dict[tuple[str, int], list[int]] = {}
    for d, (defs, _) in enumerate(du):
        for reg in defs:
            out.setdefault(reg, []).append(d)
    return out


def _reaching(reg: tuple[str, int], at: int, writers: dict[tuple[str, int], list[int]],
              skips: list[tuple[int, int]]) -> list[int | None]:
    """The writes of ``reg`` that may reach position ``at``, in straight-line order: the nearest one, and
    the ones before it while it sits in code a forward branch before ``at`` may skip. None: the value
    the wave starts with."""
    out: list[int | None] = []
    ws = writers.get(reg, ())
    for k in range(bisect.bisect_left(ws, at) - 1, -1, -1):
        d = ws[k]
        out.append(d)
        if not any(b < d < t <= at for b, t in skips):
            return out
    out.append(None)
    return out


def _same_everywhere(p: int, du: list[tuple[set, set]], writers: dict[tuple[str, int], list[int]], mnem: list[str],
                     skips: list[tuple[int, int]], loops: list[tuple[int, int]], pointers: set[tuple[str, int]]) -> bool:
    """Whether the address of the load at ``p`` is the same in every workgroup."""
    pending = [(r, p) for r in du[p][1]]
    seen = set()
    while pending:
        reg, at = pending.pop()
        if (reg, at) in seen:
            continue
        seen.add((reg, at))
        for d in _reaching(reg, at, writers, skips):
            if d is None:
                if reg[0] in ("s", "ttmp") and reg not in pointers:
                    return False  # a workgroup id (or a register the listing does not say)
                continue  # the work-item ids (v0), an argument pointer
            if mnem[d].startswith(_VARYING) or _in_loop(d, loops):
                return False
            pending.extend((r, d) for r in du[d][1])
    return True
