"""The speed-across-shapes panel: per-shape speedups."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from generator.analyze.message import Sentence, sentence
from generator.analyze.verdicts.rules import FLOOR_FACTOR, methods_differ, shape_splits
from generator.model import record
from markupsafe import Markup

from generator.analyze.verdicts import replay
from generator.site import charts, clock_chart, i18n, wording
from generator.site.views.coverage import shape_models
from generator.site.views.base import DASH, KernelData, SiteContext, VERDICTS, fmt_num, fmt_x, sort_key
from generator.site.views.overview import ChartView, Fact, chart_view
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


# ---- speed: per-shape speedups

@record
class ProviderCell:
    """One provider's time (or status) on one shape."""

    text: str
    css: str
    title: str
    sort: str
    title_zh: str = ""  # the tooltip in 中文 (data-zh-title), when it has words


@record
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
    verdict_baseline: str = DASH  # rule 10's comparable baseline the verdict rests on
    verdict_text: Any = DASH  # its ratio on the common timing method (a sentence when qualified)
    verdict_sort: str = ""
    verdict_css: str = "o-none"
    verdict_data: bool = True  # the ratio alone (data, not translated); False: a sentence
    unverified: str = ""  # measured, a check not run (rule 1): the speedup cells' tooltip, "" otherwise
    unverified_zh: str = ""
    speedup_data: bool = True  # the speedup alone (data); False: a sentence (rule 16: no ratio)




def shape_flags(sh: Any) -> list[str]:
    """The rule 7-9 flags of one shape, in words."""
    out = []
    if sh.suspect_reference:
        errors = [f"{p}: {r.correctness_error}" for p, r in sh.providers.items()
                  if r.correctness_error and r.status == "incorrect"]
        out.append(sentence("msg.shape.suspect", errors="; ".join(errors)))
    if sh.scope_mismatch:
        best = sh.providers.get(sh.best_baseline)
        scope = ", ".join(f"{k.replace('includes_', '')} {'yes' if v else 'no'}"
                          for k, v in (best.scope if best else {}).items() if v is not None)
        lfl = sh.providers.get(sh.like_for_like_baseline or "")
        if lfl is not None and methods_differ(sh.providers[sh.candidate], lfl):  # a graph time against an eager one
            out.append(sentence("msg.shape.scope.mixed", baseline=sh.best_baseline, scope=scope, lfl=sh.like_for_like_baseline,
                                x=f"{sh.like_for_like_speedup:.2f}x"))
        elif sh.like_for_like_baseline:
            out.append(sentence("msg.shape.scope", baseline=sh.best_baseline, scope=scope, lfl=sh.like_for_like_baseline,
                                x=f"{sh.like_for_like_speedup:.2f}x"))
        else:
            out.append(sentence("msg.shape.scope.none", baseline=sh.best_baseline, scope=scope))
    for p in sh.above_roof:
        out.append(_roof_sentence(p, sh.providers[p]))
    if getattr(sh, "unverified", False):
        out.append(sentence("msg.shape.unverified", cand=sh.candidate))
    return out


def _roof_sentence(provider: str, r: Any) -> Sentence:
    """What rule 9 says of one provider's row above a roof (HBM or dense compute)."""
    if r.roof_kind == "compute":
        return sentence("msg.shape.roof.compute", provider=provider, tflops=f"{r.effective_tflops:,.0f}")
    return sentence("msg.shape.roof", provider=provider, tbs=f"{r.effective_gbps / 1000:.1f}")


@record
class SplitRow:
    """A geomean of a subset (per baseline, stage or model)."""

    name: str
    geomean_text: str
    n: int
    css: str
    none: bool = False  # the row of shapes without a name: "(none)"


@record
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
    headline_zh: str = ""
    variants: list[str] = field(default_factory=list)  # the variant columns, after the providers
    variant_split: list[SplitRow] = field(default_factory=list)  # each variant's [geomean, n]
    method_notes: list[str] = field(default_factory=list)  # per-baseline geomeans that mix timing methods
    clocks_chart: ChartView | None = None  # the two clocks shape by shape (rule 13)
    chart_note: Sentence | None = None  # the shapes left off the speedup chart (rule 16), said where it stands


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
    return [SplitRow(name or i18n.en("speed.none"), fmt_x(v[0]), v[1], outcome_css(v[0], ctx), none=not name)
            for name, v in split.items()]


