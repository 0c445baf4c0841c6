"""NVIDIA Nsight Compute exports: read them and analyze each profiled launch.

An NVIDIA capture is a folder ``examples/<kernel>/ncu/<label>/`` (written by
``kernel-atlas capture``; any subset of the files works, the source page alone does)::

    source_sass.csv       ncu -i R --page source --csv --print-source sass
    source_cuda_sass.csv  ncu -i R --page source --csv --print-source cuda,sass
    details.csv           ncu -i R --page details --csv
    raw.csv               ncu -i R --page raw --csv
    provenance.json       who captured it: GPU, driver, CUDA, torch, triton, ncu, commit, shapes,
                          and source_root (the folder the kernel paths of the exports start in)

or one of those export files on its own. The formats, as Nsight Compute 2025.3 writes
them (values abbreviated)::

    source_sass.csv: one block per profiled launch
      "Kernel Name","add_kernel",
      "Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",
          "# Samples","Instructions Executed",...,"stall_barrier",...,"stall_wait",
          "stall_barrier (Not Issued)",...,"stall_sleeping (Not Issued)",...
      "0x7fa91b7a2800","      LDC R1, c[0x0][0x28]","16","16","16","32768",...

    source_cuda_sass.csv: per launch, one block per source file; a source-line row carries
    the sums of the SASS rows that follow it
      "File Path","demo/kernels/vec_add.py"   (relative: capture strips its cwd)
      "Function Name","add_kernel"
      "Line No","Source","Address","Source","Warp Stall Sampling (All Samples)",...
      "9","def add_kernel(...):","-","-","16","16",...
      "","","0x7fa91b7a2800","      LDC R1, c[0x0][0x28]","16","16",...
      "","","...","...",...                              (a gap: skipped)

    details.csv: one row per (launch, section metric) or (launch, rule)
      "ID","Process ID",...,"Kernel Name",...,"CC","Section Name","Metric Name","Metric Unit",
          "Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type",
          "Estimated Speedup"
      "0",...,"9.0","GPU Speed Of Light Throughput","Duration","us","248.99",
      "0",...,"9.0","WarpStateStats","","","","CPIStall","OPT","On average, each warp ...","global","41.18"

    raw.csv: a row of metric names, a row of units, then one row per launch
      "ID",...,"gpu__time_duration.sum","sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",...

Numbers may carry thousands separators ("434,655"); "-", "" and "no data" are absent.
Launch N of every export is the N-th block (source pages) or ID N (details, raw).

How the NCU data fills the shared model (``CaptureAnalysis``): ``instructions`` are the
SASS rows; an instruction's ``total_cycles`` is its *All* warp-stall samples and its
``stall_cycles`` its *Not-issued* samples (``stall_unit = "warp-stall samples"``);
``stall_by_type`` sums the *Not Issued* reason columns through ``STALL_REASON_TYPES``,
so it adds up to ``total_stall_cycles`` exactly. An instruction's ``type`` is the stall
type holding most of its not-issued samples (its opcode class when it has none); the
NCU reasons stay visible in ``Instruction.extra["stall_reasons"]`` and
``CaptureAnalysis.extra["ncu_stall_by_reason"]``. Source lines come from the
cuda,sass page (address -> file:line; paths shown by ``virtual_path``). SOL percentages, occupancy, registers, spills
and the rules come from the details page (tensor-pipe % from the raw page) and sit in
``CaptureAnalysis.extra["ncu"]``. ``occupancy`` stays None: the AMD waves-per-SIMD
model does not apply; NCU's own occupancy is in ``extra["ncu"]["occupancy"]``.
"""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from generator.read import formats
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

SOURCE_SASS = "source_sass.csv"
SOURCE_CUDA_SASS = "source_cuda_sass.csv"
DETAILS = "details.csv"
RAW = "raw.csv"
PROVENANCE = "provenance.json"
EXPORT_FILES = (SOURCE_SASS, SOURCE_CUDA_SASS, DETAILS, RAW)

