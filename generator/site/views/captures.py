"""The captures panel: stalls, hot lines, ISA, source, occupancy and waves of each capture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.analyze import waves
from generator.model import UNKNOWN_LOC, CaptureAnalysis, Hotspots, stall_reason
from generator.site import charts
from generator.site.text_report import fmt_cycles, split_loc
from generator.site.views.advice import FindingView, finding_view
from generator.site.views.base import (
    CaptureData, DASH, KernelData, SiteContext, TOP_K, display_names, fmt_pct, heat,
)
from generator.site.views.overview import ChartView, Fact, IndexRow, chart_view
from generator.site.views.panel import register_panel


# ---- captures

@dataclass
class StallTypeRow:
    name: str
    cycles: str
    share: str
    pct: float  # 0..100 for the bar width
    css: str


@dataclass
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


@dataclass
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


@dataclass
class OpcodeRow:
    """One opcode's stall summed over all its instructions (DOMAIN §1.6)."""

    opcode: str
    instructions: str
    stall: str
    share: str


@dataclass
class WorkingView:
    """Hotspots over the working waves only, when early-exit waves distort the capture's."""

    summary: str
    stall_types: list["StallTypeRow"]
    top_lines: list[LineRow]
    top_instructions: list[InsRow]


@dataclass
class IsaRow:
    """One instruction of the ISA listing (and of a source line's folded ISA)."""

    pc: int
    anchor: str
    asm: str
    type: str
    heat: str
    stall: str
    total: str
    execs: str
    loc: str
    loc_href: str
    note: str
    note_title: str


def mfma_note(note: dict[str, Any] | None) -> tuple[str, str]:
    """Short text and full text of an MFMA annotation (``advice.MfmaNote.to_json()``)."""
    if not note:
        return "", ""
    short = f"{note.get('latency')}-cycle MFMA"
    if note.get("short"):
        short += ", result read too soon"
    return short, str(note.get("text", ""))


@dataclass
class SourceLine:
    """One line of a source view: text (when the file is there), heat and its ISA."""

    number: int
    anchor: str
    text: str
    heat: str
    stall: str
    share: str
    dominant: str
    isa: list[IsaRow]

    @property
    def isa_label(self) -> str:
        """``1 instruction`` / ``n instructions``."""
        return f"{len(self.isa)} instruction" + ("" if len(self.isa) == 1 else "s")


@dataclass
class SourceFileView:
    """One source file of a capture: full text when its snapshot exists, else the per-line table."""

    anchor: str
    path: str
    short: str
    has_text: bool
    hottest_href: str
    stall: str
    lines: list[SourceLine]


@dataclass
class OccupancyView:
    """The occupancy panel: waves per SIMD, limiter, both VGPR readings and the next step."""

    headline: str
    limits: list[Fact]
    vgpr: list[Fact]
    next_step: str
    disagreement: str
    notes: list[str]


@dataclass
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
    sources: list[SourceFileView]
    hottest_href: str
    isa: list[IsaRow]
    isa_count: int
    findings: list[FindingView]
    notes: list[str]
    unit: str
    vendor: str
    warning: str = ""  # said first: the capture is not representative (DOMAIN §1.5)
    working: WorkingView | None = None
    opcodes: list[OpcodeRow] | None = None
STATE_CSS = {"IDLE": "ws-idle", "EXEC": "ws-exec", "WAIT": "ws-wait", "STALL": "ws-stall"}


def occupancy_view(a: CaptureAnalysis) -> OccupancyView | None:
    """Display values of a capture's occupancy (DOMAIN §1.3)."""
    o = a.occupancy
    if o is None:
        return None
    def lim(name: str, value: int) -> Fact:
        return Fact(name, f"{value} waves/SIMD", css="bind" if o.limiter == name else "")
    limits = [lim("VGPR", o.vgpr_limit), lim("LDS", o.lds_limit), lim("SGPR", o.sgpr_limit)]
    csv = DASH if o.arch_vgpr_csv is None else str(o.arch_vgpr_csv)
    pool = "512 (one pool, arch + accum)" if o.arch != "gfx908" else "256 per pool (split)"
    vgpr = [
        Fact("arch VGPRs, ISA scan", str(o.arch_vgpr_isa), "occ.isa"),
        Fact("arch VGPRs, kernel trace CSV", csv, "occ.csv", css="warn" if o.vgpr_disagreement else ""),
        Fact("accum VGPRs", str(o.accum_vgpr), "occ.accum"),
        Fact("VGPRs counted", f"{o.vgpr_total} of {pool}", "occ.total"),
        Fact("SGPRs", DASH if o.sgpr is None else str(o.sgpr), "occ.sgpr"),
        Fact("LDS per workgroup", DASH if o.lds_bytes is None else f"{o.lds_bytes:,} B", "occ.lds"),
        Fact("workgroup size", DASH if o.workgroup_size is None else str(o.workgroup_size), "occ.wg"),
        Fact("architecture", f"{o.arch} (from {a.arch_source})", "occ.arch"),
    ]
    if o.next_waves and o.next_vgpr_total is not None:
        free = o.vgpr_total - o.next_vgpr_total
        nxt = (f"{o.next_waves} waves/SIMD need at most {o.next_vgpr_total} VGPRs in all"
               + (f" (now {o.vgpr_total}: free {free})" if free > 0 else "")
               + ("" if o.limiter == "VGPR" else f"; but {o.limiter} binds first"))
    else:
        nxt = "Already at the hardware maximum of waves per SIMD." if o.at_hardware_max else ""
    dis = ""
    if o.vgpr_disagreement:
        dis = (f"The readings disagree: the ISA uses {o.arch_vgpr_isa} arch VGPRs, the kernel trace CSV "
               f"says {csv}; the larger is used (rocprofv3 1.1 under-reports on gfx950).")
    head = f"{o.waves_per_simd} waves/SIMD, limited by {o.limited_by}"
    return OccupancyView(head, limits, vgpr, nxt, dis, [n for n in o.notes if "disagree" not in n])