def _cells(sh: Any, providers: list[str], norow: ProviderCell) -> list[ProviderCell]:
    """One shape's provider cells: time (or status), outcome class, tooltip, sort key."""
    cells = []
    for p in providers:
        r = sh.providers.get(p)
        if r is None:
            cells.append(ProviderCell(norow.text, norow.css, norow.title, norow.sort, norow.title_zh))
            continue
        title = r.reason or ""
        if r.usable and r.p10_us and r.p90_us:
            title = f"p10 {r.p10_us:.2f} / p90 {r.p90_us:.2f} us" + (f"; {title}" if title else "")
        css = "t-ok" if r.usable else ("t-fail" if r.status in ("failed", "oom", "incorrect") else "t-na")
        if p == sh.best_baseline:
            css += " t-best"
        title_zh = ""
        if r.above_roof:
            css += " t-roof"
            rest = f"; {title}" if title else ""
            title, title_zh = r.roof_text + rest, i18n.zh_said_text(r.roof_text) + rest
        cells.append(ProviderCell(r.time_text, css, title, sort_key(r.median_us if r.usable else None), title_zh))
    return cells


def _variant_cells(sh: Any, variants: list[str], norow: ProviderCell) -> list[ProviderCell]:
    """One shape's variant cells: the time, and the ratio to the verdict baseline in the tooltip."""
    cells = []
    for p in variants:
        r = sh.variants.get(p)
        if r is None:
            cells.append(ProviderCell(norow.text, norow.css + " t-variant", norow.title, norow.sort, norow.title_zh))
            continue
        css = ("t-ok" if r.usable else ("t-fail" if r.status in ("failed", "oom", "incorrect") else "t-na")) + " t-variant"
        title = r.reason or ""
        if r.speedup is not None:
            kw = {"x": fmt_x(r.speedup), "baseline": sh.verdict_baseline}
            title, title_zh = i18n.en("speed.cell.variant", **kw), i18n.zh("speed.cell.variant", **kw)
        else:
            title_zh = ""
        cells.append(ProviderCell(r.time_text, css, title, sort_key(r.median_us if r.usable else None), title_zh))
    return cells


def verdict_cell(sh: Any) -> Any:
    """The shape's verdict ratio (rule 10: on the kernel clock): ``0.88x``, ``…, at the floor``
    (rule 11), ``—, not comparable`` (measured, no comparable baseline), or a dash."""
    if not sh.measured:
        return DASH
    if sh.verdict_speedup is None:
        if replay.capture_failed(sh):  # rule 10: the candidate fell back to eager calls there
            return sentence("speed.vratio.capturefail")
        if sh.replay_partial:  # rule 16
            return sentence("speed.vratio.partial")
        return sentence("speed.vratio.none")
    x = fmt_x(sh.verdict_speedup)
    return sentence("speed.vratio.floor", x=x) if sh.at_floor else x


def verdict_note(sh: Any) -> tuple[str, str]:
    """The shape's verdict ratio in words, English and 中文 (the per-shape chart's hover)."""
    if sh.verdict_speedup is None:
        parts = [("speed.caveat.capturefail" if replay.capture_failed(sh) else
                  "speed.caveat.partial" if sh.replay_partial else "speed.caveat.nocomp", {})]
    else:
        parts = [("speed.caveat.verdict", {"x": fmt_x(sh.verdict_speedup), "baseline": sh.verdict_baseline})]
    parts += [("speed.caveat.floor", {})] if sh.at_floor else []
    parts += [("speed.caveat.unverified", {})] if getattr(sh, "unverified", False) else []
    return "; ".join(i18n.en(k, **kw) for k, kw in parts), "；".join(i18n.zh(k, **kw) for k, kw in parts)


def _with_verdict(row: ShapeRowView, sh: Any, ctx: SiteContext) -> ShapeRowView:
    """``row`` with the shape's verdict baseline and ratio set."""
    row.verdict_baseline = sh.verdict_baseline or DASH
    row.verdict_text = verdict_cell(sh)
    row.verdict_data = not isinstance(row.verdict_text, Sentence)
    row.verdict_sort = sort_key(sh.verdict_speedup)
    row.verdict_css = "o-none o-floor" if sh.at_floor else outcome_css(sh.verdict_speedup, ctx)
    if sh.measured and sh.replay_partial:  # rule 16: no per-shape ratio rests on the candidate's graph rows
        row.speedup_text, row.speedup_sort, row.outcome_css = verdict_cell(sh), "", "o-none"
        row.speedup_data = False
    if sh.measured and getattr(sh, "unverified", False):  # its speedups are not an ok (rule 1)
        row.unverified, row.unverified_zh = i18n.en("speed.caveat.unverified"), i18n.zh("speed.caveat.unverified")
        row.outcome_css += " o-unverified"
        row.verdict_css += " o-unverified"
    return row


