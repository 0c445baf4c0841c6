"""VERDICTS rules 13 (two clocks) and 14 (how sure), recomputed from the raw rows with a few lines of
their own, and the pure rules on hand-made rows (named so)."""

from __future__ import annotations

import csv
import json
import math
import random
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from generator.analyze.verdicts import clocks, score_folder, score_shape, summarize, sweep_floor
from generator.analyze.verdicts.intervals import bootstrap_interval, crosses
from generator.analyze.verdicts.rules import BLOCKED, HEADROOM, PARITY, WIN
from generator.config import SweepConfig, load_config
from generator.read.campaign_rows import LedgerShape, ResultRow
from generator.site import wording

from handmade import handmade_suite_campaign
from verdict_oracle import _usable


def _raw(folder: Path) -> tuple[dict, list[str]]:
    """(shape, provider) -> its chosen raw row (the last usable, else the last), and shapes in file order."""
    rows, order = defaultdict(list), []
    for line in (folder / "benchmark_results.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[(r["shape_id"], r["provider"])].append(r)
            if r["shape_id"] not in order:
                order.append(r["shape_id"])
    chosen = {k: ([r for r in rs if _usable(r)] or rs)[-1] for k, rs in rows.items()}
    return chosen, order


def _call(r: dict) -> float | None:
    if not _usable(r):
        return None
    return r["median_us"] if r.get("timing_method") == "eager_event" else r.get("eager_median_us")


def launch_overhead_from_raw(folder: Path, floor: float) -> list:
    """Rule 13 by hand: the median call gap over the measured shapes that cannot hide the launch path."""
    chosen, order = _raw(folder)
    gaps, calls, graphs = {}, {}, {}
    for sid in order:
        cand = chosen.get((sid, "flydsl"))
        bases = [r for (s, p), r in chosen.items() if s == sid and p != "flydsl" and _usable(r)]
        if cand is None or not _usable(cand) or not bases:
            continue
        calls[sid] = _call(cand)
        graphs[sid] = cand["median_us"] if cand.get("timing_method") == "cudagraph" else None
        base_calls = [c for c in map(_call, bases) if c]
        gaps[sid] = calls[sid] - min(base_calls)
    plateau = 1.10 * min(calls.values())
    launch = [sid for sid in gaps if (graphs[sid] or 1e9) < 1.25 * floor or calls[sid] <= plateau]
    return [statistics.median(gaps[s] for s in launch), len(launch)]


@pytest.mark.parametrize("op, want", [("quant", [35.795, 8]), ("pa_decode", [212.672, 10])])
def test_launch_overhead_recomputed_from_raw_rows(sweep, op, want):
    """quant: +35.8 us over 8 launch shapes; pa_decode: +212.7 us over 10 (raw rows; no row of these
    two sits above a roof as a candidate, and pa_decode's gluon rows above the HBM roof are never
    the fastest call)."""
    folder = sweep / "benchmarks" / "examples" / op
    config, floor = load_config(sweep), sweep_floor(sweep)
    score = score_folder(str(folder), config, floor_us=floor)
    mine = launch_overhead_from_raw(folder, floor)
    assert [round(mine[0], 3), mine[1]] == want
    assert [round(score.launch_overhead_us[0], 3), score.launch_overhead_us[1]] == want
    assert sum(s.launch_shape for s in score.shapes) == want[1]


def test_fused_rope_cache_pair_is_call_time_and_blocked(sweep):
    """219.6 us of HIP events around a kernel the bundle's trace times at 4.0 us a dispatch; launch
    overhead 123.5 us >= half of 219.6: the pair is on the call clock and decides nothing."""
    doc = json.loads((sweep / "expected" / "verdicts.json").read_text())
    if "fused_rope_cache" not in doc:
        pytest.skip("fused_rope_cache's campaign is not in the slice")
    trace = sweep / "examples/fused_rope_cache/compute_viewer/discover_kernel_trace.csv"
    with open(trace, newline="") as fh:
        durs = [(int(r["End_Timestamp"]) - int(r["Start_Timestamp"])) / 1000 for r in csv.DictReader(fh)
                if r["Kernel_Name"].startswith("fused_qk_rope_reshape_and_cache_0")]
    assert statistics.median(durs) == 4.0
    s = score_folder(str(sweep / "benchmarks/examples/fused_rope_cache"), load_config(sweep),
                     json.loads((sweep / "docs/data/kernels.json").read_text()), floor_us=sweep_floor(sweep))
    assert (s.pair_device_us, s.pair_clock, s.verdict, s.blocked_reason) == (4.0, "call", BLOCKED,
                                                                            "no like-for-like baseline")
    assert wording.plain("en", s.call_pair_msg) == "call time 0.17x, host events: 219.6 us around a 4.0 us kernel"
    assert "call time" in s.verdict_reason and "4.0 us kernel" in s.verdict_reason


def test_interval_recomputed_from_raw_rows(sweep):
    """pa_decode's 10 verdict shapes (none at the floor; its 2 sliding-window shapes fell back to eager events
    and leave the verdict, rule 10), resampled as rule 14 says: [0.712, 0.811]."""
    folder = sweep / "benchmarks" / "examples" / "pa_decode"
    chosen, order = _raw(folder)
    logs = []
    for sid in order:
        c = chosen.get((sid, "flydsl"))
        ratios = []
        for (s, p), b in chosen.items():
            if s != sid or p == "flydsl" or not (_usable(c) and _usable(b)):
                continue
            graph = c.get("timing_method") == b.get("timing_method") == "cudagraph"
            if graph and c.get("includes_layout_conversion") == b.get("includes_layout_conversion"):
                ratios.append(b["median_us"] / c["median_us"])
        if ratios:
            logs.append(math.log(min(ratios)))
    rng = random.Random(0)
    means = sorted(math.exp(sum(logs[i] for i in rng.choices(range(len(logs)), k=len(logs))) / len(logs))
                   for _ in range(2000))
    lo, hi = means[100], means[1899]
    score = score_folder(str(folder), load_config(sweep), floor_us=sweep_floor(sweep))
    assert len(logs) == score.verdict_geomean[1] == 10
    assert (round(lo, 3), round(hi, 3)) == (0.712, 0.811)
    assert score.verdict_ci == pytest.approx([lo, hi], abs=5e-4)
    assert score.uncertain_ci is False and score.verdict_ci_models is None  # every pa_decode shape is a model's
    assert wording.plain("en", score.interval_msg) == "shapes 0.71\u20130.81"


@pytest.mark.full_sweep
def test_softmax_wins_on_its_shapes_but_not_surely_on_the_model_shapes(sweep):
    s = score_folder(str(sweep / "benchmarks/examples/softmax"), load_config(sweep), floor_us=sweep_floor(sweep))
    assert s.verdict == WIN and s.uncertain and s.uncertain_models and not s.uncertain_ci
    assert s.n_model_shapes == 18  # of 34 verdict shapes: 15 synthetic, 1 diagnostic
    assert wording.plain("en", s.interval_msg) == "shapes 1.13\u20131.26, model shapes 1.04\u20131.21"
    assert "uncertain: on the model shapes, 1.04\u20131.21 reaches across 1.05" in s.flags


def test_too_few_shapes_and_one_shape_say_so(sweep):
    config, floor = load_config(sweep), sweep_floor(sweep)
    quant = score_folder(str(sweep / "benchmarks/examples/quant"), config, floor_us=floor)
    assert quant.verdict_ci is None and quant.uncertain is False
    assert wording.plain("en", quant.interval_msg) == "too few shapes (7) for an interval"
    kj = json.loads((sweep / "docs/data/kernels.json").read_text())
    moe = score_folder(str(sweep / "benchmarks/examples/moe_blockscale"), config, kj, floor_us=floor)
    assert moe.verdict_basis == "pair" and wording.plain("en", moe.interval_msg) == "one shape (the profiled pair)"


# ---------------------------------------------------------------- the pure rules, on hand-made rows


def handmade_row(provider: str, us: float, method: str = "cudagraph", eager: float | None = None,
                 index: int = 0, gbps: float | None = None) -> ResultRow:
    return ResultRow(index, index + 2, "x", provider, "ok", True, us, timing_method=method, eager_median_us=eager,
                     effective_gbps=gbps)


def test_call_and_graph_times_handmade():
    assert clocks.call_time(handmade_row("a", 10.0, "cudagraph", 30.0)) == 30.0
    assert clocks.call_time(handmade_row("a", 10.0, "eager_event")) == 10.0
    assert clocks.graph_time(handmade_row("a", 10.0, "eager_event")) is None
    assert clocks.graph_time(handmade_row("a", 10.0, "cudagraph", 30.0)) == 10.0


@pytest.mark.parametrize("pair, dev, overhead, want", [
    (219.6, 4.0, [123.5, 30], "call"),       # fused_rope_cache
    (24.1, 4.74, [50.3, 20], "call"),        # layernorm: its pair is call time too (the verdict is its shapes')
    (111.1, 73.2, [-99.2, 1], "kernel"),     # moe_gemm
    (9.9, 92.0, [32.7, 2], "unchecked"),     # flash_attn_func: the trace timed another shape
    (9.9, None, [32.7, 2], "unchecked"),
    (100.0, 10.0, [20.0, 3], "kernel"),      # over 2x the timer but the overhead is no half of it
])
def test_pair_clock_handmade(pair, dev, overhead, want):
    assert clocks.pair_clock(pair, dev, overhead) == want


@pytest.mark.parametrize("n", [8, 13, 55, 70])
def test_bootstrap_draws_as_the_contract_words_them(n):
    """Rule 14's draws, to the bit: B resamples of ``rng.choices(range(n), k=n)`` in a row from one
    ``random.Random(0)``, in file order; each one's exp(mean ln s); the sorted geomeans at 100 and 1899."""
    draw = random.Random(n).uniform
    speedups = [draw(0.5, 2.0) for _ in range(n)]
    rng, logs = random.Random(0), [math.log(s) for s in speedups]
    means = sorted(math.exp(math.fsum(logs[i] for i in rng.choices(range(n), k=n)) / n) for _ in range(2000))
    assert bootstrap_interval(speedups) == [means[100], means[1899]]


def test_bootstrap_and_thresholds_handmade():
    assert bootstrap_interval([1.2] * 7) is None
    assert bootstrap_interval([1.2] * 8) == pytest.approx([1.2, 1.2])
    assert crosses(WIN, [1.04, 1.3]) is True and crosses(WIN, [1.05, 1.3]) is False
    assert crosses(HEADROOM, [0.8, 0.95]) is True and crosses(HEADROOM, [0.8, 0.949]) is False
    assert crosses(PARITY, [0.96, 1.04]) is False and crosses(PARITY, [0.94, 1.0]) is True
    assert crosses(WIN, None) is None


def test_no_fixed_cost_claim_handmade():
    """Two shapes cannot tell a per-call cost from a serial K loop: 8x the bytes at 1.1x the time makes no flag."""
    shape = LedgerShape("small", 1, "m", "prefill", "bf16", {"n": 1})
    big = LedgerShape("big", 2, "m", "prefill", "bf16", {"n": 8})
    rows_small = {"flydsl": [handmade_row("flydsl", 100.0, gbps=10.0)], "lib": [handmade_row("lib", 90.0, index=1)]}
    rows_big = {"flydsl": [handmade_row("flydsl", 110.0, gbps=72.8)], "lib": [handmade_row("lib", 95.0, index=1)]}
    shapes = [score_shape(shape, rows_small, "flydsl", floor_us=1.0), score_shape(big, rows_big, "flydsl", floor_us=1.0)]
    s = summarize("op", shapes, floor_us=1.0)
    assert not [k for k in s.flag_keys if "fixed" in k] and "fixed" not in " ".join(s.flags)


def test_a_second_layout_timed_with_events_only_is_blocked_handmade(tmp_path):
    """The hand-made suite's report says "HIP event timing": no kernel evidence, BLOCKED, its rung-2
    geomean kept as call time (b4: aiter 80 / flydsl 100 = 0.80; b1 sits at the suite's own floor, 20 us)."""
    folder = handmade_suite_campaign(tmp_path / "attn")
    (folder / "BENCHMARK_REPORT.md").write_text("# Report\n\nAll times: HIP event timing, 100 iterations.\n")
    s = score_folder(str(folder), SweepConfig())
    assert (s.verdict, s.blocked_reason, s.clock) == (BLOCKED, "timed on the call clock only", "call")
    assert s.call_geomean == [pytest.approx(0.8), 1]
    assert wording.plain("en", s.call_pair_msg) == "call time 0.80x over 1 shape, events only"
    graph = handmade_suite_campaign(tmp_path / "graph")
    (graph / "BENCHMARK_REPORT.md").write_text("# Report\n\nHIP event timing around one hipGraph replay.\n")
    assert score_folder(str(graph), SweepConfig()).clock == "kernel"


def test_the_kernel_page_draws_both_clocks_shape_by_shape(kernel, sweep):
    """pa's speed panel: one point per measured shape that has both of flydsl's clocks (10: its two
    sliding-window shapes were timed eagerly only), ordered by the graph time; the call points are the raw
    rows' eager_median_us, the kernel points their median_us."""
    from generator.site.views import base as base_views
    from generator.site.views import speed

    k, row = kernel("pa")
    view = speed._speed_panel(k, row, base_views.SiteContext())
    fig = json.loads(str(view.clocks_chart.json))
    by_name = {t["name"]: t for t in fig["data"]}
    chosen, _ = _raw(sweep / "benchmarks/examples/pa_decode")
    rows = sorted((r for (s, p), r in chosen.items() if p == "flydsl" and _usable(r) and r["timing_method"] == "cudagraph"),
                  key=lambda r: r["median_us"])
    assert by_name["flydsl kernel (graph replay)"]["y"] == pytest.approx([r["median_us"] for r in rows])
    assert by_name["flydsl call (eager)"]["y"] == pytest.approx([r["eager_median_us"] for r in rows])
    assert len(rows) == 10 and fig["zh"]["traces"]["1"]["name"] == "flydsl 调用（即时）"
