"""What the launcher may claim (VERDICTS rule 13), worked from the raw rows of the real sweep.

The call gap (the candidate's eager call less the fastest baseline's) is a lower bound on what its launcher
costs more, and only where the kernel clock does not take most of it. Per launch shape the *launch path*
is the call gap less the kernel gap: each side's own call less its own graph time, compared. Checked here:
fp8_gemm_rowscale's +9.4 us gap is +1.66 us of launch path (not launch overhead); softmax's share of a
call is over its launch shapes (85.2 %); fused_rope_cache's verdict line and finding agree; "n of m"
counts the launch shapes among the measured shapes with a call gap; no upper bound is claimed.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from generator.analyze import advice
from generator.analyze.advice import launch as launch_mod
from generator.analyze.verdicts import clocks, launchline, score_folder, sweep_floor
from generator.config import load_config
from generator.site import wording
from generator.site.views import kernel as kernel_views

from test_clocks import _call, _raw
from verdict_oracle import _usable


def _folder(sweep: Path, op: str) -> Path:
    folder = sweep / "benchmarks/examples" / op
    if not (folder / "benchmark_results.jsonl").is_file():
        pytest.skip(f"{op}'s campaign is not in this sweep (needs ../shared/mi350x-sweep, the whole shared sweep)")
    return folder


def _score(sweep: Path, op: str):
    kj = json.loads((sweep / "docs/data/kernels.json").read_text())
    return score_folder(str(_folder(sweep, op)), load_config(sweep), kj, floor_us=sweep_floor(sweep))


def _raw_launch(sweep: Path, op: str) -> dict:
    """Rule 13 by hand from the raw rows: per measured shape with a call gap, the candidate's call and graph
    times, the fastest baseline call and that row's graph time; which shapes are launch shapes."""
    chosen, order = _raw(_folder(sweep, op))
    floor = sweep_floor(sweep)
    out = {}
    for sid in order:
        cand = chosen.get((sid, "flydsl"))
        bases = [r for (s, p), r in chosen.items() if s == sid and p != "flydsl" and _usable(r) and _call(r)]
        if cand is None or not _usable(cand) or not _call(cand) or not bases:
            continue
        best = min(bases, key=_call)
        graph = cand["median_us"] if cand.get("timing_method") == "cudagraph" else None
        bgraph = best["median_us"] if best.get("timing_method") == "cudagraph" else None
        out[sid] = {"call": _call(cand), "graph": graph, "bcall": _call(best), "bgraph": bgraph,
                    "base": best["provider"], "gap": _call(cand) - _call(best)}
    plateau = 1.10 * min(v["call"] for v in out.values())
    for v in out.values():
        v["launch"] = (v["graph"] is not None and v["graph"] < 1.25 * floor) or v["call"] <= plateau
        v["path"] = (None if v["graph"] is None or v["bgraph"] is None
                     else (v["call"] - v["graph"]) - (v["bcall"] - v["bgraph"]))
    return out


def _en(m) -> str:
    return wording.plain("en", m)


def test_fp8_gemm_rowscale_gap_is_mostly_kernel_time_not_launch_overhead(sweep):
    """Its one launch shape (K=7168 M=512 N=2112, the least call): flydsl 31.82 us a call against pytorch's
    22.44 (+9.38), but on the kernel clock 38.32 against 30.60 (+7.72): the launch path is only +1.66 us, so the
    +9.4 us is not called launch overhead anywhere (verdict line, launcher line, finding, CLI)."""
    raw = _raw_launch(sweep, "fp8_gemm_rowscale")
    launch = [v for v in raw.values() if v["launch"]]
    assert len(launch) == 1 and launch[0]["base"] == "pytorch"
    [v] = launch
    assert (round(v["call"], 2), round(v["bcall"], 2), round(v["graph"], 2), round(v["bgraph"], 2)) == (
        31.82, 22.44, 38.32, 30.60)
    assert v["gap"] == pytest.approx(9.380, abs=5e-4) and v["path"] == pytest.approx(1.661, abs=5e-4)
    s = _score(sweep, "fp8_gemm_rowscale")
    assert s.launch_overhead_us[0] == pytest.approx(v["gap"]) and s.launch_overhead_us[1] == 1  # rule 13 unchanged
    assert s.launch_path_us[0] == pytest.approx(v["path"]) and s.launch_path_us[1] == 1
    assert launchline.reading(s) == clocks.READ_KERNEL
    verdict, head = _en(s.launch_msg), kernel_views.launcher_line(s).en
    assert verdict == "call +9.4 us against pytorch's (1 launch shape): launch path +1.7 us, the rest kernel time"
    assert head == "a call +9.4 us against pytorch's (1 launch shape): launch path +1.7 us, the rest kernel time"
    assert "at least" not in verdict + head and "overhead" not in verdict + head
    assert launchline.cell(s) == "+9.4 us vs pytorch (launch path +1.7)"
    assert launchline.overview_us(s) == pytest.approx(v["path"])
    f = advice.launch_finding(s)
    assert f.flagged and not f.ranked and not f.evidence["first_step"] and not launch_mod.is_first_step(s)
    assert f.title == "Call gap +9.4 us against pytorch: launch path +1.7 us, the rest kernel time"


