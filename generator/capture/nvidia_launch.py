"""Measure the launch path of the candidate's calls with the PyTorch profiler (step 4 of ``nvidia``).

A child process (``python -m generator.capture trace-child SPEC --shapes a,b --out FILE``) calls the
candidate ``TRACE_CALLS`` times per profiled shape under ``torch.profiler`` (CPU and CUDA activities),
each call followed by a synchronize so that every launch meets an empty queue, and writes the Chrome
trace. Its CUDA runtime / driver events (``cudaLaunchKernel``, ``cuLaunchKernel``) and kernel events
carry one correlation id each, which ``read.launchtrace`` joins into API, queue and kernel time.
The full trace stays in the raw folder; the bundle keeps ``launch/<label>.trace.json``, the trace cut
to those events (``trim``), a few kilobytes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable

from generator.capture.nvidia_profile import run_child
from generator.capture.nvidia_spec import Spec, load_spec

TRACE_CALLS = 20
WARMUP_CALLS = 3
TRACE_TIMEOUT_S = 300
#: Event categories the trimmed trace keeps (those ``read.launchtrace`` reads).
KEPT_CATS = ("kernel", "cuda_runtime", "cuda_driver")
#: Event fields kept, and the args kept of each.
KEPT_FIELDS = ("ph", "cat", "name", "ts", "dur", "pid", "tid")
KEPT_ARGS = ("correlation", "device", "stream", "grid", "block", "registers per thread", "shared memory")


def trace_child(spec_path: str, shape_names: list[str], out: str) -> int:
    """Call the candidate under the PyTorch profiler and write the Chrome trace to ``out``."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    spec = load_spec(spec_path)
    fn = spec.module.providers()[spec.candidate]
    inputs = []
    for name in shape_names:
        shape = spec.shape(name)
        torch.manual_seed(int(spec.shape_id(shape)[5:13], 16))
        inputs.append(tuple(spec.module.make_inputs(shape.as_dict(), "cuda")))
        for _ in range(WARMUP_CALLS):
            fn(*inputs[-1])
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for args in inputs:
            for _ in range(TRACE_CALLS):
                fn(*args)
                torch.cuda.synchronize()
    prof.export_chrome_trace(out)
    return 0


def trim(src: str, dst: str) -> dict[str, int]:
    """Write ``dst``: the kernel events of ``src`` and the host calls that launched them (same
    correlation id), the fields ``KEPT_FIELDS`` only, sorted by time; counts of what was kept."""
    with open(src, encoding="utf-8") as fh:
        data = json.load(fh)
    events = [e for e in data.get("traceEvents") or [] if isinstance(e, dict) and e.get("cat") in KEPT_CATS
              and isinstance((e.get("args") or {}).get("correlation"), int)]
    kernels = {e["args"]["correlation"] for e in events if e["cat"] == "kernel"}
    kept = [{**{k: e[k] for k in KEPT_FIELDS if k in e},
             "args": {k: v for k, v in e["args"].items() if k in KEPT_ARGS}}
            for e in events if e["args"]["correlation"] in kernels]
    kept.sort(key=lambda e: (e.get("ts", 0), e.get("cat", "")))
    out = {"traceEvents": kept, "kernel_atlas": {"trimmed_from": os.path.basename(src), "kept": KEPT_CATS}}
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(out, fh, sort_keys=True, separators=(",", ":"))
        fh.write("\n")
    return {"events": len(kept), "kernels": sum(1 for e in kept if e["cat"] == "kernel")}


def launch_trace(spec: Spec, label: str, raw_dir: str, staging: str, log: Callable[[str], None]) -> dict[str, Any]:
    """Trace the candidate's launches in a child process; the trimmed trace goes to ``staging``."""
    os.makedirs(raw_dir, exist_ok=True)
    os.makedirs(staging, exist_ok=True)
    full = os.path.join(raw_dir, f"{spec.kernel}_{label}.trace.json")
    argv = [sys.executable, "-m", "generator.capture", "trace-child", os.path.abspath(spec.path),
            "--shapes", ",".join(spec.profile), "--out", full]
    t0 = time.time()
    rc, out = run_child(argv, TRACE_TIMEOUT_S, "the launch trace")
    info: dict[str, Any] = {"tool": "torch.profiler", "calls_per_shape": TRACE_CALLS, "returncode": rc,
                            "seconds": round(time.time() - t0, 1)}
    if rc != 0 or not os.path.isfile(full):
        log(f"[{spec.kernel}] launch trace FAILED (rc {rc}): {out[-600:]}")
        return info
    info.update(trim(full, os.path.join(staging, f"{label}.trace.json")), raw_bytes=os.path.getsize(full))
    log(f"[{spec.kernel}] launch trace: {info['kernels']} kernels kept of {os.path.getsize(full)} bytes")
    return info
