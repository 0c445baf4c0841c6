"""The history page: what the latest sweep changed (``views.latest``), then every kernel of every
recorded sweep: its verdicts over the sweeps, its verdict ratio (with its interval when known) and its
launch overhead, and the chart of the ratio when it has one."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from markupsafe import Markup

from generator.analyze.message import Sentence, msg, sentence
from generator.model import record
from generator.site import charts, i18n
from generator.site.wording import Said, said
from generator.site.views.base import SiteContext
from generator.site.views.latest import WHO_KEYS, Lead
from generator.sweeps.moves import moved_facts
from generator.words import ratio_text
from generator.site.views.overview import ChartView, chart_view
from generator.site.views.index_row import IndexRow


# ---------------------------------------------------------------- history page

@record
class StripCell:
    """One kernel in one sweep: its verdict word, its verdict ratio (and interval), its launch overhead."""

    label: str
    verdict: str  # "—" when the kernel has none there
    css: str  # verdict-<word>, for the colour
    ratio: str = ""  # data: ``1.10x``, ``1.10x [1.02x, 1.19x]``
    launch: Sentence | str = ""  # ``launch overhead 5.2 µs (12 shapes)``
    who: list[str] = field(default_factory=list)  # who moved against the sweep before (catalogue keys)
    facts: list[Sentence] = field(default_factory=list)  # what changed, as ``diff`` finds it (issue 40)


@record
class HistoryChart:
    """One kernel over the recorded sweeps: its strip of verdicts and, when it has a ratio, its chart."""

    slug: str
    anchor: str
    name: str
    href: str
    chart: ChartView | None
    points: int
    regression: str
    regression_zh: str = ""
    strip: list[StripCell] = field(default_factory=list)

    @property
    def points_said(self) -> Said:
        """``1 sweep``, ``3 sweeps`` (the catalogue's plural form)."""
        return said(msg("history.points", n=self.points))

    @property
    def launch(self) -> bool:
        """Some sweep gives the kernel's launch overhead."""
        return any(c.launch for c in self.strip)

    @property
    def moved(self) -> bool:
        """Some sweep says who moved against the one before."""
        return any(c.who or c.facts for c in self.strip)


@record
class HistoryPage:
    """``history.html``: per kernel the geomean over sweeps with its noise band (``generator.sweeps.history``)."""

    title: str
    site_title: str
    root: str
    labels: list[str]
    charts: list[HistoryChart]
    regressions: int
    history_nav: bool = True
    lead: Lead | None = None  # the latest sweep against the one before

    @property
    def regressions_said(self) -> Said:
        """``1 kernel regressed at its latest step``, ``3 kernels regressed at their latest step``."""
        return said(msg("history.regressed", n=self.regressions))


def regression_text(mark: dict[str, Any]) -> str:
    """``regressed -16.7% (WIN → HEADROOM) since 2026-05-01 (at abc123)``, ``, unconfirmed`` when the last point alone."""
    text = "regressed" + (f" {(mark['ratio'] - 1) * 100:+.1f}%" if mark.get("ratio") is not None else "")
    if mark.get("verdict"):
        text += f" ({mark['verdict']})"
    if mark.get("from"):
        text += f" since {mark['from']}"
    if mark.get("commit"):
        text += f" (at {mark['commit']})"
    if not mark.get("confirmed", True):
        text += ", unconfirmed"
    return text


def regression_zh(mark: dict[str, Any]) -> Markup:
    """The 中文 of :func:`regression_text` (the same values, marked as data)."""
    data = Markup('<span translate="no">{}</span>').format
    text = Markup(i18n.zh("hist.regressed"))
    if mark.get("ratio") is not None:
        text += " " + data(f"{(mark['ratio'] - 1) * 100:+.1f}%")
    if mark.get("verdict"):
        text += Markup("（{}）").format(data(mark["verdict"]))
    if mark.get("from"):
        text += "，" + i18n.marked("zh", "hist.since", date=mark["from"])
    if mark.get("commit"):
        text += i18n.marked("zh", "hist.at", commit=mark["commit"])
    if not mark.get("confirmed", True):
        text += "，" + i18n.zh("hist.unconfirmed")
    return text


#: The history figure's trace names (``sweeps.history_series.history_chart_data``) and their keys.
TRACE_KEYS = {"noise band": "hist.trace.noise", "verdict ratio": "hist.trace.geomean", "regression": "hist.trace.regression"}


def figure_zh(fig: dict[str, Any]) -> dict[str, Any]:
    """The 中文 overrides of one history figure (``charts``' convention): axis titles, trace names,
    and each point's hover text line by line (sweep labels, commits and dates stay as they are)."""
    traces = {}
    for i, tr in enumerate(fig.get("data", [])):
        over: dict[str, Any] = {}
        if tr.get("name") in TRACE_KEYS:
            over["name"] = i18n.zh(TRACE_KEYS[tr["name"]])
        if isinstance(tr.get("text_lines"), list):
            over["text"] = ["<br>".join(i18n.zh_said_text(line) if isinstance(line, Sentence) else line for line in lines)
                            for lines in tr["text_lines"]]
        if over:
            traces[str(i)] = over
    return {"layout": {"xaxis.title.text": i18n.zh("hist.axis.sweep"), "yaxis.title.text": i18n.zh("hist.axis.geomean")},
            "traces": traces}


def strip_cells(points: list[Any], cuts: tuple[float, ...] = ()) -> list[StripCell]:
    """A kernel's verdict in each sweep it is in (``history_series.HistoryPoint``), with its ratio, interval
    and launch overhead where the sweep has them."""
    cells = []
    for p in points:
        ratio = ratio_text(p.geomean, cuts, none="")  # never rounded across a threshold beside its verdict
        if ratio and p.ci:
            ratio += f" [{p.ci[0]:.2f}x, {p.ci[1]:.2f}x]"
        launch = (sentence("msg.hist.launch.cell", us=f"{p.launch_overhead[0]:.1f}", n=p.launch_overhead[1])
                  if p.launch_overhead else "")
        moved = getattr(p, "moved", None) or {}
        cells.append(StripCell(label=p.label, verdict=p.verdict or "—", css=f"verdict-{(p.verdict or 'none').lower()}",
                               ratio=ratio, launch=launch, who=[WHO_KEYS[w] for w in moved.get("who", []) if w in WHO_KEYS],
                               facts=moved_facts(moved)))
    return cells


def history_page(rows: list[IndexRow], figures: dict[str, dict[str, Any]], marks: dict[str, dict[str, Any]],
                 labels: list[str], ctx: SiteContext, series: dict[str, list[Any]] | None = None,
                 lead: Lead | None = None) -> HistoryPage:
    """The history page: the lead, then every kernel of every sweep in overview order (kernels no longer
    in the sweep last); ``series`` (``history_series.load_series`` with the current sweep) gives each its
    strip, ``figures`` the chart of those with a ratio in some sweep."""
    charts_: list[HistoryChart] = []
    seen = set()
    names = {r.slug: r for r in rows}
    series = series if series is not None else {}
    for slug in [r.slug for r in rows] + sorted(s for s in set(figures) | set(series) if s not in names):
        fig = figures.get(slug)
        if (fig is None and slug not in series) or slug in seen:
            continue
        seen.add(slug)
        row = names.get(slug)
        points = series.get(slug, [])
        chart = None
        if fig is not None:
            layout = {k_: v for k_, v in fig.get("layout", {}).items() if k_ != "title"}  # the section heading names it
            layout.setdefault("height", 260)
            layout["margin"] = {"l": 60, "r": 20, "t": 10, "b": 50}
            data = [{k_: v for k_, v in tr.items() if k_ != "text_lines"} for tr in fig.get("data", [])]
            chart = chart_view(f"history-{slug}", {**fig, "data": data, "layout": layout, "zh": figure_zh(fig)})
        n = len(fig["data"][2]["x"]) if fig is not None and len(fig.get("data", [])) > 2 else len(points)
        name = row.name if row else (points[-1].name if points else slug)
        charts_.append(HistoryChart(slug=slug, anchor=f"h-{slug}", name=name, href=row.href if row else "",
                                    points=n, chart=chart,
                                    regression=regression_text(marks[slug]) if slug in marks else "",
                                    regression_zh=regression_zh(marks[slug]) if slug in marks else "",
                                    strip=strip_cells(points, (ctx.headroom, ctx.win))))
    return HistoryPage(title=f"History \u00b7 {ctx.title}", site_title=ctx.title, root="", labels=list(labels),
                       charts=charts_, regressions=len(marks), lead=lead)
