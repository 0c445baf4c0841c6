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
"""

from __future__ import annotations

import datetime as dt
import filecmp
import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from typing import Any

import yaml

from generator.read import att, rocprof
from generator.analyze import runstats
from generator.read.discover import rel_path
from generator.errors import InputError
from generator.model import FORMAT_VERSION, UNKNOWN_LOC

CAPTURE_PREFIX = att.CAPTURE_PREFIX
DEFAULT_LABEL = "big"
DEFAULT_OUTPUT_FILE = "out"
PROVENANCE = "provenance.json"
RUN_INFO = "run.json"

#: Bundle names, labels and suffixes become path components: keep them plain.
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_CAPTURE_DIR = re.compile(r"^ui_output_agent_(?P<pid>\d+)_dispatch_(?P<dispatch>\d+)(?:_.+)?$")
_ATT_FILE = re.compile(r"_shader_engine_(?P<se>\d+)_(?P<dispatch>\d+)\.att$")
#: Folders of a raw run that hold no rocprofv3 output (the JIT cache can be large).
_SKIP_DIRS = re.compile(r"^(\.|flydsl_cache|__pycache__)")
_MAX_DEPTH = 4

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


# ---------------------------------------------------------------- small readers

def check_name(value: str, option: str) -> str:
    """A bundle name, label or suffix (given by ``option``) that is safe as one path component."""
    if not value or not _PLAIN_NAME.match(value):
        raise InputError(option, f"{value!r} must be a plain name: letters, digits and _ . + -, "
                                 "starting with a letter or digit")
    return value


def parse_iteration_range(text: str) -> list[int]:
    """Iterations of a ``kernel_iteration_range`` such as ``"[6, [8-8]]"`` -> [6, 8].

    Items are single iterations or ``[a-b]`` ranges; rocprofv3 counts a kernel's
    dispatches from 1 (in the shared sweep, flash_attn_func's 6th and 8th dispatches
    are the dispatch ids 42 and 44 its ATT files carry).
    """
    body = str(text).strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    out: set[int] = set()
    for item in re.findall(r"\[\s*\d+\s*-\s*\d+\s*\]|\d+", body):
        if item.startswith("["):
            lo, hi = (int(x) for x in item.strip("[] ").split("-"))
            if hi < lo:
                raise InputError(None, f"iteration range {text!r}: {lo}-{hi} runs backwards")
            out.update(range(lo, hi + 1))
        else:
            out.add(int(item))
    rest = re.sub(r"\[\s*\d+\s*-\s*\d+\s*\]|\d+|[\s,\[\]]", "", body)
    if rest or not out:
        raise InputError(None, f"iteration range {text!r} is not like \"[6, [8-8]]\"")
    return sorted(out)


def att_job(config: object) -> dict | None:
    """The thread-trace job of a rocprofv3 input config (``jobs`` list), if any."""
    jobs = config.get("jobs") if isinstance(config, dict) else None
    for job in jobs if isinstance(jobs, list) else []:
        if isinstance(job, dict) and job.get("advanced_thread_trace"):
            return job
    return None


def buffer_bytes(value: object) -> int | None:
    """``att_buffer_size`` ("0x6000000" or a number) in bytes."""
    try:
        return int(str(value), 0) if value not in (None, "") else None
    except ValueError:
        return None


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None


# ---------------------------------------------------------------- the raw folder

@dataclass
class RawRun:
    """The files of one raw rocprofv3 output folder, by role (absolute paths)."""

    root: str
    captures: list[str]
    discover: dict[str, str]  # discover_*.csv name -> path
    output_file: str  # the ATT job's output_file prefix ("out")
    agent_info: str | None
    results: str | None
    counters: list[tuple[str, str]]  # (path under pmc/<label>/, file)
    input_yaml: str | None
    config: dict | None  # the parsed input YAML
    att_files: list[str]
    logs: dict[str, str]  # log name -> text
    run_info: dict | None  # run.json written by ``capture``

    @property
    def job(self) -> dict | None:
        return att_job(self.config)

    @property
    def log_text(self) -> str:
        return "\n".join(self.logs[n] for n in sorted(self.logs))


def _walk(root: str):
    """(dir, depth, subdirs, files) below root, sorted, not entering captures or caches."""
    stack = [(root, 0)]
    while stack:
        d, depth = stack.pop(0)
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        dirs = [n for n in names if os.path.isdir(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))]
        files = [n for n in names if os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))]
        yield d, depth, dirs, files
        if depth < _MAX_DEPTH:
            stack.extend((os.path.join(d, n), depth + 1) for n in dirs
                         if not n.startswith(CAPTURE_PREFIX) and not _SKIP_DIRS.match(n))


def _load_yaml(path: str) -> dict | None:
    try:
        data = yaml.safe_load(_read_text(path))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def scan_raw(raw_dir: str) -> RawRun:
    """Sort the files of a raw output folder by role (rocprofv3 may nest them a few levels)."""
    if not os.path.isdir(raw_dir):
        raise InputError(raw_dir, "not a directory (expected a raw rocprofv3 output folder)")
    root = os.path.abspath(raw_dir)
    captures, att_files, yamls, logs = [], [], [], {}
    discover: dict[str, str] = {}
    by_name: dict[str, str] = {}
    counters: list[tuple[str, str]] = []
    run_info = None
    for d, depth, dirs, files in _walk(root):
        captures += [os.path.join(d, n) for n in dirs if n.startswith(CAPTURE_PREFIX)]
        for n in files:
            path = os.path.join(d, n)
            by_name.setdefault(n, path)  # shallowest first
            if n.startswith("discover_") and n.endswith(".csv"):
                discover.setdefault(n, path)
            elif n.endswith("counter_collection.csv"):
                rel = rel_path(path, root)
                counters.append((rel[4:] if rel.startswith("pmc/") else rel, path))
            elif n.endswith(".att"):
                att_files.append(path)
            elif depth == 0 and n.endswith((".yaml", ".yml")):
                yamls.append(path)
            elif depth == 0 and n.endswith(".log"):
                logs[n] = _read_text(path)
            elif depth == 0 and n == RUN_INFO:
                try:
                    run_info = json.loads(_read_text(path))
                except json.JSONDecodeError as err:
                    raise InputError(path, f"not valid JSON: {err}") from None
    input_yaml, config = None, None
    for path in yamls:  # the first config with a thread-trace job, else the first config
        data = _load_yaml(path)
        if data is not None and (input_yaml is None or (att_job(data) and not att_job(config))):
            input_yaml, config = path, data
    job = att_job(config) or {}
    prefix = str(job.get("output_file") or DEFAULT_OUTPUT_FILE)
    return RawRun(
        root=root,
        captures=sorted(captures, key=lambda p: os.path.basename(p)),
        discover=dict(sorted(discover.items())),
        output_file=prefix,
        agent_info=by_name.get(f"{prefix}_agent_info.csv"),
        results=by_name.get(f"{prefix}_results.json"),
        counters=sorted(counters),
        input_yaml=input_yaml,
        config=config,
        att_files=sorted(att_files),
        logs=logs,
        run_info=run_info if isinstance(run_info, dict) else None,
    )


# ---------------------------------------------------------------- one capture

@dataclass
class CaptureCheck:
    """What one ``ui_output_agent_*`` folder holds, and why it is not kept (``skip``)."""

    path: str
    name: str
    instructions: int = 0
    mapped: int = 0
    waves: int = 0
    skip: str | None = None
    empty: bool = False  # an empty shell: no waves, no instructions
    truncated: bool = False
    jit_kernel: str | None = None  # the kernel name code.json's label row gives

    @property
    def kept(self) -> bool:
        return self.skip is None

    @property
    def pid(self) -> int | None:
        m = _CAPTURE_DIR.match(self.name)
        return int(m.group("pid")) if m else None

    @property
    def dispatch(self) -> int | None:
        m = _CAPTURE_DIR.match(self.name)
        return int(m.group("dispatch")) if m else None


def _json_files_ok(capture_dir: str) -> str | None:
    """The first JSON file of a capture that does not parse (a cut-off write), else None."""
    for n in sorted(os.listdir(capture_dir)):
        if n.endswith(".json"):
            try:
                att.read_json(os.path.join(capture_dir, n))
            except InputError as err:
                return f"{n}: {err.problem}"
    return None


def check_capture(capture_dir: str) -> CaptureCheck:
    """Count a capture's instructions, mapped rows and waves; say why it cannot be kept."""
    c = CaptureCheck(path=capture_dir, name=os.path.basename(capture_dir))
    reason = att.empty_reason(capture_dir)
    if reason:
        c.skip, c.empty = reason, True
        return c
    bad = _json_files_ok(capture_dir)
    if bad:
        c.skip, c.truncated = f"truncated trace: {bad}", True
        return c
    code = os.path.join(capture_dir, "code.json")
    if os.path.exists(code):
        instructions, c.jit_kernel, _ = att.load_code(code)
        c.instructions = len(instructions)
        c.mapped = sum(1 for i in instructions if i.source_loc != UNKNOWN_LOC)
    waves = att.load_waves(capture_dir)
    c.waves = len(waves)
    missing = [w.file for w in waves if not os.path.isfile(os.path.join(capture_dir, w.file))]
    if missing:
        c.skip, c.truncated = (f"truncated trace: {len(missing)} of {len(waves)} wave files listed in "
                               f"filenames.json are missing (first: {missing[0]})"), True
    elif not c.instructions:
        c.skip = "no instructions in code.json"
    elif not c.waves:
        c.skip = "no sampled waves"
    return c


