"""code.json columns by the file's own header; column 9 is idle cycles (DOMAIN §1.1).

rocprofiler-sdk's ATT writer sets ``header`` to "ISA, _, LineNumber, Source, Codeobj, Vaddr,
Hit, Latency, Stall, Idle" and writes each row as ``[inst, 0, line_number, comment, marker_id,
addr, hitcount, latency, stall, idle]``; every code.json of the shared sweep carries that header
(version 3.0.0). The fixtures here that reorder or extend the columns are hand-made (named so):
no real writer in the sweep does that, and the reader must not depend on the order.
"""

from __future__ import annotations

import json

import pytest

from generator.model import Instruction
from generator.read import att

VEC_ADD = "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25"
HEADER = ["ISA", "_", "LineNumber", "Source", "Codeobj", "Vaddr", "Hit", "Latency", "Stall", "Idle"]


def fields(ins: list[Instruction]) -> list[tuple]:
    return [(i.pc_index, i.asm, i.type, i.source_loc, i.pc_addr, i.exec_count, i.total_cycles, i.stall_cycles,
             i.idle_cycles) for i in ins]


def test_every_shared_code_json_names_its_columns(sweep):
    files = sorted(sweep.glob("examples/*/att_viewer/*/*/code.json"))
    assert len(files) == len(list(sweep.glob("examples/*/att_viewer/*/ui_output_agent_*"))) > 0  # 17 in the sweep
    for f in files:
        assert json.loads(f.read_text())["header"] == ", ".join(HEADER), f


def test_handmade_permuted_header_reads_the_same_values(sweep, tmp_path):
    raw = json.loads((sweep / VEC_ADD / "code.json").read_text())
    real, name, odd = att.load_code(str(sweep / VEC_ADD / "code.json"))
    order = [9, 7, 3, 0, 8, 1, 6, 5, 2, 4]  # Idle, Latency, Source, ISA, Stall, _, Hit, Vaddr, LineNumber, Codeobj
    permuted = {"header": ", ".join(HEADER[k] for k in order), "version": raw["version"],
                "code": [[row[k] for k in order] for row in raw["code"]]}
    path = tmp_path / "handmade_permuted_header_code.json"
    path.write_text(json.dumps(permuted))
    assert att.code_columns(permuted["header"]) == (3, 8, 2, 7, 6, 1, 4, 0)
    got, got_name, got_odd = att.load_code(str(path))
    assert fields(got) == fields(real) and (got_name, got_odd) == (name, odd)
    assert len(real) == 22 and name == "vecAddKernel_0"
    # pc 18, s_waitcnt vmcnt(0): Hit 632, Latency 1,728,428, Stall 1,728,428, Idle 0 (the raw row)
    assert next(i for i in got if i.pc_index == 18).idle_cycles == 0


def test_handmade_appended_columns_and_a_list_header_read_the_same(sweep, tmp_path):
    """Newer writers append PC_Issued, PC_Stalled, Stall_Reasons; a header given as a list also works."""
    raw = json.loads((sweep / VEC_ADD / "code.json").read_text())
    real = att.load_code(str(sweep / VEC_ADD / "code.json"))[0]
    wider = {"header": HEADER + ["PC_Issued", "PC_Stalled", "Stall_Reasons"],
             "code": [row + [1, 2, {"x": 3}] for row in raw["code"]]}
    path = tmp_path / "handmade_appended_columns_code.json"
    path.write_text(json.dumps(wider))
    assert fields(att.load_code(str(path))[0]) == fields(real)
    no_header = {"code": raw["code"]}  # the positional layout of DOMAIN §1.1
    path = tmp_path / "handmade_no_header_code.json"
    path.write_text(json.dumps(no_header))
    assert fields(att.load_code(str(path))[0]) == fields(real)