@pytest.mark.parametrize("op, want", [("softmax", 0.852), ("fused_rope_cache", 0.894), ("vec_add", 0.920)])
def test_call_share_is_over_the_launch_shapes_only(sweep, op, want):
    """The launcher's share of a call: the median of max(gap, 0) / call over the launch shapes (softmax: 85.2 %
    over its 50; over all 73 measured shapes it would read 81.3 %)."""
    raw = _raw_launch(sweep, op)
    by_hand = statistics.median(max(v["gap"], 0) / v["call"] for v in raw.values() if v["launch"])
    s = _score(sweep, op)
    assert launch_mod.call_share(s) == pytest.approx(by_hand) and round(by_hand, 3) == want
    assert advice.launch_finding(s).stall_share == pytest.approx(by_hand)
    if op == "softmax":
        every = statistics.median(max(v["gap"], 0) / v["call"] for v in raw.values())
        assert (sum(v["launch"] for v in raw.values()), len(raw), round(every, 3)) == (50, 73, 0.813)


def test_fused_rope_cache_verdict_line_and_finding_agree(sweep):
    """aiter_triton's call times a layout conversion too (another scope), yet on the kernel clock the two sides
    differ by a median 0.04 us at the 30 launch shapes while their calls differ by 123.5: the launch path,
    each side's call less its own graph time, is +123.2 us. Verdict line, launcher line and finding all say
    at least +123.5 us, naming the other scope; none says no launch overhead can be read."""
    raw = _raw_launch(sweep, "fused_rope_cache")
    launch = [v for v in raw.values() if v["launch"]]
    bases = [v["base"] for v in launch]
    assert len(launch) == 30 and bases.count("aiter_triton") > len(bases) / 2  # the fastest call on most shapes
    assert statistics.median(v["graph"] - v["bgraph"] for v in launch) == pytest.approx(0.04, abs=5e-3)
    path = statistics.median(v["path"] for v in launch)
    assert path == pytest.approx(123.151, abs=5e-3)
    s = _score(sweep, "fused_rope_cache")
    assert s.launch_scope_differs and s.launch_path_us[0] == pytest.approx(path) and s.launch_path_us[1] == 30
    assert launchline.reading(s) == clocks.READ_LAUNCH
    verdict, head, f = _en(s.launch_msg), kernel_views.launcher_line(s).en, advice.launch_finding(s)
    assert verdict == ("launch at least +123.5 us a call vs the fastest baseline at each of 30 launch shapes (aiter_triton at 20), "
                       "whose calls time other work too")  # pytorch is the fastest at the other 10
    assert head == ("at least +123.5 us a call vs the fastest baseline at each of 30 launch shapes (aiter_triton at 20), "
                    "whose calls time other work too")
    assert f.title == "Launch path: at least +123.5 us a call over the fastest baseline at each shape" and f.ranked
    assert f.evidence["first_step"] and launch_mod.is_first_step(s)
    assert all("can be read" not in t for t in (verdict, head, f.title, f.evidence["summary"]))


def test_moe_gemm_and_moe_blockscale_read_nothing_against_another_scope(sweep):
    """moe_gemm: -99.2 us against aiter's fused_moe (routing and sorting too); moe_blockscale: +43.5 us against
    it while its own replay misses work (rule 16), so no launch path checks it: the verdict line and the finding
    both say that nothing can be read (the finding is a flag)."""
    for op, us in (("moe_gemm", "-99.2"), ("moe_blockscale", "+43.5")):
        s = _score(sweep, op)
        assert launchline.reading(s) == clocks.READ_SCOPE, op
        # no "launch" word on a gap the same line says is no launch overhead (the page's launcher line agrees)
        assert _en(s.launch_msg) == (f"call {us} us against aiter's, whose call times other work too: no launch "
                                     "overhead can be read from it")
        f = advice.launch_finding(s)
        assert f.flagged and f.title == f"Launch path: a call {us} us against aiter's, another scope"


