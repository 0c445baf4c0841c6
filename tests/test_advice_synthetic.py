"""Every detector on tiny hand-written instruction lists: one that fires it, one that must not.

The analyses are built by ``make_synthetic_analysis`` from rows
``(asm, stall_cycles, total_cycles[, source_loc[, exec_count]])``; instructions sit
4 bytes apart from 0x1000, so a branch at position k to position t encodes
SIMM16 = t - k - 1 (``branch_to``).
"""

from __future__ import annotations

import pytest

from generator.analyze import advice, hotspots, occupancy as occ_model
from generator.read import att
from generator.model import CaptureAnalysis, Instruction, Occupancy, WaveFile
from test_i18n_advice import assert_worded  # same test folder

KERNEL = "/src/kernels/k.py:"
FRAMEWORK = "/usr/lib/python3/site-packages/fw/intrinsics.py:144"
MFMA = "v_mfma_f32_16x16x32_bf16 v[0:3], v[8:11], v[12:15], v[0:3]"


def make_synthetic_analysis(rows, occupancy: Occupancy | None = None, waves: int = 0,
                            kernel: str = "synthetic") -> CaptureAnalysis:
    """A CaptureAnalysis from hand-written rows (totals and lines by ``hotspots.summarize``)."""
    instructions = []
    for k, row in enumerate(rows):
        asm, stall, total, *rest = row
        loc = rest[0] if rest else KERNEL + "10"
        execs = rest[1] if len(rest) > 1 else max(waves, 1)
        instructions.append(Instruction(pc_index=k + 1, asm=asm, type=att.classify(asm), source_loc=loc,
                                        pc_addr=0x1000 + 4 * k, exec_count=execs, total_cycles=total,
                                        stall_cycles=stall))
    return CaptureAnalysis(
        kernel=kernel, capture="synthetic_dispatch_1", label="", path="synthetic", vendor="amd",
        arch="gfx950", arch_source="isa", stall_unit="cycles", instructions=instructions,
        instruction_mix=hotspots.instruction_mix(instructions),
        waves=[WaveFile(file=f"w{i}.json", se=0, sm=0, slot=0, wave=i, begin=0, end=100) for i in range(waves)],
        occupancy=occupancy, **hotspots.summarize(instructions))


def make_synthetic_occupancy(vgpr: int = 32, accum: int = 0, sgpr: int = 32, lds: int = 0,
                             wg: int = 256) -> Occupancy:
    """Occupancy of a gfx950 kernel from its resources (DOMAIN §1.3 via occupancy.limits)."""
    lim = occ_model.limits("gfx950", vgpr, accum, sgpr, lds, wg)
    return Occupancy(arch="gfx950", kernel="synthetic", waves_per_simd=lim["waves"], limiter=lim["limiter"],
                     limiters=lim["limiters"],
                     vgpr_limit=lim["vgpr_limit"], lds_limit=lim["lds_limit"], sgpr_limit=lim["sgpr_limit"],
                     arch_vgpr_isa=vgpr, arch_vgpr_csv=None, accum_vgpr=accum, vgpr_total=lim["vgpr_total"],
                     sgpr=sgpr, lds_bytes=lds, workgroup_size=wg, next_waves=lim["next_waves"],
                     next_vgpr_total=lim["next_vgpr_total"], vgpr_disagreement=False)


def branch_to(mnemonic: str, k: int, t: int) -> str:
    """A branch at position k to position t (SIMM16 in dwords from the next instruction)."""
    return f"{mnemonic} {(t - k - 1) % 65536}"


def run(name: str, a: CaptureAnalysis, ctx: advice.AdviceContext | None = None):
    """The findings of one registered detector on one analysis (each worded in both catalogues)."""
    found = advice.get_detector(name).fn(advice.KernelView(a, ctx))
    for f in found:
        assert_worded(f)
    return found


def test_registry_names_every_detector_in_order():
    names = [d.name for d in advice.DETECTORS]
    assert names == ["decorator_line", "framework_line", "lds_dma_drain", "late_scale_loads",
                     "lds_read_into_mfma", "loads_interleaved_with_mfma", "back_to_back_loads",
                     "cross_lane_reduction", "scalar_load_waits", "wgmma_wait", "barrier_dominated", "store_bound",
                     "snop_hazard", "streaming_roofline", "vmem_latency_exposed", "vgpr_occupancy", "lds_sgpr_occupancy",
                     "occupancy_grid", "small_grid", "early_exit_waves", "profiled_shape", "timed_gap"]
    assert all(d.doc for d in advice.DETECTORS)


