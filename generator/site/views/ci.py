"""The CI part of the site (DOMAIN.md §6): display-ready views of a ``analyze.ci.report.Report``.

Pages (all under ``ci/``, so every link is relative to ``../``):

    ci/index.html              health per runner (its latest push to main against the release tag),
                               the pull requests, the noise of the stream, links to the rest
    ci/pr-<N>.html             one pull request's check per runner
    ci/op-<runner>--<op>.html  every series of one op on one runner: its trend chart with its noise
                               band, each PR's paired ratio and main against the tag (drawn on demand)
    ci/speedups.html           FlyDSL against AIter per device, with the range of the last runs
    ci/devices.html            the same op and shape on each runner, side by side
"""

from __future__ import annotations

import math
import re
from dataclasses import field

from generator.analyze.ci import report as ci_report
from generator.analyze.ci.report import op_page, series_anchor, slug
from generator.analyze.ci.moves import IMPROVEMENT, NOISE, REGRESSION, Move, Series, bound, noise_summary, threshold_text
from generator.model import record
from generator.read.ci_stream import CiRecord
from generator.site.views.overview_chart import ChartView, chart_view

ROOT = "../"
#: The words a move's bound is read on, by ``Move.basis``.
BASIS_KEYS = {"noise": "ci.basis.noise", "gate": "ci.basis.gate", "gate, noise unknown": "ci.basis.unknown"}
VERDICT_CSS = {"WIN": "verdict-win", "PARITY": "verdict-parity", "HEADROOM": "verdict-headroom"}


def pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.2f} %"


@record
class MoveRow:
    """One paired ratio, as a table row."""

    op: str
    shape: str
    dtype: str
    metric: str
    ratio: str
    threshold: str
    noise: str
    basis: str  # catalogue key
    values: str  # ``1387.42 vs 1535.78``
    href: str  # its series on its op page
    kernel: str  # its kernel's page in the sweep ("" when none)
    resolution: bool
    at_tag: str = ""  # a PR's move whose value is within noise of the release tag: its ratio to the tag ("1.000x")


def move_row(m: Move, kernels: dict[str, str], prefix: str = "", series: dict | None = None) -> MoveRow:
    """``series`` (a PR's moves against main): mark a move whose value is at the release tag's level."""
    r = m.record
    base = "—" if m.pair.baseline is None else f"{m.pair.baseline:g}"
    tag = ci_report.at_tag_level(m, series) if series else None
    return MoveRow(r.op, r.shape, r.dtype, r.metric, f"{m.ratio:.3f}x", f"{threshold_text(m)}x", pct(m.noise),
                   BASIS_KEYS[m.basis], f"{r.value:g} vs {baseline_label(m)}{base}",
                   f"{prefix}{op_page(r.runner, r.op)}#{series_anchor(r.series)}", kernel_href(kernels, r.op, prefix),
                   m.by_resolution, f"{tag.ratio:.3f}x" if tag else "")


def baseline_label(m: Move) -> str:
    """A PR's baseline that is not main itself, named before its value (``main~1 ``: PR #673's 39 pairs)."""
    return _label(m.pair.label) if m.pair is m.record.vs_main else ""


def _label(label: str) -> str:
    return f"{label} " if label not in ("", "main") else ""


def kernel_href(kernels: dict[str, str], op: str, prefix: str = "") -> str:
    """The sweep kernel page of a CI op (``kernels``: op -> slug), relative to ``ci/``."""
    return f"{prefix}../kernels/{kernels[op]}/index.html" if op in kernels else ""


@record
class Page:
    """What every CI page carries for ``base.html`` and the CI sub-navigation."""

    title: str
    site_title: str
    ci_only: bool
    root: str = ROOT
    history_nav: bool = False
    ci_nav: bool = True


@record
class HealthCard:
    runner: str
    run_id: int
    run_url: str
    ts: str
    commit: str
    tag: str
    compared: int
    improvements: int
    regressions: list[MoveRow]


@record
class PrLine:
    pr: int
    href: str
    # (runner, regressions, of those at the tag's level, improvements, their flags, of those noise)
    cells: list[tuple[str, int, int, int, int, int]]
    missing: list[tuple[str, str]]


@record
class OpLink:
    runner: str
    op: str
    href: str
    series: int
    kernel: str


@record
class LandingPage(Page):
    facts: list[tuple[str, str]] = field(default_factory=list)  # (catalogue key, data)
    health: list[HealthCard] = field(default_factory=list)
    prs: list[PrLine] = field(default_factory=list)
    ops: list[OpLink] = field(default_factory=list)


