"""Formatting helpers and the inputs of the view stage (KernelData, CaptureData, SiteContext)."""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any

from generator.analyze.kernels import UNCATEGORIZED, read_first  # noqa: F401  (UNCATEGORIZED: read here)
from generator.model import CaptureAnalysis, WaveFile, record


DASH = "\u2014"
VERDICTS = ("WIN", "PARITY", "HEADROOM", "BLOCKED")


#: Sort rank of a verdict (best news first; no verdict last).
VERDICT_RANK = {"WIN": 0, "PARITY": 1, "HEADROOM": 2, "BLOCKED": 3, "UNTIMED": 4, None: 5}


#: What a row shows in place of a verdict it does not have.
NO_VERDICT_LABEL = {"UNTIMED": "NO TIMINGS", None: "NO CAMPAIGN"}
HEAT_LEVELS = 8
TOP_K = 15


#: Sweep-level findings shown before "more" on the overview.
READING_SHOWN = 5


# ---------------------------------------------------------------- formatting

def fmt_x(value: float | None) -> str:
    """A speedup: ``0.87x``; a dash for None."""
    return DASH if value is None else f"{value:.2f}x"


def fmt_pct(fraction: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: ``34.8%``; a dash for None."""
    return DASH if fraction is None else f"{fraction * 100:.{digits}f}%"


def fmt_num(value: float | None) -> str:
    """A plain number (integers without decimals, others with 3 significant digits)."""
    if value is None:
        return DASH
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def sort_key(value: Any) -> str:
    """The ``data-sort`` text of a value: numbers as repr, None as empty (sorts last)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(float(value)) if math.isfinite(value) else ""
    return str(value)


def verdict_css(verdict: str | None) -> str:
    """CSS class of a verdict badge."""
    return f"v-{verdict.lower()}" if verdict in VERDICTS else "v-none"


def verdict_label(verdict: str | None) -> str:
    """The word shown in a verdict badge."""
    return verdict if verdict in VERDICTS else NO_VERDICT_LABEL.get(verdict, str(verdict))


def heat(value: float, top: float) -> str:
    """CSS heat class ``h1``..``h8`` of ``value`` against the hottest ``top`` ("" when cold)."""
    if value <= 0 or top <= 0:
        return ""
    return f"h{max(1, min(HEAT_LEVELS, math.ceil(HEAT_LEVELS * value / top)))}"


def display_names(paths: list[str]) -> dict[str, str]:
    """The shortest path suffix that tells each file apart (``numeric.py``, ``a/x.py`` vs ``b/x.py``)."""
    parts = {p: p.strip("/").split("/") for p in paths}
    depth = {p: 1 for p in paths}
    while True:
        names = {p: "/".join(parts[p][-depth[p]:]) for p in paths}
        seen: dict[str, list[str]] = {}
        for p, n in names.items():
            seen.setdefault(n, []).append(p)
        clash = [p for group in seen.values() if len(group) > 1 for p in group if depth[p] < len(parts[p])]
        if not clash:
            return names
        for p in clash:
            depth[p] += 1


def md_text(text: str) -> str:
    """Text made inert inside Markdown (pull-request snippets): no HTML, links or tables."""
    out = str(text)
    for ch, rep in (("\\", "\\\\"), ("<", "&lt;"), (">", "&gt;"), ("[", "\\["), ("]", "\\]"),
                    ("|", "\\|"), ("`", "\\`"), ("*", "\\*"), ("_", "\\_"), ("\n", " ")):
        out = out.replace(ch, rep)
    return out


# ---------------------------------------------------------------- inputs of the view stage

@record
class WaveTimeline:
    """One sampled wave's issue and stall cycles over time, summed into bins."""

    wave: WaveFile
    n_instructions: int
    bin_cycles: int
    starts: list[int]  # bin start, cycles since the wave began
    issue: list[int]  # issue cycles per bin
    stall: dict[str, list[int]]  # stall cycles per bin, per stall type (taxonomy order)
    total_stall: int
    total_issue: int
    end: list[int] = field(default_factory=list)  # cycles of the closing s_endpgm past its stall, per bin
    total_end: int = 0


@record
class CaptureData:
    """One capture of a kernel as the view stage receives it."""

    label: str
    name: str
    rel: str  # path relative to the sweep root
    status: str  # ok, skipped, broken
    is_primary: bool
    problem: str | None = None  # why skipped or broken (no local paths)
    analysis: CaptureAnalysis | None = None
    timeline: WaveTimeline | None = None
    timeline_note: str | None = None
    source_text: dict[str, list[str]] = field(default_factory=dict)  # virtual path -> lines
    findings: list[dict[str, Any]] | None = None  # advice Finding.to_json() objects
    mfma: dict[int, dict[str, Any]] = field(default_factory=dict)  # pc_index -> MfmaNote.to_json()


@record
class KernelData:
    """Everything gathered for one kernel: the input of ``index_row`` and ``kernel_page``."""

    slug: str
    name: str
    op: str | None  # campaign name
    category: str | None
    bundle_rel: str | None  # the bundle folder, relative to the sweep root
    captures: list[CaptureData] = field(default_factory=list)
    primary_rule: str | None = None  # why the primary capture is primary (``Bundle.primary_rule``)
    score: Any = None  # generator.analyze.verdicts.KernelScore
    score_error: str | None = None
    headline: Any = None  # generator.analyze.verdicts.HeadlinePair
    headline_note: str | None = None
    report_html: str | None = None  # REPORT.md rendered and sanitized
    campaign_reports: list[tuple[str, str]] = field(default_factory=list)  # (file name, its Markdown rendered)
    report_checks: list[dict[str, Any]] = field(default_factory=list)  # analyze.report_checks, as JSON
    counters: dict[str, Any] | None = None  # PmcResult.to_json()
    counter_reading: list[str] = field(default_factory=list)
    runstats: dict[str, Any] | None = None
    roofline: dict[str, Any] | None = None  # Roofline.to_json()
    compare: list[dict[str, Any]] = field(default_factory=list)
    why_not: dict[str, Any] | None = None
    ncu_summary: dict[str, Any] | None = None
    missing: list[str] = field(default_factory=list)  # what is absent, plain words
    broken: list[str] = field(default_factory=list)  # what failed to load, one line each
    notes: list[str] = field(default_factory=list)
    profiled_commit: str | None = None  # the sweep's profiled candidate commit (a capture's own wins)
    standing_problems: list[str] = field(default_factory=list)  # the campaign's or primary capture's line
    capture_config: dict[str, Any] | None = None  # analyze.config_match.check: the capture vs the timed rows
    state: Any = None  # generator.analyze.state.KernelState, made last by gather
    prev: tuple[str, str] | None = None  # (slug, name) of the kernel before on the overview
    next: tuple[str, str] | None = None

    @property
    def primary(self) -> CaptureData | None:
        """The primary capture when it was analyzed, else the first analyzed one (``read_first``)."""
        found = read_first(self.captures, lambda c: c.is_primary, lambda c: c.analysis)
        return found[0] if found else None


@record
class SiteContext:
    """Site-wide settings the views need."""

    title: str = "Kernel Atlas"
    candidate: str = "flydsl"
    win: float = 1.05
    headroom: float = 0.95
    severity_near: float = 0.90  # [severity] of kernel-atlas.toml: HEADROOM near / tune / rewrite
    severity_tune: float = 0.75
    base_url: str = ""  # absolute site URL for PR snippets ("" = relative links)
    history: bool = False  # the site has a history page (build --history)
    missing_stages: list[str] = field(default_factory=list)  # analysis modules not available
    category_labels: dict[str, str] = field(default_factory=dict)  # category -> as its owners write it
    supersedes: dict[str, str] = field(default_factory=dict)  # op -> the older op it supersedes (configuration)
    #: build --ci: slug -> [(runner, op, series, regressed on main, CI page from the site root)] (views.ci_panel)
    ci_series: dict[str, list] = field(default_factory=dict)

    @property
    def superseded(self) -> dict[str, str]:
        """Older op -> the op that supersedes it."""
        return {old: new for new, old in self.supersedes.items()}


#: The ``missing`` sentences of a kernel without a capture: its page's captures panel words them
#: ("No profiling bundle for this kernel", "The bundle holds no ATT or Nsight Compute capture").
CAPTURE_MISSING = frozenset({"msg.missing.bundle", "msg.missing.captures"})


def not_said_by_captures(missing: list[str]) -> list[str]:
    """``missing`` less what the captures panel says (a missing capture is said once on a page)."""
    return [m for m in missing if getattr(getattr(m, "msg", None), "key", None) not in CAPTURE_MISSING]
