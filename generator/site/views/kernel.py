"""The kernel page (its registered panels in order) and the kernel's JSON record."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from generator.analyze.verdicts import launchline
from generator.analyze.message import msg
from generator.model import record
from generator.site.views.base import (CaptureData, KernelData, SiteContext, TOP_K, VERDICTS, md_text,
                                       not_said_by_captures)
from generator.site.views.index_row import ClauseLink, IndexRow, clause_links
from generator.site.views.panel import NavItem, PanelView, registered_panels
from generator.site.wording import Said, Seg, runs, said

# Each panel module registers its panel on import (the kernel page shows the registry).
from generator.site.views import (  # noqa: E402,F401
    advice, captures, ci_panel, compare, counters, data, launch, loses, ncu, report, roofline, speed, why,
)


# ---------------------------------------------------------------- kernel page

@record
class KernelPage:
    """One kernel's page (``kernels/<slug>/index.html``)."""

    slug: str
    root: str
    site_title: str
    row: IndexRow
    verdict_reason: Said | None
    flags: list[Said]
    nav: list[NavItem]
    panels: list[PanelView]
    pr_snippet: str
    prev: NavItem | None
    next: NavItem | None
    candidate: str
    history_href: str = ""
    diagnosis: list[ClauseLink] | None = None  # clauses linked to anchors on this page
    diagnosis_said: list[Said] | None = None  # the same clauses in both languages
    clocks: list[Said] = field(default_factory=list)  # rules 14 and 13 beside the verdict: interval, launch, call pair
    first_step: Said | None = None  # the first step in both languages
    verdict_line: Said | None = None  # the verdict's ratio, clock and interval in one line (issue 37: one thing first)
    where_line: Said | None = None  # where it loses (VERDICTS rule 15)
    launcher_line: Said | None = None  # the launcher beside the kernel verdict, in one line (rule 13)

    @property
    def history_nav(self) -> bool:
        return bool(self.history_href)

    @property
    def header_missing(self) -> list[str]:
        """What the header says is missing, less a missing capture: the captures panel says that, once."""
        return not_said_by_captures(self.row.missing)


#: Flags the one-line PR snippet and the badge name beside the verdict (the page says why).
FLAG_WORDS = {"uncertain": "uncertain (an interval reaches across a threshold)", "not_like_for_like": "not like-for-like",
              "suspect_reference": "suspect reference check", "above_roof": "rows above a roof",
              "partial": "partial run", "graph_partial": "the graph replay misses work (no shape is kernel evidence)"}


def pr_snippet(row: IndexRow, base_url: str) -> str:
    """The Markdown a pull request pastes, saying what the page says first: badge, link, the verdict with its
    ratio, clock, shapes and interval (and the severity); then where it loses, the one first step, the launcher
    and the diagnosis, each linked to its evidence on the kernel page. No number that rests on call time or a
    flagged row stands beside the verdict unnamed (issue 37)."""
    base = base_url.rstrip("/") + "/" if base_url else ""
    page, badge = f"{base}{row.permalink}", f"{base}{row.badge}"
    name = md_text(row.name)
    more = []
    if row.verdict in VERDICTS:
        words = f"**{row.verdict}**"
        if row.basis_text:
            words += f", {md_text(row.basis_text)}"
        elif row.ratio is not None:
            k = row.graph_capture_failed[0] if row.graph_capture_failed else 0
            words += (f" {row.ratio_text} on the kernel clock vs a comparable baseline over {row.verdict_geomean[1]} "
                      f"of {row.n_measured} measured shapes" + (f", {k} could not be graph-captured" if k else ""))
        if row.blocked_reason and row.blocked_reason != row.basis_text:  # said once
            words += f" ({md_text(row.blocked_reason)})"
        if row.interval_title:  # rule 14: how much the ratio depends on the shapes picked
            words += f" ({md_text(row.interval_title)})"
        if row.replay_text:  # the replay's fixed cost could move it across a threshold
            words += f"; {md_text(row.replay_text)}"
        if row.hard_failures:
            words += f", {row.hard_failures} hard failures"
        if row.severity:
            note = f"; {md_text(row.severity['config_note'])}" if row.severity.get("config_note") else ""
            words += f" ({md_text(row.severity['level'])}: {md_text(row.severity['detail'])}{note})"
        said_once = {"not_like_for_like"} if row.blocked_reason == "no like-for-like baseline" else set()
        words += "".join(f", {FLAG_WORDS[k]}" for k in row.flag_keys if k in FLAG_WORDS and k not in said_once)
        if row.where_text:
            more.append(f"- where it loses: [{md_text(row.where_text)}]({page}{row.where_anchor})")
    else:
        words = f"**{row.verdict_label.lower()}**"
    out = f"[![{name}: {row.verdict_label}]({badge})]({page}) [{name}]({page}): {words}"
    if row.first_step:
        fs = row.first_step
        share = f" ({md_text(fs['share_text'])})" if fs.get("share_text") else ""
        note = f"; {md_text(fs['config_note'])}" if fs.get("config_note") else ""  # DOMAIN §1.7
        more.append(f"- first step: [{md_text(fs['text'])}]({page}{fs['anchor']}){share}{note}")
    if row.launch_title:  # rule 13: the launcher beside the kernel verdict (a lower bound), a call-clock pair named
        more.append(f"- launcher: {md_text(row.launch_title)}")
    if row.diagnosis:
        more.append("- diagnosis: " + ", ".join(f"[{md_text(c.text)}]({c.href})" for c in clause_links(row.diagnosis, page)))
    return "\n\n".join([out, "\n".join(more)]) if more else out


