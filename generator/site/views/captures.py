"""The captures panel: stalls, hot lines, ISA, source, occupancy and waves of each capture."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from generator.analyze import occupancy, waves
from generator.analyze.message import msg, sentence
from generator.model import CaptureAnalysis, Hotspots, Occupancy, record, stall_reason
from generator.site import charts, i18n, wording
from generator.site.text_report import fmt_cycles
from generator.site.views.advice import FindingView, finding_views
from generator.site.views.base import (
    CaptureData, DASH, KernelData, SiteContext, TOP_K, fmt_pct,
)
from generator.site.views.overview import ChartView, Fact, chart_view
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.source import FileEntry, SourceIndex, file_entries, hottest_loc, jump_note, source_index


# ---- captures

@record
class StallTypeRow:
    name: str
    cycles: str
    share: str
    pct: float  # 0..100 for the bar width
    css: str


@record
class LineRow:
    """A hot source line in a top-lines table."""

    rank: int
    loc: str
    title: str
    href: str
    stall: str
    share: str
    rate: str
    dominant: str


@record
class InsRow:
    """A hot instruction in a top-instructions table."""

    rank: int
    pc: int
    href: str
    asm: str
    type: str
    stall: str
    share: str
    loc: str
    loc_href: str
    reason: str = ""  # the NCU stall reason beside our type (NVIDIA only)


@record
class OpcodeRow:
    """One opcode's stall summed over all its instructions (DOMAIN §1.6)."""

    opcode: str
    instructions: str
    stall: str
    share: str


@record
class WorkingView:
    """Hotspots over the working waves only, when early-exit waves distort the capture's."""

    summary: str
    stall_types: list["StallTypeRow"]
    top_lines: list[LineRow]
    top_instructions: list[InsRow]
    summary_zh: str = ""


@record
class OccupancyView:
    """The occupancy panel: waves per SIMD, limiter, both VGPR readings and the next step."""

    headline: str
    limits: list[Fact]
    vgpr: list[Fact]
    next_step: str
    disagreement: str
    notes: list[str]
    headline_zh: str = ""
    next_step_zh: str = ""
    disagreement_zh: str = ""


@record
class CaptureView:
    """One capture (small / big / before / after) with everything the page shows of it."""

    anchor: str
    title: str
    label: str
    name: str
    rel: str
    is_primary: bool
    status: str
    problem: str
    facts: list[Fact]
    stall_types: list[StallTypeRow]
    stall_chart: ChartView | None
    wave_states: list[StallTypeRow]
    occupancy: OccupancyView | None
    top_lines: list[LineRow]
    top_instructions: list[InsRow]
    timeline: ChartView | None
    timeline_facts: list[Fact]
    timeline_note: str
    files: list[FileEntry]
    hottest_href: str
    isa_href: str
    isa_count: str  # the listing's instructions in the site's number format ("2,069")
    findings: list[FindingView]
    notes: list[str]
    unit: str
    vendor: str
    warning: str = ""  # said first: the capture is not representative (DOMAIN §1.5)
    jump_note: Any = None  # wording.Said: the decorator line "jump to the hottest line" skips
    working: WorkingView | None = None
    opcodes: list[OpcodeRow] | None = None
    findings_basis: str = ""  # a Sentence: the findings' shares are of the working waves (DOMAIN §1.5)
    primary_rule: str = ""  # a Sentence beside "primary": the rule that chose it (``primary_rule_sentence``)
    wave_sections: bool = True  # wave states and the one-wave timeline: ATT (cycle) captures only
    reason_column: str = ""  # the heading key of the sampler's stall reason beside each instruction (sampled captures)
    count_unit: str = ""  # the unit key named beside the "stall" headings of a sampled capture ("" for cycles)
    folded: bool = False  # another capture of the kernel is the primary: this one's readings open on demand

#: The file whose ``Loading:`` line names a bundle's primary capture (``discover.choose_primary``).
HOTSPOT_FILE = "source/hotspot_output.txt"
_LAST_BY_NAME = re.compile(r"^label (.*), last capture by name$")