#: Opcodes listed in the stall-by-opcode table.
TOP_OPCODES = 12


def waves_fact_text(a: CaptureAnalysis, stats: dict[str, float]) -> str:
    """``56 (48 exit early, 35.9 % of stall cycles; 8 working); duration min ..., median ..., max ...``."""
    w = a.waves_summary
    count = f"{stats['count']}"
    if w and w.early_exit:
        count += (f" ({w.early_exit} exit early, {fmt_pct(w.early_exit_stall_share)} of stall cycles; "
                  f"{w.working} working)")
    return (f"{count}; duration min {fmt_cycles(stats['min'])}, median {fmt_cycles(stats['median'])}, "
            f"max {fmt_cycles(stats['max'])} cycles")


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


def hot_rows(h: CaptureAnalysis | Hotspots, total_stall: int, anchor: str, common: dict[str, str],
             loc_href: Any) -> tuple[list[LineRow], list[InsRow]]:
    """The top-lines and top-instructions tables of a capture or of its working waves."""
    lines = [
        LineRow(rank=i, loc=_loc_text(ln.source_loc, common), title=ln.source_loc, href=loc_href(ln.source_loc),
                stall=fmt_cycles(ln.stall_cycles), share=fmt_pct(ln.stall_cycles / total_stall if total_stall else 0, 2),
                rate=fmt_pct(ln.stall_rate), dominant=ln.dominant_type)
        for i, ln in enumerate(h.hot_lines(TOP_K), 1)
    ]
    ins_rows = [
        InsRow(rank=i, pc=ins.pc_index, href=f"#{anchor}-pc{ins.pc_index}", asm=ins.asm, type=ins.type,
               stall=fmt_cycles(ins.stall_cycles), share=fmt_pct(ins.stall_cycles / total_stall if total_stall else 0, 2),
               loc=_loc_text(ins.source_loc, common), loc_href=loc_href(ins.source_loc),
               reason=stall_reason(ins) or "")
        for i, ins in enumerate(h.top_instructions(TOP_K), 1)
    ]
    return lines, ins_rows


def working_view(a: CaptureAnalysis, anchor: str, common: dict[str, str], loc_href: Any) -> WorkingView | None:
    """The working waves' hotspots, when early-exit waves hold >= 20 % of the stall cycles."""
    if a.working is None or a.waves_summary is None:
        return None
    w, h = a.waves_summary, a.working
    lines, ins_rows = hot_rows(h, h.total_stall_cycles, anchor, common, loc_href)
    summary = (f"{w.early_exit} of {w.sampled} sampled waves exit early and hold "
               f"{fmt_cycles(w.early_exit_stall_cycles)} of {fmt_cycles(w.total_stall_cycles)} stall cycles "
               f"({fmt_pct(w.early_exit_stall_share)}); the {w.working} working waves hold "
               f"{fmt_cycles(h.total_stall_cycles)}. The advice is ranked on these.")
    return WorkingView(summary, stall_type_rows(h.stall_by_type, h.total_stall_cycles), lines, ins_rows)


def _loc_text(loc: str, names: dict[str, str]) -> str:
    """``file.py:123`` with the file's display name."""
    if loc == UNKNOWN_LOC:
        return loc
    path, line = split_loc(loc)
    return f"{names.get(path, path)}:{line}" if line is not None else names.get(loc, loc)


