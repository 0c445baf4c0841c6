"""The launch path of a bundle's kernels, measured: per kernel, the median host API time, queue time and
kernel time of its calls, from a trace that joins each launch to its kernel (``read.launchtrace``).

Where a bundle holds one: an nsys ``cuda_kern_exec_trace`` CSV, an nsys SQLite export with its runtime
table, rocprofv3's ``--hip-trace`` CSV beside its kernel trace, or a PyTorch profiler Chrome trace (``*.trace.json`` / ``*.pt.trace.json`` in the bundle's top
folder, ``launch/``, ``torch/`` or ``nsys/``). VERDICTS rule 13's launch overhead is inferred from two
clocks (call time minus kernel time); this is the same path read off one trace, call by call.
"""

from __future__ import annotations

import os
import statistics
from typing import Any

from generator.model import record
from generator.read import launchtrace, runfiles
from generator.read.rocprof import read_csv_dicts

#: Folders of a bundle searched for a launch trace, and the names a PyTorch trace goes by.
TRACE_DIRS = ("", "launch", "torch", "nsys")
TORCH_SUFFIXES = (".trace.json", ".pt.trace.json")


@record
class LaunchPath:
    """The median launch path of one kernel's calls (ns)."""

    kernel: str
    api: str  # the launching call seen most (cudaLaunchKernel, cuLaunchKernel, ...)
    calls: int
    api_ns: float
    queue_ns: float
    kernel_ns: float
    total_ns: float
    grid: tuple[int, ...] | None = None  # set where one kernel's calls launch several grids

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "api": self.api, "calls": self.calls, "api_ns": self.api_ns,
                "queue_ns": self.queue_ns, "kernel_ns": self.kernel_ns, "total_ns": self.total_ns,
                "grid": list(self.grid) if self.grid else None}


def summarize(calls: list[launchtrace.LaunchCall]) -> list[LaunchPath]:
    """One median path per kernel name and grid, the paths by total kernel time (then name).

    A kernel traced at several grids (the demo's add_kernel: 20 calls of 8192 blocks at ~11.4 us, 20 of
    65536 at ~92.3 us) gets one path per grid: a median over both would be a time no call took (51.86 us).
    """
    by_kernel: dict[str, dict[tuple | None, list[launchtrace.LaunchCall]]] = {}
    for c in calls:
        by_kernel.setdefault(c.kernel, {}).setdefault(c.grid, []).append(c)
    out = []
    for name, grids in by_kernel.items():
        for grid, cs in grids.items():
            apis = [c.api for c in cs]
            out.append(LaunchPath(name, max(sorted(set(apis)), key=apis.count), len(cs),
                                  statistics.median(c.api_ns for c in cs), statistics.median(c.queue_ns for c in cs),
                                  statistics.median(c.kernel_ns for c in cs), statistics.median(c.total_ns for c in cs),
                                  grid if len(grids) > 1 else None))
    return sorted(out, key=lambda p: (-p.kernel_ns * p.calls, p.kernel, p.grid or ()))


def torch_traces(bundle_dir: str | os.PathLike) -> list[str]:
    """PyTorch profiler traces of a bundle, sorted."""
    found = []
    for sub in TRACE_DIRS:
        folder = os.path.join(bundle_dir, sub)
        if os.path.isdir(folder):
            found += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(TORCH_SUFFIXES)]
    return found


def hip_traces(bundle_dir: str | os.PathLike) -> tuple[str, str] | None:
    """A rocprofv3 ``*_hip_api_trace.csv`` and the ``*_kernel_trace.csv`` beside it (top folder or
    ``compute_viewer/``), first by name."""
    for sub in ("", "compute_viewer"):
        folder = os.path.join(bundle_dir, sub)
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        api = [n for n in names if n.endswith("hip_api_trace.csv")]
        kern = [n for n in names if n.endswith("kernel_trace.csv")]
        if api and kern:
            return os.path.join(folder, api[0]), os.path.join(folder, kern[0])
    return None


def bundle_launch(bundle_dir: str | os.PathLike, found: dict[str, str] | None = None
                  ) -> tuple[list[LaunchPath], list[str], dict[str, list[int]], dict[str, list]] | None:
    """The launch paths of a bundle, the files they come from, each traced kernel's durations (ns) and
    the grids of those calls (None where the trace names none); None when it holds no launch trace.

    ``found``: ``runfiles.find_run_files`` of the bundle, when already worked out.
    """
    found = runfiles.find_run_files(bundle_dir) if found is None else found
    calls: list[launchtrace.LaunchCall] = []
    files: list[str] = []
    if "cuda_kern_exec_trace" in found:
        report = runfiles.nsys_report(found["cuda_kern_exec_trace"])
        calls, files = launchtrace.from_exec_trace(report[1] if report else []), [found["cuda_kern_exec_trace"]]
    elif "nsys_sqlite" in found:
        calls, files = launchtrace.from_nsys_sqlite(found["nsys_sqlite"])[0], [found["nsys_sqlite"]]
    if not calls and (hip := hip_traces(bundle_dir)):
        api, kern = hip
        calls = launchtrace.from_hip_trace(read_csv_dicts(api), read_csv_dicts(kern))
        files = [api, kern] if calls else []
    for path in torch_traces(bundle_dir) if not calls else ():
        got = launchtrace.from_torch_trace(path)
        if got:
            calls += got
            files.append(path)
    durations: dict[str, list[int]] = {}
    grids: dict[str, list] = {}
    for c in calls:
        durations.setdefault(c.kernel, []).append(int(round(c.kernel_ns)))
        grids.setdefault(c.kernel, []).append(c.grid)
    return (summarize(calls), files, durations, grids) if calls else None


def for_kernel(paths: list[LaunchPath], name: str | None) -> LaunchPath | None:
    """The launch path of the kernel ``name`` names (exact, else the one whose name holds it)."""
    if not name:
        return None
    exact = [p for p in paths if p.kernel == name]
    if exact:
        return exact[0]
    holds = [p for p in paths if name in p.kernel]
    return holds[0] if len(holds) == 1 else None
