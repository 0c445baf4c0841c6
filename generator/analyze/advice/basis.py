"""What a plan, a finding and a sweep-reading group rest on: stall cycles, instructions, waves sampled.

A finding is only as strong as the capture it reads: fused_rope_cache's plan reads 4 sampled waves
(207 instructions, 17,856 cycles of which 12,412 stall), pa's the 8 working waves of 56 sampled
(44,892 stall cycles). ``plan_basis`` says it of a capture (on the basis the plan is ranked on:
``registry.ranked_on``), ``rests_on`` of one finding, ``group_basis`` of a sweep group; each has its
message (``advice.rests.*``).
"""

from __future__ import annotations

from typing import Any, Iterable

from generator.analyze.message import Items, Msg, msg
from generator.model import CaptureAnalysis


def plan_basis(analysis: CaptureAnalysis) -> dict[str, Any]:
    """``{basis, stall_cycles, cycles, instructions, waves_sampled, waves_working, unit}`` of the data a
    capture's plan is ranked on: the working waves when early exits distort it (DOMAIN §1.5), else all."""
    w, ws = analysis.working, analysis.waves_summary
    src = w if w is not None else analysis
    return {
        "basis": "working waves" if w is not None else "all waves",
        "stall_cycles": int(src.total_stall_cycles),
        "cycles": int(src.total_cycles),
        "instructions": len(analysis.instructions),
        "waves_sampled": ws.sampled if ws is not None else None,
        "waves_working": ws.working if ws is not None else None,
        "unit": "samples" if getattr(analysis, "stall_unit", "cycles") != "cycles" else "cycles",
    }


def rests_on(finding_cycles: int, basis: dict[str, Any]) -> dict[str, Any]:
    """One finding's basis: the plan's, with the stall cycles the finding itself holds."""
    return {**basis, "finding_stall_cycles": int(finding_cycles or 0)}


def capture_rest(findings: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The capture's plan basis as its findings (JSON) carry it: the first ``rests_on`` that reads the capture
    (the launch finding rests on the campaign's call times instead)."""
    return next((f["rests_on"] for f in findings if isinstance(f.get("rests_on"), dict)
                 and f["rests_on"].get("basis") != "call times"), None)


def _num(n: int) -> str:
    return f"{n:,}"


def waves_msg(basis: dict[str, Any]) -> Msg | str:
    """"4 waves sampled", "the 8 working waves of 56 sampled"; "" without wave files (Nsight Compute)."""
    sampled, working = basis.get("waves_sampled"), basis.get("waves_working")
    if not sampled:
        return ""
    if basis.get("basis") == "working waves":
        return msg("advice.rests.waves.working", working=working, sampled=sampled)
    return msg("advice.rests.waves", sampled=sampled)


def rests_msg(rest: dict[str, Any]) -> Msg:
    """The line a finding (or, without ``finding_stall_cycles``, a plan) shows: "rests on 9,648 of the
    12,412 stall cycles (17,856 cycles) of 207 instructions, 4 waves sampled"; a finding that owns no stall
    cycles (a limit, a flag) "rests on the capture's 207 instructions, 4 waves sampled"."""
    unit = ".samples" if rest.get("unit") == "samples" else ""
    common = {"total": _num(rest["stall_cycles"]), "cycles": _num(rest["cycles"]), "n": rest["instructions"],
              "waves": waves_msg(rest)}
    if rest.get("finding_stall_cycles"):
        return msg("advice.rests.finding" + unit, part=_num(rest["finding_stall_cycles"]), **common)
    if "finding_stall_cycles" in rest:  # a limit or a flag: it owns no stall cycles, it reads the capture
        return msg("advice.rests.capture", n=rest["instructions"], waves=common["waves"])
    return msg("advice.rests.plan" + unit, **common)


def group_basis(bases: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """What a sweep group rests on: its member captures' plans summed (captures, waves sampled and working,
    stall cycles, warp-stall samples); None without a capture."""
    bases = [b for b in bases if b]
    if not bases:
        return None
    cyc = [b for b in bases if b.get("unit") != "samples"]
    return {
        "captures": len(bases),
        "waves_sampled": sum(b.get("waves_sampled") or 0 for b in cyc),
        "waves_working": sum((b["waves_working"] if b.get("basis") == "working waves" else b.get("waves_sampled")) or 0
                             for b in cyc),
        "stall_cycles": sum(b["stall_cycles"] for b in cyc),
        "stall_samples": sum(b["stall_cycles"] for b in bases if b.get("unit") == "samples"),
    }


def group_msg(g: dict[str, Any]) -> Msg:
    """"rests on 2 captures: 64 waves sampled, 16 of them read; 128,256 stall cycles"."""
    parts: list[Msg] = []
    if g["waves_sampled"]:
        parts.append(msg("advice.rests.group.waves", sampled=g["waves_sampled"], read=g["waves_working"]))
    if g["stall_cycles"]:
        parts.append(msg("advice.rests.group.cycles", n=_num(g["stall_cycles"])))
    if g["stall_samples"]:
        parts.append(msg("advice.rests.group.samples", n=_num(g["stall_samples"])))
    return msg("advice.rests.group", n=g["captures"], parts=Items(tuple(parts), "advice.sweep.sep"))
