"""What a wait drains and what a load feeds, read off the real ISA of the shared MI350X sweep.

Each expectation below was read from the primary capture's code.json rows (``kernel-atlas analyze``):

* late_scale_loads: a narrow load is a scale only when its value reaches floating-point scale math.
  pa's waits at pc 195 / 362 / 366 wait for block-table loads whose first readers are
  ``v_mul_lo_u32 v4, v2, s72`` / ``v_mul_hi_i32 v1, v0, s92`` / ``v_mul_hi_i32 v9, v55, s74``
  (index x stride, then ``v_lshl_add_u64`` into an address for ``global_load_dwordx4``): address math.
  The real scale multiplies (``v_mul_f32`` of a loaded per-channel scale into the accumulators) are in
  moe_gemm, moe_blockscale and preshuffle_gemm, each under MIN_SHARE of its stall cycles.
* vmem_latency_exposed: "more resident waves also hide it" only below the hardware maximum.
* lds_read_into_mfma / scalar_load_waits: the ops each lgkmcnt wait drains, by mnemonic.
"""

from __future__ import annotations

import pytest

from generator.analyze import advice
from generator.analyze.advice.registry import ranked_on
from generator.site import wording
from test_advice_synthetic import MFMA, latency_rows, make_synthetic_analysis, run  # same test folder

FULL = pytest.mark.full_sweep


def detect(primaries, kernel, name):
    """One detector on a kernel's primary capture, on the plan's basis, nothing taken."""
    a, b = primaries[kernel]
    return advice.get_detector(name).fn(advice.KernelView(ranked_on(a), advice.AdviceContext(bundle=b)))


def plan(primaries, kernel):
    a, b = primaries[kernel]
    return advice.advise(a, advice.AdviceContext(bundle=b))


def asm_at(primaries, kernel, pc):
    return next(i.asm for i in primaries[kernel][0].instructions if i.pc_index == pc)


# ---------------------------------------------------------------- (a) scale loads


def test_pa_block_table_loads_feed_address_math_not_scales(primaries):
    assert asm_at(primaries, "pa", 196) == "v_mul_lo_u32 v4, v2, s72"  # after the vmcnt(0) at pc 195
    assert asm_at(primaries, "pa", 363) == "v_mul_hi_i32 v1, v0, s92"  # after pc 362
    assert asm_at(primaries, "pa", 367) == "v_mul_hi_i32 v9, v55, s74"  # after pc 366
    assert asm_at(primaries, "pa", 365) == "v_lshl_add_u64 v[0:1], v[0:1], 0, s[58:59]"  # an address
    assert detect(primaries, "pa", "late_scale_loads") == []
    found = plan(primaries, "pa")
    assert "late_scale_loads" not in {f.detector for f in found}
    # the freed waits are plain exposed latency now: pc 9, 191, 195, 362, 366
    (lat,) = [f for f in found if f.detector == "vmem_latency_exposed"]
    assert lat.evidence["premise_pcs"] == [9, 191, 195, 362, 366]


@FULL
def test_float_scale_multiplies_still_count_but_stay_under_min_share(primaries):
    """moe_gemm pc 698 loads v44 (moe_gemm_2stage.py:1578), the vmcnt(0) at pc 705 waits, and
    ``v_mul_f32_e32 v45, v16, v44`` scales an accumulator; the same at 742 / 780 / 818. moe_blockscale's
    pc 389 load of v97 reaches ``v_mul_f32_e64 v125, v97, v32`` at pc 403; preshuffle_gemm's pc 449 / 450
    loads reach ``v_mul_f32_e32 v66, v37, v66`` / ``v_mul_f32_e32 v70, v100, v70``."""
    (f,) = detect(primaries, "moe_gemm", "late_scale_loads")
    assert [(d["wait_pc"], d["use"]) for d in sorted(f.evidence["pairs"], key=lambda d: d["wait_pc"])] == [
        (705, "v_mul_f32_e32 v45, v16, v44"), (742, "v_mul_f32_e32 v25, v17, v24"),
        (780, "v_mul_f32_e32 v21, v18, v20"), (818, "v_mul_f32_e32 v19, v19, v18")]
    (f,) = detect(primaries, "moe_blockscale", "late_scale_loads")
    assert [(d["load_pc"], d["wait_pc"], d["use_pc"]) for d in f.evidence["pairs"]] == [(389, 401, 403)]
    (f,) = detect(primaries, "preshuffle_gemm", "late_scale_loads")
    assert sorted(d["use"] for d in f.evidence["pairs"]) == ["v_mul_f32_e32 v66, v37, v66",
                                                             "v_mul_f32_e32 v70, v100, v70"]
    for kernel in ("moe_gemm", "moe_blockscale", "preshuffle_gemm", "pa", "pa_mqa_logits_fp4"):
        assert "late_scale_loads" not in {f.detector for f in plan(primaries, kernel)}, kernel