def verdict_words(k: KernelData, row: IndexRow) -> tuple[Said | None, list[Said]]:
    """The verdict's reason and its flags in both languages (``verdict.reason.*``, ``verdict.flag.*``)."""
    s = k.score
    if s is None:
        return (said(msg("verdict.reason.unreadable", error=k.score_error), en=f"campaign unreadable: {k.score_error}")
                if k.score_error else None), []
    reason = (said(s.verdict_reason_msg, en=s.verdict_reason) if s.verdict_reason_msg is not None
              else Said(s.verdict_reason) if s.verdict_reason else None)
    flags = [said(m, en=text) for text, m in zip(row.flags, s.flag_messages)] if row.flags else []
    return reason, flags


#: A BLOCKED verdict's reason (``KernelScore.blocked_reason``) by catalogue key.
BLOCKED_KEYS = {"no like-for-like baseline": "head.blocked.none", "no measured shape": "head.blocked.nomeasured",
                "hard failures": "head.blocked.hard", "timed on the call clock only": "head.blocked.callonly",
                "no candidate": "head.blocked.nocandidate"}


def verdict_line(s: Any) -> Said | None:
    """The verdict's ratio with its clock, how many shapes it covers and its interval (``interval_msg``);
    a BLOCKED verdict's reason in its place."""
    if s.verdict == "BLOCKED":
        key = BLOCKED_KEYS.get(s.blocked_reason or "")
        return said(msg(key)) if key else (Said(s.blocked_reason) if s.blocked_reason else None)
    if s.verdict_basis == "shapes" and s.verdict_geomean:
        k = s.graph_capture_failed[0] if s.graph_capture_failed else 0
        head = msg("head.line.shapes.capture" if k else "head.line.shapes", n=s.verdict_geomean[1], m=s.n_measured, k=k)
    elif s.verdict_basis == "pair":
        head = msg("head.line.pair")
    elif s.verdict_basis == "bound":
        head = msg("head.line.bound")
    elif s.verdict_basis == "floor":
        head = msg("head.line.floor")
    else:
        return None
    interval = s.interval_msg if s.verdict_basis == "shapes" else None
    return said(head) if interval is None else _joined(head, interval)


def launcher_line(s: Any) -> Said | None:
    """The launcher in one line (rule 13), as its reading allows (``verdicts.launchline``): at least the call gap
    where it is launch overhead; the gap and its launch path where most of it is kernel time; the measured gap
    under 5 us; named when the fastest baseline's call times other work."""
    m = launchline.launch_msg(s, "head")
    return said(m) if m is not None else None


def _with_replay(line: Said | None, row: IndexRow) -> Said | None:
    """The verdict line, and beside it the ratio without the replay's fixed cost where that crosses a threshold."""
    if line is None or not row.replay_text:
        return line
    return Said(f"{line.en}; {row.replay_text}",
                (line.zh or []) + [Seg("；", False)] + runs(row.replay_zh) if line.zh is not None else None)


def _joined(a: Any, b: Any) -> Said:
    """Two messages as one line: "a (b)"."""
    x, y = said(a), said(b)
    return Said(f"{x.en} ({y.en})", (x.zh or []) + [Seg("（", False)] + (y.zh or []) + [Seg("）", False)]
                if x.zh is not None and y.zh is not None else None)