def primary_rule_sentence(rule: str | None, captures: list[CaptureData]) -> str:
    """The sentence shown beside "primary" for ``discover.choose_primary``'s rule ("" for none), worded
    by the choice it had among the kernel's usable ``captures`` (a capture's launches share its rel)."""
    if not rule:
        return ""
    if rule == "named by source/hotspot_output.txt":
        return sentence("msg.cap.primary.named", file=HOTSPOT_FILE)
    if rule == "the capture given":
        return sentence("msg.cap.primary.given")
    if rule == "no usable capture":
        return sentence("msg.cap.primary.none")
    last = _LAST_BY_NAME.match(rule)
    if last is None:
        return sentence("msg.cap.primary.other", rule=rule)
    usable = {(c.label, c.rel) for c in captures if c.status != "skipped"}
    label = last.group(1)
    if len(usable) == 1:
        return sentence("msg.cap.primary.only", file=HOTSPOT_FILE)
    if label == "(none)":
        return sentence("msg.cap.primary.last.nolabel", file=HOTSPOT_FILE)
    if sum(lb == label for lb, _ in usable) == 1:
        return sentence("msg.cap.primary.label", file=HOTSPOT_FILE, label=label, big="big")
    return sentence("msg.cap.primary.last", file=HOTSPOT_FILE, label=label, big="big")


#: The stall chart's caption per stall unit.
STALL_CHART_KEYS = {"cycles": "chart.stalls", "warp-stall samples": "chart.stalls.samples",
                    "samples": "chart.stalls.pcs"}
#: The heading of the sampler's own stall-reason column, per capture kind (none on ATT captures).
REASON_KEYS = {"ncu": "col.reason", "pc_sampling": "col.reason.pcs"}
STATE_CSS = {"IDLE": "ws-idle", "EXEC": "ws-exec", "WAIT": "ws-wait", "STALL": "ws-stall"}


def max_head(o: Occupancy) -> tuple[str, dict, dict]:
    """The occupancy heading at the hardware maximum: the grid's ask beside it when the traced dispatch gives
    the busiest CU fewer waves per SIMD than the maximum (fused_rope_cache: 256 one-wave workgroups on 256
    CUs ask 1; rmsnorm: 1,024 four-wave workgroups ask 4): the 8 is what the resources allow, not what runs."""
    if o.resident < o.waves_per_simd:
        return "occ.head.max.grid", {"d": o.resident}, {"d": o.resident}
    return "occ.head.max", {}, {}


def occupancy_view(a: CaptureAnalysis) -> OccupancyView | None:
    """Display values of a capture's occupancy (DOMAIN §1.3)."""
    o = a.occupancy
    if o is None:
        return None
    def lim(name: str, value: int) -> Fact:
        binds = o.cap_binds and name in (o.limiters or [o.limiter])
        return Fact(name, i18n.en("cap.v.perSIMD", n=value), css="bind" if binds else "",
                    zh=i18n.marked("zh", "cap.v.perSIMD", n=value))
    limits = [lim("VGPR", o.vgpr_limit), lim("LDS", o.lds_limit), lim("SGPR", o.sgpr_limit)]
    csv = DASH if o.arch_vgpr_csv is None else str(o.arch_vgpr_csv)
    vgpr = [
        Fact("arch VGPRs, ISA scan", str(o.arch_vgpr_isa), "occ.isa"),
        Fact("arch VGPRs, kernel trace CSV", csv, "occ.csv", css="warn" if o.vgpr_disagreement else ""),
        Fact("accum VGPRs", str(o.accum_vgpr), "occ.accum"),
        vgpr_total_fact(o),
        Fact("SGPRs", DASH if o.sgpr is None else str(o.sgpr), "occ.sgpr"),
        Fact("LDS per workgroup", DASH if o.lds_bytes is None else f"{o.lds_bytes:,} B", "occ.lds"),
        Fact("workgroup size", DASH if o.workgroup_size is None else str(o.workgroup_size), "occ.wg"),
        Fact.of("occ.arch", "cap.v.arch", arch=o.arch, src=a.arch_source),
    ]
    nxt = next_step(o)
    dis_key = disagreement_key(o)
    dis = i18n.en(dis_key, isa=o.arch_vgpr_isa, csv=csv) if dis_key else ""
    by = occupancy.binding_msg(o)
    head = (max_head(o) if o.limited_by == "hardware max" else
            ("occ.head", {"by": wording.plain("en", by)}, {"by": wording.plain("zh", by)}) if o.cap_binds else
            ("finding.occupancy_grid.head", {"by": wording.plain("en", by), "d": o.grid_waves_per_simd,
                                             "w": wording.plain("en", msg("finding.waves", n=o.waves_per_simd))},
             {"by": wording.plain("zh", by), "d": o.grid_waves_per_simd,
              "w": wording.plain("zh", msg("finding.waves", n=o.waves_per_simd))}))
    return OccupancyView(i18n.en(head[0], n=o.waves_per_simd, **head[1]), limits, vgpr, nxt[0], dis,
                         [n for n in o.notes if "disagree" not in n],
                         headline_zh=i18n.marked("zh", head[0], n=o.waves_per_simd, **head[2]), next_step_zh=nxt[1],
                         disagreement_zh=i18n.marked("zh", dis_key, isa=o.arch_vgpr_isa, csv=csv) if dis else "")


