"""Typed objects passed between stages (discover -> analyze -> score -> views -> render).

Every analysis of a profile, AMD ATT or NVIDIA Nsight Compute, ends in a
``CaptureAnalysis``: instructions with their cycles, ranked source lines, totals,
wave states and occupancy. Pages, advice and diffs read only these objects.
"""

from __future__ import annotations

import dataclasses
import reprlib
from dataclasses import field
from functools import cache
from typing import Any


def record(cls=None, /, *, frozen: bool = False, slots: bool = False):
    """``dataclasses.dataclass`` for this package's classes: the same fields, ``__init__``, ``__repr__`` text and
    ``__eq__`` answers, but ``__repr__`` (and, unless frozen, ``__eq__``) are functions every record shares
    instead of methods compiled for each class. Python 3.11 compiles each generated method apart, and a
    cold build imports 183 dataclasses before its workers can start (issue 41: 0.19 s -> 0.15 s of the build's
    imports, medians of 6). A frozen record keeps its generated ``__eq__``: its ``__hash__`` is made with it.
    A method the class writes itself is kept."""

    def make(c: type) -> type:
        own = {name for name in ("__repr__", "__eq__", "__hash__") if name in c.__dict__}
        made = dataclasses.dataclass(c, frozen=frozen, slots=slots, repr=False, eq=frozen)
        if "__repr__" not in own:
            made.__repr__ = _record_repr
        if not frozen and "__eq__" not in own:
            made.__eq__ = _record_eq
            if "__hash__" not in own:
                made.__hash__ = None  # as a dataclass that compares by value: unhashable
        return made

    return make if cls is None else make(cls)


@cache
def _field_names(cls: type, shown: bool) -> tuple[str, ...]:
    """A record class's fields that its ``__repr__`` shows (``shown``) or its ``__eq__`` compares."""
    return tuple(f.name for f in dataclasses.fields(cls) if (f.repr if shown else f.compare))


@reprlib.recursive_repr()
def _record_repr(self) -> str:
    """``Class(a=1, b='x')``, as a dataclass writes it ('...' where a record holds itself)."""
    return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in _field_names(type(self), True))})"


def _record_eq(self, other: object):
    """Equal when of the very same class with equal compared fields, in order (a dataclass's ``__eq__``)."""
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _field_names(type(self), False)
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


#: Version of every JSON document this tool writes (analyze, verdicts, api/).
FORMAT_VERSION = 1
#: Version of the site's ``api/`` documents (``generator.site.api``): 2 leaves out what only the
#: pages show (ISA rows, MFMA notes, the roofline's skipped rows) and null provider fields; 3 names the
#: kernel row's "vs any" geomean ``kernel_vs_any`` (2: ``geomean_vs_best``, the score's name for another number).
API_FORMAT_VERSION = 3

UNKNOWN_LOC = "<unknown>"

#: Stall types in the order of DOMAIN §1.2 (the classifier's order).
STALL_TYPES = (
    "VMEM-wait",
    "LDS/SMEM-wait",
    "EXP-wait",
    "waitcnt",
    "barrier",
    "VMEM-load",
    "VMEM-store",
    "LDS",
    "SMEM",
    "MFMA/FMA",
    "other",
)

#: Trace-decoder wave states 1..4 (``wstates<K>.json``; DOMAIN §1.1).
WAVE_STATES = ("IDLE", "EXEC", "WAIT", "STALL")


@record
class Instruction:
    """One ISA (or SASS) instruction with its measured cycles."""

    pc_index: int
    asm: str
    type: str
    source_loc: str  # "/virtual/path/file.py:LINE" or UNKNOWN_LOC
    pc_addr: int = 0
    exec_count: int = 0
    total_cycles: int = 0
    stall_cycles: int = 0
    #: ATT code.json column 9 (``Idle``): cycles the wave was not scheduled (DOMAIN §1.1)
    idle_cycles: int = 0
    #: sampled captures only (Nsight Compute, AMD PC sampling): samples on an issued instruction
    issued_samples: int = 0
    #: vendor extras, e.g. NCU stall reasons {reason: samples}
    extra: dict[str, Any] = field(default_factory=dict)


@record
class LineHotspot:
    """One source line: summed cycles of its instructions."""

    source_loc: str
    stall_cycles: int
    total_cycles: int
    share: float  # of all stall cycles
    stall_rate: float  # stall / total of this line
    dominant_type: str
    stall_by_type: dict[str, int]
    pc_indices: list[int]


