"""The run's kernel table: one ``KernelStat`` per kernel, from whichever file of a bundle wrote it.

rocprofv3's kernel stats CSV, its kernel trace alone (durations per kernel name), a rocpd
``results.db``, or another tool's table (rocprof v1 ``--stats``, ``nsys stats``, an nsys SQLite
export: ``other_tool_stats``); ranked by total time, each name shortened for display
(``short_kernel_name``). Which row is the traced kernel, its dispatch timing and the GPU are
``generator.analyze.runstats``'s.

Inputs (``compute_viewer/`` of a bundle, written by rocprofv3)::

    discover_kernel_stats.csv   one row per kernel, sorted by total time
        "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
        "hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0",55,392803,7141.872727,19.10,4880,11160,1091.556229
    discover_kernel_trace.csv   one row per dispatch (Kernel_Name, Start/End_Timestamp in ns)
    results.db                  a rocpd SQLite database instead of the CSVs (tables with a
                                UUID suffix: rocpd_kernel_dispatch_<u>, rocpd_info_kernel_symbol_<u>)
"""

from __future__ import annotations

import functools
import math
import os
import re
import sqlite3
import statistics
from typing import Any

from generator.errors import InputError
from generator.model import record
from generator.read.counter_files import connect_readonly
from generator.read import launchtrace, runfiles
from generator.read.rocprof import read_csv_dicts, read_kernel_trace, to_int

STATS_COLUMNS = ("Name", "Calls", "TotalDurationNs")
SHORT_NAME_LIMIT = 60


@record
class KernelStat:
    """One row of the run's kernel table."""

    rank: int
    name: str  # full name as rocprofv3 wrote it
    short_name: str
    calls: int
    total_ns: int
    avg_ns: float
    percent: float  # share of all GPU kernel time, in %
    min_ns: int | None = None
    max_ns: int | None = None
    stddev_ns: float | None = None
    traced: bool = False
    median_ns: float | None = None  # only when worked out from dispatch durations (rocpd, a trace alone)

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "short_name": self.short_name,
            "calls": self.calls,
            "total_ns": self.total_ns,
            "avg_ns": self.avg_ns,
            "percent": self.percent,
            "min_ns": self.min_ns,
            "max_ns": self.max_ns,
            "stddev_ns": self.stddev_ns,
            "traced": self.traced,
            **({"median_ns": self.median_ns} if self.median_ns is not None else {}),
        }


# ---------------------------------------------------------------- names


_BUILTIN_TYPES = {"float", "double", "int", "long", "short", "char", "bool", "unsigned", "signed",
                  "half", "void", "true", "false", "auto"}


_OPENER = re.compile(r"[<(]")
_BRACKET_OR_COMMA = re.compile(r"[<(\[{>)\]},]")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


def _cut_at_depth0(text: str) -> str:
    """Text before the first ``<`` or ``(`` that opens a template or parameter list."""
    m = _OPENER.search(text)
    return text[:m.start()] if m else text


def _template_args(text: str) -> list[str]:
    """Top-level arguments of the first template list in ``text`` ([] when none).

    Only brackets and commas are visited (names run to thousands of characters).
    """
    start = text.find("<")
    if start < 0 or ("(" in text and text.find("(") < start):
        return []
    args, depth, cut, end = [], 0, start + 1, len(text)
    for m in _BRACKET_OR_COMMA.finditer(text, start + 1):
        ch = m.group()
        if ch == ",":
            if depth == 0:
                args.append(text[cut:m.start()].strip())
                cut = m.end()
        elif ch in "<([{":
            depth += 1
        elif depth == 0:  # the bracket that closes the list
            end = m.start()
            break
        else:
            depth -= 1
    args.append(text[cut:end].strip())
    return [a for a in args if a]


def _last_identifier(text: str) -> str:
    """``a::b::C<x>(y)`` -> ``C``."""
    base = _cut_at_depth0(text).strip()
    return base.rsplit("::", 1)[-1].strip() if "::" in base else base


@functools.lru_cache(maxsize=4096)  # the same library kernels recur in every bundle's table
def short_kernel_name(name: str, limit: int = SHORT_NAME_LIMIT) -> str:
    """A readable name: no return type, parameters or namespaces; the first template
    argument that names something (not a number or builtin type) is kept as a hint.

    ``void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, ...>(int, ...)``
    -> ``vectorized_elementwise_kernel<AbsFunctor>``; a long plain name (Tensile
    ``Cijk_...``) is cut to ``limit`` characters ending in ``...``; JIT names pass unchanged.
    """
    s = name.strip().replace("(anonymous namespace)::", "")
    if s.startswith("void "):
        s = s[len("void "):]
    base = _last_identifier(s) or s
    hint = ""
    for arg in _template_args(s):
        ident = _last_identifier(arg)
        if ident and _IDENTIFIER.match(ident) and ident not in _BUILTIN_TYPES:
            hint = f"<{ident}>"
            break
    short = base + hint
    if len(short) > limit:
        short = short[: limit - 3] + "..."
    return short


