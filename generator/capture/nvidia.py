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

SPEC file: a Python file whose module level imports neither torch nor triton (so
``--dry-run`` works on any machine); GPU code is reached through its functions::

    KERNEL = "softmax"                      # bundle name examples/<KERNEL>/ (required)
    OP = "softmax"                          # campaign name (default KERNEL)
    OP_TYPE = "softmax"                     # op_type column (default OP)
    CANDIDATE = "triton"                    # provider judged (default "triton")
    REFERENCE = "pytorch"                   # reference provider (default "pytorch")
    KERNEL_REGEX = "^softmax_kernel$"       # ncu -k regex:... (default KERNEL)
    LABEL = "prefill"                       # bundle label folder (default "primary")
    PROFILE = ["llama3-8b-attn"]            # shape names profiled, one launch each (default: first)
    SOURCES = ["../kernels/softmax.py"]     # snapshotted into source/ (relative to the SPEC)
    TOLERANCE = 1e-2                        # max relative error (default 1e-2)
    PROVIDERS = {                           # name -> description, or {"detail", "skip_reason"}
        "triton": "one program per row",
        "pytorch": "torch.softmax (eager)",
        "cudnn": {"detail": "...", "skip_reason": "not wired yet"},   # a not_configured row
    }
    SHAPES = [{"name": "llama3-8b-attn", "args": {"M": 65536, "N": 2048}, "dtype": "bf16",
               "model": "Llama3 8B", "stage": "prefill",
               "source": {"kind": "model_config", "notes": "32 heads x 2048 tokens"},
               "weight": {"occurrences": 32}}]
    def make_inputs(shape, device): ...     # -> tuple of arguments (shape: the dict above)
    def reference(*inputs): ...             # -> the true output, in fp32
    def providers(): ...                    # -> {name: callable(*inputs) -> output}
    def traffic(shape): ...                 # optional -> (bytes moved, flops) per call
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from types import ModuleType
from typing import Any, Callable

from generator.read.discover import rel_path
from generator.errors import InputError

#: Columns of ``benchmark_results.csv``: those of the AMD campaigns, in their order, then
#: ``cuda_version`` (the one provenance column an NVIDIA run needs that AMD has not).
AMD_RESULT_COLUMNS = (
    "run_id", "shape_id", "model", "stage", "dtype", "op_type", "args", "provider",
    "provider_detail", "correct", "benchmark_status", "median_us", "timing_method",
    "eager_median_us", "host_overhead_us", "graph_median_us", "cache_state",
    "graph_replay_count", "p10_us", "p90_us", "mean_us", "std_us", "min_us", "stable",
    "effective_gbps", "effective_tflops", "includes_allocation", "includes_layout_conversion",
    "includes_jit", "skip_reason", "candidate_commit", "baseline_commit", "gpu", "arch",
    "rocm_version", "driver_version", "torch_version", "triton_version", "sglang_commit",
)
RESULT_COLUMNS = AMD_RESULT_COLUMNS + ("cuda_version",)
#: Extra fields of the JSONL rows (as in the AMD campaigns): failure texts and loop counts.
JSONL_EXTRAS = ("correctness_error", "graph_capture_error", "loops_per_measure",
                "profile_artifact", "repeat_iters", "warmup_iters", "workspace_bytes")
LEDGER_SOURCE_KEYS = ("concurrency", "file", "input_len", "kind", "notes", "output_len")
WEIGHT_KEYS = ("baseline_time_weight", "occurrences", "traffic_weight")

NCU_PROFILE_FLAGS = ("--clock-control", "none", "--set", "full", "--import-source", "yes")
#: The four exports of a report: file name -> ``ncu -i REPORT`` arguments.
NCU_EXPORTS = (
    ("source_sass.csv", ("--page", "source", "--csv", "--print-source", "sass")),
    ("source_cuda_sass.csv", ("--page", "source", "--csv", "--print-source", "cuda,sass")),
    ("details.csv", ("--page", "details", "--csv")),
    ("raw.csv", ("--page", "raw", "--csv")),
)
FLUSH_BYTES = 256 << 20  # > 4x the H200's 50 MB L2
TARGET_S = 0.25          # time spent sampling one provider (eager and graph each)
MIN_SAMPLES, MAX_SAMPLES = 10, 100
WARMUP_CALLS = 3
STABLE_CV = 0.10         # stable when std / median <= 10 %
NCU_TIMEOUT_S = 300
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# ---------------------------------------------------------------- the SPEC

