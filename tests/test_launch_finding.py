"""The launcher as a finding (VERDICTS rule 13) and two campaigns of one op (``supersedes``), on the real
sweep's scores; the ranking rule on hand-made findings (named so)."""

from __future__ import annotations

import json
import statistics

import pytest

from generator.analyze import advice
from generator.analyze.advice import launch as launch_mod
from generator.analyze.advice.registry import Finding
from generator.analyze.verdicts import score_folder, sweep_floor
from generator.config import config_from_dict, load_config
from generator.site.views import base as base_views
from generator.site.views import overview as overview_views

from test_clocks import _call, _raw
from verdict_oracle import _usable


def _score(sweep, op):
    kj = json.loads((sweep / "docs/data/kernels.json").read_text())
    return score_folder(str(sweep / "benchmarks/examples" / op), load_config(sweep), kj, floor_us=sweep_floor(sweep))


def test_pa_decode_launcher_stands_beside_its_kernel_loss(sweep):
    """pa_decode: at least +212.7 us a call vs gluon over 10 launch shapes, and on all 10 measured shapes the call
    gap exceeds flydsl's own graph time (raw rows: eager_median_us - the fastest baseline call > median_us). Its
    kernel verdict is a loss (0.76x on the kernel clock), so the launcher is not its first step (DOMAIN §1.7)."""
    folder = sweep / "benchmarks/examples/pa_decode"
    chosen, order = _raw(folder)
    beats = 0
    for sid in order:
        c = chosen.get((sid, "flydsl"))
        bases = [_call(r) for (s, p), r in chosen.items() if s == sid and p != "flydsl" and _usable(r) and _call(r)]
        if c is not None and _usable(c) and bases and c["timing_method"] == "cudagraph":
            beats += (_call(c) - min(bases)) > c["median_us"]
    s = _score(sweep, "pa_decode")
    f = advice.launch_finding(s)
    assert launch_mod.overhead_beats_kernel(s) == (beats, 10) == (10, 10)
    assert f.detector == "launch_overhead" and f.priority == "medium" and not f.evidence["first_step"]
    assert f.title == "Launch path: at least +212.7 us a call over gluon" and f.stall_unit == "us"
    gaps = [x["gap_us"] for x in f.evidence["shapes"]]
    assert gaps == sorted(gaps, reverse=True) and len(gaps) == 3  # the premise names the largest three
    assert f.premise.key == "finding.launch_overhead.premise" and f.premise.kw["n"] == 10


@pytest.mark.full_sweep
def test_fused_rope_cache_launcher_leads_its_plan(sweep):
    """Its kernel verdict is BLOCKED (no loss) while its call-clock pair loses 0.17x: the launcher first; the share
    is the median call gap / call over its 30 measured shapes (all of them launch shapes)."""
    s = _score(sweep, "fused_rope_cache")
    f = advice.launch_finding(s)
    shares = [max(sh.clocks.call_gap_us, 0) / sh.clocks.candidate_call_us for sh in s.shapes if sh.measured]
    assert launch_mod.is_first_step(s) and f.evidence["first_step"] and len(shares) == 30
    assert sum(sh.launch_shape for sh in s.shapes) == 30
    assert f.stall_share == pytest.approx(statistics.median(shares))


def test_a_launcher_that_costs_nothing_is_a_flag(sweep):
    """moe_blockscale's +43.5 us is against aiter's fused call, which times other work too, and its replay misses
    work (rule 16), so no launch path can check it: a flag that agrees with its verdict line (no launch overhead
    read); gemm's +0.4 us is under 5 us: a flag that says the measured gap, never ranked, never "no overhead"."""
    s = _score(sweep, "moe_blockscale")
    f = advice.launch_finding(s)
    assert f.flagged and not f.ranked and f.evidence["launch_overhead_us"] == pytest.approx(43.511, abs=5e-4)
    assert f.title == "Launch path: a call +43.5 us against aiter's, another scope" and s.graph_partial
    assert s.launch_msg.key == "verdict.launch.scope"
    if not (sweep / "benchmarks/examples/gemm").is_dir():
        pytest.skip("gemm's campaign is not in the slice")
    g = advice.launch_finding(_score(sweep, "gemm"))
    assert g.flagged and not g.ranked and g.title == "Launch path: a call +0.4 us against each launch shape's fastest call (hipblaslt's at 1 of 2)"


