"""The profile summary that opens an NVIDIA kernel page: display-ready values, no HTML.

``ncu_summary(analyses, rows, ledger)`` turns the launches of one Nsight Compute
capture (``generator.analyze.ncu_capture``) and the kernel's campaign rows into one dict::

    {
      "format_version": 1,
      "kernel": "softmax", "label": "prefill", "launches": 1, "primary_launch": 0,
      "provenance": {"gpu": "NVIDIA H200", "arch": "sm_90", ..., "text": "NVIDIA H200 (sm_90) · driver ..."},
      "configuration": [{"launch": 0, "shape": "llama3-8b-attn-2k",
                         "params": [{"name": "M", "value": "65536"}, ..., {"name": "dtype", "value": "bf16"}]}],
      "stages": [{"launch": 0, "kernel": "softmax_kernel", "shape": "...", "duration": "123.97 us",
                  "tensor_core": "0.0 %", "dram": "85.9 %", "achieved_occupancy": "95.1 %",
                  "bottleneck": "memory-bound", "key_issue": "...", ...raw numbers...}],
      "bottleneck": {"kind": "memory-bound", "title": "Memory-bound", "css": "bound-memory",
                     "root_cause": "<two sentences>", "locality": "<one sentence or None>"},
      "opportunities": [{"rank": 1, "rule": "CPIStall", "lead": "<what its metric shows>",
                         "attribution": "Nsight Compute's rule CPIStall (...) says:", "title": "<its first sentence>",
                         "estimated_gain": "54.3 % (local)", "gain_pct": 54.25, "metric": "...", "metric_value": "...",
                         "advice": "..."}],  # top 3
      "baseline": {"candidate": "triton", "providers": [...], "rows": [...], "profiled_shapes": [...]},
      "notes": [...]
    }

Rules (all documented here, tested in tests/test_ncu_summary.py):
- The *primary* launch is the capture's first (launch 0), the one the overview and the diagnosis
  read; the bottleneck and the opportunities are its own, and the title names it when there are several.
  Every launch is a row of ``stages``, its kernel labelled ``(launch i)`` when there are several.
- ``bottleneck`` is ``extra["ncu"]["bottleneck"]`` (DOMAIN §4 rule in
  ``generator.analyze.ncu_metrics.classify_bottleneck``); the root cause names the two percentages that
  decided it and the stall reason holding most not-issued samples, with its source line.
- Opportunities are the rules of type OPT with an estimated speedup: those whose speedup
  is ``global`` (of the whole kernel) first, then ``local`` ones (of one unit), each
  highest first (ties: file order), skipping ``NOT_ACTIONABLE`` rules (fixes outside the kernel's
  source, such as marking allocations compressible). The *metric* is the details-page
  metric that the rule reads (``RULE_METRICS``), or the stall reason for ``CPIStall``. An opportunity
  leads with what that metric shows (ours); Nsight Compute's rule sentence is quoted as its own.
- The baseline table follows VERDICTS.md per shape: a (shape, provider)'s row is its last
  usable row (status ok, correct, median > 0), else its last row; the best baseline is
  the fastest usable non-candidate (ties: file order); speedup = best / candidate;
  class win >= 1.05 > parity >= 0.95 > headroom (thresholds are arguments).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from generator.analyze.message import sentence
from generator.analyze.ncu_metrics import NEAR_PEAK_PCT, SM_WRITE_SECTORS, limiter_sentence
from generator.model import UNKNOWN_LOC, CaptureAnalysis

FORMAT_VERSION = 1

#: Plain words for each NCU stall reason (what a stalled warp is waiting for).
REASON_TEXT = {
    "stall_long_sb": "global/local memory data (long scoreboard)",
    "stall_short_sb": "shared memory or special-function results (short scoreboard)",
    "stall_wait": "a fixed-latency dependency (wait)",
    "stall_barrier": "sibling warps at a CTA barrier",
    "stall_membar": "a memory fence",
    "stall_lg": "room in the global/local memory queue (LG throttle)",
    "stall_tex": "room in the texture pipe (TEX throttle)",
    "stall_drain": "stores to drain at exit",
    "stall_mio": "room in the shared-memory/MIO queue (MIO throttle)",
    "stall_imc": "the constant cache (IMC miss)",
    "stall_math": "a busy math pipe (math throttle)",
    "stall_not_selected": "the scheduler, which picked another warp",
    "stall_selected": "nothing (it was issuing)",
    "stall_dispatch": "the dispatcher",
    "stall_branch_resolving": "a branch target",
    "stall_no_inst": "instructions (instruction-cache miss)",
    "stall_misc": "miscellaneous hardware",
    "stall_sleep": "a sleep or yield",
}

#: Rules whose fix lies outside the kernel source; shown in the full list, not the top three.
NOT_ACTIONABLE = frozenset({"MemoryL2Compression"})

#: Rule -> the details-page metrics (section, metric) it reads.
RULE_METRICS: dict[str, tuple[tuple[str, str], ...]] = {
    "SOLBottleneck": (("GPU Speed Of Light Throughput", "Memory Throughput"),
                      ("GPU Speed Of Light Throughput", "Compute (SM) Throughput")),
    "HighPipeUtilization": (("Compute Workload Analysis", "Executed Ipc Active"),),
    "IssueSlotUtilization": (("Scheduler Statistics", "Issued Warp Per Scheduler"),
                             ("Scheduler Statistics", "No Eligible")),
    "CPIStall": (("Warp State Statistics", "Warp Cycles Per Issued Instruction"),),
    "LaunchConfiguration": (("Launch Statistics", "Waves Per SM"),),
    "AchievedOccupancy": (("Occupancy", "Achieved Occupancy"), ("Occupancy", "Theoretical Occupancy")),
    "TheoreticalOccupancy": (("Occupancy", "Theoretical Occupancy"),),
    "WorkloadImbalance": (("GPU and Memory Workload Distribution", "Average SMSP Active Cycles"),),
    "MemoryL2Compression": (("Memory Workload Analysis", "L2 Compression Success Rate"),),
    "ThreadDivergence": (("Warp State Statistics", "Avg. Not Predicated Off Threads Per Warp"),),
    "RegisterSpilling": (("Memory Workload Analysis", "Local Memory Spilling Requests"),),
}

#: The message of each reason's words (``msg.ncu.reason.*``).
REASON_KEYS = {r: "msg.ncu.reason." + r.removeprefix("stall_").replace("_resolving", "") for r in REASON_TEXT}

#: The message of each bottleneck's title (``msg.ncu.*``).
TITLE_KEYS = {"memory-bound": "msg.ncu.memory", "compute-bound": "msg.ncu.compute",
              "compute+memory-bound": "msg.ncu.both", "latency-bound": "msg.ncu.latency", "unknown": "msg.ncu.unknown"}

TITLES = {
    "memory-bound": "Memory-bound",
    "compute-bound": "Compute-bound",
    "compute+memory-bound": "Compute- and memory-bound",
    "latency-bound": "Latency-bound",
    "unknown": "Bottleneck unknown",
}

_FP_COUNTS = re.compile(r"executes ([\d,]+) fused and ([\d,]+) non-fused FP32")


# ---------------------------------------------------------------- formatting

def pct(value: float | None, digits: int = 1) -> str:
    """``85.9 %`` or an em dash."""
    return "—" if value is None else f"{value:.{digits}f} %"


def micros(value: float | None) -> str:
    """``123.97 us`` / ``2.19 ms`` or an em dash."""
    if value is None:
        return "—"
    return f"{value / 1000:.2f} ms" if value >= 1000 else f"{value:.2f} us"


def short_loc(loc: str) -> str:
    """``softmax.py:21`` from a full source location."""
    if loc == UNKNOWN_LOC:
        return loc
    path, _, line = loc.rpartition(":")
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of a dict or an attribute of an object (campaign rows of either kind)."""
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