def disagreement_key(o) -> str | None:
    """The sentence for ISA and CSV VGPR counts that differ, by which is larger (the larger is used):
    a CSV below the ISA under-reports (rocprofv3 1.1 on gfx950); one above it records a bigger allocation."""
    if not o.vgpr_disagreement or o.arch_vgpr_csv is None:
        return None
    return "occ.disagree.csv_high" if o.arch_vgpr_csv > o.arch_vgpr_isa else "occ.disagree"


#: VGPRs are allocated in blocks of this many (DOMAIN §1.3: round_up(arch + accum, 8)).
VGPR_GRANULE = 8


def vgpr_total_fact(o) -> Fact:
    """The combined VGPR total; when the allocation granule rounds it up, the sum it comes from
    (``192 of 512 (one pool: arch 176 + accum 12 = 188, allocated in blocks of 8)``)."""
    if o.arch == "gfx908":
        return Fact.of("occ.total", "occ.v.split", n=o.vgpr_total)
    arch = max(o.arch_vgpr_isa, o.arch_vgpr_csv or 0)
    if arch + o.accum_vgpr == o.vgpr_total:
        return Fact.of("occ.total", "occ.v.unified", n=o.vgpr_total)
    return Fact.of("occ.total", "occ.v.granule", n=o.vgpr_total, arch=arch, accum=o.accum_vgpr,
                   sum=arch + o.accum_vgpr, g=VGPR_GRANULE)


def next_step(o) -> tuple[str, str]:
    """The occupancy's next step (how many VGPRs one more wave per SIMD allows), English and 中文."""
    if o.next_waves and o.next_vgpr_total is not None:
        free = o.vgpr_total - o.next_vgpr_total
        kw = {"w": o.next_waves, "n": o.next_vgpr_total, "t": o.vgpr_total, "f": free}
        key = "occ.next.free" if free > 0 else "occ.next"
        if o.limiters and not o.cap_binds:  # the reading stays, the call to free registers goes
            key, kw = "finding.occupancy_grid.next", {**kw, "d": o.grid_waves_per_simd}
            kw.pop("f")
            return i18n.en(key, **kw), i18n.marked("zh", key, **kw)
        en, zh = i18n.en(key, **kw), i18n.marked("zh", key, **kw)
        others = [r for r in (o.limiters or [o.limiter]) if r != "VGPR"]
        if others:  # another resource binds first, or at the same count (a tie: DOMAIN §1.3)
            key = "occ.binds.also" if o.tied and "VGPR" in o.limiters else "occ.binds"
            lim = occupancy.binding_msg(replace(o, limiters=others))
            en = en + i18n.en(key, lim=wording.plain("en", lim))
            zh = zh + i18n.marked("zh", key, lim=wording.plain("zh", lim))
        return en, zh
    return i18n.both("occ.atmax") if o.at_hardware_max else ("", "")


#: Opcodes listed in the stall-by-opcode table.
TOP_OPCODES = 12


def waves_fact(a: CaptureAnalysis, stats: dict[str, float]) -> Fact:
    """``56 (48 exit early, 35.9 % of stall cycles; 8 working); duration min ..., median ..., max ...``."""
    w = a.waves_summary
    kw = {"count": stats["count"], "min": fmt_cycles(stats["min"]), "median": fmt_cycles(stats["median"]),
          "max": fmt_cycles(stats["max"])}
    if w and w.early_exit:
        kw.update(early=w.early_exit, share=fmt_pct(w.early_exit_stall_share), working=w.working)
    return Fact.of("fact.waves", "cap.v.waves.early" if "early" in kw else "cap.v.waves",
                   css="warn" if not a.representative else "", **kw)


def waves_fact_text(a: CaptureAnalysis, stats: dict[str, float]) -> str:
    """The sampled-waves fact in English (:func:`waves_fact`)."""
    return waves_fact(a, stats).value


def opcode_rows(a: CaptureAnalysis) -> list[OpcodeRow]:
    """The opcodes that stall most, with their static instruction counts."""
    total = a.total_stall_cycles
    return [OpcodeRow(op, f"{v['instructions']:,}", fmt_cycles(v["stall_cycles"]),
                      fmt_pct(v["stall_cycles"] / total if total else 0, 1))
            for op, v in list(a.stall_by_opcode.items())[:TOP_OPCODES] if v["stall_cycles"] > 0]