# ---------------------------------------------------------------- flags

def decorator_rows(barrier_stall: int):
    entry, op = KERNEL + "5", KERNEL + "20"
    return [
        ("s_load_dwordx2 s[0:1], s[4:5], 0x0", 0, 10, entry),
        ("buffer_load_dwordx4 v[0:3], v1, s[8:11], 0 offen", 0, 10, op),
        ("s_waitcnt vmcnt(0)", 600, 600, entry),
        ("s_barrier", barrier_stall, barrier_stall + 10, entry),
        ("v_add_f32_e32 v4, v0, v1", 0, 10, entry),
        ("buffer_store_dword v4, v1, s[8:11], 0 offen", 100, 110, op),
        ("s_endpgm", 0, 10, entry),
    ]


def test_decorator_line_fires_on_entry_line_with_mixed_types():
    # k.py:5 holds the first instruction and 5 of 7 instructions; its 900 stall cycles mix
    # VMEM-wait 600 and barrier 300.
    (f,) = run("decorator_line", make_synthetic_analysis(decorator_rows(300)))
    assert f.flagged and f.evidence["source"] == KERNEL + "5"
    assert f.evidence["types"] == {"VMEM-wait": 600, "barrier": 300}
    assert f.stall_share == pytest.approx(900 / 1000)
    findings = advice.advise(make_synthetic_analysis(decorator_rows(300)))
    assert findings[-1].detector == "decorator_line" and not findings[-1].ranked


def test_decorator_line_silent_when_the_line_has_one_type():
    assert run("decorator_line", make_synthetic_analysis(decorator_rows(0))) == []


def test_framework_line_fires_on_a_library_path():
    rows = [("s_load_dwordx2 s[0:1], s[4:5], 0x0", 0, 10, KERNEL + "3"),
            ("s_waitcnt lgkmcnt(0)", 500, 500, FRAMEWORK),
            ("v_add_f32_e32 v4, v0, v1", 500, 510, KERNEL + "4")]
    (f,) = run("framework_line", make_synthetic_analysis(rows))
    assert f.flagged and f.stall_share == 0.5 and f.evidence["nearby_kernel_lines"] == [KERNEL + "3"]


def test_framework_line_silent_on_kernel_paths():
    rows = [("s_load_dwordx2 s[0:1], s[4:5], 0x0", 0, 10, KERNEL + "3"),
            ("s_waitcnt lgkmcnt(0)", 500, 500, "/src/kernels/helpers.py:144"),
            ("v_add_f32_e32 v4, v0, v1", 500, 510, KERNEL + "4")]
    assert run("framework_line", make_synthetic_analysis(rows)) == []


# ---------------------------------------------------------------- memory patterns

def dma_rows(wait: str, suffix: str = " lds"):
    return [("buffer_load_dwordx4 v1, s[8:11], 0 offen" + suffix, 10, 20),
            ("buffer_load_dwordx4 v2, s[8:11], 0 offen" + suffix, 10, 20),
            (wait, 500, 500),
            ("ds_read_b128 v[4:7], v3", 0, 10),
            ("s_endpgm", 0, 10)]


def test_lds_dma_drain_fires_on_vmcnt0_after_lds_loads():
    (f,) = run("lds_dma_drain", make_synthetic_analysis(dma_rows("s_waitcnt vmcnt(0)")))
    assert f.evidence["wait_pcs"] == [3] and f.evidence["dma_loads"] == 2
    assert f.stall_share == pytest.approx(500 / 520)


def test_lds_dma_drain_silent_on_partial_waits_and_register_loads():
    assert run("lds_dma_drain", make_synthetic_analysis(dma_rows("s_waitcnt vmcnt(1)"))) == []
    rows = dma_rows("s_waitcnt vmcnt(0)", suffix="")
    rows[0] = ("buffer_load_dwordx4 v[8:11], v1, s[8:11], 0 offen", 10, 20)
    assert run("lds_dma_drain", make_synthetic_analysis(rows)) == []