def shape_rows(score: Any, ctx: SiteContext) -> list[ShapeRowView]:
    """The per-shape table: every provider's time and status, then each variant's, failures explicit."""
    norow = ProviderCell(DASH, "t-none", i18n.en("speed.cell.norow"), "", i18n.zh("speed.cell.norow"))
    providers = list(score.providers)
    variants = list(getattr(score, "variants", None) or {})
    out = []
    for i, sh in enumerate(score.shapes):
        out.append(_with_verdict(ShapeRowView(
            f"s{i}", sh.args_text, sh.stage or DASH, sh.model or DASH, sh.dtype or DASH, fmt_num(sh.weight),
            _cells(sh, providers, norow) + (_variant_cells(sh, variants, norow) if variants else []),
            sh.best_baseline or DASH, sh.speedup_text, sort_key(sh.speedup),
            outcome_css(sh.speedup, ctx), sh.failure_short or "", sh.failure_reason or "", shape_flags(sh),
            "|".join(shape_models(sh))), sh, ctx))
    return out


def mixed_methods(s: Any, baseline_of: Any, shapes: list | None = None) -> tuple[int, int, str, str]:
    """Over the measured shapes (of ``shapes``, default all the campaign's) where ``baseline_of(sh)`` names a
    usable baseline: (shapes whose candidate and baseline rows differ in ``timing_method``, shapes, candidate
    methods, baseline methods of the mixed ones)."""
    n, mixed, cms, bms = 0, 0, set(), set()
    for sh in s.shapes if shapes is None else shapes:
        base = sh.providers.get(baseline_of(sh) or "") if sh.measured else None
        cand = sh.providers.get(sh.candidate)
        if base is None or not base.usable or cand is None:
            continue
        n += 1
        if methods_differ(cand, base):
            mixed += 1
            cms.add(cand.timing_method)
            bms.add(base.timing_method)
    return mixed, n, "/".join(sorted(cms)), "/".join(sorted(bms))


def _mixed_lfl(s: Any) -> tuple[str, dict] | None:
    """Rule 8's like-for-like geomean compares medians as timed: where its shapes mix timing
    methods, say so and give the verdict ratio (rule 10, one method)."""
    m, n, cm, bm = mixed_methods(s, lambda sh: sh.like_for_like_baseline)
    if not m:
        return None
    kw = {"m": m, "n": n, "cand": s.candidate, "cm": cm, "bm": bm}
    if s.verdict_geomean:
        return "speed.v.lfl.mixed", {**kw, "g": fmt_x(s.verdict_geomean[0]), "k": s.verdict_geomean[1]}
    return "speed.v.lfl.mixed.none", kw


def like_for_like_fact(s: Any) -> Fact:
    """The like-for-like reading beside the verdict (VERDICTS rule 8), in both languages; where its
    shapes mix timing methods, said, with the verdict ratio that compares one method."""
    if s.like_for_like_geomean:
        g, n = s.like_for_like_geomean
        if getattr(s, "like_for_like_mixed", 0):  # rule 8 with rule 13: graph against eager is no like-for-like
            lfl = ("speed.v.lfl.clocks", {"g": fmt_x(g), "n": n, "m": s.like_for_like_mixed})
        else:
            lfl = ("speed.v.lfl.always" if s.like_for_like_reference_only else "speed.v.lfl",
                   {"g": fmt_x(g), "n": n, "ref": s.reference})
    else:
        lfl = ("speed.v.nolfl", {})
    head = ("speed.v.notlfl" if s.not_like_for_like else "speed.v.scope", {"m": s.scope_mismatch_shapes, "n": s.n_measured})
    mixed = _mixed_lfl(s) if s.like_for_like_geomean else None
    parts = [head, lfl] + ([mixed] if mixed else [])
    return Fact(i18n.en("fact.scope"), "; ".join(i18n.en(k, **kw) for k, kw in parts), "fact.scope",
                css="warn" if s.not_like_for_like or len(parts) > 2 else "",
                zh=Markup("；").join(i18n.marked("zh", k, **kw) for k, kw in parts))


