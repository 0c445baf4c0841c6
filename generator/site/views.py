"""View models: plain dataclasses holding display-ready values for every page and row.

The view stage sits between scoring and rendering (STYLE.md 3-4). Its input is one
``KernelData`` per kernel (everything ``generator.site.build`` gathered: the bundle, the
analyses, the score, the timeline, counters, advice...). Its output is an
``IndexRow`` per kernel (the overview table and chart, ``api/index.json``, the cached
row of the build manifest) and a ``KernelPage`` per kernel page. Every value is
final: formatted strings, the CSS class, the relative URL and the machine value used
for sorting (``data-sort``). Templates only display.

Hot loops (thousands of ISA and source lines) are built here, once per line.

Naming rules shared with ``templates/static/site.js`` (repeated in its header):

* Element ids on a kernel page: capture ``c<i>`` (i = position of the capture on the
  page, from 0); its ISA row ``c<i>-pc<pc_index>``; its source file ``c<i>-f<j>``; a
  source line ``c<i>-f<j>-L<line>``; lines with no source location ``c<i>-unk``.
* Overview table rows carry ``data-verdict``, ``data-category``, ``data-search``
  (lower-case text matched by the search box) and ``data-href`` (the kernel page,
  relative to the overview); every sortable cell carries ``data-sort`` (a number or a
  text; empty sorts last) and its column header ``data-sort-type`` (``num``/``text``).
* Interface text that the 中文 toggle translates carries ``data-i18n="<key>"``; keys
  are dotted lower-case words (``nav.overview``); the dictionary is ``I18N`` in site.js.
* Charts: ``<div class="chart" data-figure="<id>">`` draws the figure JSON held in
  ``<script type="application/json" id="<id>">`` (ids ``fig-<name>``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from markupsafe import Markup

from generator.site import charts
from generator.model import UNKNOWN_LOC, CaptureAnalysis, WaveFile
from generator.site.text_report import fmt_cycles, split_loc

DASH = "\u2014"
VERDICTS = ("WIN", "PARITY", "HEADROOM", "BLOCKED")
#: Sort rank of a verdict (best news first; no verdict last).
VERDICT_RANK = {"WIN": 0, "PARITY": 1, "HEADROOM": 2, "BLOCKED": 3, "UNTIMED": 4, None: 5}
#: What a row shows in place of a verdict it does not have.
NO_VERDICT_LABEL = {"UNTIMED": "NO TIMINGS", None: "NO CAMPAIGN"}
HEAT_LEVELS = 8
UNCATEGORIZED = "uncategorized"
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

@dataclass
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


@dataclass
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


@dataclass
class KernelData:
    """Everything gathered for one kernel: the input of ``index_row`` and ``kernel_page``."""

    slug: str
    name: str
    op: str | None  # campaign name
    category: str | None
    bundle_rel: str | None  # the bundle folder, relative to the sweep root
    captures: list[CaptureData] = field(default_factory=list)
    score: Any = None  # generator.analyze.verdicts.KernelScore
    score_error: str | None = None
    headline: Any = None  # generator.analyze.verdicts.HeadlinePair
    headline_note: str | None = None
    report_html: str | None = None  # REPORT.md rendered and sanitized
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
    prev: tuple[str, str] | None = None  # (slug, name) of the kernel before on the overview
    next: tuple[str, str] | None = None

    @property
    def primary(self) -> CaptureData | None:
        """The primary capture when it was analyzed, else the first analyzed one."""
        ok = [c for c in self.captures if c.analysis is not None]
        return next((c for c in ok if c.is_primary), ok[0] if ok else None)


@dataclass
class SiteContext:
    """Site-wide settings the views need."""

    title: str = "Kernel Atlas"
    candidate: str = "flydsl"
    win: float = 1.05
    headroom: float = 0.95
    base_url: str = ""  # absolute site URL for PR snippets ("" = relative links)
    history: bool = False  # the site has a history page (build --history)
    missing_stages: list[str] = field(default_factory=list)  # analysis modules not available


# ---------------------------------------------------------------- overview rows

@dataclass
class IndexRow:
    """One kernel on the overview: display values, sort values and the api record.

    Round-trips through JSON (``to_json`` / ``from_json``): the build manifest keeps
    the row of every kernel so that an unchanged kernel is not analyzed again.
    """

    slug: str
    name: str
    op: str | None
    category: str
    href: str  # the page file (works from file://, where a folder URL lists the folder)
    permalink: str  # the stable folder URL (kernels/<slug>/) for links from pull requests
    badge: str
    json: str
    verdict: str | None
    verdict_label: str
    verdict_css: str
    verdict_rank: int
    geomean: float | None
    geomean_text: str
    weighted: float | None
    weighted_text: str
    wins: int | None
    parity: int | None
    losses: int | None
    n_measured: int | None
    n_shapes: int | None
    wins_text: str
    hard_failures: int | None
    harness_failures: int | None
    failures_text: str
    failures_sort: int
    best_baseline: str | None
    best_baseline_text: str
    top_stall: str | None
    stall_ratio: float | None
    stall_ratio_text: str
    occupancy: int | None
    occupancy_text: str
    limiter: str | None
    n_captures: int
    flags: list[str]
    missing: list[str]
    broken: list[str]
    flag_keys: list[str]
    headline_text: str | None
    headline_note: str | None
    shape_speedups: list[float]
    search: str
    noise: float | None = None
    limiter_text: str = DASH  # the limiter as read: "hardware max" for NONE
    regression: str = ""  # set per build from the history (not an input of the kernel)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IndexRow:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @property
    def wins_sort(self) -> float | str:
        """Sort value of the wins column: the fraction of measured shapes won."""
        return self.wins / self.n_measured if self.wins is not None and self.n_measured else ""

    def api(self) -> dict[str, Any]:
        """The record of this kernel in ``api/index.json``."""
        return {
            "slug": self.slug,
            "name": self.name,
            "op": self.op,
            "category": self.category,
            "verdict": self.verdict,
            "geomean_vs_best": self.geomean,
            "weighted_geomean_vs_best": self.weighted,
            "wins": self.wins,
            "parity": self.parity,
            "losses": self.losses,
            "n_measured": self.n_measured,
            "n_shapes": self.n_shapes,
            "hard_failures": self.hard_failures,
            "harness_failures": self.harness_failures,
            "best_baseline": self.best_baseline,
            "top_stall_type": self.top_stall,
            "stall_ratio": self.stall_ratio,
            "occupancy": self.occupancy,
            "limiter": self.limiter,
            "noise": self.noise,
            "flags": list(self.flag_keys),
            "flag_texts": list(self.flags),
            "regression": self.regression or None,
            "missing": list(self.missing),
            "broken": list(self.broken),
            "page": self.href,
            "permalink": self.permalink,
            "json": self.json,
            "badge": self.badge,
        }


@dataclass
class Tally:
    """Kernels per verdict; tallies add up with ``+`` (coverage's ``Numbers``)."""

    win: int = 0
    parity: int = 0
    headroom: int = 0
    blocked: int = 0
    untimed: int = 0
    unscored: int = 0

    @classmethod
    def of(cls, verdict: str | None) -> Tally:
        key = {"WIN": "win", "PARITY": "parity", "HEADROOM": "headroom", "BLOCKED": "blocked",
               "UNTIMED": "untimed"}.get(verdict or "", "unscored")
        return cls(**{key: 1})

    def __add__(self, other: Tally) -> Tally:
        return Tally(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    @property
    def scored(self) -> int:
        return self.win + self.parity + self.headroom + self.blocked

    def text(self) -> str:
        """``2 WIN, 5 HEADROOM``: the non-zero verdict counts."""
        parts = [f"{getattr(self, k)} {k.upper()}" for k in ("win", "parity", "headroom", "blocked")
                 if getattr(self, k)]
        if self.untimed:
            parts.append(f"{self.untimed} untimed")
        if self.unscored:
            parts.append(f"{self.unscored} without campaign")
        return ", ".join(parts) or "none"

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def best_baseline_of(score: Any) -> tuple[str | None, str]:
    """The baseline that is best on most measured shapes, and ``name (k of n)``."""
    if score is None:
        return None, DASH
    counts = Counter(s.best_baseline for s in score.shapes if s.measured and s.best_baseline)
    if not counts:
        return None, DASH
    order = {p: i for i, p in enumerate(score.providers)}
    name, k = min(counts.items(), key=lambda kv: (-kv[1], order.get(kv[0], 99), kv[0]))
    return name, f"{name} ({k} of {score.n_measured})"


def occupancy_cells(a: CaptureAnalysis | None) -> dict[str, Any]:
    """Occupancy sort value, text and limiter of a kernel row (AMD waves/SIMD, NCU achieved %)."""
    occ = a.occupancy if a else None
    if occ:
        return {"occupancy": occ.waves_per_simd, "occupancy_text": f"{occ.waves_per_simd}/SIMD",
                "limiter": occ.limiter, "limiter_text": occ.limited_by}
    ncu_occ = ((a.extra.get("ncu") or {}).get("occupancy") or {}) if a else {}
    achieved = ncu_occ.get("achieved_pct")
    if isinstance(achieved, (int, float)):
        return {"occupancy": round(achieved / 100, 4), "occupancy_text": f"{achieved:.1f}% achieved",
                "limiter": ncu_occ.get("limiter"), "limiter_text": ncu_occ.get("limiter") or DASH}
    return {"occupancy": None, "occupancy_text": DASH, "limiter": None, "limiter_text": DASH}


def index_row(k: KernelData) -> IndexRow:
    """The overview row of one kernel."""
    s = k.score
    verdict = s.verdict if s is not None else None
    scored = s is not None and verdict in VERDICTS
    best, best_text = best_baseline_of(s) if scored else (None, DASH)
    prim = k.primary
    a = prim.analysis if prim else None
    top = a.top_stall_type if a else None
    hard = s.hard_failures if scored else None
    harness = s.harness_failures if scored else None
    flags = list(s.flags) if scored else []
    if s is not None and not scored:
        wins_text = f"{s.n_shapes} shapes, untimed"
    elif scored:
        wins_text = f"{s.wins} of {s.n_measured}"
    else:
        wins_text = DASH
    search = " ".join(x for x in (k.name, k.slug, k.op or "", k.category or "") if x).lower()
    return IndexRow(
        slug=k.slug,
        name=k.name,
        op=k.op,
        category=k.category or UNCATEGORIZED,
        href=f"kernels/{k.slug}/index.html",
        permalink=f"kernels/{k.slug}/",
        badge=f"badges/{k.slug}.svg",
        json=f"api/kernels/{k.slug}.json",
        verdict=verdict,
        verdict_label=verdict_label(verdict),
        verdict_css=verdict_css(verdict),
        verdict_rank=VERDICT_RANK.get(verdict, 5),
        geomean=s.geomean_vs_best if scored else None,
        geomean_text=fmt_x(s.geomean_vs_best) if scored else DASH,
        weighted=s.weighted_geomean_vs_best if scored else None,
        weighted_text=fmt_x(s.weighted_geomean_vs_best) if scored else DASH,
        wins=s.wins if scored else None,
        parity=s.parity if scored else None,
        losses=s.losses if scored else None,
        n_measured=s.n_measured if scored else None,
        n_shapes=s.n_shapes if s is not None else None,
        wins_text=wins_text,
        hard_failures=hard,
        harness_failures=harness,
        failures_text=s.failures_text if scored else DASH,
        failures_sort=(hard or 0) * 1000 + (harness or 0) if scored else -1,
        best_baseline=best,
        best_baseline_text=best_text,
        top_stall=top,
        stall_ratio=a.stall_ratio if a else None,
        stall_ratio_text=fmt_pct(a.stall_ratio) if a else DASH,
        **occupancy_cells(a),
        n_captures=sum(1 for c in k.captures if c.analysis is not None),
        flags=flags,
        flag_keys=list(s.flag_keys) if scored else [],
        missing=list(k.missing),
        broken=list(k.broken),
        headline_text=k.headline.text if k.headline else None,
        headline_note=k.headline_note,
        shape_speedups=[sh.speedup for sh in s.shapes if sh.measured] if scored else [],
        search=search,
        noise=s.noise if scored else None,
    )


@dataclass
class ChartView:
    """A plotly figure to draw client-side: its element id and its JSON (script-safe)."""

    id: str
    json: Markup
    title: str = ""
    i18n: str = ""


def chart_view(fig_id: str, figure: dict[str, Any], title: str = "", i18n: str = "") -> ChartView:
    """Wrap a figure dict for embedding in a page."""
    return ChartView(id=f"fig-{fig_id}", json=Markup(charts.script_json(figure)), title=title, i18n=i18n)


@dataclass
class TallyCard:
    """One verdict count on the overview."""

    label: str
    count: int
    css: str
    filter: str  # value of the verdict filter it selects
    i18n: str
    hint: str = ""


@dataclass
class CategoryGroup:
    """Kernels of one category on the overview."""

    name: str
    rows: list[IndexRow]
    tally_text: str


@dataclass
class Fact:
    """A labelled value in a definition list."""

    label: str
    value: str
    i18n: str = ""
    href: str = ""
    css: str = ""


@dataclass
class OverviewPage:
    """The overview (``index.html``)."""

    title: str
    root: str
    provenance: list[Fact]
    build_date: str
    tally: Tally
    cards: list[TallyCard]
    groups: list[CategoryGroup]
    categories: list[str]
    verdict_filters: list[tuple[str, str]]  # (value, label)
    chart: ChartView | None
    not_on_chart: list[str]
    sweep_reading: list[dict[str, Any]]
    sweep_reading_more: list[dict[str, Any]]
    missing_stages: list[str]
    notes: list[str]
    n_kernels: int
    history_nav: bool = False


def overview_page(rows: list[IndexRow], ctx: SiteContext, provenance: list[Fact], build_date: str,
                  sweep_reading: list[dict[str, Any]] | None = None, notes: list[str] | None = None) -> OverviewPage:
    """The overview page from every kernel's row (rows already in display order)."""
    tally = sum((Tally.of(r.verdict) for r in rows), Tally())
    hints = {"WIN": f"geomean \u2265 {ctx.win:g}x", "PARITY": f"{ctx.headroom:g}x \u2264 geomean < {ctx.win:g}x",
             "HEADROOM": f"geomean < {ctx.headroom:g}x", "BLOCKED": "does not build, run or verify"}
    cards = [TallyCard(v, getattr(tally, v.lower()), verdict_css(v), v, f"verdict.{v.lower()}", hints[v]) for v in VERDICTS]
    if tally.untimed:
        cards.append(TallyCard("NO TIMINGS", tally.untimed, "v-none", "UNTIMED", "verdict.untimed", "ledger only"))
    if tally.unscored:
        cards.append(TallyCard("NO CAMPAIGN", tally.unscored, "v-none", "NONE", "verdict.none", "capture only"))
    by_cat: dict[str, list[IndexRow]] = {}
    for r in rows:
        by_cat.setdefault(r.category, []).append(r)
    cats = sorted(by_cat, key=lambda c: (c == UNCATEGORIZED, c))
    groups = [CategoryGroup(c, by_cat[c], sum((Tally.of(r.verdict) for r in by_cat[c]), Tally()).text())
              for c in cats]
    plotted = sorted((r for r in rows if r.geomean is not None), key=lambda r: (-r.geomean, r.name.lower()))
    why = {"UNTIMED": "ledger only, nothing timed", None: "no timing campaign", "BLOCKED": "no measured shape"}
    not_on_chart = [f"{r.name} ({why.get(r.verdict, r.verdict_label.lower())})" for r in rows if r.geomean is None]
    chart = chart_view("overview-speedups", charts.speedup_overview(plotted, ctx.win, ctx.headroom),
                       "Speedup vs the best baseline, per kernel", "chart.overview") if plotted else None
    filters = [("", "all verdicts")] + [(v, v) for v in VERDICTS] + [("UNTIMED", "no timings"), ("NONE", "no campaign")]
    return OverviewPage(
        title=ctx.title,
        root="",
        provenance=provenance,
        build_date=build_date,
        tally=tally,
        cards=cards,
        groups=groups,
        categories=cats,
        verdict_filters=filters,
        chart=chart,
        not_on_chart=not_on_chart,
        sweep_reading=list(sweep_reading or [])[:READING_SHOWN],
        sweep_reading_more=list(sweep_reading or [])[READING_SHOWN:],
        missing_stages=list(ctx.missing_stages),
        notes=list(notes or []),
        n_kernels=len(rows),
        history_nav=ctx.history,
    )


def order_rows(rows: list[IndexRow]) -> list[IndexRow]:
    """Display order: by category, then verdict (best news first), then geomean, then name."""
    return sorted(rows, key=lambda r: (r.category == UNCATEGORIZED, r.category, r.verdict_rank,
                                       -(r.geomean or 0.0), r.name.lower(), r.slug))


# ---------------------------------------------------------------- kernel page: panels

@dataclass(frozen=True)
class Panel:
    """A section of the kernel page: template ``panels/<name>.html``, section id ``<name>``."""

    name: str
    title: str
    order: int
    build: Callable[[KernelData, IndexRow, SiteContext], Any]
    i18n: str = ""


_PANELS: dict[str, Panel] = {}


def register_panel(name: str, title: str, order: int, i18n: str = ""):
    """Decorator: register a panel builder (returns the panel's data, or None to omit it)."""
    def wrap(fn):
        _PANELS[name] = Panel(name, title, order, fn, i18n or f"panel.{name}")
        return fn
    return wrap


def registered_panels() -> list[Panel]:
    """Every panel in page order."""
    return sorted(_PANELS.values(), key=lambda p: (p.order, p.name))


@dataclass
class NavItem:
    """A link of the page's table of contents."""

    title: str
    href: str
    i18n: str = ""
    children: list[NavItem] = field(default_factory=list)


@dataclass
class PanelView:
    """One built panel of a page."""

    name: str
    title: str
    i18n: str
    data: Any


# ---- why not winning

@dataclass
class WhyView:
    """For a HEADROOM kernel: the limiter and the top evidence, first on the page."""

    lines: list[str]
    findings: list[FindingView]
    source: str  # "advice" or "analysis"


@register_panel("why", "Why not winning", 10)
def _why_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> WhyView | None:
    if row.verdict != "HEADROOM":
        return None
    lines: list[str] = []
    if k.score is not None:
        lines.append(f"Geomean {row.geomean_text} against the best baseline, wins {row.wins_text}; "
                     f"worst shape {k.score.worst_text}.")
    if k.why_not:
        for key in ("summary", "limiter", "text"):
            v = k.why_not.get(key)
            if isinstance(v, str) and v:
                lines.append(v)
        ev = k.why_not.get("evidence")
        if isinstance(ev, list):
            lines.extend(str(e) for e in ev[:5])
        elif isinstance(ev, str):
            lines.append(ev)
        pi = k.captures.index(k.primary) if k.primary else None
        top = [finding_view(f, f"c{pi}" if pi is not None else None)
               for f in (k.why_not.get("findings") or [])[:3] if isinstance(f, dict)]
        return WhyView(lines, top, "advice")
    prim = k.primary
    if prim and prim.analysis:
        a = prim.analysis
        o = a.occupancy
        if o:
            lines.append(f"Occupancy {o.waves_per_simd} waves/SIMD, limited by {o.limited_by}"
                         + (f"; {o.next_waves} waves need at most {o.next_vgpr_total} VGPRs in all "
                            f"(now {o.vgpr_total})" if o.next_waves and o.limiter == "VGPR" else "") + ".")
        top = a.top_stall_type
        if top:
            share = a.stall_by_type[top] / a.total_stall_cycles if a.total_stall_cycles else 0
            lines.append(f"Top stall type {top}: {fmt_pct(share)} of stall cycles "
                         f"(stall ratio {fmt_pct(a.stall_ratio)}).")
        hot = a.hot_lines(1)
        if hot:
            lines.append(f"Hottest line {hot[0].source_loc} ({fmt_pct(hot[0].share)} of stalls, "
                         f"{hot[0].dominant_type}).")
        pi = k.captures.index(prim)
        findings = [finding_view(f, f"c{pi}") for f in (prim.findings or []) if not f.get("flagged")][:3]
        return WhyView(lines, findings, "advice" if findings else "analysis")
    lines.append("No capture was analyzed for this kernel, so there is no evidence to show.")
    return WhyView(lines, [], "analysis")


# ---- NVIDIA profile summary

@dataclass
class NcuStageRow:
    kernel: str
    shape: str
    duration: str
    tensor_core: str
    dram: str
    occupancy: str
    bottleneck: str
    key_issue: str


@dataclass
class NcuOpportunity:
    rank: str
    title: str
    gain: str
    metric: str
    metric_value: str
    advice: str


@dataclass
class NcuBaselineRow:
    shape: str
    model: str
    stage: str
    dtype: str
    profiled: bool
    candidate: str
    cells: list[ProviderCell]
    best: str
    speedup: str
    css: str


@dataclass
class NcuView:
    """The Nsight Compute profile summary (``generator.analyze.ncu_summary.ncu_summary``)."""

    provenance: str
    configuration: list[tuple[str, list[Fact]]]
    stages: list[NcuStageRow]
    bottleneck: str
    bottleneck_css: str
    root_cause: str
    locality: str
    opportunities: list[NcuOpportunity]
    candidate: str
    providers: list[str]
    baseline: list[NcuBaselineRow]
    unit: str
    notes: list[str]


_CLASS_CSS = {"win": "o-win", "parity": "o-parity", "headroom": "o-loss", "loss": "o-loss"}


def ncu_view(d: dict[str, Any]) -> NcuView:
    """Display values of an NCU summary dict (already display-ready strings, mostly)."""
    def txt(v: Any) -> str:
        return DASH if v is None or v == "" else str(v)
    conf = []
    for c in d.get("configuration") or []:
        title = txt(c.get("shape")) + (f" (launch {c.get('launch')})" if len(d.get("configuration") or []) > 1 else "")
        conf.append((title, [Fact(txt(p.get("name")), txt(p.get("value"))) for p in c.get("params") or []]))
    stages = [NcuStageRow(txt(st.get("kernel")), txt(st.get("shape")), txt(st.get("duration")),
                          txt(st.get("tensor_core")), txt(st.get("dram")), txt(st.get("achieved_occupancy")),
                          txt(st.get("bottleneck")), txt(st.get("key_issue"))) for st in d.get("stages") or []]
    b = d.get("bottleneck") or {}
    opps = [NcuOpportunity(txt(o.get("rank")), txt(o.get("title")), txt(o.get("estimated_gain")), txt(o.get("metric")),
                           txt(o.get("metric_value")), txt(o.get("advice"))) for o in d.get("opportunities") or []]
    base = d.get("baseline") or {}
    providers = [str(p) for p in base.get("providers") or []]
    rows = []
    for r in base.get("rows") or []:
        cells = []
        for p in providers:
            c = (r.get("baselines") or {}).get(p) or {}
            ok = c.get("status") == "ok"
            css = "t-ok" if ok else ("t-fail" if c.get("status") in ("failed", "oom", "incorrect") else "t-na")
            if p == r.get("best_baseline"):
                css += " t-best"
            cells.append(ProviderCell(txt(c.get("text")), css, "" if ok else txt(c.get("status")), sort_key(c.get("us"))))
        rows.append(NcuBaselineRow(txt(r.get("shape")), txt(r.get("model")), txt(r.get("stage")), txt(r.get("dtype")),
                                   bool(r.get("profiled")), txt(r.get("candidate")), cells, txt(r.get("best_baseline")),
                                   txt(r.get("speedup")), _CLASS_CSS.get(str(r.get("class")), "")))
    prov = d.get("provenance") or {}
    return NcuView(
        provenance=txt(prov.get("text")) if isinstance(prov, dict) else txt(prov),
        configuration=conf, stages=stages, bottleneck=txt(b.get("title")),
        bottleneck_css=re.sub(r"[^a-z0-9-]+", "-", str(b.get("kind", "")).lower()),
        root_cause=str(b.get("root_cause") or ""), locality=str(b.get("locality") or ""),
        opportunities=opps, candidate=txt(base.get("candidate")), providers=providers, baseline=rows,
        unit=txt(base.get("unit")), notes=[str(n) for n in d.get("notes") or []],
    )


@register_panel("ncu", "Profile summary (Nsight Compute)", 15)
def _ncu_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> NcuView | None:
    return ncu_view(k.ncu_summary) if k.ncu_summary else None


# ---- speed: per-shape speedups

@dataclass
class ProviderCell:
    """One provider's time (or status) on one shape."""

    text: str
    css: str
    title: str
    sort: str


@dataclass
class ShapeRowView:
    """One ledger shape in the per-shape table."""

    anchor: str
    args: str
    stage: str
    model: str
    dtype: str
    weight: str
    cells: list[ProviderCell]
    best_baseline: str
    speedup_text: str
    speedup_sort: str
    outcome_css: str
    failure: str
    failure_full: str


@dataclass
class SplitRow:
    """A geomean of a subset (per baseline, stage or model)."""

    name: str
    geomean_text: str
    n: int
    css: str


@dataclass
class SpeedView:
    """The per-shape speedups of the kernel's campaign, or why there are none."""

    status: str  # scored, untimed, error, none
    message: str
    facts: list[Fact]
    per_baseline: list[SplitRow]
    stage_split: list[SplitRow]
    model_split: list[SplitRow]
    chart: ChartView | None
    providers: list[str]
    shapes: list[ShapeRowView]
    notes: list[str]
    headline_text: str | None
    headline_note: str | None
    provenance: list[Fact]


def outcome_css(speedup: float | None, ctx: SiteContext) -> str:
    """CSS class of a speedup: win, parity or loss."""
    if speedup is None:
        return "o-none"
    if speedup >= ctx.win * (1 - 1e-9):
        return "o-win"
    if speedup >= ctx.headroom * (1 - 1e-9):
        return "o-parity"
    return "o-loss"


def _splits(split: dict[str, list], ctx: SiteContext) -> list[SplitRow]:
    return [SplitRow(name or "(none)", fmt_x(v[0]), v[1], outcome_css(v[0], ctx)) for name, v in split.items()]


def shape_rows(score: Any, ctx: SiteContext) -> list[ShapeRowView]:
    """The per-shape table: every provider's time and status, failures explicit."""
    out = []
    for i, sh in enumerate(score.shapes):
        cells = []
        for p in score.providers:
            r = sh.providers.get(p)
            if r is None:
                cells.append(ProviderCell(DASH, "t-none", "no row", ""))
                continue
            title = r.reason or ""
            if r.usable and r.p10_us and r.p90_us:
                title = f"p10 {r.p10_us:.2f} / p90 {r.p90_us:.2f} us" + (f"; {title}" if title else "")
            css = "t-ok" if r.usable else ("t-fail" if r.status in ("failed", "oom", "incorrect") else "t-na")
            if p == sh.best_baseline:
                css += " t-best"
            cells.append(ProviderCell(r.time_text, css, title, sort_key(r.median_us if r.usable else None)))
        out.append(ShapeRowView(
            anchor=f"s{i}",
            args=sh.args_text,
            stage=sh.stage or DASH,
            model=sh.model or DASH,
            dtype=sh.dtype or DASH,
            weight=fmt_num(sh.weight),
            cells=cells,
            best_baseline=sh.best_baseline or DASH,
            speedup_text=sh.speedup_text,
            speedup_sort=sort_key(sh.speedup),
            outcome_css=outcome_css(sh.speedup, ctx),
            failure=sh.failure_short or "",
            failure_full=sh.failure_reason or "",
        ))
    return out


@register_panel("speed", "Speed across shapes", 20)
def _speed_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> SpeedView:
    s = k.score
    empty = dict(facts=[], per_baseline=[], stage_split=[], model_split=[], chart=None, providers=[],
                 shapes=[], notes=[], provenance=[],
                 headline_text=k.headline.text if k.headline else None, headline_note=k.headline_note)
    if k.score_error:
        return SpeedView(status="error", message=f"The timing campaign could not be read: {k.score_error}", **empty)
    if s is None:
        return SpeedView(status="none", message="No timing campaign matches this kernel, so it has no verdict. "
                         "Map it to a campaign in kernel-atlas.toml ([kernels.<name>] campaign = ...).", **empty)
    if s.verdict not in VERDICTS:
        msg = f"The campaign {s.op} has a shape ledger ({s.n_shapes} shapes) but no benchmark results: nothing was timed."
        ledger = shape_rows(s, ctx)
        for r in ledger:  # nothing ran: the ledger alone (no provider cells, no failure)
            r.cells, r.failure, r.failure_full = [], "", ""
        empty["shapes"] = ledger
        return SpeedView(status="untimed", message=msg, **empty)
    facts = [
        Fact("verdict", f"{s.verdict} ({s.verdict_reason})", "fact.verdict"),
        Fact("geomean vs best", f"{fmt_x(s.geomean_vs_best)}, wins {s.wins} of {s.n_measured}", "fact.geomean"),
        Fact("weighted geomean", fmt_x(s.weighted_geomean_vs_best)
             + (f" over {s.n_weighted} weighted shapes" if s.n_weighted else " (no shape has a weight)"), "fact.weighted"),
        Fact("wins / parity / losses", f"{s.wins} / {s.parity} / {s.losses}", "fact.wpl"),
        Fact("shapes", f"{s.n_shapes} in the ledger, {s.n_measured} measured, {s.n_measurable} measurable", "fact.shapes"),
        Fact("candidate rows", f"{s.candidate_ok} ok, {s.candidate_failed} failed/oom, {s.candidate_incorrect} incorrect, "
             f"{s.candidate_unsupported} unsupported, {s.candidate_other} other, {s.candidate_missing} missing", "fact.coverage"),
        Fact("failures", f"{s.hard_failures} hard (candidate fails where a baseline runs), "
             f"{s.harness_failures} harness (every provider fails)", "fact.failures",
             css="bad" if s.hard_failures else ""),
        Fact("worst shape", s.worst_text, "fact.worst"),
        Fact("best shape", f"{s.best.speedup_text} vs {s.best.best_baseline} ({s.best.args_text})" if s.best else DASH,
             "fact.best"),
        Fact("noise (median p90/p10)", fmt_x(s.noise) + (" \u2014 verdict uncertain" if s.uncertain else ""), "fact.noise",
             css="warn" if s.uncertain else ""),
        Fact("reference provider", f"{s.reference}" + (" (best on every shape: reference only)" if s.reference_only else ""),
             "fact.reference"),
    ]
    measured = [sh for sh in s.shapes if sh.measured]
    chart = chart_view("shapes", charts.shape_speedups(measured, ctx.win, ctx.headroom),
                       "Speedup per shape (log scale)", "chart.shapes") if measured else None
    prov = [Fact(key, value) for key, value in sorted(s.provenance.items()) if value]
    return SpeedView(
        status="scored", message="", facts=facts,
        per_baseline=_splits(s.per_baseline, ctx),
        stage_split=_splits(s.stage_split, ctx),
        model_split=_splits(s.model_split, ctx),
        chart=chart, providers=list(s.providers), shapes=shape_rows(s, ctx), notes=list(s.notes),
        headline_text=k.headline.text if k.headline else None,
        headline_note=k.headline_note, provenance=prov,
    )


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
    hot = a.hot_lines(1)
    hottest_href = loc_href(hot[0].source_loc) if hot else ""

    stall_rows = [StallTypeRow(name, fmt_cycles(cyc), fmt_pct(cyc / total_stall if total_stall else 0),
                               round(100 * cyc / total_stall, 2) if total_stall else 0.0, charts.stall_css(name))
                  for name, cyc in a.stall_by_type.items()]
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
        facts.append(Fact("sampled waves", f"{stats['count']} (duration min {fmt_cycles(stats['min'])}, "
                          f"median {fmt_cycles(stats['median'])}, max {fmt_cycles(stats['max'])} cycles)", "fact.waves"))
    top_lines = [
        LineRow(rank=i, loc=_loc_text(ln.source_loc, common), title=ln.source_loc, href=loc_href(ln.source_loc),
                stall=fmt_cycles(ln.stall_cycles), share=fmt_pct(ln.share, 2), rate=fmt_pct(ln.stall_rate),
                dominant=ln.dominant_type)
        for i, ln in enumerate(a.hot_lines(TOP_K), 1)
    ]
    top_ins = [
        InsRow(rank=i, pc=ins.pc_index, href=f"#{anchor}-pc{ins.pc_index}", asm=ins.asm, type=ins.type,
               stall=fmt_cycles(ins.stall_cycles), share=fmt_pct(ins.stall_cycles / total_stall if total_stall else 0, 2),
               loc=_loc_text(ins.source_loc, common), loc_href=loc_href(ins.source_loc))
        for i, ins in enumerate(a.top_instructions(TOP_K), 1)
    ]
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
    )


@register_panel("captures", "Captures", 30)
def _captures_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[CaptureView] | str:
    if not k.captures:
        if k.bundle_rel is None:
            return "No profiling bundle for this kernel: there is no capture to show (timings only)."
        return "The bundle holds no ATT or Nsight Compute capture."
    return [capture_view(i, c, ctx) for i, c in enumerate(k.captures)]


# ---- compare captures

@dataclass
class CompareRow:
    """One compared quantity: capture A, capture B and the change (B - A)."""

    what: str
    a: str
    b: str
    change: str
    css: str = ""


@dataclass
class CompareView:
    """Two captures of the kernel side by side (``generator.analyze.compare``)."""

    title: str
    a_name: str
    b_name: str
    a_href: str
    b_href: str
    totals: list[CompareRow]
    stall_types: list[CompareRow]
    wave_states: list[CompareRow]
    lines: list[CompareRow]
    chart: ChartView | None
    notes: list[str]


def _pts(delta: float | None) -> str:
    """A share difference in percentage points: ``+5.0 pts``."""
    return DASH if delta is None else f"{delta * 100:+.1f} pts"


def _total_text(name: str, value: Any) -> str:
    if value is None:
        return DASH
    if name in ("stall_ratio", "mapped_fraction"):
        return fmt_pct(value)
    if isinstance(value, (int, float)) and abs(value) >= 1000:
        return fmt_cycles(value)
    return fmt_num(value)


def compare_view(i: int, title: str, cmp: dict[str, Any], hrefs: dict[str, str]) -> CompareView:
    """Display values of one ``CaptureComparison.to_json()``."""
    a, b = cmp.get("a", {}), cmp.get("b", {})
    a_name = (a.get("label", "") + " \u00b7 " if a.get("label") else "") + str(a.get("capture", "A"))
    b_name = (b.get("label", "") + " \u00b7 " if b.get("label") else "") + str(b.get("capture", "B"))
    totals = []
    for t in cmp.get("totals", []):
        name = str(t.get("name", ""))
        d = t.get("delta")
        change = DASH if d is None else (_pts(d) if name in ("stall_ratio", "mapped_fraction")
                                          else ("+" if d > 0 else "") + _total_text(name, d))
        totals.append(CompareRow(name.replace("_", " "), _total_text(name, t.get("a")), _total_text(name, t.get("b")), change))
    stalls = [CompareRow(str(r["type"]), fmt_pct(r.get("a_share")), fmt_pct(r.get("b_share")), _pts(r.get("delta")),
                         "up" if (r.get("delta") or 0) > 0.005 else "down" if (r.get("delta") or 0) < -0.005 else "")
              for r in cmp.get("stall_types", [])]
    waves = [CompareRow(str(r["state"]), fmt_pct(r.get("a_share")), fmt_pct(r.get("b_share")), _pts(r.get("delta")))
             for r in (cmp.get("wave_states") or [])]
    lines = []
    for r in cmp.get("lines", []):
        def side(rank: Any, share: Any) -> str:
            return DASH if rank is None else f"#{rank} \u00b7 {fmt_pct(share)}"
        lines.append(CompareRow(str(r.get("source_loc", "")), side(r.get("a_rank"), r.get("a_share")),
                                side(r.get("b_rank"), r.get("b_share")), _pts(r.get("delta"))))
    shares = {r["type"]: [r.get("a_share"), r.get("b_share")] for r in cmp.get("stall_types", [])}
    chart = chart_view(f"compare-{i}", charts.compare_shares(shares, a_name, b_name),
                       "Stall-type shares, A and B", "chart.compare") if shares else None
    return CompareView(title=title, a_name=a_name, b_name=b_name, a_href=hrefs.get(str(a.get("path", "")), ""),
                       b_href=hrefs.get(str(b.get("path", "")), ""), totals=totals, stall_types=stalls,
                       wave_states=waves, lines=lines, chart=chart, notes=[str(n) for n in cmp.get("notes", [])])


@register_panel("compare", "Captures side by side", 40)
def _compare_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[CompareView] | None:
    if not k.compare:
        return None
    hrefs = {c.rel: f"#c{i}" for i, c in enumerate(k.captures)}
    return [compare_view(i, str(item.get("title", "")), item.get("comparison", {}), hrefs)
            for i, item in enumerate(k.compare)]


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


@dataclass
class RooflineView:
    chart: ChartView | None
    facts: list[Fact]
    points: list[list[str]]
    notes: list[str]


@register_panel("roofline", "Roofline", 55)
def _roofline_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> RooflineView | None:
    r = k.roofline
    if not r or not r.get("points"):
        return None
    facts = []
    dev = r.get("device") or {}
    if isinstance(dev, dict) and dev.get("name"):
        facts.append(Fact("device", f"{dev.get('name')} ({dev.get('hbm_tbs')} TB/s HBM)"))
    for prec, ridge in (r.get("ridges") or {}).items():
        facts.append(Fact(f"ridge point ({prec})", f"{ridge:.1f} FLOP/byte"))
    counts = r.get("counts")
    if isinstance(counts, dict):
        facts.append(Fact("points", ", ".join(f"{v} {key}" for key, v in counts.items() if v) or DASH))
    pts = [[str(p.get("provider", "")), str(p.get("args", "")), f"{p.get('ai', 0):.3g}",
            f"{p.get('tflops', 0):.3g}", fmt_pct(p.get("fraction_of_roof")), str(p.get("bound", ""))]
           for p in r["points"]]
    return RooflineView(chart_view("roofline", charts.roofline(r), "Roofline: throughput against arithmetic intensity",
                                   "chart.roofline"), facts, pts, [str(n) for n in r.get("notes") or []])


# ---- advice

@dataclass
class Link:
    text: str
    href: str


@dataclass
class EvidenceItem:
    """One piece of a finding's evidence: a label, a text and links to ISA rows."""

    label: str
    text: str
    links: list[Link]


@dataclass
class FindingView:
    title: str
    detector: str
    share: str
    priority: str
    suggestion: str
    summary: str
    evidence: list[EvidenceItem]
    flagged: bool


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def evidence_items(ev: Any, anchor: str | None, limit: int = 12) -> list[EvidenceItem]:
    """Readable evidence: scalars and short lists inline, PCs as links, nested records counted."""
    if not isinstance(ev, dict):
        return [EvidenceItem("", str(ev), [])] if ev else []
    out = []
    for key, v in ev.items():
        if key == "summary":
            continue
        label = str(key).replace("_", " ")
        is_pc = str(key).endswith(("pc", "pcs", "pc_index"))
        if is_pc and anchor and isinstance(v, int) and not isinstance(v, bool):
            out.append(EvidenceItem(label, "", [Link(str(v), f"#{anchor}-pc{v}")]))
        elif is_pc and anchor and isinstance(v, list) and all(isinstance(x, int) for x in v):
            more = f"+{len(v) - limit} more" if len(v) > limit else ""
            out.append(EvidenceItem(label, more, [Link(str(x), f"#{anchor}-pc{x}") for x in v[:limit]]))
        elif isinstance(v, (str, int, float, bool)) or v is None:
            out.append(EvidenceItem(label, DASH if v is None else _scalar(v), []))
        elif isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v):
            text = ", ".join(_scalar(x) for x in v[:limit]) + (f" (+{len(v) - limit} more)" if len(v) > limit else "")
            out.append(EvidenceItem(label, text, []))
        elif isinstance(v, dict) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v.values()):
            out.append(EvidenceItem(label, ", ".join(f"{k_}={_scalar(x)}" for k_, x in v.items()), []))
        elif isinstance(v, list):
            out.append(EvidenceItem(label, f"{len(v)} records (in the JSON)", []))
    return out