ALL_SAMPLES = "Warp Stall Sampling (All Samples)"
NOT_ISSUED = "Warp Stall Sampling (Not-issued Samples)"
EXECUTED = "Instructions Executed"
NOT_ISSUED_SUFFIX = " (Not Issued)"

#: Samples of a row that no reason column holds (its sample total minus the sum of its
#: reason columns). Seen once in our H200 exports: 47 samples on an HGMMA instruction,
#: presumably a Hopper warpgroup-MMA wait that the CSV has no column for. Type: other.
UNLISTED_REASON = "stall_unlisted"
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
#: Column names that NCU spells differently in the not-issued set.
REASON_ALIASES = {"stall_sleeping": "stall_sleep"}

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

#: Percent at or above which a unit counts as highly used (Nsight Compute's own
#: SOLBottleneck rule calls throughput below 60 % of peak a latency problem).
HIGH_PCT = 60.0
#: L2 hit rate below which locality is flagged (DOMAIN §4).
L2_LOCALITY_PCT = 80.0

_ABSENT = {"", "-", "n/a", "N/A", "no data", "(none)"}
_TIME_UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
               "s": 1e6, "second": 1e6}
_BYTE_UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
               "KB": 1e3, "MB": 1e6, "GB": 1e9}


# ---------------------------------------------------------------- reading

def number(cell: str | None) -> float | None:
    """A numeric cell ("434,655", "12.5") as a float; None for "-", "", "no data"."""
    if cell is None:
        return None
    text = cell.strip()
    if text in _ABSENT:
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def count(cell: str | None) -> int:
    """A sample count cell as an int (absent -> 0)."""
    value = number(cell)
    return int(round(value)) if value is not None else 0


def read_rows(path: str) -> list[list[str]]:
    """All CSV rows of an export; unreadable or non-text files are an InputError."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.reader(fh))
    except FileNotFoundError:
        raise InputError(path, "file is missing") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not a text (UTF-8) CSV export") from None
    except csv.Error as err:
        raise InputError(path, f"not valid CSV: {err}") from None


def reason_name(column: str) -> str | None:
    """The stall reason a per-reason column counts (None for other columns)."""
    if not column.startswith("stall_"):
        return None
    base = column[: -len(NOT_ISSUED_SUFFIX)] if column.endswith(NOT_ISSUED_SUFFIX) else column
    return REASON_ALIASES.get(base, base)


def stall_type(reason: str) -> str:
    """Our stall type for an NCU reason (unknown reasons: other)."""
    return STALL_REASON_TYPES.get(reason, "other")


def parse_address(cell: str) -> int | None:
    """A SASS address cell ("0x7fa91b7a2800") as an int."""
    text = cell.strip()
    if text.lower().startswith("0x"):
        try:
            return int(text, 16)
        except ValueError:
            return None
    return None


@dataclass
class SassRow:
    """One SASS instruction of a source export, its counters by column name."""

    address: int
    asm: str
    values: dict[str, str]
    line: int  # 1-based line in the export file

    def samples(self, column: str) -> int:
        return count(self.values.get(column))

    def reasons(self, not_issued: bool) -> dict[str, int]:
        """Samples per stall reason (all or not-issued), zero reasons dropped, column order.

        Samples that no reason column holds are given as ``UNLISTED_REASON``, so the
        reasons always add up to the row's sample column.
        """
        out: dict[str, int] = {}
        for col, cell in self.values.items():
            reason = reason_name(col)
            if reason is None or col.endswith(NOT_ISSUED_SUFFIX) != not_issued:
                continue
            n = count(cell)
            if n:
                out[reason] = out.get(reason, 0) + n
        rest = self.samples(NOT_ISSUED if not_issued else ALL_SAMPLES) - sum(out.values())
        if rest > 0 and any(reason_name(c) for c in self.values):
            out[UNLISTED_REASON] = rest
        return out


@dataclass
class SassLaunch:
    """The SASS rows of one profiled launch of the ``--print-source sass`` page."""

    kernel: str
    columns: list[str]
    rows: list[SassRow]


def parse_source_sass(path: str) -> list[SassLaunch]:
    """Launch blocks of a ``--page source --print-source sass`` export."""
    launches: list[SassLaunch] = []
    header: list[str] | None = None
    for n, row in enumerate(read_rows(path), 1):
        if not row or not any(c.strip() for c in row):
            continue
        if row[0] == "Kernel Name":
            launches.append(SassLaunch(kernel=row[1] if len(row) > 1 else "", columns=[], rows=[]))
            header = None
            continue
        if row[0] == "Address":
            header = row
            if not launches:  # an export of one launch may lack the Kernel Name line
                launches.append(SassLaunch(kernel="", columns=[], rows=[]))
            launches[-1].columns = row
            continue
        if header is None:
            raise InputError(path, "not an Nsight Compute source export (no Address header)", line=n)
        addr = parse_address(row[0])
        if addr is None:
            continue  # a gap row ("...")
        launches[-1].rows.append(SassRow(addr, row[1].strip() if len(row) > 1 else "", dict(zip(header, row)), n))
    if not launches:
        raise InputError(path, "no SASS rows: not an Nsight Compute --print-source sass export")
    return launches


@dataclass
class CudaLine:
    """One source line of the cuda,sass page with the export's own per-line sums."""

    file: str
    line: int
    text: str
    values: dict[str, str]
    addresses: list[int] = field(default_factory=list)


