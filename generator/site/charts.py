"""Plotly figures as plain dicts (``{"data": [...], "layout": {...}}``), drawn client-side.

Figures are built here, in Python, and embedded in the page as JSON; ``site.js`` draws
them with the site's single local copy of plotly.js and applies the theme's colors
(font, grid, background), so nothing here depends on light or dark mode. Building
dicts (not ``plotly.graph_objects``) keeps the build fast and the bytes stable.

Every word on a figure comes from the catalogues (``templates/i18n``): the figure holds its
English, and ``"zh"`` holds the 中文 overrides (``{"layout": {path: text}, "traces": {index:
{attribute: value}}}``) that ``site.js`` swaps in when the page is in 中文. Data (kernel and
stall-type names, numbers) are the same in both.

Speedups are drawn on a log axis with the 1.0 line and the parity band
``[headroom, win)`` shaded: on a log axis 0.5x and 2x sit at the same distance
from parity, as they should.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable
from typing import Any

from generator.analyze.message import FORMS, Sentence
from generator.model import STALL_TYPES
from generator.read import jsonio
from generator.site import i18n

VERDICT_COLORS = {"WIN": "#2da44e", "PARITY": "#8c959f", "HEADROOM": "#d4742c", "BLOCKED": "#cf222e"}
#: A reading that carries no verdict (a headline pair on the call clock): no verdict's colour.
CALL_COLOR = "#6e40c9"
OUTCOME_COLORS = {"win": "#2da44e", "parity": "#8c959f", "loss": "#d4742c"}
STALL_COLORS = {
    "VMEM-wait": "#e4572e",
    "LDS/SMEM-wait": "#f3a712",
    "EXP-wait": "#a8c686",
    "waitcnt": "#669bbc",
    "barrier": "#8e6c8a",
    "VMEM-load": "#3d5a98",
    "VMEM-store": "#4c956c",
    "LDS": "#db2763",
    "SMEM": "#17bebb",
    "MFMA/FMA": "#7d5ba6",
    "other": "#9a9a9a",
}
ISSUE_COLOR = "#2da44e"
END_COLOR = "#8c959f"  # the closing s_endpgm of a wave timeline
_EXTRA = ("#5c6bc0", "#26a69a", "#ef6c00", "#8d6e63", "#ec407a", "#7cb342", "#00acc1", "#ab47bc")
CONFIG_HEIGHT = 320


def script_json(figure: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: sorted keys, no ``<``, ``>``, ``&``.

    A hostile kernel name such as ``</script><script>...`` stays inert: every ``<``
    becomes ``\\u003c``, which JSON.parse turns back into ``<``. Written by ``jsonio.dumps_sorted`` (orjson:
    UTF-8 as it is, a non-finite number as null), which the pages parse to the very values the standard
    library's ``\\u`` escapes gave; issue 41: the shared sweep's 84 figures 22.6 -> 6.6 ms of CPU.
    """
    text = jsonio.dumps_sorted(figure, indent=False, default=_default)[:-1].decode("utf-8")
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _default(value: Any) -> Any:
    """JSON for values json does not know (tuples are lists already)."""
    if isinstance(value, set):
        return sorted(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def stall_color(name: str) -> str:
    """The color of a stall type (NCU reasons and unknown types get a stable extra color)."""
    if name in STALL_COLORS:
        return STALL_COLORS[name]
    return _EXTRA[sum(name.encode()) % len(_EXTRA)]


def stall_css(name: str) -> str:
    """CSS class of a stall type: ``st-vmem-wait``, ``st-lds-smem-wait``..."""
    return "st-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _t(lang: str, key: str, **kw: Any) -> str:
    """A chart string of the catalogue; plotly's ``%{...}`` are written ``%{{...}}`` there."""
    return FORMS.format(i18n.catalogue(lang)[key], **kw)


def _with_zh(figure: dict[str, Any], layout: dict[str, str] | None = None,
             traces: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    """``figure`` with its 中文 overrides: layout paths (``xaxis.title.text``) and per-trace attributes."""
    figure["zh"] = {"layout": dict(layout or {}), "traces": {str(i): t for i, t in sorted((traces or {}).items())}}
    return figure


def _base_layout(height: int = CONFIG_HEIGHT, **extra: Any) -> dict[str, Any]:
    layout = {
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 20, "b": 50},
        "showlegend": False,
        "hovermode": "closest",
    }
    layout.update(extra)
    return layout


#: The room a kernel-per-row chart's foot keeps below its plot (px): tick labels and the axis title,
#: then one row of legend anchored to the figure's bottom (issue 34: never over the axis title,
#: whatever the number of rows; a phone's extra legend rows are added by site.js's fitLayout).
FOOT_AXIS = 58
FOOT_LEGEND = 30


def kernel_rows_layout(n_rows: int) -> dict[str, Any]:
    """Height, bottom margin and legend of a chart with one row per kernel (the overview's two)."""
    return {"height": max(200, 34 * n_rows) + 10 + FOOT_AXIS + FOOT_LEGEND,
            "margin": {"l": 190, "r": 20, "t": 10, "b": FOOT_AXIS + FOOT_LEGEND},
            "showlegend": True,
            "legend": {"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0, "yanchor": "bottom"}}


def _parity_shapes(win: float, headroom: float, axis: str) -> list[dict[str, Any]]:
    """The parity band [headroom, win) and the 1.0 line on a log speedup axis."""
    other = "y" if axis == "x" else "x"
    band = {"type": "rect", "layer": "below", "line": {"width": 0}, "fillcolor": "rgba(140,149,159,0.18)",
            f"{axis}ref": axis, f"{other}ref": "paper", f"{axis}0": headroom, f"{axis}1": win,
            f"{other}0": 0, f"{other}1": 1}
    line = {"type": "line", "layer": "below", "line": {"width": 1.5, "dash": "dash", "color": "#8c959f"},
            f"{axis}ref": axis, f"{other}ref": "paper", f"{axis}0": 1, f"{axis}1": 1, f"{other}0": 0, f"{other}1": 1}
    return [band, line]


def _log_range(values: Iterable[float], win: float, headroom: float) -> list[float]:
    """A log10 axis range covering the values and the parity band, with a margin."""
    vals = [v for v in values if v and v > 0] + [headroom, win]
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    pad = max(0.05, (hi - lo) * 0.06)
    return [round(lo - pad, 4), round(hi + pad, 4)]


def log_ticks(axis_range: list[float]) -> dict[str, Any]:
    """Readable ticks inside a log10 range, labelled ``0.5x``, ``2x``: 1-2-5 per decade on
    wide ranges, 1-2-3-5 on medium ones, every digit or tenth on narrow ones."""
    lo, hi = axis_range
    span = hi - lo
    if span > 1.2:
        ms: tuple[float, ...] = (1, 2, 5)
    elif span > 0.5:
        ms = (1, 2, 3, 5)
    elif span > 0.2:
        ms = tuple(range(1, 10))
    else:
        ms = tuple(m / 10 for m in range(10, 100))
    vals: list[float] = []
    for e in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in ms:
            v = round(m * 10.0 ** e, 6)
            if lo <= math.log10(v) <= hi and v not in vals:
                vals.append(v)
    while len(vals) > 12:
        vals = vals[::2]
    return {"tickvals": vals, "ticktext": [f"{v:g}x" for v in vals]}


def drawn_open(row: Any) -> bool:
    """Whether the overview chart draws a kernel's diamond open: its verdict rests on other evidence
    than its shapes (a basis is said), or is not like-for-like."""
    return bool(row.basis_text) or "not_like_for_like" in row.flag_keys


def _plain(html_text: str) -> str:
    """Marked-up 中文 (``i18n.marked``) as the plain text a hover shows."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def _diamond(row: Any, lang: str) -> str:
    """What a row's diamond is, for the hover of its shape dots: its basis and ratio."""
    basis = (row.basis_text if lang == "en" else _plain(row.basis_zh)) or i18n.catalogue(lang)["chart.basis.shapes"]
    ratio = row.ratio_text if row.ratio is not None else ""
    return f"{basis}, {ratio}" if ratio and not basis.endswith(ratio) else basis


def _dots(row: Any, lang: str) -> list[list[str]]:
    """Each shape dot's hover data: its verdict baseline and what the row's diamond is."""
    diamond = _diamond(row, lang)
    return [[name, diamond] for name in row.shape_baselines or [""] * len(row.shape_speedups)]


def _clock_lines(row: Any, lang: str) -> str:
    """The hover's lines for rules 14 and 13: the shapes interval, the launch overhead (and a call-clock pair)."""
    texts = [getattr(row, f"interval_title{'' if lang == 'en' else '_zh'}", ""),
             getattr(row, f"launch_title{'' if lang == 'en' else '_zh'}", "")]
    return "".join(f"<br>{html.escape(t)}" for t in texts if t)


def _interval_bars(rows: list[Any], color: str) -> dict[str, Any]:
    """Asymmetric error bars from each row's ratio to its ``verdict_ci`` (0 where it has none)."""
    ci = [getattr(r, "verdict_ci", None) for r in rows]
    return {"type": "data", "symmetric": False, "color": color, "thickness": 1.5, "width": 4,
            "array": [c[1] - r.ratio if c else 0 for r, c in zip(rows, ci)],
            "arrayminus": [r.ratio - c[0] if c else 0 for r, c in zip(rows, ci)]}


def _dot_trace(picked: list[tuple[Any, int]], lang: str) -> dict[str, Any]:
    """The shape dots: ``picked`` holds (row, index of its dot)."""
    return {"type": "scatter", "mode": "markers", "x": [r.shape_speedups[i] for r, i in picked],
            "y": [r.name for r, _ in picked], "name": _t(lang, "chart.trace.shapes"),
            "marker": {"size": 6, "color": "rgba(120,130,140,0.45)", "symbol": "circle"},
            "customdata": _picked_hover(picked, lang), "hovertemplate": _t(lang, "chart.hover.oneshape.vb")}


def _dot_zh(picked: list[tuple[Any, int]]) -> dict[str, Any]:
    """The 中文 of ``_dot_trace``."""
    return {"name": _t("zh", "chart.trace.shapes"), "hovertemplate": _t("zh", "chart.hover.oneshape.vb"),
            "customdata": _picked_hover(picked, "zh")}


def _picked_hover(picked: list[tuple[Any, int]], lang: str) -> list[list[str]]:
    """``_dots`` of the picked dots (each row's worked once)."""
    rows: dict[int, list[list[str]]] = {}
    return [rows.setdefault(id(r), _dots(r, lang))[i] for r, i in picked]


def speedup_overview(rows: list[Any], win: float, headroom: float) -> dict[str, Any]:
    """Each kernel's verdict ratio (big marker, verdict color; open when the verdict does not rest
    on its shapes or carries a flag) over its verdict shapes' speedups (against the comparable
    baseline) and, apart, the shapes at the timing floor (VERDICTS rules 10-12).

    ``rows`` are ``views.IndexRow`` objects with a ratio; the chart lists them top-down in the
    given order.
    """
    rows = list(reversed(rows))  # plotly draws the first category at the bottom
    names = [r.name for r in rows]
    # each dot: a ratio the verdict rests on (the kernel clock, rule 10); the hover names its verdict baseline
    # and what the row's diamond is
    kernel_clock = [(r, i) for r in rows for i in range(len(r.shape_speedups))]
    dots = [(r.shape_speedups[i], r.name) for r, i in kernel_clock]
    floor = [(s, r.name) for r in rows for s in r.floor_speedups]
    data = [_dot_trace(kernel_clock, "en")]
    traces_zh = {0: _dot_zh(kernel_clock)}
    if floor:
        traces_zh[len(data)] = {"name": _t("zh", "chart.trace.floor"), "hovertemplate": _t("zh", "chart.hover.floor")}
        data.append({"type": "scatter", "mode": "markers", "x": [x for x, _ in floor], "y": [y for _, y in floor],
                     "name": _t("en", "chart.trace.floor"),
                     "marker": {"size": 6, "color": "rgba(120,130,140,0.6)", "symbol": "x-thin-open",
                                "line": {"width": 1, "color": "rgba(120,130,140,0.6)"}},
                     "hovertemplate": _t("en", "chart.hover.floor")})
    for verdict, color in VERDICT_COLORS.items():
        sel = [r for r in rows if r.verdict == verdict]
        if not sel:
            continue
        traces_zh[len(data)] = {"hovertemplate": _t("zh", "chart.hover.geomean"), "customdata": [
            [r.wins_zh or r.wins_text, r.verdict_label, "".join(f"<br>{i18n.zh_said_text(f)}" for f in r.flags)
             + _clock_lines(r, "zh"), _plain(r.basis_zh) or i18n.zh("chart.basis.shapes"), r.ratio_text] for r in sel]}
        data.append({
            "type": "scatter", "mode": "markers", "name": verdict,
            "x": [r.ratio for r in sel], "y": [r.name for r in sel],
            "customdata": [[r.wins_text, r.verdict_label, "".join(f"<br>{f}" for f in r.flags) + _clock_lines(r, "en"),
                            r.basis_text or i18n.en("chart.basis.shapes"), r.ratio_text] for r in sel],
            # rule 14: the shapes interval as a bar on the diamond (how far the ratio moves with the shapes picked)
            "error_x": _interval_bars(sel, color),
            # a verdict resting on other evidence than its shapes, or flagged (not like-for-like), is
            # drawn open (the caption says so), the basis and the flags in the hover; an open outline
            # is thick, so that it shows on a dark page too
            "marker": {"size": 14, "color": color,
                       "line": {"width": [2.5 if drawn_open(r) else 1 for r in sel], "color": color},
                       "symbol": ["diamond-open" if drawn_open(r) else "diamond" for r in sel]},
            "hovertemplate": _t("en", "chart.hover.geomean"),
        })
    all_x = [x for x, _ in dots + floor] + [r.ratio for r in rows] + [v for r in rows for v in (getattr(r, "verdict_ci", None) or [])]
    return _with_zh({
        "data": data,
        "layout": _base_layout(
            **kernel_rows_layout(len(names)),
            xaxis={"type": "log", "title": {"text": _t("en", "chart.axis.speedup")},
                   "range": _log_range(all_x, win, headroom), "zeroline": False,
                   **log_ticks(_log_range(all_x, win, headroom))},
            yaxis={"type": "category", "categoryorder": "array", "categoryarray": names, "automargin": True},
            shapes=_parity_shapes(win, headroom, "x"),
        ),
    }, {"xaxis.title.text": _t("zh", "chart.axis.speedup")}, traces_zh)


def headline_overview(rows: list[Any], win: float, headroom: float) -> dict[str, Any]:
    """Each kernel's headline pair (big marker, its own verdict's color; a pair on the call clock open, in
    no verdict's color) beside its multi-shape geomean (hollow diamond), top-down in the given order
    (``rows``: IndexRows with a headline)."""
    rows = list(reversed(rows))
    names = [r.name for r in rows]
    geo = [r for r in rows if r.ratio is not None]
    data = [{"type": "scatter", "mode": "markers", "name": _t("en", "chart.trace.geomean"),
             "x": [r.ratio for r in geo], "y": [r.name for r in geo],
             "marker": {"size": 12, "symbol": "diamond-open", "color": "rgba(120,130,140,0.9)", "line": {"width": 2}},
             "customdata": [[r.ratio_text] for r in geo], "hovertemplate": _t("en", "chart.hover.multishape")}]
    traces_zh = {0: {"name": _t("zh", "chart.trace.geomean"), "hovertemplate": _t("zh", "chart.hover.multishape")}}
    for verdict, color in VERDICT_COLORS.items():
        sel = [r for r in rows if r.headline_verdict == verdict]
        if not sel:
            continue
        traces_zh[len(data)] = {"name": _t("zh", "chart.trace.headline", v=verdict),
                                "hovertemplate": _t("zh", "chart.hover.headline"),
                                "customdata": [[_said_zh(r.headline_text or ""), r.verdict_label] for r in sel]}
        data.append({
            "type": "scatter", "mode": "markers", "name": _t("en", "chart.trace.headline", v=verdict),
            "x": [r.headline_speedup for r in sel], "y": [r.name for r in sel],
            "customdata": [[r.headline_text or "", r.verdict_label] for r in sel],
            "marker": {"size": 14, "color": color, "symbol": "circle", "line": {"width": 1, "color": "#ffffff"}},
            "hovertemplate": _t("en", "chart.hover.headline"),
        })
    call = [r for r in rows if r.headline_verdict is None and getattr(r, "pair_clock", None) == "call"]
    if call:  # a pair on the call clock: a reading, drawn open in no verdict's colour (VERDICTS rule 10)
        traces_zh[len(data)] = {"name": _t("zh", "chart.trace.headline.call"),
                                "hovertemplate": _t("zh", "chart.hover.headline"),
                                "customdata": [[_said_zh(r.call_zh or r.headline_text or ""), r.verdict_label] for r in call]}
        data.append({
            "type": "scatter", "mode": "markers", "name": _t("en", "chart.trace.headline.call"),
            "x": [r.headline_speedup for r in call], "y": [r.name for r in call],
            "customdata": [[r.call_text or r.headline_text or "", r.verdict_label] for r in call],
            "marker": {"size": 14, "color": CALL_COLOR, "symbol": "circle-open", "line": {"width": 2.5, "color": CALL_COLOR}},
            "hovertemplate": _t("en", "chart.hover.headline"),
        })
    all_x = [r.headline_speedup for r in rows] + [r.ratio for r in geo]
    rng = _log_range(all_x, win, headroom)
    return _with_zh({
        "data": data,
        "layout": _base_layout(
            **kernel_rows_layout(len(names)),
            xaxis={"type": "log", "title": {"text": _t("en", "chart.axis.headline")},
                   "range": rng, "zeroline": False, **log_ticks(rng)},
            yaxis={"type": "category", "categoryorder": "array", "categoryarray": names, "automargin": True},
            shapes=_parity_shapes(win, headroom, "x"),
        ),
    }, {"xaxis.title.text": _t("zh", "chart.axis.headline")}, traces_zh)


def shape_speedups(shapes: list[Any], win: float, headroom: float, args: list[str] | None = None,
                   notes: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Per measured shape, slowest to fastest: a stem from 1.0 to its speedup, colored by outcome;
    a shape at the timing floor (rule 11) drawn open. ``args``: the shapes' ``args_text`` in their
    order, when the caller has worked them out already; ``notes``: per shape, its verdict ratio in
    words (English, 中文) for the hover.

    Stems rather than bars: plotly bars on a log axis grow from the axis floor, which
    would make a 0.9x shape look like a large bar.
    """
    texts = args if args is not None else [s.args_text for s in shapes]
    said = notes if notes is not None else [("", "")] * len(shapes)
    pairs = sorted(zip(shapes, texts, said), key=lambda p: p[0].speedup)
    ordered = [s for s, _, _ in pairs]
    data: list[dict[str, Any]] = []
    traces_zh: dict[int, dict[str, Any]] = {}
    kinds = [shape_caveat(s) for s in ordered]
    for outcome, color in OUTCOME_COLORS.items():
        sel = [(i, s, a, n) for i, (s, a, n) in enumerate(pairs, 1) if s.outcome == outcome and not kinds[i - 1]]
        if not sel:
            continue
        stems_x: list[Any] = []
        stems_y: list[Any] = []
        for i, s, _, _ in sel:
            stems_x += [i, i, None]
            stems_y += [1.0, s.speedup, None]
        traces_zh[len(data)] = {"name": _t("zh", f"chart.trace.{outcome}")}
        data.append({"type": "scatter", "mode": "lines", "x": stems_x, "y": stems_y, "hoverinfo": "skip",
                     "line": {"color": color, "width": 2}, "name": outcome, "showlegend": False})
        traces_zh[len(data)] = {"name": _t("zh", f"chart.trace.{outcome}"), "hovertemplate": _t("zh", "chart.hover.shape.v"),
                                "customdata": [[a, s.best_baseline or "", s.stage or "", s.model or "", n[1]]
                                               for _, s, a, n in sel]}
        data.append({
            "type": "scatter", "mode": "markers", "name": outcome,
            "x": [i for i, _, _, _ in sel], "y": [s.speedup for _, s, _, _ in sel],
            "marker": {"color": color, "size": 7, "symbol": ["circle"] * len(sel)},
            "customdata": [[a, s.best_baseline or "", s.stage or "", s.model or "", n[0]] for _, s, a, n in sel],
            "hovertemplate": _t("en", "chart.hover.shape.v"),
        })
    _caveat_traces(pairs, kinds, data, traces_zh)
    n = len(ordered)
    return _with_zh({
        "data": data,
        "layout": _base_layout(
            300,
            xaxis={"title": {"text": _t("en", "chart.axis.shapes", n=n)}, "zeroline": False,
                   "range": [0, n + 1]},
            yaxis={"type": "log", "title": {"text": _t("en", "chart.axis.speeduplog")},
                   "range": _log_range([s.speedup for s in ordered], win, headroom),
                   **log_ticks(_log_range([s.speedup for s in ordered], win, headroom))},
            shapes=_parity_shapes(win, headroom, "y"),
            showlegend=True,
            legend={"orientation": "h", "y": -0.25},
        ),
    }, {"xaxis.title.text": _t("zh", "chart.axis.shapes", n=n), "yaxis.title.text": _t("zh", "chart.axis.speeduplog")},
        traces_zh)


#: Shapes no verdict may rest on, each with its own marker (issue 31): at the timing floor (rule 11), the
#: candidate or the best baseline above a roof (rule 9), the two timed on different clocks (rule 13), or
#: measured without a correctness check (rule 1). A shape with several takes the first. Shapes where the
#: candidate's graph replay misses work (rule 16) are no chart dot at all: the speed panel leaves them out.
CAVEATS = {"at_floor": "circle-open", "above_roof": "x-open", "mixed_clocks": "diamond-open", "unverified": "square-open"}
CAVEAT_COLOR = "#8c959f"


def shape_caveat(s: Any) -> str | None:
    """Why no verdict may rest on a measured shape's plotted ratio (a ``CAVEATS`` key), or None."""
    from generator.analyze.verdicts.rules import methods_differ

    if s.at_floor:
        return "at_floor"
    if s.candidate in s.above_roof or (s.best_baseline is not None and s.best_baseline in s.above_roof):
        return "above_roof"
    cand, best = s.providers.get(s.candidate), s.providers.get(s.best_baseline or "")
    if cand is not None and best is not None and methods_differ(cand, best):
        return "mixed_clocks"
    return "unverified" if s.unverified else None


def _caveat_traces(pairs: list[tuple[Any, str, tuple[str, str]]], kinds: list[str | None],
                   data: list[dict[str, Any]], traces_zh: dict[int, dict[str, Any]]) -> None:
    """The shapes no verdict may rest on: grey dotted stems, and one marker trace (a legend entry) per kind."""
    marked = [(i, s, a, n, kind) for i, ((s, a, n), kind) in enumerate(zip(pairs, kinds), 1) if kind]
    if not marked:
        return
    stems_x: list[Any] = []
    stems_y: list[Any] = []
    for i, s, _, _, _ in marked:
        stems_x += [i, i, None]
        stems_y += [1.0, s.speedup, None]
    data.append({"type": "scatter", "mode": "lines", "x": stems_x, "y": stems_y, "hoverinfo": "skip",
                 "line": {"color": CAVEAT_COLOR, "width": 1, "dash": "dot"}, "name": "caveat", "showlegend": False})
    for kind, symbol in CAVEATS.items():
        sel = [(i, s, a, n) for i, s, a, n, k in marked if k == kind]
        if not sel:
            continue
        traces_zh[len(data)] = {"name": _t("zh", f"chart.trace.caveat.{kind}"), "hovertemplate": _t("zh", "chart.hover.shape.v"),
                                "customdata": [[a, s.best_baseline or "", s.stage or "", s.model or "", n[1]]
                                               for _, s, a, n in sel]}
        data.append({
            "type": "scatter", "mode": "markers", "name": _t("en", f"chart.trace.caveat.{kind}"),
            "x": [i for i, _, _, _ in sel], "y": [s.speedup for _, s, _, _ in sel],
            "marker": {"color": CAVEAT_COLOR, "size": 8, "symbol": [symbol] * len(sel), "line": {"width": 2}},
            "customdata": [[a, s.best_baseline or "", s.stage or "", s.model or "", n[0]] for _, s, a, n in sel],
            "hovertemplate": _t("en", "chart.hover.shape.v"),
        })


def stall_types(stall_by_type: dict[str, int], unit: str = "cycles") -> dict[str, Any]:
    """Horizontal bars: stall cycles (or samples) per type, largest on top."""
    names = list(stall_by_type)[::-1]
    total = sum(stall_by_type.values()) or 1
    values = [stall_by_type[n] for n in names]
    unit_zh = i18n.catalogue("zh").get(f"unit.{unit}", unit)
    return _with_zh({
        "data": [{
            "type": "bar", "orientation": "h", "x": values, "y": names,
            "marker": {"color": [stall_color(n) for n in names]},
            "customdata": [round(100 * v / total, 2) for v in values],
            "hovertemplate": _t("en", "chart.hover.stall", unit=unit),
        }],
        "layout": _base_layout(max(160, 26 * len(names) + 60), margin={"l": 110, "r": 20, "t": 10, "b": 40},
                               xaxis={"title": {"text": _t("en", "chart.axis.stall", unit=unit)}},
                               yaxis={"automargin": True}),
    }, {"xaxis.title.text": _t("zh", "chart.axis.stall", unit=unit_zh)},
        {0: {"hovertemplate": _t("zh", "chart.hover.stall", unit=unit_zh)}})


def timeline(t: Any) -> dict[str, Any]:
    """One wave over time: issue cycles and stall cycles per type, stacked per bin."""
    data = [{"type": "bar", "name": _t("en", "chart.trace.issue"), "x": t.starts, "y": t.issue,
             "marker": {"color": ISSUE_COLOR}, "hovertemplate": _t("en", "chart.hover.issue")}]
    traces_zh = {0: {"name": _t("zh", "chart.trace.issue"), "hovertemplate": _t("zh", "chart.hover.issue")}}
    if any(t.end):  # the closing s_endpgm: issued once, then the wave waits to end (gather._closing_end)
        traces_zh[len(data)] = {"hovertemplate": _t("zh", "chart.hover.end", op="s_endpgm")}
        data.append({"type": "bar", "name": "s_endpgm", "x": t.starts, "y": t.end, "marker": {"color": END_COLOR},
                     "hovertemplate": _t("en", "chart.hover.end", op="s_endpgm")})
    for name, values in t.stall.items():
        if not any(values):
            continue
        traces_zh[len(data)] = {"hovertemplate": _t("zh", "chart.hover.stalltype", name=name)}
        data.append({"type": "bar", "name": name, "x": t.starts, "y": values,
                     "marker": {"color": stall_color(name)},
                     "hovertemplate": _t("en", "chart.hover.stalltype", name=name)})
    return _with_zh({
        "data": data,
        "layout": _base_layout(300, barmode="stack", bargap=0, showlegend=True,
                               legend={"orientation": "h", "y": -0.3},
                               xaxis={"title": {"text": _t("en", "chart.axis.wavetime")}},
                               yaxis={"title": {"text": _t("en", "chart.axis.perbin", n=f"{t.bin_cycles:,}")}}),
    }, {"xaxis.title.text": _t("zh", "chart.axis.wavetime"),
        "yaxis.title.text": _t("zh", "chart.axis.perbin", n=f"{t.bin_cycles:,}")}, traces_zh)


def compare_shares(shares: dict[str, Any], a_name: str, b_name: str) -> dict[str, Any]:
    """Grouped bars: each stall type's share in capture A and in capture B."""
    types = [t for t in STALL_TYPES if t in shares] + sorted(t for t in shares if t not in STALL_TYPES)
    def pick(t: str, i: int) -> float:
        v = shares[t]
        return float(v[i]) * 100 if isinstance(v, (list, tuple)) and len(v) > i and v[i] is not None else 0.0
    data = [
        {"type": "bar", "name": str(a_name), "x": types, "y": [pick(t, 0) for t in types], "marker": {"color": "#8c959f"},
         "hovertemplate": "%{x}: %{y:.1f}%<extra>" + "A" + "</extra>"},
        {"type": "bar", "name": str(b_name), "x": types, "y": [pick(t, 1) for t in types], "marker": {"color": "#3d5a98"},
         "hovertemplate": "%{x}: %{y:.1f}%<extra>" + "B" + "</extra>"},
    ]
    return _with_zh({"data": data, "layout": _base_layout(280, barmode="group", showlegend=True,
                                                          legend={"orientation": "h", "y": -0.3},
                                                          yaxis={"title": {"text": _t("en", "chart.axis.share")}})},
                    {"yaxis.title.text": _t("zh", "chart.axis.share")})


def roofline(r: dict[str, Any]) -> dict[str, Any]:
    """Log-log roofline (``Roofline.to_json()``): the roofs of each precision used, one point per row."""
    points = [p for p in r.get("points", []) if p.get("ai") and p.get("tflops")]
    dev = r.get("device") or {}
    peak_tbs = dev.get("hbm_tbs")
    peaks = dev.get("tflops") or {}
    data: list[dict[str, Any]] = []
    traces_zh: dict[int, dict[str, Any]] = {}
    by_provider: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        by_provider.setdefault(str(p.get("provider", "")), []).append(p)
    for i, (prov, pts) in enumerate(sorted(by_provider.items())):
        traces_zh[len(data)] = {"hovertemplate": _t("zh", "chart.hover.point"), "customdata": [
            [str(p.get("args", "")), _bound_text_zh(p)] for p in pts]}
        data.append({"type": "scatter", "mode": "markers", "name": prov,
                     "x": [p["ai"] for p in pts], "y": [p["tflops"] for p in pts],
                     "marker": {"size": 8, "color": _EXTRA[i % len(_EXTRA)],
                                "symbol": ["x" if p.get("above_roof") else "circle" for p in pts]},
                     "customdata": [[str(p.get("args", "")), str(p.get("no_bound") or p.get("bound", ""))] for p in pts],
                     "hovertemplate": _t("en", "chart.hover.point")})
    precisions = sorted({str(p.get("precision")) for p in points if p.get("precision") in peaks})
    if peak_tbs and points and precisions:
        xs = [p["ai"] for p in points]
        ridges = [peaks[q] / peak_tbs for q in precisions]
        lo, hi = min(xs + ridges) / 4, max(xs + ridges) * 4
        for q in precisions:
            peak = peaks[q]
            ridge = peak / peak_tbs
            traces_zh[len(data)] = {"name": _t("zh", "chart.trace.roof", q=q), "hovertemplate": _t("zh", "chart.hover.roof", q=q)}
            data.append({"type": "scatter", "mode": "lines", "name": _t("en", "chart.trace.roof", q=q), "x": [lo, ridge, hi],
                         "y": [lo * peak_tbs, peak, peak], "line": {"color": "#8c959f", "width": 2},
                         "hovertemplate": _t("en", "chart.hover.roof", q=q)})
    return _with_zh({"data": data, "layout": _base_layout(
        360, showlegend=True, legend={"orientation": "h", "y": -0.3},
        xaxis={"type": "log", "title": {"text": _t("en", "chart.axis.ai")}},
        yaxis={"type": "log", "title": {"text": "TFLOP/s"}})}, {"xaxis.title.text": _t("zh", "chart.axis.ai")}, traces_zh)


def _said_zh(text: str) -> str:
    """A sentence's 中文 (``i18n.zh_said_text``); data (a speedup alone) as it is."""
    return i18n.zh_said_text(text) if isinstance(text, Sentence) else text


def _bound_text_zh(p: dict[str, Any]) -> str:
    """A roofline point's bound label (or why it carries none) in 中文, for the hover."""
    if p.get("no_bound"):  # above a roof, or on the call clock: no bound (VERDICTS rules 9, 13)
        return i18n.zh_said_text(p["no_bound"])
    bound = str(p.get("bound", ""))
    return i18n.catalogue("zh").get(f"roof.bound.{bound}", bound)


def shape_space(xs: list[Any], ys: list[float], groups: list[str], args: list[str], feature: str,
                win: float, headroom: float) -> dict[str, Any]:
    """Each verdict shape's ratio (log y) against one feature of its shapes (``M``, ``stage``, ``workgroups``),
    one marker trace per configuration (``groups``), the parity band drawn across (VERDICTS rule 15)."""
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    positive = numeric and min(xs) > 0
    data = []
    for i, group in enumerate(dict.fromkeys(groups)):
        sel = [j for j, g in enumerate(groups) if g == group]
        data.append({"type": "scatter", "mode": "markers", "name": group or "\u2014",
                     "x": [xs[j] if numeric else str(xs[j]) for j in sel], "y": [ys[j] for j in sel],
                     "marker": {"size": 8, "color": _EXTRA[i % len(_EXTRA)]},
                     "customdata": [[args[j]] for j in sel],
                     "hovertemplate": "%{customdata[0]}<br>%{y:.3f}x<extra>%{fullData.name}</extra>"})
    rng = _log_range(ys, win, headroom)
    xaxis: dict[str, Any] = {"title": {"text": feature}, "automargin": True}
    if positive and max(xs) / min(xs) >= 16:
        xaxis["type"] = "log"
    elif not numeric:
        xaxis["type"] = "category"
    return _with_zh({
        "data": data,
        "layout": _base_layout(300, xaxis=xaxis,
                               yaxis={"type": "log", "title": {"text": _t("en", "chart.axis.verdictlog")},
                                      "range": rng, **log_ticks(rng)},
                               shapes=_parity_shapes(win, headroom, "y"), showlegend=len(data) > 1,
                               legend={"orientation": "h", "y": -0.3}),
    }, {"yaxis.title.text": _t("zh", "chart.axis.verdictlog")}, {})