def finding_view(f: dict[str, Any], anchor: str | None = None) -> FindingView:
    """Display values of one advice finding (``Finding.to_json()``); PCs link into capture ``anchor``."""
    ev = f.get("evidence")
    share = f.get("stall_share")
    return FindingView(
        title=str(f.get("title", "")),
        detector=str(f.get("detector", "")),
        share=fmt_pct(share) if isinstance(share, (int, float)) and share > 0 else "",
        priority=str(f.get("priority", "")),
        suggestion=str(f.get("suggestion", "")),
        summary=str(ev.get("summary", "")) if isinstance(ev, dict) else "",
        evidence=evidence_items(ev, anchor),
        flagged=bool(f.get("flagged")),
    )


@dataclass
class AdviceView:
    capture: str
    href: str
    findings: list[FindingView]


@register_panel("advice", "Optimization plan", 60)
def _advice_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[AdviceView] | str | None:
    if not any(c.analysis for c in k.captures):
        return None
    if all(c.findings is None for c in k.captures if c.analysis):
        return "The advice stage is not available in this build, so there is no ranked plan."
    order = sorted(range(len(k.captures)), key=lambda i: not k.captures[i].is_primary)
    out = []
    for i in order:
        c = k.captures[i]
        if c.analysis is None or c.findings is None:
            continue
        title = (c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}") \
            + (" (primary)" if c.is_primary else "")
        out.append(AdviceView(title, f"#c{i}", [finding_view(f, f"c{i}") for f in c.findings]))
    return out


