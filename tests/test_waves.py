"""Early-exit waves and representative captures (DOMAIN §1.5), stall by opcode (§1.6)."""

from __future__ import annotations

import json

import pytest

from generator.analyze import waves
from generator.model import Instruction
from generator.read import att

from conftest import in_slice

PA = "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209"
MOE = "examples/moe_gemm/att_viewer/big/ui_output_agent_56573_dispatch_87"
FLASH = "examples/flash_attn_func/att_viewer/big/ui_output_agent_55287_dispatch_44_after_loc_fix"
FLASH_SMALL = "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"


def reading(sweep, rel):
    cap = str(sweep / rel)
    instructions, _, _ = att.load_code(cap + "/code.json")
    return waves.read_waves(cap, att.load_waves(cap), instructions), instructions


def test_pa_48_of_56_waves_exit_early_and_the_working_waves_hold_44892_stall_cycles(sweep):
    r, instructions = reading(sweep, PA)
    assert r.summary.to_json() == {"sampled": 56, "early_exit": 48, "working": 8,
                                   "early_exit_stall_share": pytest.approx(25144 / 70036),
                                   "representative": True}
    assert r.summary.early_exit_stall_cycles == 25144 and waves.needs_working_hotspots(r.summary)
    assert sum(i.stall_cycles for i in r.working) == 44892 == 70036 - 25144
    assert len(r.working) == len(instructions) == 936


@pytest.mark.full_sweep
def test_moe_gemm_8_of_24_early_exit_waves_hold_too_little_stall_for_working_hotspots(sweep):
    r, _ = reading(sweep, MOE)
    s = r.summary
    assert (s.sampled, s.early_exit, s.early_exit_stall_cycles, s.total_stall_cycles) == (24, 8, 16772, 2024908)
    assert round(s.early_exit_stall_share * 100, 1) == 0.8 and r.working is None


def test_every_other_shared_capture_has_no_early_exit_wave(sweep):
    for cap in sorted((sweep / "examples").glob("*/att_viewer/*/ui_output_agent_*")):
        rel = str(cap.relative_to(sweep))
        if rel in (PA, MOE) or not (cap / "code.json").exists() or not (cap / "filenames.json").exists():
            continue
        r, _ = reading(sweep, rel)
        assert r.summary.early_exit == 0 and r.summary.representative, rel


def test_instruction_counts_come_from_file_heads_and_equal_the_rows(sweep):
    cap = str(sweep / PA)
    for w in att.load_waves(cap)[:10]:
        assert att.wave_instruction_count(cap, w) == len(att.read_wave(cap, w))


def make_handmade_no_working_wave(tmp_path):
    """A capture whose 3 sampled waves each run 2 of 200 static instructions, 2 stall cycles each
    (code.json sums them: 6 per instruction); real captures like this exist (DOMAIN §1.5)."""
    cap = tmp_path / "ui_output_agent_1_dispatch_1"
    cap.mkdir()
    code = [[f"s_nop 0 ; {i}", 0, i, "/k.py:1", 0, 0, 1, 10, 6 if i <= 2 else 0, 4] for i in range(1, 201)]
    (cap / "code.json").write_text(json.dumps({"code": code}))
    tree = {"0": {"0": {"0": {str(w): [f"se0_sm0_sl0_wv{w}.json", 0, 8] for w in range(3)}}}}
    (cap / "filenames.json").write_text(json.dumps({"wave_filenames": tree, "version": 1}))
    for w in range(3):
        rows = [[0, 1, 2, 4, 1], [4, 1, 2, 4, 2]]
        (cap / f"se0_sm0_sl0_wv{w}.json").write_text(
            json.dumps({"duration": 8, "name": "SE0", "num_insts": 2, "wave": {"instructions": rows}}))
    return cap


def test_a_capture_with_no_working_wave_is_not_representative(tmp_path):
    cap = make_handmade_no_working_wave(tmp_path)
    instructions, _, _ = att.load_code(str(cap / "code.json"))
    r = waves.read_waves(str(cap), att.load_waves(str(cap)), instructions)
    # 2 < 2 % of 200 static instructions (4): every wave exits early
    assert r.summary.to_json() == {"sampled": 3, "early_exit": 3, "working": 0,
                                   "early_exit_stall_share": 1.0, "representative": False}
    assert r.working is None


def test_early_exit_thresholds_by_hand():
    # longest 1000: below 50 exits early; 200 static instructions: below 4 exits early
    assert waves.early_exit_flags([1000, 49, 50, 3], 200) == [False, True, False, True]
    assert waves.early_exit_flags([], 10) == []