def repo_url(rep: ci_report.Report) -> str:
    return f"https://github.com/{rep.stream.repo}" if re.fullmatch(r"[\w.-]+/[\w.-]+", rep.stream.repo or "") else ""


def run_url(rep: ci_report.Report, run_id: int) -> str:
    if run_id in rep.runs and rep.runs[run_id].url.startswith("https://"):
        return rep.runs[run_id].url
    base = repo_url(rep)
    return f"{base}/actions/runs/{run_id}" if base else ""


def landing_page(rep: ci_report.Report, title: str, kernels: dict[str, str], ci_only: bool) -> LandingPage:
    """``ci/index.html``."""
    n = noise_summary(rep.series)
    facts = [("ci.fact.file", rep.stream.path.rsplit("/", 1)[-1]), ("ci.fact.repo", rep.stream.repo or "—"),
             ("ci.fact.updated", rep.stream.updated or "—"), ("ci.fact.records", f"{len(rep.stream.records):,}"),
             ("ci.fact.series", str(len(rep.series))), ("ci.fact.prs", str(len(rep.prs))),
             ("ci.fact.noise", f"{pct(n['median'])} / {pct(n['p90'])} / {pct(n['worst'])} ({n['known']})"),
             ("ci.fact.flags", f"{rep.flags_total} / {rep.flags_noise}"),
             ("ci.fact.inverted", str(len(rep.inverted)))]
    health = [HealthCard(h.runner, h.run_id, run_url(rep, h.run_id), h.ts, h.commit[:10], h.tag or "—", len(h.moves),
                         len(h.of(IMPROVEMENT)), [move_row(m, kernels) for m in h.of(REGRESSION)])
              for h in rep.health.values()]
    prs = []
    for pr in sorted(rep.prs, reverse=True):
        cells = [(c.runner, len(c.of(REGRESSION)), sum(ci_report.at_tag_level(m, rep.series) is not None
                                                        for m in c.of(REGRESSION)),
                  len(c.of(IMPROVEMENT)), len(c.flags), c.flags_noise)
                 for c in rep.checks if c.pr == pr]
        prs.append(PrLine(pr, f"pr-{pr}.html", cells, ci_report.missing_runners(rep, pr)))
    ops: dict[tuple[str, str], int] = {}
    for key in rep.series:
        if key[4] != ci_report.SPEEDUP:
            ops[(key[0], key[1])] = ops.get((key[0], key[1]), 0) + 1
    links = [OpLink(r, o, op_page(r, o), n, kernel_href(kernels, o)) for (r, o), n in sorted(ops.items())]
    return LandingPage(f"CI — {title}", title, ci_only, facts=facts, health=health, prs=prs, ops=links)


# ---------------------------------------------------------------- a pull request

@record
class PrRunner:
    runner: str
    run_id: int
    run_url: str
    ts: str
    commit: str
    regressions: list[MoveRow]
    improvements: list[MoveRow]
    flagged_noise: list[MoveRow]  # their -3 % flags that are within noise or resolution
    flagged_unusable: list[str]  # their flags without a usable pair (series names)
    within_noise: list[MoveRow]
    flags: int


@record
class PrPage(Page):
    pr: int = 0
    pr_url: str = ""
    runners: list[PrRunner] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)


def pr_page(rep: ci_report.Report, pr: int, title: str, kernels: dict[str, str], ci_only: bool) -> PrPage:
    """``ci/pr-<N>.html``."""
    runners = []
    for c in (c for c in rep.checks if c.pr == pr):
        noisy = [f for f in c.flags if ci_report.flag_is_noise(f, rep.series)]
        by_key = {m.record.index: m for m in c.moves}
        runners.append(PrRunner(
            c.runner, c.run_id, run_url(rep, c.run_id), c.ts, c.commit[:10],
            [move_row(m, kernels, series=rep.series) for m in c.of(REGRESSION)],
            [move_row(m, kernels, series=rep.series) for m in c.of(IMPROVEMENT)],
            [move_row(by_key[f.index], kernels) for f in noisy if f.index in by_key],
            [f"{f.op} {f.shape} {f.dtype}" for f in noisy if f.index not in by_key],
            [move_row(m, kernels) for m in c.of(NOISE)], len(c.flags)))
    base = repo_url(rep)
    return PrPage(f"PR #{pr} — CI — {title}", title, ci_only, pr=pr, pr_url=f"{base}/pull/{pr}" if base else "",
                  runners=runners, missing=ci_report.missing_runners(rep, pr))


# ---------------------------------------------------------------- the series of one op on one runner

