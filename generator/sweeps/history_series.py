"""The history as series: per kernel its points over the recorded sweeps, their steps, regression marks, charts.

``load_series`` turns the history folder (``generator.sweeps.history``) into one series of points
per kernel; ``points_from_rows`` and ``with_current`` add the sweep being built before anything is
written. ``series_steps`` finds the real changes in a series (``generator.sweeps.steps``: the math);
``regression_marks`` the kernels whose latest step is a regression (for the overview);
``history_chart_data`` gives Plotly figures and ``history_document`` the ``api/history.json`` document.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from generator.analyze.commits import same_commit, split_commits
from generator.analyze.message import sentence
from generator.model import FORMAT_VERSION, record
from generator.sweeps.history import load_snapshots
from generator.sweeps.steps import DEFAULT_MIN_CHANGE, StepReport, detect_steps

VERDICT_COLORS = {
    "WIN": "#1a7f37",
    "PARITY": "#6e7781",
    "HEADROOM": "#bc4c00",
    "BLOCKED": "#cf222e",
    "UNTIMED": "#8c959f",
}


# ---------------------------------------------------------------- series


@record
class HistoryPoint:
    """One kernel in one recorded sweep."""

    label: str
    commit: str | None  # the timed candidate commit(s), else the commit recorded with the sweep
    date: str | None
    geomean: float | None
    noise: float | None
    verdict: str | None
    name: str
    profiled_commit: str | None = None  # set only when the profile ran at another commit
    ci: tuple[float, float] | None = None  # the verdict ratio's interval, when the verdict engine gave one
    launch_overhead: tuple[float, int] | None = None  # (median µs, shapes) of the launch overhead, when given
    moved: dict[str, Any] | None = None  # who moved against the sweep before, and the facts (``moves``)

    @property
    def band(self) -> tuple[float, float] | None:
        """(geomean / noise, geomean * noise): the range the noise alone explains."""
        if self.geomean is None:
            return None
        n = self.noise if self.noise and self.noise > 1 else 1.0
        return self.geomean / n, self.geomean * n

    def to_json(self) -> dict[str, Any]:
        band = self.band
        return {"label": self.label, "commit": self.commit, "date": self.date, "geomean": self.geomean,
                "noise": self.noise, "low": band[0] if band else None, "high": band[1] if band else None,
                "verdict": self.verdict, "profiled_commit": self.profiled_commit,
                "ci": list(self.ci) if self.ci else None,
                "launch_overhead_us": list(self.launch_overhead) if self.launch_overhead else None,
                "moved": self.moved}


def pair_of(value: Any, kind: type = float) -> tuple | None:
    """``[a, b]`` of numbers as a tuple (``b`` of ``kind``), else None: a verdict engine's interval or
    ``[median_us, n]``, read whether or not the engine writes them."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None
    return float(value[0]), kind(value[1])


def point_extras(extras: Mapping[str, Any]) -> dict[str, Any]:
    """HistoryPoint's ``ci`` and ``launch_overhead`` from a kernel's score extras (or an index row)."""
    return {"ci": pair_of(extras.get("verdict_ci")), "launch_overhead": pair_of(extras.get("launch_overhead_us"), int)}


def point_commits(timed: str | Sequence[str] | None, profiled: str | None,
                  fallback: str | None) -> tuple[str | None, str | None]:
    """(commit, profiled_commit) of a point: the timed candidate commit(s) (``fallback``, the
    sweep's recorded commit, when none is known) and the profiled one when it is none of them."""
    commits = split_commits(timed) if isinstance(timed, str) or timed is None else sorted(set(timed))
    commit = ", ".join(commits) if commits else fallback
    if not profiled or not commits or any(same_commit(profiled, c) for c in commits):
        return commit, None
    return commit, profiled