def stall_type_rows(by_type: dict[str, int], total_stall: int) -> list["StallTypeRow"]:
    """Stall cycles per type with their shares."""
    return [StallTypeRow(name, fmt_cycles(cyc), fmt_pct(cyc / total_stall if total_stall else 0),
                         round(100 * cyc / total_stall, 2) if total_stall else 0.0, charts.stall_css(name))
            for name, cyc in by_type.items()]


def hot_rows(h: CaptureAnalysis | Hotspots, total_stall: int, ix: SourceIndex) -> tuple[list[LineRow], list[InsRow]]:
    """The top-lines and top-instructions tables of a capture or of its working waves."""
    base = ix.folder
    lines = [
        LineRow(rank=i, loc=ix.loc_text(ln.source_loc), title=ln.source_loc, href=ix.href(ln.source_loc, base),
                stall=fmt_cycles(ln.stall_cycles), share=fmt_pct(ln.stall_cycles / total_stall if total_stall else 0, 2),
                rate=fmt_pct(ln.stall_rate), dominant=ln.dominant_type)
        for i, ln in enumerate(h.hot_lines(TOP_K), 1)
    ]
    ins_rows = [
        InsRow(rank=i, pc=ins.pc_index, href=ix.isa(base, ins.pc_index), asm=ins.asm, type=ins.type,
               stall=fmt_cycles(ins.stall_cycles), share=fmt_pct(ins.stall_cycles / total_stall if total_stall else 0, 2),
               loc=ix.loc_text(ins.source_loc), loc_href=ix.href(ins.source_loc, base),
               reason=stall_reason(ins) or "")
        for i, ins in enumerate(h.top_instructions(TOP_K), 1)
    ]
    return lines, ins_rows


def working_view(a: CaptureAnalysis, ix: SourceIndex) -> WorkingView | None:
    """The working waves' hotspots, when early-exit waves hold >= 20 % of the stall cycles."""
    if a.working is None or a.waves_summary is None:
        return None
    w, h = a.waves_summary, a.working
    lines, ins_rows = hot_rows(h, h.total_stall_cycles, ix)
    kw = {"early": w.early_exit, "sampled": w.sampled, "ec": fmt_cycles(w.early_exit_stall_cycles),
          "tc": fmt_cycles(w.total_stall_cycles), "share": fmt_pct(w.early_exit_stall_share), "working": w.working,
          "wc": fmt_cycles(h.total_stall_cycles)}
    return WorkingView(i18n.en("cap.workingsummary", **kw), stall_type_rows(h.stall_by_type, h.total_stall_cycles),
                       lines, ins_rows, summary_zh=i18n.marked("zh", "cap.workingsummary", **kw))


def findings_basis(a: CaptureAnalysis) -> str:
    """When the advice is ranked on the working waves (``advice.ranked_on``), the basis of its
    shares beside the tables' (pa: 8 waves' 44,892 stall cycles against all 56 waves' 70,036)."""
    w = a.waves_summary
    if a.working is None or w is None:
        return ""
    return sentence("cap.findings.basis", working=w.working, wc=f"{a.working.total_stall_cycles:,}",
                    sampled=w.sampled, tc=f"{a.total_stall_cycles:,}")