def split_shapes(s: Any) -> list:
    """The shapes the per-baseline, stage and model geomeans rest on: those of "geomean vs best" (the candidate
    and its best baseline both graph-replayed, neither above a roof, the replay complete; "Numbers beside a
    verdict"). pa: 10 of 12, its two sliding-window shapes (an eager candidate against gluon rows above the
    HBM roof, 0.04x and 0.07x) left out; none where the replay misses work (rule 16)."""
    return s.kernel_shapes()


def method_notes(s: Any, shapes: list | None = None) -> list[Sentence]:
    """Per baseline of the split (rules 4-5): where its shapes (``shapes``, default all) set rows of different
    timing methods against each other, say so (the verdict ratio column compares one method); first, when the
    split leaves measured shapes out, how many it covers."""
    out = []
    if shapes and len(shapes) < s.n_measured:
        out.append(sentence("speed.splits.kernel", k=len(shapes), n=s.n_measured))
    names = shape_splits(shapes)[0] if shapes else s.per_baseline
    for p in names:
        m, n, cm, bm = mixed_methods(s, lambda sh, p=p: p, shapes or None)
        if m:
            out.append(sentence("speed.perbaseline.mixed", baseline=p, m=m, n=n, cand=s.candidate, cm=cm, bm=bm))
    return out


def uncharted_note(s: Any, k: int, n: int) -> Sentence | None:
    """Rule 16: the measured shapes left off the speedup chart because the candidate's replay misses work."""
    return sentence("speed.chart.partial", k=k, n=n, cand=s.candidate) if k else None


def like_for_like_text(s: Any) -> str:
    """The like-for-like reading beside the verdict (VERDICTS rule 8)."""
    return like_for_like_fact(s).value


def shape_caveats(sh: Any) -> list[tuple[str, dict]]:
    """What stands against reading a shape's best-baseline speedup as a verdict (catalogue key,
    params): the best baseline not comparable there (scope, timing method), a row above a roof,
    the timing floor, and the verdict ratio (rule 10) when it differs or there is none."""
    out: list[tuple[str, dict]] = []
    cand, best = sh.providers.get(sh.candidate), sh.providers.get(sh.best_baseline or "")
    if sh.scope_mismatch:
        out.append(("speed.caveat.scope", {"baseline": sh.best_baseline}))
    if cand and best and methods_differ(cand, best):
        out.append(("speed.caveat.method", {"cand": sh.candidate, "cm": cand.timing_method,
                                            "baseline": sh.best_baseline, "bm": best.timing_method}))
    if sh.above_roof:
        out.append(("speed.caveat.roof", {"providers": ", ".join(sh.above_roof)}))
    if sh.at_floor:
        out.append(("speed.caveat.floor", {}))
    if getattr(sh, "unverified", False):
        out.append(("speed.caveat.unverified", {}))
    v = sh.verdict_speedup
    if v is None:
        out.append(("speed.caveat.nocomp", {}))
    elif sh.verdict_baseline != sh.best_baseline or abs(v - sh.speedup) > 1e-9 * v:
        out.append(("speed.caveat.verdict", {"x": fmt_x(v), "baseline": sh.verdict_baseline}))
    return out


def shape_fact(key: str, sh: Any) -> Fact:
    """The worst or best shape (lowest / highest speedup vs the best baseline): ``0.26x vs hipblaslt
    (M=16 N=2112 K=7168)``, then its caveats (:func:`shape_caveats`), or a dash."""
    if sh is None:
        return Fact(i18n.en(key), DASH, key)
    fact = Fact.of(key, "speed.v.shape", x=sh.speedup_text, baseline=sh.best_baseline, args=sh.args_text)
    caveats = shape_caveats(sh)
    if caveats:
        fact.css = "warn"
        fact.value += "; " + "; ".join(i18n.en(k, **kw) for k, kw in caveats)
        fact.zh = Markup("；").join([fact.zh] + [i18n.marked("zh", k, **kw) for k, kw in caveats])
    return fact


