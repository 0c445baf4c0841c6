"""Stall spread over many instructions of one kind: s_nop hazard padding (DOMAIN §1.6), wgmma waits (§4)."""

from __future__ import annotations

from generator.analyze.advice.registry import Finding, _pattern, detector, stalled_premise, words
from generator.analyze.advice.view import KernelView, _lines_msg, _lines_text, _n, _pct
from generator.words import noun
from generator.analyze.message import msg

#: SASS that waits for asynchronous warpgroup MMA (wgmma) results on Hopper.
WGMMA_WAIT = "WARPGROUP.DEPBAR"


#: How far back (instructions) an MFMA whose result the instruction after the padding reads is looked for.
MFMA_WRITER_WINDOW = 16


def _mfma_writer(view: KernelView, before: int, after: int) -> int | None:
    """The latest MFMA at or before ``before`` (within the window) writing a register ``after`` reads."""
    reads = view.uses[after]
    for q in range(before, max(-1, before - MFMA_WRITER_WINDOW), -1):
        if view.mfma[q] and not view.defs[q].isdisjoint(reads):
            return q
    return None


def _padded_pair(view: KernelView, p: int) -> tuple[str, str]:
    """(the instruction whose result needs the padding, the one after the run of s_nop): the hazard it pads.

    The writer is the instruction before the run, unless that one writes vector registers the
    instruction after does not read while an MFMA a few instructions earlier writes one it reads: then
    the padding is for the MFMA's result (pa: ``v_fma_f32; s_nop 5; v_accvgpr_read_b32 v14, a2`` waits
    for the ``v_mfma ... a[0:3]`` two instructions up, not for the FMA). Scalar and VCC writes (``v_cmp`` ->
    ``v_cndmask``, ``s_mov m0``) are not in the vector register sets: the neighbour stays named for them.
    """
    before = p - 1
    while before >= 0 and view.mnemonics[before] == "s_nop":
        before -= 1
    after = p + 1
    while after < len(view.ins) and view.mnemonics[after] == "s_nop":
        after += 1
    written = view.defs[before] if 0 <= before and after < len(view.ins) else frozenset()
    if written and written.isdisjoint(view.uses[after]):
        writer = _mfma_writer(view, before, after)
        before = before if writer is None else writer
    name = (lambda q: view.mnemonics[q] if 0 <= q < len(view.ins) else "(none)")
    return name(before), name(after)


@detector("snop_hazard")
def detect_snop_hazard(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """s_nop hazard padding holds a share of the stall cycles (spread over many instructions)."""
    nops = [p for p, m in enumerate(view.mnemonics) if m == "s_nop" and p not in taken and view.ins[p].stall_cycles]
    if not nops:
        return []
    share, _ = view.share(nops)
    pairs: dict[tuple[str, str], list[int]] = {}
    for p in nops:
        tally = pairs.setdefault(_padded_pair(view, p), [0, 0])
        tally[0] += view.ins[p].stall_cycles
        tally[1] += 1
    ranked = sorted(pairs.items(), key=lambda kv: (-kv[1][0], kv[0]))
    padded = [{"before": a, "after": b, "s_nops": n, "stall_cycles": c} for (a, b), (c, n) in ranked[:6]]
    top = ", ".join(f"{d['before']} -> {d['after']} ({d['s_nops']})" for d in padded[:3])
    lines = view.lines_json(nops, 3)
    ev: dict = {}
    premise = stalled_premise(view, "finding.snop_hazard.premise", nops, ev)
    summary = (f"{_n(len(nops), 's_nop')} {noun(len(nops), 'holds', 'hold')} {_pct(share)} of the stall cycles "
               f"({_lines_text(lines)}); {noun(len(nops), 'it pads', 'they pad')} {top}")
    said = msg("finding.snop_hazard.summary", n=len(nops), share=_pct(share), lines=_lines_msg(lines),
               pairs=[f"{d['before']} -> {d['after']} ({d['s_nops']})" for d in padded[:3]])
    return [_pattern(view, "snop_hazard", "s_nop hazard padding between dependent instructions", nops,
                     {"summary": summary, "s_nops": len(nops), "padded": padded, "lines": lines,
                      "top": view.instr_json(nops, 5), **ev},
                     ("Fewer hazards: schedule independent instructions between each padded pair named above "
                      "(the instruction that writes a result and the one that reads it right after) so the "
                      "compiler needs no padding, or use the instruction forms that need none."),
                     words("snop_hazard", said), premise)]


@detector("wgmma_wait")
def detect_wgmma_wait(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Warps wait on WARPGROUP.DEPBAR for wgmma results (NCU's stall_barrier on Hopper), not a CTA barrier."""
    waits = [p for p, i in enumerate(view.ins)
             if i.asm.startswith(WGMMA_WAIT) and p not in taken and i.stall_cycles]
    if not waits:
        return []
    share, _ = view.share(waits)
    barrier = sum(view.ins[p].extra.get("stall_reasons_not_issued", {}).get("stall_barrier", 0) for p in waits)
    lines = view.lines_json(waits, 3)
    ev: dict = {}
    premise = stalled_premise(view, "finding.wgmma_wait.premise", waits, ev)
    summary = (f"{_n(len(waits), f'{WGMMA_WAIT} wait')} {noun(len(waits), 'holds', 'hold')} {_pct(share)} of the stall samples "
               f"({barrier:,} of them NCU's stall_barrier) at {_lines_text(lines)}: warps wait for their "
               "asynchronous warpgroup MMA (wgmma) results, not for sibling warps at a CTA barrier")
    said = msg("finding.wgmma_wait.summary", n=len(waits), share=_pct(share), barrier=f"{barrier:,}",
               lines=_lines_msg(lines))
    return [_pattern(view, "wgmma_wait", "Waiting for wgmma results (WARPGROUP.DEPBAR): the tensor pipe or "
                     "a shallow wgmma pipeline binds", waits,
                     {"summary": summary, "waits": view.instr_json(waits, 6), "lines": lines,
                      "stall_barrier_samples": barrier, **ev},
                     ("Keep more wgmma groups in flight: deepen the software pipeline (more stages, the next "
                      "K tile's loads issued before this tile's wait), wait for all but the newest group "
                      "instead of 0, and give each wait more MMA work (a larger BLOCK_K); if the tensor pipe "
                      "already runs near its peak, the kernel is compute-bound and this is the roof."),
                     words("wgmma_wait", said), premise)]