def _handmade(detector, share, kind="pattern"):
    return Finding(detector, detector, share, {"summary": ""}, "", "medium", kind=kind)


def test_the_launcher_stands_beside_the_capture_findings_handmade():
    """A launch share of 0.40 of a call is never ranked against shares of stall cycles (DOMAIN §1.7): it stands
    after the capture's findings, and first (after the blockers) only as the first step."""
    blocker, big, small = _handmade("b", 0.0, "blocker"), _handmade("big", 0.70), _handmade("small", 0.50)
    lf = Finding("launch_overhead", "l", 0.40, {"summary": "", "first_step": False}, "", "medium", kind="limit")
    assert [f.detector for f in advice.with_launch([blocker, big, small], lf)] == ["b", "big", "small", "launch_overhead"]
    first = Finding("launch_overhead", "l", 0.40, {"summary": "", "first_step": True}, "", "high", kind="limit")
    assert [f.detector for f in advice.with_launch([blocker, big, small], first)] == ["b", "launch_overhead", "big", "small"]


@pytest.mark.full_sweep
def test_the_sweep_reading_lists_the_launcher_but_gives_it_no_kernel_gap(kernel, site_env):
    """Across the whole sweep: 8 of the 12 timed kernels with a plan here pay a launch overhead, worst pa
    (+212.7 us), none read on hgemm_splitk (+0.4), moe_blockscale and moe_gemm (other scope) and preshuffle_gemm
    (-1.0, all from expected/verdicts.json); the group
    holds no share of the kernel gap, and no kernel's first step in the partition is the launcher."""
    from generator.site import gather

    env, plans = site_env
    extras, rows = {}, {}
    for slug in plans:
        k, row = kernel(slug)
        rows[slug] = row
        e = {}
        if k.primary is not None and k.primary.findings is not None:
            e["findings"] = k.primary.findings
        extras[slug] = e
    items = gather.sweep_reading(extras, rows, advice)
    group = next(i for i in items if i["json"]["key"] == advice.LAUNCH_KEY)
    assert group["json"]["headroom_share"] is None
    assert {"fused_rope_cache", "pa", "softmax"} <= set(group["json"]["kernels"])
    assert "worst pa (+212.7 us)" in group["text"] and "8 of 12 timed kernels" in group["text"] \
        and "none read on hgemm_splitk, moe_blockscale, moe_gemm and preshuffle_gemm" in group["text"]
    assert all(advice.LAUNCH_KEY != i["json"]["key"] or not i["json"]["headroom_kernels"] for i in items)


def test_supersedes_is_configured_and_leaves_the_older_campaign_uncounted(kernel):
    """``[campaigns.pa_decode_v2] supersedes = "pa_decode"``: pa's row says so and the tallies leave it out."""
    cfg = config_from_dict({"campaigns": {"pa_decode_v2": {"supersedes": "pa_decode", "clock": "kernel"}}})
    assert cfg.op_supersedes == {"pa_decode_v2": "pa_decode"} and cfg.op_clocks == {"pa_decode_v2": "kernel"}
    k, _ = kernel("pa")
    ctx = base_views.SiteContext(supersedes=dict(cfg.op_supersedes))
    row = overview_views.index_row(k, ctx)
    assert row.superseded_by == "pa_decode_v2" and row.verdict == "HEADROOM"
    tally = overview_views.Tally.of(row.verdict, row.campaign_broken, bool(row.superseded_by))
    assert (tally.headroom, tally.superseded) == (0, 1)
    with pytest.raises(Exception, match="clock must be one of kernel, call"):
        config_from_dict({"campaigns": {"x": {"clock": "wall"}}})