# ---------------------------------------------------------------- pieces

#: SASS whose ``stall_barrier`` samples are waits for asynchronous warpgroup MMA results (DOMAIN §4).
WGMMA_WAIT = "WARPGROUP.DEPBAR"
#: The reading of ``stall_barrier`` samples on ``WGMMA_WAIT``: waits for wgmma results, not a CTA barrier.
WGMMA_REASON = "stall_barrier@" + WGMMA_WAIT


def read_reason(reason: str, asm: str) -> str:
    """An NCU reason read with its opcode (DOMAIN §4): ``stall_barrier`` on ``WARPGROUP.DEPBAR`` is
    ``WGMMA_REASON``; any other reason, or a barrier sample elsewhere, stays as NCU names it."""
    return WGMMA_REASON if reason == "stall_barrier" and asm.lstrip().startswith(WGMMA_WAIT) else reason


def reasons_read(a: CaptureAnalysis) -> dict[str, int]:
    """Not-issued samples per reason read with its opcode (``read_reason``), first-seen order.

    Sums the capture's per-reason totals, moving the ``stall_barrier`` samples that sit on
    ``WARPGROUP.DEPBAR`` to ``WGMMA_REASON``; the rest stay CTA-barrier waits.
    """
    out = dict(a.extra.get("ncu_stall_by_reason_not_issued") or {})
    for ins in a.instructions:
        n = ins.extra.get("stall_reasons_not_issued", {}).get("stall_barrier", 0)
        if n and read_reason("stall_barrier", ins.asm) == WGMMA_REASON:
            out["stall_barrier"] = out.get("stall_barrier", 0) - n
            out[WGMMA_REASON] = out.get(WGMMA_REASON, 0) + n
    return {k: v for k, v in out.items() if v}


