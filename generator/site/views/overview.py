"""The overview page (index.html): tallies, categories and the kernels' rows (``views.index_row``)."""

from __future__ import annotations

from dataclasses import field, fields
from typing import Any

from generator.model import record
from generator.site import charts, i18n
from generator.site.views import coverage as coverage_views
from generator.site.views import next_step
from generator.site.views import measurement
from generator.site.views import overview_head
from generator.site.views.overview_chart import (  # noqa: F401  (ChartView, chart_view: imported from here by the other views)
    ChartView, Disagreement, chart_view, disagreements, off_chart_reason,
)
from generator.site.views.base import READING_SHOWN, SiteContext, UNCATEGORIZED, VERDICTS, verdict_css
from generator.site.views.index_row import IndexRow, index_row  # noqa: F401  (index_row: imported from here by the build)


@record
class Tally:
    """Kernels per verdict; tallies add up with ``+`` (coverage's ``Numbers``)."""

    win: int = 0
    parity: int = 0
    headroom: int = 0
    blocked: int = 0
    untimed: int = 0
    unscored: int = 0
    broken: int = 0  # a campaign that could not be read (not "no campaign")
    superseded: int = 0  # a campaign a newer one of the same op supersedes: shown, not counted as a verdict

    @classmethod
    def of(cls, verdict: str | None, broken: bool = False, superseded: bool = False) -> Tally:
        if superseded:
            return cls(superseded=1)
        key = {"WIN": "win", "PARITY": "parity", "HEADROOM": "headroom", "BLOCKED": "blocked",
               "UNTIMED": "untimed"}.get(verdict or "", "broken" if broken else "unscored")
        return cls(**{key: 1})

    def __add__(self, other: Tally) -> Tally:
        return Tally(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    @property
    def scored(self) -> int:
        return self.win + self.parity + self.headroom + self.blocked

    def text(self, lang: str = "en") -> str:
        """``2 WIN, 5 HEADROOM``: the non-zero verdict counts (``lang`` "zh": in 中文)."""
        parts = [f"{getattr(self, k)} {k.upper()}" for k in ("win", "parity", "headroom", "blocked")
                 if getattr(self, k)]
        if self.untimed:
            parts.append(i18n.text(lang, "ov.tally.untimed", n=self.untimed))
        if self.unscored:
            parts.append(i18n.text(lang, "ov.tally.nocampaign", n=self.unscored))
        if self.broken:
            parts.append(i18n.text(lang, "ov.tally.broken", n=self.broken))
        if self.superseded:
            parts.append(i18n.text(lang, "ov.tally.superseded", n=self.superseded))
        return ("，" if lang == "zh" else ", ").join(parts) or i18n.text(lang, "ov.tally.none")

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}



@record
class TallyCard:
    """One verdict count on the overview."""

    label: str
    count: int
    css: str
    filter: str  # value of the verdict filter it selects
    i18n: str
    hint: str = ""
    hint_zh: str = ""  # issue 13 (5)


@record
class CategoryGroup:
    """Kernels of one category on the overview."""

    name: str
    rows: list[IndexRow]
    tally_text: str
    tally_zh: str = ""
    label: str = ""  # the name as its owners write it


@record
class Fact:
    """A labelled value in a definition list. The label is translated by its key ``i18n`` (none:
    a data label such as a provenance key); the value is data (``translate="no"``) unless ``zh``
    gives its 中文."""

    label: str
    value: str
    i18n: str = ""
    href: str = ""
    css: str = ""
    zh: str = ""
    label_zh: str = ""  # a label with data in it (no key): its 中文

    @classmethod
    def of(cls, key: str, value_key: str, css: str = "", href: str = "", **kw) -> Fact:
        """A fact whose label is ``key`` and whose value is the catalogue's ``value_key`` filled with ``kw``."""
        return cls(i18n.en(key), i18n.en(value_key, **kw), key, href=href, css=css,
                   zh=i18n.marked("zh", value_key, **kw))


@record
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
    not_on_chart: list[tuple[str, str, str]]  # (kernel, why, why in 中文)
    sweep_reading: list[dict[str, Any]]
    sweep_reading_more: list[dict[str, Any]]
    missing_stages: list[str]
    notes: list[str]
    n_kernels: int
    history_nav: bool = False
    severity_filters: list[tuple[str, str]] = field(default_factory=list)  # (value, label)
    headline_chart: ChartView | None = None
    not_on_headline_chart: list[str] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    coverage: coverage_views.CoverageView | None = None
    severity_help: str = ""
    severity_help_zh: str = ""
    verdict_filter_keys: dict[str, str] = field(default_factory=dict)  # issue 13 (5): value -> catalogue key
    measured: list[measurement.MeasuredFact] = field(default_factory=list)  # how it was measured
    category_options: list[tuple[str, str]] = field(default_factory=list)  # (value, as its owners write it)
    open_markers: bool = False  # the chart draws a flagged verdict open: its caption says what that means
    findings: Any = None  # views.findings.FindingsLink when the sweep has a FINDINGS.md
    head: overview_head.OverviewHead | None = None  # the first screen (issue 34)


