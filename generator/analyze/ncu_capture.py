"""Analyze each profiled launch of an NVIDIA capture (read by ``generator.read.ncu``).

How the NCU data fills the shared model (``CaptureAnalysis``): ``instructions`` are the
SASS rows; an instruction's ``total_cycles`` is its *All* warp-stall samples and its
``stall_cycles`` its *Not-issued* samples (``stall_unit = "warp-stall samples"``), and
``issued_samples`` the difference (a field of its own: ATT's ``idle_cycles`` is another quantity);
``stall_by_type`` sums the *Not Issued* reason columns through ``STALL_REASON_TYPES``, each
reason read with its instruction's opcode (``read_reason``, DOMAIN §4: ``stall_barrier`` on
``WARPGROUP.DEPBAR`` waits for wgmma results, MFMA/FMA), so it adds up to
``total_stall_cycles`` exactly. An instruction's ``type`` is the stall
type holding most of its not-issued samples (its opcode class when it has none); the
NCU reasons stay visible in ``Instruction.extra["stall_reasons"]`` and
``CaptureAnalysis.extra["ncu_stall_by_reason"]``. Source lines come from the
cuda,sass page (address -> file:line; paths shown by ``virtual_path``). SOL percentages, occupancy, registers, spills
and the rules come from the details page (tensor-pipe % from the raw page) and sit in
``CaptureAnalysis.extra["ncu"]``. ``occupancy`` stays None: the AMD waves-per-SIMD
model does not apply; NCU's own occupancy is in ``extra["ncu"]["occupancy"]``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from generator.analyze.message import sentence
from generator.analyze.ncu_metrics import classify_bottleneck, details_table, ncu_metrics
from generator.analyze.ncu_summary import WGMMA_REASON, read_reason
from generator.errors import InputError
from generator.model import (
    STALL_TYPES,
    UNKNOWN_LOC,
    Bundle,
    CaptureAnalysis,
    CaptureRef,
    Instruction,
    LineHotspot,
)
from generator.read import ncu
from generator.read.ncu_pages import (
    ALL_SAMPLES,
    EXECUTED,
    NOT_ISSUED,
    UNLISTED_REASON,
    CudaLaunch,
    DetailsLaunch,
    RawLaunch,
    SassLaunch,
    SassRow,
)

#: Every Nsight Compute warp-stall reason and the stall type of ours (DOMAIN §1.2) that
#: plays the same part. The one place this mapping lives; the NCU name stays beside it.
STALL_REASON_TYPES: dict[str, str] = {
    # waiting for data
    "stall_long_sb": "VMEM-wait",        # long scoreboard: an L1TEX result (global/local memory), like s_waitcnt vmcnt
    "stall_short_sb": "LDS/SMEM-wait",   # short scoreboard: an MIO result (shared memory, special math), like lgkmcnt
    "stall_wait": "waitcnt",             # fixed-latency dependency: a compiler-set wait count
    # synchronization
    "stall_barrier": "barrier",          # bar.sync / __syncthreads: waiting for sibling warps
    "stall_membar": "barrier",           # memory fence
    # memory queues full at issue
    "stall_lg": "VMEM-load",             # LG throttle: the local/global memory queue is full
    "stall_tex": "VMEM-load",            # TEX throttle: the texture/surface pipe is full
    "stall_drain": "VMEM-store",         # draining outstanding stores before EXIT
    "stall_mio": "LDS",                  # MIO throttle: the shared-memory/MIO queue is full
    "stall_imc": "SMEM",                 # immediate-constant cache miss (kernel arguments, constants)
    # compute
    "stall_math": "MFMA/FMA",            # math pipe throttle: the FMA/tensor pipe is busy
    # scheduling and front end
    "stall_not_selected": "other",       # eligible, another warp was picked
    "stall_selected": "other",           # picked: issuing, not a stall
    "stall_dispatch": "other",           # dispatch stall
    "stall_branch_resolving": "other",   # branch target not yet computed
    "stall_no_inst": "other",            # instruction cache miss
    "stall_misc": "other",               # miscellaneous
    "stall_sleep": "other",              # nanosleep / yield
    UNLISTED_REASON: "other",            # samples no reason column holds (see UNLISTED_REASON)
}
#: Reasons read with their opcode (``read_reason``) whose type differs from the reason's own (DOMAIN §4):
#: ``stall_barrier`` on ``WARPGROUP.DEPBAR`` waits for wgmma (tensor-core) results, like an MFMA
#: dependency stall on AMD, not for sibling warps at a CTA barrier.
READING_TYPES: dict[str, str] = {WGMMA_REASON: "MFMA/FMA"}
#: SASS opcode classes (first match on the opcode, dots stripped) for the instruction mix
#: and for instructions without stall samples.
OPCODE_CLASSES = (
    (("HGMMA", "HMMA", "IMMA", "IGMMA", "QGMMA", "BGMMA", "DMMA", "FFMA", "DFMA", "HFMA2"), "MFMA/FMA"),
    (("LDGSTS", "LDG", "LD", "UTMALDG", "UBLKCP", "LDGDEPBAR"), "VMEM-load"),
    (("STG", "ST", "RED", "ATOM", "ATOMG", "UTMASTG"), "VMEM-store"),
    (("LDS", "LDSM", "STS", "ATOMS", "STSM"), "LDS"),
    (("LDC", "ULDC"), "SMEM"),
    (("BAR", "MEMBAR", "SYNCS", "WARPSYNC", "ARRIVES"), "barrier"),
    (("DEPBAR",), "waitcnt"),
)
MIX_FAMILIES = ("MMA", "LDG", "STG", "LDS", "STS", "LDGSTS", "TMA", "BAR")


# ---------------------------------------------------------------- instructions

def stall_type(reason: str, asm: str = "") -> str:
    """Our stall type for an NCU reason read with the opcode of ``asm`` (``read_reason``; unknown: other)."""
    read = read_reason(reason, asm)
    return READING_TYPES.get(read) or STALL_REASON_TYPES.get(read, "other")


def opcode(asm: str) -> str:
    """The opcode of a SASS line without predicate and modifiers ("@P0 LDG.E.128 ..." -> LDG)."""
    words = asm.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0].upper() if words else ""


def opcode_class(asm: str) -> str:
    """Our instruction class of a SASS line (OPCODE_CLASSES; else other)."""
    op = opcode(asm)
    for names, kind in OPCODE_CLASSES:
        if op in names:
            return kind
    return "other"


def instruction_mix(instructions: list[Instruction]) -> dict[str, int]:
    """Counts of the SASS families that matter for tuning (tensor MMA, global, shared, TMA, barriers)."""
    mix = dict.fromkeys(MIX_FAMILIES, 0)
    for ins in instructions:
        op = opcode(ins.asm)
        if op.endswith("MMA"):
            mix["MMA"] += 1
        elif op == "LDGSTS":
            mix["LDGSTS"] += 1
        elif op in ("LDG", "STG", "LDS", "STS", "BAR"):
            mix[op] += 1
        elif op.startswith("UTMA") or op == "UBLKCP":
            mix["TMA"] += 1
    return mix


def _ranked(acc: dict[str, int]) -> dict[str, int]:
    """Non-zero entries, highest first, ties in first-seen order."""
    names = [k for k, v in acc.items() if v]
    return {k: acc[k] for k in sorted(names, key=lambda k: -acc[k])}


def add_types(acc: dict[str, int], reasons: dict[str, int], asm: str = "") -> None:
    """Add samples per NCU reason of one instruction (``asm``) to ``acc`` by stall type."""
    for reason, n in reasons.items():
        t = stall_type(reason, asm)
        acc[t] = acc.get(t, 0) + n


def types_of(reasons: dict[str, int], asm: str = "") -> dict[str, int]:
    """Samples per stall type, from samples per NCU reason on one instruction (``asm``), ranked."""
    acc: dict[str, int] = {}
    add_types(acc, reasons, asm)
    return _ranked(acc)


def capture_types(instructions: list[Instruction]) -> dict[str, int]:
    """Not-issued samples per stall type over a launch, each reason read with its instruction's opcode."""
    acc: dict[str, int] = {}
    for ins in instructions:
        add_types(acc, ins.extra.get("stall_reasons_not_issued", {}), ins.asm)
    return _ranked(acc)


