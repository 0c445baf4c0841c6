"""ISA facts the advice rests on: operands, wait counters, FIFO wait coverage, loops, MFMA latency."""

from __future__ import annotations

import pytest

from generator.analyze import advice, isa

from test_advice_synthetic import branch_to, make_synthetic_analysis


def test_split_operands_keeps_bracketed_commas_and_trailing_modifiers():
    ops, mods = isa.split_operands("v_mfma_scale_f32_16x16x128_f8f6f4 v[34:37], v[62:65], v[14:17], 0, v41, v12 "
                                   "op_sel_hi:[0,0,0] cbsz:4 blgp:4")
    assert ops == ["v[34:37]", "v[62:65]", "v[14:17]", "0", "v41", "v12"]
    assert mods == ["op_sel_hi:[0,0,0]", "cbsz:4", "blgp:4"]


def test_split_operands_fast_path_and_bracket_walk_agree():
    # no comma inside brackets: split on commas; one inside: the walk over the brackets
    assert isa.split_operands("buffer_load_dword v1, v2, s[4:7], 0 offen lds") == (["v1", "v2", "s[4:7]", "0"],
                                                                                    ["offen", "lds"])
    assert isa.split_operands("x f(a,b), c") == (["f(a,b)", "c"], [])
    assert isa.split_operands("x a]b[c, d") == (["a]b[c", "d"], [])
    assert isa.split_operands("s_endpgm") == ([], [])


def test_defs_and_uses():
    assert isa.defs_uses("ds_read_b128 v[4:7], v3 offset:16") == ({("v", 4), ("v", 5), ("v", 6), ("v", 7)},
                                                                   {("v", 3)})
    # DMA to LDS: v64 is the address, nothing lands in a register.
    assert isa.defs_uses("buffer_load_dwordx4 v64, s[16:19], 0 offen sc0 lds") == (set(), {("v", 64)})
    assert isa.defs_uses("buffer_store_short v2, v4, s[12:15], 0 offen") == (set(), {("v", 2), ("v", 4)})
    # A swap writes both operands.
    d, u = isa.defs_uses("v_permlane32_swap_b32_e32 v3, v35")
    assert d == u == {("v", 3), ("v", 35)}
    assert isa.defs_uses("v_accvgpr_read_b32 v14, a0") == ({("v", 14)}, {("a", 0)})


def test_register_sets_are_shared_and_defs_uses_copies():
    # The advice's view reads shared frozensets; defs_uses hands out sets the caller may change.
    asm = "v_mfma_f32_32x32x16_bf16 v[32:47], v[68:71], v[64:67], v[32:47]"
    defs, uses = isa.register_sets(asm)
    assert defs == {("v", n) for n in range(32, 48)}
    assert uses == {("v", n) for n in range(32, 48)} | {("v", n) for n in range(64, 72)}
    assert isa.register_sets(asm)[0] is defs
    d, _ = isa.defs_uses(asm)
    d.add(("v", 0))
    assert ("v", 0) not in isa.defs_uses(asm)[0] and ("v", 0) not in defs
    regs = isa.registers("v[4:5]")
    regs.append(("a", 1))
    assert isa.registers("v[4:5]") == [("v", 4), ("v", 5)]
    # a swap reads and writes one set; a store writes nothing
    d, u = isa.register_sets("v_permlane16_swap_b32 v3, v35")
    assert d is u and d == {("v", 3), ("v", 35)}
    assert isa.register_sets("buffer_store_short v2, v4, s[12:15], 0 offen") == (set(), {("v", 2), ("v", 4)})


def test_register_sets_read_operands_as_split_operands_does():
    # empty operands do not count, so v1 is the destination; modifiers after the last operand
    # name no register; a comma inside parentheses keeps one operand.
    assert isa.register_sets("v_add_f32 , v1, v2") == ({("v", 1)}, {("v", 2)})
    assert isa.register_sets("ds_read_b32 v0, v1 offset:4 v9") == ({("v", 0)}, {("v", 1)})
    assert isa.register_sets("v_op v0, f(v1, v2), v3") == ({("v", 0)}, {("v", 1), ("v", 2), ("v", 3)})
    assert isa.register_sets("v_op ,") == (set(), set())
    assert isa.register_sets("s_endpgm") == (set(), set())


