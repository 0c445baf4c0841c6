"""The run statistics and counters panel."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from generator.analyze.dispatch_grids import grids_differ
from generator.model import record
from generator.site import i18n
from generator.site.views.base import DASH, KernelData, SiteContext, fmt_num, fmt_pct, fmt_x
from generator.site.views.overview import Fact
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


# ---- run statistics, counters and roofline

@record
class KernelStatRow:
    rank: str
    name: str
    full: str
    calls: str
    total: str
    average: str
    share: str
    css: str


@record
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


#: Grids shown one by one in the dispatch time; beyond one more, the rest are counted on one line.
GRIDS_SHOWN = 4


def timing_facts(tm: dict[str, Any]) -> list[Fact]:
    """The traced kernel's dispatch time: one median over its dispatches, or where they launch grids
    whose medians differ (``dispatch_grids.grids_differ``) one per grid, the most dispatched first: a
    median over those is a time no dispatch need have taken."""
    grids = tm.get("grids") or []
    if not grids_differ(grids):
        return [Fact.of("run.timing", "run.v.timing", median=_us(tm.get("median_ns")), count=tm.get("count"),
                        min=_us(tm.get("min_ns")), max=_us(tm.get("max_ns")))]
    shown = grids[:GRIDS_SHOWN] if len(grids) > GRIDS_SHOWN + 1 else grids
    facts = [Fact.of("run.timing", "run.v.timing.grid", grid="×".join(map(str, g["grid"])), median=_us(g["median_ns"]),
                     count=g["count"], min=_us(g["min_ns"]), max=_us(g["max_ns"])) for g in shown]
    rest = grids[len(facts):]
    if rest:
        facts.append(Fact.of("run.timing", "run.v.timing.more", n=len(rest), count=sum(g["count"] for g in rest),
                             min=_us(min(g["min_ns"] for g in rest)), max=_us(max(g["max_ns"] for g in rest))))
    return facts


def agent_fact(ag: dict[str, Any]) -> Fact:
    """The GPU the run saw: product, arch, CUs, LDS, waves per SIMD and clock, in both languages."""
    bits = [(str(ag.get("product") or ""), ""), (str(ag.get("arch") or ""), "")]
    for key, value_key in (("cus", "run.v.cus"), ("lds_kib", "run.v.lds"), ("max_waves_per_simd", "run.v.waves")):
        if ag.get(key):
            bits.append((i18n.en(value_key, n=ag[key]), i18n.marked("zh", value_key, n=ag[key])))
    if ag.get("max_clock_mhz"):
        bits.append((f"{ag['max_clock_mhz']} MHz", ""))
    bits = [b for b in bits if b[0]]
    zh = Markup("，").join(z or Markup('<span translate="no">{}</span>').format(e) for e, z in bits)
    return Fact(i18n.en("run.gpu"), ", ".join(e for e, _ in bits), "run.gpu", zh=zh)


#: The PMC metrics shown, in order: (key, catalogue key of the label, format).
PMC_FACTS = (("dispatches", "pmc.dispatches", fmt_num), ("l2_hit_rate", "pmc.l2hit", fmt_pct),
             ("frac_32b", "pmc.frac32", fmt_pct), ("hbm_read_bytes", "pmc.hbmbytes", fmt_num),
             ("over_fetch", "pmc.overfetch", fmt_x), ("achieved_gbps", "pmc.gbps", fmt_num),
             ("bw_fraction", "pmc.bwfrac", fmt_pct))


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
            run.append(Fact.of("run.traced", "run.v.traced", name=tr.get("short_name"), rank=tr.get("rank"), n=n,
                               pct=f"{tr.get('percent', 0):.1f}", calls=tr.get("calls")))
        if tm:
            run += timing_facts(tm)
        if ag:
            run.append(agent_fact(ag))
        for kr in ks[:12]:
            table.append(KernelStatRow(str(kr.get("rank")), str(kr.get("short_name") or kr.get("name")),
                                       str(kr.get("name")), str(kr.get("calls")), _us(kr.get("total_ns")),
                                       _us(kr.get("avg_ns")), f"{kr.get('percent', 0):.1f}%",
                                       "traced" if kr.get("traced") else ""))
        notes += list(rs.get("notes") or [])  # sentences keep their key: the note shows in both languages
    counters: list[Fact] = []
    reading: list[str] = []
    if pc:
        for key, label, fmt in PMC_FACTS:
            if pc.get(key) is not None:
                counters.append(Fact(i18n.en(label), fmt(pc[key]), label))
        if pc.get("missing_counters"):
            counters.append(Fact(i18n.en("pmc.missing"), ", ".join(pc["missing_counters"]), "pmc.missing", css="warn"))
        if pc.get("unknown_counters"):
            counters.append(Fact(i18n.en("pmc.other"), ", ".join(pc["unknown_counters"]), "pmc.other"))
        reading = list(pc.get("reading") or []) or list(k.counter_reading)
        notes += list(pc.get("notes") or [])
    return CountersView(run, table, n, counters, reading, notes)
