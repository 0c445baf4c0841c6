"""The launch path of each kernel call: the host API call that launched it, the wait in the stream's
queue, the kernel on the GPU, joined by the correlation id the tracer gives both.

Four writers (docs/formats-other-tools.md):

- ``nsys export --type sqlite``: ``CUPTI_ACTIVITY_KIND_KERNEL`` (start, end, correlationId,
  demangledName -> ``StringIds``) and ``CUPTI_ACTIVITY_KIND_RUNTIME`` (start, end, correlationId,
  nameId -> ``StringIds``: ``cudaLaunchKernel_v7000``, ``cuLaunchKernelEx``, ...); times in ns.
- ``nsys stats --report cuda_kern_exec_trace`` (CSV): one row per launch, the join done by nsys
  (``API Start (ns)``, ``API Dur (ns)``, ``Kernel Start (ns)``, ``Kernel Dur (ns)``, ``API Function``,
  ``Kernel Name``).
- rocprofv3 ``--hip-trace --kernel-trace`` (CSV): ``*_hip_api_trace.csv`` joined to ``*_kernel_trace.csv``
  by ``Correlation_Id`` (the AMD twin of the nsys pair); times in ns.
- The PyTorch profiler's Chrome trace (``torch.profiler.profile(...).export_chrome_trace``): events
  ``{"ph": "X", "cat": "cuda_runtime" | "cuda_driver", "name": "cudaLaunchKernel", "ts", "dur",
  "args": {"correlation": N}}`` and ``{"cat": "kernel", "name": ..., "ts", "dur", "args":
  {"correlation": N}}``; times in microseconds.

For each call: API time = the call's own duration; queue time = kernel start - API end when the
kernel started after the call returned (else 0: it started while the call ran); kernel time = the
kernel's duration; total = kernel end - API start.
"""

from __future__ import annotations

import json
import os
import sqlite3

from generator.errors import InputError
from generator.model import record
from generator.read.runfiles import number

#: Host calls that launch a kernel (names as the tracers write them, version suffix cut: ``_v7000``).
LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
                "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cudaGraphLaunch", "cuGraphLaunch",
                "hipLaunchKernel", "hipModuleLaunchKernel", "hipExtLaunchKernel")
TORCH_HOST_CATS = ("cuda_runtime", "cuda_driver")


@record(frozen=True)
class LaunchCall:
    """One kernel call, host to GPU, in ns on the tracer's one clock."""

    kernel: str
    api: str  # the launching call, version suffix cut
    api_start: float
    api_end: float
    kernel_start: float
    kernel_end: float
    grid: tuple[int, ...] | None = None  # the launch's grid where the trace names it (PyTorch's args.grid)

    @property
    def api_ns(self) -> float:
        return self.api_end - self.api_start

    @property
    def queue_ns(self) -> float:
        return max(0.0, self.kernel_start - self.api_end)

    @property
    def kernel_ns(self) -> float:
        return self.kernel_end - self.kernel_start

    @property
    def total_ns(self) -> float:
        return self.kernel_end - self.api_start


def api_name(name: str) -> str:
    """A runtime call's name without nsys's version suffix (``cudaLaunchKernel_v7000`` -> ``cudaLaunchKernel``)."""
    base, _, tail = name.rpartition("_v")
    return base if base and tail.isdigit() else name


def is_launch(name: str) -> bool:
    return api_name(name) in LAUNCH_CALLS


def _join(kernels: list[tuple], calls: dict[int, tuple[str, float, float]]) -> list[LaunchCall]:
    """Kernels (correlation, name, start, end[, grid]) matched to their launching calls, in kernel start order."""
    out = []
    for k in sorted(kernels, key=lambda k: (k[2], k[0])):
        corr, name, start, end = k[:4]
        call = calls.get(corr)
        if call is not None and is_launch(call[0]):
            out.append(LaunchCall(name, api_name(call[0]), call[1], call[2], start, end, k[4] if len(k) > 4 else None))
    return out


