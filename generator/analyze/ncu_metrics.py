"""Metrics of one NVIDIA launch from the details and raw pages, and its bottleneck class.

``ncu_metrics`` gives the display metrics (SOL percentages, DRAM traffic, occupancy and its
limiter, registers, spills) that sit in ``CaptureAnalysis.extra["ncu"]``;
``classify_bottleneck`` is the rule of DOMAIN §4.
"""

from __future__ import annotations

from typing import Any

from generator.analyze.message import Msg, Sentence, msg, sentence
from generator.read.ncu_pages import DetailsLaunch, RawLaunch, number

#: Percent at or above which a unit counts as highly used (Nsight Compute's own
#: SOLBottleneck rule calls throughput below 60 % of peak a latency problem).
HIGH_PCT = 60.0
#: DRAM percent from which Nsight Compute's SOLBottleneck rule reads a unit as saturated ("utilizing
#: greater than 80.0% of the available ... memory performance"); below it bandwidth is left.
NEAR_PEAK_PCT = 80.0
#: L2 hit rate below which locality is flagged (DOMAIN §4).
L2_LOCALITY_PCT = 80.0

_TIME_UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
               "s": 1e6, "second": 1e6}
_BYTE_UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
               "KB": 1e3, "MB": 1e6, "GB": 1e9}


def _scaled(value: float | None, unit: str, table: dict[str, float]) -> float | None:
    """A value converted by its unit (unknown units: None)."""
    if value is None:
        return None
    factor = table.get(unit.strip())
    return value * factor if factor is not None else None


def _raw_value(raw: RawLaunch | None, name: str) -> float | None:
    return number(raw[name][1]) if raw and name in raw else None


def classify_bottleneck(dram_pct: float | None, tensor_pct: float | None, sm_pct: float | None,
                        l2_hit_pct: float | None, high: float = HIGH_PCT) -> dict[str, Any]:
    """The bottleneck rule of DOMAIN §4.

    DRAM% >= high and TC% < high: memory-bound; TC% >= high and DRAM% < high:
    compute-bound; both >= high: compute+memory-bound; both below: latency-bound (check
    occupancy and spills). TC% is the tensor-pipe utilization (raw page); a kernel
    without tensor work has TC% near 0, so it is memory- or latency-bound, as DOMAIN §4
    says. The SM throughput % is kept beside it for display. ``locality`` is set when the
    L2 hit rate is below 80 %.
    """
    compute = tensor_pct
    if dram_pct is None or compute is None:
        kind = "unknown"
    elif dram_pct >= high and compute >= high:
        kind = "compute+memory-bound"
    elif dram_pct >= high:
        kind = "memory-bound"
    elif compute >= high:
        kind = "compute-bound"
    else:
        kind = "latency-bound"
    return {
        "kind": kind,
        "dram_pct": dram_pct,
        "tensor_pct": tensor_pct,
        "sm_pct": sm_pct,
        "high_pct": high,
        "locality": l2_hit_pct is not None and l2_hit_pct < L2_LOCALITY_PCT,
        "l2_hit_pct": l2_hit_pct,
    }


BLOCK_LIMITS = (("Block Limit Registers", "registers"), ("Block Limit Shared Mem", "shared memory"),
                ("Block Limit Warps", "warps"), ("Block Limit SM", "blocks per SM"),
                ("Block Limit Barriers", "barriers"))


#: Block limits that are the SM's own maximum (warps, blocks per SM), not a resource the kernel uses.
HARDWARE_LIMITS = frozenset({"warps", "blocks per SM"})


def occupancy_limiters(limits: dict[str, float | None], theoretical_pct: float | None) -> dict[str, Any]:
    """Which block limits bind (DOMAIN §1.3, as the AMD ``Occupancy``).

    ``limiters``: every resource tied at the lowest block limit (BLOCK_LIMITS order), empty at the
    hardware maximum: theoretical occupancy 100 %, or the lowest limit is the SM's own warps or
    blocks-per-SM limit (freeing a resource gains nothing). ``limiter``: the binding resources as
    one text ("registers and shared memory"), None at the hardware maximum or without limits.
    """
    known = {k: v for k, v in limits.items() if v is not None}
    if not known:
        return {"limiter": None, "limiters": [], "at_hardware_max": False}
    low = min(known.values())
    tied = [k for k, v in known.items() if v == low]
    if (theoretical_pct is not None and theoretical_pct >= 100.0) or HARDWARE_LIMITS & set(tied):
        return {"limiter": None, "limiters": [], "at_hardware_max": True}
    text = tied[0] if len(tied) == 1 else ", ".join(tied[:-1]) + " and " + tied[-1]
    return {"limiter": text, "limiters": tied, "at_hardware_max": False}