def overview_page(rows: list[IndexRow], ctx: SiteContext, provenance: list[Fact], build_date: str,
                  sweep_reading: list[dict[str, Any]] | None = None, notes: list[str] | None = None) -> OverviewPage:
    """The overview page from every kernel's row (rows already in display order)."""
    tally = sum((Tally.of(r.verdict, r.campaign_broken, bool(r.superseded_by)) for r in rows), Tally())
    hints = {"WIN": f"verdict ratio \u2265 {ctx.win:g}x", "PARITY": f"{ctx.headroom:g}x \u2264 verdict ratio < {ctx.win:g}x",
             "HEADROOM": f"verdict ratio < {ctx.headroom:g}x",
             "BLOCKED": "does not build, run or verify, or no like-for-like baseline"}
    nums = {"win": f"{ctx.win:g}", "headroom": f"{ctx.headroom:g}"}
    cards = [TallyCard(v, getattr(tally, v.lower()), verdict_css(v), v, "", hints[v],
                       i18n.zh(f"hint.{v.lower()}", **nums)) for v in VERDICTS]
    if tally.untimed:
        cards.append(TallyCard("NO TIMINGS", tally.untimed, "v-none", "UNTIMED", "verdict.untimed", "ledger only",
                               i18n.zh("hint.untimed")))
    if tally.unscored:
        cards.append(TallyCard("NO CAMPAIGN", tally.unscored, "v-none", "NONE", "verdict.none", "capture only",
                               i18n.zh("hint.none")))
    if tally.broken:
        cards.append(TallyCard("BROKEN", tally.broken, "v-none", "BROKEN", "verdict.broken", "campaign unreadable",
                               i18n.zh("hint.broken")))
    if tally.superseded:
        cards.append(TallyCard("SUPERSEDED", tally.superseded, "v-none", "SUPERSEDED", "verdict.superseded",
                               "a newer campaign of the op", i18n.zh("hint.superseded")))
    by_cat: dict[str, list[IndexRow]] = {}
    for r in rows:
        by_cat.setdefault(r.category, []).append(r)
    cats = sorted(by_cat, key=lambda c: (c == UNCATEGORIZED, c))
    tallies = {c: sum((Tally.of(r.verdict, r.campaign_broken, bool(r.superseded_by)) for r in by_cat[c]), Tally())
               for c in cats}
    labels = {c: ctx.category_labels.get(c, c) for c in cats}
    groups = [CategoryGroup(c, by_cat[c], tallies[c].text(), tallies[c].text("zh"), labels[c]) for c in cats]
    plotted = sorted((r for r in rows if r.ratio is not None), key=lambda r: (-r.ratio, r.name.lower()))
    not_on_chart = [(r.name, *off_chart_reason(r)) for r in rows if r.ratio is None]
    chart = chart_view("overview-speedups", charts.speedup_overview(plotted, ctx.win, ctx.headroom),
                       "The ratio each verdict rests on, per kernel", "chart.overview") if plotted else None
    by_head = sorted((r for r in rows if r.headline_speedup is not None),
                     key=lambda r: (-r.headline_speedup, r.name.lower()))
    headline_chart = chart_view("overview-headline", charts.headline_overview(by_head, ctx.win, ctx.headroom),
                                "Headline pair of the profiling sweep, per kernel", "chart.headline") if by_head else None
    not_on_headline = [r.name for r in rows if r.headline_speedup is None]
    sev_help = {"near": f"{ctx.severity_near:g}", "tune": f"{ctx.severity_tune:g}", "section": "[severity]",
                "file": "kernel-atlas.toml", "parity": f"{ctx.headroom:g}"}
    filters = [("", "all verdicts")] + [(v, v) for v in VERDICTS] + [("UNTIMED", "no timings"), ("NONE", "no campaign")]
    filters += [("BROKEN", "broken campaign")] if tally.broken else []
    filter_keys = {"": "filter.allverdicts", "UNTIMED": "filter.untimed", "NONE": "filter.none",
                   "BROKEN": "filter.broken"}  # issue 13 (5)
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
        verdict_filter_keys=filter_keys,
        chart=chart,
        not_on_chart=not_on_chart,
        sweep_reading=list(sweep_reading or [])[:READING_SHOWN],
        sweep_reading_more=list(sweep_reading or [])[READING_SHOWN:],
        missing_stages=list(ctx.missing_stages),
        notes=list(notes or []),
        n_kernels=len(rows),
        history_nav=ctx.history,
        severity_filters=[("", "any severity")] + [(v, v) for v in next_step.SEVERITIES],
        headline_chart=headline_chart,
        not_on_headline_chart=not_on_headline,
        disagreements=disagreements(rows, (ctx.headroom, ctx.win)),
        coverage=coverage_views.coverage_view(rows, ctx),
        severity_help=i18n.en("sev.help", **sev_help),
        severity_help_zh=i18n.marked("zh", "sev.help", **sev_help),
        measured=measurement.measurement_view(rows, ctx.candidate),
        open_markers=any(charts.drawn_open(r) for r in plotted),
        category_options=[(c, labels[c]) for c in cats],
        head=overview_head.overview_head(rows, ctx.candidate, list(sweep_reading or [])),
    )


def order_rows(rows: list[IndexRow]) -> list[IndexRow]:
    """Display order: by category, then verdict (best news first), then the verdict ratio, then name."""
    return sorted(rows, key=lambda r: (r.category == UNCATEGORIZED, r.category, r.verdict_rank,
                                       -(r.ratio or 0.0), r.name.lower(), r.slug))
