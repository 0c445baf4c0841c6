"""``kernel-atlas ingest``: lay one raw rocprofv3 output folder out as a sweep bundle.

A raw folder is what one capture run leaves (``capture --vendor amd`` writes it; a user
running the printed commands by hand gets the same)::

    RAW/
      discover_kernel_stats.csv discover_kernel_trace.csv    step 1 (-o discover)
      discover_domain_stats.csv discover_agent_info.csv
      input_trace.yaml                                       step 2's input (output_file: out)
      out_agent_info.csv  out_results.json                   step 2's outputs, named <output_file>_*
      out_32235_shader_engine_0_44.att ...                   raw trace, one file per SE and dispatch
      ui_output_agent_32235_dispatch_42/                     an empty shell (no wave hit the traced CU)
      ui_output_agent_32235_dispatch_44/                     the decoded capture
      pmc/pass_1/pmc_counter_collection.csv                  the optional PMC job
      run.json  discover.log  capture.log                    written by ``capture``

It becomes, under ``SWEEP/examples/<NAME>/`` (the layout of DOMAIN §1)::

    att_viewer/<label>/ui_output_agent_32235_dispatch_44[_<suffix>]/
    compute_viewer/discover_*.csv  <label>_agent_info.csv  <label>_results.json
    pmc/<label>[_<suffix>]/pass_1/pmc_counter_collection.csv
    source/input_trace.yaml (input_trace_<label>.yaml when that name is taken)  provenance.json

Only captures that have sampled waves and instructions are kept; the others are
reported with the reason, and the raw folder is diagnosed (missing trace decoder, no
dispatch traced, empty or truncated trace, lost trace data, no source mapping) with
the fix for each. Nothing already in the sweep is overwritten: a file in place with the
same bytes is left alone, so ingesting the same run twice changes nothing; a different
file of the same name stays, and the new one takes an alternative name or is reported.
Every path written is inside SWEEP.

The jobs: ``ingest_raw`` reads the raw folder and checks each capture, ``ingest_diagnose``
says what went wrong and how to fix it, ``ingest_place`` copies without overwriting and
writes the provenance; this module plans the bundle and reports.
"""

from __future__ import annotations

import os
from dataclasses import field

from generator.capture.ingest_diagnose import Problem, diagnose
from generator.capture.ingest_place import (
    PROVENANCE,
    Action,
    copy_file,
    copy_tree,
    choose_dest,
    provenance_bytes,
    provenance_entry,
    read_provenance,
    same_tree,
)
from generator.capture.ingest_raw import CaptureCheck, RawRun, check_capture, check_name, scan_raw
from generator.errors import InputError
from generator.model import record
from generator.read.discover import enclosing_sweep
from generator.words import plural

DEFAULT_LABEL = "big"
#: What a printed plan says for the sweep when none was given and none is current.
SWEEP_PLACEHOLDER = "SWEEP"


def sweep_into(into: str | None, plan_only: bool = False) -> str:
    """The sweep ``capture`` and ``ingest`` write into: ``--into`` when given (a folder, created
    when absent), else the sweep the current folder is, or is inside; never a guess.

    A plan that writes nothing (``--dry-run``) shows ``SWEEP`` when there is neither; a real
    run then stops with one line (exit 2), as it does for an ``--into`` that is a file.
    """
    if into:
        if os.path.exists(into) and not os.path.isdir(into):
            raise InputError(into, "not a folder: --into takes a sweep folder (created when absent)")
        return into
    found = enclosing_sweep(os.getcwd())
    if found:
        return os.path.relpath(found)
    if plan_only:
        return SWEEP_PLACEHOLDER
    raise InputError("--into", "the current folder is not inside a sweep (no kernel-atlas.toml, "
                               "examples/<kernel>/ or benchmarks/examples/ here or above): give --into SWEEP")


@record
class IngestReport:
    """What an ingest found, kept, wrote and diagnosed (paths relative to the sweep)."""

    raw_dir: str
    bundle: str  # examples/<name>
    label: str
    suffix: str | None
    checks: list[CaptureCheck]
    problems: list[Problem]
    actions: list[Action] = field(default_factory=list)

    @property
    def kept(self) -> list[CaptureCheck]:
        return [c for c in self.checks if c.kept]

    @property
    def changed(self) -> bool:
        return any(a.status == "written" for a in self.actions)

    def render(self) -> str:
        """The text the ingest command prints."""
        out = [f"ingest {self.raw_dir} -> {self.bundle} (label {self.label}"
               + (f", suffix {self.suffix})" if self.suffix else ")")]
        for c in self.checks:
            if c.kept:
                out.append(f"  kept     {c.name}: {plural(c.instructions, 'instruction')}, {plural(c.waves, 'wave')}, "
                           f"source mapped {c.mapped}/{c.instructions}")
            else:
                out.append(f"  skipped  {c.name}: {c.skip}")
        for a in self.actions:
            out.append(f"  {a.status:<14} {a.dest}" + (f"  ({a.note})" if a.note else ""))
        if not self.kept:
            out.append("  nothing was written: no capture has waves and instructions")
        elif not self.changed:
            out.append("  nothing changed: this run is already in the sweep")
        for p in self.problems:
            out.extend("  " + line for line in p.render())
        return "\n".join(out) + "\n"


