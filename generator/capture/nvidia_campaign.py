"""The campaign of an NVIDIA capture: timing statistics, result and ledger rows, their files.

The files follow the AMD campaign schema (``benchmark_results.csv|jsonl``, ``shape_ledger.jsonl``,
``baseline_matrix.yaml``) so one reader serves both vendors.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from datetime import datetime
from typing import Any

from generator.capture.nvidia_spec import Shape, Spec

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
STABLE_CV = 0.10         # stable when std / median <= 10 %
WARMUP_CALLS = 3


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


# ---------------------------------------------------------------- files

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