# ---- report and data

@register_panel("report", "REPORT.md", 70)
def _report_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> Markup | None:
    return Markup(k.report_html) if k.report_html else None


@dataclass
class DataView:
    links: list[Fact]
    missing: list[str]
    broken: list[str]
    notes: list[str]


@register_panel("data", "Data and provenance", 90)
def _data_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> DataView:
    links = [
        Fact("this page as JSON", f"api/kernels/{k.slug}.json", "data.json", href=f"../../api/kernels/{k.slug}.json"),
        Fact("badge", f"badges/{k.slug}.svg", "data.badge", href=f"../../badges/{k.slug}.svg"),
        Fact("pull-request snippet", f"pr/{k.slug}.md", "data.pr", href=f"../../pr/{k.slug}.md"),
        Fact("all kernels as JSON", "api/index.json", "data.index", href="../../api/index.json"),
    ]
    if k.bundle_rel:
        links.append(Fact("bundle in the sweep", k.bundle_rel, "data.bundle"))
    if k.score is not None and k.score.path:
        links.append(Fact("campaign in the sweep", k.score.path, "data.campaign"))
    return DataView(links, list(k.missing), list(k.broken), list(k.notes))


# ---------------------------------------------------------------- kernel page

@dataclass
class KernelPage:
    """One kernel's page (``kernels/<slug>/index.html``)."""

    slug: str
    root: str
    site_title: str
    row: IndexRow
    verdict_reason: str
    flags: list[str]
    nav: list[NavItem]
    panels: list[PanelView]
    pr_snippet: str
    prev: NavItem | None
    next: NavItem | None
    candidate: str
    history_href: str = ""

    @property
    def history_nav(self) -> bool:
        return bool(self.history_href)


