"""Nsight Compute CSV pages to typed objects: one reader per page, launch by launch.

The formats, as Nsight Compute 2025.3 writes them (values abbreviated)::

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
"""

from __future__ import annotations

import csv
import math
from dataclasses import field
from typing import Any

from generator.errors import InputError
from generator.model import record

ALL_SAMPLES = "Warp Stall Sampling (All Samples)"
NOT_ISSUED = "Warp Stall Sampling (Not-issued Samples)"
EXECUTED = "Instructions Executed"
NOT_ISSUED_SUFFIX = " (Not Issued)"
#: Samples of a row that no reason column holds (its sample total minus the sum of its
#: reason columns). Seen once in our H200 exports: 47 samples on an HGMMA instruction,
#: presumably a Hopper warpgroup-MMA wait that the CSV has no column for. Type: other.
UNLISTED_REASON = "stall_unlisted"
#: Column names that NCU spells differently in the not-issued set.
REASON_ALIASES = {"stall_sleeping": "stall_sleep"}
_ABSENT = {"", "-", "n/a", "N/A", "no data", "(none)"}


# ---------------------------------------------------------------- cells

def number(cell: str | None) -> float | None:
    """A numeric cell ("434,655", "12.5") as a float; None for "-", "", "no data"."""
    if cell is None:
        return None
    text = cell.strip()
    if text in _ABSENT:
        return None
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # "nan", "inf" are no count or id


def count(cell: str | None) -> int:
    """A sample count cell as an int (absent -> 0)."""
    value = number(cell)
    return int(round(value)) if value is not None else 0


def read_rows(path: str) -> list[list[str]]:
    """All CSV rows of an export; unreadable or non-text files are an InputError. The lines ncu
    prints before the table to the same stream (``==PROF== Connected to process ...``, when the
    export was made with ``ncu --csv ... > file``) are left out."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.reader(line for line in fh if not line.startswith("==PROF==")))
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


def parse_address(cell: str) -> int | None:
    """A SASS address cell ("0x7fa91b7a2800") as an int."""
    text = cell.strip()
    if text.lower().startswith("0x"):
        try:
            return int(text, 16)
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------- source pages

@record
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


@record
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


@record
class CudaLine:
    """One source line of the cuda,sass page with the export's own per-line sums."""

    file: str
    line: int
    text: str
    values: dict[str, str]
    addresses: list[int] = field(default_factory=list)


@record
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


# ---------------------------------------------------------------- details and raw pages

@record
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


@record
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


#: One launch of the raw page: metric name -> (unit, value).
RawLaunch = dict[str, tuple[str, str]]


def parse_raw(path: str) -> list[RawLaunch]:
    """Launches of a ``--page raw --csv`` export: metric -> (unit, value), in row order."""
    rows = [r for r in read_rows(path) if r]
    if len(rows) < 2 or "ID" not in rows[0]:
        raise InputError(path, "not an Nsight Compute raw export (no ID header)")
    head, units = rows[0], rows[1]
    return [{h: (u, v) for h, u, v in zip(head, units, row)} for row in rows[2:]]