def top_reason(a: CaptureAnalysis) -> tuple[str | None, float]:
    """The reason (read with its opcode) holding most not-issued samples, and its share of them."""
    reasons = reasons_read(a)
    total = sum(reasons.values())
    if not total:
        return None, 0.0
    order = list(reasons)
    name = max(order, key=lambda k: (reasons[k], -order.index(k)))
    return name, reasons[name] / total


def hottest_line(a: CaptureAnalysis, reason: str | None) -> str | None:
    """The source line holding most not-issued samples of ``reason`` (read with the opcode; else the top line)."""
    if reason:
        best, best_n = None, 0
        per_line: dict[str, int] = {}
        for ins in a.instructions:
            n = sum(v for r, v in ins.extra.get("stall_reasons_not_issued", {}).items()
                    if read_reason(r, ins.asm) == reason)
            if n:
                per_line[ins.source_loc] = per_line.get(ins.source_loc, 0) + n
        for loc, n in per_line.items():
            if n > best_n:
                best, best_n = loc, n
        if best:
            return best
    return a.lines[0].source_loc if a.lines else None


def reason_text(a: CaptureAnalysis, reason: str) -> str:
    """What a reason (read with its opcode) means: ``WGMMA_REASON`` waits for wgmma results (tensor
    cores or a shallow wgmma pipeline bind); ``stall_barrier`` elsewhere waits at a CTA barrier."""
    if reason == WGMMA_REASON:
        return sentence("msg.ncu.reason.wgmma", op=WGMMA_WAIT)
    return sentence(REASON_KEYS[reason]) if reason in REASON_KEYS else reason


def reason_name(reason: str) -> str:
    """The NCU name of a reason read with its opcode (``stall_barrier on WARPGROUP.DEPBAR``)."""
    return f"stall_barrier on {WGMMA_WAIT}" if reason == WGMMA_REASON else reason


def key_issue(a: CaptureAnalysis, capital: bool = False) -> str:
    """One line: what most stalled warps wait for, and where (``capital``: to open a sentence)."""
    reason, share = top_reason(a)
    if not reason:
        return sentence("msg.ncu.nosamples.cap" if capital else "msg.ncu.nosamples")
    where = hottest_line(a, reason)
    said = dict(share=f"{share * 100:.0f}", msg_reason=reason_text(a, reason))
    if where and where != UNKNOWN_LOC:
        return sentence("msg.ncu.issue.at", **said, loc=short_loc(where))
    return sentence("msg.ncu.issue", **said)