def _tag(suffix: str | None, kept: list[CaptureCheck]) -> str:
    """What tells this run's files apart when the plain names are taken."""
    if suffix:
        return suffix
    pid = next((c.pid for c in kept if c.pid is not None), None)
    return f"run{pid}" if pid is not None else "run"


def _plan_files(run: RawRun, label: str, suffix: str | None, tag: str) -> list[tuple[str, list[str], str]]:
    """(source file, candidate destinations relative to the bundle, role) of one run's files."""
    plan = [(path, [f"compute_viewer/{name}"], "discovery") for name, path in run.discover.items()]
    if run.agent_info:
        plan.append((run.agent_info, [f"compute_viewer/{label}_agent_info.csv",
                                      f"compute_viewer/{label}_{tag}_agent_info.csv"], "agent_info"))
    if run.results:
        plan.append((run.results, [f"compute_viewer/{label}_results.json",
                                   f"compute_viewer/{label}_{tag}_results.json"], "results"))
    if run.input_yaml:
        plan.append((run.input_yaml, ["source/input_trace.yaml", f"source/input_trace_{label}.yaml",
                                      f"source/input_trace_{label}_{tag}.yaml"], "input"))
    pmc_label = f"{label}_{suffix}" if suffix else label
    for rel, path in run.counters:
        plan.append((path, [f"pmc/{pmc_label}/{rel}", f"pmc/{label}_{tag}/{rel}"], "counters"))
    return plan


def ingest(raw_dir: str, into: str, name: str, label: str | None = None,
           suffix: str | None = None) -> IngestReport:
    """Put the usable captures of one raw run, and its files, into ``into/examples/<name>/``."""
    check_name(name, "--kernel")
    if suffix is not None:
        check_name(suffix, "--suffix")
    run = scan_raw(raw_dir)
    label = check_name(label or str((run.run_info or {}).get("label") or DEFAULT_LABEL), "--label")
    checks = [check_capture(c) for c in run.captures]
    report = IngestReport(raw_dir=raw_dir, bundle=f"examples/{name}", label=label, suffix=suffix,
                          checks=checks, problems=diagnose(run, checks))
    kept = report.kept
    if not kept:
        return report
    if os.path.exists(into) and not os.path.isdir(into):
        raise InputError(into, "not a directory (expected a sweep root)")
    bundle_dir = os.path.join(os.path.abspath(into), "examples", name)

    # decide everything first: a conflict stops the ingest before anything is written
    captures = []
    for c in kept:
        rel = f"att_viewer/{label}/{c.name}" + (f"_{suffix}" if suffix else "")
        dest = os.path.join(bundle_dir, *rel.split("/"))
        if os.path.exists(dest) and not same_tree(c.path, dest):
            raise InputError(dest, "already exists with different content; ingest this run with --suffix "
                                   "(e.g. --suffix after_fix) or move the old capture away")
        captures.append((c, rel, dest))
    tag = _tag(suffix, kept)
    files = [(src, candidates, role, *choose_dest(src, bundle_dir, candidates))
             for src, candidates, role in _plan_files(run, label, suffix, tag)]

    for c, rel, dest in captures:
        exists = os.path.isdir(dest)
        if not exists:
            copy_tree(c.path, dest)
        report.actions.append(Action(rel + "/", "unchanged" if exists else "written"))
    run_files: dict[str, str] = {}
    for src, candidates, role, rel, status in files:
        if rel is None:
            report.actions.append(Action(candidates[0], status, "holds a different file: kept, this run's not copied"))
            continue
        if status == "written":
            copy_file(src, os.path.join(bundle_dir, *rel.split("/")))
        report.actions.append(Action(rel, status))
        if role in ("agent_info", "results", "input"):
            run_files[role] = rel
    report.actions.append(_write_provenance(run, bundle_dir, captures, label, suffix, run_files))
    return report


def _write_provenance(run: RawRun, bundle_dir: str, captures, label: str, suffix: str | None,
                      run_files: dict[str, str]) -> Action:
    """Merge this run's entries into ``source/provenance.json`` (rewritten only when it changes)."""
    rel = f"source/{PROVENANCE}"
    path = os.path.join(bundle_dir, "source", PROVENANCE)
    data = read_provenance(path)
    for c, crel, _ in captures:
        data["captures"][crel] = provenance_entry(run, c, label, suffix, run_files)
    new = provenance_bytes(data)
    if os.path.exists(path):
        with open(path, "rb") as fh:
            if fh.read() == new:
                return Action(rel, "unchanged")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".ingest-tmp"
    with open(tmp, "wb") as fh:
        fh.write(new)
    os.replace(tmp, path)
    return Action(rel, "written")
