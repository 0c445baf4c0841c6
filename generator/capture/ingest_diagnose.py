"""Why a raw rocprofv3 folder gave no usable capture, and the fix for each problem."""

from __future__ import annotations

import os
import re

from generator.capture.ingest_raw import (
    CAPTURE_PREFIX,
    _ATT_FILE,
    CaptureCheck,
    RawRun,
    buffer_bytes,
    parse_iteration_range,
)
from generator.errors import InputError
from generator.model import record
from generator.read import rocprof
from generator.words import plural

#: What rocprofv3 prints when it cannot load rocprof-trace-decoder (several versions).
DECODER_MISSING = re.compile(
    r"rocprof-trace-decoder library path not found|Decoder library not found|Error loading decoder"
    r"|librocprof-trace-decoder\S*: cannot open shared object", re.I)
#: What the decoder reports when trace packets were dropped (buffer full, too many SEs).
DATA_LOST = re.compile(r"DATA[_ ]LOST|PACKET[_ ]LOST|STITCH[_ ]INCOMPLETE|WAVE[_ ]INCOMPLETE", re.I)
FIX_DECODER = ("install rocprof-trace-decoder (the librocprof-trace-decoder.so package from "
               "https://github.com/ROCm/rocprof-trace-decoder/releases) into /opt/rocm/lib, or point "
               "rocprofv3 at it with ROCPROF_ATT_LIBRARY_PATH=DIR (or --att-library-path DIR), then capture again")
FIX_EMPTY = ("no wave of the traced dispatch ran on the traced CU: launch more waves (a bigger problem), "
             "choose another att_target_cu, widen att_shader_engine_mask (e.g. 0xff), or set HSA_CU_MASK "
             "so that the waves land on the traced CU")
FIX_DATA_LOST = ("the trace buffer overflowed and packets were dropped: raise att_buffer_size (e.g. double it), "
                 "trace fewer shader engines (att_shader_engine_mask) or a smaller problem, then capture again")
FIX_TRUNCATED = ("the decoded files are cut short (an interrupted run or a full disk): check free space and "
                 "capture again; the raw .att files can also be decoded again with rocprof-trace-decoder")
FIX_NO_SOURCE = ("the kernel was built without debug info, most often because a cached no-debug build was "
                 "reused: capture again with FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1 and a fresh, empty "
                 "FLYDSL_RUNTIME_CACHE_DIR (capture --vendor amd does both)")


@record(frozen=True)
class Problem:
    """Something wrong with a raw run, and how to fix it."""

    kind: str  # decoder-missing, no-dispatch, empty-trace, truncated-trace, data-lost, buffer-full, no-source-mapping
    severity: str  # "error": nothing usable came of it; "warning": kept captures may be incomplete
    message: str
    fix: str

    def render(self) -> list[str]:
        return [f"{self.severity}: {self.kind}: {self.message}", f"  fix: {self.fix}"]


def kernel_calls(run: RawRun, regex: str) -> int | None:
    """How often kernels matching ``regex`` ran in the discovery trace (None without one)."""
    path = run.discover.get("discover_kernel_trace.csv")
    if not path or not regex:
        return None
    try:
        pattern = re.compile(regex)
    except re.error:
        return None
    return sum(1 for r in rocprof.read_kernel_trace(path) if pattern.search(r.get("Kernel_Name") or ""))


def _no_dispatch_problem(run: RawRun) -> Problem:
    """Why no dispatch was traced at all, as precisely as the discovery allows."""
    job = run.job or {}
    regex = str(job.get("kernel_include_regex") or "")
    rng = str(job.get("kernel_iteration_range") or "")
    calls = kernel_calls(run, regex)
    why = f"kernel_include_regex {regex!r}, kernel_iteration_range {rng!r}"
    if calls == 0:
        fix = "the regex matches no kernel of the discovery run: pick a Name from discover_kernel_stats.csv"
    elif calls is not None and rng:
        try:
            last = parse_iteration_range(rng)[-1]
        except InputError:
            last = 0
        fix = (f"the kernel ran {plural(calls, 'time')} in the discovery run; iteration {last} does not exist: lower the range"
               if last > calls else "check that the run finished (see capture.log) and that the regex still matches")
    else:
        fix = "check the kernel regex and iteration range against discover_kernel_stats.csv, and capture.log"
    return Problem("no-dispatch", "error", f"rocprofv3 traced no dispatch ({why})", fix)


def _buffer_full(run: RawRun) -> list[Problem]:
    """Dispatches whose raw trace fills the shared ATT buffer (the end of the trace is lost)."""
    size = buffer_bytes((run.job or {}).get("att_buffer_size"))
    if not size:
        return []
    per_dispatch: dict[int, int] = {}
    for path in run.att_files:
        m = _ATT_FILE.search(os.path.basename(path))
        if m:
            d = int(m.group("dispatch"))
            per_dispatch[d] = per_dispatch.get(d, 0) + os.path.getsize(path)
    return [Problem("buffer-full", "warning",
                    f"dispatch {d}: {total} bytes of raw trace fill the {size}-byte att_buffer_size "
                    f"({total / size:.0%}); the end of the trace is lost", FIX_DATA_LOST)
            for d, total in sorted(per_dispatch.items()) if total >= 0.98 * size]


def diagnose(run: RawRun, checks: list[CaptureCheck]) -> list[Problem]:
    """Problems of a raw run: decoder, dispatch, empty or truncated traces, data loss, mapping."""
    problems: list[Problem] = []
    log = run.log_text
    kept = [c for c in checks if c.kept]
    m = DECODER_MISSING.search(log)
    if m or (run.att_files and not checks):
        what = (f"rocprofv3 said: {m.group(0)!r}" if m else
                f"{plural(len(run.att_files), 'raw .att file')} but no {CAPTURE_PREFIX}* folder: the trace was recorded "
                "but never decoded")
        problems.append(Problem("decoder-missing", "warning" if kept else "error",
                                f"the ATT trace decoder (rocprof-trace-decoder) was not found; {what}", FIX_DECODER))
    elif not checks:
        problems.append(_no_dispatch_problem(run))
    empty = [c for c in checks if c.empty]
    if checks and len(empty) == len(checks):
        problems.append(Problem("empty-trace", "error",
                                f"every capture folder is an empty shell ({', '.join(c.name for c in empty)})",
                                FIX_EMPTY))
    for c in checks:
        if c.truncated:
            problems.append(Problem("truncated-trace", "warning" if kept else "error",
                                    f"{c.name}: {c.skip}", FIX_TRUNCATED))
    lost = DATA_LOST.search(log)
    if lost:
        problems.append(Problem("data-lost", "warning",
                                f"the trace decoder reported {lost.group(0)!r}: kept captures may miss waves or "
                                "instructions", FIX_DATA_LOST))
    problems.extend(_buffer_full(run))
    for c in kept:
        if c.mapped == 0:
            problems.append(Problem("no-source-mapping", "warning",
                                    f"{c.name}: 0 of {plural(c.instructions, 'instruction')} map to a source line; "
                                    "a no-debug cache was reused", FIX_NO_SOURCE))
    return problems