def build_instruction(index: int, row: SassRow, loc: str) -> Instruction:
    """One SASS row as an Instruction: warp-stall samples in its cycle fields (the capture's
    ``stall_unit`` says so; they are samples, never cycles), NCU reasons in extra."""
    total = row.samples(ALL_SAMPLES)
    stall = row.samples(NOT_ISSUED)
    reasons_ni = row.reasons(not_issued=True)
    by_type = types_of(reasons_ni, row.asm)
    klass = opcode_class(row.asm)
    kind = next(iter(by_type)) if by_type else klass
    extra: dict[str, Any] = {"opcode_class": klass}
    reasons = row.reasons(not_issued=False)
    if reasons:
        extra["stall_reasons"] = reasons
    if reasons_ni:
        extra["stall_reasons_not_issued"] = reasons_ni
    return Instruction(
        pc_index=index, asm=row.asm, type=kind, source_loc=loc, pc_addr=row.address,
        exec_count=row.samples(EXECUTED), total_cycles=total, stall_cycles=stall,
        issued_samples=max(0, total - stall), extra=extra,
    )


def line_hotspots(instructions: list[Instruction], total_stall: int) -> list[LineHotspot]:
    """Per source line sums ranked by not-issued samples; types from the NCU reasons."""
    order: list[str] = []
    acc: dict[str, dict[str, Any]] = {}
    for ins in instructions:
        loc = ins.source_loc
        if loc not in acc:
            order.append(loc)
            acc[loc] = {"stall": 0, "total": 0, "types": {}, "pcs": []}
        a = acc[loc]
        a["stall"] += ins.stall_cycles
        a["total"] += ins.total_cycles
        a["pcs"].append(ins.pc_index)
        add_types(a["types"], ins.extra.get("stall_reasons_not_issued", {}), ins.asm)
    ranked = sorted(range(len(order)), key=lambda i: -acc[order[i]]["stall"])
    out = []
    for i in ranked:
        loc, a = order[i], acc[order[i]]
        types = _ranked(a["types"])
        out.append(LineHotspot(
            source_loc=loc, stall_cycles=a["stall"], total_cycles=a["total"],
            share=a["stall"] / total_stall if total_stall else 0.0,
            stall_rate=a["stall"] / a["total"] if a["total"] else 0.0,
            dominant_type=next(iter(types)) if types else "-",
            stall_by_type=types, pc_indices=a["pcs"],
        ))
    return out