@record
class Occupancy:
    """Waves per SIMD and the resource that binds (DOMAIN §1.3)."""

    arch: str
    kernel: str | None
    waves_per_simd: int
    limiter: str  # "VGPR", "LDS", "SGPR", or "NONE" at the hardware maximum; on a tie the first of limiters
    vgpr_limit: int
    lds_limit: int
    sgpr_limit: int
    arch_vgpr_isa: int
    arch_vgpr_csv: int | None
    accum_vgpr: int
    vgpr_total: int
    sgpr: int | None
    lds_bytes: int | None
    workgroup_size: int | None
    next_waves: int | None
    next_vgpr_total: int | None
    vgpr_disagreement: bool
    notes: list[str] = field(default_factory=list)
    max_waves: int = 8
    #: every resource at the lowest limit, in the order VGPR, LDS, SGPR (several on a tie; empty at the maximum)
    limiters: list[str] = field(default_factory=list)
    #: waves per SIMD the traced dispatch's grid asks of its busiest CU (workgroups dealt round-robin over
    #: the CUs: ceil(ceil(workgroups / CUs) x waves per workgroup / SIMDs per CU)); None when unknown
    grid_waves_per_simd: int | None = None

    @property
    def cap_binds(self) -> bool:
        """True when a resource caps the waves per SIMD and the grid asks for more than the cap allows
        (an unknown grid counts as asking); a cap the grid never reaches holds nothing back at this shape."""
        if self.at_hardware_max or not self.limiters:
            return False
        return self.grid_waves_per_simd is None or self.grid_waves_per_simd > self.waves_per_simd

    @property
    def resident(self) -> int:
        """Waves per SIMD that run on the busiest CU: the resources' cap, or fewer where the traced grid gives
        fewer (rmsnorm: the cap allows 8, its 1,024 four-wave workgroups give 4; fused_rope_cache 8 and 1)."""
        d = self.grid_waves_per_simd
        return self.waves_per_simd if d is None else min(self.waves_per_simd, d)

    @property
    def at_hardware_max(self) -> bool:
        """True when every resource allows the hardware's maximum waves per SIMD."""
        return self.waves_per_simd >= self.max_waves

    @property
    def tied(self) -> bool:
        """True when several resources bind at the same count (freeing one alone gains nothing)."""
        return len(self.limiters) > 1

    def binds_alone(self, resource: str) -> bool:
        """True when ``resource`` is the one resource that binds (advice to free it can gain a wave)."""
        return self.limiters == [resource]

    @property
    def limited_by(self) -> str:
        """What binds, for display: "VGPR", "VGPR and LDS" on a tie, "hardware max" when nothing does."""
        if self.at_hardware_max or not self.limiters:
            return "hardware max" if self.at_hardware_max else self.limiter
        return " and ".join([", ".join(self.limiters[:-1]), self.limiters[-1]]) if self.tied else self.limiters[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "waves_per_simd": self.waves_per_simd,
            "limiter": self.limiter,
            "limiters": list(self.limiters),
            "vgpr_limit": self.vgpr_limit,
            "lds_limit": self.lds_limit,
            "sgpr_limit": self.sgpr_limit,
            "arch_vgpr_isa": self.arch_vgpr_isa,
            "arch_vgpr_csv": self.arch_vgpr_csv,
            "accum_vgpr": self.accum_vgpr,
            "vgpr_total": self.vgpr_total,
            "sgpr": self.sgpr,
            "lds_bytes": self.lds_bytes,
            "workgroup_size": self.workgroup_size,
            "next_waves": self.next_waves,
            "next_vgpr_total": self.next_vgpr_total,
            "vgpr_disagreement": self.vgpr_disagreement,
            "at_hardware_max": self.at_hardware_max,
            "grid_waves_per_simd": self.grid_waves_per_simd,
            "cap_binds": self.cap_binds,
            "kernel": self.kernel,
            "arch": self.arch,
            "notes": list(self.notes),
        }


@record
class WaveFile:
    """One sampled wave listed in filenames.json (not parsed until needed)."""

    file: str
    se: int
    sm: int
    slot: int
    wave: int
    begin: int
    end: int

    @property
    def duration(self) -> int:
        return self.end - self.begin


@record(frozen=True)
class WavesSummary:
    """How many sampled waves did work, and whether the capture represents the kernel (DOMAIN §1.5)."""

    sampled: int
    early_exit: int
    working: int
    early_exit_stall_cycles: int
    total_stall_cycles: int

    @property
    def early_exit_stall_share(self) -> float:
        return self.early_exit_stall_cycles / self.total_stall_cycles if self.total_stall_cycles else 0.0

    @property
    def representative(self) -> bool:
        """False when waves were sampled and none did work: the hotspots describe launch and exit only."""
        return self.sampled == 0 or self.working > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "sampled": self.sampled,
            "early_exit": self.early_exit,
            "working": self.working,
            "early_exit_stall_share": self.early_exit_stall_share,
            "representative": self.representative,
        }