@dataclass
class CudaLaunch:
    """The per-line view of one launch: lines, SASS rows (address -> row) and their lines."""

    kernel: str
    columns: list[str]
    lines: list[CudaLine]
    rows: list[SassRow]
    line_of: dict[int, tuple[str, int]]  # address -> (file, line)


def _cuda_header(row: list[str]) -> list[str]:
    """Column names of a cuda,sass header (the two "Source" columns made distinct)."""
    names = list(row)
    if len(names) >= 4:
        names[1], names[3] = "Line Source", "Source"
    return names


def parse_source_cuda_sass(path: str, expected: list[set[int]] | None = None) -> list[CudaLaunch]:
    """Launches of a ``--print-source cuda,sass`` export.

    A launch holds one ``File Path`` block per source file its code comes from, so
    blocks are grouped into launches: a new launch starts when the function name
    changes, when a SASS address repeats, or (given ``expected``, the address sets of
    the sass page's launches) when an address belongs to the next launch and not to
    this one. A line row joins the launch of the first SASS row under it.
    """
    launches: list[CudaLaunch] = []
    file_path, function, header = "", "", None
    current: CudaLine | None = None
    pending = False  # current line row not yet placed in a launch
    seen: set[int] = set()

    def place_pending() -> None:
        nonlocal pending
        if pending and current is not None and launches:
            launches[-1].lines.append(current)
        pending = False

    def new_launch(name: str) -> None:
        nonlocal seen
        launches.append(CudaLaunch(name, header or [], [], [], {}))
        seen = set()

    for n, row in enumerate(read_rows(path), 1):
        if not row or not any(c.strip() for c in row):
            continue
        tag = row[0]
        if tag == "File Path":
            place_pending()
            file_path, current, header = (row[1] if len(row) > 1 else ""), None, None
            continue
        if tag == "Function Name":
            name = row[1] if len(row) > 1 else ""
            if launches and launches[-1].kernel != name:
                new_launch(name)
            function = name
            continue
        if tag == "Line No":
            header = _cuda_header(row)
            continue
        if header is None:
            raise InputError(path, "not an Nsight Compute cuda,sass source export (no Line No header)", line=n)
        values = dict(zip(header, row))
        if tag.strip():
            place_pending()
            current = CudaLine(file_path, int(number(tag) or 0), row[1] if len(row) > 1 else "", values)
            pending = True
            continue
        addr = parse_address(row[2]) if len(row) > 2 else None
        if addr is None:
            continue  # "..." gap rows
        idx = len(launches) - 1
        if (not launches or addr in seen
                or (expected and idx + 1 < len(expected) and addr not in expected[idx] and addr in expected[idx + 1])):
            new_launch(function)
        if not launches[-1].columns:
            launches[-1].columns = header
        seen.add(addr)
        place_pending()
        sass = SassRow(addr, values.get("Source", "").strip(), values, n)
        launches[-1].rows.append(sass)
        if current is not None:
            current.addresses.append(addr)
            launches[-1].line_of.setdefault(addr, (current.file, current.line))
    place_pending()
    if not launches:
        raise InputError(path, "no rows: not an Nsight Compute --print-source cuda,sass export")
    return launches