def _idle_over_latency(sweep):
    """(rows where column 9 exceeds column 7, instruction rows), from the raw files and through our reader."""
    raw_rows = over = 0
    ours_rows = ours_over = 0
    for f in sorted(sweep.glob("examples/*/att_viewer/*/*/code.json")):
        for row in json.loads(f.read_text())["code"]:
            if type(row[2]) is int and row[2] > 0:
                raw_rows += 1
                over += row[9] > row[7]
        ins = att.load_code(str(f))[0]
        ours_rows += len(ins)
        ours_over += sum(i.idle_cycles > i.total_cycles for i in ins)
    return (over, raw_rows), (ours_over, ours_rows)


def test_idle_exceeds_latency_on_some_rows(sweep):
    """Column 9 cannot be issue cycles: on rows it exceeds the row's latency (column 7). Counted from the raw
    files here, and again through our reader's ``idle_cycles`` (rows with an int pc_index > 0)."""
    raw, ours = _idle_over_latency(sweep)
    assert raw == ours and 0 < raw[0] < raw[1]


@pytest.mark.full_sweep
def test_idle_exceeds_latency_on_511_of_15983_shared_rows(sweep):
    """DOMAIN §1.1 says 588 of 23,342 in the full reference sweep; the shared copy holds 17 of its captures:
    511 of 15,983 instruction rows."""
    assert _idle_over_latency(sweep) == ((511, 15983), (511, 15983))


#: (rows where column 9 exceeds column 7, instruction rows) of the five captures the slice and the sweep
#: both hold, counted from the raw code.json files (rows whose column 2 is an int > 0): 134 of 3,755 in all.
IDLE_OVER_LATENCY = {
    "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44": (64, 2069),
    "examples/fused_rope_cache/att_viewer/big/ui_output_agent_4253_dispatch_8781": (11, 207),
    "examples/hgemm_splitk/att_viewer/big/ui_output_agent_4716_dispatch_319": (38, 521),
    "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209": (21, 936),
    VEC_ADD: (0, 22),
}


def test_idle_exceeds_latency_per_capture_through_our_reader(sweep):
    """The per-capture counts behind the totals, through our reader's ``idle_cycles`` and ``total_cycles``."""
    got = {}
    for rel in IDLE_OVER_LATENCY:
        ins = att.load_code(str(sweep / rel / "code.json"))[0]
        got[rel] = (sum(i.idle_cycles > i.total_cycles for i in ins), len(ins))
    assert got == IDLE_OVER_LATENCY


def test_analyze_json_and_the_api_say_idle_cycles(sweep, kernel):
    from generator.site.views import kernel as kernel_views
    k, row = kernel("vec_add")
    cap = kernel_views.kernel_json(k, row, 2)["captures"][0]
    api_top = cap["analysis"]["top_instructions"][0]
    assert (api_top["pc_index"], api_top["idle_cycles"]) == (18, 0)
    a = k.captures[0].analysis
    doc = a.to_json()
    assert doc["total_idle_cycles"] == sum(r[9] for r in json.loads((sweep / VEC_ADD / "code.json").read_text())["code"]
                                           if type(r[2]) is int and r[2] > 0)
    top = doc["top_instructions"][0]
    assert (top["pc_index"], top["idle_cycles"]) == (18, 0) and "issue_cycles" not in top


def test_nsight_compute_issued_samples_have_their_own_field():
    from pathlib import Path
    from generator.analyze import analysis
    from generator.read import discover
    gemm = Path(__file__).resolve().parent.parent / "bundles" / "examples" / "gemm"
    if not gemm.is_dir():
        pytest.skip("the NVIDIA demo bundles are absent")
    a = analysis.analyze_sweep(discover.discover(gemm))[0].analyses[0]
    # issued = All samples - Not-issued samples of each SASS row (source_sass.csv), never idle cycles
    assert all(i.idle_cycles == 0 for i in a.instructions)
    assert sum(i.issued_samples for i in a.instructions) == a.total_cycles - a.total_stall_cycles
    doc = a.to_json()
    assert "total_idle_cycles" not in doc and doc["total_issued_samples"] == a.total_cycles - a.total_stall_cycles
    assert all("issued_samples" in t and "idle_cycles" not in t for t in doc["top_instructions"])
