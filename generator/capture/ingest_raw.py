"""The raw rocprofv3 folder of ``kernel-atlas ingest``: scan it (``scan_raw``) and check each capture."""

from __future__ import annotations

import json
import os
import re

import yaml

from generator.errors import InputError
from generator.model import UNKNOWN_LOC, record
from generator.read import att
from generator.read.discover import rel_path
from generator.words import plural

CAPTURE_PREFIX = att.CAPTURE_PREFIX
DEFAULT_OUTPUT_FILE = "out"
RUN_INFO = "run.json"
#: Bundle names, labels and suffixes become path components: keep them plain.
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_CAPTURE_DIR = re.compile(r"^ui_output_agent_(?P<pid>\d+)_dispatch_(?P<dispatch>\d+)(?:_.+)?$")
_ATT_FILE = re.compile(r"_shader_engine_(?P<se>\d+)_(?P<dispatch>\d+)\.att$")
#: Folders of a raw run that hold no rocprofv3 output (the JIT cache can be large).
_SKIP_DIRS = re.compile(r"^(\.|flydsl_cache|__pycache__)")
_MAX_DEPTH = 4


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

@record
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
    if not (captures or discover or att_files or yamls or logs or counters or run_info is not None
            or any(n.endswith(("_agent_info.csv", "_results.json")) for n in by_name)):
        raise InputError(raw_dir, "no rocprofv3 output here (expected ui_output_agent_*/ folders, discover_*.csv, "
                                  "*.att files or the input YAML of a raw rocprofv3 output folder)")
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

@record
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
        c.skip, c.truncated = (f"truncated trace: {len(missing)} of {plural(len(waves), 'wave file')} listed in "
                               f"filenames.json {'is' if len(missing) == 1 else 'are'} missing "
                               f"(first: {missing[0]})"), True
    elif not c.instructions:
        c.skip = "no instructions in code.json"
    elif not c.waves:
        c.skip = "no sampled waves"
    return c
