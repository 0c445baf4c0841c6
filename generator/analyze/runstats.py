"""Run statistics of a bundle: the kernel table, the traced kernel, its dispatch timing, the GPU.

``bundle_run_stats`` puts them together in one ``RunStats``: the kernel table from
``generator.analyze.kernel_table`` (whichever file wrote it), then the traced kernel, its dispatches'
timing and the GPU from the files below, and the measured launch paths (``launchpath``).

Inputs (``compute_viewer/`` and ``source/`` of a bundle, all written by rocprofv3)::

    discover_kernel_stats.csv   the kernel table (``kernel_table``)
    discover_kernel_trace.csv   one row per dispatch (Kernel_Name, Start/End_Timestamp in ns)
    *_agent_info.csv            one row per agent (CPUs and GPUs)
    results.db                  a rocpd SQLite database instead of the CSVs (``kernel_table``)
    source/input_trace*.yaml    the capture config: jobs[*].kernel_include_regex names the
                                traced (JIT) kernel, e.g. "softmax_kernel_0"

The traced kernel is the kernel-table row the capture regex matches (re.search, as
rocprofv3 does); its dispatch timing comes from the kernel trace rows of that exact name.
"""

from __future__ import annotations

import glob
import operator
import os
import re
import statistics
from dataclasses import field
from pathlib import Path
from typing import Any

import yaml

from generator.errors import InputError
from generator.model import FORMAT_VERSION, record
from generator.analyze import launchpath
from generator.analyze.dispatch_grids import GridTiming, by_grid, trace_grid
from generator.analyze.kernel_table import (
    KernelStat,
    kernel_stats_from_durations,
    kernel_stats_from_trace,
    other_tool_stats,
    read_kernel_stats,
    read_rocpd_dispatches,
    read_rocpd_kernel_stats,
)
from generator.analyze.message import sentence
from generator.read import runfiles
from generator.read.rocprof import (
    agent_arch,
    gpu_agent,
    kernel_name_matches,
    read_agent_info,
    kernel_dispatches,
    to_int,
)

KERNEL_STATS = "discover_kernel_stats.csv"
KERNEL_TRACE = "discover_kernel_trace.csv"
AGENT_INFO = "discover_agent_info.csv"


@record
class DispatchTiming:
    """Durations of the traced kernel's dispatches (kernel trace)."""

    kernel: str
    count: int
    min_ns: int
    median_ns: float
    max_ns: int
    mean_ns: float
    total_ns: int
    agent: str | None = None  # "Agent 4" as the trace writes it
    resources: dict[str, int | None] = field(default_factory=dict)  # VGPR, LDS, sizes of the first dispatch
    grids: list[GridTiming] = field(default_factory=list)  # by grid, where the dispatches launch several

    def to_json(self) -> dict[str, Any]:
        return {
            **({"grids": [g.to_json() for g in self.grids]} if self.grids else {}),
            "kernel": self.kernel,
            "count": self.count,
            "min_ns": self.min_ns,
            "median_ns": self.median_ns,
            "max_ns": self.max_ns,
            "mean_ns": self.mean_ns,
            "total_ns": self.total_ns,
            "agent": self.agent,
            "resources": dict(sorted(self.resources.items())),
        }


@record
class AgentInfo:
    """The GPU the run used."""

    node_id: int | None
    product: str  # "AMD Instinct MI350X"
    arch: str | None  # "gfx950"
    gfx_target_version: int | None
    cus: int | None
    simds_per_cu: int | None
    lds_kib: int | None
    max_waves_per_simd: int | None
    wave_size: int | None
    num_xcc: int | None
    max_clock_mhz: int | None  # Max_Engine_Clk_Fcompute
    vendor: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "product": self.product,
            "arch": self.arch,
            "gfx_target_version": self.gfx_target_version,
            "cus": self.cus,
            "simds_per_cu": self.simds_per_cu,
            "lds_kib": self.lds_kib,
            "max_waves_per_simd": self.max_waves_per_simd,
            "wave_size": self.wave_size,
            "num_xcc": self.num_xcc,
            "max_clock_mhz": self.max_clock_mhz,
            "vendor": self.vendor,
        }