class RankedHotspots:
    """The top-k readings shared by a capture and its working waves (``lines`` and
    ``instruction_rank`` ranked by stall, ties in instruction order)."""

    lines: list[LineHotspot]
    instructions: list[Instruction]
    instruction_rank: list[int]

    def hot_lines(self, k: int) -> list[LineHotspot]:
        """The top ``k`` source lines that stall at all (the reference lists no others)."""
        return [ln for ln in self.lines[:k] if ln.stall_cycles > 0]

    def top_instructions(self, k: int) -> list[Instruction]:
        """The top ``k`` instructions that stall at all (the reference lists no others)."""
        return [ins for ins in (self.instructions[i] for i in self.instruction_rank[:k]) if ins.stall_cycles > 0]


@record
class Hotspots(RankedHotspots):
    """Ranked hotspots of a set of instructions (a capture's working waves, say)."""

    instructions: list[Instruction]
    total_stall_cycles: int
    stall_by_type: dict[str, int]
    lines: list[LineHotspot]
    instruction_rank: list[int]

    @property
    def total_cycles(self) -> int:
        """Cycles of these instructions (for working waves: the early-exit waves' taken out)."""
        return sum(i.total_cycles for i in self.instructions)

    @property
    def stall_ratio(self) -> float:
        total = self.total_cycles
        return self.total_stall_cycles / total if total else 0.0

    def to_json(self, topk: int = 15) -> dict[str, Any]:
        total = self.total_stall_cycles
        return {
            "total_cycles": self.total_cycles,
            "total_stall_cycles": total,
            "stall_ratio": self.stall_ratio,
            "stall_by_type": dict(self.stall_by_type),
            "top_lines": [line_json(ln) for ln in self.hot_lines(topk)],
            "top_instructions": [instruction_json(ins, total) for ins in self.top_instructions(topk)],
        }


def line_json(ln: LineHotspot) -> dict[str, Any]:
    """One ``top_lines`` entry of ``analyze --json``."""
    return {
        "source_loc": ln.source_loc,
        "stall_cycles": ln.stall_cycles,
        "total_cycles": ln.total_cycles,
        "share": ln.share,
        "stall_rate": ln.stall_rate,
        "dominant_type": ln.dominant_type,
    }


def stall_reason(ins: Instruction) -> str | None:
    """The NCU stall reason with most samples on an instruction (None for ATT captures)."""
    reasons = ins.extra.get("stall_reasons_not_issued") or ins.extra.get("stall_reasons") or {}
    return max(reasons, key=reasons.get) if reasons else None


def instruction_json(ins: Instruction, total: int, sampled: bool = False) -> dict[str, Any]:
    """One ``top_instructions`` entry of ``analyze --json`` (``reason``: the sampler's, beside our type;
    ``idle_cycles`` on ATT captures, ``issued_samples`` on sampled ones (Nsight Compute, AMD PC
    sampling): never one field for both)."""
    out = {
        "pc_index": ins.pc_index,
        "asm": ins.asm,
        "type": ins.type,
        "reason": stall_reason(ins),
        "stall_cycles": ins.stall_cycles,
        "share": (ins.stall_cycles / total) if total else 0.0,
        "source_loc": ins.source_loc,
    }
    if sampled:
        out["issued_samples"] = ins.issued_samples
    else:
        out["idle_cycles"] = ins.idle_cycles
    return out