# ---------------------------------------------------------------- kernel table


def _float(value: Any) -> float | None:
    try:
        f = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def read_kernel_stats(path: str | os.PathLike) -> list[KernelStat]:
    """The kernel table of a ``*_kernel_stats.csv``, ranked by total time (stable)."""
    rows = read_csv_dicts(path)
    if rows:
        absent = [c for c in STATS_COLUMNS if c not in rows[0]]
        if absent:
            raise InputError(path, f"not a kernel-stats CSV: no {', '.join(absent)} column")
    stats: list[KernelStat] = []
    for lineno, row in enumerate(rows, start=2):
        calls, total = to_int(row.get("Calls")), to_int(row.get("TotalDurationNs"))
        if calls is None or total is None:
            raise InputError(path, "Calls and TotalDurationNs must be integers", line=lineno)
        name = row.get("Name") or ""
        avg, pct = _float(row.get("AverageNs")), _float(row.get("Percentage"))
        stats.append(
            KernelStat(
                rank=0,
                name=name,
                short_name=short_kernel_name(name),
                calls=calls,
                total_ns=total,
                avg_ns=avg if avg is not None else (total / calls if calls else 0.0),
                percent=pct if pct is not None else -1.0,  # -1: computed by _rank
                min_ns=to_int(row.get("MinNs")),
                max_ns=to_int(row.get("MaxNs")),
                stddev_ns=_float(row.get("StdDev")),
            )
        )
    return _rank(stats)


def _rank(stats: list[KernelStat]) -> list[KernelStat]:
    """Sort by total time (descending, stable), number the ranks, fill missing shares."""
    stats = sorted(stats, key=lambda k: -k.total_ns)
    grand = sum(k.total_ns for k in stats)
    for i, k in enumerate(stats, start=1):
        k.rank = i
        if k.percent < 0:
            k.percent = 100.0 * k.total_ns / grand if grand else 0.0
    return stats


def kernel_stats_from_durations(durations: dict[str, list[int]]) -> list[KernelStat]:
    """A kernel table built from per-dispatch durations (rocpd, or a trace alone)."""
    stats = []
    for name, durs in durations.items():
        if not durs:
            continue
        stats.append(
            KernelStat(
                rank=0,
                name=name,
                short_name=short_kernel_name(name),
                calls=len(durs),
                total_ns=sum(durs),
                avg_ns=statistics.fmean(durs),
                percent=-1.0,
                min_ns=min(durs),
                max_ns=max(durs),
                stddev_ns=statistics.stdev(durs) if len(durs) > 1 else 0.0,
                median_ns=statistics.median(durs),
            )
        )
    return _rank(sorted(stats, key=lambda k: k.name))


def kernel_stats_from_trace(path: str | os.PathLike) -> list[KernelStat]:
    """The kernel table of a run whose ``*kernel_trace.csv`` came without its ``*kernel_stats.csv``:
    calls, total, mean, median, min, max of End - Start per kernel name (rows without both
    timestamps, or ending before they start, left out)."""
    rows = read_kernel_trace(path)
    durations: dict[str, list[int]] = {}
    for row in rows:
        start, end = to_int(row.get("Start_Timestamp")), to_int(row.get("End_Timestamp"))
        name = (row.get("Kernel_Name") or "").strip()
        if name and start is not None and end is not None and end >= start:
            durations.setdefault(name, []).append(end - start)
    if rows and not durations:
        raise InputError(path, "kernel trace has no row with Kernel_Name, Start_Timestamp and End_Timestamp")
    return kernel_stats_from_durations(durations)