def pr_snippet(row: IndexRow, base_url: str) -> str:
    """The Markdown a pull request pastes: badge, link, verdict and wins k of n."""
    base = base_url.rstrip("/") + "/" if base_url else ""
    page, badge = f"{base}{row.permalink}", f"{base}{row.badge}"
    name = md_text(row.name)
    if row.verdict in VERDICTS:
        words = f"**{row.verdict}**, geomean {row.geomean_text} vs best, wins {row.wins_text}"
        if row.hard_failures:
            words += f", {row.hard_failures} hard failures"
    else:
        words = f"**{row.verdict_label.lower()}**"
    return f"[![{name}: {row.verdict_label}]({badge})]({page}) [{name}]({page}): {words}"


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
            item.children = [NavItem(cv.title + (" (primary)" if cv.is_primary else ""), f"#{cv.anchor}")
                             for cv in pv.data]
        nav.append(item)
    s = k.score
    return KernelPage(
        slug=k.slug,
        root="../../",
        site_title=ctx.title,
        row=row,
        verdict_reason=(s.verdict_reason if s is not None else
                        (f"campaign unreadable: {k.score_error}" if k.score_error else "")),
        flags=list(row.flags),
        nav=nav,
        panels=panels,
        pr_snippet=pr_snippet(row, ctx.base_url),
        prev=NavItem(k.prev[1], f"../{k.prev[0]}/") if k.prev else None,
        next=NavItem(k.next[1], f"../{k.next[0]}/") if k.next else None,
        candidate=ctx.candidate,
        history_href=f"../../history.html#h-{k.slug}" if ctx.history else "",
    )