@dataclass
class Rule:
    """One Nsight Compute rule result of the details page."""

    section: str
    name: str
    type: str  # OPT, INF, WRN, ERR
    description: str
    speedup_type: str | None  # "global" (whole kernel) or "local"
    speedup_pct: float | None

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "name": self.name, "type": self.type, "description": self.description,
                "speedup_type": self.speedup_type, "speedup_pct": self.speedup_pct}


@dataclass
class DetailsLaunch:
    """The details page of one launch: identity, section metrics and rules."""

    id: int
    kernel: str
    block: str
    grid: str
    device: str
    cc: str
    metrics: dict[tuple[str, str], tuple[str, str]]  # (section, metric) -> (unit, value)
    rules: list[Rule]

    def metric(self, section: str | None, name: str) -> tuple[str, str] | None:
        """(unit, value) of a metric, by section and name (section None: any section)."""
        if section is not None:
            return self.metrics.get((section, name))
        for (sec, metric), value in self.metrics.items():
            if metric == name:
                return value
        return None

    def value(self, name: str, section: str | None = None) -> float | None:
        """A metric's numeric value."""
        found = self.metric(section, name)
        return number(found[1]) if found else None


DETAILS_COLUMNS = ("ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value")


def parse_details(path: str) -> list[DetailsLaunch]:
    """Launches of a ``--page details --csv`` export, in ID order."""
    rows = read_rows(path)
    if not rows or any(c not in rows[0] for c in DETAILS_COLUMNS):
        raise InputError(path, "not an Nsight Compute details export (missing ID/Section Name/Metric columns)")
    head = rows[0]
    by_id: dict[int, DetailsLaunch] = {}
    for n, row in enumerate(rows[1:], 2):
        if not row:
            continue
        rec = dict(zip(head, row))
        lid = number(rec.get("ID"))
        if lid is None:
            raise InputError(path, f"ID {rec.get('ID')!r} is not a number", line=n)
        launch = by_id.get(int(lid))
        if launch is None:
            launch = by_id[int(lid)] = DetailsLaunch(
                id=int(lid), kernel=rec.get("Kernel Name", ""), block=rec.get("Block Size", ""),
                grid=rec.get("Grid Size", ""), device=rec.get("Device", ""), cc=rec.get("CC", ""),
                metrics={}, rules=[])
        section = rec.get("Section Name", "")
        if rec.get("Rule Name"):
            launch.rules.append(Rule(section, rec["Rule Name"], rec.get("Rule Type", ""),
                                     rec.get("Rule Description", ""), rec.get("Estimated Speedup Type") or None,
                                     number(rec.get("Estimated Speedup"))))
        elif rec.get("Metric Name"):
            launch.metrics[(section, rec["Metric Name"])] = (rec.get("Metric Unit", ""), rec.get("Metric Value", ""))
    return [by_id[k] for k in sorted(by_id)]


def parse_raw(path: str) -> list[dict[str, tuple[str, str]]]:
    """Launches of a ``--page raw --csv`` export: metric -> (unit, value), in row order."""
    rows = [r for r in read_rows(path) if r]
    if len(rows) < 2 or "ID" not in rows[0]:
        raise InputError(path, "not an Nsight Compute raw export (no ID header)")
    head, units = rows[0], rows[1]
    return [{h: (u, v) for h, u, v in zip(head, units, row)} for row in rows[2:]]


# ---------------------------------------------------------------- metrics

