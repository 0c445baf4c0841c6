"""Every shared capture: wave states, occupancy, discovery and the analyze command."""

from __future__ import annotations

import json
import shutil

import pytest

from generator.analyze import analysis, occupancy
from generator import cli
from generator.read import discover
from generator.model import Instruction


def all_results(sweep):
    return analysis.analyze_sweep(discover.discover(sweep))


@pytest.fixture(scope="module")
def results(sweep):
    return all_results(sweep)


def test_discovery_finds_every_bundle_and_capture(sweep):
    swp = discover.discover(sweep)
    assert sorted(b.name for b in swp.bundles) == sorted(d.name for d in (sweep / "examples").iterdir())  # 13
    assert sum(len(b.captures) for b in swp.bundles) == len(list(sweep.glob("examples/*/att_viewer/*/ui_output_agent_*")))
    pa = next(b for b in swp.bundles if b.name == "pa")
    assert pa.primary_rule == "named by source/hotspot_output.txt"
    assert "discover_kernel_trace.csv" in pa.compute_files
    assert "input_trace.yaml" in pa.source_files
    assert "pa_decode" in swp.campaigns and "vec_add" in swp.campaigns


@pytest.mark.full_sweep
def test_discovery_keeps_both_captures_of_a_label(sweep):
    swp = discover.discover(sweep)
    assert len(swp.bundles) == 13
    assert sum(len(b.captures) for b in swp.bundles) == 17
    flash = next(b for b in swp.bundles if b.name == "flash_attn_func")
    # two captures per label, both kept (before / after the source-location fix)
    assert [(c.label, c.name) for c in flash.captures] == [
        ("big", "ui_output_agent_38430_dispatch_44"),
        ("big", "ui_output_agent_55287_dispatch_44_after_loc_fix"),
        ("small", "ui_output_agent_32235_dispatch_44"),
        ("small", "ui_output_agent_58550_dispatch_44_after_loc_fix"),
    ]
    # no hotspot_output.txt: the documented rule picks big, last by name
    assert flash.primary.endswith("big/ui_output_agent_55287_dispatch_44_after_loc_fix")
    assert "flash_attn" in swp.campaigns


def make_handmade_two_label_bundle(sweep, into):
    """flash_attn_func's files with four copies of its small capture (the slice holds it too), two per label,
    an original and a suffixed re-capture each, and no source/hotspot_output.txt."""
    src = sweep / "examples" / "flash_attn_func"
    dest = into / "examples" / "flash_attn_func"
    (dest / "compute_viewer").mkdir(parents=True)
    for f in (src / "compute_viewer").glob("*.csv"):
        shutil.copyfile(f, dest / "compute_viewer" / f.name)
    cap = src / "att_viewer/small/ui_output_agent_32235_dispatch_44"
    for label, name in (("small", "ui_output_agent_1_dispatch_44"), ("small", "ui_output_agent_2_dispatch_44_handmade_fix"),
                        ("big", "ui_output_agent_3_dispatch_44"), ("big", "ui_output_agent_4_dispatch_44_handmade_fix")):
        shutil.copytree(cap, dest / "att_viewer" / label / name)
    return dest


def test_discovery_keeps_both_captures_of_a_handmade_label(sweep, tmp_path):
    """The layout of the sweep's flash_attn_func (checked above on the real one), made from one real capture."""
    make_handmade_two_label_bundle(sweep, tmp_path)
    [flash] = discover.discover(tmp_path).bundles
    assert [(c.label, c.name) for c in flash.captures] == [
        ("big", "ui_output_agent_3_dispatch_44"), ("big", "ui_output_agent_4_dispatch_44_handmade_fix"),
        ("small", "ui_output_agent_1_dispatch_44"), ("small", "ui_output_agent_2_dispatch_44_handmade_fix")]
    assert all(c.skipped is None for c in flash.captures)
    # no hotspot_output.txt: the documented rule picks big, last by name
    assert flash.primary == "examples/flash_attn_func/att_viewer/big/ui_output_agent_4_dispatch_44_handmade_fix"
    assert flash.primary_rule == "label big, last capture by name"