# ---------------------------------------------------------------- history page

@dataclass
class HistoryChart:
    """One kernel's geomean over the recorded sweeps."""

    slug: str
    anchor: str
    name: str
    href: str
    chart: ChartView
    points: int
    regression: str


@dataclass
class HistoryPage:
    """``history.html``: per kernel the geomean over sweeps with its noise band (``generator.sweeps.history``)."""

    title: str
    site_title: str
    root: str
    labels: list[str]
    charts: list[HistoryChart]
    regressions: int
    history_nav: bool = True


def regression_text(mark: dict[str, Any]) -> str:
    """``regressed -16.7% since 2026-05-01 (at abc123)``, ``(unconfirmed)`` when the last point alone."""
    text = f"regressed {(mark['ratio'] - 1) * 100:+.1f}%"
    if mark.get("from"):
        text += f" since {mark['from']}"
    if mark.get("commit"):
        text += f" (at {mark['commit']})"
    if not mark.get("confirmed", True):
        text += ", unconfirmed"
    return text


def history_page(rows: list[IndexRow], figures: dict[str, dict[str, Any]], marks: dict[str, dict[str, Any]],
                 labels: list[str], ctx: SiteContext) -> HistoryPage:
    """The history page, kernels in overview order (kernels no longer in the sweep last)."""
    charts_: list[HistoryChart] = []
    seen = set()
    names = {r.slug: r for r in rows}
    for slug in [r.slug for r in rows] + sorted(s for s in figures if s not in names):
        fig = figures.get(slug)
        if fig is None or slug in seen:
            continue
        seen.add(slug)
        row = names.get(slug)
        n = len(fig["data"][2]["x"]) if len(fig.get("data", [])) > 2 else 0
        layout = {k_: v for k_, v in fig.get("layout", {}).items() if k_ != "title"}  # the section heading names it
        layout.setdefault("height", 260)
        layout["margin"] = {"l": 60, "r": 20, "t": 10, "b": 50}
        fig = {**fig, "layout": layout}
        charts_.append(HistoryChart(slug=slug, anchor=f"h-{slug}", name=row.name if row else slug,
                                    href=row.href if row else "", points=n,
                                    chart=chart_view(f"history-{slug}", fig),
                                    regression=regression_text(marks[slug]) if slug in marks else ""))
    return HistoryPage(title=f"History \u00b7 {ctx.title}", site_title=ctx.title, root="", labels=list(labels),
                       charts=charts_, regressions=len(marks))


