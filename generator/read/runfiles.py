"""Run statistics other tools write beside (or instead of) rocprofv3's: rocprof v1 ``--stats`` and
Nsight Systems' ``nsys stats`` CSV reports (docs/formats-other-tools.md).

rocprof v1 (``rocprof --stats -o results.csv``) writes::

    results.stats.csv   "Name","Calls","TotalDurationNs","AverageNs","Percentage"   (rocprofv3's kernel-stats columns)
    results.csv         one row per dispatch: "Index","KernelName",...,"BeginNs","EndNs",...,"DurationNs"
    results.db          an SQLite file of its own (table KERN), not a rocpd database

``nsys stats --report R --format csv --output BASE`` writes ``BASE_R.csv``; the reports read here,
told apart by their header (column names as nsys writes them)::

    cuda_gpu_kern_sum      Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
    cuda_api_sum           Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
    cuda_gpu_trace         Start (ns),Duration (ns),CorrId,...,Name
    cuda_kern_exec_trace   API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),
                           Kernel Dur (ns),Total Dur (ns),...,API Function,...,Kernel Name

Printed to a terminal instead of a file, the CSV follows a preamble (``Processing [...] with
[...]``); the header is found wherever it starts.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sqlite3

from generator.errors import InputError

V1_STATS = "results.stats.csv"
V1_TRACE = "results.csv"
#: The header columns that name each nsys stats report (all must be present).
NSYS_REPORTS = {
    "cuda_kern_exec_trace": ("API Start (ns)", "API Dur (ns)", "Kernel Start (ns)", "Kernel Dur (ns)", "Kernel Name"),
    "cuda_gpu_kern_sum": ("Total Time (ns)", "Instances", "Name"),
    "cuda_api_sum": ("Total Time (ns)", "Num Calls", "Name"),
    "cuda_gpu_trace": ("Start (ns)", "Duration (ns)", "Name"),
}


def number(value: object) -> float | None:
    """A number from a CSV cell as nsys or rocprof write it ("1,234" with a thousands comma too)."""
    try:
        return float(str(value).replace(",", "").strip())
    except (TypeError, ValueError):
        return None


def _read_text(path: str | os.PathLike) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None


def nsys_report(path: str | os.PathLike) -> tuple[str, list[dict[str, str]]] | None:
    """(report name, rows) of an ``nsys stats`` CSV, or None when the file is not one."""
    text = _read_text(path)
    lines = text.splitlines()
    for i, line in enumerate(lines[:50]):
        try:
            header = next(csv.reader([line]))
        except csv.Error:
            continue
        cols = [h.strip() for h in header]
        for name, need in NSYS_REPORTS.items():
            if all(c in cols for c in need):
                try:
                    rows = list(csv.DictReader(io.StringIO("\n".join(lines[i:]))))
                except csv.Error as err:
                    raise InputError(path, f"not a valid CSV: {err}") from None
                return name, [{(k or "").strip(): (v or "") for k, v in r.items()} for r in rows]
    return None


_EXECUTING = re.compile(r"Executing '(\w+)' stats report|^\s*\*\* .*\((\w+)\):\s*$")
_RULE = re.compile(r"^\s*-{3,}(\s+-{3,})*\s*$")
_NEXT = re.compile(r"^\s*(\[\d+/\d+\]|Processing \[|Generated:|SKIPPED:|\*\* )")


def nsys_text_reports(path: str | os.PathLike) -> dict[str, list[dict[str, str]]]:
    """The tables of ``nsys stats`` printed in its default column format (what ``nsys profile
    --stats=true`` and ``nsys nvprof`` log): report name -> rows keyed by the header. Columns are
    where the dashed rule under the header puts them; long names end cut with an ellipsis there."""
    lines = _read_text(path).splitlines()
    out: dict[str, list[dict[str, str]]] = {}
    report, header = None, None
    for i, line in enumerate(lines):
        m = _EXECUTING.search(line)
        if m:
            report, header = m.group(1) or m.group(2), None
            continue
        if report and header is None and _RULE.match(line):
            spans = [(r.start(), r.end()) for r in re.finditer(r"-+", line)]
            above = next((x for x in reversed(lines[max(0, i - 3):i]) if x.strip()), "")
            header = [above[a:b if k < len(spans) - 1 else None].strip() for k, (a, b) in enumerate(spans)]
            out[report] = []
            continue
        if report and header is not None:
            if _NEXT.match(line):
                report, header = None, None
            elif line.strip():
                cells = [line[a:b if k < len(spans) - 1 else None].strip() for k, (a, b) in enumerate(spans)]
                out[report].append(dict(zip(header, cells)))
    return out


def kern_sum_rows(rows: list[dict[str, str]]) -> list[dict]:
    """The kernel table of a ``cuda_gpu_kern_sum`` report: name, calls and ns figures per kernel."""
    out = []
    for r in rows:
        calls, total = number(r.get("Instances")), number(r.get("Total Time (ns)"))
        if calls is None or total is None or not r.get("Name"):
            continue
        out.append({"name": r["Name"], "calls": int(calls), "total_ns": int(total),
                    "avg_ns": number(r.get("Avg (ns)")), "median_ns": number(r.get("Med (ns)")),
                    "min_ns": number(r.get("Min (ns)")), "max_ns": number(r.get("Max (ns)")),
                    "stddev_ns": number(r.get("StdDev (ns)"))})
    return out


def trace_durations(rows: list[dict[str, str]]) -> dict[str, list[int]]:
    """Kernel durations by name from a ``cuda_gpu_trace`` report (memory copies, with no grid, left out)."""
    out: dict[str, list[int]] = {}
    for r in rows:
        dur = number(r.get("Duration (ns)"))
        grid = (r.get("GrdX") or r.get("GridXYZ") or "").strip()
        if dur is not None and r.get("Name") and grid:
            out.setdefault(r["Name"], []).append(int(dur))
    return out


def v1_durations(path: str | os.PathLike) -> dict[str, list[int]]:
    """Dispatch durations by kernel name from rocprof v1's ``results.csv`` (DurationNs, else EndNs - BeginNs)."""
    text = _read_text(path)
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as err:
        raise InputError(path, f"not a valid CSV: {err}") from None
    if rows and "KernelName" not in rows[0]:
        raise InputError(path, "not a rocprof v1 results.csv: no KernelName column")
    out: dict[str, list[int]] = {}
    for r in rows:
        dur = number(r.get("DurationNs"))
        if dur is None:
            begin, end = number(r.get("BeginNs")), number(r.get("EndNs"))
            dur = end - begin if begin is not None and end is not None and end >= begin else None
        if dur is not None and r.get("KernelName"):
            out.setdefault(r["KernelName"], []).append(int(dur))
    return out