def floor_fact(s: Any) -> Fact | None:
    """The timing floor (rule 11): its value, the threshold, how many measured shapes sit at it."""
    if not s.floor_us:
        return None
    return Fact.of("fact.floor", "speed.v.floor", css="warn" if s.at_floor else "", floor=f"{s.floor_us:.2f}",
                   cand=s.candidate, factor=f"{FLOOR_FACTOR:g}", limit=f"{FLOOR_FACTOR * s.floor_us:.2f}",
                   n=s.at_floor, measured=s.n_measured)


def commits_fact(row: IndexRow) -> Fact:
    """The timed and profiled candidate commits, and the note when they disagree."""
    kw = {"timed": ", ".join(row.timed_commits) or DASH, "profiled": row.profiled_commit or DASH}
    fact = Fact.of("fact.commits", "speed.v.commits", css="warn" if row.commit_note else "", **kw)
    if row.commit_note:
        fact.value += f". {row.commit_note}"
        fact.zh += "。" + i18n.marked("zh", "speed.v.commitnote", profiled=row.profiled_commit,
                                      timed=", ".join(row.timed_commits))
    return fact


def verdict_zh(s: Any) -> Markup | str:
    """The verdict word (data) and its reason worded in 中文 (``verdict.*`` keys)."""
    if getattr(s, "verdict_reason_msg", None) is None:
        return f"{s.verdict} ({s.verdict_reason})"
    return Markup(f'<span translate="no">{s.verdict}</span>（') + wording.html(
        wording.segments("zh", s.verdict_reason_msg)) + Markup("）")


def score_facts(s: Any, row: IndexRow | None) -> list[Fact]:
    """The campaign's numbers beside the chart, each in both languages."""
    weighted = (("speed.v.weighted", {"n": s.n_weighted}) if s.n_weighted else ("speed.v.noweight", {}))
    facts = [
        Fact("verdict", f"{s.verdict} ({s.verdict_reason})", "fact.verdict", css="verdict-reason",
             zh=verdict_zh(s)),
        Fact.of("fact.geomean", "speed.v.geomean", g=s.geomean_text, wins=s.kernel_outcomes[0],
                n=s.kernel_vs_any[1] if s.kernel_vs_any else 0),
        Fact.of("fact.weighted", weighted[0], g=fmt_x(s.weighted_geomean_vs_best), **weighted[1]),
        Fact("wins / parity / losses", " / ".join(map(str, s.kernel_outcomes)), "fact.wpl"),
        Fact.of("fact.shapes", "speed.v.shapes", ledger=s.n_shapes, measured=s.n_measured, measurable=s.n_measurable),
        Fact.of("fact.coverage", "speed.v.rows", ok=s.candidate_ok, failed=s.candidate_failed,
                incorrect=s.candidate_incorrect, unsupported=s.candidate_unsupported, other=s.candidate_other,
                missing=s.candidate_missing),
        Fact.of("fact.failures", "speed.v.failures", hard=s.hard_failures, harness=s.harness_failures,
                css="bad" if s.hard_failures else ""),
        shape_fact("fact.worst", s.kernel_worst),
        shape_fact("fact.best", max(split_shapes(s), key=lambda sh: sh.speedup, default=None)),  # as the worst
        # the p90/p10 spread is noise within one run; whether the verdict is uncertain is rule 14's interval
        # (the verdict line says it), not this figure
        Fact(i18n.en("fact.noise"), fmt_x(s.noise), "fact.noise"),
        like_for_like_fact(s),
    ]
    if s.reference in s.providers:  # a reference nobody timed is no fact of this campaign
        facts.insert(-1, Fact.of("fact.reference", "speed.v.refonly", ref=s.reference) if s.reference_only else
                     Fact(i18n.en("fact.reference"), f"{s.reference}", "fact.reference"))
    if (logged := logged_failures_fact(s)) is not None:
        facts.insert(next(i for i, f in enumerate(facts) if f.i18n == "fact.failures") + 1, logged)
    if (floor := floor_fact(s)) is not None:
        facts.append(floor)
    if row is not None and (row.timed_commits or row.profiled_commit):
        facts.append(commits_fact(row))
    if s.suspect_reference:
        facts.append(Fact.of("fact.suspect", "speed.v.suspect", css="warn", n=s.suspect_reference, cand=s.candidate))
    if s.above_roof:
        facts.append(Fact.of("fact.roof", "speed.v.roof", css="warn", n=len(s.above_roof),
                             providers=", ".join(sorted({p for _, p in s.above_roof}))))
    return facts


