"""Hotspots of one capture: totals, stall by type, ranked source lines and instructions.

Reproduces the FlyDSL reference analyzer exactly (DOMAIN §1.2): stall per type, per source
line (dominant type among its stalling instructions) and per instruction, every ranking
stable (ties keep instruction order).
"""

from __future__ import annotations

import operator

from generator.model import UNKNOWN_LOC, Hotspots, Instruction, LineHotspot

#: The families ``instruction_mix`` counts besides MFMA, and the prefixes they all start with.
MIX_FAMILIES = ("buffer_load", "buffer_store", "ds_read", "ds_write", "global_load", "global_store")
_MIX_PREFIXES = ("v_mfma", "buffer_", "ds_", "global_")
_TOTAL, _STALL, _LOC = (operator.attrgetter(a) for a in ("total_cycles", "stall_cycles", "source_loc"))


def instruction_mix(instructions: list[Instruction]) -> dict[str, int]:
    """Counts of the instruction families the reference prints, plus global memory ops."""
    mix = {"MFMA": 0, "buffer_load": 0, "buffer_store": 0, "ds_read": 0, "ds_write": 0,
           "global_load": 0, "global_store": 0}
    for ins in instructions:
        parts = ins.asm.split(None, 1)
        mnemonic = parts[0].lower() if parts else ""
        if not mnemonic.startswith(_MIX_PREFIXES):  # most instructions: no family
            continue
        if mnemonic.startswith("v_mfma"):
            mix["MFMA"] += 1
        else:
            for family in MIX_FAMILIES:
                if mnemonic.startswith(family):
                    mix[family] += 1
                    break
    return mix


def rank_stable(values: list[int]) -> list[int]:
    """Positions ordered by value, highest first; ties keep input order."""
    return sorted(range(len(values)), key=lambda i: -values[i])


def stall_breakdown(instructions: list[Instruction]) -> dict[str, int]:
    """Stall cycles per type, ranked (ties keep first-seen order); zero types dropped."""
    acc: dict[str, int] = {}
    for ins in instructions:
        if ins.stall_cycles:
            acc[ins.type] = acc.get(ins.type, 0) + ins.stall_cycles
    names = list(acc)
    return {names[i]: acc[names[i]] for i in rank_stable([acc[n] for n in names])}


def line_hotspots(instructions: list[Instruction], total_stall: int) -> list[LineHotspot]:
    """Per source line sums, ranked by stall cycles (stable in first-seen order)."""
    order: list[str] = []
    stall: dict[str, int] = {}
    total: dict[str, int] = {}
    by_type: dict[str, dict[str, int]] = {}
    pcs: dict[str, list[int]] = {}
    for ins in instructions:
        loc = ins.source_loc
        if loc not in stall:
            order.append(loc)
            stall[loc] = total[loc] = 0
            by_type[loc] = {}
            pcs[loc] = []
        stall[loc] += ins.stall_cycles
        total[loc] += ins.total_cycles
        pcs[loc].append(ins.pc_index)
        if ins.stall_cycles > 0:
            by_type[loc][ins.type] = by_type[loc].get(ins.type, 0) + ins.stall_cycles
    ranked = rank_stable([stall[loc] for loc in order])
    out = []
    for i in ranked:
        loc = order[i]
        types = by_type[loc]
        dominant = max(types, key=types.get) if types else "-"
        out.append(LineHotspot(
            source_loc=loc,
            stall_cycles=stall[loc],
            total_cycles=total[loc],
            share=stall[loc] / total_stall if total_stall else 0.0,
            stall_rate=stall[loc] / total[loc] if total[loc] else 0.0,
            dominant_type=dominant,
            stall_by_type=dict(types),
            pc_indices=pcs[loc],
        ))
    return out


def summarize(instructions: list[Instruction]) -> dict:
    """Totals, breakdowns and rankings shared by every capture format."""
    total_cycles = sum(map(_TOTAL, instructions))
    stalls = list(map(_STALL, instructions))
    total_stall = sum(stalls)
    mapped = len(instructions) - list(map(_LOC, instructions)).count(UNKNOWN_LOC)
    return {
        "total_cycles": total_cycles,
        "total_stall_cycles": total_stall,
        "stall_ratio": total_stall / total_cycles if total_cycles else 0.0,
        "stall_by_type": stall_breakdown(instructions),
        "lines": line_hotspots(instructions, total_stall),
        "instruction_rank": rank_stable(stalls),
        "source_mapped": (mapped, len(instructions)),
    }



def hotspots(instructions: list[Instruction]) -> Hotspots:
    """The ranked hotspots of a set of instructions (e.g. the working waves' share of them)."""
    total = sum(i.stall_cycles for i in instructions)
    return Hotspots(instructions=instructions, total_stall_cycles=total,
                    stall_by_type=stall_breakdown(instructions), lines=line_hotspots(instructions, total),
                    instruction_rank=rank_stable([i.stall_cycles for i in instructions]))