def test_text_facts_are_kinds_and_register_sets_at_once():
    texts = ["buffer_load_dwordx4 v64, s[16:19], 0 offen sc0 lds", "buffer_atomic_add_f32 v1, v2, s[4:7], 0 offen sc0",
             "buffer_atomic_add_f32 v1, v2, s[4:7], 0 offen", "global_store_dword v[2:3], v4, off",
             "v_pk_fma_f32 v[84:85], v[90:91], s[30:31], v[180:181] op_sel_hi:[1,0,0]",
             "v_mov_b32 v0, v1 quad_perm:[1,0,3,2]", "v_permlane16_swap_b32 v3, v35", "s_waitcnt vmcnt(0)",
             "v_op v0, f(v1, v2), v3", "s_endpgm", ""]
    for asm in texts:
        assert isa.text_facts(asm) == (*isa.kinds(asm), *isa.register_sets(asm))
    assert isa.text_facts(texts[1])[5:] == ({("v", 1)}, {("v", 2)})  # returns the old value: writes v1
    assert isa.text_facts(texts[2])[5:] == (set(), {("v", 1), ("v", 2)})


def test_kinds_in_one_look_up():
    assert isa.kinds("buffer_load_dwordx4 v64, s[16:19], 0 offen sc0 lds") == (
        "buffer_load_dwordx4", "lds_dma", None, False, False)
    assert isa.kinds("BUFFER_LOAD_DWORD v1, v2, s[4:7], 0 offen") == ("buffer_load_dword", "load", None, False, False)
    assert isa.kinds("ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)") == ("ds_swizzle_b32", None, "lds", False, True)
    assert isa.kinds("v_mov_b32 v0, v1 quad_perm:[1,0,3,2]") == ("v_mov_b32", None, None, False, True)
    assert isa.kinds("v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[0:3]")[3] is True
    assert isa.kinds("flat_load_dword v0, v[1:2]") == ("flat_load_dword", "load", "flat", False, False)
    assert isa.kinds("") == ("", None, None, False, False)


def test_branch_offset_only_for_branches():
    assert isa.branch_offset("s_cbranch_scc1 63632") == -1904
    assert isa.branch_offset("S_BRANCH 12") == 12
    assert isa.branch_offset("s_nop 5") is None
    assert isa.branch_offset("s_cbranch_execz") is None


def test_wait_counts_named_and_encoded():
    assert isa.wait_counts("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(1)") == {"vmcnt": 0, "expcnt": 0, "lgkmcnt": 1}
    assert isa.wait_counts("s_waitcnt 0") == {"vmcnt": 0, "expcnt": 0, "lgkmcnt": 0}
    # gfx9 SIMM16: vmcnt 3:0 + 15:14, expcnt 6:4, lgkmcnt 11:8. 0xc07f = vmcnt 63 (max),
    # expcnt 7, lgkmcnt 0.
    assert isa.wait_counts("s_waitcnt 0xc07f") == {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 0}
    assert isa.wait_counts("s_waitcnt_lgkmcnt null, 0x2") == {"lgkmcnt": 2}
    assert isa.wait_counts("s_barrier") == {}


def test_access_bytes_and_kinds():
    assert isa.access_bytes("buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen") == 16
    assert isa.access_bytes("buffer_load_ushort v2, v1, s[12:15], 0 offen") == 2
    assert isa.access_bytes("global_load_dword v1, v[2:3], off") == 4
    assert isa.access_bytes("ds_read_b64 v[0:1], v2") == 8
    assert isa.vmem_kind("global_store_dwordx2 v[0:1], v[2:3], off") == "store"
    assert isa.vmem_kind("buffer_load_dwordx4 v2, s[8:11], 0 offen sc0 lds") == "lds_dma"
    assert isa.lgkm_kind("s_buffer_load_dword s4, s[8:11], 0x10") == "smem"
    assert isa.lgkm_kind("ds_bpermute_b32 v1, v2, v3") == "lds"
    assert isa.is_cross_lane("v_add_f32_dpp v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf")
    assert not isa.is_cross_lane("v_add_f32_e32 v1, v2, v3")