def _scaled(value: float | None, unit: str, table: dict[str, float]) -> float | None:
    """A value converted by its unit (unknown units: None)."""
    if value is None:
        return None
    factor = table.get(unit.strip())
    return value * factor if factor is not None else None


def _raw_value(raw: dict[str, tuple[str, str]] | None, name: str) -> float | None:
    return number(raw[name][1]) if raw and name in raw else None


def classify_bottleneck(dram_pct: float | None, tensor_pct: float | None, sm_pct: float | None,
                        l2_hit_pct: float | None, high: float = HIGH_PCT) -> dict[str, Any]:
    """The bottleneck rule of DOMAIN §4.

    DRAM% >= high and TC% < high: memory-bound; TC% >= high and DRAM% < high:
    compute-bound; both >= high: compute+memory-bound; both below: latency-bound (check
    occupancy and spills). TC% is the tensor-pipe utilization (raw page); a kernel
    without tensor work has TC% near 0, so it is memory- or latency-bound, as DOMAIN §4
    says. The SM throughput % is kept beside it for display. ``locality`` is set when the
    L2 hit rate is below 80 %.
    """
    compute = tensor_pct
    if dram_pct is None or compute is None:
        kind = "unknown"
    elif dram_pct >= high and compute >= high:
        kind = "compute+memory-bound"
    elif dram_pct >= high:
        kind = "memory-bound"
    elif compute >= high:
        kind = "compute-bound"
    else:
        kind = "latency-bound"
    return {
        "kind": kind,
        "dram_pct": dram_pct,
        "tensor_pct": tensor_pct,
        "sm_pct": sm_pct,
        "high_pct": high,
        "locality": l2_hit_pct is not None and l2_hit_pct < L2_LOCALITY_PCT,
        "l2_hit_pct": l2_hit_pct,
    }


BLOCK_LIMITS = (("Block Limit Registers", "registers"), ("Block Limit Shared Mem", "shared memory"),
                ("Block Limit Warps", "warps"), ("Block Limit SM", "blocks per SM"),
                ("Block Limit Barriers", "barriers"))