def occupancy_said(occ: dict[str, Any]) -> str:
    """Achieved occupancy, and what binds it: every tied resource, or none at the hardware maximum."""
    achieved, theo = pct(occ.get("achieved_pct")), pct(occ.get("theoretical_pct"))
    if occ.get("at_hardware_max"):
        return sentence("msg.ncu.occ.max", occ=achieved, theo=theo)
    if occ.get("limiter"):
        return sentence("msg.ncu.occ.limited", occ=achieved, theo=theo,
                        msg_lim=limiter_sentence(occ.get("limiters") or [], occ["limiter"]))
    return sentence("msg.ncu.occ", occ=achieved)


def _memory_variant(b: dict[str, Any], sm: str) -> str:
    """The memory-bound sentence's variant: ``.room`` below Nsight Compute's 80 % (bandwidth is left, so
    "only fewer bytes" is not what the counters show: silu_and_mul's 78.48 %), ``.busy`` when the SM's
    compute throughput is at the high mark too (softmax: DRAM 85.44 %, SM 63.62 %, tensor pipe 0 %:
    "not by math" would rest on the tensor pipe alone; raw.csv: the 63.62 % is instruction issue,
    sm__inst_issued, above the ALU pipe's 39.93 %), else the plain one."""
    if (b.get("dram_pct") or 0.0) < NEAR_PEAK_PCT:
        return ".room"
    if not sm and (b.get("sm_pct") or 0.0) >= b.get("high_pct", 60.0):
        return ".busy"
    return ""


def root_cause(a: CaptureAnalysis) -> tuple[str, str | None]:
    """(two sentences on why the kernel has its bottleneck, a locality sentence or None)."""
    m = a.extra.get("ncu") or {}
    b = m.get("bottleneck") or {}
    kind = b.get("kind", "unknown")
    dram, tc, high = b.get("dram_pct"), b.get("tensor_pct"), b.get("high_pct", 60.0)
    occ = (m.get("occupancy") or {})
    issue = key_issue(a, capital=True)
    sm = ".sm" if b.get("compute_from") == "sm" else ""  # the details page alone: SM throughput for compute
    tc = b.get("compute_pct") if sm else tc
    if kind == "memory-bound":
        bw = m.get("dram_bandwidth_gbs")
        cause = sentence(f"msg.ncu.rc.memory{_memory_variant(b, sm)}{sm}", dram=pct(dram),
                         bw=f" ({bw / 1000:.2f} TB/s)" if bw else "", tc=pct(tc), sm=pct(b.get("sm_pct")),
                         tool="Nsight Compute", msg_issue=issue)
    elif kind == "compute-bound":
        cause = sentence(f"msg.ncu.rc.compute{sm}", tc=pct(tc), dram=pct(dram), msg_issue=issue)
    elif kind == "compute+memory-bound":
        cause = sentence(f"msg.ncu.rc.both{sm}", dram=pct(dram), tc=pct(tc), high=f"{high:.0f}", msg_issue=issue)
    elif kind == "latency-bound":
        cause = sentence(f"msg.ncu.rc.latency{sm}", dram=pct(dram), tc=pct(tc), high=f"{high:.0f}", msg_issue=issue,
                         msg_occ=occupancy_said(occ))
    else:
        cause = sentence("msg.ncu.rc.unknown", msg_issue=issue)
    locality = None
    if b.get("locality") and b.get("l2_hit_pct") is not None and b.get("l2_read_hit_pct") is not None:
        locality = _locality_split(b)
    elif b.get("locality") and b.get("l2_hit_pct") is not None:
        locality = sentence("msg.ncu.locality", pct=pct(b["l2_hit_pct"]), miss=pct(100.0 - b["l2_hit_pct"]))
    return cause, locality


