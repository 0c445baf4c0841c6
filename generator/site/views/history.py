"""The history page: every kernel's geomean over the recorded sweeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.site import charts
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
