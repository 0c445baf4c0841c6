"""The run statistics and counters panel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.site.views.base import DASH, KernelData, SiteContext, fmt_num, fmt_pct, fmt_x
from generator.site.views.overview import Fact, IndexRow
from generator.site.views.panel import register_panel


# ---- run statistics, counters and roofline

@dataclass
class KernelStatRow:
    rank: str
    name: str
    full: str
    calls: str
    total: str
    average: str
    share: str
    css: str


@dataclass
class CountersView:
    """The run's kernel table and the traced dispatch (``runstats``), and PMC counters (``pmc``)."""

    run: list[Fact]
    kernels: list[KernelStatRow]
    n_kernels: int
    counters: list[Fact]
    reading: list[str]
    notes: list[str]


def _us(ns: Any) -> str:
    return DASH if ns is None else f"{ns / 1000:.2f} us"


@register_panel("counters", "Run statistics and counters", 50, "panel.counters")
def _counters_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> CountersView | None:
    rs, pc = k.runstats, k.counters
    if not rs and not pc:
        return None
    run: list[Fact] = []
    table: list[KernelStatRow] = []
    notes: list[str] = []
    n = 0
    if rs:
        tr, tm, ag = rs.get("traced"), rs.get("timing"), rs.get("agent")
        ks = rs.get("kernels") or []
        n = len(ks)
        if tr:
            run.append(Fact("traced kernel", f"{tr.get('short_name')} (rank {tr.get('rank')} of {n}, "
                            f"{tr.get('percent', 0):.1f}% of GPU kernel time, {tr.get('calls')} calls)", "run.traced"))
        if tm:
            run.append(Fact("dispatch time", f"median {_us(tm.get('median_ns'))} over {tm.get('count')} dispatches "
                            f"(min {_us(tm.get('min_ns'))}, max {_us(tm.get('max_ns'))})", "run.timing"))
        if ag:
            bits = [str(ag.get("product") or ""), str(ag.get("arch") or "")]
            if ag.get("cus"):
                bits.append(f"{ag['cus']} CUs")
            if ag.get("lds_kib"):
                bits.append(f"{ag['lds_kib']} KiB LDS per CU")
            if ag.get("max_waves_per_simd"):
                bits.append(f"{ag['max_waves_per_simd']} waves/SIMD max")
            if ag.get("max_clock_mhz"):
                bits.append(f"{ag['max_clock_mhz']} MHz")
            run.append(Fact("GPU", ", ".join(b for b in bits if b), "run.gpu"))
        for kr in ks[:12]:
            table.append(KernelStatRow(str(kr.get("rank")), str(kr.get("short_name") or kr.get("name")),
                                       str(kr.get("name")), str(kr.get("calls")), _us(kr.get("total_ns")),
                                       _us(kr.get("avg_ns")), f"{kr.get('percent', 0):.1f}%",
                                       "traced" if kr.get("traced") else ""))
        notes += [str(x) for x in rs.get("notes") or []]
    counters: list[Fact] = []
    reading: list[str] = []
    if pc:
        for key, label, fmt in (("dispatches", "dispatches", fmt_num), ("l2_hit_rate", "L2 hit rate", fmt_pct),
                                ("frac_32b", "32B read fraction", fmt_pct),
                                ("hbm_read_bytes", "est. HBM read bytes", fmt_num),
                                ("over_fetch", "over-fetch", fmt_x), ("achieved_gbps", "achieved GB/s", fmt_num),
                                ("bw_fraction", "of peak bandwidth", fmt_pct)):
            if pc.get(key) is not None:
                counters.append(Fact(label, fmt(pc[key])))
        if pc.get("missing_counters"):
            counters.append(Fact("missing counters", ", ".join(pc["missing_counters"]), css="warn"))
        if pc.get("unknown_counters"):
            counters.append(Fact("other counters", ", ".join(pc["unknown_counters"])))
        reading = [str(x) for x in pc.get("reading") or []] or list(k.counter_reading)
        notes += [str(x) for x in pc.get("notes") or []]
    return CountersView(run, table, n, counters, reading, notes)
