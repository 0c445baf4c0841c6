"""Every finding, plan and sweep-reading group says what it rests on; the per-shape chart marks the shapes no
verdict may rest on (issue 31, point 5).

Worked from the raw capture files with a few lines of their own: fused_rope_cache's one capture
(``ui_output_agent_4253_dispatch_8781``): code.json has 207 instruction rows (plus the kernel's comment
row), Latency summing to 17,856 cycles and Stall to 12,412; 4 wave files. pa's capture
(``ui_output_agent_10886_dispatch_209``): 56 wave files, 48 of 12 instructions (early exits, their stall
column summing to 25,144) and 8 of 936 (44,892): the plan is ranked on those 8 working waves.
"""

from __future__ import annotations

import json
import re

import pytest

from generator.site import charts
from generator.site.views import advice as advice_views
from generator.site.views import base as base_views


def raw_capture(sweep, kernel):
    """(instructions, cycles, stall cycles, [(instructions, stall cycles) per wave file]) of a bundle's capture."""
    cap = next(p for p in (sweep / "examples" / kernel / "att_viewer").glob("*/ui_output_agent_*") if p.is_dir())
    rows = [r for r in json.loads((cap / "code.json").read_text())["code"] if not str(r[0]).startswith(";")]
    waves = []
    for f in sorted(cap.glob("se*_sm*_sl*_wv*.json")):
        ins = json.loads(f.read_text())["wave"]["instructions"]
        waves.append((len(ins), sum(r[2] for r in ins)))
    return len(rows), sum(r[7] for r in rows), sum(r[8] for r in rows), waves


def test_fused_rope_cache_top_finding_rests_on_four_waves(kernel, sweep):
    n, cycles, stall, waves = raw_capture(sweep, "fused_rope_cache")
    assert (n, cycles, stall, len(waves)) == (207, 17856, 12412, 4)
    k, _ = kernel("fused_rope_cache")
    found = k.primary.findings
    if (sweep / "benchmarks/examples/fused_rope_cache").is_dir():  # the whole sweep: its campaign is there
        # the launcher leads (rule 13) and rests on the campaign's call times: 30 launch shapes of 30
        assert found[0]["detector"] == "launch_overhead" and found[0]["rests_on"] == {
            "basis": "call times", "launch_shapes": 30, "shapes_with_call_gap": 30}
        found = found[1:]
    top = found[0]
    assert top["rests_on"] == {"basis": "all waves", "stall_cycles": stall, "cycles": cycles, "instructions": n,
                               "waves_sampled": 4, "waves_working": 4, "unit": "cycles",
                               "finding_stall_cycles": top["stall_cycles"]}
    view = advice_views.finding_view(top)
    assert view.rests == (f"rests on {top['stall_cycles']:,} of the 12,412 stall cycles (17,856 cycles) of 207 "
                          "instructions, 4 waves sampled")
    assert "".join(s.text for s in view.rests_zh).startswith("依据：207 条指令的 12,412 个停顿周期中的")


def test_pa_plan_rests_on_its_eight_working_waves(kernel, sweep):
    _, _, _, waves = raw_capture(sweep, "pa")
    working = [w for w in waves if w[0] > 12]
    assert len(waves) == 56 and len(working) == 8 and sum(s for _, s in working) == 44892
    assert sum(s for i, s in waves if i == 12) == 25144
    k, row = kernel("pa")
    rest = next(f["rests_on"] for f in k.primary.findings if f["detector"] != "launch_overhead")
    assert (rest["basis"], rest["waves_working"], rest["waves_sampled"], rest["stall_cycles"]) == \
        ("working waves", 8, 56, 44892)
    panel = advice_views._advice_panel(k, row, base_views.SiteContext())
    plan = next(a for a in panel if a.primary)
    assert plan.rests.en == ("The plan rests on 44,892 stall cycles (78,696 cycles) of 936 instructions, "
                             "the 8 working waves of 56 sampled.")
    # every capture finding rests on the working waves; the launcher on the campaign's call times (rule 13)
    assert all(f.rests.endswith("the 8 working waves of 56 sampled") for f in plan.findings if f.detector != "launch_overhead")
    assert next(f for f in plan.findings if f.detector == "launch_overhead").rests.startswith("rests on the campaign's call times")