def _locality_split(b: dict[str, Any]) -> str:
    """The locality sentence with reads and writes apart; a write counter above 100 % is said as the
    counter's value beside the SMs' own write sectors that hit (vec_add: 100.3 %; 524,288 of 524,288)."""
    read, write = b["l2_read_hit_pct"], b["l2_write_hit_pct"]
    said = dict(pct=pct(b["l2_hit_pct"]), read=pct(read), write=pct(write), read_miss=pct(100.0 - read))
    if write > 100.0 and b.get("l2_sm_write_sectors"):
        hit, total = b["l2_sm_write_sectors"]
        return sentence("msg.ncu.locality.split.over", **said, counter="lts__t_sector_op_write_hit_rate",
                        sm=SM_WRITE_SECTORS[0].removesuffix(".sum"), hit=f"{hit:,}", total=f"{total:,}")
    return sentence("msg.ncu.locality.split", **said)


def _detail(a: CaptureAnalysis, section: str, metric: str) -> str | None:
    """A details-page metric as ``value unit``."""
    cell = (a.extra.get("ncu_details") or {}).get(section, {}).get(metric)
    if not cell:
        return None
    value, unit = cell
    return f"{value} {unit}".strip()


def rule_metric(a: CaptureAnalysis, rule: dict[str, Any]) -> tuple[str, str | None]:
    """(the metric that triggered a rule, its value) for one rule of the details page."""
    name = rule["name"]
    if name == "CPIStall":
        reason, share = top_reason(a)
        cycles = _detail(a, "Warp State Statistics", "Warp Cycles Per Issued Instruction")
        if reason:
            value = f"{share * 100:.0f} % of not-issued samples ({reason_text(a, reason)})"
            return f"warp-stall sampling: {reason_name(reason)}", value + (f"; {cycles} per issued instruction" if cycles else "")
    if name == "FPInstructions":
        m = _FP_COUNTS.search(rule.get("description", ""))
        if m:
            return "FP32 instructions (fused / non-fused)", f"{m.group(1)} / {m.group(2)}"
    if name == "TheoreticalOccupancy":
        occ = (a.extra.get("ncu") or {}).get("occupancy") or {}
        value = _detail(a, "Occupancy", "Theoretical Occupancy")
        if occ.get("at_hardware_max"):
            return "Theoretical Occupancy", f"{value}, at the hardware maximum (no resource binds)"
        if occ.get("limiter"):
            return "Theoretical Occupancy", f"{value}, limited by {occ['limiter']}"
    metrics = RULE_METRICS.get(name)
    if metrics:
        values = [(m, _detail(a, s, m)) for s, m in metrics]
        return " / ".join(m for m, _ in values), " / ".join(v or "—" for _, v in values)
    return f"{rule.get('section') or 'details'} section", None


def first_sentence(text: str) -> str:
    """The first sentence of a rule description."""
    m = re.match(r"(.+?[.!?])(\s|$)", text.strip())
    return m.group(1) if m else text.strip()


def lead(a: CaptureAnalysis, rule: dict[str, Any], metric: str, value: str | None) -> str:
    """What the raw metrics of a rule show, in our words: for ``CPIStall`` the reason holding most
    not-issued samples (read with its opcode, ``key_issue``), else the metric the rule reads = its value."""
    reason, _ = top_reason(a)
    if rule["name"] == "CPIStall" and reason:
        cycles = _detail(a, "Warp State Statistics", "Warp Cycles Per Issued Instruction")
        issue = key_issue(a, capital=True)
        if cycles:
            return sentence("msg.ncu.opp.stall.cpi", msg_issue=issue, reason=reason_name(reason),
                            metric="Warp Cycles Per Issued Instruction", cycles=cycles)
        return sentence("msg.ncu.opp.stall", msg_issue=issue, reason=reason_name(reason))
    return sentence("msg.ncu.opp.metric", metric=metric, value=value or "—")