def scale_rows(use: str):
    return [("buffer_load_dwordx4 v[8:11], v1, s[8:11], 0 offen", 0, 10),
            ("buffer_load_dword v20, v2, s[12:15], 0 offen", 0, 10),
            ("s_waitcnt vmcnt(1)", 100, 100),
            (MFMA, 0, 10),
            ("s_waitcnt vmcnt(0)", 400, 400),
            (use, 0, 10),
            ("s_endpgm", 0, 10)]


def test_late_scale_loads_fires_when_a_scale_multiply_waits():
    # The vmcnt(0) at pc 5 completes the dword load of v20 (pc 2), first read by v_mul_f32.
    (f,) = run("late_scale_loads", make_synthetic_analysis(scale_rows("v_mul_f32_e32 v4, v20, v0")))
    assert f.evidence["scale_load_pcs"] == [2]
    assert f.evidence["pairs"][0] == {"load_pc": 2, "wait_pc": 5, "use_pc": 6, "use": "v_mul_f32_e32 v4, v20, v0",
                                      "distance": 4, "wait_stall_cycles": 400}
    assert f.stall_share == pytest.approx(400 / 500)


def test_late_scale_loads_silent_when_the_load_feeds_no_multiply():
    assert run("late_scale_loads", make_synthetic_analysis(scale_rows("v_add_u32_e32 v4, v20, v0"))) == []


def lds_mfma_rows(between: int):
    return ([("ds_read_b128 v[8:11], v1", 0, 10),
             ("s_waitcnt lgkmcnt(0)", 500, 500)]
            + [("v_add_u32_e32 v30, v31, v32", 0, 10)] * between
            + [(MFMA, 0, 10), ("s_endpgm", 0, 10)])


def test_lds_read_into_mfma_fires_when_the_mfma_follows_the_wait():
    (f,) = run("lds_read_into_mfma", make_synthetic_analysis(lds_mfma_rows(0)))
    assert f.evidence["examples"][0]["read_to_mfma"] == 2 and f.evidence["examples"][0]["mfma_pc"] == 3


def test_lds_read_into_mfma_silent_when_the_consumer_is_far():
    assert run("lds_read_into_mfma", make_synthetic_analysis(lds_mfma_rows(advice.AT_ONCE + 2))) == []


def loop_rows(load_first: bool):
    # 0: prologue, 1..5: loop body, 5: back edge to 1, 6: end
    load = ("buffer_load_dwordx4 v[8:11], v1, s[8:11], 0 offen", 900, 1000)
    mfma_b = ("v_mfma_f32_16x16x32_bf16 v[4:7], v[16:19], v[12:15], v[4:7]", 0, 10)
    body = [load, (MFMA, 0, 10), mfma_b] if load_first else [(MFMA, 0, 10), load, mfma_b]
    return ([("s_mov_b32 s0, 0", 0, 10)] + body
            + [("s_waitcnt vmcnt(0)", 300, 300), (branch_to("s_cbranch_scc1", 5, 1), 0, 10), ("s_endpgm", 0, 10)])


def test_loads_interleaved_with_mfma_fires_inside_the_loop():
    (f,) = run("loads_interleaved_with_mfma", make_synthetic_analysis(loop_rows(load_first=False)))
    assert f.evidence["loops"] == [{"first_pc": 2, "last_pc": 6, "mfma": 2, "loads": 1}]
    assert f.evidence["load_stall_rate"] == pytest.approx(0.9)
    assert f.evidence["wait_pcs"] == [5]  # the vmcnt(0) waits for that load
    assert f.stall_share == pytest.approx(1200 / 1200)


def test_loads_interleaved_with_mfma_silent_when_loads_lead_the_loop():
    assert run("loads_interleaved_with_mfma", make_synthetic_analysis(loop_rows(load_first=True))) == []


def run_rows(stall: int, n: int = 4):
    return ([(f"buffer_load_ushort v{i}, v40, s[8:11], 0 offen offset:{512 * i}", stall, 100) for i in range(n)]
            + [("s_waitcnt vmcnt(0)", 50, 50), ("v_add_f32_e32 v4, v0, v1", 0, 10), ("s_endpgm", 0, 10)])


