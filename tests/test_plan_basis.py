"""The plan's shares say their basis (audit of the shared sweep's site, pa).

pa's primary capture: 48 of 56 sampled waves exit early (DOMAIN §1.5), so the advice ranks on the 8
working waves' 44,892 stall cycles while the capture's other tables share out all 56 waves' 70,036.
The Optimization plan, "Why not winning" and the overview's first step say so; every number below is
worked from the raw wave files and code.json (both in the slice).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from generator.site import charts, i18n, render
from generator.site.views import advice, base, overview, why

from test_capture_wording import PA, code_rows, working_rows  # same test folder

PA_BASIS = ("The stall shares of the plan's findings are of the 8 working waves' 44,892 stall cycles: 48 of the 56 "
            "sampled waves exit early, so the plan is ranked on the waves that do the work. The capture's other "
            "stall tables and its source and ISA pages share out all 56 waves' 70,036.")


def wave_counts(cap):
    """(sampled, working) wave files: a wave exits early under 5 % of the longest wave's rows or 2 % of
    code.json's instructions (DOMAIN §1.5; the rule ``working_rows`` applies)."""
    static = sum(1 for r in json.loads((cap / "code.json").read_text())["code"] if type(r[2]) is int and r[2] > 0)
    lengths = [len(json.loads(f.read_text())["wave"]["instructions"]) for f in sorted(cap.glob("se*_sm*_sl*_wv*.json"))]
    longest = max(lengths)
    return len(lengths), sum(1 for n in lengths if n >= 0.05 * longest and n >= 0.02 * static)


def panel_html(name, data):
    """One kernel-page panel rendered alone."""
    return render.environment().get_template(f"panels/{name}.html").render(panel=SimpleNamespace(data=data))


@pytest.fixture(scope="module")
def pa_raw(sweep):
    """pa from the raw files: 56 waves, 8 working; stall 44,892 on the working waves, 70,036 in code.json;
    scalar_load_waits waits at pc 6 and 87: 5,336 + 2,104 = 7,440 of 44,892 = 16.57 %."""
    rows, code = working_rows(sweep / PA), code_rows(sweep / PA)
    assert wave_counts(sweep / PA) == (56, 8)
    assert sum(v[0] for v in rows.values()) == 44892 and sum(r[2] for r in code.values()) == 70036
    assert rows[6][0] + rows[87][0] == 7440 and f"{7440 / 44892:.1%}" == "16.6%"


def test_pa_plan_says_once_its_shares_are_of_the_working_waves(kernel, pa_raw):
    k, row = kernel("pa")
    (plan,) = advice._advice_panel(k, row, base.SiteContext())
    assert str(plan.basis) == PA_BASIS and i18n.message_of(plan.basis).key == "advice.basis.working"
    # the launcher leads pa's plan (rule 13: its call gap exceeds the kernel's graph time on 10 of 10 shapes),
    # its share of a call; the first stall finding's share is of the working waves' stalls
    assert (plan.findings[0].detector, plan.findings[0].share_of) == ("launch_overhead", "advice.ofcall")
    top = next(f for f in plan.findings if f.detector != "launch_overhead")
    assert (top.detector, top.share, top.share_of) == ("scalar_load_waits", "16.6%", "advice.ofstalls")
    html = panel_html("advice", [plan])
    assert html.count("plan-basis") == 1 and "44,892" in html and "70,036" in html
    assert "以 <span translate=\"no\">8</span> 个在工作的 wave" in html


def test_pa_why_panel_says_its_shares_are_of_the_working_waves(kernel, pa_raw):
    k, row = kernel("pa")
    view = why._why_panel(k, row, base.SiteContext())
    assert view.source == "advice" and [f.share for f in view.findings if f.detector == "scalar_load_waits"] == ["16.6%"]
    assert str(view.basis) == PA_BASIS
    html = panel_html("why", view)
    assert html.count("plan-basis") == 1 and html.count("44,892") == 2  # the note, English and 中文


def test_pa_first_step_share_names_the_working_waves(kernel, pa_raw):
    # 7,440 / 44,892 = 16.57 %: the first step's whole percentage, 17 %, of the working waves' stalls
    # the launcher is pa's first step (rule 13): its share is of a call, never of the working waves' stalls
    k, row = kernel("pa")
    fs = row.first_step
    assert fs["detector"] == "launch_overhead" and (fs["share_text"], fs["share_zh"]) == ("82% of a call", "占调用时间 82%")
    # the first stall-based finding keeps its share of the working waves' stalls
    f = next(f for f in k.primary.findings if f["detector"] == "scalar_load_waits")
    assert f["stall_share"] == pytest.approx(7440 / 44892)


