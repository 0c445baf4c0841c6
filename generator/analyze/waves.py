"""Early-exit waves, representative captures (DOMAIN §1.5) and stall by opcode (§1.6).

A sampled wave *exits early* when it executes fewer than 5 % of the instructions of the
capture's longest sampled wave, or fewer than 2 % of the kernel's static instructions.
code.json's per-instruction stall is the sum over the sampled waves, so subtracting the
early-exit waves' rows (``[time, type, stall, duration, pc_index]``) from it leaves the
hotspots of the working waves. Example (pa, shared sweep): 48 of 56 waves exit early
and hold 25,144 of 70,036 stall cycles; the working waves hold 44,892.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from generator.analyze.message import sentence
from generator.model import Instruction, WaveFile, WavesSummary, record
from generator.read import att

#: A wave exits early below this fraction of the longest sampled wave's instructions...
EARLY_EXIT_OF_LONGEST = 0.05
#: ... or below this fraction of the kernel's static instructions.
EARLY_EXIT_OF_STATIC = 0.02
#: Working-wave hotspots are computed when early-exit waves hold at least this stall share.
WORKING_HOTSPOTS_FROM = 0.20


def not_representative_text(summary: WavesSummary | None) -> str:
    """What a capture with no working wave says first, wherever it is shown ("" otherwise)."""
    if summary is None or summary.representative:
        return ""
    return sentence("msg.notrep", n=summary.sampled)


def early_exit_flags(counts: Sequence[int], static_instructions: int) -> list[bool]:
    """Per wave (instruction counts), True when it exits early."""
    longest = max(counts, default=0)
    return [n < EARLY_EXIT_OF_LONGEST * longest or n < EARLY_EXIT_OF_STATIC * static_instructions
            for n in counts]


def stall_by_pc(rows: Iterable[Sequence[int]]) -> tuple[dict[int, int], dict[int, int]]:
    """Stall cycles and cycles (durations) per pc_index summed over wave rows
    ``[time, type, stall, duration, pc]``: code.json's Stall and Latency are these sums over
    every sampled wave (pa, shared sweep: 70,036 and 106,632, equal at each of its pcs)."""
    stall: dict[int, int] = {}
    cycles: dict[int, int] = {}
    for row in rows:
        pc = row[4]
        stall[pc] = stall.get(pc, 0) + row[2]
        cycles[pc] = cycles.get(pc, 0) + row[3]
    return stall, cycles


def needs_working_hotspots(summary: WavesSummary) -> bool:
    """True when early-exit waves hold enough stall (>= 20 %) to distort the capture's hotspots."""
    return summary.working > 0 and summary.early_exit_stall_share >= WORKING_HOTSPOTS_FROM


def working_instructions(instructions: Sequence[Instruction], early_stall: Mapping[int, int],
                         early_cycles: Mapping[int, int] | None = None) -> list[Instruction]:
    """The instructions with the early-exit waves' stall cycles and cycles taken out (never below 0)."""
    early_cycles = early_cycles or {}
    return [replace(ins, stall_cycles=max(0, ins.stall_cycles - early_stall.get(ins.pc_index, 0)),
                    total_cycles=max(0, ins.total_cycles - early_cycles.get(ins.pc_index, 0)))
            if ins.pc_index in early_stall else ins for ins in instructions]


def opcode(asm: str) -> str:
    """The first token of an instruction's text (``s_waitcnt vmcnt(0)`` -> ``s_waitcnt``)."""
    parts = asm.split(None, 1)
    return parts[0].lower() if parts else ""


def stall_by_opcode(instructions: Iterable[Instruction]) -> dict[str, dict[str, int]]:
    """Per opcode: stall cycles and static instruction count, ranked by stall (ties: first seen).

    ``{"s_nop": {"stall_cycles": 236968, "instructions": 310}, ...}``; opcodes without
    stall are kept at the end so that the table can say how many there are.
    """
    stall: dict[str, int] = {}
    count: dict[str, int] = {}
    for ins in instructions:
        parts = ins.asm.split(None, 1)  # opcode(), inline: this runs once per instruction
        op = parts[0].lower() if parts else ""
        stall[op] = stall.get(op, 0) + ins.stall_cycles
        count[op] = count.get(op, 0) + 1
    ranked = sorted(stall, key=lambda op: -stall[op])
    return {op: {"stall_cycles": stall[op], "instructions": count[op]} for op in ranked}


@record
class WaveReading:
    """The wave summary of one capture and, when it matters, its working-wave instructions."""

    summary: WavesSummary
    working: list[Instruction] | None  # None unless early-exit waves hold >= 20 % of stalls
    notes: list[str]


def read_waves(capture_dir: str, waves: Sequence[WaveFile], instructions: Sequence[Instruction]) -> WaveReading:
    """Count each sampled wave's instructions (file heads only), then parse the early-exit
    waves' files (short by definition) to take their stall out of code.json's sums."""
    notes: list[str] = []
    present = att.present_waves(capture_dir, waves)
    if len(present) < len(waves):
        notes.append(sentence("msg.waves.missing", n=len(waves) - len(present), total=len(waves)))
    counts = att.wave_instruction_counts(capture_dir, present)
    flags = early_exit_flags(counts, len(instructions))
    early, early_cycles = stall_by_pc(row for w, f in zip(present, flags) if f
                                      for row in att.read_wave(capture_dir, w))
    total = sum(ins.stall_cycles for ins in instructions)
    n_early = sum(flags)
    summary = WavesSummary(sampled=len(counts), early_exit=n_early, working=len(counts) - n_early,
                           early_exit_stall_cycles=sum(early.values()), total_stall_cycles=total)
    working = working_instructions(instructions, early, early_cycles) if needs_working_hotspots(summary) else None
    return WaveReading(summary=summary, working=working, notes=notes)