def capture_view(ci: int, c: CaptureData, ctx: SiteContext, rule: str = "") -> CaptureView:
    """Build one capture's section (its source and ISA pages are ``views.source``'s); ``rule``: the
    sentence said beside "primary" on the primary capture (``primary_rule_sentence``)."""
    anchor = f"c{ci}"
    title = c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}"
    base = dict(anchor=anchor, title=title, label=c.label or DASH, name=c.name, rel=c.rel, is_primary=c.is_primary,
                status=c.status, problem=c.problem or "",
                primary_rule=rule if c.is_primary else "")
    a = c.analysis
    if a is None:
        return CaptureView(**base, facts=[], stall_types=[], stall_chart=None, wave_states=[], occupancy=None,
                           top_lines=[], top_instructions=[], timeline=None, timeline_facts=[],
                           timeline_note=c.timeline_note or sentence("msg.cap.notimeline"), files=[], hottest_href="", isa_href="", isa_count="0",
                           findings=[], notes=[], unit="cycles", vendor="amd")
    unit = a.stall_unit
    total_stall = a.total_stall_cycles
    mapped, n_ins = a.source_mapped
    ix = source_index(ci, c)
    jump = hottest_loc(c)
    stall_rows = stall_type_rows(a.stall_by_type, total_stall)
    ws_rows = [StallTypeRow(k_, "", fmt_pct(v), round(100 * v, 2), STATE_CSS.get(k_, ""))
               for k_, v in (a.wave_states or {}).items()]
    stats = a.wave_duration_stats()
    facts = [
        Fact("instructions", f"{n_ins:,}", "fact.instructions"),
        Fact(f"total {unit}", fmt_cycles(a.total_cycles), "fact.total.samples" if a.sampled else "fact.total"),
        *([] if a.extra.get("legacy") else [Fact(  # an older decoder's capture has no stall column
            f"stalled {unit}" if a.sampled else f"stall {unit}",
            i18n.en("cap.v.stall", c=fmt_cycles(total_stall), p=fmt_pct(a.stall_ratio)),
            "fact.stall.samples" if a.sampled else "fact.stall",
            zh=i18n.marked("zh", "cap.v.stall", c=fmt_cycles(total_stall), p=fmt_pct(a.stall_ratio)))]),
        *([Fact.of("fact.stall", "cap.v.legacy", c=fmt_cycles(total_stall))] if a.extra.get("legacy") else []),
        Fact.of("fact.mapped", "cap.v.mapped", css="warn" if n_ins and mapped == 0 else "", m=mapped, n=n_ins,
                p=fmt_pct(a.mapped_fraction)),
        Fact.of("fact.arch", "cap.v.arch", arch=a.arch, src=a.arch_source),
    ]
    if a.jit_kernel:
        facts.append(Fact("JIT kernel", a.jit_kernel, "fact.jit"))
    if stats:
        facts.append(waves_fact(a, stats))
    top_lines, top_ins = hot_rows(a, total_stall, ix)
    tl_chart, tl_facts = None, []
    if c.timeline is not None:
        t = c.timeline
        tl_chart = chart_view(f"{anchor}-timeline", charts.timeline(t), "One sampled wave over time", "chart.timeline")
        span = t.wave.duration
        tl_facts = [
            # the file's "sm" is the SIMD: each wave file's own "simd" field equals it (all 3,304 of the sweep,
            # every one on CU 1, the att_target_cu of its input_trace.yaml)
            Fact.of("fact.wave", "cap.v.wave", file=t.wave.file, se=t.wave.se, sm=t.wave.sm, slot=t.wave.slot,
                    wave=t.wave.wave),
            Fact.of("fact.duration", "cap.v.duration", c=fmt_cycles(span), n=f"{t.n_instructions:,}"),
            Fact.of("fact.issuestall", "cap.v.issuestall.end" if t.total_end else "cap.v.issuestall",
                    i=fmt_cycles(t.total_issue), s=fmt_cycles(t.total_stall), e=fmt_cycles(t.total_end), op="s_endpgm",
                    b=fmt_cycles(t.bin_cycles)),
        ]
    stall_chart = chart_view(f"{anchor}-stalls", charts.stall_types(a.stall_by_type, unit),
                             f"Stall {unit} by type", STALL_CHART_KEYS.get(unit, "")) if a.stall_by_type else None
    return CaptureView(
        **base, facts=facts, stall_types=stall_rows, stall_chart=stall_chart, wave_states=ws_rows,
        occupancy=occupancy_view(a), top_lines=top_lines, top_instructions=top_ins, timeline=tl_chart,
        timeline_facts=tl_facts, timeline_note=c.timeline_note or sentence("msg.cap.notimeline"), files=file_entries(ix, c),
        hottest_href=ix.href(jump, ix.folder) if jump else "", jump_note=jump_note(c, jump), isa_href=ix.isa(ix.folder),
        isa_count=f"{len(a.instructions):,}", findings=list(finding_views(c.findings or [], ix.isa(ix.folder))),
        notes=[n for n in a.notes if not (a.occupancy and n in a.occupancy.notes)], unit=unit, vendor=a.vendor,
        warning=waves.not_representative_text(a.waves_summary), working=working_view(a, ix),
        opcodes=opcode_rows(a), findings_basis=findings_basis(a) if c.findings else "",
        wave_sections=not a.sampled, reason_column=REASON_KEYS.get(a.kind, ""),
        count_unit=f"unit.{unit}" if a.sampled else "unit.latency" if a.extra.get("legacy") else "",
    )


@register_panel("captures", "Captures", 30)
def _captures_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[CaptureView] | str:
    if not k.captures:
        if k.bundle_rel is None:
            return sentence("msg.cap.nobundle")
        return sentence("msg.cap.nocapture")
    rule = primary_rule_sentence(k.primary_rule, k.captures)
    views = [capture_view(i, c, ctx, rule) for i, c in enumerate(k.captures)]
    if any(c.is_primary for c in k.captures):  # the primary open; the others one click away (issue 41: page height)
        for v in views:
            v.folded = not v.is_primary
    return views