def ncu_metrics(d: DetailsLaunch | None, raw: dict[str, tuple[str, str]] | None) -> dict[str, Any]:
    """Display metrics of one launch from the details page (and the raw page)."""
    if d is None and raw is None:
        return {}
    out: dict[str, Any] = {}

    def pct(name: str, section: str | None = None) -> float | None:
        return d.value(name, section) if d else None

    dur = d.metric("GPU Speed Of Light Throughput", "Duration") if d else None
    out["duration_us"] = _scaled(number(dur[1]), dur[0], _TIME_UNITS) if dur else None
    if out["duration_us"] is None:
        out["duration_us"] = _raw_value(raw, "gpu__time_duration.sum") if raw and raw.get(
            "gpu__time_duration.sum", ("", ""))[0] == "us" else None
    out["dram_throughput_pct"] = pct("DRAM Throughput", "GPU Speed Of Light Throughput")
    out["memory_throughput_pct"] = pct("Memory Throughput", "GPU Speed Of Light Throughput")
    out["sm_throughput_pct"] = pct("Compute (SM) Throughput", "GPU Speed Of Light Throughput")
    out["l1tex_throughput_pct"] = pct("L1/TEX Cache Throughput", "GPU Speed Of Light Throughput")
    out["l2_throughput_pct"] = pct("L2 Cache Throughput", "GPU Speed Of Light Throughput")
    out["tensor_pipe_pct"] = _raw_value(raw, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    bw = d.metric("Memory Workload Analysis", "Memory Throughput") if d else None
    out["dram_bandwidth_gbs"] = (_scaled(number(bw[1]), bw[0].split("/")[0], _BYTE_UNITS) or 0) / 1e9 if bw else None
    rd, wr = (raw or {}).get("dram__bytes_read.sum"), (raw or {}).get("dram__bytes_write.sum")
    out["dram_bytes_read"] = _scaled(number(rd[1]), rd[0], _BYTE_UNITS) if rd else None
    out["dram_bytes_write"] = _scaled(number(wr[1]), wr[0], _BYTE_UNITS) if wr else None
    out["l1_hit_rate_pct"] = pct("L1/TEX Hit Rate")
    out["l2_hit_rate_pct"] = pct("L2 Hit Rate")
    if out["l2_hit_rate_pct"] is None:
        out["l2_hit_rate_pct"] = _raw_value(raw, "lts__t_sector_hit_rate.pct")
    regs = pct("Registers Per Thread")
    out["registers_per_thread"] = int(regs) if regs is not None else (
        int(v) if (v := _raw_value(raw, "launch__registers_per_thread")) is not None else None)
    spills = pct("Local Memory Spilling Requests")
    out["spill_requests"] = int(spills) if spills is not None else None
    sp = _raw_value(raw, "sass__inst_executed_register_spilling")
    out["spill_instructions"] = int(sp) if sp is not None else None
    dyn = d.metric("Launch Statistics", "Dynamic Shared Memory Per Block") if d else None
    sta = d.metric("Launch Statistics", "Static Shared Memory Per Block") if d else None
    shared = [_scaled(number(m[1]), m[0].split("/")[0], _BYTE_UNITS) for m in (dyn, sta) if m]
    out["shared_memory_per_block_bytes"] = int(sum(s for s in shared if s is not None)) if shared else None
    for key, name in (("block_size", "Block Size"), ("grid_size", "Grid Size"), ("waves_per_sm", "Waves Per SM"),
                      ("sm_count", "# SMs"), ("threads", "Threads")):
        out[key] = pct(name, "Launch Statistics")
    out["sm_frequency_ghz"] = pct("SM Frequency")
    out["dram_frequency_ghz"] = pct("DRAM Frequency")
    out["elapsed_cycles"] = pct("Elapsed Cycles")
    out["executed_ipc_active"] = pct("Executed Ipc Active")
    out["issue_slots_busy_pct"] = pct("Issue Slots Busy")
    out["warp_cycles_per_issued_instruction"] = pct("Warp Cycles Per Issued Instruction")
    limits = {label: pct(name, "Occupancy") for name, label in BLOCK_LIMITS}
    known = {k: v for k, v in limits.items() if v is not None}
    out["occupancy"] = {
        "theoretical_pct": pct("Theoretical Occupancy", "Occupancy"),
        "achieved_pct": pct("Achieved Occupancy", "Occupancy"),
        "theoretical_warps_per_sm": pct("Theoretical Active Warps per SM", "Occupancy"),
        "achieved_warps_per_sm": pct("Achieved Active Warps Per SM", "Occupancy"),
        "block_limits": limits,
        "limiter": min(known, key=lambda k: known[k]) if known else None,
    }
    out["bottleneck"] = classify_bottleneck(out["dram_throughput_pct"], out["tensor_pipe_pct"],
                                            out["sm_throughput_pct"], out["l2_hit_rate_pct"])
    out["sol"] = {k: out[k] for k in ("sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct",
                                      "l1tex_throughput_pct", "l2_throughput_pct", "tensor_pipe_pct")}
    if d:
        out["launch"] = {"id": d.id, "kernel": d.kernel, "block": d.block, "grid": d.grid, "device": d.device,
                         "cc": d.cc}
    return out


def details_table(d: DetailsLaunch | None) -> dict[str, dict[str, list[str]]]:
    """Every section metric of the details page: section -> metric -> [value, unit]."""
    out: dict[str, dict[str, list[str]]] = {}
    if d is None:
        return out
    for (section, metric), (unit, value) in d.metrics.items():
        out.setdefault(section, {})[metric] = [value, unit]
    return out


# ---------------------------------------------------------------- analysis

_PIPE_RULE = re.compile(r"Tensor[^.]*? is the highest-utilized pipeline \(([\d.]+)%\)")


def tensor_fallback(d: DetailsLaunch | None, instructions: list[Instruction]) -> tuple[float | None, str]:
    """Tensor-pipe % without the raw page: the HighPipeUtilization rule, or 0 without MMA."""
    for rule in (d.rules if d else []):
        m = _PIPE_RULE.search(rule.description)
        if rule.name == "HighPipeUtilization" and m:
            return float(m.group(1)), "read from the HighPipeUtilization rule"
    if instructions and not any(opcode(i.asm).endswith("MMA") for i in instructions):
        return 0.0, "taken as 0: the SASS holds no MMA instruction"
    return None, ""


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


def types_of(reasons: dict[str, int]) -> dict[str, int]:
    """Samples per stall type, from samples per NCU reason, ranked."""
    acc: dict[str, int] = {}
    for reason, n in reasons.items():
        t = stall_type(reason)
        acc[t] = acc.get(t, 0) + n
    return _ranked(acc)


def build_instruction(index: int, row: SassRow, loc: str) -> Instruction:
    """One SASS row as an Instruction (samples as cycles; NCU reasons in extra)."""
    total = row.samples(ALL_SAMPLES)
    stall = row.samples(NOT_ISSUED)
    reasons_ni = row.reasons(not_issued=True)
    by_type = types_of(reasons_ni)
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
        issue_cycles=max(0, total - stall), extra=extra,
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
        for reason, n in ins.extra.get("stall_reasons_not_issued", {}).items():
            t = stall_type(reason)
            a["types"][t] = a["types"].get(t, 0) + n
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


@dataclass
class Exports:
    """The export files of one NVIDIA capture (None where absent)."""

    base: str  # the capture folder, or the single file given
    source_sass: str | None = None
    source_cuda_sass: str | None = None
    details: str | None = None
    raw: str | None = None
    provenance: str | None = None

    @property
    def present(self) -> list[str]:
        return [os.path.basename(p) for p in (self.source_sass, self.source_cuda_sass, self.details, self.raw) if p]


def sniff(path: str) -> str | None:
    """Which export a CSV file is, from its first lines (None: not an NCU export)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(8192)
    except OSError:
        return None
    first = head.lstrip().split("\n", 1)[0]
    if first.startswith('"File Path"'):
        return SOURCE_CUDA_SASS
    if first.startswith('"Kernel Name"') or first.startswith('"Address","Source"'):
        return SOURCE_SASS
    if first.startswith('"ID"'):
        return DETAILS if '"Section Name"' in first and '"Metric Name"' in first else RAW
    return None


def find_exports(path: str) -> Exports:
    """The exports of a capture folder, or of one export file."""
    if os.path.isfile(path):
        kind = sniff(path)
        if kind is None:
            raise InputError(path, "not an Nsight Compute CSV export (source, details or raw page)")
        ex = Exports(base=path)
        setattr(ex, {SOURCE_SASS: "source_sass", SOURCE_CUDA_SASS: "source_cuda_sass",
                     DETAILS: "details", RAW: "raw"}[kind], path)
        prov = os.path.join(os.path.dirname(path), PROVENANCE)
        ex.provenance = prov if os.path.isfile(prov) else None
        return ex
    ex = Exports(base=path)
    for name, attr in ((SOURCE_SASS, "source_sass"), (SOURCE_CUDA_SASS, "source_cuda_sass"),
                       (DETAILS, "details"), (RAW, "raw"), (PROVENANCE, "provenance")):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            setattr(ex, attr, full)
    return ex


def read_provenance(path: str | None) -> dict[str, Any]:
    """provenance.json ({} when absent); a broken file is an InputError."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as err:
        raise InputError(path, f"not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise InputError(path, "provenance must be a JSON object")
    return data


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


def launch_count(parts: dict[str, list]) -> int:
    """Launches in the exports; they must agree where several are present."""
    counts = {name: len(v) for name, v in parts.items() if v is not None}
    if not counts:
        return 0
    return max(counts.values())


def check_counts(ex: Exports, parts: dict[str, list]) -> list[str]:
    """Notes for exports whose launch counts disagree (the smaller ones fill fewer launches)."""
    counts = {name: len(v) for name, v in parts.items() if v is not None}
    if len(set(counts.values())) > 1:
        return ["exports disagree on the number of launches: " +
                ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))]
    return []


