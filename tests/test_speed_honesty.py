"""The speed panel says what the raw timing rows support (VERDICTS rules 4-5, 8-11): each shape's
verdict ratio beside its best-baseline speedup, the caveats of the worst/best shape, the timing
methods a like-for-like figure mixes, the timing floor, and the hovers of the speed charts.

pa (pa_decode's campaign), moe_blockscale, quant and vec_add run on the slice too; moe_gemm and
softmax need the whole sweep."""

from __future__ import annotations

import json
import math

import pytest

from generator.site import charts
from generator.site.views import base as base_views
from generator.site.views import overview as overview_views
from generator.site.views import speed

SW128 = "sliding_window=128"
SW1023 = "sliding_window=1023"


def _view(kernel, slug):
    k, row = kernel(slug)
    return k, speed._speed_panel(k, row, base_views.SiteContext())


def _figure(view):
    """The per-shape chart's figure as the page embeds it."""
    return json.loads(str(view.chart.json))


def _fact(view, key):
    return next(f for f in view.facts if f.i18n == key)


def test_pa_shape_table_shows_no_verdict_ratio_where_the_graph_capture_failed(kernel):
    # pa_decode's results, sliding_window=128 (shape sha1:643f0de35...): flydsl ok 437.403 us
    # `eager_event` (graph capture failed), gluon ok 18.200 us `cudagraph`. Best-baseline speedup
    # 18.200 / 437.403 = 0.0416 -> 0.04x, a mixed-clock figure; rule 10: an eager row compares with nothing,
    # so no verdict ratio there. sliding_window=1023 (sha1:5d477fe9c...): 31.721 / 431.144 = 0.0736 -> 0.07x.
    k, view = _view(kernel, "pa")
    rows = {r.args.rsplit(" ", 1)[1]: r for r in view.shapes if "sliding_window" in r.args}
    for sw, best in ((SW128, "0.04x"), (SW1023, "0.07x")):
        r = rows[sw]
        assert (r.best_baseline, r.speedup_text, r.verdict_baseline) == ("gluon", best, "\u2014")
        assert str(r.verdict_text) == "\u2014, graph capture failed" and not r.verdict_data
    # the other ten shapes: both rows `cudagraph`, the verdict ratio is the speedup, no qualifier
    plain = [r for r in view.shapes if r.args.rsplit(" ", 1)[1] not in (SW128, SW1023)]
    assert len(plain) == 10 and all(r.verdict_text == r.speedup_text and r.verdict_data for r in plain)
    # the table's verdict ratios rebuild the 0.76x verdict (its geomean over those 10 shapes)
    g = math.exp(sum(math.log(float(r.verdict_sort)) for r in plain) / len(plain))
    assert f"{g:.2f}x" == "0.76x" == f"{k.score.verdict_geomean[0]:.2f}x"


def test_pa_worst_shape_rests_on_the_kernel_clock(kernel):
    # "vs any" and its worst shape beside the verdict rest on kernel-clock rows below every roof (issue 37): the
    # 0.04x of sliding_window=128 (flydsl eager_event vs gluon cudagraph, gluon above the HBM roof) is no such
    # figure; the worst of the 10 others is 0.55x (batch=3, 16 q heads, query_length=4), the best 0.88x
    _, view = _view(kernel, "pa")
    worst = _fact(view, "fact.worst")
    assert worst.value.startswith("0.55x vs gluon (batch=3 ") and worst.value.endswith("sliding_window=0)")
    best = _fact(view, "fact.best")  # 79.40 / 90.56 = 0.877, both cudagraph: nothing to add
    assert best.value.startswith("0.88x vs gluon (") and best.value.endswith("sliding_window=0)") and not best.css


@pytest.mark.parametrize("slug", ["moe_blockscale", pytest.param("moe_gemm", marks=pytest.mark.full_sweep)])
def test_a_replay_that_misses_work_shows_no_best_shape(kernel, slug):
    # rule 16: the candidate's graph rows are no kernel evidence (moe_blockscale's best was 17.77x vs aiter, moe_gemm's
    # 11.11x): no best shape, no per-baseline, stage or model geomean
    _, view = _view(kernel, slug)
    assert _fact(view, "fact.best").value == "\u2014" and _fact(view, "fact.worst").value == "\u2014"
    assert view.per_baseline == [] and view.stage_split == [] and view.model_split == []