@record
class SeriesView:
    anchor: str
    shape: str
    dtype: str
    metric: str
    noise: str
    pairs: int
    latest: str  # its latest push to main: value, commit and day ("—": none measured)
    chart: ChartView | None


@record
class OpPage(Page):
    runner: str = ""
    op: str = ""
    kernel: str = ""
    series: list[SeriesView] = field(default_factory=list)
    others: list[OpLink] = field(default_factory=list)  # the same op on the other runners


#: The trend figure's trace names and their keys.
TRACES = {"noise band": "ci.trace.band", "PR against main (paired)": "ci.trace.pr", "main against the tag": "ci.trace.tag"}


def trend_figure(s: Series, runs: dict | None = None) -> dict | None:
    """One series over time: the band of ±max(3 % gate, 3 x noise) around 1, each PR record's paired
    ratio against main, and each push to main's ratio against the release tag (``runs``: runs.json, whose
    pull_request runs among the ``pr``-null ones are no push), each trace in time order."""
    runs = runs or {}
    pr = sorted((r.ts, r.vs_main.ratio, f"#{r.pr} · {r.value:g} vs {_label(r.vs_main.label)}{r.vs_main.baseline:g}")
                for r in s.records if r.pr is not None and _pair_ok(r, "vs_main"))
    tag = sorted((r.ts, r.vs_tag.ratio, f"{r.vs_tag.label} · {r.value:g} vs {r.vs_tag.baseline:g}")
                 for r in s.records if ci_report.is_push(r, runs) and _pair_ok(r, "vs_tag"))
    if not pr and not tag:
        return None
    xs = sorted(t for t, _, _ in pr + tag)
    t = bound(s.noise)
    hi, lo = math.exp(t), math.exp(-t)
    data = [
        {"type": "scatter", "x": [xs[0], xs[-1]], "y": [hi, hi], "mode": "lines", "line": {"width": 0},
         "hoverinfo": "skip", "showlegend": False, "name": "noise band"},
        {"type": "scatter", "x": [xs[0], xs[-1]], "y": [lo, lo], "mode": "lines", "line": {"width": 0},
         "fill": "tonexty", "fillcolor": "rgba(128,128,128,0.2)", "hoverinfo": "skip", "name": "noise band"},
        {"type": "scatter", "x": [p[0] for p in pr], "y": [p[1] for p in pr], "text": [p[2] for p in pr],
         "mode": "markers", "name": "PR against main (paired)", "hovertemplate": "%{y:.3f}x %{text}<extra></extra>"},
        {"type": "scatter", "x": [p[0] for p in tag], "y": [p[1] for p in tag], "text": [p[2] for p in tag],
         "mode": "lines+markers", "name": "main against the tag", "hovertemplate": "%{y:.3f}x %{text}<extra></extra>"},
    ]
    layout = {"height": 240, "margin": {"l": 50, "r": 10, "t": 10, "b": 40}, "xaxis": {"type": "date"},
              "yaxis": {"title": {"text": "ratio"}, "tickformat": ".2f"},
              "legend": {"orientation": "h", "y": -0.25}}
    zh = {"layout": {"yaxis.title.text": "@ci.axis.ratio"},
          "traces": {str(i): {"name": "@" + TRACES[d["name"]]} for i, d in enumerate(data)}}
    return {"data": data, "layout": layout, "zh": zh}


def _pair_ok(r: CiRecord, name: str) -> bool:
    p = getattr(r, name)
    return (r.status == "ok" and r.value is not None and r.value > 0 and p is not None and p.ratio is not None
            and p.ratio > 0 and p.baseline is not None)


def op_pages(rep: ci_report.Report, title: str, kernels: dict[str, str], ci_only: bool,
             zh_of) -> dict[str, OpPage]:
    """Every op page by file name (relative to ``ci/``); ``zh_of(key)`` words a figure's 中文."""
    groups: dict[tuple[str, str], list[Series]] = {}
    for key, s in rep.series.items():
        if key[4] != ci_report.SPEEDUP:
            groups.setdefault((key[0], key[1]), []).append(s)
    out = {}
    for (runner, op), ss in sorted(groups.items()):
        views = []
        for s in ss:
            fig = trend_figure(s, rep.runs)
            if fig is not None:
                fig["zh"] = _worded(fig["zh"], zh_of)
            last = ci_report.latest_on_main(s, rep.runs)
            views.append(SeriesView(series_anchor(s.key), s.key[2], s.key[3], s.key[4], pct(s.noise), s.pairs,
                                    f"{last.value:g} {s.key[4]} · {last.commit[:10]} · {last.ts[:10]}" if last else "—",
                                    chart_view(f"{slug(runner)}-{slug(op)}-{series_anchor(s.key)}", fig) if fig else None))
        others = [OpLink(r, op, op_page(r, op), len(v), "") for (r, o), v in sorted(groups.items()) if o == op and r != runner]
        out[op_page(runner, op)] = OpPage(f"{op} · {runner} — CI — {title}", title, ci_only, runner=runner, op=op,
                                          kernel=kernel_href(kernels, op), series=views, others=others)
    return out