def analyze_exports(ex: Exports, kernel: str | None = None, label: str = "", rel: str = "",
                    bundle: Bundle | None = None) -> list[CaptureAnalysis]:
    """One CaptureAnalysis per profiled launch of a capture's exports."""
    sass = parse_source_sass(ex.source_sass) if ex.source_sass else None
    expected = [{row.address for row in launch.rows} for launch in sass] if sass else None
    cuda = parse_source_cuda_sass(ex.source_cuda_sass, expected) if ex.source_cuda_sass else None
    details = parse_details(ex.details) if ex.details else None
    raw = parse_raw(ex.raw) if ex.raw else None
    prov = read_provenance(ex.provenance)
    parts = {SOURCE_SASS: sass, SOURCE_CUDA_SASS: cuda, DETAILS: details, RAW: raw}
    n = launch_count(parts)
    if n == 0:
        raise InputError(ex.base, "no Nsight Compute export here (" + ", ".join(EXPORT_FILES) + ")")
    shared_notes = check_counts(ex, parts)
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
                   r: dict | None, prov: dict, ex: Exports, kernel: str | None, label: str, name: str,
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
        notes.append("instructions read from the cuda,sass page (no source_sass.csv)")
    if s and not c:
        notes.append("no per-line view (source_cuda_sass.csv absent): instructions are not mapped to source lines")
    if not rows:
        notes.append("no source page: metrics only, no per-instruction warp-stall samples")
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
            notes.append(f"tensor-pipe % {why} (no raw page)")
    shapes = prov.get("profiled_shapes") or []
    extra: dict[str, Any] = {
        "ncu": metrics,
        "ncu_rules": [rule.to_json() for rule in (d.rules if d else [])],
        "ncu_details": details_table(d),
        "ncu_stall_by_reason": _ranked(by_reason),
        "ncu_stall_by_reason_not_issued": _ranked(by_reason_ni),
        "stall_reason_types": {k: STALL_REASON_TYPES[k] for k in sorted(STALL_REASON_TYPES)},
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
        stall_by_type=types_of(by_reason_ni),
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


# ---------------------------------------------------------------- the format

def is_capture(path: str) -> bool:
    """True for a folder holding an NCU export, or for one export file."""
    if os.path.isfile(path):
        return path.endswith(".csv") and sniff(path) is not None
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in EXPORT_FILES)