def limiter_msg(names: list[str], text: str | None) -> Msg | str:
    """The binding block limits worded per language (``occ.tie.<n>`` of ``ncu.res.*``); ``text`` without them."""
    if not names:
        return text or ""
    return msg(f"occ.tie.{len(names)}", **{k: msg("ncu.res." + n.replace(" ", "_")) for k, n in zip("abc", names)})


def limiter_sentence(names: list[str], text: str | None) -> Sentence | str:
    """:func:`limiter_msg` as a sentence (English text carrying its nested ``msg_*`` sentences)."""
    if not names:
        return text or ""
    return sentence(f"ncu.limits.{len(names)}",
                    **{f"msg_{k}": sentence("ncu.res." + n.replace(" ", "_")) for k, n in zip("abc", names)})


#: The shared memory a block asks for: (raw-page metric, details-page metric of Launch Statistics).
SHARED_MEMORY = (("launch__shared_mem_per_block_dynamic", "Dynamic Shared Memory Per Block"),
                 ("launch__shared_mem_per_block_static", "Static Shared Memory Per Block"))


def shared_memory_bytes(d: DetailsLaunch | None, raw: RawLaunch | None) -> int | None:
    """Dynamic + static shared memory per block in bytes (the driver's reserve left out).

    The raw page first: the details page rounds to two decimals of its unit, so gemm's
    147,456-byte block (raw: 147.456000 Kbyte/block) reads 147.46 Kbyte there, 4 bytes too many.
    """
    parts = []
    for raw_name, detail_name in SHARED_MEMORY:
        cell = (raw or {}).get(raw_name) or (d.metric("Launch Statistics", detail_name) if d else None)
        if cell:
            parts.append(_scaled(number(cell[1]), cell[0].split("/")[0], _BYTE_UNITS))
    known = [p for p in parts if p is not None]
    return int(round(sum(known))) if known else None


_HZ_UNITS = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}


def dram_peak_gbs(raw: RawLaunch | None) -> float | None:
    """The DRAM peak that gpu__dram_throughput's percent is of, in GB/s: dram__bytes.sum.peak_sustained
    (bytes a DRAM cycle) x dram__cycles_elapsed.avg.per_second (the DRAM clock measured over the launch);
    silu_and_mul on the demo's H200: 1.504 Kbyte/cycle x 3.196611 GHz = 4,808 GB/s."""
    per_cycle, clock = (raw or {}).get("dram__bytes.sum.peak_sustained"), (raw or {}).get("dram__cycles_elapsed.avg.per_second")
    if not per_cycle or not clock:
        return None
    nbytes = _scaled(number(per_cycle[1]), per_cycle[0].split("/")[0], _BYTE_UNITS)
    hz = _scaled(number(clock[1]), clock[0].lower(), _HZ_UNITS)
    return nbytes * hz / 1e9 if nbytes and hz else None


#: The counters of the SMs' own L2 write sectors (source unit L1/TEX): all of them, and those that hit.
SM_WRITE_SECTORS = ("lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum")


def l2_split(raw: RawLaunch | None) -> dict[str, float]:
    """The L2 hit rate of reads and of writes apart (the raw page), where the details page's one rate mixes
    them: vec_add's 35.02 % is reads 0.06 % and writes 100.33 %, so its reads miss almost all, not 65 %.
    A write counter above 100 % is no rate (NVIDIA's answer on its forum, "Weird Number for L2 Cache
    Hitrate": a value outside 0-100 % was not collected accurately); then the SMs' own write sectors and
    their hits come beside it (``l2_sm_write_sectors``: vec_add 524,288 of 524,288). Empty without the raw page."""
    read = _raw_value(raw, "lts__t_sector_op_read_hit_rate.pct")
    write = _raw_value(raw, "lts__t_sector_op_write_hit_rate.pct")
    if read is None or write is None:
        return {}
    out = {"l2_read_hit_pct": read, "l2_write_hit_pct": write}
    total, hit = (_raw_value(raw, name) for name in SM_WRITE_SECTORS)
    if write > 100.0 and total is not None and hit is not None:
        out["l2_sm_write_sectors"] = [int(hit), int(total)]
    return out