def attribution(a: CaptureAnalysis, rule: dict[str, Any], gain: str) -> str:
    """The line that quotes Nsight Compute's rule as its own. Its ``CPIStall`` sentence words the
    stall_barrier counter as waits at a CTA barrier; where the sampling puts most of those samples on
    ``WARPGROUP.DEPBAR`` (gemm: 13,911 of 16,029), the line says so (DOMAIN §4)."""
    said = dict(tool="Nsight Compute", rule=rule["name"], gain=gain)
    reasons = reasons_read(a)
    waits = reasons.get(WGMMA_REASON, 0)
    barrier = waits + reasons.get("stall_barrier", 0)
    if rule["name"] == "CPIStall" and 2 * waits > barrier and "CTA barrier" in first_sentence(rule.get("description", "")):
        return sentence("msg.ncu.opp.said.wgmma", **said, reason="stall_barrier", op=WGMMA_WAIT,
                        n=f"{waits:,}", m=f"{barrier:,}")
    return sentence("msg.ncu.opp.said", **said)


def opportunities(a: CaptureAnalysis, k: int = 3) -> list[dict[str, Any]]:
    """The ``k`` OPT rules with the highest estimated speedup (NOT_ACTIONABLE skipped): each led by what
    its metric shows (``lead``), Nsight Compute's own sentence (``title``) quoted after ``attribution``."""
    rules = [r for r in a.extra.get("ncu_rules", [])
             if r.get("type") == "OPT" and r.get("speedup_pct") is not None and r["name"] not in NOT_ACTIONABLE]
    ranked = sorted(range(len(rules)), key=lambda i: (rules[i].get("speedup_type") != "global",
                                                      -rules[i]["speedup_pct"]))
    out = []
    for rank, i in enumerate(ranked[:k], 1):
        r = rules[i]
        metric, value = rule_metric(a, r)
        scope = r.get("speedup_type") or ""
        gain = f"{r['speedup_pct']:.1f} %" + (f" ({scope})" if scope else "")
        out.append({
            "rank": rank,
            "rule": r["name"],
            "section": r.get("section"),
            "lead": lead(a, r, metric, value),
            "attribution": attribution(a, r, gain),
            "title": first_sentence(r.get("description", "")),
            "advice": r.get("description", ""),
            "gain_pct": r["speedup_pct"],
            "speedup_type": scope or None,
            "estimated_gain": gain,
            "metric": metric,
            "metric_value": value,
        })
    return out


def configuration(a: CaptureAnalysis) -> dict[str, Any]:
    """The launch's shape parameters, dtype and launch geometry as name/value pairs."""
    shape = a.extra.get("shape") or {}
    m = a.extra.get("ncu") or {}
    launch = m.get("launch") or {}
    params = [{"name": k, "value": str(v)} for k, v in sorted((shape.get("args") or {}).items())]
    for key, name in (("dtype", "dtype"), ("model", "model"), ("stage", "stage")):
        if shape.get(key):
            params.append({"name": name, "value": str(shape[key])})
    for key, name in (("grid", "grid"), ("block", "block")):
        if launch.get(key):
            params.append({"name": name, "value": launch[key]})
    if m.get("registers_per_thread") is not None:
        params.append({"name": "registers/thread", "value": str(m["registers_per_thread"])})
    if m.get("shared_memory_per_block_bytes") is not None:
        params.append({"name": "shared memory/block", "value": f"{m['shared_memory_per_block_bytes']} B"})
    return {"launch": a.extra.get("launch_index", 0), "shape": shape.get("name"), "shape_id": shape.get("shape_id"),
            "params": params}