_PIPE_RULE = re.compile(r"Tensor[^.]*? is the highest-utilized pipeline \(([\d.]+)%\)")


def tensor_fallback(d: DetailsLaunch | None, instructions: list[Instruction]) -> tuple[float | None, str]:
    """Tensor-pipe % without the raw page, and how it was found: "rule" (the HighPipeUtilization rule) or
    "nomma" (0: no MMA instruction); None when neither tells."""
    for rule in (d.rules if d else []):
        m = _PIPE_RULE.search(rule.description)
        if rule.name == "HighPipeUtilization" and m:
            return float(m.group(1)), "rule"
    if instructions and not any(opcode(i.asm).endswith("MMA") for i in instructions):
        return 0.0, "nomma"
    return None, ""


# ---------------------------------------------------------------- sources

def arch_of(cc: str | None) -> str | None:
    """Compute capability "9.0" -> "sm_90"."""
    m = re.match(r"^\s*(\d+)\.(\d+)\s*$", cc or "")
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


def virtual_path(path: str, root: str | None) -> str:
    """The file name shown for a source path of the export, free of the capture machine's layout.

    A file under the capture's ``source_root`` (provenance.json) becomes relative to it
    (``demo/kernels/softmax.py``); an installed package's file keeps the part after
    ``site-packages/`` (``triton/language/standard.py``); anything else stays as written.
    """
    if root:
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix):]
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    return path