def test_the_page_and_the_sweep_reading_show_it(built_site, kernel, sweep):
    site = built_site
    page = (site / "kernels" / "fused_rope_cache" / "index.html").read_text()
    assert "The plan rests on 12,412 stall cycles (17,856 cycles) of 207 instructions, 4 waves sampled." in page
    assert page.count('class="rests small muted"') >= 1
    index = json.loads((site / "api" / "index.json").read_text())
    groups = [g for g in index["sweep_findings"] if g["rests_on"] is not None]
    assert groups and all(g["rests_on"]["captures"] == len(g["kernels"]) for g in groups)
    # no capture: none; the launcher's group rests on the campaigns' call times, said in its own text; the groups
    # read from the campaigns alone (where it loses, another configuration, no graph capture) rest on no capture
    assert all(g["key"] in ("capture:none", "limiter:launch path", "where:unprofiled", "capture:other",
                            "verdict:graph_capture_failed") for g in index["sweep_findings"] if g["rests_on"] is None)
    drain = next(g for g in groups if g["key"] == "pattern:lds_dma_drain")
    # the wave files of its kernels' primary captures: flash_attn_func's 32 (the slice: its small capture's 4), hgemm's 8
    files = {s: len(list((sweep / kernel(s)[0].primary.rel).glob("se*_sm*_sl*_wv*.json"))) for s in drain["kernels"]}
    assert sorted(drain["kernels"]) == ["flash_attn_func", "hgemm_splitk"] and files["hgemm_splitk"] == 8
    assert drain["rests_on"]["waves_sampled"] == sum(files.values()) and drain["rests_on"]["captures"] == 2
    # every group, shown or under "more"; the launcher's says "Rests on the call times of N launch shapes" in its text
    assert (site / "index.html").read_text().count("Rests on ") == len(groups) + 1
    doc = json.loads((site / "api" / "kernels" / "fused_rope_cache.json").read_text())
    advice = doc["captures"][0]["advice"]  # the launcher first where its campaign is (rests on call times)
    capture = [f for f in advice if f["rests_on"].get("basis") != "call times"]
    assert capture[0]["rests_on"]["instructions"] == 207
    assert len(advice) - len(capture) == (1 if (sweep / "benchmarks/examples/fused_rope_cache").is_dir() else 0)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory, sweep):
    from generator.site import build

    out = tmp_path_factory.mktemp("site")
    build.build_site(str(sweep), str(out), progress=False, jobs=2)
    return out


# ---------------------------------------------------------------- the per-shape chart

def test_shapes_no_verdict_may_rest_on_have_their_own_markers(kernel, sweep):
    """vec_add (slice and sweep): 5 of its 12 measured shapes sit at the timing floor (expected/verdicts.json
    at_floor); each is drawn grey and open under its own legend entry, not as a win or a loss."""
    v = json.loads((sweep / "expected" / "verdicts.json").read_text())["vec_add"]
    k, _ = kernel("vec_add")
    measured = [sh for sh in k.score.shapes if sh.measured]
    fig = charts.shape_speedups(measured, 1.05, 0.95)
    marks = [t for t in fig["data"] if t["mode"] == "markers"]
    floor = [t for t in marks if t["name"] == "at the timing floor (no verdict)"]
    assert len(floor) == 1 and len(floor[0]["x"]) == v["at_floor"] == 5
    assert set(floor[0]["marker"]["symbol"]) == {"circle-open"} and floor[0]["marker"]["color"] == charts.CAVEAT_COLOR
    outcome = [t for t in marks if t["name"] in ("win", "parity", "loss")]
    assert sum(len(t["x"]) for t in outcome) == len(measured) - 5
    assert fig["zh"]["traces"][str(fig["data"].index(floor[0]))]["name"] == "处于计时下限（不作判定）"


@pytest.mark.full_sweep  # pa_decode is whole in the slice, but moe_gemm is not
def test_above_roof_and_mixed_clock_shapes_are_marked(kernel):
    """moe_gemm: its graph replay misses work (VERDICTS rule 16): none of its shapes is a chart dot, so no marker
    names them (the speed panel leaves them out: tests/test_fix7.py); pa_decode: gluon's rows above 8.8 TB/s on
    its two sliding-window shapes (rule 9)."""
    k, _ = kernel("moe_gemm")
    assert k.score.graph_partial and "partial_replay" not in charts.CAVEATS
    k, _ = kernel("pa")
    measured = [sh for sh in k.score.shapes if sh.measured]
    above = [sh for sh in measured if sh.best_baseline in sh.above_roof]
    assert [charts.shape_caveat(sh) for sh in above] == ["above_roof", "above_roof"]
    fig = charts.shape_speedups(measured, 1.05, 0.95)
    assert "above a roof (no verdict)" in {t["name"] for t in fig["data"] if t["mode"] == "markers"}
