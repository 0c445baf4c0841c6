"""AMD PC-sampling capture: an ATT capture's files written by another mode (DOMAIN §1.1).

``filenames.json`` says ``"pc_sampling": true, "thread_trace": false`` and ``wave_filenames`` is
null: no wave files, no wave states, no occupancy timeline. code.json (version 3.0.0) names its
columns ``ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, PC_Issued,
PC_Stalled, Stall_Reasons``; Latency/Stall/Idle stay 0, ``PC_Issued`` / ``PC_Stalled`` count
samples and ``Stall_Reasons`` holds one count of stalled samples per reason, in the order
ROCprof Compute Viewer names them (``STALL_REASONS``).

How the samples fill the shared model (``Instruction``), as Nsight Compute's do: ``stall_cycles``
holds the stalled samples, ``total_cycles`` all samples (issued + stalled), ``issued_samples`` the
issued ones, ``extra["stall_reasons"]`` the reasons with a count; the capture's ``stall_unit`` is
``"samples"``. An instruction's ``type`` is our opcode class (DOMAIN §1.2), the reason stays beside it.
"""

from __future__ import annotations

import os

from generator.errors import InputError
from generator.model import UNKNOWN_LOC, CaptureRef, Instruction
from generator.read import att

#: Stall reasons of a PC-sampling code.json row, by position: the names ROCprof Compute Viewer
#: gives them (``Config::StallReasonColors`` in src/config/config.cpp), in its order.
STALL_REASONS = ("NONE", "Inst Fetch", "ALU Dep", "Waitcnt", "Internal", "Barrier", "ARB Loss",
                 "Pipe Stall", "Other Wait", "Sleeping")
#: The viewer's name for a position past the known ones.
UNKNOWN_REASON = "UNKNOWN"
#: The sample columns a PC-sampling code.json must name in its header.
SAMPLE_COLUMNS = ("PC_Issued", "PC_Stalled", "Stall_Reasons")

KIND = "pc_sampling"


def capture_flags(capture_dir: str) -> dict | None:
    """``filenames.json`` of a capture folder, when it is an object (None when absent)."""
    path = os.path.join(capture_dir, "filenames.json")
    if not os.path.isfile(path):
        return None
    data = att.read_json(path)
    return data if isinstance(data, dict) else None


def is_pc_sampling(capture_dir: str) -> bool:
    """True when ``filenames.json`` says PC sampling without thread trace."""
    flags = capture_flags(capture_dir)
    return bool(flags) and flags.get("pc_sampling") is True and not flags.get("thread_trace")


def reason_name(position: int) -> str:
    """The viewer's name of the stall reason at ``position``."""
    return STALL_REASONS[position] if 0 <= position < len(STALL_REASONS) else UNKNOWN_REASON


def _reasons(cell: object, path: str, row_no: int) -> dict[str, int]:
    """``{reason: stalled samples}`` of one row's ``Stall_Reasons`` list (reasons with none left out)."""
    if not isinstance(cell, list):
        raise InputError(path, f"row {row_no}: Stall_Reasons is {cell!r}, not a list")
    out: dict[str, int] = {}
    for k, value in enumerate(cell):
        n, _ = att._cell(value, path, row_no, "Stall_Reasons")
        if n:
            name = reason_name(k)
            out[name] = out.get(name, 0) + n
    return out


def sample_columns(header: object, path: str) -> tuple[int, int, int]:
    """Positions of PC_Issued, PC_Stalled, Stall_Reasons in the header; an InputError naming the
    missing ones otherwise."""
    names = header if isinstance(header, list) else header.split(",") if isinstance(header, str) else []
    where = {n.strip().lower(): i for i, n in enumerate(names) if isinstance(n, str)}
    missing = [c for c in SAMPLE_COLUMNS if c.lower() not in where]
    if missing:
        raise InputError(path, 'a PC-sampling capture (filenames.json "pc_sampling": true) whose header names no '
                               + ", ".join(missing) + " column")
    return tuple(where[c.lower()] for c in SAMPLE_COLUMNS)  # type: ignore[return-value]


def load_samples(path: str) -> tuple[list[Instruction], str | None, int]:
    """Instructions of a PC-sampling ``code.json`` (samples in their cycle fields, see the module
    docstring), the kernel name from its label row, and the non-int cells counted as 0."""
    data = att.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("code"), list):
        raise InputError(path, 'expected an object with a "code" list')
    i_asm, i_pc, i_loc, i_addr, i_hit = att.code_columns(data.get("header"))[:5]
    i_issued, i_stalled, i_reasons = sample_columns(data.get("header"), path)
    width = max(i_asm, i_pc, i_loc, i_addr, i_hit, i_issued, i_stalled, i_reasons) + 1
    out: list[Instruction] = []
    kernel_name, odd = None, 0
    for row_no, row in enumerate(data["code"]):
        if not isinstance(row, list):
            raise InputError(path, f"row {row_no}: expected a list, got {type(row).__name__}")
        asm = row[i_asm] if len(row) > i_asm else None
        pc = row[i_pc] if len(row) > i_pc else None
        if att.is_label(asm, pc):
            if kernel_name is None and isinstance(asm, str) and asm.startswith(";"):
                kernel_name = asm.lstrip("; ").strip() or None
            continue
        if len(row) < width:
            raise InputError(path, f"row {row_no}: {len(row)} cells, expected {width}")
        if not isinstance(asm, str):
            raise InputError(path, f"row {row_no}: asm is {asm!r}, not text")
        cells = []
        for i, name in ((i_addr, "pc_addr"), (i_hit, "exec_count"), (i_issued, "PC_Issued"), (i_stalled, "PC_Stalled")):
            value, was_odd = att._cell(row[i], path, row_no, name)
            odd += was_odd
            cells.append(value)
        addr, hit, issued, stalled = cells
        loc = row[i_loc]
        reasons = _reasons(row[i_reasons], path, row_no)
        out.append(Instruction(pc, asm, att.classify(asm), loc if isinstance(loc, str) and loc else UNKNOWN_LOC,
                               pc_addr=addr, exec_count=hit, total_cycles=issued + stalled, stall_cycles=stalled,
                               issued_samples=issued, extra={"stall_reasons": reasons} if reasons else {}))
    return out, kernel_name, odd


def load_capture(ref: CaptureRef) -> att.AttCapture:
    """A PC-sampling capture folder read as a capture of its own kind: samples, no waves."""
    cdir = ref.path
    code_path = os.path.join(cdir, "code.json")
    if not os.path.exists(code_path):
        raise InputError(code_path, "file is missing: not a complete PC-sampling capture")
    instructions, jit_name, odd = load_samples(code_path)
    sources = att.load_snapshots(cdir)
    return att.AttCapture(path=cdir, instructions=instructions, jit_name=jit_name, odd_cells=odd,
                          sources={v: os.path.join(cdir, local) for v, local in sources.items()},
                          waves=[], wave_states=None, kind=KIND)


def stall_by_reason(instructions: list[Instruction]) -> dict[str, int]:
    """Stalled samples per reason over a capture, in the viewer's order (reasons with none left out)."""
    acc: dict[str, int] = {}
    for ins in instructions:
        for name, n in ins.extra.get("stall_reasons", {}).items():
            acc[name] = acc.get(name, 0) + n
    order = {name: k for k, name in enumerate((*STALL_REASONS, UNKNOWN_REASON))}
    return {name: acc[name] for name in sorted(acc, key=order.__getitem__)}