def source_map(files: set[str], bundle: Bundle | None, base: str) -> dict[str, str]:
    """Virtual path of each source file -> its snapshot in the bundle's source/ folder."""
    snapshots = dict(bundle.source_files) if bundle else {}
    if not snapshots:
        folder = base if os.path.isdir(base) else os.path.dirname(base)
        cand = os.path.join(folder, "..", "..", "source")
        if os.path.isdir(cand):
            snapshots = {n: os.path.join(cand, n) for n in sorted(os.listdir(cand))}
    return {f: os.path.normpath(snapshots[os.path.basename(f)])
            for f in sorted(files) if os.path.basename(f) in snapshots}


# ---------------------------------------------------------------- launches

def launch_count(parts: dict[str, list]) -> int:
    """Launches in the exports; they must agree where several are present."""
    counts = {name: len(v) for name, v in parts.items() if v is not None}
    if not counts:
        return 0
    return max(counts.values())


def check_counts(parts: dict[str, list]) -> list[str]:
    """Notes for exports whose launch counts disagree (the smaller ones fill fewer launches)."""
    counts = {name: len(v) for name, v in parts.items() if v is not None}
    if len(set(counts.values())) > 1:
        return ["exports disagree on the number of launches: " +
                ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))]
    return []


def analyze_exports(cap: ncu.NcuCapture, kernel: str | None = None, label: str = "", rel: str = "",
                    bundle: Bundle | None = None) -> list[CaptureAnalysis]:
    """One CaptureAnalysis per profiled launch of a capture's exports."""
    ex, sass, cuda, details, raw, prov = cap.exports, cap.sass, cap.cuda, cap.details, cap.raw, cap.provenance
    parts = cap.pages
    n = launch_count(parts)
    if n == 0:
        raise InputError(ex.base, "no Nsight Compute export here (" + ", ".join(ncu.EXPORT_FILES) + ")")
    shared_notes = check_counts(parts)
    name = os.path.basename(os.path.normpath(ex.base))
    out = []
    for i in range(n):
        s = sass[i] if sass and i < len(sass) else None
        c = cuda[i] if cuda and i < len(cuda) else None
        d = details[i] if details and i < len(details) else None
        r = raw[i] if raw and i < len(raw) else None
        out.append(analyze_launch(i, n, s, c, d, r, prov, ex, kernel, label, name, rel, bundle, list(shared_notes)))
    return out


