"""Counter CSVs of the tools that write PMC counters: one ``CounterSample`` per counter per dispatch.

Three layouts, told apart by the header (column names matched without regard to case):

- rocprofv3 ``*_counter_collection.csv``, long: one row per counter per dispatch
  (``Dispatch_Id, ..., Kernel_Name, ..., Counter_Name, Counter_Value, Start_Timestamp,
  End_Timestamp``); one file per replay pass (``pass_N/``).
- rocprof-compute ``pmc_perf.csv``, long (``GPU_ID, Dispatch_ID, ..., Kernel_Name,
  Start_Timestamp, End_Timestamp, Kernel_ID, Counter_Name, Counter_Value``): every replay
  pass in one file, so a dispatch comes back once per pass with that pass's timestamps.
  The first pass's timestamps are kept (``PASS_FIRST``); a counter a later pass repeats is not
  counted again.
- rocprof-compute ``pmc_perf.csv``, wide (older releases): one row per dispatch, one column per
  counter (``TCC_HIT_sum``, ``TCC_HIT[0]`` ... ``TCC_HIT[127]``), the passes already joined by
  rocprof-compute, which writes the *mean* of the passes' timestamps (``PASS_MEAN``).

A counter of a TCC summed over its channels is named ``NAME_sum`` (``TCC_HIT_sum``);
``generator.analyze.pmc`` reads it as NAME. Which counters are hardware counters and which are
derived (ratios, percentages: ``L2CacheHit``) is ``is_derived``'s rule.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace

from generator.errors import InputError
from generator.model import record
from generator.read.rocprof import read_csv_dicts, read_csv_rows
from generator.words import noun

#: Columns a counter CSV needs (long layouts also need Counter_Name and Counter_Value).
REQUIRED = ("Dispatch_Id", "Kernel_Name")
LONG = ("Counter_Name", "Counter_Value")
#: Which pass's timestamps a file's kernel times come from.
PASS_FIRST = "first replay pass"
PASS_MEAN = "mean of the replay passes (rocprof-compute joins them so)"
TIMING_RUN = "timestamps.csv (rocprof-compute's timing run)"

#: Columns of a wide ``pmc_perf.csv`` that describe the dispatch, not a counter (lower case;
#: rocprof-compute suffixes a pass's duplicate with ``_<n>``: ``Wave_Size_1``, ``XCC_Index_5``).
_META = frozenset(c.lower() for c in (
    "Dispatch_ID", "GPU_ID", "Queue_ID", "PID", "TID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
    "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "Wave_Size", "Kernel_Name", "Kernel_ID",
    "Correlation_ID", "XCC_Index", "Start_Timestamp", "End_Timestamp", "Node", "Agent_Id", "Node_Id",
    "Process_Id", "Thread_Id", "Queue_Id", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
    "Accum_VGPR_Count", "SGPR_Count", "Kernel_Short_Name"))
_PASS_SUFFIX = re.compile(r"_\d+$")

#: Hardware blocks whose counters are event counts (additive over dispatches).
HW_BLOCKS = ("SQ", "SQC", "TA", "TD", "TCP", "TCC", "TCA", "GRBM", "SPI", "CPC", "CPF", "GDS", "GL2C", "GL1C",
             "GL1A", "GL1CG", "GCEA", "CPG", "RLC", "SDMA", "UTCL1", "UTCL2", "GRBMH", "SX", "SQG")
_HW_NAME = re.compile(r"^(?P<block>[A-Z][A-Z0-9]*)_[A-Z0-9_]+(?:_sum)?(?:\[\d+\])?$")


def is_derived(name: str) -> bool:
    """True for a counter that is not a hardware event count: a ratio, a percentage or a rate
    (``L2CacheHit``, ``GPUBusy``, ``VALUUtil``, ``FETCH_SIZE``): averaged over dispatches, never
    summed. A hardware counter is ``<BLOCK>_<EVENT>`` of a known block (``TCC_HIT``,
    ``TCC_EA0_RDREQ_sum``, ``SQ_WAVES``, ``TCC_HIT[3]``)."""
    m = _HW_NAME.match(name)
    return not (m and m.group("block") in HW_BLOCKS)


@record(frozen=True)
class CounterSample:
    """One counter value of one dispatch."""

    source: str  # file it came from, as given
    dispatch_id: int
    kernel: str
    counter: str
    value: float
    start_ns: int | None = None
    end_ns: int | None = None
    agent: str | None = None


class Samples(list):
    """The samples of one file, with what the file says about itself (``notes``: (catalogue key,
    params) pairs the analysis words, this layer words nothing) and where its kernel times come
    from (``timestamps``: ``PASS_FIRST`` or ``PASS_MEAN``, "" when one pass)."""

    def __init__(self, items=(), notes: list[str] | None = None, timestamps: str = "", layout: str = ""):
        super().__init__(items)
        self.notes = notes or []
        self.timestamps = timestamps
        self.layout = layout


def int_cell(value: object) -> int | None:
    """An int from a CSV cell ("" and garbage give None)."""
    try:
        return int(float(str(value).strip()))
    except (TypeError, ValueError, OverflowError):
        return None


def _number(value: object) -> float | None:
    try:
        return float(str(value).strip())
    except (TypeError, ValueError):
        return None


def read_counter_csv(path: str | os.PathLike) -> Samples:
    """Samples of a counter CSV in any of the three layouts (module docstring)."""
    header, _ = read_csv_rows(path)
    cols = {c.strip().lower(): c for c in reversed(header)}  # the first column of a name wins
    absent = [c for c in REQUIRED if c.lower() not in cols]
    if absent:
        raise InputError(path, f"not a counter CSV: no {', '.join(absent)} {noun(len(absent), 'column')} "
                               "(rocprofv3 --pmc writes *_counter_collection.csv, rocprof-compute pmc_perf.csv)")
    half = [c for c in LONG if c.lower() not in cols]
    if len(half) == 1:  # a long layout missing one of its two columns
        raise InputError(path, f"not a counter-collection CSV: no {half[0]} column "
                               "(rocprofv3 --pmc writes *_counter_collection.csv)")
    rows = read_csv_dicts(path)
    return retime(_long(path, rows, cols) if not half else _wide(path, header, rows, cols), path)


def _long(path, rows: list[dict], cols: dict[str, str]) -> Samples:
    """Long layout: one row per counter per dispatch; a dispatch repeated per pass keeps its first
    pass's timestamps, and a counter is counted once per dispatch."""
    c = {k: cols.get(k) for k in ("counter_name", "counter_value", "dispatch_id", "kernel_name",
                                  "start_timestamp", "end_timestamp", "agent_id")}
    first: dict[int, tuple[int | None, int | None]] = {}
    passes: dict[int, set] = {}
    seen: set[tuple[int, str]] = set()
    repeated = 0
    out = Samples(layout="long")
    for lineno, row in enumerate(rows, start=2):
        name = (row.get(c["counter_name"]) or "").strip()
        if not name:
            continue
        value = _number(row.get(c["counter_value"]))
        if value is None:
            raise InputError(path, f"Counter_Value {row.get(c['counter_value'])!r} is not a number", line=lineno)
        dispatch = int_cell(row.get(c["dispatch_id"]))
        if dispatch is None:
            raise InputError(path, f"Dispatch_Id {row.get(c['dispatch_id'])!r} is not an integer", line=lineno)
        times = (int_cell(row.get(c["start_timestamp"])) if c["start_timestamp"] else None,
                 int_cell(row.get(c["end_timestamp"])) if c["end_timestamp"] else None)
        passes.setdefault(dispatch, set()).add(times)
        start, end = first.setdefault(dispatch, times)
        if (dispatch, name) in seen:
            repeated += 1
            continue
        seen.add((dispatch, name))
        out.append(CounterSample(source=str(path), dispatch_id=dispatch,
                                 kernel=(row.get(c["kernel_name"]) or "").strip(), counter=name, value=value,
                                 start_ns=start, end_ns=end,
                                 agent=(row.get(c["agent_id"]) or "").strip() or None if c["agent_id"] else None))
    n = max((len(v) for v in passes.values()), default=0)
    if n > 1:
        out.timestamps = PASS_FIRST
        out.notes.append(("msg.pmc.passes", {"file": str(path), "n": n, "repeated": repeated}))
    return out


