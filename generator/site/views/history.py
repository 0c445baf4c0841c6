"""The history page: every kernel's geomean over the recorded sweeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from generator.analyze.message import Sentence
from generator.site import charts, i18n
from generator.site.views.base import SiteContext
from generator.site.views.overview import ChartView, IndexRow, chart_view


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
    regression_zh: str = ""


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


#: The history figure's trace names (``generator.sweeps.history.history_chart_data``) and their keys.
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
        data = [{k_: v for k_, v in tr.items() if k_ != "text_lines"} for tr in fig.get("data", [])]
        fig = {**fig, "data": data, "layout": layout, "zh": figure_zh(fig)}
        charts_.append(HistoryChart(slug=slug, anchor=f"h-{slug}", name=row.name if row else slug,
                                    href=row.href if row else "", points=n,
                                    chart=chart_view(f"history-{slug}", fig),
                                    regression=regression_text(marks[slug]) if slug in marks else "",
                                    regression_zh=regression_zh(marks[slug]) if slug in marks else ""))
    return HistoryPage(title=f"History \u00b7 {ctx.title}", site_title=ctx.title, root="", labels=list(labels),
                       charts=charts_, regressions=len(marks))