def from_nsys_sqlite(path: str | os.PathLike) -> tuple[list[LaunchCall], dict[str, list[int]]]:
    """Launch calls and every kernel's durations (by demangled name) of an nsys SQLite export."""
    try:
        con = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise InputError(path, f"not a readable SQLite file ({err})") from None
    try:
        kernels = [(c, n or "", float(s), float(e)) for c, n, s, e in con.execute(
            "SELECT k.correlationId, s.value, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "LEFT JOIN StringIds s ON s.id = k.demangledName")]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        calls = {}
        if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
            calls = {c: (n or "", float(s), float(e)) for c, n, s, e in con.execute(
                "SELECT r.correlationId, s.value, r.start, r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                "LEFT JOIN StringIds s ON s.id = r.nameId")}
    except sqlite3.Error as err:
        raise InputError(path, f"not an nsys SQLite export ({err})") from None
    finally:
        con.close()
    durations: dict[str, list[int]] = {}
    for _, name, start, end in kernels:
        durations.setdefault(name, []).append(int(end - start))
    return _join(kernels, calls), durations


def from_exec_trace(rows: list[dict[str, str]]) -> list[LaunchCall]:
    """Launch calls of an ``nsys stats`` ``cuda_kern_exec_trace`` CSV (rows as ``runfiles.nsys_report`` gives)."""
    out = []
    for r in rows:
        api0, api_dur = number(r.get("API Start (ns)")), number(r.get("API Dur (ns)"))
        k0, k_dur = number(r.get("Kernel Start (ns)")), number(r.get("Kernel Dur (ns)"))
        if None in (api0, api_dur, k0, k_dur):
            continue
        out.append(LaunchCall(r.get("Kernel Name") or "", api_name(r.get("API Function") or ""),
                              api0, api0 + api_dur, k0, k0 + k_dur))
    return out


def from_hip_trace(api_rows: list[dict[str, str]], kernel_rows: list[dict[str, str]]) -> list[LaunchCall]:
    """Launch calls of rocprofv3 ``--hip-trace --kernel-trace`` CSVs: ``*_hip_api_trace.csv`` (``Domain,
    Function, Process_Id, Thread_Id, Correlation_Id, Start_Timestamp, End_Timestamp``) joined to
    ``*_kernel_trace.csv`` (``Kernel_Name, Correlation_Id, Start_Timestamp, End_Timestamp``) by
    Correlation_Id; times in ns."""
    def ints(r: dict[str, str]) -> tuple[float | None, float | None, float | None]:
        return number(r.get("Correlation_Id")), number(r.get("Start_Timestamp")), number(r.get("End_Timestamp"))

    calls = {}
    for r in api_rows:
        corr, start, end = ints(r)
        if None not in (corr, start, end):
            calls[int(corr)] = (r.get("Function") or "", start, end)
    kernels = []
    for r in kernel_rows:
        corr, start, end = ints(r)
        if None not in (corr, start, end):
            kernels.append((int(corr), r.get("Kernel_Name") or "", start, end))
    return _join(kernels, calls)


def torch_events(path: str | os.PathLike) -> list[dict] | None:
    """The ``traceEvents`` of a PyTorch profiler Chrome trace, or None when the file is not one."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
            if b"traceEvents" not in head and b"schemaVersion" not in head and b"deviceProperties" not in head:
                return None
            data = json.loads(head + fh.read())
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise InputError(path, f"not valid JSON (truncated or corrupt): {err}") from None
    events = data.get("traceEvents") if isinstance(data, dict) else None
    if not isinstance(events, list):
        return None
    return [e for e in events if isinstance(e, dict)]


def from_torch_trace(path: str | os.PathLike) -> list[LaunchCall] | None:
    """Launch calls of a PyTorch profiler Chrome trace (None: not one); microseconds made ns."""
    events = torch_events(path)
    if events is None:
        return None
    kernels, calls = [], {}
    for e in events:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        corr = args.get("correlation")
        ts, dur = e.get("ts"), e.get("dur")
        if e.get("ph") != "X" or not isinstance(corr, int) or not isinstance(ts, (int, float)) \
                or not isinstance(dur, (int, float)):
            continue
        start, end = float(ts) * 1000.0, (float(ts) + float(dur)) * 1000.0
        if e.get("cat") == "kernel":
            grid = args.get("grid")
            grid = tuple(int(g) for g in grid) if isinstance(grid, list) and all(isinstance(g, int) for g in grid) else None
            kernels.append((corr, str(e.get("name") or ""), start, end, grid))
        elif e.get("cat") in TORCH_HOST_CATS:
            calls[corr] = (str(e.get("name") or ""), start, end)
    return _join(kernels, calls)
