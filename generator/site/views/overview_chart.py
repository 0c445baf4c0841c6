"""The overview's chart section (split from ``overview.py``, issue 34): a figure to draw client-side, the
kernels whose headline pair and verdict ratio disagree, and why a kernel has no point on the chart."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from generator.model import record
from generator.site import charts, i18n
from generator.words import ratio_text


@record
class ChartView:
    """A plotly figure to draw client-side: its element id, its JSON (script-safe) and its height
    in pixels (the box keeps it before the chart is drawn, when it comes into view)."""

    id: str
    json: Markup
    title: str = ""
    i18n: str = ""
    height: int = 300


def chart_view(fig_id: str, figure: dict[str, Any], title: str = "", i18n: str = "") -> ChartView:
    """Wrap a figure dict for embedding in a page."""
    height = int(figure.get("layout", {}).get("height") or 300)  # site.js's height for a figure without one
    return ChartView(id=f"fig-{fig_id}", json=Markup(charts.script_json(figure)), title=title, i18n=i18n,
                     height=height)


@record
class Disagreement:
    """A kernel whose headline pair and multi-shape geomean read differently."""

    name: str
    href: str
    text: str
    zh: str


def disagreements(rows: list[Any], cuts: tuple[float, ...] = ()) -> list[Disagreement]:
    """Kernels whose headline verdict differs from the multi-shape verdict, with both ranks."""
    by_geo = sorted((r for r in rows if r.ratio is not None), key=lambda r: (-r.ratio, r.name.lower()))
    by_head = sorted((r for r in rows if r.headline_speedup is not None),
                     key=lambda r: (-r.headline_speedup, r.name.lower()))
    rank_g = {r.slug: i for i, r in enumerate(by_geo, 1)}
    rank_h = {r.slug: i for i, r in enumerate(by_head, 1)}
    out = []
    for r in sorted((r for r in rows if r.headline_disagrees and r.ratio is not None), key=lambda r: r.name.lower()):
        h, g = ratio_text(r.headline_speedup, cuts), r.ratio_text  # each beside its verdict word
        n = r.verdict_geomean[1] if r.verdict_geomean else r.n_measured
        out.append(Disagreement(
            r.name, r.href,
            f"headline pair {h} reads {r.headline_verdict} (rank {rank_h[r.slug]} of {len(by_head)}); "
            f"verdict ratio {g} over {n} shapes reads {r.verdict} (rank {rank_g[r.slug]} of {len(by_geo)})",
            i18n.zh("disagree.text", h=h, hv=r.headline_verdict, nh=len(by_head), rh=rank_h[r.slug],
                    n=n, g=g, v=r.verdict, ng=len(by_geo), rg=rank_g[r.slug])))
    return out


#: Why a row is not on the overview chart: the catalogue key per verdict.
OFF_CHART = {"UNTIMED": "ov.offchart.untimed", None: "ov.offchart.none", "BLOCKED": "ov.offchart.blocked"}


#: A BLOCKED kernel's ``blocked_reason`` (VERDICTS rule 12) -> its catalogue key.
BLOCKED_REASONS = {"no measured shape": "ov.blocked.nomeasured", "hard failures": "ov.blocked.failures",
                   "no like-for-like baseline": "ov.blocked.nolfl", "timed on the call clock only": "ov.blocked.callonly"}


def off_chart_reason(r: Any) -> tuple[str, str]:
    """``(English, 中文)`` of why ``r`` has no point on the overview chart: a BLOCKED kernel's own
    ``blocked_reason`` (issue 40: not "no measured shape" for a kernel with 30 measured shapes)."""
    if r.verdict == "BLOCKED" and not r.campaign_broken and getattr(r, "blocked_reason", None):
        key = BLOCKED_REASONS.get(r.blocked_reason)
        return i18n.both(key) if key else (r.blocked_reason, r.blocked_reason)
    key = "ov.offchart.broken" if r.campaign_broken else OFF_CHART.get(r.verdict)
    return i18n.both(key) if key else (r.verdict_label.lower(), r.verdict_label.lower())