def test_back_to_back_loads_fires_and_asks_for_wider_loads():
    (f,) = run("back_to_back_loads", make_synthetic_analysis(run_rows(90)))
    assert f.evidence["runs"] == [{"first_pc": 1, "last_pc": 4, "loads": 4, "stall_cycles": 360}]
    assert f.evidence["bytes_per_lane"] == [2] and "dwordx4" in f.suggestion
    assert f.stall_share == pytest.approx(360 / 410)  # no MFMA: the wait is left to later detectors


def test_back_to_back_loads_silent_when_loads_do_not_stall_or_are_few():
    assert run("back_to_back_loads", make_synthetic_analysis(run_rows(10))) == []
    assert run("back_to_back_loads", make_synthetic_analysis(run_rows(90, n=advice.RUN_MIN_LOADS - 1))) == []


def reduction_rows(serial: bool):
    second_src = "v1" if serial else "v9"
    return [("ds_swizzle_b32 v2, v1 offset:swizzle(SWAP,16)", 0, 10),
            ("s_waitcnt lgkmcnt(0)", 300, 300),
            ("v_max_f32_e32 v1, v1, v2", 0, 10),
            (f"ds_swizzle_b32 v3, {second_src} offset:swizzle(SWAP,8)", 0, 10),
            ("s_waitcnt lgkmcnt(0)", 300, 300),
            ("v_max_f32_e32 v1, v1, v3", 0, 10),
            ("s_endpgm", 0, 10)]


def test_cross_lane_reduction_fires_on_dependent_swizzles():
    (f,) = run("cross_lane_reduction", make_synthetic_analysis(reduction_rows(serial=True)))
    assert f.evidence["serialized_steps"] == 1 and f.evidence["ops"] == {"ds_swizzle_b32": 2}
    assert f.evidence["wait_pcs"] == [2, 5]
    assert f.stall_share == pytest.approx(1.0)


def test_cross_lane_reduction_silent_on_independent_exchanges():
    assert run("cross_lane_reduction", make_synthetic_analysis(reduction_rows(serial=False))) == []


def lgkm_rows(op: str):
    return [(op, 0, 10), ("s_waitcnt lgkmcnt(0)", 500, 500), ("v_add_f32_e32 v4, v0, v1", 0, 10),
            ("s_endpgm", 0, 10)]


def test_scalar_load_waits_fires_on_s_load():
    (f,) = run("scalar_load_waits", make_synthetic_analysis(lgkm_rows("s_load_dwordx2 s[0:1], s[4:5], 0x0")))
    assert f.evidence["scalar_load_pcs"] == [1] and f.evidence["waits_before_first_vmem"] == 1
    assert "lgkmcnt" in f.title


def test_scalar_load_waits_silent_on_lds_reads():
    assert run("scalar_load_waits", make_synthetic_analysis(lgkm_rows("ds_read_b32 v4, v1"))) == []


def barrier_rows(stall: int):
    return [("ds_write_b32 v1, v2", 0, 10), ("s_waitcnt lgkmcnt(0)", 100, 100), ("s_barrier", stall, stall + 10),
            ("v_add_f32_e32 v4, v0, v1", 1000 - stall, 1010 - stall), ("s_endpgm", 0, 10)]


def test_barrier_dominated_fires_at_a_fifth_of_the_stalls():
    (f,) = run("barrier_dominated", make_synthetic_analysis(barrier_rows(300)))
    assert f.evidence["barriers"] == 1 and f.stall_share == pytest.approx(300 / 1100)


def test_barrier_dominated_silent_when_barriers_are_minor():
    assert run("barrier_dominated", make_synthetic_analysis(barrier_rows(50))) == []


def store_rows(stall: int):
    return [("v_add_f32_e32 v4, v0, v1", 1000 - stall, 1010 - stall),
            ("buffer_store_short v4, v1, s[8:11], 0 offen", stall, stall + 10), ("s_endpgm", 0, 10)]


def test_store_bound_fires_on_stalling_narrow_stores():
    (f,) = run("store_bound", make_synthetic_analysis(store_rows(200)))
    assert f.evidence["stores"] == 1 and f.evidence["bytes_per_lane"] == [2] and "dwordx4" in f.suggestion
    assert f.stall_share == pytest.approx(0.2)


def test_store_bound_silent_below_a_tenth():
    assert run("store_bound", make_synthetic_analysis(store_rows(20))) == []