def test_a_plan_on_all_waves_says_no_basis(kernel, sweep):
    """vec_add's waves all work (DOMAIN §1.5), so its plan's shares are of all waves: no note, plain share."""
    n, working = wave_counts(sweep / "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25")
    assert n == working
    k, row = kernel("vec_add")
    plans = advice._advice_panel(k, row, base.SiteContext())
    assert plans and all(p.basis == "" for p in plans) and "plan-basis" not in panel_html("advice", plans)
    assert row.first_step is None or "working" not in row.first_step["share_text"]


# ---------------------------------------------------------------- the overview chart's dots name their baseline

def rule10(campaign, candidate="flydsl"):
    """(verdict ratio, verdict baseline, eager vs eager) per shape from benchmark_results.jsonl (VERDICTS
    rule 10): scope flags agreeing (rule 8), compared on the common timing method, eager to eager when the two
    differ and both carry eager_median_us; the comparable baseline the candidate's speedup is lowest against."""
    by_shape: dict = {}
    for line in (campaign / "benchmark_results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["benchmark_status"] == "ok" and r["correct"] is not False and r["median_us"]:
            by_shape.setdefault(r["shape_id"], []).append(r)
    out = []
    for rows in by_shape.values():
        cand = next(r for r in rows if r["provider"] == candidate)
        best = None
        for r in rows:
            eager = r["timing_method"] != cand["timing_method"]
            scope = all(None in (r[f], cand[f]) or r[f] == cand[f] for f in ("includes_layout_conversion", "includes_jit"))
            if r is cand or not scope or (eager and not (r["eager_median_us"] and cand["eager_median_us"])):
                continue
            x = r["eager_median_us"] / cand["eager_median_us"] if eager else r["median_us"] / cand["median_us"]
            if best is None or x < best[0]:
                best = (x, r["provider"], eager)
        out.append(best)
    return out


def test_pa_overview_dots_name_gluon_and_the_two_eager_shapes(kernel, sweep):
    # pa_decode's 12 shapes: flydsl vs gluon under a graph on 10 (e.g. 18.00 / 22.00 us = 0.818x); on the two
    # sliding-window shapes flydsl fell back to eager, so eager vs eager: 43.22 / 437.40 us = 0.099x and
    # 41.02 / 431.14 us = 0.095x (DOMAIN/VERDICTS rule 10). All times are over 1.25 x the 12.80 us floor.
    raw = rule10(sweep / "benchmarks/examples/pa_decode")
    assert len(raw) == 12 and {b for _, b, _ in raw} == {"gluon"}
    assert sorted(round(x, 3) for x, _, e in raw if e) == [0.095, 0.099]
    _, row = kernel("pa")
    got = [(round(x, 6), b, i in row.shape_eager) for i, (x, b) in enumerate(zip(row.shape_speedups, row.shape_baselines))]
    assert sorted(got) == sorted((round(x, 6), b, e) for x, b, e in raw)
    fig = charts.speedup_overview([row], 1.05, 0.95)
    # the chart draws the kernel-clock dots only; the two eager-vs-eager ones are counted in its caption (issue 40)
    dots = fig["data"][0]
    assert "%{customdata[0]}" in dots["hovertemplate"] and "verdict baseline" in dots["hovertemplate"]
    hover = [(round(x, 6), c[0]) for x, c in zip(dots["x"], dots["customdata"])]
    assert sorted(hover) == sorted((round(x, 6), b) for x, b, e in raw if not e)
    assert all(c[1] == "geomean over shapes vs a comparable baseline, 0.54x" for c in dots["customdata"])
    assert "eager" not in json.dumps(fig["data"])
    zh = fig["zh"]["traces"]["0"]
    assert "判定基线 %{customdata[0]}" in zh["hovertemplate"] and len(zh["customdata"]) == 10
    from generator.site.views.overview_chart import eager_caption
    if row.shape_eager:  # a verdict engine that compares them (before rule 10 kept to the kernel clock)
        assert eager_caption([row])[0] == (
            f"Not drawn: {len(row.shape_eager)} shapes compared eager vs eager (Paged-Attn Decode (PS) "
            f"{len(row.shape_eager)}): call time on both sides, not the kernel clock; no verdict rests on them "
            "(each kernel's page lists them).")
    else:
        assert eager_caption([row]) is None


def test_a_row_from_json_keeps_its_dots_baselines(kernel):
    """The overview row's round trip (the manifest, the history) keeps each dot's baseline and the eager dots."""
    _, row = kernel("pa")
    back = overview.IndexRow.from_json(json.loads(json.dumps(row.to_json())))
    assert (back.shape_baselines, back.shape_eager) == (row.shape_baselines, row.shape_eager)
