"""An occupancy cap binds only where the launch grid asks a CU for more waves than the cap allows.

The demand of a dispatch is the waves per SIMD its busiest CU is given when the workgroups are dealt
round-robin over the CUs: ``ceil(ceil(workgroups / CUs) * waves per workgroup / SIMDs per CU)``. A
resource cap (VGPR, LDS, SGPR; DOMAIN §1.3) at or above that demand holds nothing back at this shape:
the page says so in one unranked note (``finding.occupancy_grid.*``) instead of ranked advice to free
the resource, and its diagnosis line, capture panel and terminal report keep the cap's numbers without
calling it binding.

Every number below is recomputed from the bundle's raw files: the kernel trace row of the captured
dispatch (``discover_kernel_trace.csv``, Dispatch_Id = the capture's ``dispatch_<N>``; grids are in
work-items) and the agent info (``<label>_agent_info.csv``: 256 CUs of 4 SIMDs on the MI350X). The caps
are ``expected/occupancy.json``'s.
"""

from __future__ import annotations

import csv
import json
import re
from types import SimpleNamespace

import pytest

from conftest import in_slice
from generator.analyze import advice
from generator.analyze import occupancy as occ_model
from generator.site import text_report, wording
from generator.site.views import captures as captures_views
from generator.site.views import diagnosis

#: kernel -> (resource capping, grid demand D, cap C, binds): an audit of the MI350X sweep's primaries.
#: hgemm_splitk: 1536x14 work-items / 256 = 84 workgroups of 4 waves on 256 CUs -> 1 workgroup, 4 waves, 1 per SIMD;
#: moe_gemm: 8192x10 / 256 = 320 -> 2 workgroups on the busiest CU, 8 waves, 2 per SIMD (cap 3);
#: flash_attn_func: 131072 / 256 = 512 -> 2 per CU, 2 per SIMD (cap 2);
#: pa: 65536x1x4 / 256 = 1024 -> 4 per CU, 16 waves, 4 per SIMD (cap 2);
#: preshuffle_gemm: 8192x32 / 256 = 1024 -> 4 per SIMD (cap 3).
CASES = {
    "hgemm_splitk": ("LDS", 1, 1, False),
    "moe_gemm": ("VGPR", 2, 3, False),
    "flash_attn_func": ("VGPR", 2, 2, False),
    "pa": ("VGPR", 4, 2, True),
    "preshuffle_gemm": ("VGPR", 4, 3, True),
    # the other capped primaries of the sweep: layernorm 256 workgroups (1 per SIMD, VGPR cap 7),
    # moe_blockscale 40 (1, cap 2), pa_mqa_logits_fp4 507 (2 per CU: 2, cap 5)
    "layernorm": ("VGPR", 1, 7, False),
    "moe_blockscale": ("VGPR", 1, 2, False),
    "pa_mqa_logits_fp4": ("VGPR", 2, 5, False),
}
PARAMS = [in_slice(f"examples/{k}", k) for k in CASES]