def streaming_rows(mfma: bool = False):
    rows = [("buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen", 50, 100),
            ("buffer_load_dwordx4 v[4:7], v8, s[8:11], 0 offen", 50, 100),
            ("s_waitcnt vmcnt(0)", 800, 800),
            ("v_pk_add_f32 v[0:1], v[0:1], v[4:5]", 0, 10),
            ("buffer_store_dwordx4 v[0:3], v8, s[12:15], 0 offen", 100, 110),
            ("s_endpgm", 0, 10)]
    if mfma:
        rows.insert(3, (MFMA, 0, 10))
    return rows


def streaming_context(time_ns: float) -> advice.AdviceContext:
    # 1000 workgroups x 4 waves; each wave moves 3 x 16 B x 64 lanes = 3072 B: 12.288 MB.
    return advice.AdviceContext(grid=(256 * 1000, 1, 1), workgroup=(256, 1, 1), kernel_time_ns=time_ns,
                                peak_tbs=8.0, cu_count=256)


def test_streaming_roofline_fires_from_half_the_peak_bandwidth():
    # 12.288e6 B / 2000 ns = 6.144 TB/s = 76.8 % of 8.0 TB/s: above half the peak, below "near peak" (80 %).
    (f,) = run("streaming_roofline", make_synthetic_analysis(streaming_rows(), waves=4), streaming_context(2000))
    assert f.evidence["bandwidth"]["fraction"] == pytest.approx(0.768)
    # the priority follows the share, as the plan ranks it (it was "low" whatever the share)
    assert f.stall_share == pytest.approx(1.0) and f.priority == "high"
    assert not f.evidence["near_peak"] and f.suggestion.startswith("Keep more bytes in flight: the profiled shape "
                                                                   "moves 76.8% of HBM peak")
    assert "Nothing left to win" not in f.suggestion
    # 12.288e6 B / 1800 ns = 6.827 TB/s = 85.3 % of peak: near it, fewer bytes is the lever
    (f,) = run("streaming_roofline", make_synthetic_analysis(streaming_rows(), waves=4), streaming_context(1800))
    assert f.evidence["near_peak"] and f.suggestion.startswith("Move fewer bytes: the profiled shape already "
                                                               "moves them at 85.3% of HBM peak.")


def test_streaming_roofline_silent_far_from_peak_or_on_mfma_kernels():
    a = make_synthetic_analysis(streaming_rows(), waves=4)
    assert run("streaming_roofline", a, streaming_context(20000)) == []  # 7.7 % of peak
    # Requested bytes of an MFMA kernel include L2 hits: no HBM claim without PMC counters.
    a = make_synthetic_analysis(streaming_rows(mfma=True), waves=4)
    assert run("streaming_roofline", a, streaming_context(2000)) == []


def latency_rows(stall: int):
    return [("buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen", 0, 10),
            ("v_add_f32_e32 v4, v5, v6", 1000 - stall, 1010 - stall),
            ("s_waitcnt vmcnt(0)", stall, stall), ("v_add_f32_e32 v4, v0, v1", 0, 10), ("s_endpgm", 0, 10)]


def test_vmem_latency_exposed_fires_on_unexplained_load_waits():
    (f,) = run("vmem_latency_exposed", make_synthetic_analysis(latency_rows(500)))
    assert f.evidence["load_to_wait_median"] == 2 and f.stall_share == pytest.approx(0.5)


def test_vmem_latency_exposed_silent_when_waits_are_small():
    assert run("vmem_latency_exposed", make_synthetic_analysis(latency_rows(50))) == []


# ---------------------------------------------------------------- limits

ONE = [("v_add_f32_e32 v4, v0, v1", 100, 110), ("s_waitcnt vmcnt(0)", 100, 100), ("s_endpgm", 0, 10)]


def test_vgpr_occupancy_says_how_many_vgprs_to_free():
    # 242 arch VGPRs -> 248 -> 2 waves; 3 waves need <= 168: free 80 (the flash_attn_func case).
    (f,) = run("vgpr_occupancy", make_synthetic_analysis(ONE, occupancy=make_synthetic_occupancy(vgpr=242)))
    ev = f.evidence
    assert (ev["waves_per_simd"], ev["next_vgpr_total"], ev["vgprs_to_free"]) == (2, 168, 80)
    assert f.kind == "limit" and f.stall_share == 0.0


