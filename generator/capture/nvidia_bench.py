"""Check and time every provider of a SPEC on the GPU (steps 1 and 2 of ``nvidia``)."""

from __future__ import annotations

import math
from typing import Any, Callable

from generator.capture.nvidia_campaign import (
    WARMUP_CALLS,
    base_row,
    measured_row,
    status_row,
    summarize_samples,
)
from generator.capture.nvidia_spec import Shape, Spec
from generator.errors import InputError

FLUSH_BYTES = 256 << 20  # > 4x the H200's 50 MB L2
TARGET_S = 0.25          # time spent sampling one provider (eager and graph each)
MIN_SAMPLES, MAX_SAMPLES = 10, 100


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