def raw_demand(sweep, kernel: str, capture: str, label: str) -> tuple[int, int, int]:
    """(workgroups, waves per workgroup, demand) of the captured dispatch, from the raw CSVs."""
    d = int(re.search(r"dispatch_(\d+)", capture).group(1))
    cv = sweep / "examples" / kernel / "compute_viewer"
    with (cv / "discover_kernel_trace.csv").open(newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if int(r["Dispatch_Id"]) == d)
    with (cv / f"{label}_agent_info.csv").open(newline="") as fh:
        agent = next(r for r in csv.DictReader(fh) if r["Agent_Type"] == "GPU")
    cus, simds = int(agent["Cu_Count"]), int(agent["Simd_Per_Cu"])
    assert (cus, simds) == (256, 4)  # MI350X (DOMAIN §5)
    wgs = 1
    for ax in "XYZ":
        wgs *= -(-int(row[f"Grid_Size_{ax}"]) // int(row[f"Workgroup_Size_{ax}"]))
    threads = int(row["Workgroup_Size_X"]) * int(row["Workgroup_Size_Y"]) * int(row["Workgroup_Size_Z"])
    wpw = -(-threads // 64)
    per_cu = -(-wgs // cus)
    return wgs, wpw, -(-per_cu * wpw // simds)


@pytest.mark.parametrize("kernel", PARAMS)
def test_grid_demand_and_cap_per_kernel(kernel, primaries, sweep):
    res, demand, cap, binds = CASES[kernel]
    a, bundle = primaries[kernel]
    occ = a.occupancy
    expected = json.loads((sweep / "expected" / "occupancy.json").read_text())[a.path]
    assert (occ.limiters, occ.waves_per_simd) == ([res], cap) == ([expected["limiter"]], expected["waves"])
    _, _, raw = raw_demand(sweep, kernel, a.capture, a.label)
    assert occ.grid_waves_per_simd == raw == demand
    assert occ.cap_binds is binds
    js = occ.to_json()
    assert (js["grid_waves_per_simd"], js["cap_binds"], js["limiter"]) == (demand, binds, res)  # readings kept


@pytest.mark.parametrize("kernel", PARAMS)
def test_ranked_limiter_advice_only_where_the_cap_binds(kernel, primaries):
    res, demand, cap, binds = CASES[kernel]
    a, bundle = primaries[kernel]
    found = advice.advise(a, advice.AdviceContext(bundle=bundle))
    limit = "vgpr_occupancy" if res == "VGPR" else "lds_sgpr_occupancy"
    limits = [f for f in found if f.detector == limit]
    notes = [f for f in found if f.detector == "occupancy_grid"]
    if binds:
        assert len(limits) == 1 and limits[0].kind == "limit" and not notes
        return
    assert not limits and len(notes) == 1
    f = notes[0]
    assert f.kind == "flag" and not f.ranked and f.stall_share == 0.0 and f.priority == "info"
    assert (f.evidence["grid_waves_per_simd"], f.evidence["waves_per_simd"], f.evidence["limiters"]) == (
        demand, cap, [res])
    w = {n: f"{n} wave{'s' if n != 1 else ''}/SIMD" for n in (demand, cap)}
    assert f.summary == (f"the grid asks at most {w[demand]} on its busiest CU and the {res} cap allows {w[cap]}: "
                         "the cap does not bind at this shape")
    assert wording.plain("en", f.messages["summary"]) == f.summary
    assert wording.plain("zh", f.messages["summary"]) == (
        f"网格在最忙的 CU 上最多要每 SIMD {demand} 个 wave，{res} 上限允许每 SIMD {cap} 个 wave："
        "在这个形状下该上限不起限制作用")
    # the note sits under the flags, never among the ranked limits of the terminal plan
    plan = advice.format_plan(found)
    flagged = plan.index("  Flagged (not ranked):")
    at = next(k for k, ln in enumerate(plan) if f.title in ln)
    assert at > flagged and ln_is_note(plan[at])


def ln_is_note(line: str) -> bool:
    return line.startswith("   - ")


@pytest.mark.parametrize("kernel", PARAMS)
def test_diagnosis_panel_and_report_keep_the_numbers_without_the_binding_claim(kernel, primaries):
    res, demand, cap, binds = CASES[kernel]
    a, _ = primaries[kernel]
    occ = a.occupancy
    c, data = diagnosis.occupancy_clause(SimpleNamespace(analysis=a), "#c0")
    assert (data["waves_per_simd"], data["limiter"], data["cap_binds"], data["grid_waves_per_simd"]) == (
        cap, res, binds, demand)
    wv = f"{cap} wave{'s' if cap != 1 else ''}/SIMD"
    view = captures_views.occupancy_view(a)
    text = "\n".join(text_report.occupancy_lines(a))
    if binds:
        assert c.text == f"{wv} ({res}-bound)"
        assert view.headline == f"{wv}, limited by {res}"
        assert f"limited by {res}" in text
        return
    assert c.text == f"{wv} ({res} cap, not binding: the grid asks at most {demand})"
    assert "-bound" not in c.text and "不起作用" in c.zh
    assert view.headline == (f"{wv} allowed by {res}; the grid asks at most {demand} on its busiest CU: "
                             "the cap does not bind at this shape")
    assert not [f for f in view.limits if f.css == "bind"]  # no resource marked as binding
    assert "free" not in view.next_step  # no "free N VGPRs" arithmetic where freeing gains no wave
    if occ.next_vgpr_total is not None:
        assert view.next_step.startswith(f"{cap + 1} waves/SIMD need at most {occ.next_vgpr_total} VGPRs in all "
                                         f"(now {occ.vgpr_total})")
    assert f"capped by {res}; the grid asks at most {demand} on its busiest CU: not binding" in text
    assert "limited by" not in text


@pytest.mark.parametrize("kernel", [in_slice("examples/pa", "pa")])
def test_a_binding_cap_keeps_its_free_arithmetic(kernel, primaries):
    # pa: 192 VGPRs (arch 176 + accum 12, in blocks of 8) give 2 waves/SIMD; 3 need <= 168: free 24, and its grid
    # asks 4 waves/SIMD of its busiest CU, so the advice stands
    a, bundle = primaries[kernel]
    view = captures_views.occupancy_view(a)
    assert view.next_step == "3 waves/SIMD need at most 168 VGPRs in all (now 192: free 24)"
    assert [f.css for f in view.limits] == ["bind", "", ""]
    f = next(f for f in advice.advise(a, advice.AdviceContext(bundle=bundle)) if f.detector == "vgpr_occupancy")
    assert f.evidence["vgprs_to_free"] == 24


def test_grid_demand_formula():
    # moe_gemm: 320 workgroups of 4 waves on 256 CUs: the busiest CU gets 2 (8 waves on 4 SIMDs): 2
    assert occ_model.grid_demand(320, 4, 256) == 2
    assert occ_model.grid_demand(84, 4, 256) == 1  # hgemm_splitk: 172 CUs get none, the busiest 1
    assert occ_model.grid_demand(1024, 4, 256) == 4  # pa, preshuffle_gemm
    assert occ_model.grid_demand(1, 1, 256) == 1  # one wave still asks one slot of a SIMD
    assert occ_model.grid_demand(257, 2, 256) == 1  # 2 workgroups of 2 waves on the busiest: 4 waves, 1 per SIMD


@pytest.mark.parametrize("kernel", [in_slice("examples/flash_attn_func", "flash_attn_func")])
def test_an_unknown_grid_keeps_the_cap_binding(kernel, primaries):
    # without a trace row or agent info (no grid, no CU count) nothing says the cap is out of reach: the
    # reading of DOMAIN §1.3 stands (flash_attn_func's VGPR cap of 2 binds again)
    from dataclasses import replace
    occ = replace(primaries[kernel][0].occupancy, grid_waves_per_simd=None)
    assert occ.cap_binds is True and occ.limiters == ["VGPR"]
    assert occ_model.row_demand(None, {"Cu_Count": "256"}) is None
    assert occ_model.row_demand({"Grid_Size_X": "131072", "Workgroup_Size_X": "256"}, None) is None
    assert occ_model.row_demand({"Grid_Size_X": "131072", "Workgroup_Size_X": "256"}, {"Cu_Count": "256"}) == 2


@pytest.mark.parametrize("kernel", PARAMS)
def test_overview_cell_and_pr_row_say_not_binding(kernel, primaries):
    """The kernel row's Limiter cell (overview, and the PR rows of the kernel page) reads the cap without calling
    it a limit where the grid never reaches it."""
    from generator.site.views.cells import occupancy_cells

    res, demand, cap, binds = CASES[kernel]
    cells = occupancy_cells(primaries[kernel][0])
    assert (cells["limiter"], cells["cap_binds"]) == (res, binds)
    if binds:
        assert cells["limiter_text"] == res
    else:
        assert cells["limiter_text"] == f"{res} cap, not binding (the grid asks at most {demand})"
        assert cells["limiter_text_zh"] == f"{res} 上限，不起作用（网格最多只要 {demand}）"