def read_rocpd_dispatches(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Kernel dispatches of a rocpd database: kernel name, start, end (ns), agent id.

    Handles both dispatch-time schemas (``start``/``end`` columns, or ``start_id``/
    ``end_id`` into ``rocpd_timestamp_<uuid>``) and every UUID table set in the file.
    """
    con = connect_readonly(path)
    try:
        try:
            names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        except sqlite3.DatabaseError as err:
            raise InputError(path, f"not a readable SQLite database ({err}); is the file truncated?") from None
        suffixes = sorted(n[len("rocpd_kernel_dispatch"):] for n in names
                          if n == "rocpd_kernel_dispatch" or n.startswith("rocpd_kernel_dispatch_"))
        usable = [s for s in suffixes if f"rocpd_info_kernel_symbol{s}" in names]
        if not usable:
            raise InputError(path, "no rocpd kernel tables (need rocpd_kernel_dispatch_<uuid> and "
                                   "rocpd_info_kernel_symbol_<uuid>)")
        out = []
        for s in usable:
            kd, ks, ts = f"rocpd_kernel_dispatch{s}", f"rocpd_info_kernel_symbol{s}", f"rocpd_timestamp{s}"
            cols = {r[1] for r in con.execute(f'PRAGMA table_info("{kd}")')}
            if {"start", "end"} <= cols:
                times, join = 'kd."start", kd."end"', ""
            elif {"start_id", "end_id"} <= cols and ts in names:
                times = "t0.value, t1.value"
                join = f' JOIN "{ts}" t0 ON t0.id = kd.start_id JOIN "{ts}" t1 ON t1.id = kd.end_id'
            else:
                raise InputError(path, f"{kd} has no start/end times")
            agent = "kd.agent_id" if "agent_id" in cols else "NULL"
            sql = (f'SELECT kd.dispatch_id, ks.kernel_name, {times}, {agent} FROM "{kd}" kd '
                   f'JOIN "{ks}" ks ON ks.id = kd.kernel_id{join} ORDER BY kd.dispatch_id')
            for dispatch, kernel, start, end, agent_id in con.execute(sql):
                out.append({"dispatch_id": dispatch, "kernel": kernel or "", "start": start,
                            "end": end, "agent_id": agent_id})
        return out
    except sqlite3.DatabaseError as err:
        raise InputError(path, f"not a readable SQLite database ({err}); is the file truncated?") from None
    finally:
        con.close()


def read_rocpd_kernel_stats(path: str | os.PathLike) -> list[KernelStat]:
    """The kernel table of a rocpd ``results.db`` (durations summed per kernel name)."""
    durations: dict[str, list[int]] = {}
    for d in read_rocpd_dispatches(path):
        if d["start"] is not None and d["end"] is not None:
            durations.setdefault(d["kernel"], []).append(int(d["end"]) - int(d["start"]))
    return kernel_stats_from_durations(durations)


# ---------------------------------------------------------------- other tools


def _nsys_rows(found: dict[str, str], report: str) -> list[dict[str, str]]:
    """The rows of one ``nsys stats`` report of a bundle, from its CSV, else from a log of it printed
    in columns ([] when it has neither)."""
    got = runfiles.nsys_report(found[report]) if report in found else None
    if got:
        return got[1]
    return runfiles.nsys_text_reports(found["nsys_text"]).get(report, []) if "nsys_text" in found else []


def other_tool_stats(found: dict[str, str]) -> tuple[list[KernelStat], str, dict[str, list[int]]] | None:
    """The kernel table another tool wrote (rocprof v1 ``--stats``, ``nsys stats``, an nsys SQLite
    export), the file it comes from, and each kernel's dispatch durations where a trace gives them
    (``found``: ``runfiles.find_run_files`` of the bundle)."""
    if "v1_stats" in found:
        durs = runfiles.v1_durations(found["v1_trace"]) if "v1_trace" in found else {}
        return read_kernel_stats(found["v1_stats"]), found["v1_stats"], durs
    gpu_trace = runfiles.trace_durations(_nsys_rows(found, "cuda_gpu_trace"))
    if "nsys_sqlite" in found and "cuda_gpu_kern_sum" not in found:
        durs = launchtrace.from_nsys_sqlite(found["nsys_sqlite"])[1]
        return kernel_stats_from_durations(durs), found["nsys_sqlite"], durs
    kern_sum = _nsys_rows(found, "cuda_gpu_kern_sum")
    if kern_sum:
        stats = [KernelStat(0, r["name"], short_kernel_name(r["name"]), r["calls"], r["total_ns"],
                            r["avg_ns"] if r["avg_ns"] is not None else r["total_ns"] / max(r["calls"], 1), -1.0,
                            r["min_ns"], r["max_ns"], r["stddev_ns"], median_ns=r["median_ns"])
                 for r in runfiles.kern_sum_rows(kern_sum)]
        return _rank(stats), found.get("cuda_gpu_kern_sum") or found["nsys_text"], gpu_trace
    if gpu_trace:
        return kernel_stats_from_durations(gpu_trace), found["cuda_gpu_trace"], gpu_trace
    if "v1_trace" in found:
        durs = runfiles.v1_durations(found["v1_trace"])
        return kernel_stats_from_durations(durs), found["v1_trace"], durs
    return None