def test_wait_coverage_is_fifo():
    # Three loads, then vmcnt(1): the two oldest are complete, the youngest (pc 3) may be in
    # flight; the stall is blamed on pc 2, the youngest completed one.
    rows = [("buffer_load_dword v1, v9, s[0:3], 0 offen", 0, 10),
            ("buffer_load_dword v2, v9, s[0:3], 0 offen", 0, 10),
            ("buffer_load_dword v3, v9, s[0:3], 0 offen", 0, 10),
            ("s_waitcnt vmcnt(1)", 100, 100),
            ("v_add_u32_e32 v4, v2, v1", 0, 10),
            ("s_waitcnt vmcnt(0)", 50, 50),
            ("v_add_u32_e32 v4, v4, v3", 0, 10)]
    view = advice.KernelView(make_synthetic_analysis(rows))
    assert view.covered(3, "vmcnt") == [1, 0]
    assert view.youngest(3, "vmcnt") == 1
    assert view.wait_consumer(3, "vmcnt") == 4
    # vmcnt(1) left at most one op in flight: vmcnt(0) completes just that one.
    assert view.covered(5, "vmcnt") == [2]


def test_wait_coverage_wraps_to_the_previous_iteration():
    # The wait at the loop head completes the load issued at the end of the previous iteration.
    rows = [("s_mov_b32 s0, 0", 0, 10),
            ("s_waitcnt vmcnt(0)", 300, 300),
            ("v_add_u32_e32 v4, v1, v4", 0, 10),
            ("buffer_load_dword v1, v9, s[0:3], 0 offen", 0, 10),
            (branch_to("s_cbranch_scc1", 4, 1), 0, 10),
            ("s_endpgm", 0, 10)]
    view = advice.KernelView(make_synthetic_analysis(rows))
    assert view.loops == [(1, 4)]
    assert view.covered(1, "vmcnt") == [3]
    assert view.distance(3, 2) == 3  # load at 3, back edge 4, head 1, use at 2


def test_loops_from_backward_branches():
    rows = [("s_nop 0", 0, 1)] * 3 + [(branch_to("s_cbranch_scc1", 3, 1), 0, 1), ("s_endpgm", 0, 1)]
    a = make_synthetic_analysis(rows)
    assert isa.loops(a.instructions) == [(1, 3)]
    assert isa.branch_offset("s_cbranch_scc1 63632") == 63632 - 65536


@pytest.mark.parametrize("asm,cycles,source", [
    ("v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], v[0:3]", 16, "DOMAIN"),
    ("v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[0:15]", 32, "DOMAIN"),
    ("v_mfma_f32_16x16x32_fp8_fp8 a[0:3], v[160:161], v[112:113], 0", 16, "DOMAIN"),
    ("v_mfma_f32_32x32x16_bf8_fp8 v[0:15], v[16:17], v[18:19], v[0:15]", 32, "DOMAIN"),
    ("v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0, v1, v2 op_sel_hi:[0,0,0]", 32, "DOMAIN"),
    ("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0 cbsz:4 blgp:4", 16, "DOMAIN"),
    ("v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[4:11], v[12:19], 0 cbsz:2 blgp:4", 32, "DOMAIN"),
    ("v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[4:11], v[12:19], 0 blgp:4", 64, "DOMAIN"),
    ("v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]", 32, "DOMAIN"),
    ("v_mfma_f32_32x32x2f32 v[0:15], v4, v5, v[0:15]", 64, "DOMAIN"),
    ("v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]", 64, "DOMAIN"),
    ("v_mfma_f32_32x32x16_bf16 v[32:47], v[68:71], v[64:67], v[32:47]", 32, "inferred"),
])
def test_mfma_latency_table(asm, cycles, source):
    lat = isa.mfma_latency(asm)
    assert lat.cycles == cycles and lat.source.startswith(source)
    assert isa.independent_needed(lat.cycles) == cycles // 4


def test_mfma_annotation_flags_a_read_that_comes_too_soon():
    rows = [("v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[4:5], v[6:7], 0", 0, 10),
            ("v_add_f32_e32 v8, v0, v1", 100, 110),
            ("v_mfma_f32_16x16x32_fp8_fp8 v[10:13], v[4:5], v[6:7], 0", 0, 10),
            ("s_nop 6", 0, 10),
            ("v_mfma_f32_16x16x32_fp8_fp8 v[10:13], v[4:5], v[6:7], v[10:13]", 0, 10),
            ("s_endpgm", 0, 10)]
    notes = advice.mfma_annotations(make_synthetic_analysis(rows))
    assert notes[1].dependent_pc == 2 and notes[1].independent_between == 0 and notes[1].short
    # An accumulator chain (srcC = previous dst) after s_nop 6 (7 wait states): not flagged.
    assert notes[3].dependent_kind == "accumulate" and notes[3].independent_between == 7 and not notes[3].short
    assert "16-cycle pipeline" in notes[1].text and "too soon" in notes[1].text