@FULL
def test_an_overwritten_register_is_no_longer_the_loaded_scale(primaries):
    """pa_mqa_logits_fp4: pc 475 loads v52, ``v_maximum3_f32 v52, v36, 0, 0`` at pc 498 overwrites it,
    so ``v_pk_mul_f32 v[82:83], v[52:53], ...`` at pc 500 multiplies the ReLU, not the load."""
    assert asm_at(primaries, "pa_mqa_logits_fp4", 475) == "buffer_load_dword v52, v0, s[4:7], 0 offen"
    assert asm_at(primaries, "pa_mqa_logits_fp4", 498) == "v_maximum3_f32 v52, v36, 0, 0"
    assert detect(primaries, "pa_mqa_logits_fp4", "late_scale_loads") == []


def scale_rows(*uses: str):
    return ([("buffer_load_dword v20, v2, s[12:15], 0 offen", 0, 10), (MFMA, 0, 10),
             ("s_waitcnt vmcnt(0)", 400, 400)] + [(u, 0, 10) for u in uses] + [("s_endpgm", 0, 10)])


@pytest.mark.parametrize("uses", [("v_mul_lo_u32 v4, v20, s72",), ("v_mul_hi_i32 v4, v20, s72",),
                                  ("v_mad_u32_u24 v4, v20, v5, v6",), ("v_lshlrev_b32_e32 v4, 2, v20",
                                                                        "v_mul_f32_e32 v5, v4, v0")])
def test_integer_math_on_a_loaded_value_is_no_scale(uses):
    assert run("late_scale_loads", make_synthetic_analysis(scale_rows(*uses))) == []


@pytest.mark.parametrize("uses", [("v_pk_mul_f32 v[4:5], v[20:21], v[6:7]",),
                                  ("v_cvt_f32_fp8_e32 v4, v20", "v_mul_f32_e32 v5, v4, v0"),
                                  ("v_lshlrev_b32_e32 v4, 23, v20", "v_fma_f32 v5, v4, v0, v1")])
def test_a_scale_reaches_float_math_directly_or_through_a_conversion(uses):
    (f,) = run("late_scale_loads", make_synthetic_analysis(scale_rows(*uses)))
    assert f.evidence["pairs"][0]["use"] == uses[-1]


# ---------------------------------------------------------------- (b) resident waves


def suggestion_key(f):
    return f.messages["suggestion"].key


def test_at_the_hardware_maximum_more_waves_are_not_offered(primaries):
    """vec_add runs 8 of 8 waves per SIMD (expected/occupancy.json: limiter NONE; its grid asks 40).
    fused_rope_cache's resources allow 8 too, but its grid gives each SIMD 1 (tests/test_advice_audit.py)."""
    for kernel in ("vec_add",):
        (f,) = detect(primaries, kernel, "vmem_latency_exposed")
        occ = advice.KernelView(primaries[kernel][0], advice.AdviceContext(bundle=primaries[kernel][1])).occupancy
        assert (occ.waves_per_simd, occ.max_waves) == (8, 8)
        # audit12: vec_add's waits sit in no loop (no backward branch), so the suggestion is the loop-free head
        # and the occupancy sentence after it
        assert suggestion_key(f) == "finding.vmem_latency_exposed.try.parts"
        assert f.messages["suggestion"].kw["tail"].key == "finding.vmem_latency_exposed.waves.at_max"
        assert "already runs the hardware maximum of 8 waves per SIMD" in f.suggestion
        assert "more resident waves also hide it" not in f.suggestion
        assert wording.plain("en", f.messages["suggestion"]) == f.suggestion
        assert "8 个 wave" in wording.plain("zh", f.messages["suggestion"])


def test_below_the_maximum_more_waves_still_help(primaries):
    """pa: 2 waves per SIMD (VGPR-bound), of 8. rank13: its waits sit in loops each working wave runs once, so the
    suggestion is the loop-free one, the waves reading a sentence of its own."""
    (f,) = [f for f in plan(primaries, "pa") if f.detector == "vmem_latency_exposed"]
    assert suggestion_key(f) == "finding.vmem_latency_exposed.try.parts"
    assert f.messages["suggestion"].kw["tail"].key == "finding.vmem_latency_exposed.waves.more"
    assert f.suggestion.endswith("More resident waves also hide it (now 2 of the hardware's 8 per SIMD).")


