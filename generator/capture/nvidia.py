"""Capture one kernel on an NVIDIA GPU: check, time, profile with Nsight Compute, lay out.

``kernel-atlas capture SPEC`` runs four steps for the SPEC file (format below):

1. *check*: every enabled provider runs each shape once on fresh random inputs; its
   output is compared with the SPEC's ``reference`` (fp32 math) by
   ``||out - ref|| / ||ref||`` against ``TOLERANCE``; NaN never passes.
2. *time*: warm-up, then ``n`` samples of one call each, with a 256 MiB buffer written
   before every sample so L2 starts cold (``cache_state = l2_flushed_graph``): first
   eagerly with CUDA events (``eager_median_us``), then as one CUDA-graph replay per
   sample (``median_us``, ``timing_method = cudagraph``). ``n`` is chosen from a first
   estimate so one provider takes about 0.25 s (10 to 100 samples). When graph capture
   fails the eager samples are used (``timing_method = cuda_events``).
3. *profile*: ``ncu --clock-control none --set full --import-source yes -k regex:KERNEL_REGEX
   -c <#shapes>`` runs the candidate once per ``PROFILE`` shape in a child process, then
   exports four pages of the report as CSV.
4. *lay out* (a sweep, DOMAIN §1, with an NVIDIA bundle)::

     <into>/examples/<KERNEL>/ncu/<LABEL>/source_sass.csv       --page source --print-source sass
                                          source_cuda_sass.csv  --page source --print-source cuda,sass
                                          details.csv           --page details
                                          raw.csv               --page raw
                                          provenance.json       GPU, driver, CUDA, torch, triton, ncu, commit,
                                                                the profiled shapes and the exact commands
     <into>/examples/<KERNEL>/source/     snapshot of SOURCES and of the SPEC itself
     <into>/benchmarks/examples/<OP>/benchmark_results.csv|jsonl, shape_ledger.jsonl,
                                    baseline_matrix.yaml        (the AMD campaign schema)
     <into>/kernel-atlas.toml             written only when absent: title, candidate, reference

   Everything is written at the end, so an interrupted capture leaves the previous files
   of that kernel as they were. ``benchmark_results.csv`` has the AMD columns in their
   order plus a last ``cuda_version`` column (``rocm_version`` stays empty); the JSONL
   rows add the failure texts and ``profile_artifact`` (the capture folder of a profiled
   candidate row).

Entry points: ``kernel-atlas capture SPEC`` (``generator.commands.capture``), or
``python -m generator.capture capture SPEC ...`` with the same options (it skips the
other commands' imports; the ncu child is ``python -m generator.capture
profile-child SPEC --shapes a,b``).

The jobs live beside this module: ``nvidia_spec`` (the SPEC file and its format),
``nvidia_bench`` (check and time), ``nvidia_profile`` (ncu, exports, provenance),
``nvidia_campaign`` (the campaign rows and files). This module plans, runs and writes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

from generator.capture.nvidia_bench import run_benchmarks
from generator.capture.nvidia_campaign import ledger_row, run_id, write_campaign
from generator.capture.nvidia_launch import launch_trace
from generator.capture.nvidia_profile import (
    Layout,
    child_argv,
    find_ncu,
    gather_env,
    ncu_export_argvs,
    ncu_profile_argv,
    profile,
    provenance,
    public_argv,
)
from generator.capture.ingest import sweep_into
from generator.capture.nvidia_spec import Spec, check_slug, import_source, load_spec
from generator.errors import InputError

#: Re-exported: the SPEC files of demo/specs/ do ``from generator.capture.nvidia import import_source``.
__all__ = ["capture", "import_source", "load_spec", "plan_text", "publish", "write_default_config"]


def plan_text(spec: Spec, layout: Layout, regex: str, ncu: str | None) -> str:
    """What a capture would do (``--dry-run``): shapes, providers, commands, files."""
    lines = [f"SPEC {spec.path}: kernel {spec.kernel}, op {spec.op} ({spec.op_type}), "
             f"candidate {spec.candidate}, reference {spec.reference}, tolerance {spec.tolerance:g}",
             "providers:"]
    for name, info in spec.providers.items():
        state = f"not_configured: {info.skip_reason}" if info.skip_reason else "enabled"
        lines.append(f"  {name:<16} {state:<12} {info.detail}")
    lines.append(f"shapes ({len(spec.shapes)}):")
    for s in spec.shapes:
        mark = "  [profiled]" if s.name in spec.profile else ""
        lines.append(f"  {s.name:<28} {spec.shape_id(s)}  {s.dtype:<5} {json.dumps(s.args, sort_keys=True)}"
                     f"  {s.model} / {s.stage}{mark}")
    report = "<raw-dir>/" + f"{spec.kernel}_{layout.label}"
    argv = ncu_profile_argv(ncu or "ncu", report, regex, len(spec.profile),
                            child_argv(spec.path, spec.profile))
    lines.append("profile: " + " ".join(public_argv(argv, {sys.executable: "python3"})))
    for name, eargv in ncu_export_argvs(ncu or "ncu", report + ".ncu-rep"):
        lines.append(f"export {layout.rel(os.path.join(layout.capture, name))}: {' '.join(eargv)}")
    lines.append(f"campaign: {layout.rel(layout.campaign)}/benchmark_results.csv, shape_ledger.jsonl")
    lines.append(f"sources: {', '.join(os.path.basename(s) for s in spec.sources) or '(none)'}")
    if not ncu:
        lines.append("note: ncu was not found on this machine (needed for a real capture)")
    return "\n".join(lines) + "\n"


def capture(args: argparse.Namespace) -> int:
    """``kernel-atlas capture SPEC`` on an NVIDIA machine (see the module docstring)."""
    if args.cmd:
        raise InputError(None, "with --vendor nvidia give a SPEC file, not a command "
                               "(a command to profile is for --vendor amd)")
    if not args.spec:
        raise InputError("capture", "no SPEC file given: an NVIDIA capture needs one "
                                    "(see `kernel-atlas capture nvidia --help`)")
    spec = load_spec(args.spec)
    label = check_slug(args.label, "--label", args.spec) if args.label else spec.label
    regex = args.kernel or spec.kernel_regex
    into = sweep_into(args.into, plan_only=args.dry_run)
    layout = Layout(into=os.path.abspath(into), kernel=spec.kernel, op=spec.op, label=label)
    ncu = find_ncu()
    if args.dry_run:
        sys.stdout.write(plan_text(spec, layout, regex, ncu))
        return 0
    if not ncu and not getattr(args, "launch_only", False):
        raise InputError(None, "ncu (Nsight Compute) was not found on PATH or under /opt/nvidia/nsight-compute")
    try:
        import torch
    except ImportError:
        raise InputError(None, "capture needs PyTorch with CUDA on this machine") from None
    if not torch.cuda.is_available():
        raise InputError(None, "no CUDA GPU is visible (torch.cuda.is_available() is False)")

    def log(msg: str) -> None:
        print(msg, flush=True)

    if getattr(args, "launch_only", False):
        return launch_only(spec, layout, args.raw_dir, log)
    t0 = time.time()
    env = gather_env(spec.path, ncu)
    rid = run_id(spec.op, env.get("candidate_commit"), datetime.now(timezone.utc))
    log(f"[{spec.kernel}] {env['gpu']} ({env['arch']}), driver {env['driver_version']}, CUDA {env['cuda_version']}, "
        f"torch {env['torch_version']}, triton {env['triton_version']}, ncu {env.get('ncu_version')}")
    rows = run_benchmarks(spec, env, rid, log)
    tmp = tempfile.mkdtemp(prefix="kernel-atlas-ncu-")
    raw_dir = os.path.abspath(args.raw_dir) if args.raw_dir else tmp
    staging = os.path.join(tmp, "exports")
    try:
        prof = profile(spec, layout, regex, ncu, raw_dir, staging, log)
        captured = any(e.get("ok") for e in prof.get("exports", {}).values())
        prof["launch_trace"] = launch_trace(spec, label, raw_dir, os.path.join(tmp, "launch"), log)
        publish(spec, layout, env, regex, prof, rows, staging if captured else None)
        place_launch(layout, os.path.join(tmp, "launch"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ok = sum(1 for r in rows if r["benchmark_status"] == "ok")
    log(f"[{spec.kernel}] done in {time.time() - t0:.0f} s: {ok}/{len(rows)} rows ok, "
        f"profile {'exported' if captured else 'MISSING'} -> {layout.rel(layout.bundle)}, {layout.rel(layout.campaign)}")
    return 0 if captured else 1


def launch_only(spec: Spec, layout: Layout, raw_dir: str | None, log) -> int:
    """``capture SPEC --launch-only``: the launch-path trace alone, into ``examples/<KERNEL>/launch/``."""
    tmp = tempfile.mkdtemp(prefix="kernel-atlas-trace-")
    try:
        info = launch_trace(spec, layout.label, os.path.abspath(raw_dir) if raw_dir else tmp,
                            os.path.join(tmp, "launch"), log)
        place_launch(layout, os.path.join(tmp, "launch"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if info.get("returncode") == 0 and info.get("kernels") else 1


def place_launch(layout: Layout, staging: str) -> None:
    """Copy the trimmed launch trace(s) into the bundle's ``launch/`` folder (replacing the label's)."""
    if not os.path.isdir(staging):
        return
    dest = os.path.join(layout.bundle, "launch")
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(staging)):
        shutil.copyfile(os.path.join(staging, name), os.path.join(dest, name))


def publish(spec: Spec, layout: Layout, env: dict, regex: str, prof: dict | None,
            rows: list[dict[str, Any]], exports: str | None) -> None:
    """Write the campaign, the source snapshot and the capture folder (replacing older ones).

    Everything is written at the end, so an interrupted capture leaves the previous
    files of this kernel untouched rather than half of a new capture.
    """
    captured = exports is not None
    artifact = layout.rel(layout.capture) if captured else None
    profiled_ids = {spec.shape_id(spec.shape(n)) for n in spec.profile}
    for r in rows:
        if r["provider"] == spec.candidate and r["shape_id"] in profiled_ids:
            r["profile_artifact"] = artifact
    ledger = [ledger_row(spec, s, env) for s in spec.shapes]
    write_campaign(layout.campaign, spec, rows, ledger)
    sources = snapshot_sources(spec, layout)
    if os.path.isdir(layout.capture):
        shutil.rmtree(layout.capture)
    os.makedirs(layout.capture)
    if exports:
        for name in sorted(os.listdir(exports)):
            shutil.copyfile(os.path.join(exports, name), os.path.join(layout.capture, name))
    write_json(os.path.join(layout.capture, "provenance.json"), provenance(spec, layout, env, regex, prof, sources))
    write_default_config(layout.into, spec, env)


def snapshot_sources(spec: Spec, layout: Layout) -> list[str]:
    """Copy SOURCES and the SPEC into ``source/`` (basenames; the SPEC as spec_<name>)."""
    os.makedirs(layout.source, exist_ok=True)
    written = []
    pairs = [(s, os.path.basename(s)) for s in spec.sources]
    pairs.append((spec.path, "spec_" + os.path.basename(spec.path)))
    for src, name in pairs:
        dest = os.path.join(layout.source, name)
        shutil.copyfile(src, dest)
        written.append(layout.rel(dest))
    return written


def write_json(path: str, obj: Any) -> None:
    """Write JSON with sorted keys and a newline."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=1, sort_keys=True)
        fh.write("\n")


def write_default_config(into: str, spec: Spec, env: dict) -> str | None:
    """Write ``kernel-atlas.toml`` naming the SPEC's candidate and reference, unless one exists.

    Without it the sweep would be judged with the default candidate (``flydsl``), which
    an NVIDIA capture never has. An existing configuration is never touched.
    """
    from generator.config import CONFIG_NAME

    path = os.path.join(into, CONFIG_NAME)
    if os.path.exists(path):
        return None
    title = f"{spec.candidate} kernels on {env.get('gpu') or 'an NVIDIA GPU'}"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("# Written by `kernel-atlas capture` because this sweep had no configuration; edit freely.\n"
                 f"title = {json.dumps(title)}\ncandidate = {json.dumps(spec.candidate)}\n"
                 f"reference = {json.dumps(spec.reference)}\n")
    return path