def test_discovery_accepts_bundle_and_capture_paths(sweep):
    """A bundle path, a capture path and the examples folder, on bundles both the sweep and the slice hold."""
    one = discover.discover(sweep / "examples" / "pa")
    assert [b.name for b in one.bundles] == ["pa"]
    assert [c.name for c in one.bundles[0].captures] == ["ui_output_agent_10886_dispatch_209"]
    flash = discover.discover(sweep / "examples" / "flash_attn_func")
    on_disk = sorted(p.name for p in sweep.glob("examples/flash_attn_func/att_viewer/*/ui_output_agent_*"))
    assert sorted(c.name for c in flash.bundles[0].captures) == on_disk  # 4 in the sweep, 1 in the slice
    cap = sweep / "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"
    swp = discover.discover(cap)
    assert [c.name for b in swp.bundles for c in b.captures] == [cap.name]
    # the capture keeps its bundle's files (agent info, kernel trace)
    assert swp.bundles[0].name == "flash_attn_func"
    assert "discover_kernel_trace.csv" in swp.bundles[0].compute_files
    folder = discover.discover(sweep / "examples")
    assert sorted(b.name for b in folder.bundles) == sorted(d.name for d in (sweep / "examples").iterdir())


@pytest.mark.full_sweep
def test_discovery_of_a_two_capture_bundle_and_the_whole_examples_folder(sweep):
    one = discover.discover(sweep / "examples" / "pa_mqa_logits_fp4")
    assert [b.name for b in one.bundles] == ["pa_mqa_logits_fp4"]
    assert len(one.bundles[0].captures) == 2
    folder = discover.discover(sweep / "examples")
    assert len(folder.bundles) == 13


def test_wave_states_equal_expected(sweep, results):
    expected = json.loads((sweep / "expected" / "wave_states.json").read_text())
    got = {r.ref.rel: r.analyses[0].wave_states for r in results}
    assert set(got) == set(expected)
    for rel, shares in expected.items():
        for state, value in shares.items():
            assert got[rel][state] == pytest.approx(value, abs=1e-12), (rel, state)


def test_flash_small_wave_states_worked_example(sweep, results):
    r = next(r for r in results if r.ref.name == "ui_output_agent_32235_dispatch_44")
    ws = r.analyses[0].wave_states
    assert [round(ws[k] * 100, 1) for k in ("IDLE", "EXEC", "WAIT", "STALL")] == [0.4, 48.4, 34.8, 16.4]


FUSED_ROPE = "examples/fused_rope_cache/att_viewer/big/ui_output_agent_4253_dispatch_8781"


def test_occupancy_equals_expected(sweep, results):
    expected = json.loads((sweep / "expected" / "occupancy.json").read_text())
    captures = list((sweep / "examples").glob("*/att_viewer/*/ui_output_agent_*"))  # 17 in the sweep, 6 in the slice
    assert len(results) == len(expected) == len(captures)
    for r in results:
        o, e = r.analyses[0].occupancy, expected[r.ref.rel]
        got = {
            "accum": o.accum_vgpr, "csv_vgpr": o.arch_vgpr_csv, "isa_vgpr": o.arch_vgpr_isa,
            "kernel": o.kernel, "lds": o.lds_bytes, "lds_limit": o.lds_limit, "limiter": o.limiter,
            "sgpr": o.sgpr, "sgpr_limit": o.sgpr_limit, "total": o.vgpr_total,
            "vgpr_limit": o.vgpr_limit, "waves": o.waves_per_simd, "wg": o.workgroup_size,
        }
        assert got == e, r.ref.rel
        # No tie on the shared sweep: one binding resource, none at the hardware maximum.
        assert o.limiters == ([] if e["limiter"] == "NONE" else [e["limiter"]]), r.ref.rel
        assert r.analyses[0].to_json()["occupancy"]["limiters"] == o.limiters


def _fused_rope_rows(sweep):
    import csv
    path = sweep / "examples" / "fused_rope_cache" / "compute_viewer" / "discover_kernel_trace.csv"
    with open(path, newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["Kernel_Name"] == "fused_qk_rope_reshape_and_cache_0"]