@pytest.mark.parametrize("op, kernel_slug, n, m", [("softmax", "softmax", 50, 73),
                                                    ("fused_rope_cache", "fused_rope_cache", 30, 30),
                                                    ("gemm", "hgemm_splitk", 2, 30), ("pa_decode", "pa", 10, 12)])
def test_n_launch_shapes_of_m_measured_shapes_with_a_call_gap(sweep, kernel, op, kernel_slug, n, m):
    """"rests on n launch shapes of the m measured shapes with a call gap": n counts the launch shapes, m the
    measured shapes they are chosen from (hgemm_splitk's flag said "2 of the 0"; pa's two sliding-window shapes
    have a call gap but no graph time, so m is 12, not the 10 with both clocks)."""
    raw = _raw_launch(sweep, op)
    assert (sum(v["launch"] for v in raw.values()), len(raw)) == (n, m)
    k, _ = kernel(kernel_slug)
    [f] = [x for x in k.primary.findings if x["detector"] == "launch_overhead"]
    assert f["rests_on"] == {"basis": "call times", "launch_shapes": n, "shapes_with_call_gap": m}
    said = wording.plain("en", _msg_of(f["i18n"]["rests_on"]))
    assert said.startswith(f"rests on the campaign's call times: {n} launch shapes of the {m} measured shapes with a "
                           "call gap")


def _msg_of(j):
    from generator.analyze.message import from_json
    return from_json(j)


def test_no_upper_bound_is_claimed(sweep):
    """A lower bound bounds nothing from above: hgemm_splitk's +0.4 us is said as measured ("no more than
    pytorch's call" and "no overhead" are gone, in both languages), and the sweep reading says on which kernels
    no launch overhead was read, not which pay none."""
    cat = {lang: json.loads((Path(__file__).resolve().parent.parent / f"templates/i18n/{lang}.json").read_text())
           for lang in ("en", "zh")}
    launchy = lambda k: "launch" in k or k.startswith("launch.")  # noqa: E731
    assert not [k for k, v in cat["en"].items() if launchy(k) and ("no more than" in v or "no overhead" in v)]
    assert not [k for k, v in cat["zh"].items() if launchy(k) and ("不多于" in v or "没有额外开销" in v)]
    assert "none read on {none}" in cat["en"]["advice.sweep.launch.tail"]
    s = _score(sweep, "gemm")
    raw = _raw_launch(sweep, "gemm")
    assert statistics.median(v["gap"] for v in raw.values() if v["launch"]) == pytest.approx(0.442, abs=5e-4)
    assert launchline.reading(s) == clocks.READ_SMALL
    # its two launch shapes' fastest calls: pytorch's at one, hipblaslt's at the other (audit4: named pytorch alone)
    assert sorted(v["base"] for v in raw.values() if v["launch"]) == ["hipblaslt", "pytorch"]
    assert kernel_views.launcher_line(s).en == "a call +0.4 us against each launch shape's fastest call (hipblaslt's at 1 of 2)"
    assert launchline.cell(s) == "+0.4 us vs the fastest (hipblaslt at 1 of 2)"  # pytorch at the other (audit5)


@pytest.mark.parametrize("overhead, path, scope, want", [
    (None, None, False, None),
    ([0.4, 2], [1.3, 2], False, "small"),
    ([-99.2, 1], [-71.9, 1], True, "scope"),
    ([43.5, 2], None, True, "scope"),       # another scope and no launch path to check it
    ([9.4, 1], [1.7, 1], False, "kernel"),  # the launch path is under half the gap
    ([26.4, 50], [26.7, 50], False, "launch"),
    ([123.5, 30], [123.2, 30], True, "launch"),
    ([12.0, 3], None, False, "launch"),     # no graph time: the gap stands, a lower bound
])
def test_launch_reading_handmade(overhead, path, scope, want):
    """Hand-made figures (named so): the reading's rules on their edges."""
    assert clocks.launch_reading(overhead, path, scope) == want
