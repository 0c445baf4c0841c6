"""The speed-across-shapes panel: per-shape speedups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.analyze.verdicts import ABOVE_ROOF_TEXT
from generator.site import charts
from generator.site.views.coverage import shape_models
from generator.site.views.base import DASH, KernelData, SiteContext, VERDICTS, fmt_num, fmt_x, sort_key
from generator.site.views.overview import ChartView, Fact, IndexRow, chart_view
from generator.site.views.panel import register_panel


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
    flags: list[str]  # suspect reference, scope mismatch, above the HBM roof (VERDICTS rules 7-9)
    models: str = ""  # the shape's models joined by "|" (data-models: site.js filters by #model=)




def shape_flags(sh: Any) -> list[str]:
    """The rule 7-9 flags of one shape, in words."""
    out = []
    if sh.suspect_reference:
        errors = [f"{p}: {r.correctness_error}" for p, r in sh.providers.items()
                  if r.correctness_error and r.status == "incorrect"]
        out.append("suspect reference check (an independent library fails it too): " + "; ".join(errors))
    if sh.scope_mismatch:
        best = sh.providers.get(sh.best_baseline)
        scope = ", ".join(f"{k.replace('includes_', '')} {'yes' if v else 'no'}"
                          for k, v in (best.scope if best else {}).items() if v is not None)
        like = (f"; like-for-like best {sh.like_for_like_baseline} {sh.like_for_like_speedup:.2f}x"
                if sh.like_for_like_baseline else "; no like-for-like baseline")
        out.append(f"scope mismatch: {sh.best_baseline} times another scope ({scope}){like}")
    for p in sh.above_roof:
        gbps = sh.providers[p].effective_gbps
        out.append(f"{p} at {gbps / 1000:.1f} TB/s {ABOVE_ROOF_TEXT}")
    return out


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
    provider_notes: list[Fact]  # each column's baseline_matrix.yaml note
    provider_titles: dict[str, str]  # the same, as the column header's tooltip
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
            if r.above_roof:
                css += " t-roof"
                title = f"{r.effective_gbps / 1000:.1f} TB/s: {ABOVE_ROOF_TEXT}" + (f"; {title}" if title else "")
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
            flags=shape_flags(sh),
            models="|".join(shape_models(sh)),
        ))
    return out


def like_for_like_text(s: Any) -> str:
    """The like-for-like reading beside the verdict (VERDICTS rule 8)."""
    if s.like_for_like_geomean:
        g, n = s.like_for_like_geomean
        lfl = f"{fmt_x(g)} over {n} shapes with a like-for-like baseline"
        if s.like_for_like_reference_only:
            lfl += f" (always {s.reference})"
    else:
        lfl = "no shape has a like-for-like baseline"
    head = (f"not like-for-like: the best baseline times another scope on {s.scope_mismatch_shapes} of "
            f"{s.n_measured} shapes; " if s.not_like_for_like else
            f"{s.scope_mismatch_shapes} of {s.n_measured} shapes' best baseline times another scope; ")
    return head + lfl


@register_panel("speed", "Speed across shapes", 20)
def _speed_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> SpeedView:
    s = k.score
    empty = dict(facts=[], per_baseline=[], stage_split=[], model_split=[], chart=None, providers=[],
                 shapes=[], notes=[], provenance=[], provider_notes=[], provider_titles={},
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
        Fact("like-for-like", like_for_like_text(s), "fact.scope", css="warn" if s.not_like_for_like else ""),
    ]
    if row is not None and (row.timed_commits or row.profiled_commit):
        facts.append(Fact("commits", f"timed at {', '.join(row.timed_commits) or DASH}; profiled at "
                          f"{row.profiled_commit or DASH}" + (f". {row.commit_note}" if row.commit_note else ""),
                          "fact.commits", css="warn" if row.commit_note else ""))
    if s.suspect_reference:
        facts.append(Fact("suspect reference", f"{s.suspect_reference} shapes where {s.candidate} and an independent "
                          "library both fail the correctness check: the check is the likely culprit, not a hard "
                          "failure (both errors on the shape rows)", "fact.suspect", css="warn"))
    if s.above_roof:
        facts.append(Fact("above the HBM roof", f"{len(s.above_roof)} rows ({', '.join(sorted({p for _, p in s.above_roof}))}) "
                          f"{ABOVE_ROOF_TEXT}", "fact.roof", css="warn"))
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
        provider_notes=[Fact(p, " ".join(s.provider_notes[p].split())) for p in s.providers if p in s.provider_notes],
        provider_titles={p: " ".join(n.split()) for p, n in s.provider_notes.items()},
        headline_text=k.headline.text if k.headline else None,
        headline_note=k.headline_note, provenance=prov,
    )