def ncu_metrics(d: DetailsLaunch | None, raw: RawLaunch | None) -> dict[str, Any]:
    """Display metrics of one launch from the details page (and the raw page)."""
    if d is None and raw is None:
        return {}
    out: dict[str, Any] = {}

    def pct(name: str, section: str | None = None) -> float | None:
        return d.value(name, section) if d else None

    dur = d.metric("GPU Speed Of Light Throughput", "Duration") if d else None
    out["duration_us"] = _scaled(number(dur[1]), dur[0], _TIME_UNITS) if dur else None
    if out["duration_us"] is None and raw and "gpu__time_duration.sum" in raw:
        unit, value = raw["gpu__time_duration.sum"]
        out["duration_us"] = _scaled(number(value), unit, _TIME_UNITS)  # the raw page may say ns, us or ms
    out["dram_throughput_pct"] = pct("DRAM Throughput", "GPU Speed Of Light Throughput")
    out["memory_throughput_pct"] = pct("Memory Throughput", "GPU Speed Of Light Throughput")
    out["sm_throughput_pct"] = pct("Compute (SM) Throughput", "GPU Speed Of Light Throughput")
    out["l1tex_throughput_pct"] = pct("L1/TEX Cache Throughput", "GPU Speed Of Light Throughput")
    out["l2_throughput_pct"] = pct("L2 Cache Throughput", "GPU Speed Of Light Throughput")
    out["tensor_pipe_pct"] = _raw_value(raw, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    bw = d.metric("Memory Workload Analysis", "Memory Throughput") if d else None
    out["dram_bandwidth_gbs"] = (_scaled(number(bw[1]), bw[0].split("/")[0], _BYTE_UNITS) or 0) / 1e9 if bw else None
    # the raw page, else the details page's "Command line profiler metrics" (ncu --metrics NAME --page details)
    rd = (raw or {}).get("dram__bytes_read.sum") or (d.metric(None, "dram__bytes_read.sum") if d else None)
    wr = (raw or {}).get("dram__bytes_write.sum") or (d.metric(None, "dram__bytes_write.sum") if d else None)
    out["dram_bytes_read"] = _scaled(number(rd[1]), rd[0], _BYTE_UNITS) if rd else None
    out["dram_bytes_write"] = _scaled(number(wr[1]), wr[0], _BYTE_UNITS) if wr else None
    out["dram_peak_gbs"] = dram_peak_gbs(raw)
    out["l1_hit_rate_pct"] = pct("L1/TEX Hit Rate")
    out["l2_hit_rate_pct"] = pct("L2 Hit Rate")
    if out["l2_hit_rate_pct"] is None:
        out["l2_hit_rate_pct"] = _raw_value(raw, "lts__t_sector_hit_rate.pct")
    regs = pct("Registers Per Thread")
    out["registers_per_thread"] = int(regs) if regs is not None else (
        int(v) if (v := _raw_value(raw, "launch__registers_per_thread")) is not None else None)
    spills = pct("Local Memory Spilling Requests")
    out["spill_requests"] = int(spills) if spills is not None else None
    sp = _raw_value(raw, "sass__inst_executed_register_spilling")
    out["spill_instructions"] = int(sp) if sp is not None else None
    out["shared_memory_per_block_bytes"] = shared_memory_bytes(d, raw)
    for key, name in (("block_size", "Block Size"), ("grid_size", "Grid Size"), ("waves_per_sm", "Waves Per SM"),
                      ("sm_count", "# SMs"), ("threads", "Threads")):
        out[key] = pct(name, "Launch Statistics")
    out["sm_frequency_ghz"] = pct("SM Frequency")
    out["dram_frequency_ghz"] = pct("DRAM Frequency")
    out["elapsed_cycles"] = pct("Elapsed Cycles")
    out["executed_ipc_active"] = pct("Executed Ipc Active")
    out["issue_slots_busy_pct"] = pct("Issue Slots Busy")
    out["warp_cycles_per_issued_instruction"] = pct("Warp Cycles Per Issued Instruction")
    limits = {label: pct(name, "Occupancy") for name, label in BLOCK_LIMITS}
    theoretical = pct("Theoretical Occupancy", "Occupancy")
    out["occupancy"] = {
        "theoretical_pct": theoretical,
        "achieved_pct": pct("Achieved Occupancy", "Occupancy"),
        "theoretical_warps_per_sm": pct("Theoretical Active Warps per SM", "Occupancy"),
        "achieved_warps_per_sm": pct("Achieved Active Warps Per SM", "Occupancy"),
        "block_limits": limits,
        **occupancy_limiters(limits, theoretical),
    }
    out["bottleneck"] = classify_bottleneck(out["dram_throughput_pct"], out["tensor_pipe_pct"],
                                            out["sm_throughput_pct"], out["l2_hit_rate_pct"])
    out["bottleneck"].update(l2_split(raw))
    out["sol"] = {k: out[k] for k in ("sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct",
                                      "l1tex_throughput_pct", "l2_throughput_pct", "tensor_pipe_pct")}
    if d:
        out["launch"] = {"id": d.id, "kernel": d.kernel, "block": d.block, "grid": d.grid, "device": d.device,
                         "cc": d.cc}
    return out


def details_table(d: DetailsLaunch | None) -> dict[str, dict[str, list[str]]]:
    """Every section metric of the details page: section -> metric -> [value, unit]."""
    out: dict[str, dict[str, list[str]]] = {}
    if d is None:
        return out
    for (section, metric), (unit, value) in d.metrics.items():
        out.setdefault(section, {})[metric] = [value, unit]
    return out