@record
class RunStats:
    """Everything the run-level files of one bundle say."""

    kernels: list[KernelStat]
    traced: KernelStat | None
    trace_regexes: list[str]
    timing: DispatchTiming | None
    agent: AgentInfo | None
    total_gpu_ns: int
    sources: dict[str, str] = field(default_factory=dict)  # what -> file (relative)
    notes: list[str] = field(default_factory=list)
    launch: list[launchpath.LaunchPath] = field(default_factory=list)  # measured launch paths, by kernel

    def to_json(self) -> dict[str, Any]:
        return {
            **({"launch": [p.to_json() for p in self.launch]} if self.launch else {}),
            "format_version": FORMAT_VERSION,
            "kernels": [k.to_json() for k in self.kernels],
            "traced": self.traced.to_json() if self.traced else None,
            "trace_regexes": list(self.trace_regexes),
            "timing": self.timing.to_json() if self.timing else None,
            "agent": self.agent.to_json() if self.agent else None,
            "total_gpu_ns": self.total_gpu_ns,
            "sources": dict(sorted(self.sources.items())),
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------- traced kernel


def read_trace_regexes(path: str | os.PathLike) -> list[str]:
    """``kernel_include_regex`` of every job in an ``input_trace*.yaml``."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when built in
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"not valid YAML: {getattr(err, 'problem', None) or err}",
                         line=mark.line + 1 if mark else None) from None
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    out = []
    for job in jobs or []:
        if isinstance(job, dict) and job.get("kernel_include_regex"):
            out.append(str(job["kernel_include_regex"]))
    return out


def bundle_trace_regexes(source_dir: str | os.PathLike) -> list[str]:
    """Distinct capture regexes of all ``input_trace*.yaml`` in a bundle's source/."""
    out: list[str] = []
    for path in sorted(glob.glob(os.path.join(source_dir, "input_trace*.yaml"))):
        for rx in read_trace_regexes(path):
            if rx not in out:
                out.append(rx)
    return out


def pick_traced(kernels: list[KernelStat], regexes: list[str], jit_kernel: str | None = None) -> KernelStat | None:
    """Mark and return the traced kernel: the JIT name if given, else the first regex match.

    A JIT name matches a row exactly or with/without the ``_0`` suffix. A regex is
    searched in each name (rocprofv3 semantics); an invalid regex is matched literally.
    """
    chosen = None
    if jit_kernel:
        chosen = next((k for k in kernels if kernel_name_matches(k.name, jit_kernel)), None)
    for rx in regexes:
        if chosen:
            break
        try:
            pattern = re.compile(rx)
            chosen = next((k for k in kernels if pattern.search(k.name)), None)
        except re.error:
            chosen = next((k for k in kernels if rx in k.name), None)
    for k in kernels:
        k.traced = k is chosen
    return chosen


_start_ns = operator.methodcaller("get", "Start_Timestamp")
_end_ns = operator.methodcaller("get", "End_Timestamp")


def _ints(values: list[Any]) -> list[int | None]:
    """``to_int`` of each value; a column of integer texts (the usual trace) in one pass."""
    if set(map(type, values)) <= {str}:
        try:
            return list(map(int, values))  # int() ignores surrounding whitespace, as to_int's strip
        except ValueError:
            pass
    return [to_int(v) for v in values]


def dispatch_timing(matched: list[dict[str, Any]], kernel: str) -> DispatchTiming | None:
    """Count and min / median / max duration of one kernel's dispatches, from its kernel-trace
    rows (``rocprof.kernel_dispatches``)."""
    starts, ends = _ints(list(map(_start_ns, matched))), _ints(list(map(_end_ns, matched)))
    timed = [(end - start, row) for start, end, row in zip(starts, ends, matched)
             if start is not None and end is not None and end >= start]
    durs = [d for d, _row in timed]
    if not durs:
        return None
    first = matched[0]
    resources = {
        key: to_int(first.get(col))
        for key, col in (
            ("vgpr", "VGPR_Count"), ("accum_vgpr", "Accum_VGPR_Count"), ("sgpr", "SGPR_Count"),
            ("lds_bytes", "LDS_Block_Size"), ("scratch_bytes", "Scratch_Size"),
            ("workgroup_x", "Workgroup_Size_X"), ("grid_x", "Grid_Size_X"),
        )
        if col in first
    }
    return DispatchTiming(
        kernel=first.get("Kernel_Name") or kernel,
        count=len(durs),
        min_ns=min(durs),
        median_ns=statistics.median(durs),
        max_ns=max(durs),
        mean_ns=statistics.fmean(durs),
        total_ns=sum(durs),
        agent=(first.get("Agent_Id") or "").strip() or None,
        resources=resources,
        grids=by_grid(durs, [trace_grid(row) for _d, row in timed]),
    )


# ---------------------------------------------------------------- agent


def agent_from_row(row: dict[str, str]) -> AgentInfo:
    """An AgentInfo from one agent-info CSV row."""
    return AgentInfo(
        node_id=to_int(row.get("Node_Id")),
        product=(row.get("Product_Name") or row.get("Marketing_Name") or row.get("Name") or "").strip(),
        arch=agent_arch(row),
        gfx_target_version=to_int(row.get("Gfx_Target_Version")),
        cus=to_int(row.get("Cu_Count")),
        simds_per_cu=to_int(row.get("Simd_Per_Cu")),
        lds_kib=to_int(row.get("Lds_Size_In_Kb")),
        max_waves_per_simd=to_int(row.get("Max_Waves_Per_Simd")),
        wave_size=to_int(row.get("Wave_Front_Size")),
        num_xcc=to_int(row.get("Num_Xcc")),
        max_clock_mhz=to_int(row.get("Max_Engine_Clk_Fcompute")),
        vendor=(row.get("Vendor_Name") or "").strip(),
    )


def pick_agent(rows: list[dict[str, str]], agent_id: str | None = None) -> AgentInfo | None:
    """The GPU named by a trace's ``Agent_Id`` ("Agent 4" -> node 4), else the first GPU."""
    gpus = [r for r in rows if (r.get("Agent_Type") or "").strip().upper() == "GPU"]
    if agent_id:
        m = re.search(r"(\d+)\s*$", agent_id)
        if m:
            n = int(m.group(1))
            for key in ("Logical_Node_Id", "Node_Id"):
                for r in gpus:
                    if to_int(r.get(key)) == n:
                        return agent_from_row(r)
    row = gpu_agent(rows)
    return agent_from_row(row) if row else None


# ---------------------------------------------------------------- bundle


def _first(folder: Path, names: tuple[str, ...], pattern: str | None = None) -> Path | None:
    for n in names:
        if (folder / n).is_file():
            return folder / n
    if pattern:
        found = sorted(folder.glob(pattern))
        if found:
            return found[0]
    return None


def find_results_db(bundle_dir: str | os.PathLike) -> Path | None:
    """A rocpd ``*results.db`` in the bundle (compute_viewer/ first), or None. A ``results.db``
    another tool wrote (rocprof v1's, table KERN) is not one (``runfiles.find_run_files`` names it)."""
    root = Path(bundle_dir)
    candidates = [p for folder in (root / "compute_viewer", root) if folder.is_dir()
                  for p in sorted(folder.glob("*results.db"))] + sorted(root.rglob("*results.db"))
    for path in candidates:
        tables = runfiles.sqlite_tables(path)
        if tables is None or runfiles.is_rocpd(tables):  # unreadable: the rocpd reader says why
            return path
    return None


def _as_dispatches(durations: dict[str, list[int]], grids: dict[str, list] | None = None) -> list[dict[str, Any]]:
    """Dispatch durations by kernel (and their grids, where known) as the dispatch records the traced
    kernel's timing reads."""
    grids = grids or {}
    return [{"kernel": k, "start": 0, "end": d, "grid": g}
            for k, ds in durations.items() for d, g in zip(ds, grids.get(k) or [None] * len(ds))]


def bundle_run_stats(bundle_dir: str | os.PathLike, jit_kernel: str | None = None) -> RunStats | None:
    """The run statistics of one bundle; None when it has no kernel table: rocprofv3's kernel stats, a
    rocpd results.db or a kernel trace, else another tool's (``other_tool_stats``), else the kernels of
    a launch trace (``launchpath.bundle_launch``, whose measured launch paths ride along).

    Bad files raise InputError naming the file (the site builder records it).
    """
    root = Path(bundle_dir)
    cv = root / "compute_viewer"
    notes: list[str] = []
    sources: dict[str, str] = {}

    def rel(p: Path) -> str:
        return p.relative_to(root).as_posix()

    stats_csv = _first(cv, (KERNEL_STATS,), "*kernel_stats.csv") if cv.is_dir() else None
    db = None if stats_csv else find_results_db(root)
    dispatches_db: list[dict[str, Any]] = []
    found = runfiles.find_run_files(root)
    other = None if stats_csv or db else other_tool_stats(found)
    launch = launchpath.bundle_launch(root, found)
    if "other_db" in found:
        notes.append(sentence("msg.run.notrocpd", file=rel(Path(found["other_db"]))))
    if stats_csv:
        kernels = read_kernel_stats(stats_csv)
        sources["kernel_stats"] = rel(stats_csv)
    elif db:
        dispatches_db = read_rocpd_dispatches(db)
        kernels = read_rocpd_kernel_stats(db)
        sources["kernel_stats"] = rel(db)
    elif cv.is_dir() and (only_trace := _first(cv, (KERNEL_TRACE,), "*kernel_trace.csv")):
        kernels = kernel_stats_from_trace(only_trace)
        sources["kernel_stats"] = rel(only_trace)
        notes.append(sentence("msg.run.fromtrace", file=rel(only_trace)))
    elif other:
        kernels, dispatches_db = other[0], _as_dispatches(other[2])
        sources["kernel_stats"] = rel(Path(other[1]))
    elif launch:  # a launch trace alone (the PyTorch profiler's): its kernels make the table
        kernels, dispatches_db = kernel_stats_from_durations(launch[2]), _as_dispatches(launch[2], launch[3])
        sources["kernel_stats"] = ", ".join(rel(Path(f)) for f in launch[1])
    else:
        return None

    regexes = bundle_trace_regexes(root / "source") if (root / "source").is_dir() else []
    traced = pick_traced(kernels, regexes, jit_kernel)
    if (regexes or jit_kernel) and traced is None:
        notes.append(sentence("msg.run.notraced", name=jit_kernel or ", ".join(regexes)))

    timing = None
    trace_csv = _first(cv, (KERNEL_TRACE,), "*kernel_trace.csv") if cv.is_dir() else None
    if traced and trace_csv:
        timing = dispatch_timing(kernel_dispatches(trace_csv, traced.name), traced.name)
        sources["kernel_trace"] = rel(trace_csv)
    elif traced and dispatches_db:
        mine = [d for d in dispatches_db if d["kernel"] == traced.name and d["start"] is not None and d["end"] is not None]
        durs = [int(d["end"]) - int(d["start"]) for d in mine]
        if durs:
            timing = DispatchTiming(traced.name, len(durs), min(durs), statistics.median(durs), max(durs),
                                    statistics.fmean(durs), sum(durs), grids=by_grid(durs, [d.get("grid") for d in mine]))
    if traced and timing is None:
        notes.append(sentence("msg.run.notiming"))

    agent = None
    agent_csv = _first(cv, (AGENT_INFO,), "*agent_info.csv") if cv.is_dir() else None
    if agent_csv:
        agent = pick_agent(read_agent_info(agent_csv), timing.agent if timing else None)
        sources["agent_info"] = rel(agent_csv)
    if agent is None and (stats_csv or db or not (other or launch)):
        notes.append(sentence("msg.run.noagent"))  # rocprofv3 writes the agent info; other tools do not

    if launch:
        sources["launch"] = ", ".join(rel(Path(f)) for f in launch[1])
    return RunStats(
        launch=launch[0] if launch else [],
        kernels=kernels,
        traced=traced,
        trace_regexes=regexes,
        timing=timing,
        agent=agent,
        total_gpu_ns=sum(k.total_ns for k in kernels),
        sources=sources,
        notes=notes,
    )
