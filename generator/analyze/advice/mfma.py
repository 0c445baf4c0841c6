"""MFMA notes: each MFMA's pipeline latency and how soon its result is read."""

from __future__ import annotations

import re
from typing import Any

from generator.analyze import isa
from generator.analyze.advice.view import KernelView
from generator.words import plural
from generator.model import CaptureAnalysis, record


@record
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


_S_NOP = re.compile(r"s_nop\s+(\d+)")
#: How far (instructions) to look for the first reader of an MFMA's result.
READER_WINDOW = 64
_STOPS = frozenset(("s_endpgm", "s_branch"))


def _first_reader(view: KernelView, p: int, dst: frozenset) -> tuple[int | None, int | None]:
    """(position of the first instruction reading ``dst`` after ``p``, independent instructions
    before it, ``s_nop N`` counting N+1), straight-line: a rewrite of ``dst`` or a branch stops."""
    uses, defs, mnemonics = view.uses, view.defs, view.mnemonics
    gap = 0
    for q in range(p + 1, min(len(view.ins), p + 1 + READER_WINDOW)):
        if not uses[q].isdisjoint(dst):
            return q, gap
        m = mnemonics[q]
        if not defs[q].isdisjoint(dst) or m in _STOPS or m.startswith("s_cbranch"):
            break
        nop = _S_NOP.match(view.ins[q].asm.strip()) if m == "s_nop" else None
        gap += int(nop.group(1)) + 1 if nop else 1
    return None, None


def _read_kind(view: KernelView, q: int, dst: frozenset) -> str:
    """"accumulate" when the reader at ``q`` is an MFMA taking ``dst`` as srcC only, else "read"."""
    ops, _ = isa.split_operands(view.ins[q].asm)
    src_c = set(isa.registers(ops[3])) if view.mfma[q] and len(ops) > 3 else set()
    front = set()
    for op in ops[1:3]:
        front.update(isa.registers(op))
    return "accumulate" if view.mfma[q] and (dst & src_c) and not (dst & front) else "read"


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
        dep, between = _first_reader(view, p, dst)
        kind = None if dep is None else _read_kind(view, dep, dst)
        short = dep is not None and kind == "read" and between is not None and between < need
        name = view.mnemonics[p]
        text = f"{lat.cycles}-cycle pipeline: a dependent read needs {plural(need, 'independent instruction')} before it"
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