def capture_view(ci: int, c: CaptureData, ctx: SiteContext) -> CaptureView:
    """Build one capture's section (the ISA and source loops run once per line here)."""
    anchor = f"c{ci}"
    title = c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}"
    base = dict(anchor=anchor, title=title, label=c.label or DASH, name=c.name, rel=c.rel, is_primary=c.is_primary,
                status=c.status, problem=c.problem or "")
    a = c.analysis
    if a is None:
        return CaptureView(**base, facts=[], stall_types=[], stall_chart=None, wave_states=[], occupancy=None,
                           top_lines=[], top_instructions=[], timeline=None, timeline_facts=[],
                           timeline_note=c.timeline_note or "", sources=[], hottest_href="", isa=[], isa_count=0,
                           findings=[], notes=[], unit="cycles", vendor="amd")
    unit = a.stall_unit
    total_stall = a.total_stall_cycles
    mapped, n_ins = a.source_mapped
    # source files: index j per virtual path, in sorted order; unmapped last
    paths = sorted({split_loc(ln.source_loc)[0] for ln in a.lines if ln.source_loc != UNKNOWN_LOC})
    file_idx = {p: j for j, p in enumerate(paths)}
    common = display_names(paths)

    def loc_href(loc: str) -> str:
        if loc == UNKNOWN_LOC:
            return f"#{anchor}-unk"
        path, line = split_loc(loc)
        j = file_idx.get(path)
        if j is None or line is None:
            return f"#{anchor}-unk"
        return f"#{anchor}-f{j}-L{line}"

    max_ins = max((i.stall_cycles for i in a.instructions), default=0)
    loc_cache: dict[str, tuple[str, str]] = {}
    isa: list[IsaRow] = []
    by_pc: dict[int, IsaRow] = {}
    for ins in a.instructions:
        note = mfma_note(c.mfma.get(ins.pc_index)) if c.mfma else ("", "")
        lc = loc_cache.get(ins.source_loc)
        if lc is None:
            lc = loc_cache[ins.source_loc] = (_loc_text(ins.source_loc, common), loc_href(ins.source_loc))
        row = IsaRow(
            pc=ins.pc_index,
            anchor=f"{anchor}-pc{ins.pc_index}",
            asm=ins.asm,
            type=ins.type,
            heat=heat(ins.stall_cycles, max_ins),
            stall=fmt_cycles(ins.stall_cycles) if ins.stall_cycles else "",
            total=fmt_cycles(ins.total_cycles) if ins.total_cycles else "",
            execs=str(ins.exec_count) if ins.exec_count else "",
            loc=lc[0],
            loc_href=lc[1],
            note=note[0],
            note_title=note[1],
        )
        isa.append(row)
        by_pc.setdefault(ins.pc_index, row)

    # per-line data keyed by (path, line)
    max_line = max((ln.stall_cycles for ln in a.lines), default=0)
    line_info: dict[str, Any] = {ln.source_loc: ln for ln in a.lines}
    sources: list[SourceFileView] = []
    for path in paths:
        j = file_idx[path]
        fanchor = f"{anchor}-f{j}"
        file_lines = {}
        for ln in a.lines:
            p, n = split_loc(ln.source_loc)
            if p == path and n is not None:
                file_lines[n] = ln
        text = c.source_text.get(path)
        numbers = range(1, len(text) + 1) if text else sorted(file_lines)
        out_lines = []
        for n in numbers:
            ln = file_lines.get(n)
            out_lines.append(SourceLine(
                number=n,
                anchor=f"{fanchor}-L{n}",
                text=text[n - 1] if text else "",
                heat=heat(ln.stall_cycles, max_line) if ln else "",
                stall=fmt_cycles(ln.stall_cycles) if ln and ln.stall_cycles else "",
                share=fmt_pct(ln.share) if ln and ln.stall_cycles else "",
                dominant=ln.dominant_type if ln and ln.stall_cycles else "",
                isa=[by_pc[pc] for pc in ln.pc_indices if pc in by_pc] if ln else [],
            ))
        if text:  # lines the trace names beyond the snapshot's end still show
            for n in sorted(x for x in file_lines if x > len(text)):
                ln = file_lines[n]
                out_lines.append(SourceLine(n, f"{fanchor}-L{n}", "", heat(ln.stall_cycles, max_line),
                                            fmt_cycles(ln.stall_cycles) if ln.stall_cycles else "",
                                            fmt_pct(ln.share) if ln.stall_cycles else "",
                                            ln.dominant_type if ln.stall_cycles else "",
                                            [by_pc[pc] for pc in ln.pc_indices if pc in by_pc]))
        hottest = max(file_lines.values(), key=lambda ln: ln.stall_cycles, default=None)
        fstall = sum(ln.stall_cycles for ln in file_lines.values())
        sources.append(SourceFileView(
            anchor=fanchor, path=path, short=common.get(path, path), has_text=bool(text),
            hottest_href=f"#{fanchor}-L{split_loc(hottest.source_loc)[1]}" if hottest and hottest.stall_cycles else "",
            stall=fmt_cycles(fstall), lines=out_lines,
        ))
    unk = line_info.get(UNKNOWN_LOC)
    if unk is not None:
        sources.append(SourceFileView(
            anchor=f"{anchor}-unk", path=UNKNOWN_LOC, short="(no source location)", has_text=False,
            hottest_href=f"#{anchor}-unk", stall=fmt_cycles(unk.stall_cycles),
            lines=[SourceLine(0, f"{anchor}-unk-L0", "", heat(unk.stall_cycles, max_line),
                              fmt_cycles(unk.stall_cycles) if unk.stall_cycles else "",
                              fmt_pct(unk.share) if unk.stall_cycles else "",
                              unk.dominant_type if unk.stall_cycles else "",
                              [by_pc[pc] for pc in unk.pc_indices if pc in by_pc])],
        ))
    # the hottest line that is not a flagged debug-info artifact (the entry/decorator line)
    artifacts = {(f.get("evidence") or {}).get("source") for f in (c.findings or [])
                 if f.get("detector") == "decorator_line"}
    hot = [ln for ln in a.hot_lines(len(a.lines)) if ln.source_loc not in artifacts][:1]
    hottest_href = loc_href(hot[0].source_loc) if hot else ""

    stall_rows = stall_type_rows(a.stall_by_type, total_stall)
    ws_rows = [StallTypeRow(k_, "", fmt_pct(v), round(100 * v, 2), STATE_CSS.get(k_, ""))
               for k_, v in (a.wave_states or {}).items()]
    stats = a.wave_duration_stats()
    facts = [
        Fact("instructions", f"{n_ins:,}", "fact.instructions"),
        Fact(f"total {unit}", fmt_cycles(a.total_cycles), "fact.total"),
        Fact(f"stall {unit}", f"{fmt_cycles(total_stall)} ({fmt_pct(a.stall_ratio)} of total)", "fact.stall"),
        Fact("source mapped", f"{mapped} of {n_ins} instructions ({fmt_pct(a.mapped_fraction)})", "fact.mapped",
             css="warn" if n_ins and mapped == 0 else ""),
        Fact("architecture", f"{a.arch} (from {a.arch_source})", "fact.arch"),
    ]
    if a.jit_kernel:
        facts.append(Fact("JIT kernel", a.jit_kernel, "fact.jit"))
    if stats:
        facts.append(Fact("sampled waves", waves_fact_text(a, stats), "fact.waves",
                          css="warn" if not a.representative else ""))
    top_lines, top_ins = hot_rows(a, total_stall, anchor, common, loc_href)
    tl_chart, tl_facts = None, []
    if c.timeline is not None:
        t = c.timeline
        tl_chart = chart_view(f"{anchor}-timeline", charts.timeline(t), "One sampled wave over time", "chart.timeline")
        span = t.wave.duration
        tl_facts = [
            Fact("wave", f"{t.wave.file} (SE {t.wave.se}, SM {t.wave.sm}, slot {t.wave.slot}, wave {t.wave.wave}): "
                 "the longest sampled wave", "fact.wave"),
            Fact("duration", f"{fmt_cycles(span)} cycles, {t.n_instructions:,} instructions issued", "fact.duration"),
            Fact("issue / stall", f"{fmt_cycles(t.total_issue)} issue, {fmt_cycles(t.total_stall)} stall cycles "
                 f"(bins of {fmt_cycles(t.bin_cycles)} cycles)", "fact.issuestall"),
        ]
    stall_chart = chart_view(f"{anchor}-stalls", charts.stall_types(a.stall_by_type, unit),
                             f"Stall {unit} by type", "chart.stalls" if unit == "cycles" else "") if a.stall_by_type else None
    return CaptureView(
        **base, facts=facts, stall_types=stall_rows, stall_chart=stall_chart, wave_states=ws_rows,
        occupancy=occupancy_view(a), top_lines=top_lines, top_instructions=top_ins, timeline=tl_chart,
        timeline_facts=tl_facts, timeline_note=c.timeline_note or "", sources=sources, hottest_href=hottest_href,
        isa=isa, isa_count=len(isa), findings=[finding_view(f, anchor) for f in (c.findings or [])],
        notes=[n for n in a.notes if not (a.occupancy and n in a.occupancy.notes)], unit=unit, vendor=a.vendor,
        warning=waves.not_representative_text(a.waves_summary), working=working_view(a, anchor, common, loc_href),
        opcodes=opcode_rows(a),
    )


@register_panel("captures", "Captures", 30)
def _captures_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[CaptureView] | str:
    if not k.captures:
        if k.bundle_rel is None:
            return "No profiling bundle for this kernel: there is no capture to show (timings only)."
        return "The bundle holds no ATT or Nsight Compute capture."
    return [capture_view(i, c, ctx) for i, c in enumerate(k.captures)]
