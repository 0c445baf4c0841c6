"""The run statistics' dispatch time where the traced kernel is launched at several grids: one median
per grid where the grids' medians differ (a median over them is a time no dispatch took), the one
median where they agree. Expected values are worked out here from the raw traces, not from the reader."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest

from generator.analyze import runstats
from generator.analyze.dispatch_grids import by_grid, grids_differ
from generator.site.views.counters import timing_facts

REPO = Path(__file__).resolve().parent.parent
VEC_ADD = REPO / "bundles" / "examples" / "vec_add"


def _us(ns: float) -> str:
    return f"{ns / 1000:.2f} us"


def _raw_vec_add_grids() -> dict[tuple, list[float]]:
    """add_kernel's kernel durations (ns) by grid, from the PyTorch profiler trace as written."""
    events = json.loads((VEC_ADD / "launch" / "prefill.trace.json").read_text())["traceEvents"]
    out: dict[tuple, list[float]] = {}
    for e in events:
        if e.get("cat") == "kernel" and e.get("name") == "add_kernel":
            out.setdefault(tuple(e["args"]["grid"]), []).append(e["dur"] * 1000)
    return out


def test_vec_add_two_grids_get_a_median_each_not_one_over_both():
    raw = _raw_vec_add_grids()
    assert sorted(raw) == [(8192, 1, 1), (65536, 1, 1)] and [len(v) for v in raw.values()] == [20, 20]
    timing = runstats.bundle_run_stats(VEC_ADD, "add_kernel").timing
    assert timing.count == 40
    got = {g.grid: g for g in timing.grids}
    for grid, durs in raw.items():
        assert got[grid].count == len(durs)
        assert abs(got[grid].median_ns - statistics.median(durs)) <= 1  # ns: the reader keeps whole ns per call
    assert _us(got[(8192, 1, 1)].median_ns) == "11.39 us" and _us(got[(65536, 1, 1)].median_ns) == "92.33 us"
    facts = timing_facts(timing.to_json())
    assert [f.value for f in facts] == [
        "grid 8192×1×1: median 11.39 us over 20 dispatches (min 11.26 us, max 12.99 us)",
        "grid 65536×1×1: median 92.33 us over 20 dispatches (min 90.72 us, max 92.96 us)"]
    assert "51.86" not in " ".join(f.value + f.zh for f in facts)  # the median over both grids


def test_the_demo_page_shows_each_grid(demo_site):
    page = (demo_site / "kernels" / "vec_add" / "index.html").read_text()
    assert "grid 65536×1×1: median 92.33 us over 20 dispatches" in page
    assert "median 51.86 us" not in page
    doc = json.loads((demo_site / "api" / "kernels" / "vec_add.json").read_text())
    grids = json.dumps(doc).count('"grid": [8192, 1, 1]') + json.dumps(doc).count('"grid":[8192,1,1]')
    assert grids >= 1


@pytest.mark.full_sweep  # the slice keeps part of the kernel trace: 2 of its 5 grids
def test_fused_rope_cache_grids_that_agree_keep_one_median(sweep, kernel):
    """Its traced kernel runs 5 grids whose medians lie within 1.25x of each other: one line, 4.00 us."""
    bundle = sweep / "examples" / "fused_rope_cache"
    timing = runstats.DispatchTiming(**{**kernel("fused_rope_cache")[0].runstats["timing"], "grids": []})
    grids = kernel("fused_rope_cache")[0].runstats["timing"]["grids"]
    with open(next((bundle / "compute_viewer").glob("*kernel_trace.csv")), newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Kernel_Name"].strip() == timing.kernel.strip()]
    raw: dict[tuple, list[int]] = {}
    for r in rows:
        raw.setdefault(tuple(int(r[f"Grid_Size_{a}"]) for a in "XYZ"), []).append(
            int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    medians = {g: statistics.median(d) for g, d in raw.items()}
    assert len(raw) == 5 and max(medians.values()) / min(medians.values()) < 1.25
    assert {tuple(g["grid"]): g["median_ns"] for g in grids} == medians
    assert not grids_differ(grids)
    [fact] = timing_facts(kernel("fused_rope_cache")[0].runstats["timing"])
    assert fact.value == f"median {_us(statistics.median(d for ds in raw.values() for d in ds))} over {len(rows)} " \
                         f"dispatches (min {_us(min(map(min, raw.values())))}, max {_us(max(map(max, raw.values())))})"
    assert fact.value.startswith("median 4.00 us over 3761 dispatches")


def test_one_grid_or_an_unknown_grid_splits_nothing():
    assert by_grid([5, 6, 7], [(1, 1, 1)] * 3) == []
    assert by_grid([5, 6], [(1, 1, 1), None]) == []
    two = by_grid([10, 12, 100], [(1, 1, 1), (1, 1, 1), (2, 1, 1)])
    assert [(g.grid, g.count, g.median_ns) for g in two] == [((1, 1, 1), 2, 11), ((2, 1, 1), 1, 100)]