def test_fused_rope_csv_vgpr_is_the_captured_variants(sweep, results):
    """expected/occupancy.json says csv_vgpr 8 for fused_rope_cache; the raw trace says why: the
    captured dispatch 8781 is a VGPR-8 row (the slice's trimmed trace keeps it), and the ISA's 12 VGPRs
    (16 allocated, half reported on gfx950) fit only 8. Read here from the raw CSV."""
    rows = _fused_rope_rows(sweep)
    assert {r["VGPR_Count"] for r in rows} == {"4", "8"}
    assert next(r["VGPR_Count"] for r in rows if r["Dispatch_Id"] == "8781") == "8"
    o = next(r for r in results if r.ref.rel == FUSED_ROPE).analyses[0].occupancy
    assert (o.arch_vgpr_csv, o.arch_vgpr_isa, o.limiter, o.limiters) == (8, 12, "NONE", [])


@pytest.mark.full_sweep
def test_fused_rope_trace_holds_both_variants_in_full(sweep):
    """The whole trace: fused_qk_rope_reshape_and_cache_0 with VGPR_Count 4 (1,105 rows) and 8 (2,656 rows)."""
    rows = _fused_rope_rows(sweep)
    counts = {v: sum(1 for r in rows if r["VGPR_Count"] == v) for v in {r["VGPR_Count"] for r in rows}}
    assert counts == {"4": 1105, "8": 2656}


def test_hgemm_is_lds_bound_and_flash_flags_vgpr_disagreement(results):
    hg = next(r for r in results if r.bundle.name == "hgemm_splitk").analyses[0].occupancy
    assert (hg.waves_per_simd, hg.limiter, hg.lds_bytes) == (1, "LDS", 98304)
    fl = next(r for r in results if r.bundle.name == "flash_attn_func").analyses[0]
    o = fl.occupancy
    # rocprofv3 1.1 reports half the allocation on gfx950: CSV 124 vs v241 used
    assert (o.arch_vgpr_csv, o.arch_vgpr_isa, o.vgpr_disagreement) == (124, 242, True)
    assert (o.waves_per_simd, o.next_waves, o.next_vgpr_total) == (2, 3, 168)
    assert fl.arch == "gfx950" and fl.arch_source == "agent_info"


def test_tie_lists_every_binding_resource():
    """Hand-made tie (the held-out gfx950 fp8 decode case of DOMAIN §1.3): VGPR 248 -> 512 // 248 = 2;
    LDS 84,992 B per 512-thread workgroup -> (163,840 // 84,992) * 8 waves // 4 SIMDs = 2; SGPR 800 // 32 = 25 -> 8."""
    lim = occupancy.limits("gfx950", 248, 0, sgpr=32, lds_bytes=84992, workgroup_size=512)
    assert (lim["waves"], lim["vgpr_limit"], lim["lds_limit"], lim["sgpr_limit"]) == (2, 2, 2, 8)
    assert (lim["limiter"], lim["limiters"]) == ("VGPR", ["VGPR", "LDS"])
    at_max = occupancy.limits("gfx950", 48, 0, sgpr=32, lds_bytes=512, workgroup_size=256)
    assert (at_max["waves"], at_max["limiter"], at_max["limiters"]) == (8, "NONE", [])


def test_worked_example_pa_decode_gfx942():
    """DOMAIN §1.3: arch 144 + accum 136 = 280 -> 1 wave, VGPR-bound; LDS 5, SGPR 7; 2 waves need <= 256.

    LDS 5 on gfx942 (64 KiB): a 12 KiB workgroup of 256 lanes -> 65536 // 12288 = 5 groups,
    5 * 4 waves / 4 SIMDs = 5. SGPR 7: 800 // round_up(100, 16) = 800 // 112 = 7.
    """
    lim = occupancy.limits("gfx942", 144, 136, sgpr=100, lds_bytes=12288, workgroup_size=256)
    assert lim["vgpr_total"] == 280
    assert (lim["waves"], lim["limiter"]) == (1, "VGPR")
    assert (lim["vgpr_limit"], lim["lds_limit"], lim["sgpr_limit"]) == (1, 5, 7)
    assert (lim["next_waves"], lim["next_vgpr_total"]) == (2, 256)


def test_split_pools_on_gfx908():
    lim = occupancy.limits("gfx908", 128, 64, sgpr=None, lds_bytes=None, workgroup_size=None)
    assert (lim["vgpr_limit"], lim["waves"]) == (2, 2)  # 256 // max(128, 64)