def _worded(zh: dict, zh_of) -> dict:
    """A figure's 中文 overrides with each ``@key`` replaced by its catalogue text."""
    def w(v):
        return zh_of(v[1:]) if isinstance(v, str) and v.startswith("@") else v
    return {"layout": {k: w(v) for k, v in zh["layout"].items()},
            "traces": {i: {k: w(v) for k, v in t.items()} for i, t in zh["traces"].items()}}


# ---------------------------------------------------------------- FlyDSL against AIter; the devices side by side

@record
class SpeedupRow:
    runner: str
    op: str
    shape: str
    dtype: str
    ratio: str
    verdict: str
    css: str
    spread: str  # ``0.89x–1.26x``
    last: str  # the last runs' ratios, oldest first
    flips: bool  # the last runs hold more than one verdict
    source: str = ""  # the latest row's run: "#N" (a pull request's branch), "main" or its run id


@record
class SpeedupsPage(Page):
    rows: list[SpeedupRow] = field(default_factory=list)
    inverted: list[tuple[str, str, str, str, str]] = field(default_factory=list)  # (ts, op, shape, stored, true)


def speedups_page(rep: ci_report.Report, title: str, ci_only: bool) -> SpeedupsPage:
    """``ci/speedups.html``."""
    from generator.analyze.verdicts.rules import verdict_of_speedup

    rows = [SpeedupRow(s.runner, s.op, s.shape, s.dtype, f"{s.ratio:.2f}x", s.verdict, VERDICT_CSS.get(s.verdict, ""),
                       f"{min(s.last):.2f}x–{max(s.last):.2f}x", " · ".join(f"{x:.2f}" for x in s.last),
                       len({verdict_of_speedup(x) for x in s.last}) > 1, s.source)
            for s in rep.speedups]
    inv = [(r.ts[:16].replace("T", " "), r.op, r.shape, f"{r.value:g}", f"{ci_report.speedup_ratio(r):.2f}x")
           for r in rep.inverted]
    return SpeedupsPage(f"FlyDSL vs AIter — CI — {title}", title, ci_only, rows=rows, inverted=inv)


@record
class DeviceRow:
    op: str
    shape: str
    dtype: str
    metric: str
    cells: list[str]  # the latest value on each runner ("—": not measured there)
    hrefs: list[str]


@record
class DevicesPage(Page):
    runners: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)  # each runner's latest push to main: commit and time ("" none)
    rows: list[DeviceRow] = field(default_factory=list)


def in_run(s: Series, run_id: int) -> CiRecord | None:
    """The series' record in one run, when it measured a value (status ok, above 0)."""
    return next((r for r in s.records if r.run_id == run_id and r.status == "ok" and r.value is not None
                 and r.value > 0), None)


def devices_page(rep: ci_report.Report, title: str, ci_only: bool) -> DevicesPage:
    """``ci/devices.html``: each (op, shape, dtype, metric) measured on more than one runner, its value in
    each runner's latest push to main (the health run: a pull request's records measure its branch)."""
    runners = sorted({k[0] for k in rep.series})
    runs = [f"{h.commit[:10]} · {h.ts[:16].replace('T', ' ')}" if (h := rep.health.get(r)) else "" for r in runners]
    by: dict[tuple, dict[str, Series]] = {}
    for key, s in rep.series.items():
        by.setdefault(key[1:], {})[key[0]] = s
    rows = []
    for rest, per in sorted(by.items()):
        if len(per) < 2:
            continue
        cells, hrefs = [], []
        for runner in runners:
            s, h = per.get(runner), rep.health.get(runner)
            last = in_run(s, h.run_id) if s and h else None
            cells.append(f"{last.value:g}" if last else "—")
            hrefs.append(f"{op_page(runner, rest[0])}#{series_anchor((runner,) + rest)}" if s and rest[3] != ci_report.SPEEDUP else "")
        rows.append(DeviceRow(*rest, cells=cells, hrefs=hrefs))
    return DevicesPage(f"Devices — CI — {title}", title, ci_only, runners=runners, runs=runs, rows=rows)