def test_vgpr_occupancy_silent_at_full_occupancy():
    assert run("vgpr_occupancy", make_synthetic_analysis(ONE, occupancy=make_synthetic_occupancy(vgpr=48))) == []


def test_lds_occupancy_says_how_much_lds_to_free():
    occ = make_synthetic_occupancy(vgpr=128, lds=96 * 1024)
    (f,) = run("lds_sgpr_occupancy", make_synthetic_analysis(ONE, occupancy=occ))
    assert (f.evidence["limiter"], f.evidence["waves_per_simd"], f.evidence["lds_bytes_to_free"]) == ("LDS", 1, 16384)


def test_sgpr_occupancy_says_how_many_sgprs_to_free():
    # round_up(112, 16) = 112 -> 800 // 112 = 7 waves; 8 waves need <= 800 // 8 = 100 -> 96.
    occ = make_synthetic_occupancy(vgpr=32, sgpr=112)
    (f,) = run("lds_sgpr_occupancy", make_synthetic_analysis(ONE, occupancy=occ))
    assert (f.evidence["limiter"], f.evidence["next_sgpr"], f.evidence["sgprs_to_free"]) == ("SGPR", 96, 16)


def test_tie_fixture_gives_no_single_resource_advice():
    """Hand-made tie (the held-out gfx950 fp8 decode kernel, DOMAIN §1.3): VGPR 248 and LDS 84,992 B
    per 512-thread workgroup both give 2 waves/SIMD; freeing either alone gains no wave."""
    occ = make_synthetic_occupancy(vgpr=248, lds=84992, wg=512)
    assert (occ.waves_per_simd, occ.limiter, occ.limiters, occ.limited_by) == (2, "VGPR", ["VGPR", "LDS"],
                                                                                "VGPR and LDS")
    a = make_synthetic_analysis(ONE, occupancy=occ)
    assert run("vgpr_occupancy", a) == [] and run("lds_sgpr_occupancy", a) == []
    # the same VGPRs with LDS that allows 3 waves: VGPRs bind alone, and the advice returns
    (f,) = run("vgpr_occupancy", make_synthetic_analysis(ONE, occupancy=make_synthetic_occupancy(
        vgpr=248, lds=49152, wg=512)))
    assert (f.evidence["waves_per_simd"], f.evidence["vgprs_to_free"]) == (2, 80)


def test_lds_sgpr_occupancy_silent_when_vgprs_bind():
    occ = make_synthetic_occupancy(vgpr=242, lds=16 * 1024)
    assert run("lds_sgpr_occupancy", make_synthetic_analysis(ONE, occupancy=occ)) == []


def test_small_grid_fires_when_simds_get_no_wave():
    ctx = advice.AdviceContext(grid=(512, 1, 1), workgroup=(64, 1, 1), cu_count=256)
    (f,) = run("small_grid", make_synthetic_analysis(ONE), ctx)
    assert (f.evidence["workgroups"], f.evidence["waves"], f.evidence["idle_cus"]) == (8, 8, 248)
    assert f.priority == "high"


def test_small_grid_silent_on_a_full_grid():
    ctx = advice.AdviceContext(grid=(256 * 4096, 1, 1), workgroup=(256, 1, 1), cu_count=256)
    assert run("small_grid", make_synthetic_analysis(ONE), ctx) == []
    assert run("small_grid", make_synthetic_analysis(ONE)) == []  # no trace: nothing to say


def early_exit_rows(after: int):
    n = 12
    rows = [("s_load_dwordx2 s[0:1], s[4:5], 0x0", 0, 10, KERNEL + "1", 10),
            ("s_waitcnt lgkmcnt(0)", 50, 50, KERNEL + "1", 10),
            ("v_cmp_ge_i32_e32 vcc, v20, v21", 0, 10, KERNEL + "2", 10),
            (branch_to("s_cbranch_vccnz", 3, n), 0, 10, KERNEL + "2", 10)]  # to the s_endpgm
    rows += [("v_add_f32_e32 v4, v0, v1", 10, 20, KERNEL + "3", after)] * (n - 5)
    rows += [("s_branch 0", 0, 10, KERNEL + "3", after), ("s_endpgm", 0, 10, KERNEL + "1", 10)]
    return rows