def analyze_launch(i: int, n: int, s: SassLaunch | None, c: CudaLaunch | None, d: DetailsLaunch | None,
                   r: RawLaunch | None, prov: dict, ex: ncu.Exports, kernel: str | None, label: str, name: str,
                   rel: str, bundle: Bundle | None, notes: list[str]) -> CaptureAnalysis:
    """The analysis of launch ``i`` of ``n``."""
    rows = s.rows if s else (c.rows if c else [])
    line_of = c.line_of if c else {}
    root = prov.get("source_root")
    instructions = []
    for k, row in enumerate(rows, 1):
        where = line_of.get(row.address)
        loc = f"{virtual_path(where[0], root)}:{where[1]}" if where else UNKNOWN_LOC
        instructions.append(build_instruction(k, row, loc))
    if not s and c:
        notes.append(sentence("msg.ncu.cap.cudasass"))
    if s and not c:
        notes.append(sentence("msg.ncu.cap.noline"))
    if not rows:
        notes.append(sentence("msg.ncu.cap.nosource"))
    total = sum(x.total_cycles for x in instructions)
    stall = sum(x.stall_cycles for x in instructions)
    by_reason: dict[str, int] = {}
    by_reason_ni: dict[str, int] = {}
    for ins in instructions:
        for k, v in ins.extra.get("stall_reasons", {}).items():
            by_reason[k] = by_reason.get(k, 0) + v
        for k, v in ins.extra.get("stall_reasons_not_issued", {}).items():
            by_reason_ni[k] = by_reason_ni.get(k, 0) + v
    mapped = sum(1 for x in instructions if x.source_loc != UNKNOWN_LOC)
    files = {x.source_loc.rsplit(":", 1)[0] for x in instructions if x.source_loc != UNKNOWN_LOC}
    arch = arch_of(d.cc) if d else None
    arch_source = "ncu"
    if arch is None and r and "CC" in r:
        arch = arch_of(r["CC"][1])
    if arch is None:
        arch, arch_source = (prov.get("arch") or "unknown"), ("provenance" if prov.get("arch") else "unknown")
    jit = (s.kernel if s else None) or (c.kernel if c else None) or (d.kernel if d else None) or None
    metrics = ncu_metrics(d, r)
    if metrics and metrics.get("tensor_pipe_pct") is None:
        tc, why = tensor_fallback(d, instructions)
        if tc is not None:
            metrics["tensor_pipe_pct"] = tc
            metrics["sol"]["tensor_pipe_pct"] = tc
            metrics["bottleneck"] = classify_bottleneck(metrics["dram_throughput_pct"], tc,
                                                        metrics["sm_throughput_pct"], metrics["l2_hit_rate_pct"])
            notes.append(sentence(f"msg.ncu.cap.tensor.{why}"))
        elif metrics.get("sm_throughput_pct") is not None and metrics.get("dram_throughput_pct") is not None:
            # the details page alone: its SM throughput (at least the tensor pipe's share) stands in for compute
            metrics["bottleneck"] = classify_bottleneck(metrics["dram_throughput_pct"], metrics["sm_throughput_pct"],
                                                        metrics["sm_throughput_pct"], metrics["l2_hit_rate_pct"])
            metrics["bottleneck"].update(compute_from="sm", compute_pct=metrics["sm_throughput_pct"], tensor_pct=None)
            notes.append(sentence("msg.ncu.cap.tensor.sm", sm=f"{metrics['sm_throughput_pct']:.2f}"))
    shapes = prov.get("profiled_shapes") or []
    extra: dict[str, Any] = {
        "ncu": metrics,
        "ncu_rules": [rule.to_json() for rule in (d.rules if d else [])],
        "ncu_details": details_table(d),
        "ncu_stall_by_reason": _ranked(by_reason),
        "ncu_stall_by_reason_not_issued": _ranked(by_reason_ni),
        "stall_reason_types": {k: STALL_REASON_TYPES[k] for k in sorted(STALL_REASON_TYPES)},
        "stall_reading_types": dict(READING_TYPES),
        "launch_index": i,
        "launches": n,
        "exports": ex.present,
    }
    if prov:
        keys = ("gpu", "arch", "driver_version", "cuda_version", "ncu_version", "torch_version", "triton_version",
                "candidate_commit", "captured_at", "label", "op", "kernel_regex")
        extra["provenance"] = {k: prov.get(k) for k in keys if k in prov}
        if i < len(shapes):
            extra["shape"] = shapes[i]
    capture = name if n == 1 else f"{name}-launch{d.id if d else i}"
    return CaptureAnalysis(
        kernel=kernel or jit or name,
        capture=capture,
        label=label,
        path=rel,
        vendor="nvidia",
        arch=arch,
        arch_source=arch_source,
        stall_unit="warp-stall samples",
        instructions=instructions,
        total_cycles=total,
        total_stall_cycles=stall,
        stall_ratio=stall / total if total else 0.0,
        stall_by_type=capture_types(instructions),
        lines=line_hotspots(instructions, stall),
        instruction_rank=sorted(range(len(instructions)), key=lambda k: -instructions[k].stall_cycles),
        source_mapped=(mapped, len(instructions)),
        instruction_mix=instruction_mix(instructions),
        occupancy=None,
        sources=source_map(files, bundle, ex.base),
        jit_kernel=jit,
        notes=notes,
        extra=extra,
    )


def analyze_capture(ref: CaptureRef, bundle: Bundle | None = None) -> list[CaptureAnalysis]:
    """All launches of one NVIDIA capture (folder or export file)."""
    return analyze_exports(ncu.load_capture(ref), kernel=bundle.name if bundle else None, label=ref.label,
                           rel=ref.rel, bundle=bundle)


assert set(STALL_REASON_TYPES.values()) | set(READING_TYPES.values()) <= set(STALL_TYPES)