def sqlite_tables(path: str | os.PathLike) -> list[str] | None:
    """The table names of an SQLite file, or None when it is not one (or cannot be read)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return None
        con = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
        try:
            return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        finally:
            con.close()
    except (OSError, sqlite3.DatabaseError):
        return None


def is_rocpd(tables: list[str]) -> bool:
    """True for a rocpd database (rocprofv3 --output-format rocpd): its tables are ``rocpd_*``."""
    return any(t.startswith("rocpd_") for t in tables)


def is_nsys_export(tables: list[str]) -> bool:
    """True for ``nsys export --type sqlite``: CUPTI activity tables and StringIds."""
    return "StringIds" in tables and "CUPTI_ACTIVITY_KIND_KERNEL" in tables


def find_run_files(bundle_dir: str | os.PathLike) -> dict[str, str]:
    """Other tools' run files of a bundle (its top folder, ``compute_viewer/``, ``nsys/``, ``rocprof/``):
    ``v1_stats``, ``v1_trace``, an nsys report name, ``nsys_sqlite``, ``other_db`` (an SQLite file that
    is neither rocpd nor nsys), first by name."""
    found: dict[str, str] = {}
    for sub in ("", "compute_viewer", "nsys", "rocprof"):
        folder = os.path.join(bundle_dir, sub)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            if name == V1_STATS:
                found.setdefault("v1_stats", path)
            elif name == V1_TRACE:
                found.setdefault("v1_trace", path)
            elif name.endswith(".csv") and (sub == "nsys" or any(r in name for r in NSYS_REPORTS)):
                report = nsys_report(path)  # nsys names its file BASE_<report>.csv
                if report:
                    found.setdefault(report[0], path)
            elif name.endswith((".txt", ".log")) and os.path.getsize(path) < 1 << 24:
                if "cuda_gpu_kern_sum" in nsys_text_reports(path):
                    found.setdefault("nsys_text", path)
            elif name.endswith((".sqlite", ".db")):
                tables = sqlite_tables(path)
                if tables is not None and is_nsys_export(tables):
                    found.setdefault("nsys_sqlite", path)
                elif tables is not None and not is_rocpd(tables):
                    found.setdefault("other_db", path)
    return found