def test_early_exit_waves_fires_when_most_waves_branch_to_the_end():
    (f,) = run("early_exit_waves", make_synthetic_analysis(early_exit_rows(after=2)))
    assert (f.evidence["waves_exiting"], f.evidence["waves_sampled"], f.evidence["branch_pc"]) == (8, 10, 4)


def test_early_exit_waves_silent_when_most_waves_continue():
    assert run("early_exit_waves", make_synthetic_analysis(early_exit_rows(after=9))) == []


# ---------------------------------------------------------------- plan and sweep

def test_advise_explains_each_stall_cycle_once():
    # The vmcnt(0) after DMA loads is claimed by lds_dma_drain (first in the registry); the
    # residual vmem_latency_exposed must not count it again.
    rows = dma_rows("s_waitcnt vmcnt(0)")
    findings = advice.advise(make_synthetic_analysis(rows))
    assert [f.detector for f in findings if f.kind == "pattern"] == ["lds_dma_drain"]


def _handmade_finding(detector: str, share: float = 0.0, kind: str = "pattern", priority: str | None = None,
                      **evidence) -> advice.Finding:
    """A finding as the site keeps it (hand-made: the sweep reading reads only these fields)."""
    return advice.Finding(detector=detector, title=detector.replace("_", " "), stall_share=share,
                          evidence={"detail": detector, **evidence}, suggestion="", kind=kind,
                          priority=priority or advice.pattern_priority(share))


def test_sweep_findings_partition_the_headroom_by_first_step():
    # Hand-worked: gaps ln(1/0.5) = 0.693147 (a), ln(1/0.8) = 0.223144 (b), ln(1/0.64) = 0.446287 (d),
    # ln(1/0.9) = 0.105361 (e, no capture); c is a WIN (no gap). Total 1.467938.
    # a: first step the drain (patterns rank first); its VGPR limit binds alone (LDS 3, SGPR 7 at 2 waves).
    # b: its VGPR limit ties with LDS at 2 waves, so it counts no VGPR finding: its first step is the grid.
    # d: no working wave: its drain is not counted, its first step is the blocker.
    import math

    vgpr = _handmade_finding("vgpr_occupancy", kind="limit", priority="high", waves_per_simd=2,
                             other_limits={"LDS": 3, "SGPR": 7})
    tied = _handmade_finding("vgpr_occupancy", kind="limit", priority="high", waves_per_simd=2,
                             other_limits={"LDS": 2, "SGPR": 7})
    grid = _handmade_finding("small_grid", kind="limit", priority="medium")
    blocker = _handmade_finding("early_exit_waves", kind="blocker", priority="high")
    per = {"a": ([_handmade_finding("lds_dma_drain", 0.4), vgpr], "HEADROOM", 0.5),
           "b": ([tied, grid], "HEADROOM", 0.8),
           "c": ([_handmade_finding("lds_dma_drain", 0.3)], "WIN", 1.2),
           "d": ([blocker, _handmade_finding("lds_dma_drain", 0.5)], "HEADROOM", 0.64),
           "e": (None, "HEADROOM", 0.9)}
    groups = {s.key: s for s in advice.sweep_findings(per)}
    gap = {"a": math.log(2), "b": math.log(1.25), "d": math.log(1 / 0.64), "e": math.log(1 / 0.9)}
    total = sum(gap.values())
    assert total == pytest.approx(1.467938, abs=1e-6)
    drain = groups["pattern:lds_dma_drain"]
    assert drain.kernels == ["a", "c"] and drain.headroom_kernels == ["a"]  # d's drain is not counted
    assert drain.headroom_share == pytest.approx(gap["a"] / total) == pytest.approx(0.472191, abs=1e-6)
    assert drain.text == ("lds dma drain: a (40.0% of its stall cycles); c (30.0% of its stall cycles). "
                          "It is the first step of a: 47.2% of the sweep's headroom.")
    assert groups["limiter:grid"].headroom_share == pytest.approx(0.152012, abs=1e-6)
    assert groups["blocker:early_exit_waves"].headroom_kernels == ["d"]
    assert groups["blocker:early_exit_waves"].headroom_share == pytest.approx(0.304023, abs=1e-6)
    assert groups["limiter:VGPR"].kernels == ["a"] and groups["limiter:VGPR"].headroom_share == 0.0
    assert groups["limiter:VGPR"].text.endswith("It is the first step of no HEADROOM kernel.")
    nocap = groups["capture:none"]
    assert nocap.kernels == ["e"] and nocap.headroom_share == pytest.approx(0.071774, abs=1e-6)
    assert nocap.text == "No capture: e (0.90x). They hold 7.2% of the sweep's headroom; profile them to read a first step."
    # each gap once: the shares add up to 100 % here (every HEADROOM kernel has a group)
    assert sum(s.headroom_share for s in groups.values()) == pytest.approx(1.0)
    assert sorted(k for s in groups.values() for k in s.headroom_kernels) == ["a", "b", "d", "e"]
    for s in groups.values():
        assert_sweep_worded(s)


