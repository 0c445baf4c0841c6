"""Audit of the "Run statistics and counters" panel and the "Captures side by side" section against the
raw files of the shared MI350X sweep (and the real rocprof-compute counter files in tests/data).

Every literal below was recomputed by hand from the raw files, not read back from the tool:
- run statistics: ``compute_viewer/discover_kernel_stats.csv`` sorted by TotalDurationNs (rank), the row the
  capture regex of ``source/input_trace*.yaml`` matches (calls, Percentage), and End - Start of that exact
  name's rows in ``discover_kernel_trace.csv`` (count, median, min, max);
- side by side: code.json rows with an int pc_index > 0 not starting with ``;`` (asm column 0,
  source_loc column 3, total/stall cycles columns 7/8), wave files ``se*_sm*_sl*_wv*.json``;
- counters: no bundle holds a counter file, and each ``*_results.json`` (rocprofv3 JSON) lists 0 counters and 0
  ``counter_collection`` records; the rocprof-compute vcopy files' column sums are in their README.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.analyze import analysis, compare, pmc, runstats
from generator.read import counter_files
from generator.read import discover
from generator.site.views import base
from generator.site.views.compare import _compare_panel
from generator.site.views.counters import _counters_panel

DATA = Path(__file__).parent / "data"
FLASH = "flash_attn_func"
SMALL, SMALL_FIX = "ui_output_agent_32235_dispatch_44", "ui_output_agent_58550_dispatch_44_after_loc_fix"
BIG, BIG_FIX = "ui_output_agent_38430_dispatch_44", "ui_output_agent_55287_dispatch_44_after_loc_fix"
MQA_SMALL, MQA_BIG = "ui_output_agent_32435_dispatch_197", "ui_output_agent_55351_dispatch_426"

#: bundle -> (traced kernel, rank, kernels in the table, calls, Percentage, dispatches, median / min / max ns of
#: the trace; the page prints them in us to two decimals, e.g. softmax "median 191.90 us ... (min 178.16 us, max 962.87 us)")
RUN_STATS = {
    "flash_attn_func": ("flash_attn_func_kernel_0", 1, 19, 9, 42.08, 9, 92041, 90481, 103560),
    "fused_rope_cache": ("fused_qk_rope_reshape_and_cache_0", 1, 24, 3761, 38.01, 3761, 4000, 800, 14040),
    "hgemm_splitk": ("hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0", 3, 34, 55, 19.10, 55, 7000, 4880, 11160),
    "layernorm": ("layernorm_kernel_0", 1, 17, 112, 79.20, 112, 4740.5, 4560, 7560),
    "moe_blockscale": ("mfma_moe1_bs_fp8_f16_cshuffle_t16x256x128_wpe2_abi8", 1, 84, 9, 6.82, 9, 65521, 65161, 91240),
    "moe_gemm": ("moe_gemm1_0", 12, 53, 18, 4.16, 18, 73200.5, 67240, 100081),
    "pa": ("pa_decode_ps_kernel_0", 2, 60, 13, 5.03, 13, 7920, 7680, 9960),
    "pa_mqa_logits_fp4": ("pa_mqa_logits_fp4_kernel_0", 21, 74, 12, 0.4046, 12, 30420, 30040, 48320),
    "preshuffle_gemm": ("kernel_gemm_0", 1, 30, 25, 47.88, 25, 91000, 78640, 95320),
    "quant": ("quant_kernel_0", 1, 3, 23, 50.33, 23, 17320, 17121, 25160),
    "rmsnorm": ("rmsnorm_kernel_0", 1, 16, 111, 82.23, 111, 7800, 7680, 10840),
    "softmax": ("softmax_kernel_0", 1, 12, 112, 82.89, 112, 191901.5, 178161, 962868),
    "vec_add": ("vecAddKernel_0", 1, 15, 24, 39.91, 24, 18420, 18080, 22761),
}


@pytest.fixture(scope="module")
def full_sweep(sweep):
    if not (sweep / "examples" / "vec_add").is_dir() or not (sweep / "examples" / FLASH / "att_viewer" / "big").is_dir():
        pytest.skip("needs the whole shared MI350X sweep (../shared/mi350x-sweep), not its slice")
    return sweep


@pytest.mark.parametrize("name", sorted(RUN_STATS))
def test_run_statistics_equal_the_raw_csvs(full_sweep, name):
    kernel, rank, n, calls, pct, count, median, lo, hi = RUN_STATS[name]
    rs = runstats.bundle_run_stats(full_sweep / "examples" / name)
    assert rs.traced.name == kernel and rs.traced.rank == rank and len(rs.kernels) == n
    assert rs.traced.calls == calls and rs.traced.percent == pct
    t = rs.timing
    assert t.count == count and t.min_ns == lo and t.max_ns == hi and t.median_ns == median
    a = rs.agent
    assert (a.product, a.arch, a.cus, a.lds_kib, a.max_waves_per_simd, a.max_clock_mhz) == (
        "AMD Instinct MI350X", "gfx950", 256, 160, 8, 2200)


@pytest.mark.parametrize("name", sorted(RUN_STATS))
def test_no_bundle_holds_counters_and_the_panel_says_so(full_sweep, kernel, name):
    """No *_counter_collection.csv, pmc_perf.csv or .db anywhere; the rocprofv3 JSONs hold no counter record."""
    root = full_sweep / "examples" / name
    assert counter_files.find_counter_files(root) == [] and pmc.analyze_bundle_counters(root, None) is None
    for js in sorted((root / "compute_viewer").glob("*_results.json")):
        tool = json.loads(js.read_text())["rocprofiler-sdk-tool"][0]
        assert tool["counters"] == [] and tool["callback_records"]["counter_collection"] == []
    k, row = kernel(name)
    view = _counters_panel(k, row, base.SiteContext())
    assert view.counters == [] and view.reading == []
    assert view.notes[-1] == ("no PMC counter file in this bundle (*_counter_collection.csv, pmc_perf.csv or a "
                              "rocpd database with counters): no L2 hit rate, 32B fraction or HBM over-fetch to show")
    assert view.notes[-1].msg.key == "msg.run.nopmc"  # a sentence: the page words it in Chinese too


# ---------------------------------------------------------------- captures side by side


@pytest.fixture(scope="module")
def captures(full_sweep):
    out = {}
    for name in (FLASH, "pa_mqa_logits_fp4"):
        b = discover.discover(full_sweep / "examples" / name).bundles[0]
        out.update({a.capture: a for r in analysis.analyze_bundle(b) for a in r.analyses})
    return out


def test_code_json_rows_say_what_changed(captures):
    """Before/after the loc fix: the same 2,069 asm rows, 2,062 on other source lines. small vs big: other code
    (shape constants: flash_attn_func 21 rows, e.g. ``s_lshr_b64 s[6:7], s[2:3], 4`` vs ``..., 5``; pa_mqa 1 row,
    ``s_lshl_b32 s29, s33, 7`` vs ``..., 11``)."""
    c = captures
    assert compare.code_difference(c[SMALL], c[SMALL_FIX]) == (0, 2062)
    assert compare.code_difference(c[BIG], c[BIG_FIX]) == (0, 2062)
    assert compare.code_difference(c[SMALL_FIX], c[BIG_FIX]) == (21, 0)
    assert compare.code_difference(c[MQA_SMALL], c[MQA_BIG]) == (1, 0)


def _totals(cmp):
    return {t.name: (t.a, t.b, t.delta) for t in cmp.totals}


def test_big_recapture_same_waves_keeps_its_cycle_delta_and_says_only_attribution_moved(captures):
    cmp = compare.compare_captures(captures[BIG], captures[BIG_FIX])
    t = _totals(cmp)
    assert t["waves"] == (32, 32, 0)
    assert t["total_cycles"] == (2855224, 3000156, 144932)
    assert t["total_stall_cycles"] == (1677652, 1754236, 76584)
    assert cmp.notes == [
        "5 top lines appear only in A and 14 only in B: A and B run the same 2,069 instructions, 2,062 of them "
        "attributed to other source lines; the source attribution changed, not the code"]


@pytest.mark.parametrize("a, b, waves, cycles, stalls, isa", [
    (SMALL, SMALL_FIX, (4, 8), (208060, 342176), (107884, 176060), None),
    (SMALL_FIX, BIG_FIX, (8, 32), (342176, 3000156), (176060, 1754236),
     "the ISA differs in 21 of 2,069 instructions: A and B ran different code"),
    (MQA_SMALL, MQA_BIG, (4, 32), (19088, 1482216), (11820, 791816),
     "the ISA differs in 1 of 726 instructions: A and B ran different code"),
])
def test_cycle_sums_over_different_wave_counts_get_no_delta(captures, a, b, waves, cycles, stalls, isa):
    cmp = compare.compare_captures(captures[a], captures[b])
    t = _totals(cmp)
    assert t["waves"] == (*waves, waves[1] - waves[0])
    assert t["total_cycles"] == (*cycles, None) and t["total_stall_cycles"] == (*stalls, None)
    assert f"{waves[0]} vs {waves[1]} sampled waves: cycle totals are not comparable, shares are" in cmp.notes
    assert (isa in cmp.notes) if isa else not any("ISA differs" in n for n in cmp.notes)
    assert not any("faster" in n or "slower" in n for n in cmp.notes)


def test_side_by_side_panel_shows_a_dash_for_incomparable_cycle_changes(full_sweep, kernel):
    k, row = kernel(FLASH)
    views = _compare_panel(k, row, base.SiteContext())
    assert [v.title for v in views] == ["small: before vs after_loc_fix", "big: before vs after_loc_fix", "small vs big"]
    change = [{r.what: r.change for r in v.totals} for v in views]
    assert [c["total cycles"] for c in change] == ["\u2014", "+144.9K", "\u2014"]
    assert [c["total stall cycles"] for c in change] == ["\u2014", "+76.6K", "\u2014"]
    assert [c["waves"] for c in change] == ["+4", "0", "+24"]
    stalls = {r.what: (r.a, r.b, r.change) for r in views[0].stall_types}  # shares: comparable, shown
    assert stalls["VMEM-load"] == ("4.1%", "1.6%", "-2.5 pts")  # 4,416 / 107,884 vs 2,764 / 176,060
    states = {r.what: (r.a, r.b) for r in views[0].wave_states}
    assert states["EXEC"] == ("48.4%", "49.0%")  # DOMAIN 1.1: the small capture's EXEC 48.4 %


# ---------------------------------------------------------------- real rocprof-compute counter files


def test_vcopy_mi300x_reading_claims_no_reuse_and_names_the_128b_reads():
    """pmc_perf.csv of rocprof-compute's vcopy (MI300X_A1): TCC_HIT_sum 197,232, TCC_MISS_sum 393,959 (33.4 %),
    RDREQ_sum 197,296 of which TCC_BUBBLE_sum 196,608 are 128 B (99.7 %), RDREQ_32B 0. A copy reads each byte
    once (over-fetch 1.00 against 3 x 8 MiB), so the hit rate is no sign of re-use: the reading says nothing of it."""
    r = pmc.analyze_files([str(DATA / "rocprof_compute_vcopy_mi300x" / "pmc_perf.csv")], ideal_bytes=8 * 2**20)
    assert r.l2_hit_rate == 197232 / (197232 + 393959)
    assert r.hbm_formula == "gfx942" and r.hbm_read_bytes == 128 * 196608 + 64 * (197296 - 196608)
    assert round(r.over_fetch, 2) == 1.00
    assert r.reading == [
        "32B fraction 0.0 %: full-line reads, 99.7 % of the read requests 128 B (TCC_BUBBLE)",
        "over-fetch 1.00x: no redundant reads",
    ]
    assert not any("re-used" in s or "64B lines" in s for s in r.reading)


def test_vcopy_mi100_reading_keeps_the_streaming_word():
    """omniperf's vcopy on MI100: TCC_HIT_sum 282 of 787,542 requests (0.04 %): below 5 %, pure streaming;
    no TCC_BUBBLE on gfx908: 64 B lines."""
    r = pmc.analyze_files([str(DATA / "other_tools2" / "omniperf_vcopy_mi100" / "pmc_perf.csv")])
    assert round(r.l2_hit_rate * 100, 2) == round(282 / 787542 * 100, 2)
    assert r.reading[:2] == ["L2 hit rate 0.0 %: pure streaming, each byte is read once",
                             "32B fraction 0.0 %: full 64B lines, loads are coalesced"]


@pytest.mark.parametrize("name, traced, timing", [
    ("softmax", "softmax_kernel_0 (rank 1 of 12, 82.9% of GPU kernel time, 112 calls)",
     "median 191.90 us over 112 dispatches (min 178.16 us, max 962.87 us)"),
    ("hgemm_splitk", "hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0 (rank 3 of 34, 19.1% of GPU kernel time, "
     "55 calls)", "median 7.00 us over 55 dispatches (min 4.88 us, max 11.16 us)"),
    ("pa_mqa_logits_fp4", "pa_mqa_logits_fp4_kernel_0 (rank 21 of 74, 0.4% of GPU kernel time, 12 calls)",
     "median 30.42 us over 12 dispatches (min 30.04 us, max 48.32 us)"),
])
def test_run_statistics_as_the_page_words_them(full_sweep, kernel, name, traced, timing):
    k, row = kernel(name)
    view = _counters_panel(k, row, base.SiteContext())
    assert [f.value for f in view.run[:2]] == [traced, timing]
    assert view.run[2].value == "AMD Instinct MI350X, gfx950, 256 CUs, 160 KiB LDS per CU, 8 waves/SIMD max, 2200 MHz"