def empty_reason(path: str) -> str | None:
    """Why a capture holds nothing to analyze (every export empty), else None."""
    if os.path.isfile(path):
        return None if os.path.getsize(path) > 0 else "empty export file"
    sizes = [os.path.getsize(os.path.join(path, f)) for f in EXPORT_FILES if os.path.isfile(os.path.join(path, f))]
    if sizes and not any(sizes):
        return "empty shell: every Nsight Compute export is empty"
    return None


def find_captures(bundle_dir: str) -> list[tuple[str, str]]:
    """``(label, dir)`` of every ``ncu/<label>/`` capture of a bundle."""
    root = os.path.join(bundle_dir, "ncu")
    if not os.path.isdir(root):
        return []
    return [(label, os.path.join(root, label)) for label in sorted(os.listdir(root))
            if is_capture(os.path.join(root, label))]


def analyze_capture(ref: CaptureRef, bundle: Bundle | None = None) -> list[CaptureAnalysis]:
    """All launches of one NVIDIA capture (folder or export file)."""
    if not os.path.exists(ref.path):
        raise InputError(ref.path, "no such file or directory")
    ex = find_exports(ref.path)
    return analyze_exports(ex, kernel=bundle.name if bundle else None, label=ref.label, rel=ref.rel, bundle=bundle)


formats.register(formats.CaptureFormat(
    name="ncu",
    vendor="nvidia",
    order=20,
    find=find_captures,
    is_capture=is_capture,
    empty_reason=empty_reason,
    analyze=analyze_capture,
))

assert set(STALL_REASON_TYPES.values()) <= set(STALL_TYPES)