@FULL
def test_layernorm_runs_seven_of_eight(primaries):
    (f,) = [f for f in plan(primaries, "layernorm") if f.detector == "vmem_latency_exposed"]
    # the resources allow 7, but its 256 workgroups of 4 waves give each SIMD 1 (tests/test_advice_audit.py)
    assert f.suggestion.endswith("the resources allow 7 of the hardware's 8, so only a launch with more workgroups "
                                 "adds waves to hide it.")


def test_unknown_occupancy_makes_no_claim():
    (f,) = run("vmem_latency_exposed", make_synthetic_analysis(latency_rows(500)))
    # audit12: the synthetic listing has addresses and no backward branch: the loop-free head, no occupancy sentence
    assert suggestion_key(f) == "finding.vmem_latency_exposed.head.straight"
    assert "waves" not in f.suggestion.split("before the first wait")[-1]


# ---------------------------------------------------------------- (c) what an lgkmcnt wait drains


@FULL
def test_preshuffle_gemm_lgkmcnt_waits_drain_ds_read_b128(primaries):
    """preshuffle_gemm (22.3 % of its stall cycles on these waits): the lgkmcnt(0) at pc 225 waits for
    ``ds_read_b128 v[70:73], v85 offset:2048`` (pc 223) and ``ds_read_b128 v[74:77], v83 offset:2048``
    (pc 224), and the scaled MFMA at pc 226 reads v[70:77]."""
    assert asm_at(primaries, "preshuffle_gemm", 223).startswith("ds_read_b128 v[70:73]")
    assert asm_at(primaries, "preshuffle_gemm", 224).startswith("ds_read_b128 v[74:77]")
    (f,) = [f for f in plan(primaries, "preshuffle_gemm") if f.detector == "lds_read_into_mfma"]
    assert f.evidence["drained"] == {"ds_read_b128": 60}
    ex = next(e for e in f.evidence["examples"] if e["wait_pc"] == 225)
    assert ex["drains"] == {"ds_read_b128": 2} and ex["mfma_pc"] == 226
    assert "drain only LDS ops (ds_read_b128 x60)" in f.evidence["summary"]
    assert wording.plain("en", f.messages["summary"]) == f.evidence["summary"]
    assert "ds_read_b128 x60" in wording.plain("zh", f.messages["summary"])


def test_flash_attn_lgkmcnt_waits_drain_transposing_reads(primaries):
    (f,) = [f for f in plan(primaries, "flash_attn_func") if f.detector == "lds_read_into_mfma"]
    assert f.evidence["drained"] == {"ds_read_b64_tr_b16": 64, "ds_read_b128": 32}
    assert "(ds_read_b64_tr_b16 x64, ds_read_b128 x32)" in f.evidence["summary"]


@FULL
def test_moe_gemm_names_the_lds_writes_a_wait_also_drains(primaries):
    """moe_gemm: the lgkmcnt(0) at pc 586 drains ds_write_b128 at pc 555 / 557 (the lgkmcnt(2) at pc 561
    left them outstanding) and the s_load_dwordx2 at pc 579 / 580 / 582."""
    (f,) = [f for f in plan(primaries, "moe_gemm") if f.detector == "scalar_load_waits"]
    assert f.evidence["drained"] == {"s_load_dwordx2": 8, "s_load_dwordx4": 1, "ds_write_b128": 2}
    assert ("waiting on 9 scalar loads (s_load_dwordx2 x8, s_load_dwordx4 x1) and on LDS ops "
            "(ds_write_b128 x2)") in f.evidence["summary"]
    assert f.messages["summary"].key == "finding.scalar_load_waits.summary.lds"


def test_pa_scalar_waits_name_the_s_loads(primaries):
    (f,) = [f for f in plan(primaries, "pa") if f.detector == "scalar_load_waits"]
    assert f.evidence["drained"] == {"s_load_dwordx2": 9, "s_load_dwordx4": 4}
    assert "waiting on 13 scalar loads (s_load_dwordx2 x9, s_load_dwordx4 x4), 1 of" in f.evidence["summary"]
    assert "在等 13 个标量加载（s_load_dwordx2 x9、s_load_dwordx4 x4）" in wording.plain("zh", f.messages["summary"])


def test_a_wait_that_also_drains_s_loads_is_not_an_lds_wait():
    rows = [("s_load_dwordx2 s[0:1], s[4:5], 0x0", 0, 10), ("ds_read_b128 v[8:11], v1", 0, 10),
            ("s_waitcnt lgkmcnt(0)", 500, 500), (MFMA, 0, 10), ("s_endpgm", 0, 10)]
    assert run("lds_read_into_mfma", make_synthetic_analysis(rows)) == []
    (f,) = run("lds_read_into_mfma", make_synthetic_analysis(rows[1:]))
    assert f.evidence["drained"] == {"ds_read_b128": 1}