# ---------------------------------------------------------------- diagnosis

@dataclass(frozen=True)
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
        fix = (f"the kernel ran {calls} times in the discovery run; iteration {last} does not exist: lower the range"
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
                f"{len(run.att_files)} raw .att file(s) but no {CAPTURE_PREFIX}* folder: the trace was recorded "
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
                                    f"{c.name}: 0 of {c.instructions} instructions map to a source line; "
                                    "a no-debug cache was reused", FIX_NO_SOURCE))
    return problems


# ---------------------------------------------------------------- placing files

@dataclass(frozen=True)
class Action:
    """One file or capture folder put in the bundle (``dest`` relative to the bundle)."""

    dest: str
    status: str  # "written", "unchanged", "kept-existing"
    note: str = ""


def same_file(a: str, b: str) -> bool:
    return os.path.isfile(b) and filecmp.cmp(a, b, shallow=False)


def tree_files(root: str) -> list[str]:
    """Relative paths of the plain files under ``root`` (links are not followed), sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(n for n in dirs if not os.path.islink(os.path.join(d, n)))
        for n in files:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(rel_path(p, root))
    return sorted(out)


def same_tree(src: str, dest: str) -> bool:
    """True when ``dest`` holds exactly the files of ``src`` with the same bytes."""
    if not os.path.isdir(dest):
        return False
    names = tree_files(src)
    return names == tree_files(dest) and all(
        filecmp.cmp(os.path.join(src, n), os.path.join(dest, n), shallow=False) for n in names)


def _copy_file(src: str, dest: str) -> None:
    """Copy bytes only (not the read-only modes of a shared tree), via a temporary name."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.ingest-tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def _copy_tree(src: str, dest: str) -> None:
    """Copy a capture folder under a temporary name, then rename it into place."""
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.ingest-tmp")
    if os.path.isdir(tmp):
        shutil.rmtree(tmp)
    try:
        for rel in tree_files(src):
            target = os.path.join(tmp, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(src, *rel.split("/")), target)
        os.makedirs(tmp, exist_ok=True)
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def choose_dest(src: str, bundle_dir: str, candidates: list[str]) -> tuple[str | None, str]:
    """The first candidate (relative to the bundle) that is free or already holds these bytes.

    Returns (rel, "written" | "unchanged"), or (None, "kept-existing") when every
    candidate holds a different file.
    """
    for rel in candidates:
        path = os.path.join(bundle_dir, *rel.split("/"))
        if not os.path.exists(path):
            return rel, "written"
        if same_file(src, path):
            return rel, "unchanged"
    return None, "kept-existing"


