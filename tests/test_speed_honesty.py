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


def test_pa_shape_table_shows_the_verdict_ratio_eager_vs_eager(kernel):
    # pa_decode's results, sliding_window=128 (shape sha1:643f0de35...): flydsl ok 437.403 us
    # `eager_event` (graph capture failed), gluon ok 18.200 us `cudagraph` with eager_median_us
    # 43.221. Best-baseline speedup 18.200 / 437.403 = 0.0416 -> 0.04x; rule 10 compares eager
    # to eager: 43.221 / 437.403 = 0.0988 -> 0.10x. sliding_window=1023 (sha1:5d477fe9c...):
    # 31.721 / 431.144 = 0.0736 -> 0.07x; eager 41.0205 / 431.144 = 0.0951 -> 0.10x.
    k, view = _view(kernel, "pa")
    rows = {r.args.rsplit(" ", 1)[1]: r for r in view.shapes if "sliding_window" in r.args}
    for sw, best, ratio in ((SW128, "0.04x", 43.22100058197975 / 437.40299344062805),
                            (SW1023, "0.07x", 41.02049954235554 / 431.14399909973145)):
        r = rows[sw]
        assert (r.best_baseline, r.speedup_text, r.verdict_baseline) == ("gluon", best, "gluon")
        assert r.verdict_text == "0.10x (eager vs eager)" and not r.verdict_data
        assert float(r.verdict_sort) == pytest.approx(ratio, rel=1e-9)
    # the other ten shapes: both rows `cudagraph`, the verdict ratio is the speedup, no qualifier
    plain = [r for r in view.shapes if r.args.rsplit(" ", 1)[1] not in (SW128, SW1023)]
    assert len(plain) == 10 and all(r.verdict_text == r.speedup_text and r.verdict_data for r in plain)
    # the table's verdict ratios rebuild the 0.54x verdict (its geomean over the 12 shapes)
    g = math.exp(sum(math.log(float(r.verdict_sort)) for r in view.shapes) / len(view.shapes))
    assert f"{g:.2f}x" == "0.54x" == f"{k.score.verdict_geomean[0]:.2f}x"


def test_pa_worst_shape_says_its_caveats_and_its_verdict_ratio(kernel):
    # the worst shape keeps its definition (lowest speedup vs the best baseline: 0.04x vs gluon at
    # sliding_window=128) and says: flydsl eager_event vs gluon cudagraph, gluon's row above the
    # HBM roof (15,268 GB/s > 1.1 x 8,000), the verdict ratio 0.10x eager vs eager
    _, view = _view(kernel, "pa")
    worst = _fact(view, "fact.worst")
    assert worst.value.startswith("0.04x vs gluon (") and SW128 + ")" in worst.value
    assert worst.value.endswith("; timed differently (flydsl eager_event, gluon cudagraph); "
                                "a row above a roof (gluon); verdict ratio 0.10x vs gluon (eager vs eager)")
    assert worst.css == "warn" and "计时方式不同" in worst.zh and "双方均按" in worst.zh
    best = _fact(view, "fact.best")  # 79.40 / 90.56 = 0.877, both cudagraph: nothing to add
    assert best.value.startswith("0.88x vs gluon (") and best.value.endswith("sliding_window=0)") and not best.css


def test_moe_blockscale_best_shape_rests_on_a_row_above_the_roof(kernel):
    # moe_blockscale, Dim1=7168 Dim2=512 E=384 M=64 TopK=8: best-baseline speedup 17.77x vs aiter
    # (fused end to end, includes_layout_conversion: another scope), flydsl's row above a roof; the
    # verdict baseline is pytorch, eager vs eager: 234.43x
    _, view = _view(kernel, "moe_blockscale")
    best = _fact(view, "fact.best").value
    assert best.startswith("17.77x vs aiter (Dim1=7168 Dim2=512 E=384 M=64 TopK=8)")
    assert best.endswith("; aiter times another scope; a row above a roof (flydsl); "
                         "verdict ratio 234.43x vs pytorch (eager vs eager)")


@pytest.mark.full_sweep
def test_moe_gemm_best_shape_says_the_roof_and_the_eager_ratio(kernel):
    # moe_gemm sha1:bd2374bbf (M=16384): aiter 3531.03 / flydsl 317.96 = 11.11x; flydsl's row is
    # above a roof (5,540 GB/s; its fp8 TFLOP/s); pytorch eager 70187.19 / flydsl eager 2826.11 = 24.84x
    _, view = _view(kernel, "moe_gemm")
    best = _fact(view, "fact.best").value
    assert best.startswith("11.11x vs aiter (Dim1=7168 Dim2=512 E=256 M=16384 TopK=8)")
    assert f"{70187.19100952148 / 2826.1070251464844:.2f}x" == "24.84x"
    assert best.endswith("; aiter times another scope; a row above a roof (flydsl); "
                         "verdict ratio 24.84x vs pytorch (eager vs eager)")


def test_moe_blockscale_like_for_like_figure_says_it_mixes_timing_methods(kernel):
    # rule 8's like-for-like best is pytorch on all 4 measured shapes: its rows are eager_event,
    # flydsl's cudagraph, so 540.89x sets eager medians against graph medians; the verdict ratio
    # (eager vs eager) is 59.41x over 4 (expected/verdicts.json verdict_geomean)
    _, view = _view(kernel, "moe_blockscale")
    lfl = _fact(view, "fact.scope")
    assert lfl.value.endswith("mixed clocks: 540.89x over 4 shapes, 4 of them setting a graph replay against an eager call; "
                              "timing methods mixed on 4 of 4 of those shapes (flydsl cudagraph vs eager_event); "
                              "the verdict ratio compares one method: 59.41x over 4")
    assert view.method_notes == ["pytorch: 4 of 4 shapes set its eager_event rows against flydsl cudagraph rows "
                                 "(timing methods mixed); the verdict ratio column compares one method"]


@pytest.mark.full_sweep
def test_moe_gemm_like_for_like_figure_says_it_mixes_timing_methods(kernel):
    # sha1:bd2374bbf: pytorch eager_event 70187.19 / flydsl cudagraph 317.96 = 220.7x goes into
    # 166.72x; the verdict ratio compares eager to eager: 35.65x over 9
    _, view = _view(kernel, "moe_gemm")
    assert _fact(view, "fact.scope").value.endswith(
        "mixed clocks: 166.72x over 9 shapes, 9 of them setting a graph replay against an eager call; timing methods mixed on 9 of 9 "
        "of those shapes (flydsl cudagraph vs eager_event); the verdict ratio compares one method: 35.65x over 9")
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
    assert notes.count("verdict ratio 0.10x vs gluon (eager vs eager)") == 2
    assert all("best baseline" in t["hovertemplate"] and "customdata[4]" in t["hovertemplate"] for t in traces)
    zh = _figure(view)["zh"]["traces"]
    assert sum(c[4].startswith("判定比值 0.10x") for t in zh.values() for c in t.get("customdata", [])) == 2


def test_overview_shape_dots_name_their_basis_and_the_diamond(kernel):
    # moe_blockscale: its shapes compare with pytorch eager vs eager (16-234x: call time), the diamond the
    # profiled pair 0.82x: the chart draws no dot of call time (issue 40), its caption counts them
    _, row = kernel("moe_blockscale")
    fig = charts.speedup_overview([row], 1.05, 0.95)
    assert len(row.shape_speedups) == len(row.shape_eager) <= 4 and fig["data"][0]["x"] == []
    assert "判定基线" in fig["zh"]["traces"]["0"]["hovertemplate"]
    assert isinstance(row, overview_views.IndexRow)