def _counter_columns(header: list[str], rows: list[dict]) -> list[str]:
    """The columns of a wide file that hold counters: not a dispatch description, numbers only."""
    out = []
    for col in dict.fromkeys(h for h in header if h):
        key = col.strip().lower()
        if key in _META or _PASS_SUFFIX.sub("", key) in _META:
            continue
        cells = [r.get(col) for r in rows if (r.get(col) or "").strip()]
        if cells and all(_number(v) is not None for v in cells):
            out.append(col)
    return out


def pass_copies(counters: list[str]) -> dict[str, str]:
    """Columns that repeat another counter column from a later replay pass, and the counter each
    repeats: rocprof-compute suffixes a pass's duplicate with ``_<pass>`` (``GRBM_COUNT_13`` beside
    ``GRBM_COUNT``). A ``_<n>`` name with no column of its base name is a counter of its own
    (``SQC_DCACHE_REQ_READ_16``)."""
    names = {c.strip() for c in counters}
    out = {}
    for col in counters:
        base = _PASS_SUFFIX.sub("", col.strip())
        if base != col.strip() and base in names:
            out[col] = base
    return out


def _wide(path, header: list[str], rows: list[dict], cols: dict[str, str]) -> Samples:
    """Wide layout: one row per dispatch, one column per counter; a later pass's copy of a counter
    (``pass_copies``) is folded into it: counted once, from the first pass."""
    counters = _counter_columns(header, rows)
    copies = pass_copies(counters)
    counters = [c for c in counters if c not in copies]
    if not any(not is_derived(c.strip()) for c in counters):
        raise InputError(path, "not a counter CSV: no Counter_Name and Counter_Value columns, and no hardware counter "
                               "column (a wide pmc_perf.csv has TCC_HIT_sum, SQ_WAVES, ...)")
    start_col, end_col = cols.get("start_timestamp"), cols.get("end_timestamp")
    out = Samples(layout="wide", timestamps=PASS_MEAN if start_col else "")
    seen: set[tuple[int, str]] = set()
    for lineno, row in enumerate(rows, start=2):
        dispatch = int_cell(row.get(cols["dispatch_id"]))
        if dispatch is None:
            raise InputError(path, f"Dispatch_ID {row.get(cols['dispatch_id'])!r} is not an integer", line=lineno)
        start = int_cell(row.get(start_col)) if start_col else None
        end = int_cell(row.get(end_col)) if end_col else None
        kernel = (row.get(cols["kernel_name"]) or "").strip()
        for col in counters:
            value = _number(row.get(col))
            if value is None or (dispatch, col) in seen:
                continue
            seen.add((dispatch, col))
            out.append(CounterSample(source=str(path), dispatch_id=dispatch, kernel=kernel, counter=col.strip(),
                                     value=value, start_ns=start, end_ns=end))
    if copies:
        shown = ", ".join(f"{c} -> {b}" for c, b in list(copies.items())[:3]) + (" ..." if len(copies) > 3 else "")
        out.notes.append(("msg.pmc.passcopies", {"file": str(path), "n": len(copies), "shown": shown}))
    return out