@pytest.mark.parametrize("rel,s_nop,total", [
    in_slice(FLASH, FLASH, 236968, 1754236),  # 13.5 %
    # the small run before the fix, summed from its code.json: s_waitcnt 46,792, s_nop 19,872 (18.4 %), next
    # global_store_dwordx2 10,964, of 107,884
    in_slice(FLASH_SMALL, FLASH_SMALL, 19872, 107884),
])
def test_stall_by_opcode_flash_s_nop_is_second_after_s_waitcnt(sweep, rel, s_nop, total):
    instructions, _, _ = att.load_code(str(sweep / rel / "code.json"))
    table = waves.stall_by_opcode(instructions)
    assert table["s_nop"]["stall_cycles"] == s_nop
    assert sum(v["stall_cycles"] for v in table.values()) == total
    assert list(table)[:2] == ["s_waitcnt", "s_nop"]


def test_stall_by_opcode_ranks_and_keeps_first_seen_on_ties():
    ins = [Instruction(1, "v_add v1, v2", "other", "", stall_cycles=5),
           Instruction(2, "s_nop 1", "other", "", stall_cycles=5),
           Instruction(3, "V_ADD v3, v4", "other", "", stall_cycles=1)]
    assert waves.stall_by_opcode(ins) == {"v_add": {"stall_cycles": 6, "instructions": 2},
                                          "s_nop": {"stall_cycles": 5, "instructions": 1}}


def test_wave_rows_of_five_ints_are_read_as_written_and_other_cells_through_int(tmp_path):
    from generator.model import WaveFile
    wave = WaveFile("se0_sm0_sl0_wv0.json", 0, 0, 0, 0, 0, 8)
    path = tmp_path / wave.file
    path.write_text(json.dumps({"num_insts": 2, "wave": {"instructions": [[0, 1, 2, 4, 1], [4, 1, 0, 4, 2]]}}))
    assert att.read_wave(str(tmp_path), wave) == [[0, 1, 2, 4, 1], [4, 1, 0, 4, 2]]
    # a float, a bool and a sixth cell: int() of the first five, as before
    path.write_text(json.dumps({"wave": {"instructions": [[0, 1, 2.0, 4, 1], [4, True, 0, 4, 2, 99]]}}))
    rows = att.read_wave(str(tmp_path), wave)
    assert rows == [[0, 1, 2, 4, 1], [4, 1, 0, 4, 2]]
    assert {type(v) for row in rows for v in row} == {int}
    assert att.wave_instruction_count(str(tmp_path), wave) == 2  # no num_insts at the head: rows counted
    path.write_text(json.dumps({"wave": {"instructions": [[0, "x", 2, 4, 1]]}}))
    with pytest.raises(att.InputError, match="malformed wave file"):
        att.read_wave(str(tmp_path), wave)


def test_present_waves_and_their_counts_read_through_one_open_folder(tmp_path):
    """A wave file, a missing one, a folder and a link named like waves, a name under a subfolder:
    present as ``os.path.isfile`` says; counts as ``wave_instruction_count`` reads them one by one."""
    from generator.model import WaveFile
    names = ["se0_sm0_sl0_wv0.json", "se0_sm0_sl0_wv1.json", "se0_sm0_sl0_wv2.json", "se0_sm0_sl0_wv3.json",
             "sub/se0_sm0_sl0_wv4.json"]
    waves_ = [WaveFile(n, 0, 0, 0, i, 0, 8) for i, n in enumerate(names)]
    (tmp_path / names[0]).write_text('{"num_insts": 7, "wave": {"instructions": []}}')
    (tmp_path / names[2]).mkdir()
    (tmp_path / names[3]).symlink_to(tmp_path / names[0])
    (tmp_path / "sub").mkdir()
    (tmp_path / names[4]).write_text('{"num_insts": 3}')
    present = att.present_waves(str(tmp_path), waves_)
    assert [w.file for w in present] == [names[0], names[3], names[4]]
    assert att.wave_instruction_counts(str(tmp_path), present) == [7, 7, 3] == \
           [att.wave_instruction_count(str(tmp_path), w) for w in present]
    with pytest.raises(att.InputError, match="se0_sm0_sl0_wv1.json: cannot read"):
        att.wave_instruction_counts(str(tmp_path), waves_[:2])
    assert att.present_waves(str(tmp_path / "gone"), waves_) == []