def kernel_page(k: KernelData, row: IndexRow, ctx: SiteContext) -> KernelPage:
    """Build the kernel page from its data and its overview row."""
    panels = []
    for p in registered_panels():
        data = p.build(k, row, ctx)
        if data is None:
            continue
        panels.append(PanelView(p.name, p.title, p.i18n, data))
    nav = []
    for pv in panels:
        item = NavItem(pv.title, f"#{pv.name}", pv.i18n)
        if pv.name == "captures" and isinstance(pv.data, list):
            item.children = [NavItem(cv.title, f"#{cv.anchor}", primary=cv.is_primary) for cv in pv.data]
        nav.append(item)
    reason, flags = verdict_words(k, row)
    s = k.score if k.score is not None and k.score.is_verdict else None
    clocks = [said(m) for m in (s.interval_msg, s.launch_msg, s.call_pair_msg) if m is not None] if s else []
    return KernelPage(
        verdict_line=_with_replay(verdict_line(s), row) if s is not None else None,
        where_line=Said(row.where_text, runs(row.where_zh)) if row.where_text else None,
        launcher_line=launcher_line(s) if s is not None else None,
        clocks=clocks,
        slug=k.slug,
        root="../../",
        site_title=ctx.title,
        row=row,
        verdict_reason=reason,
        flags=flags,
        nav=nav,
        panels=panels,
        pr_snippet=pr_snippet(row, ctx.base_url),
        prev=NavItem(k.prev[1], f"../{k.prev[0]}/") if k.prev else None,
        next=NavItem(k.next[1], f"../{k.next[0]}/") if k.next else None,
        candidate=ctx.candidate,
        # a kernel without timings has no history chart (``history_series.history_chart_data``)
        history_href=f"../../history.html#h-{k.slug}" if ctx.history and row.geomean is not None else "",
        diagnosis=clause_links(row.diagnosis, ""),
        diagnosis_said=[Said(c.text, c.zh_runs) for c in clause_links(row.diagnosis, "")],
        first_step=row.first_step_said,
    )


# ---------------------------------------------------------------- machine-readable kernel record

def capture_json(c: CaptureData) -> dict[str, Any]:
    """One capture in ``api/kernels/<slug>.json``: the analysis, every hot line, the timeline and the advice.

    The ISA rows and MFMA notes are left out: the capture's ``isa.html`` pages show them and no
    reader of ``api/`` needs them (API format 2)."""
    out: dict[str, Any] = {"label": c.label, "name": c.name, "path": c.rel, "status": c.status,
                           "primary": c.is_primary, "problem": c.problem}
    a = c.analysis
    if a is None:
        return out
    out["analysis"] = a.to_json(TOP_K)
    out["lines"] = [{"source_loc": ln.source_loc, "stall_cycles": ln.stall_cycles, "total_cycles": ln.total_cycles,
                     "share": ln.share, "stall_rate": ln.stall_rate, "dominant_type": ln.dominant_type,
                     "stall_by_type": dict(ln.stall_by_type), "pc_indices": list(ln.pc_indices)} for ln in a.lines]
    if c.timeline is not None:
        t = c.timeline
        out["timeline"] = {"wave": t.wave.file, "begin": t.wave.begin, "end": t.wave.end,
                           "n_instructions": t.n_instructions, "bin_cycles": t.bin_cycles, "starts": t.starts,
                           "issue": t.issue, "stall": t.stall}
    if c.findings is not None:
        out["advice"] = c.findings
    return out


def kernel_json(k: KernelData, row: IndexRow, format_version: int) -> dict[str, Any]:
    """``api/kernels/<slug>.json``: everything the page shows (see ``generator.site.api``)."""
    return {
        "format_version": format_version,
        "kernel": row.api(),
        "score": k.score.to_json() if k.score is not None else None,
        "score_error": k.score_error,
        "headline": k.headline.to_json() if k.headline is not None else None,
        "headline_note": k.headline_note,
        "bundle": k.bundle_rel,
        "captures": [capture_json(c) for c in k.captures],
        "primary_rule": k.primary_rule,  # why the capture marked primary is (``discover.choose_primary``)
        "counters": k.counters,
        "counter_reading": list(k.counter_reading),
        "runstats": k.runstats,
        "roofline": k.roofline,
        "compare": k.compare,
        "why_not_winning": k.why_not,
        "ncu_summary": k.ncu_summary,
        "report_html": k.report_html,
        "campaign_reports": [{"file": name, "html": html} for name, html in k.campaign_reports],
        "capture_config": k.capture_config,  # DOMAIN §1.7: the primary capture's configuration vs the timed rows'
        "report_checks": [{key: c[key] for key in ("what", "report", "computed", "holds", "why")}
                          for c in k.report_checks],
        "missing": list(k.missing),
        "broken": list(k.broken),
        "notes": list(k.notes),
    }