def load_series(history_dir: str | os.PathLike) -> dict[str, list[HistoryPoint]]:
    """Per kernel slug, its points over the recorded sweeps (oldest first; absent sweeps skipped)."""
    series: dict[str, list[HistoryPoint]] = {}
    for entry, snap in load_snapshots(history_dir):
        profiled = (snap.provenance or {}).get("profiled_commit")
        for slug, k in snap.kernels.items():
            commit, prof = point_commits(k.candidate_commit, k.profiled_commit or profiled, entry.commit)
            series.setdefault(slug, []).append(HistoryPoint(
                label=entry.label, commit=commit, date=entry.date or snap.date,
                geomean=k.headline_value, noise=k.noise, verdict=k.verdict, name=k.name, profiled_commit=prof,
                moved=entry.moves.get(slug), **point_extras(k.extras)))
    return dict(sorted(series.items()))


def points_from_rows(rows: Sequence[Mapping[str, Any]], label: str, commit: str | None = None,
                     date: str | None = None) -> dict[str, HistoryPoint]:
    """The current sweep's point per kernel from ``api/index.json`` kernel rows (in memory).

    Reads ``slug``, ``name``, ``verdict_value`` (the ratio the verdict rests on; ``geomean_vs_best``
    for a row written before the evidence ladder), ``verdict``, ``timed_commits`` and
    ``profiled_commit`` and, when the row has it, ``noise`` (without it the noise band of
    this point is the point itself).
    """
    out = {}
    for r in rows:
        g, n = (r.get("verdict_value") if "verdict_basis" in r else r.get("geomean_vs_best")), r.get("noise")
        timed = r.get("timed_commits") if isinstance(r.get("timed_commits"), (list, tuple)) else None
        point_commit, prof = point_commits([str(c) for c in timed or []], r.get("profiled_commit"), commit)
        out[str(r["slug"])] = HistoryPoint(
            label=label, commit=point_commit, date=date,
            geomean=float(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else None,
            noise=float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None,
            verdict=r.get("verdict"), name=str(r.get("name") or r["slug"]), profiled_commit=prof,
            **point_extras(r))
    return dict(sorted(out.items()))


def with_current(series: Mapping[str, Sequence[HistoryPoint]],
                 current: Mapping[str, HistoryPoint], replaces: str | None = None) -> dict[str, list[HistoryPoint]]:
    """The recorded series with the current sweep's points appended (replacing the same label,
    and the points of the entry it ``replaces``).

    Lets a build draw the history, current sweep included, before it writes anything;
    ``record`` stores the current sweep once the site is published.
    """
    out = {slug: [p for p in pts if p.label != replaces and not (slug in current and p.label == current[slug].label)]
           for slug, pts in series.items()}
    for slug, point in current.items():
        out.setdefault(slug, []).append(point)
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- steps and regression marks


def series_steps(points: Sequence[HistoryPoint], min_change: float = DEFAULT_MIN_CHANGE) -> StepReport:
    """``detect_steps`` over one kernel's history points."""
    return detect_steps([p.geomean for p in points], [p.noise for p in points], min_change)


#: Verdicts from best to worst; a move down into HEADROOM or BLOCKED is a regression.
VERDICT_RANK = {"WIN": 3, "PARITY": 2, "HEADROOM": 1, "BLOCKED": 0}
REGRESSED_VERDICTS = ("HEADROOM", "BLOCKED")


def verdict_transition(points: Sequence[HistoryPoint]) -> tuple[int, int] | None:
    """(i, j) when the latest verdict change is a move down into HEADROOM or BLOCKED, else None.

    Only ranked verdicts count (UNTIMED and missing ones are skipped); ``i`` is the last
    point on the old verdict, ``j`` the first on the new one. A BLOCKED kernel has no
    geomean, so this is the only way its regression is seen.
    """
    ranked = [i for i, p in enumerate(points) if p.verdict in VERDICT_RANK]
    for a, b in reversed(list(zip(ranked, ranked[1:]))):
        va, vb = points[a].verdict, points[b].verdict
        if va == vb:
            continue
        if vb in REGRESSED_VERDICTS and VERDICT_RANK[vb] < VERDICT_RANK[va]:
            return a, b
        return None
    return None


def regression_marks(series: Mapping[str, Sequence[HistoryPoint]],
                     min_change: float = DEFAULT_MIN_CHANGE) -> dict[str, dict[str, Any]]:
    """Kernels whose latest step is a regression: slug -> what to show on the overview.

    ``{"from": label, "to": label, "commit": ..., "before": 1.08, "after": 0.90,
    "ratio": 0.833, "confirmed": true, "verdict": "WIN → HEADROOM"}``; ``from`` is the last
    sweep on the old level. A regression is the latest geomean step when it goes down, or
    the latest verdict change when it goes down into HEADROOM or BLOCKED (``verdict`` is
    then set; for BLOCKED ``after`` and ``ratio`` are None: there is no geomean).
    """
    out = {}
    for slug, points in sorted(series.items()):
        report = series_steps(points, min_change)
        move = verdict_transition(points)
        verdict = f"{points[move[0]].verdict} → {points[move[1]].verdict}" if move else None
        if report.steps and report.steps[-1].regression:
            step = report.steps[-1]
            prev = max((i for i in range(step.index) if points[i].geomean is not None and i not in report.blips),
                       default=None)
            out[slug] = {
                "from": points[prev].label if prev is not None else None,
                "to": points[step.index].label,
                "commit": points[step.index].commit,
                "before": step.before,
                "after": step.after,
                "ratio": step.ratio,
                "confirmed": step.confirmed,
                "verdict": verdict if move and move[1] == step.index else None,
            }
        elif move:
            a, b = move
            before, after = points[a].geomean, points[b].geomean
            out[slug] = {
                "from": points[a].label,
                "to": points[b].label,
                "commit": points[b].commit,
                "before": before,
                "after": after,
                "ratio": after / before if before and after else None,
                "confirmed": any(p.verdict == points[b].verdict for p in points[b + 1:]),
                "verdict": verdict,
            }
    return out


# ---------------------------------------------------------------- charts and the api document


def _point_lines(p: HistoryPoint) -> list[str]:
    """Hover lines of one point: sweep, commit, date, geomean with its noise, verdict (worded lines
    are sentences, ``message.sentence``; the others data)."""
    head = p.label + (f" @ {p.commit}" if p.commit else "")
    lines = [sentence("msg.hist.profiled", head=head, commit=p.profiled_commit) if p.profiled_commit else head]
    if p.date:
        lines.append(p.date)
    if p.geomean is not None:
        g = f"{p.geomean:.3f}x"
        lines.append(sentence("msg.hist.noise", g=g, n=f"{(p.noise - 1) * 100:.1f}%") if p.noise and p.noise > 1
                     else sentence("msg.hist.geomean", g=g))
    if p.ci:
        lines.append(sentence("msg.hist.ci", lo=f"{p.ci[0]:.3f}x", hi=f"{p.ci[1]:.3f}x"))
    if p.launch_overhead:
        lines.append(sentence("msg.hist.launch", us=f"{p.launch_overhead[0]:.1f}", n=p.launch_overhead[1]))
    lines.append(p.verdict or sentence("msg.hist.noverdict"))
    return lines


def _step_lines(s: Any) -> list[str]:
    """The hover line of a regression step."""
    r = f"{(s.ratio - 1) * 100:+.1f}%"
    return [sentence("msg.hist.regression" if s.confirmed else "msg.hist.regression.unconfirmed", r=r)]


def history_chart_data(series: Mapping[str, Sequence[HistoryPoint]], min_change: float = DEFAULT_MIN_CHANGE,
                       thresholds: tuple[float, float] = (0.95, 1.05)) -> dict[str, dict[str, Any]]:
    """Per kernel slug a Plotly figure ``{"data": [...], "layout": {...}}`` (plain JSON values).

    A trace with hover ``text`` carries its lines in ``text_lines`` (worded lines are sentences, for the
    site to word in 中文; not part of the drawn figure). Traces: the noise band (two lines, the lower filled up to the upper), the geomean
    line with one marker per sweep coloured by its verdict and labelled with its sweep
    and commit, and triangles on regression steps. The x axis is categorical (sweep
    labels, oldest first); dashed lines mark the HEADROOM and WIN thresholds. Draw with
    ``Plotly.newPlot(div, fig.data, fig.layout, {displayModeBar: false})``.
    """
    figures = {}
    for slug, points in sorted(series.items()):
        pts = [p for p in points]
        if all(p.geomean is None for p in pts):
            continue  # no timings in any sweep: nothing to draw
        x = [p.label for p in pts]
        bands = [p.band for p in pts]
        report = series_steps(pts, min_change)
        regress = [s for s in report.steps if s.regression]
        data: list[dict[str, Any]] = [
            {"type": "scatter", "mode": "lines", "name": "noise band", "x": x,
             "y": [b[1] if b else None for b in bands], "line": {"width": 0}, "hoverinfo": "skip",
             "showlegend": False},
            {"type": "scatter", "mode": "lines", "name": "noise band", "x": x,
             "y": [b[0] if b else None for b in bands], "line": {"width": 0}, "fill": "tonexty",
             "fillcolor": "rgba(110,119,129,0.18)", "hoverinfo": "skip"},
            {"type": "scatter", "mode": "lines+markers", "name": "verdict ratio", "x": x,
             "y": [p.geomean for p in pts], "text": ["<br>".join(_point_lines(p)) for p in pts],
             "text_lines": [_point_lines(p) for p in pts],
             "hovertemplate": "%{text}<extra></extra>", "line": {"color": "#0969da"},
             "marker": {"size": 9, "color": [VERDICT_COLORS.get(p.verdict or "", "#8c959f") for p in pts]},
             "customdata": [[p.verdict, p.commit] for p in pts]},
        ]
        if any(p.ci and p.geomean is not None for p in pts):  # the verdict ratio's interval, where known
            data[2]["error_y"] = {"type": "data", "symmetric": False, "color": "#6e7781", "thickness": 1,
                                  "array": [p.ci[1] - p.geomean if p.ci and p.geomean is not None else None for p in pts],
                                  "arrayminus": [p.geomean - p.ci[0] if p.ci and p.geomean is not None else None
                                                 for p in pts]}
        if regress:
            data.append({"type": "scatter", "mode": "markers", "name": "regression",
                         "x": [x[s.index] for s in regress], "y": [pts[s.index].geomean for s in regress],
                         "text": ["<br>".join(_step_lines(s)) for s in regress],
                         "text_lines": [_step_lines(s) for s in regress],
                         "hovertemplate": "%{text}<extra></extra>",
                         "marker": {"symbol": "triangle-down", "size": 14, "color": VERDICT_COLORS["BLOCKED"]}})
        layout = {
            "title": {"text": f"{pts[-1].name if pts else slug}: verdict ratio over sweeps"},
            # issue 13: an explicit height and titles that fit it (automargin keeps them inside)
            "height": 320,
            "xaxis": {"type": "category", "title": {"text": "sweep"}, "automargin": True},
            "yaxis": {"title": {"text": "verdict ratio (x)"}, "automargin": True},
            "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": t, "y1": t,
                        "line": {"dash": "dot", "width": 1, "color": "#6e7781"}} for t in thresholds],
            "showlegend": False,
            "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        }
        figures[slug] = {"data": data, "layout": layout}
    return figures


def history_document(series: Mapping[str, Sequence[HistoryPoint]],
                     min_change: float = DEFAULT_MIN_CHANGE) -> dict[str, Any]:
    """The ``api/history.json`` document: per kernel its points, steps and regression mark."""
    marks = regression_marks(series, min_change)
    kernels = {}
    for slug, points in sorted(series.items()):
        report = series_steps(points, min_change)
        kernels[slug] = {
            "points": [p.to_json() for p in points],
            "steps": [s.to_json() for s in report.steps],
            "blips": report.blips,
            "regression": marks.get(slug),
        }
    return {"format_version": FORMAT_VERSION, "kind": "kernel-atlas-history-series",
            "min_change": min_change, "kernels": kernels}