def stage(a: CaptureAnalysis) -> dict[str, Any]:
    """One row of the stages table (a profiled launch)."""
    m = a.extra.get("ncu") or {}
    occ = m.get("occupancy") or {}
    b = m.get("bottleneck") or {}
    return {
        "launch": a.extra.get("launch_index", 0),
        "kernel": (a.jit_kernel or a.kernel) + (f" (launch {a.extra.get('launch_index', 0)})"
                                                 if (a.extra.get("launches") or 1) > 1 else ""),
        "shape": (a.extra.get("shape") or {}).get("name"),
        "duration": micros(m.get("duration_us")),
        "duration_us": m.get("duration_us"),
        "tensor_core": pct(m.get("tensor_pipe_pct")),
        "tensor_core_pct": m.get("tensor_pipe_pct"),
        "dram": pct(m.get("dram_throughput_pct")),
        "dram_pct": m.get("dram_throughput_pct"),
        "achieved_occupancy": pct(occ.get("achieved_pct")),
        "achieved_occupancy_pct": occ.get("achieved_pct"),
        "bottleneck": b.get("kind", "unknown"),
        "key_issue": key_issue(a),
    }


def provenance(a: CaptureAnalysis) -> dict[str, Any]:
    """Who produced the capture, as fields and one line of text."""
    p = dict(a.extra.get("provenance") or {})
    p.setdefault("arch", a.arch)
    parts = []
    if p.get("gpu"):
        parts.append(f"{p['gpu']} ({p.get('arch') or a.arch})")
    for key, label in (("driver_version", "driver"), ("cuda_version", "CUDA"), ("torch_version", "torch"),
                       ("triton_version", "triton")):
        if p.get(key):
            parts.append(f"{label} {p[key]}")
    if p.get("ncu_version"):
        parts.append("Nsight Compute " + re.sub(r"^Version\s+", "", str(p["ncu_version"])).split(" ")[0])
    if p.get("candidate_commit"):
        parts.append(f"commit {p['candidate_commit']}")
    if p.get("captured_at"):
        parts.append(f"captured {p['captured_at']}")
    p["text"] = " · ".join(parts)
    return p


def _usable(row: Any) -> bool:
    return (_get(row, "benchmark_status", _get(row, "status")) == "ok" and _get(row, "correct") in (True, "True")
            and float(_get(row, "median_us") or 0) > 0)


def _row_status(row: Any) -> str:
    """The status to show for an unusable row ("incorrect" when ok but not verified)."""
    status = _get(row, "benchmark_status", _get(row, "status")) or "?"
    return "incorrect" if status == "ok" and _get(row, "correct") not in (True, "True") else status


def _pick(rows: list[Any]) -> Any:
    """The row that counts for a (shape, provider): last usable, else last (VERDICTS.md)."""
    usable = [r for r in rows if _usable(r)]
    return usable[-1] if usable else rows[-1]


def speed_class(speedup: float | None, win: float, headroom: float) -> str:
    """win / parity / headroom (or none)."""
    if speedup is None:
        return "none"
    return "win" if speedup >= win else "parity" if speedup >= headroom else "headroom"


def args_text(args: Any) -> str:
    """``M=2048 N=4096`` from a shape's args (dict or JSON text)."""
    if isinstance(args, str):
        import json

        try:
            args = json.loads(args)
        except ValueError:
            return args
    if isinstance(args, dict):
        return " ".join(f"{k}={v}" for k, v in sorted(args.items()))
    return str(args)