@dataclass
class Shape:
    """One benchmarked shape of a SPEC."""

    name: str
    args: dict[str, Any]
    dtype: str
    model: str
    stage: str
    source: dict[str, Any]
    weight: dict[str, Any]
    notes: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The shape as the SPEC's functions receive it."""
        return {"name": self.name, "args": dict(self.args), "dtype": self.dtype, "model": self.model,
                "stage": self.stage, "source": dict(self.source), "weight": dict(self.weight),
                "notes": self.notes}


@dataclass
class ProviderInfo:
    """A provider named by the SPEC: its description, and why it is off (None: enabled)."""

    name: str
    detail: str
    skip_reason: str | None = None


@dataclass
class Spec:
    """A loaded SPEC file (see the module docstring)."""

    path: str
    module: ModuleType
    kernel: str
    op: str
    op_type: str
    candidate: str
    reference: str
    kernel_regex: str
    label: str
    profile: list[str]
    sources: list[str]  # absolute paths
    tolerance: float
    providers: dict[str, ProviderInfo]
    shapes: list[Shape]
    notes: str = ""

    def shape(self, name: str) -> Shape:
        """The shape called ``name``."""
        for s in self.shapes:
            if s.name == name:
                return s
        raise InputError(self.path, f"no shape named {name!r}")

    def shape_id(self, shape: Shape) -> str:
        """The ledger id of one shape."""
        return shape_id(self.op_type, shape.dtype, shape.args)


def shape_id(op_type: str, dtype: str, args: dict[str, Any]) -> str:
    """``sha1:`` + 16 hex digits of the canonical JSON of (op_type, dtype, args)."""
    text = json.dumps({"args": args, "dtype": dtype, "op_type": op_type}, sort_keys=True,
                      separators=(",", ":"))
    return "sha1:" + hashlib.sha1(text.encode()).hexdigest()[:16]