def test_moe_blockscale_like_for_like_figure_says_it_mixes_timing_methods(kernel):
    # rule 8's like-for-like best is pytorch on all 4 measured shapes: its rows are eager_event,
    # flydsl's cudagraph, so 540.89x sets eager medians against graph medians; no shape has a verdict ratio
    # (rule 10: an eager row is call time)
    _, view = _view(kernel, "moe_blockscale")
    lfl = _fact(view, "fact.scope")
    assert lfl.value.endswith("mixed clocks: 540.89x over 4 shapes, 4 of them setting a graph replay against an eager call; "
                              "timing methods mixed on 4 of 4 of those shapes (flydsl cudagraph vs eager_event); "
                              "no shape has a verdict ratio")
    assert view.method_notes == ["pytorch: 4 of 4 shapes set its eager_event rows against flydsl cudagraph rows "
                                 "(timing methods mixed); the verdict ratio column compares one method"]


@pytest.mark.full_sweep
def test_moe_gemm_like_for_like_figure_says_it_mixes_timing_methods(kernel):
    # sha1:bd2374bbf: pytorch eager_event 70187.19 / flydsl cudagraph 317.96 = 220.7x goes into 166.72x
    _, view = _view(kernel, "moe_gemm")
    assert _fact(view, "fact.scope").value.endswith(
        "mixed clocks: 166.72x over 9 shapes, 9 of them setting a graph replay against an eager call; timing methods mixed on 9 of 9 "
        "of those shapes (flydsl cudagraph vs eager_event); no shape has a verdict ratio")
    assert [str(n).split(":")[0] for n in view.method_notes] == ["pytorch"]  # aiter: cudagraph like flydsl


def _floor_checks(k, view, n_floor, n_measured):
    fact = _fact(view, "fact.floor")
    assert fact.value.startswith(f"12.80 us; a shape is at it when flydsl and its verdict baseline both run "
                                 f"below 1.25x = 16.00 us: {n_floor} of {n_measured} measured shapes")
    marked = [r for r in view.shapes if "o-floor" in r.verdict_css]
    assert len(marked) == n_floor and all(r.verdict_text.endswith(", at the floor") for r in marked)
    # each marked shape: both compared times below 16.00 us
    at = [sh for sh in k.score.shapes if sh.at_floor]
    assert all(max(sh.verdict_candidate_us, sh.verdict_baseline_us) < 1.25 * 12.799999676644802 for sh in at)
    points = [(y, sym) for t in _figure(view)["data"] if t["mode"] == "markers"
              for y, sym in zip(t["y"], t["marker"]["symbol"])]
    assert sum(sym == "circle-open" for _, sym in points) == n_floor and len(points) == n_measured


@pytest.mark.parametrize("slug", ["quant", "vec_add"])
def test_the_floor_and_the_shapes_at_it_are_shown(kernel, slug):
    # the sweep's floor: the lowest usable median_us of any row = 12.80 us (kernel-atlas.toml of
    # the slice pins it); threshold 1.25 x 12.80 = 16.00 us; 5 of quant's and of vec_add's 12
    # measured shapes have both flydsl and the verdict baseline below it (expected/verdicts.json at_floor)
    k, view = _view(kernel, slug)
    _floor_checks(k, view, 5, 12)


@pytest.mark.full_sweep
def test_softmax_shows_its_39_shapes_at_the_floor(kernel):
    # VERDICTS rule 11's real case: 39 of softmax's 73 measured shapes sit at the 12.80 us floor
    k, view = _view(kernel, "softmax")
    _floor_checks(k, view, 39, 73)


def test_per_shape_chart_hover_gives_the_verdict_ratio(kernel):
    _, view = _view(kernel, "pa")
    traces = [t for t in _figure(view)["data"] if t["mode"] == "markers"]
    notes = [c[4] for t in traces for c in t["customdata"]]
    assert notes.count("graph capture failed: call time only, no verdict ratio") == 2
    assert sum(n.startswith("verdict ratio 0.") and n.endswith(" vs gluon") for n in notes) == 10
    assert all("best baseline" in t["hovertemplate"] and "customdata[4]" in t["hovertemplate"] for t in traces)
    zh = _figure(view)["zh"]["traces"]
    assert sum(c[4].startswith("图捕获失败") for t in zh.values() for c in t.get("customdata", [])) == 2


def test_overview_shape_dots_rest_only_on_verdict_ratios(kernel):
    # moe_blockscale: its only comparable rows were eager pytorch (call time, rule 10) and its replay misses work
    # (rule 16): no dot; the diamond is the profiled pair 0.82x, said so
    _, row = kernel("moe_blockscale")
    assert row.shape_speedups == [] and row.graph_partial
    fig = charts.speedup_overview([row], 1.05, 0.95)
    assert [(t["name"], len(t["x"])) for t in fig["data"]] == [("shapes", 0), ("HEADROOM", 1)]  # no dot, the diamond
    assert row.basis_text.endswith("0.82x")
    assert isinstance(row, overview_views.IndexRow)