# ---------------------------------------------------------------- machine-readable kernel record

def capture_json(c: CaptureData) -> dict[str, Any]:
    """One capture in ``api/kernels/<slug>.json``: the analysis plus every line and instruction."""
    out: dict[str, Any] = {"label": c.label, "name": c.name, "path": c.rel, "status": c.status,
                           "primary": c.is_primary, "problem": c.problem}
    a = c.analysis
    if a is None:
        return out
    out["analysis"] = a.to_json(TOP_K)
    out["lines"] = [{"source_loc": ln.source_loc, "stall_cycles": ln.stall_cycles, "total_cycles": ln.total_cycles,
                     "share": ln.share, "stall_rate": ln.stall_rate, "dominant_type": ln.dominant_type,
                     "stall_by_type": dict(ln.stall_by_type), "pc_indices": list(ln.pc_indices)} for ln in a.lines]
    locs: dict[str, int] = {}
    for i in a.instructions:
        locs.setdefault(i.source_loc, len(locs))
    out["locs"] = list(locs)
    out["isa_columns"] = ["pc_index", "asm", "type", "loc", "exec_count", "total_cycles", "stall_cycles",
                          "issue_cycles"]  # loc: position in "locs"
    out["isa"] = [[i.pc_index, i.asm, i.type, locs[i.source_loc], i.exec_count, i.total_cycles, i.stall_cycles,
                   i.issue_cycles] for i in a.instructions]
    if c.timeline is not None:
        t = c.timeline
        out["timeline"] = {"wave": t.wave.file, "begin": t.wave.begin, "end": t.wave.end,
                           "n_instructions": t.n_instructions, "bin_cycles": t.bin_cycles, "starts": t.starts,
                           "issue": t.issue, "stall": t.stall}
    if c.findings is not None:
        out["advice"] = c.findings
    if c.mfma:
        out["mfma"] = {str(pc): note for pc, note in sorted(c.mfma.items())}
    return out