def logged_failures_fact(s: Any) -> Fact | None:
    """The failures the run's logs and reports record, per provider (``read/campaign_logs.py``):
    ``flydsl_t64 1 (GPU memory fault at b2_s4096)``; None when they record none."""
    by: dict[str, list[Any]] = {}
    for f in getattr(s, "logged_failures", None) or []:
        by.setdefault(f.provider, []).append(f)
    if not by:
        return None
    parts = [(p, len(fs), ", ".join(f.kind + (f" at {f.label}" if f.label else "") for f in fs)) for p, fs in by.items()]
    files = ", ".join(dict.fromkeys(f.file for fs in by.values() for f in fs))
    text = "; ".join(f"{p} {n} ({what})" for p, n, what in parts)
    return Fact.of("fact.logged", "speed.v.logged", css="bad", failures=text, files=files)


def headline_pair_zh(h: Any) -> Markup:
    """The 中文 of ``7.00 us vs 11.60 us (PyTorch), 1.66x`` (values marked as data)."""
    if not isinstance(h.text, Sentence):  # the speedup alone: data
        return Markup('<span translate="no">{}</span>').format(h.text)
    return i18n.zh_said(h.text)


@register_panel("speed", "Speed across shapes", 20)
def _speed_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> SpeedView:
    s = k.score
    empty = dict(facts=[], per_baseline=[], stage_split=[], model_split=[], chart=None, providers=[],
                 shapes=[], notes=[], provenance=[], provider_notes=[], provider_titles={},
                 headline_text=k.headline.text if k.headline else None, headline_note=k.headline_note,
                 headline_zh=headline_pair_zh(k.headline) if k.headline else "")
    if k.score_error:
        return SpeedView(status="error", message=sentence("msg.campaignerror", error=k.score_error), **empty)
    if s is None:
        return SpeedView(status="none", message=sentence("msg.nocampaign", file="kernel-atlas.toml",
                                                        code="[kernels.<name>] campaign = ..."), **empty)
    if s.verdict not in VERDICTS:
        msg = sentence("msg.untimed", op=s.op, n=s.n_shapes)
        ledger = shape_rows(s, ctx)
        for r in ledger:  # nothing ran: the ledger alone (no provider cells, no failure)
            r.cells, r.failure, r.failure_full = [], "", ""
        empty["shapes"] = ledger
        return SpeedView(status="untimed", message=msg, **empty)
    facts = score_facts(s, row)
    ledger = shape_rows(s, ctx)  # each shape's args text worked out once, for the table and the chart
    measured = [(sh, r.args) for sh, r in zip(s.shapes, ledger) if sh.measured]
    charted = [(sh, a) for sh, a in measured if not sh.replay_partial]  # rule 16: no chart dot rests on those
    chart = chart_view("shapes", charts.shape_speedups([sh for sh, _ in charted], ctx.win, ctx.headroom,
                                                       [a for _, a in charted],
                                                       [verdict_note(sh) for sh, _ in charted]),
                       "Speedup per shape (log scale)", "chart.shapes") if charted else None
    prov = [Fact(key, value) for key, value in sorted(s.provenance.items()) if value]
    clocks = clock_chart.shape_clocks([sh for sh, _ in measured], s.candidate, [a for _, a in measured])
    kernel = split_shapes(s)
    per_baseline, stages, models = shape_splits(kernel)
    return SpeedView(
        status="scored", message="", facts=facts,
        # the shapes of "geomean vs best" only (rules 9, 10, 16: none where the replay misses work)
        per_baseline=_splits(per_baseline, ctx), stage_split=_splits(stages, ctx), model_split=_splits(models, ctx),
        chart=chart, providers=list(s.providers), shapes=ledger, notes=list(s.notes),
        provider_notes=[Fact(p, " ".join(s.provider_notes[p].split())) for p in s.providers if p in s.provider_notes],
        provider_titles={p: " ".join(n.split()) for p, n in s.provider_notes.items()},
        headline_text=k.headline.text if k.headline else None,
        headline_note=k.headline_note, provenance=prov, headline_zh=headline_pair_zh(k.headline) if k.headline else "",
        variants=list(s.variants), variant_split=_splits(s.variants, ctx), method_notes=method_notes(s, kernel),
        chart_note=uncharted_note(s, len(measured) - len(charted), len(measured)),
        clocks_chart=chart_view("clocks", clocks, "Call and kernel time per shape", "chart.clocks") if clocks else None,
    )