@record
class CaptureAnalysis(RankedHotspots):
    """Everything we know about one profiled dispatch (one ATT capture or NCU launch)."""

    kernel: str  # bundle / kernel name
    capture: str  # capture directory name (or NCU launch id)
    label: str  # small, big, ... ("" when unknown)
    path: str  # path relative to the sweep root, "/" separated
    vendor: str  # "amd" or "nvidia"
    arch: str
    arch_source: str  # "agent_info", "isa", "ncu"
    stall_unit: str  # "cycles" (ATT), "warp-stall samples" (NCU) or "samples" (AMD PC sampling)
    instructions: list[Instruction]
    total_cycles: int
    total_stall_cycles: int
    stall_ratio: float
    stall_by_type: dict[str, int]  # ranked by cycles, stable
    lines: list[LineHotspot]  # all lines, ranked by stall (stable)
    instruction_rank: list[int]  # positions into `instructions`, ranked by stall (stable)
    source_mapped: tuple[int, int]  # (mapped rows, all rows)
    instruction_mix: dict[str, int]
    waves: list[WaveFile] = field(default_factory=list)
    wave_states: dict[str, float] | None = None
    occupancy: Occupancy | None = None
    sources: dict[str, str] = field(default_factory=dict)  # virtual path -> safe local path
    jit_kernel: str | None = None
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    waves_summary: WavesSummary | None = None  # ATT only (DOMAIN §1.5)
    working: Hotspots | None = None  # working waves only, when early exits distort the hotspots
    stall_by_opcode: dict[str, dict[str, int]] = field(default_factory=dict)  # DOMAIN §1.6

    @property
    def sampled(self) -> bool:
        """True when the stall numbers are samples (Nsight Compute, AMD PC sampling), not cycles:
        such a capture has no wave files, so no wave states, timeline or early-exit waves."""
        return self.stall_unit != "cycles"

    @property
    def kind(self) -> str:
        """``att``, ``pc_sampling`` (AMD) or ``ncu`` (NVIDIA)."""
        return "ncu" if self.vendor == "nvidia" else "pc_sampling" if self.sampled else "att"

    @property
    def representative(self) -> bool:
        """False when no sampled wave did work (the hotspots describe launch and exit only)."""
        return self.waves_summary is None or self.waves_summary.representative

    @property
    def mapped_fraction(self) -> float:
        mapped, total = self.source_mapped
        return mapped / total if total else 0.0

    @property
    def top_stall_type(self) -> str | None:
        for name, cycles in self.stall_by_type.items():
            if cycles > 0:
                return name
        return None


    @property
    def total_idle_cycles(self) -> int:
        """Sum of code.json's column 9: cycles the sampled waves sat unscheduled (ATT; 0 for NCU)."""
        return sum(i.idle_cycles for i in self.instructions)

    def wave_duration_stats(self) -> dict[str, float] | None:
        durs = sorted(w.duration for w in self.waves)
        if not durs:
            return None
        n = len(durs)
        mid = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) / 2
        return {"count": n, "min": durs[0], "median": mid, "max": durs[-1], "mean": sum(durs) / n}

    def to_json(self, topk: int = 15) -> dict[str, Any]:
        """The ``analyze --json`` object for this capture."""
        total = self.total_stall_cycles
        return {
            "format_version": FORMAT_VERSION,
            "kernel": self.kernel,
            "capture": self.capture,
            "label": self.label,
            "path": self.path,
            "vendor": self.vendor,
            "arch": self.arch,
            "arch_source": self.arch_source,
            "jit_kernel": self.jit_kernel,
            "stall_unit": self.stall_unit,
            "capture_kind": self.kind,
            "instructions": len(self.instructions),
            "total_cycles": self.total_cycles,
            "total_stall_cycles": self.total_stall_cycles,
            "stall_ratio": self.stall_ratio,
            "stall_by_type": dict(self.stall_by_type),
            "top_lines": [line_json(ln) for ln in self.hot_lines(topk)],
            "top_instructions": [instruction_json(ins, total, self.sampled) for ins in self.top_instructions(topk)],
            **({"total_issued_samples": sum(i.issued_samples for i in self.instructions)} if self.sampled
               else {"total_idle_cycles": self.total_idle_cycles}),
            "source_mapped": {"mapped": self.source_mapped[0], "total": self.source_mapped[1]},
            "instruction_mix": dict(self.instruction_mix),
            "waves": self.wave_duration_stats(),
            "wave_states": dict(self.wave_states) if self.wave_states is not None else None,
            "occupancy": self.occupancy.to_json() if self.occupancy else None,
            "waves_summary": self.waves_summary.to_json() if self.waves_summary else None,
            "working_waves": self.working.to_json(topk) if self.working else None,
            "stall_by_opcode": {op: dict(v) for op, v in self.stall_by_opcode.items()},
            "notes": list(self.notes),
            **({"extra": self.extra} if self.extra else {}),
        }


@record
class CaptureRef:
    """A capture directory found by discovery, before analysis."""

    path: str  # absolute path on disk
    rel: str  # relative to the sweep root
    name: str
    label: str
    format: str = "att"  # name of the CaptureFormat that found it
    skipped: str | None = None  # reason when it is an empty shell


@record
class Bundle:
    """One kernel bundle (``examples/<kernel>/``) as found on disk."""

    name: str
    path: str
    rel: str
    captures: list[CaptureRef]
    primary: str | None  # rel path of the primary capture
    primary_rule: str  # why that one is primary
    compute_files: dict[str, str]  # file name -> absolute path (compute_viewer/)
    source_files: dict[str, str]  # file name -> absolute path (source/)
    report: str | None  # REPORT.md path
    readme: str | None
    vendor: str = "amd"

    @property
    def usable_captures(self) -> list[CaptureRef]:
        return [c for c in self.captures if c.skipped is None]


@record
class Sweep:
    """A sweep root: its bundles and its campaign folders."""

    root: str
    bundles: list[Bundle]
    campaigns: dict[str, str]  # op name -> absolute folder
    kernels_json: str | None = None