def kernel_json(k: KernelData, row: IndexRow, format_version: int) -> dict[str, Any]:
    """``api/kernels/<slug>.json``: everything the page shows (see ``generator.site.build``)."""
    return {
        "format_version": format_version,
        "kernel": row.api(),
        "score": k.score.to_json() if k.score is not None else None,
        "score_error": k.score_error,
        "headline": k.headline.to_json() if k.headline is not None else None,
        "headline_note": k.headline_note,
        "bundle": k.bundle_rel,
        "captures": [capture_json(c) for c in k.captures],
        "counters": k.counters,
        "counter_reading": list(k.counter_reading),
        "runstats": k.runstats,
        "roofline": k.roofline,
        "compare": k.compare,
        "why_not_winning": k.why_not,
        "ncu_summary": k.ncu_summary,
        "report_html": k.report_html,
        "missing": list(k.missing),
        "broken": list(k.broken),
        "notes": list(k.notes),
    }


# ---------------------------------------------------------------- badge and PR snippet

@dataclass
class BadgeView:
    """The verdict badge (``badges/<slug>.svg``): label and value boxes, sizes in px."""

    label: str
    value: str
    title: str
    color: str
    width: int
    left: int
    right: int
    left_x: float
    right_x: float


def _text_px(text: str) -> int:
    """Approximate width of 11px Verdana text (wide glyphs count double)."""
    return int(sum(7 if ord(ch) < 0x2E80 else 12 for ch in text) + 10)


