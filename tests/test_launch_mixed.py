"""The launcher's kernel-time and other-scope readings and the small-gap flag name the fastest baseline at each
launch shape where it differs between shapes, as the launch reading (and, from audit4, the small reading's line) did (VERDICTS rule 13).

gemm's two launch shapes (hgemm_splitk's campaign), worked from its raw rows (``test_launch_claims._raw_launch``):
the fastest call is pytorch's at one and hipblaslt's at the other, and the median call gap is +0.4 us, under
5 us: the page, the verdict line, the PR snippet and the flag said "+0.4 us against pytorch's" as if one
baseline were faster at both.
"""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

from conftest import one_finding as finding, primary_findings as plan
from test_launch_claims import _raw_launch

from generator.analyze.verdicts import launchline
from generator.site import wording

FULL = pytest.mark.full_sweep


@FULL
def test_gemm_small_call_gap_names_the_fastest_baseline_at_each_shape(kernel, sweep):
    launch = [v for v in _raw_launch(sweep, "gemm").values() if v["launch"]]
    assert dict(Counter(v["base"] for v in launch)) == {"pytorch": 1, "hipblaslt": 1}
    gap = statistics.median(v["gap"] for v in launch)
    assert f"{gap:+.1f}" == "+0.4"
    k, _row = kernel("hgemm_splitk")
    # a tie: the first by name is said with its count, both are counted in the summary
    assert wording.plain("en", k.score.launch_msg) == (
        "call +0.4 us against each launch shape's fastest call (hipblaslt's at 1 of 2)")
    assert wording.plain("en", launchline.launch_msg(k.score, "head")) == (
        "a call +0.4 us against each launch shape's fastest call (hipblaslt's at 1 of 2)")
    assert launchline.cell(k.score) == "+0.4 us vs the fastest (hipblaslt at 1 of 2)"
    found, _ = plan(kernel, "hgemm_splitk")
    f = finding(found, "launch_overhead")
    assert f["title"] == "Launch path: a call +0.4 us against each launch shape's fastest call (hipblaslt's at 1 of 2)"
    assert "more than the fastest baseline's at each shape (hipblaslt 1, pytorch 1): under 5 us" in f["evidence"]["summary"]
    assert f["evidence"]["fastest_call_baselines"] == {"hipblaslt": 1, "pytorch": 1}
    assert "pytorch's" not in f["title"]