def import_source(anchor: str, rel: str) -> ModuleType:
    """Import the Python file ``rel`` (relative to the file ``anchor``) as a module.

    Triton needs the kernel's source file on disk (it reads it for JIT and line info),
    so kernels are imported from their real path, once per process.
    """
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(anchor)), rel))
    name = "kernel_atlas_src_" + re.sub(r"\W", "_", os.path.relpath(path, os.path.dirname(anchor)))
    name += "_" + hashlib.sha1(path.encode()).hexdigest()[:8]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(path, "cannot import this file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _load_module(path: str) -> ModuleType:
    """Execute the SPEC file as a module; any error becomes an InputError."""
    name = "kernel_atlas_spec_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(path, "not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except SyntaxError as err:
        raise InputError(path, f"syntax error: {err.msg}", line=err.lineno) from None
    except InputError:
        raise
    except Exception as err:  # the SPEC's own code failed: say what, not a traceback
        raise InputError(path, f"cannot load SPEC: {type(err).__name__}: {err}") from None
    return mod


def _need(mod: ModuleType, name: str, kind: type | tuple, path: str, default: Any = ...) -> Any:
    """A module attribute of the given type (or the default when absent)."""
    if not hasattr(mod, name):
        if default is ...:
            raise InputError(path, f"SPEC must define {name}")
        return default
    value = getattr(mod, name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(path, f"{name} must be a {want}, got {value!r}")
    return value


def _slug(value: str, what: str, path: str) -> str:
    """A name usable as a folder and in a URL."""
    if not _SLUG.match(value):
        raise InputError(path, f"{what} {value!r} must be letters, digits, '_', '-' or '.'")
    return value


def _shape(raw: Any, index: int, path: str) -> Shape:
    """One SHAPES entry, checked."""
    where = f"SHAPES[{index}]"
    if not isinstance(raw, dict):
        raise InputError(path, f"{where} must be a dict, got {raw!r}")
    name = raw.get("name")
    if not isinstance(name, str):
        raise InputError(path, f"{where} needs a string 'name'")
    _slug(name, f"{where} name", path)
    args = raw.get("args")
    if not isinstance(args, dict) or not args:
        raise InputError(path, f"{where} ({name}) needs a non-empty dict 'args'")
    for k, v in args.items():
        if not isinstance(k, str) or not isinstance(v, (int, float, str, bool)) or v is None:
            raise InputError(path, f"{where} ({name}): args[{k!r}] must be a number or string")
    dtype = raw.get("dtype")
    if not isinstance(dtype, str):
        raise InputError(path, f"{where} ({name}) needs a string 'dtype'")
    source = raw.get("source", {})
    weight = raw.get("weight", {})
    if not isinstance(source, dict) or not isinstance(weight, dict):
        raise InputError(path, f"{where} ({name}): 'source' and 'weight' must be dicts")
    unknown = set(weight) - set(WEIGHT_KEYS)
    if unknown:
        raise InputError(path, f"{where} ({name}): unknown weight keys {sorted(unknown)}")
    src = {k: source.get(k) for k in LEDGER_SOURCE_KEYS}
    src["kind"] = src["kind"] or "spec"
    return Shape(
        name=name, args=dict(args), dtype=dtype,
        model=str(raw.get("model", "synthetic")), stage=str(raw.get("stage", "synthetic")),
        source=src, weight={k: weight.get(k) for k in WEIGHT_KEYS}, notes=str(raw.get("notes", "")),
    )


def _providers(raw: Any, path: str) -> dict[str, ProviderInfo]:
    """The PROVIDERS table, checked."""
    if not isinstance(raw, dict) or not raw:
        raise InputError(path, "PROVIDERS must be a non-empty dict: name -> description")
    out = {}
    for name, value in raw.items():
        _slug(str(name), "provider", path)
        if isinstance(value, str):
            out[name] = ProviderInfo(name, value)
        elif isinstance(value, dict) and isinstance(value.get("detail", ""), str):
            skip = value.get("skip_reason")
            out[name] = ProviderInfo(name, value.get("detail", ""), str(skip) if skip else None)
        else:
            raise InputError(path, f"PROVIDERS[{name!r}] must be a string or a dict with 'detail'")
    return out


def load_spec(path: str | os.PathLike) -> Spec:
    """Load and check a SPEC file (no GPU, torch or triton needed)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(path, "no such SPEC file")
    if not path.endswith(".py"):
        raise InputError(path, "a SPEC is a Python file (*.py)")
    mod = _load_module(path)
    kernel = _slug(_need(mod, "KERNEL", str, path), "KERNEL", path)
    op = _slug(_need(mod, "OP", str, path, kernel), "OP", path)
    raw_shapes = _need(mod, "SHAPES", (list, tuple), path)
    if not raw_shapes:
        raise InputError(path, "SHAPES is empty")
    shapes = [_shape(s, i, path) for i, s in enumerate(raw_shapes)]
    names = [s.name for s in shapes]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(path, f"shape names must be unique: {', '.join(dup)}")
    providers = _providers(_need(mod, "PROVIDERS", dict, path), path)
    candidate = _need(mod, "CANDIDATE", str, path, "triton")
    reference = _need(mod, "REFERENCE", str, path, "pytorch")
    for role, name in (("CANDIDATE", candidate), ("REFERENCE", reference)):
        if name not in providers:
            raise InputError(path, f"{role} {name!r} is not in PROVIDERS ({', '.join(providers)})")
    if providers[candidate].skip_reason:
        raise InputError(path, f"the candidate {candidate!r} cannot be skipped")
    for fn in ("make_inputs", "reference", "providers"):
        if not callable(getattr(mod, fn, None)):
            raise InputError(path, f"SPEC must define a function {fn}()")
    profile = list(_need(mod, "PROFILE", (list, tuple), path, [shapes[0].name]))
    for name in profile:
        if name not in names:
            raise InputError(path, f"PROFILE names an unknown shape {name!r}")
    if not profile:
        raise InputError(path, "PROFILE is empty")
    base = os.path.dirname(os.path.abspath(path))
    sources = []
    for rel in _need(mod, "SOURCES", (list, tuple), path, []):
        src = os.path.normpath(os.path.join(base, str(rel)))
        if not os.path.isfile(src):
            raise InputError(path, f"SOURCES names a missing file {rel!r}")
        sources.append(src)
    tol = _need(mod, "TOLERANCE", (int, float), path, 1e-2)
    if not tol > 0:
        raise InputError(path, f"TOLERANCE must be positive, got {tol!r}")
    return Spec(
        path=path, module=mod, kernel=kernel, op=op,
        op_type=_need(mod, "OP_TYPE", str, path, op),
        candidate=candidate, reference=reference,
        kernel_regex=_need(mod, "KERNEL_REGEX", str, path, kernel),
        label=_slug(_need(mod, "LABEL", str, path, "primary"), "LABEL", path),
        profile=profile, sources=sources, tolerance=float(tol),
        providers=providers, shapes=shapes, notes=(mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else "",
    )


# ---------------------------------------------------------------- statistics and rows

def percentile(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize_samples(samples_us: list[float]) -> dict[str, Any]:
    """median, p10, p90, mean, std (population), min and ``stable`` of timing samples.

    ``stable`` is std / median <= 10 %.
    """
    vals = sorted(float(v) for v in samples_us)
    n = len(vals)
    mean = sum(vals) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / n)
    median = percentile(vals, 50)
    return {"median_us": median, "p10_us": percentile(vals, 10), "p90_us": percentile(vals, 90),
            "mean_us": mean, "std_us": std, "min_us": vals[0], "n": n,
            "stable": bool(median > 0 and std / median <= STABLE_CV)}


def ledger_row(spec: Spec, shape: Shape, env: dict[str, Any]) -> dict[str, Any]:
    """One ``shape_ledger.jsonl`` line (the AMD ledger keys, plus the shape's ``name``)."""
    return {
        "arch": env.get("arch"),
        "args": dict(shape.args),
        "baselines_available": [p for p, info in spec.providers.items()
                                if p != spec.candidate and not info.skip_reason],
        "dtype": shape.dtype,
        "gpu": env.get("gpu"),
        "kernel_name": spec.kernel,
        "layout": {"row_major": True},
        "model": shape.model,
        "name": shape.name,
        "notes": shape.notes,
        "op_type": spec.op_type,
        "shape_id": spec.shape_id(shape),
        "source": dict(shape.source),
        "stage": shape.stage,
        "weight": dict(shape.weight),
    }


def base_row(spec: Spec, shape: Shape, provider: str, env: dict[str, Any], run_id: str) -> dict[str, Any]:
    """A results row with identity and provenance filled and every measurement null."""
    row: dict[str, Any] = {c: None for c in RESULT_COLUMNS + JSONL_EXTRAS}
    row.update(
        run_id=run_id, shape_id=spec.shape_id(shape), model=shape.model, stage=shape.stage,
        dtype=shape.dtype, op_type=spec.op_type, args=dict(shape.args), provider=provider,
        provider_detail=spec.providers[provider].detail,
        includes_allocation=False, includes_layout_conversion=False, includes_jit=False,
        candidate_commit=env.get("candidate_commit") or None,
        baseline_commit=None if provider == spec.candidate else (env.get("torch_git") or None),
        gpu=env.get("gpu"), arch=env.get("arch"), rocm_version=None,
        driver_version=env.get("driver_version"), torch_version=env.get("torch_version"),
        triton_version=env.get("triton_version"), sglang_commit=None,
        cuda_version=env.get("cuda_version"),
    )
    return row


def status_row(row: dict[str, Any], status: str, reason: str | None) -> dict[str, Any]:
    """Mark a row that has no measurement (not_configured, failed, oom, unsupported...)."""
    row["benchmark_status"] = status
    row["skip_reason"] = reason
    if status in ("failed", "oom", "unsupported") and reason:
        row["correctness_error"] = reason
    return row


def measured_row(row: dict[str, Any], correct: bool, error_text: str | None,
                 eager: dict[str, Any], graph: dict[str, Any] | None, graph_error: str | None,
                 traffic: tuple[float, float] | None) -> dict[str, Any]:
    """Fill a row from the eager and graph timing summaries (graph None: eager only)."""
    best = graph or eager
    row.update({k: best[k] for k in ("median_us", "p10_us", "p90_us", "mean_us", "std_us", "min_us", "stable")})
    row["correct"] = bool(correct)
    row["benchmark_status"] = "ok" if correct else "incorrect"
    row["correctness_error"] = None if correct else error_text
    row["eager_median_us"] = eager["median_us"]
    row["graph_median_us"] = graph["median_us"] if graph else None
    row["host_overhead_us"] = (eager["median_us"] - graph["median_us"]) if graph else None
    row["timing_method"] = "cudagraph" if graph else "cuda_events"
    row["cache_state"] = "l2_flushed_graph" if graph else "l2_flushed"
    row["graph_replay_count"] = 1 if graph else None
    row["graph_capture_error"] = graph_error
    row["loops_per_measure"] = 1
    row["warmup_iters"] = WARMUP_CALLS
    row["repeat_iters"] = best["n"]
    if traffic and best["median_us"] > 0:
        nbytes, flops = traffic
        sec = best["median_us"] * 1e-6
        row["effective_gbps"] = nbytes / sec / 1e9 if nbytes else None
        row["effective_tflops"] = flops / sec / 1e12 if flops else None
    return row


def csv_cell(value: Any) -> str:
    """A CSV cell the AMD way: null -> '', booleans True/False, args as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def results_csv(rows: list[dict[str, Any]]) -> str:
    """``benchmark_results.csv`` text."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RESULT_COLUMNS)
    for r in rows:
        w.writerow([csv_cell(r.get(c)) for c in RESULT_COLUMNS])
    return buf.getvalue()


def jsonl(rows: list[dict[str, Any]]) -> str:
    """One JSON object per line, keys sorted."""
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)


def baseline_matrix(spec: Spec) -> str:
    """``baseline_matrix.yaml`` text (written as JSON-compatible YAML, keys in SPEC order)."""
    lines = [f"kernel: {json.dumps(spec.kernel)}", f"op_type: {json.dumps(spec.op_type)}",
             f"reference_provider: {json.dumps(spec.reference)}",
             f"candidate_provider: {json.dumps(spec.candidate)}", "providers:"]
    for name, info in spec.providers.items():
        role = "candidate" if name == spec.candidate else "reference" if name == spec.reference else "baseline"
        lines += [f"  {name}:", f"    enabled: {'false' if info.skip_reason else 'true'}",
                  f"    provider: {json.dumps(name)}", f"    role: {role}",
                  f"    notes: {json.dumps(info.detail)}"]
        if info.skip_reason:
            lines.append(f"    skip_reason: {json.dumps(info.skip_reason)}")
    return "\n".join(lines) + "\n"


def write_campaign(folder: str, spec: Spec, rows: list[dict[str, Any]], ledger: list[dict[str, Any]]) -> list[str]:
    """Write the four campaign files (replacing an older capture of this op)."""
    os.makedirs(folder, exist_ok=True)
    files = {
        "benchmark_results.csv": results_csv(rows),
        "benchmark_results.jsonl": jsonl(rows),
        "shape_ledger.jsonl": jsonl(ledger),
        "baseline_matrix.yaml": baseline_matrix(spec),
    }
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    return [os.path.join(folder, n) for n in files]


def run_id(op: str, commit: str | None, when: datetime) -> str:
    """``<op>-<commit8>-<YYYYmmdd-HHMMSS>`` (UTC), as in the AMD campaigns."""
    return f"{op}-{(commit or 'nocommit')[:8]}-{when.strftime('%Y%m%d-%H%M%S')}"


# ---------------------------------------------------------------- layout

@dataclass
class Layout:
    """Where one capture's files go inside a sweep folder."""

    into: str
    kernel: str
    op: str
    label: str

    @property
    def bundle(self) -> str:
        return os.path.join(self.into, "examples", self.kernel)

    @property
    def capture(self) -> str:
        return os.path.join(self.bundle, "ncu", self.label)

    @property
    def source(self) -> str:
        return os.path.join(self.bundle, "source")

    @property
    def campaign(self) -> str:
        return os.path.join(self.into, "benchmarks", "examples", self.op)

    def rel(self, path: str) -> str:
        """``path`` relative to the sweep root, '/'-separated."""
        return rel_path(path, self.into)


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


def ncu_profile_argv(ncu: str, report_base: str, regex: str, launches: int, child: list[str]) -> list[str]:
    """The Nsight Compute command that profiles ``launches`` launches of the candidate."""
    return [ncu, *NCU_PROFILE_FLAGS, "-k", f"regex:{regex}", "-c", str(launches), "-f",
            "-o", report_base, *child]


def ncu_export_argvs(ncu: str, report: str) -> list[tuple[str, list[str]]]:
    """(file name, argv) of the four CSV exports of a report."""
    return [(name, [ncu, "-i", report, *flags]) for name, flags in NCU_EXPORTS]


def child_argv(spec_path: str, shapes: list[str]) -> list[str]:
    """The process ncu profiles: the candidate, once per profiled shape."""
    return [sys.executable, "-m", "generator.capture", "profile-child", spec_path, "--shapes", ",".join(shapes)]


def find_ncu() -> str | None:
    """The ``ncu`` executable: PATH, then the usual install folders (newest first)."""
    found = shutil.which("ncu")
    if found:
        return found
    cands = []
    for base in ("/opt/nvidia/nsight-compute", "/usr/local/cuda/nsight-compute"):
        if os.path.isdir(base):
            cands += [os.path.join(base, d, "ncu") for d in os.listdir(base)]
    cands += ["/usr/local/cuda/bin/ncu"]
    for c in sorted(cands, reverse=True):
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def relative_paths(text: str, root: str) -> str:
    """Export text with the capture machine's working directory cut from its file paths.

    ncu writes absolute source paths (``/home/me/repo/demo/kernels/gemm.py``); the bundle
    keeps them relative to the folder the capture ran in (``demo/kernels/gemm.py``), so no
    machine's layout is committed. Installed packages keep their absolute path (the site
    shows them from ``site-packages/`` on).
    """
    prefix = root.rstrip("/") + "/"
    return text.replace(prefix, "") if prefix != "/" else text


def public_argv(argv: list[str], replacements: dict[str, str]) -> list[str]:
    """A command line with local paths replaced by names that say what they are."""
    out = []
    for a in argv:
        for old, new in replacements.items():
            if old and old in a:
                a = a.replace(old, new)
        out.append(a)
    return out


# ---------------------------------------------------------------- environment

def _run_text(argv: list[str], timeout: float = 30) -> str:
    """stdout of a command, '' when it cannot run."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def git_commit(path: str) -> str | None:
    """``KERNEL_ATLAS_COMMIT`` if set, else the short commit of the checkout holding ``path``."""
    env = os.environ.get("KERNEL_ATLAS_COMMIT")
    if env:
        return env
    out = _run_text(["git", "-C", os.path.dirname(os.path.abspath(path)), "rev-parse", "--short=9", "HEAD"])
    return out or None


def gather_env(spec_path: str, ncu: str | None) -> dict[str, Any]:
    """Provenance of this machine: GPU, driver, CUDA, torch, triton, ncu, commit, time."""
    import platform

    import torch  # noqa: PLC0415 (GPU path only)

    env: dict[str, Any] = {
        "python_version": platform.python_version(),
        "torch_version": torch.__version__,
        "torch_git": (getattr(torch.version, "git_version", "") or "")[:9] or None,
        "cuda_version": torch.version.cuda,
        "candidate_commit": git_commit(spec_path),
        "captured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    try:
        import triton

        env["triton_version"] = triton.__version__
    except ImportError:
        env["triton_version"] = None
    props = torch.cuda.get_device_properties(0)
    env.update(gpu=props.name, arch=f"sm_{props.major}{props.minor}", sm_count=props.multi_processor_count,
               memory_gib=round(props.total_memory / 2**30, 1))
    smi = _run_text(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    env["driver_version"] = smi.splitlines()[0].strip() if smi else None
    if ncu:
        ver = _run_text([ncu, "--version"])
        env["ncu_version"] = ver.splitlines()[-1].strip() if ver else None
    env["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    return env


# ---------------------------------------------------------------- GPU work

def rel_error(out: Any, ref: Any) -> float:
    """max over outputs of ||out - ref|| / ||ref|| in fp64 (inf when shapes differ, NaN stays NaN)."""
    import torch

    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    if len(outs) != len(refs):
        return math.inf
    worst = 0.0
    for o, r in zip(outs, refs):
        if not isinstance(o, torch.Tensor) or tuple(o.shape) != tuple(r.shape):
            return math.inf
        o64, r64 = o.double(), r.double()
        den = torch.linalg.vector_norm(r64).item()
        num = torch.linalg.vector_norm(o64 - r64).item()
        if not math.isfinite(num):
            return math.nan
        worst = max(worst, num / den if den else num)
    return worst


def _samples(fn: Callable[[], Any], flush: Any, n: int) -> list[float]:
    """``n`` timings (us) of ``fn`` with CUDA events, L2 flushed before each."""
    import torch

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends)]


def time_call(call: Callable[[], Any], flush: Any) -> tuple[dict, dict | None, str | None]:
    """(eager summary, graph summary or None, graph capture error) for one provider call."""
    import torch

    for _ in range(WARMUP_CALLS):
        call()
    torch.cuda.synchronize()
    est = summarize_samples(_samples(call, flush, 3))["median_us"]
    n = int(max(MIN_SAMPLES, min(MAX_SAMPLES, TARGET_S * 1e6 / max(est + 60.0, 1.0))))
    eager = summarize_samples(_samples(call, flush, n))
    graph, err = None, None
    try:
        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                call()
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):
            call()
        g.replay()
        torch.cuda.synchronize()
        graph = summarize_samples(_samples(g.replay, flush, n))
        del g
    except Exception as e:  # graph capture is optional: keep the eager numbers and say why
        err = f"{type(e).__name__}: {e}"[:500]
        torch.cuda.synchronize()
    return eager, graph, err


def _failure(err: BaseException) -> tuple[str, str]:
    """(benchmark_status, reason) for an exception raised by a provider."""
    import torch

    text = f"{type(err).__name__}: {err}".strip()[:500]
    if isinstance(err, torch.cuda.OutOfMemoryError):
        return "oom", text
    if isinstance(err, NotImplementedError):
        return "unsupported", text
    return "failed", text


def bench_shape(spec: Spec, shape: Shape, fns: dict[str, Callable], env: dict, rid: str,
                flush: Any, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Check and time every provider on one shape; one row per provider."""
    import torch

    rows = []
    seed = int(spec.shape_id(shape)[5:13], 16)
    torch.manual_seed(seed)
    try:
        inputs = tuple(spec.module.make_inputs(shape.as_dict(), "cuda"))
        ref = spec.module.reference(*inputs)
        torch.cuda.synchronize()
    except Exception as err:  # the harness failed: every provider row says so
        status, reason = _failure(err)
        log(f"  {shape.name}: inputs/reference failed: {reason}")
        return [status_row(base_row(spec, shape, p, env, rid), status if p in fns else "not_configured",
                           f"harness: {reason}" if p in fns else spec.providers[p].skip_reason)
                for p in spec.providers]
    traffic = None
    if callable(getattr(spec.module, "traffic", None)):
        traffic = tuple(float(x) for x in spec.module.traffic(shape.as_dict()))
    parts = []
    for pname, info in spec.providers.items():
        row = base_row(spec, shape, pname, env, rid)
        row["includes_allocation"] = True  # every provider returns a new tensor
        if info.skip_reason or pname not in fns:
            rows.append(status_row(row, "not_configured", info.skip_reason or "no callable"))
            continue
        fn = fns[pname]
        call = lambda fn=fn: fn(*inputs)  # noqa: E731
        try:
            out = call()
            torch.cuda.synchronize()
            err_val = rel_error(out, ref)
            del out
            ok = math.isfinite(err_val) and err_val <= spec.tolerance
            text = None if ok else f"rel_l2={err_val:.3e} tolerance={spec.tolerance:g}"
            eager, graph, gerr = time_call(call, flush)
        except Exception as err:
            status, reason = _failure(err)
            rows.append(status_row(row, status, reason))
            parts.append(f"{pname} {status}")
            torch.cuda.synchronize()
            continue
        rows.append(measured_row(row, ok, text, eager, graph, gerr, traffic))
        parts.append(f"{pname} {row['median_us']:.2f}us{'' if ok else ' INCORRECT'}")
    log(f"  {shape.name}: " + ", ".join(parts))
    del inputs, ref
    torch.cuda.empty_cache()
    return rows


def run_benchmarks(spec: Spec, env: dict, rid: str, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Rows for every (shape, provider) of the SPEC."""
    import torch

    try:
        fns = dict(spec.module.providers())
    except Exception as err:
        raise InputError(spec.path, f"providers() failed: {type(err).__name__}: {err}") from None
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    rows = []
    for i, shape in enumerate(spec.shapes, 1):
        log(f"[{spec.kernel}] shape {i}/{len(spec.shapes)}")
        rows.extend(bench_shape(spec, shape, fns, env, rid, flush, log))
    del flush
    return rows


def profile_child(spec_path: str, shape_names: list[str]) -> int:
    """Run the candidate once per named shape (the process that ncu profiles)."""
    import torch

    spec = load_spec(spec_path)
    fn = spec.module.providers()[spec.candidate]
    for name in shape_names:
        shape = spec.shape(name)
        torch.manual_seed(int(spec.shape_id(shape)[5:13], 16))
        inputs = tuple(spec.module.make_inputs(shape.as_dict(), "cuda"))
        fn(*inputs)
        torch.cuda.synchronize()
        del inputs
    return 0


def profile(spec: Spec, layout: Layout, regex: str, ncu: str, raw_dir: str, export_dir: str,
            log: Callable[[str], None]) -> dict[str, Any]:
    """Profile the candidate with ncu and export the four pages into ``export_dir``."""
    os.makedirs(raw_dir, exist_ok=True)
    os.makedirs(export_dir, exist_ok=True)
    base = os.path.join(raw_dir, f"{spec.kernel}_{layout.label}")
    report = base + ".ncu-rep"
    spec_abs = os.path.abspath(spec.path)
    argv = ncu_profile_argv(ncu, base, regex, len(spec.profile), child_argv(spec_abs, spec.profile))
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    hide = {raw_dir: "<raw-dir>", os.path.dirname(spec_abs): "<spec-dir>", sys.executable: "python3", ncu: "ncu"}
    info: dict[str, Any] = {"profile_command": public_argv(argv, hide), "exports": {}}
    log(f"[{spec.kernel}] ncu: {' '.join(info['profile_command'])}")
    t0 = time.time()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=NCU_TIMEOUT_S, env=env)
        rc, out = proc.returncode, (proc.stdout or "") + (proc.stderr or "")
    except subprocess.TimeoutExpired as err:
        rc, out = 124, f"ncu timed out after {NCU_TIMEOUT_S} s: {err}"
    info["profile_seconds"] = round(time.time() - t0, 1)
    info["profile_returncode"] = rc
    with open(base + ".ncu.log", "w", encoding="utf-8") as fh:
        fh.write(out)
    info["profile_log_tail"] = public_argv([out[-1500:]], hide)[0]
    if not os.path.isfile(report):
        log(f"[{spec.kernel}] ncu wrote no report (rc {rc}): {out[-800:]}")
        info["report"] = None
        return info
    info["report_bytes"] = os.path.getsize(report)
    for name, eargv in ncu_export_argvs(ncu, report):
        dest = os.path.join(export_dir, name)
        try:
            proc = subprocess.run(eargv, capture_output=True, text=True, timeout=NCU_TIMEOUT_S)
            ok = proc.returncode == 0 and proc.stdout.strip() != ""
            if ok:
                with open(dest, "w", encoding="utf-8", newline="") as fh:
                    fh.write(relative_paths(proc.stdout, os.getcwd()))
            err = None if ok else (proc.stderr or proc.stdout)[-800:]
        except subprocess.TimeoutExpired:
            ok, err = False, "timed out"
        info["exports"][name] = {"command": public_argv(eargv, {**hide, report: "<report>.ncu-rep"}),
                                 "ok": ok, **({"error": err} if err else {})}
        log(f"[{spec.kernel}] export {name}: {'ok' if ok else 'FAILED ' + str(err)[-300:]}")
    return info


def provenance(spec: Spec, layout: Layout, env: dict, regex: str, prof: dict | None,
               sources: list[str]) -> dict[str, Any]:
    """The ``provenance.json`` object of one NVIDIA capture."""
    shapes = []
    for name in spec.profile:
        s = spec.shape(name)
        shapes.append({"name": s.name, "shape_id": spec.shape_id(s), "args": s.args, "dtype": s.dtype,
                       "model": s.model, "stage": s.stage})
    keys = ("gpu", "arch", "sm_count", "memory_gib", "driver_version", "cuda_version", "ncu_version",
            "torch_version", "triton_version", "python_version", "candidate_commit", "captured_at")
    return {
        "format_version": 1,
        "vendor": "nvidia",
        "tool": "kernel-atlas capture",
        **{k: env.get(k) for k in keys},
        "kernel": spec.kernel,
        "op": spec.op,
        "op_type": spec.op_type,
        "label": layout.label,
        "candidate": spec.candidate,
        "reference": spec.reference,
        "kernel_regex": regex,
        "spec": "source/spec_" + os.path.basename(spec.path),
        # the exports' kernel paths are relative to the capture's working directory (relative_paths)
        "source_root": ".",
        "sources": sources,
        "profiled_shapes": shapes,
        "campaign": layout.rel(layout.campaign),
        "ncu": prof,
    }


def write_json(path: str, obj: Any) -> None:
    """Write JSON with sorted keys and a newline."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=1, sort_keys=True)
        fh.write("\n")


# ---------------------------------------------------------------- the command

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
        raise InputError(None, "capture needs a SPEC file (see `kernel-atlas capture --help`)")
    spec = load_spec(args.spec)
    label = _slug(args.label, "--label", args.spec) if args.label else spec.label
    regex = args.kernel or spec.kernel_regex
    layout = Layout(into=os.path.abspath(args.into), kernel=spec.kernel, op=spec.op, label=label)
    ncu = find_ncu()
    if args.dry_run:
        sys.stdout.write(plan_text(spec, layout, regex, ncu))
        return 0
    if not ncu:
        raise InputError(None, "ncu (Nsight Compute) was not found on PATH or under /opt/nvidia/nsight-compute")
    try:
        import torch
    except ImportError:
        raise InputError(None, "capture needs PyTorch with CUDA on this machine") from None
    if not torch.cuda.is_available():
        raise InputError(None, "no CUDA GPU is visible (torch.cuda.is_available() is False)")

    def log(msg: str) -> None:
        print(msg, flush=True)

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
        publish(spec, layout, env, regex, prof, rows, staging if captured else None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ok = sum(1 for r in rows if r["benchmark_status"] == "ok")
    log(f"[{spec.kernel}] done in {time.time() - t0:.0f} s: {ok}/{len(rows)} rows ok, "
        f"profile {'exported' if captured else 'MISSING'} -> {layout.rel(layout.bundle)}, {layout.rel(layout.campaign)}")
    return 0 if captured else 1


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