def badge_view(row: IndexRow) -> BadgeView:
    """Badge of one kernel: verdict on the left, geomean and wins on the right."""
    label = row.verdict_label
    if row.geomean is not None:
        value = f"{row.geomean_text} \u00b7 {row.wins_text}"
    else:
        value = "no data" if row.verdict is None else label.lower()
        label = "verdict"
    color = charts.VERDICT_COLORS.get(row.verdict or "", "#8c959f")
    left, right = _text_px(label), _text_px(value)
    return BadgeView(label=label, value=value, title=f"{row.name}: {row.verdict_label} {row.geomean_text}",
                     color=color, width=left + right, left=left, right=right,
                     left_x=left / 2, right_x=left + right / 2)


@dataclass
class PrView:
    """``pr/<slug>.md``: the snippet and a small table, every value inert Markdown."""

    snippet: str
    rows: list[tuple[str, str]]


def pr_view(k: KernelData, row: IndexRow, ctx: SiteContext) -> PrView:
    """The pull-request Markdown of one kernel."""
    rows = [("verdict", md_text(row.verdict_label)), ("geomean vs best", md_text(row.geomean_text)),
            ("wins", md_text(row.wins_text)), ("weighted geomean", md_text(row.weighted_text)),
            ("failures", md_text(row.failures_text)), ("best baseline", md_text(row.best_baseline_text))]
    if k.score is not None and k.score.worst is not None:
        rows.append(("worst shape", md_text(k.score.worst_text)))
    if row.flags:
        rows.append(("flags", md_text("; ".join(row.flags))))
    if row.top_stall:
        rows.append(("top stall type", md_text(f"{row.top_stall} (stall ratio {row.stall_ratio_text})")))
    if row.occupancy is not None:
        rows.append(("occupancy", md_text(f"{row.occupancy_text}, limited by {row.limiter_text}")))
    if row.headline_note:
        rows.append(("headline pair", md_text(row.headline_note)))
    for m in row.missing:
        rows.append(("missing", md_text(m)))
    return PrView(snippet=pr_snippet(row, ctx.base_url), rows=rows)