def test_arch_from_isa_rule():
    def ins(asm):
        return Instruction(pc_index=1, asm=asm, type="MFMA/FMA", source_loc="x:1")
    assert occupancy.arch_from_isa([ins("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0")]) == "gfx950"
    assert occupancy.arch_from_isa([ins("v_mfma_scale_f32_32x32x64_f8f6f4 a[0:15], v[0:7]")]) == "gfx950"
    assert occupancy.arch_from_isa([ins("v_mfma_f32_16x16x16_bf16 v[0:3], v[4:5], v[6:7], 0")]) == "gfx942"


def test_register_scan_uses_range_upper_bounds():
    rows = [Instruction(1, "v_mov_b32 v3, a7", "other", "x:1"),
            Instruction(2, "buffer_load_dwordx4 v[10:13], v1, s[4:7], 0 offen", "VMEM-load", "x:1"),
            Instruction(3, "v_accvgpr_write_b32 a[8:11], v0", "other", "x:2")]
    assert occupancy.scan_registers(rows) == (14, 12)


def test_register_scan_reads_operands_only_and_whole_names():
    rows = [Instruction(1, "v7 a9", "other", "x:1"),  # "v7" is the opcode here; a9 is an operand
            Instruction(2, "v_add_u32 v5, 1.v90, v120x", "other", "x:1"),  # 1.v90, v120x: no registers
            Instruction(3, "s_x 0, v", "other", "x:1"),  # a trailing "v" ...
            Instruction(4, "s_y 12", "other", "x:1"),  # ... and the next text's "12" make no v12
            Instruction(5, "s_nop", "other", "x:1"), Instruction(6, "   ", "other", "x:1")]
    assert occupancy.scan_registers(rows) == (6, 10)
    assert occupancy.scan_registers([]) == (0, 0)


def test_every_capture_analyzes_and_maps_source(results):
    assert all(r.status == "ok" for r in results)
    for r in results:
        a = r.analyses[0]
        mapped, total = a.source_mapped
        assert total == len(a.instructions) > 0
        if r.bundle.name == "pa_mqa_logits_fp4":
            # captured without debug info (no snapshots.json): nothing maps, and we say so
            assert mapped == 0, r.ref.rel
            assert any("without debug info" in n for n in a.notes)
            assert a.lines[0].source_loc == "<unknown>"
        else:
            assert mapped == total, r.ref.rel  # built with debug info: every row mapped
        assert sum(a.stall_by_type.values()) == a.total_stall_cycles
        assert sum(ln.stall_cycles for ln in a.lines) == a.total_stall_cycles


def test_sampled_waves_counted_from_filenames(sweep, results):
    pa = next(r for r in results if r.bundle.name == "pa").analyses[0]
    wave_files = list((sweep / "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209").glob("se*_sm*_sl*_wv*.json"))
    assert len(pa.waves) == len(wave_files) == 56
    first = pa.waves[0]
    assert (first.file, first.begin, first.end, first.duration) == ("se0_sm0_sl0_wv0.json", 210156, 211152, 996)