def timing_run(path: str | os.PathLike) -> tuple[str, dict[str, list[tuple[int | None, int | None]]]] | None:
    """The ``timestamps.csv`` rocprof-compute writes beside ``pmc_perf.csv`` (its run without
    counters) and, per kernel name, the (start, end) of each of its dispatches in dispatch order."""
    if os.path.basename(str(path)) != "pmc_perf.csv":
        return None
    ts = os.path.join(os.path.dirname(os.path.abspath(path)), "timestamps.csv")
    if not os.path.isfile(ts):
        return None
    rows = read_csv_dicts(ts)
    cols = {c.strip().lower(): c for c in (rows[0] if rows else {}) if c}
    need = ("dispatch_id", "kernel_name", "start_timestamp", "end_timestamp")
    if not rows or any(k not in cols for k in need):
        return None
    keyed = sorted((int_cell(r.get(cols["dispatch_id"])) or 0, i, r) for i, r in enumerate(rows))
    runs: dict[str, list[tuple[int | None, int | None]]] = {}
    for _, _, r in keyed:
        runs.setdefault((r.get(cols["kernel_name"]) or "").strip(), []).append(
            (int_cell(r.get(cols["start_timestamp"])), int_cell(r.get(cols["end_timestamp"]))))
    return ts, runs


def retime(samples: Samples, path: str | os.PathLike) -> Samples:
    """The samples of a ``pmc_perf.csv`` timed by its ``timestamps.csv`` when one sits beside it:
    the pmc file's Start/End come from the counter replays (rocprof-compute writes them joined, and
    they need not bound the kernel), the timing run's are the kernel's. The n-th dispatch of a
    kernel in the pmc file takes the n-th dispatch of that kernel name in the timing run."""
    found = timing_run(path)
    if not found or not samples:
        return samples
    ts, runs = found
    seen: Counter = Counter()
    times: dict[int, tuple[int | None, int | None]] = {}
    for dispatch, kernel in sorted({(s.dispatch_id, s.kernel) for s in samples}):
        runs_k = runs.get(kernel, [])
        times[dispatch] = runs_k[seen[kernel]] if seen[kernel] < len(runs_k) else (None, None)
        seen[kernel] += 1
    timed = sum(1 for t in times.values() if t[0] is not None)
    out = Samples([replace(s, start_ns=times[s.dispatch_id][0], end_ns=times[s.dispatch_id][1]) for s in samples],
                  notes=samples.notes + [("msg.pmc.timingrun", {"file": ts, "n": timed, "of": len(times)})],
                  timestamps=TIMING_RUN, layout=samples.layout)
    return out


def sibling_arch(path: str | os.PathLike) -> str | None:
    """The ``gpu_arch`` of the ``sysinfo.csv`` rocprof-compute writes beside ``pmc_perf.csv``."""
    info = os.path.join(os.path.dirname(os.path.abspath(path)), "sysinfo.csv")
    if not os.path.isfile(info):
        return None
    try:
        rows = read_csv_dicts(info)
    except InputError:
        return None
    for row in rows:
        arch = (row.get("gpu_arch") or "").strip()
        if arch.startswith("gfx"):
            return arch
    return None