# ---------------------------------------------------------------- provenance

def _gpu(run: RawRun) -> dict[str, Any]:
    """GPU product, arch and count from the run's agent info."""
    if run.agent_info:
        rows = rocprof.read_agent_info(run.agent_info)
        agent = runstats.pick_agent(rows)
        if agent:
            gpus = sum(1 for r in rows if (r.get("Agent_Type") or "").strip().upper() == "GPU")
            return {"gpu": agent.product or None, "arch": agent.arch, "gpus": gpus}
    return {"gpu": None, "arch": None, "gpus": None}


def _results_command(run: RawRun) -> str | None:
    """The profiled command as recorded in ``<output_file>_results.json``."""
    if not run.results:
        return None
    try:
        data = att.read_json(run.results)
        cmd = data["rocprofiler-sdk-tool"][0]["metadata"]["command"]
    except (InputError, KeyError, IndexError, TypeError):
        return None
    return shlex.join(str(c) for c in cmd) if isinstance(cmd, list) else None


def _file_date(path: str) -> str:
    """UTC date-time of a file's last change (ISO 8601, seconds)."""
    stamp = dt.datetime.fromtimestamp(int(os.path.getmtime(path)), tz=dt.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def provenance_entry(run: RawRun, check: CaptureCheck, label: str, suffix: str | None,
                     files: dict[str, str]) -> dict[str, Any]:
    """What is known about where one capture came from (``None`` where unknown)."""
    info = run.run_info or {}
    job = run.job or {}
    if info.get("date"):
        date, date_source = info["date"], "run.json"
    else:
        date, date_source = _file_date(os.path.join(check.path, "code.json")), "file time of code.json"
    return {
        "label": label,
        "suffix": suffix,
        "dispatch": check.dispatch,
        "date": date,
        "date_source": date_source,
        **_gpu(run),
        "rocm": info.get("rocm"),
        "rocprofv3": info.get("rocprofv3"),
        "command": info.get("command") or _results_command(run),
        "commit": info.get("commit"),
        "kernel": info.get("kernel") or check.jit_kernel,
        "kernel_regex": job.get("kernel_include_regex"),
        "iteration_range": job.get("kernel_iteration_range"),
        "instructions": check.instructions,
        "waves": check.waves,
        "source_mapped": {"mapped": check.mapped, "total": check.instructions},
        "files": dict(sorted(files.items())),
    }


def read_provenance(path: str) -> dict[str, Any]:
    """An existing provenance file (an empty one when absent)."""
    if not os.path.exists(path):
        return {"format_version": FORMAT_VERSION, "captures": {}}
    data = att.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("captures"), dict):
        raise InputError(path, 'expected an object with "captures"; move it away to start a new one')
    if data.get("format_version") != FORMAT_VERSION:
        raise InputError(path, f"format_version {data.get('format_version')!r} is not {FORMAT_VERSION}; "
                               "move it away to start a new one")
    return data


def provenance_bytes(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8")


# ---------------------------------------------------------------- ingest

@dataclass
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
                out.append(f"  kept     {c.name}: {c.instructions} instructions, {c.waves} waves, "
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
            _copy_tree(c.path, dest)
        report.actions.append(Action(rel + "/", "unchanged" if exists else "written"))
    run_files: dict[str, str] = {}
    for src, candidates, role, rel, status in files:
        if rel is None:
            report.actions.append(Action(candidates[0], status, "holds a different file: kept, this run's not copied"))
            continue
        if status == "written":
            _copy_file(src, os.path.join(bundle_dir, *rel.split("/")))
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