def test_analyze_json_for_one_capture(sweep, capsys):
    cap = sweep / "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209"
    assert cli.main(["analyze", str(cap), "--json", "--topk", "3"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["format_version"] == 1
    assert (obj["kernel"], obj["capture"], obj["label"], obj["arch"]) == ("pa", cap.name, "big", "gfx950")
    assert (obj["instructions"], obj["total_cycles"], obj["total_stall_cycles"]) == (936, 106632, 70036)
    assert obj["stall_by_type"]["LDS/SMEM-wait"] == 25320 or obj["stall_by_type"]["LDS/SMEM-wait"] > 25000
    assert len(obj["top_lines"]) == 3 and len(obj["top_instructions"]) == 3
    assert obj["top_instructions"][0]["asm"] == "s_waitcnt lgkmcnt(0)"
    assert obj["source_mapped"] == {"mapped": 936, "total": 936}
    assert set(obj["wave_states"]) == {"IDLE", "EXEC", "WAIT", "STALL"}
    occ = obj["occupancy"]
    for key in ("waves_per_simd", "limiter", "vgpr_limit", "lds_limit", "sgpr_limit", "arch_vgpr_isa",
                "arch_vgpr_csv", "accum_vgpr", "sgpr", "lds_bytes", "workgroup_size", "next_waves",
                "next_vgpr_total"):
        assert key in occ
    assert (occ["waves_per_simd"], occ["limiter"], occ["next_vgpr_total"]) == (2, "VGPR", 168)


def test_analyze_json_for_sweep_is_a_list(sweep, capsys):
    assert cli.main(["analyze", str(sweep), "--json", "--kernel", "flash_attn_func"]) == 0
    objs = json.loads(capsys.readouterr().out)
    on_disk = sorted(p.name for p in sweep.glob("examples/flash_attn_func/att_viewer/*/ui_output_agent_*"))
    # a list even when the slice holds one flash capture: 4 objects in the sweep, 1 in the slice
    assert isinstance(objs, list) and len(objs) == len(on_disk)
    assert sorted(o["capture"] for o in objs) == on_disk
    assert sum(o["primary"] for o in objs) == 1


def test_analyze_text_modes_and_detail(sweep, capsys):
    bundle = sweep / "examples" / "pa"
    assert cli.main(["analyze", str(bundle), "--mode", "src", "--topk", "5"]) == 0
    out = capsys.readouterr().out
    assert "Top-5 Hotspot Source Lines" in out and "Hotspot Instructions" not in out
    # pa's 25,320 LDS/SMEM-wait stall cycles, as the reference prints them (source/hotspot_output.txt, line 28)
    assert "  LDS/SMEM-wait      25.3K  [" in out
    assert cli.main(["analyze", str(bundle), "--mode", "asm", "--detail", "--context", "2"]) == 0
    out = capsys.readouterr().out
    assert "Hotspot Source Lines" not in out and "Hot lines in detail (context 2)" in out
    assert "(source snapshot not available)" in out  # shared/ strips the sources


def test_unknown_kernel_is_one_line_error(sweep, capsys):
    assert cli.main(["analyze", str(sweep), "--kernel", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no kernel named 'nope'" in err[0]


def test_at_hardware_max_nothing_binds(results):
    """vec_add: VGPR, LDS and SGPR all allow 8 = Max_Waves_Per_Simd; the limiter is NONE
    (DOMAIN §1.3) and the display says no resource binds."""
    o = next(r for r in results if r.bundle.name == "vec_add").analyses[0].occupancy
    assert (o.waves_per_simd, o.max_waves, o.limiter) == (8, 8, "NONE")
    assert o.at_hardware_max and o.limited_by == "hardware max"
    assert o.to_json()["at_hardware_max"] is True
    pa = next(r for r in results if r.bundle.name == "pa").analyses[0].occupancy
    assert not pa.at_hardware_max and pa.limited_by == "VGPR"


def _trace_row(dispatch, vgpr, lds, name="kernel_gemm_0"):
    return {"Kernel_Name": name, "Dispatch_Id": str(dispatch), "VGPR_Count": str(vgpr), "Accum_VGPR_Count": "0",
            "SGPR_Count": "32", "LDS_Block_Size": str(lds), "Scratch_Size": "0", "Workgroup_Size_X": "256",
            "Workgroup_Size_Y": "1", "Workgroup_Size_Z": "1"}


def test_kernel_trace_variants_pick_the_one_the_isa_agrees_with():
    """DOMAIN §1.3's real case: kernel_gemm_0 with LDS 0 / VGPR 52 and LDS 16384 / VGPR 56; an ISA that
    reads LDS cannot be the LDS-0 variant, whatever the dispatch number says."""
    from generator.model import Instruction

    rows = [_trace_row(10, 52, 0), _trace_row(11, 56, 16384), _trace_row(12, 52, 0)]
    isa = [Instruction(1, "ds_read_b128 v[0:3], v4", "LDS", ""), Instruction(2, "v_add_f32 v111, v1, v2", "other", "")]
    row, note = occupancy.pick_variant(rows, isa, 112, "ui_output_agent_1_dispatch_12")
    assert row["Dispatch_Id"] == "11" and "2 compiled variants" in note and "the only one the ISA agrees with" in note
    # no LDS in the ISA and both VGPR counts fit: the capture's dispatch decides
    plain = [Instruction(1, "v_add_f32 v111, v1, v2", "other", "")]
    rows = [_trace_row(10, 56, 0), _trace_row(11, 64, 0)]
    row, note = occupancy.pick_variant(rows, plain, 112, "ui_output_agent_1_dispatch_11")
    assert row["VGPR_Count"] == "64" and "dispatch 11" in note
    assert occupancy.pick_variant([_trace_row(1, 52, 0)], plain, 112, "x") == (rows[0] | {"Dispatch_Id": "1",
                                                                                          "VGPR_Count": "52"}, None)