def baseline_table(rows: Iterable[Any], ledger: Iterable[Any], candidate: str, profiled: set[str],
                   win: float = 1.05, headroom: float = 0.95) -> dict[str, Any]:
    """Per shape: the candidate's time against every baseline (VERDICTS.md row choice)."""
    rows = list(rows)
    ledger = list(ledger)
    providers = list(dict.fromkeys(_get(r, "provider") for r in rows if _get(r, "provider") != candidate))
    by_shape: dict[str, dict[str, list[Any]]] = {}
    for r in rows:
        by_shape.setdefault(_get(r, "shape_id"), {}).setdefault(_get(r, "provider"), []).append(r)
    order = [_get(s, "shape_id") for s in ledger] or list(by_shape)
    meta = {_get(s, "shape_id"): s for s in ledger}
    out = []
    for sid in order:
        per = by_shape.get(sid)
        if not per:
            continue
        cand_rows = per.get(candidate)
        cand = _pick(cand_rows) if cand_rows else None
        cand_us = float(_get(cand, "median_us")) if cand is not None and _usable(cand) else None
        cells, best_name, best_us = {}, None, None
        for p in providers:
            if p not in per:
                cells[p] = {"text": "—", "us": None, "status": "absent"}
                continue
            row = _pick(per[p])
            if _usable(row):
                us = float(_get(row, "median_us"))
                cells[p] = {"text": f"{us:.2f}", "us": us, "status": "ok"}
                if best_us is None or us < best_us:
                    best_name, best_us = p, us
            else:
                status = _row_status(row)
                cells[p] = {"text": status, "us": None, "status": status}
        speedup = best_us / cand_us if cand_us and best_us else None
        shape = meta.get(sid) or (per.get(candidate) or next(iter(per.values())))[0]
        out.append({
            "shape_id": sid,
            "shape": args_text(_get(shape, "args")),
            "name": _get(shape, "name"),
            "model": _get(shape, "model"),
            "stage": _get(shape, "stage"),
            "dtype": _get(shape, "dtype"),
            "profiled": sid in profiled,
            "candidate_us": cand_us,
            "candidate": f"{cand_us:.2f}" if cand_us else (_row_status(cand) if cand is not None else "—"),
            "baselines": cells,
            "best_baseline": best_name,
            "best_us": best_us,
            "speedup_value": speedup,
            "speedup": f"{speedup:.2f}x" if speedup else "—",
            "class": speed_class(speedup, win, headroom),
        })
    return {"candidate": candidate, "providers": providers, "rows": out, "unit": "us (median, CUDA graph, L2 flushed)",
            "profiled_shapes": sorted(profiled)}


# ---------------------------------------------------------------- the summary

def ncu_summary(analyses: CaptureAnalysis | list[CaptureAnalysis], rows: Iterable[Any] = (),
                ledger: Iterable[Any] = (), candidate: str = "triton", win: float = 1.05,
                headroom: float = 0.95) -> dict[str, Any]:
    """The display-ready profile summary of one NVIDIA capture (see the module docstring).

    ``analyses``: the launches of one capture (``generator.analyze.ncu_capture``); ``rows`` and ``ledger``:
    the kernel's campaign (dicts as in benchmark_results.jsonl / shape_ledger.jsonl, or
    ``generator.read.campaign_rows`` ResultRow / LedgerShape objects).
    """
    launches = [analyses] if isinstance(analyses, CaptureAnalysis) else list(analyses)
    if not launches:
        raise ValueError("ncu_summary needs at least one analysis")
    primary_i = 0  # the capture's primary launch, as the overview and the diagnosis read it
    primary = launches[primary_i]
    kind = ((primary.extra.get("ncu") or {}).get("bottleneck") or {}).get("kind", "unknown")
    cause, locality = root_cause(primary)
    profiled = {(a.extra.get("shape") or {}).get("shape_id") for a in launches} - {None}
    notes = []
    title = sentence(TITLE_KEYS[kind]) if kind in TITLE_KEYS else kind
    if len(launches) > 1:
        title = sentence("msg.ncu.title.launch", msg_title=title, i=primary.extra.get("launch_index", primary_i),
                         n=len(launches))
    if not primary.extra.get("ncu"):
        notes.append(sentence("msg.ncu.nodetails"))
    return {
        "format_version": FORMAT_VERSION,
        "kernel": primary.kernel,
        "label": primary.label,
        "launches": len(launches),
        "primary_launch": primary.extra.get("launch_index", primary_i),
        "provenance": provenance(primary),
        "configuration": [configuration(a) for a in launches],
        "stages": [stage(a) for a in launches],
        "bottleneck": {
            "kind": kind,
            "title": title,
            "css": "bound-" + kind.replace("+", "-"),
            "root_cause": cause,
            "locality": locality,
        },
        "opportunities": opportunities(primary),
        "baseline": baseline_table(rows, ledger, candidate, profiled, win, headroom),
        "notes": notes,
    }
