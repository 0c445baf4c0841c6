"""The two clocks shape by shape (VERDICTS rule 13): the candidate's call and kernel times beside the
fastest baseline's, so a reader sees where the launcher and where the kernel decides.

Shapes run left to right by the candidate's kernel (graph-replay) time; each shape has four points on
a log time axis, joined candidate call to candidate kernel by a thin stem: the gap between two clocks that
time different things (a replay carries a fixed cost of its own, cheap calls are timed back to back), not
the launch path's length. The call can sit below the replay (flydsl: on 126 of the reference sweep's 449
measured shapes with both times); rule 13's launch overhead is read against the fastest baseline's call
(the filled triangle), not from the stem. Where the candidate's call sits far above its kernel time and
above the baseline's call while the kernels are close, the launcher decides; where they close up, the
kernel does.
"""

from __future__ import annotations

import math
from typing import Any

from generator.analyze.verdicts.clocks import GRAPH_METHODS
from generator.site.charts import _base_layout, _t, _with_zh, log_ticks

#: (trace, catalogue key of its name, symbol, colour, which time of a shape).
TRACES = (("cand_call", "chart.clocks.cand_call", "circle", "#bc4c00", "candidate_call_us"),
          ("cand_graph", "chart.clocks.cand_graph", "circle-open", "#bc4c00", "candidate_graph_us"),
          ("base_call", "chart.clocks.base_call", "triangle-up", "#0969da", "best_call_us"),
          ("base_graph", "chart.clocks.base_graph", "triangle-up-open", "#0969da", "best_baseline_us"))


def _time(s: Any, which: str) -> float | None:
    """One of a shape's four times (us): the candidate's call or kernel time, the fastest baseline's call, or
    the best baseline's graph-replayed time (its ``median_us``; None when that row was not graph-replayed)."""
    if which == "best_baseline_us":
        best = s.providers.get(s.best_baseline or "")
        return best.median_us if best is not None and best.timing_method in GRAPH_METHODS else None
    return getattr(s.clocks, which)


def shape_clocks(shapes: list[Any], candidate: str, args: list[str]) -> dict[str, Any] | None:
    """The figure (None when no measured shape has both of the candidate's clocks)."""
    rows = sorted(((s, a) for s, a in zip(shapes, args)
                   if s.clocks.candidate_call_us is not None and s.clocks.candidate_graph_us is not None),
                  key=lambda p: (p[0].clocks.candidate_graph_us, p[0].shape_id))
    if not rows:
        return None
    data: list[dict[str, Any]] = [{
        "type": "scatter", "mode": "lines", "hoverinfo": "skip", "showlegend": False, "name": "stem",
        "line": {"color": "#bc4c00", "width": 1},
        "x": [x for i in range(len(rows)) for x in (i + 1, i + 1, None)],
        "y": [y for s, _ in rows for y in (s.clocks.candidate_graph_us, s.clocks.candidate_call_us, None)]}]
    zh: dict[int, dict[str, Any]] = {}
    values: list[float] = []
    for name, key, symbol, color, which in TRACES:
        pts = [(i, _time(s, which), a, s) for i, (s, a) in enumerate(rows, 1) if _time(s, which) is not None]
        values += [t for _, t, _, _ in pts]
        custom = [[a, (s.clocks.best_call_baseline if name == "base_call" else s.best_baseline) or ""] for _, _, a, s in pts]
        zh[len(data)] = {"name": _t("zh", key, cand=candidate), "hovertemplate": _t("zh", "chart.hover.clocks")}
        data.append({"type": "scatter", "mode": "markers", "name": _t("en", key, cand=candidate),
                     "x": [i for i, _, _, _ in pts], "y": [t for _, t, _, _ in pts], "customdata": custom,
                     "marker": {"color": color, "size": 8, "symbol": symbol, "line": {"color": color, "width": 1.5}},
                     "hovertemplate": _t("en", "chart.hover.clocks")})
    lo, hi = min(values), max(values)
    axis = [math.log10(lo) - 0.1, math.log10(hi) + 0.1]
    ticks = log_ticks(axis)
    ticks["ticktext"] = [f"{v:g}" for v in ticks["tickvals"]]  # microseconds, not ratios
    n = len(rows)
    return _with_zh({
        "data": data,
        "layout": _base_layout(
            240, margin={"l": 60, "r": 20, "t": 10, "b": 84},
            xaxis={"title": {"text": _t("en", "chart.axis.clockshapes", n=n, cand=candidate)}, "zeroline": False,
                   "range": [0, n + 1]},
            yaxis={"type": "log", "title": {"text": _t("en", "chart.axis.us")}, "range": axis, **ticks},
            showlegend=True,
            legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0, "yanchor": "bottom"},
        ),
    }, {"xaxis.title.text": _t("zh", "chart.axis.clockshapes", n=n, cand=candidate),
        "yaxis.title.text": _t("zh", "chart.axis.us")}, zh)