def assert_sweep_worded(s) -> None:
    """A sweep finding's catalogue English is its computed English."""
    from generator.site import wording

    assert wording.plain("en", s.messages["text"]) == s.text, s.key


def test_streaming_roofline_trusts_pmc_counters_on_mfma_kernels():
    # With measured HBM traffic (a pmc.PmcResult-like object) the MFMA kernel is judged too:
    # 5.6 TB/s of 8.0 = 70 %.
    from types import SimpleNamespace

    pmc = SimpleNamespace(bw_fraction=0.70, achieved_gbps=5600.0, peak_tbs=8.0, l2_hit_rate=0.02)
    a = make_synthetic_analysis(streaming_rows(mfma=True), waves=4)
    (f,) = run("streaming_roofline", a, advice.AdviceContext(counters=pmc))
    assert f.evidence["bandwidth"]["source"] == "PMC counters"
    assert f.evidence["bandwidth"]["achieved_tbs"] == pytest.approx(5.6)
    assert "memory-bound at this shape" in f.summary


def make_handmade_ncu_analysis(dram_pct: float, blocks: int, sm_count: int = 132):
    """A SASS analysis with the Nsight Compute launch facts the NCU importer stores in ``extra``."""
    rows = [("LDG.E.128 R4, desc[UR4][R2.64]", 20, 40), ("FADD R4, R4, R8", 900, 910),
            ("STG.E.128 desc[UR4][R2.64], R4", 50, 60), ("EXIT", 0, 10)]
    a = make_synthetic_analysis(rows)
    a.vendor = "nvidia"
    # The importer types each SASS row by its dominant not-issued reason (long scoreboard here).
    a.instructions[1].type = "VMEM-wait"
    a.stall_by_type = {"VMEM-wait": 900, "VMEM-store": 50, "VMEM-load": 20}
    a.extra["ncu"] = {"dram_throughput_pct": dram_pct, "dram_bandwidth_gbs": 48.0 * dram_pct,
                      "sm_throughput_pct": 9.0, "tensor_pipe_pct": 1.0, "grid_size": float(blocks),
                      "block_size": 128.0, "sm_count": float(sm_count), "duration_us": 12.8}
    return a


def test_streaming_and_grid_read_nsight_compute_facts():
    # 80 % DRAM throughput, 3.84 TB/s -> peak 4.8 TB/s; 64 blocks of 4 warps on 132 SMs x 4
    # sub-partitions: 256 warps for 528 schedulers.
    a = make_handmade_ncu_analysis(80.0, blocks=64)
    findings = advice.advise(a, advice.context_for(a))
    top = findings[0]
    assert top.detector == "streaming_roofline"
    assert top.evidence["bandwidth"]["source"] == "Nsight Compute DRAM throughput"
    assert top.evidence["bandwidth"]["peak_tbs"] == pytest.approx(4.8)
    grid = by_name(findings, "small_grid")
    assert (grid.evidence["workgroups"], grid.evidence["waves"], grid.evidence["simds"]) == (64, 256, 528)


def test_nsight_compute_far_from_peak_is_not_streaming():
    a = make_handmade_ncu_analysis(20.0, blocks=8192)
    findings = advice.advise(a, advice.context_for(a))
    assert all(f.detector not in ("streaming_roofline", "small_grid") for f in findings)


def by_name(findings, name):
    return next(f for f in findings if f.detector == name)
