"""The words around a capture's numbers say what the numbers are (audit of the shared sweep's site).

Each number below is worked from the raw files (code.json rows, wave files, the kernel trace CSV,
the ISA) in the test or its comment; the assertions check the sentence the site shows beside it.
"""

from __future__ import annotations

import csv
import json
import re

import pytest

from generator.analyze import advice
from generator.analyze.advice.registry import ranked_on
from generator.site import i18n, wording
from generator.site.views import captures

PA = "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209"
VEC_ADD = "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25"


def detect(primaries, kernel, name):
    """The findings of one detector on a kernel's primary capture (on the plan's basis, nothing taken)."""
    a, b = primaries[kernel]
    return advice.get_detector(name).fn(advice.KernelView(ranked_on(a), advice.AdviceContext(bundle=b)))


def working_rows(cap):
    """pc -> [stall, cycles] over the working waves' rows (DOMAIN §1.5: a wave exits early under 5 % of
    the longest wave's rows or 2 % of code.json's instructions); rows are [time, type, stall, duration, pc]."""
    static = sum(1 for r in json.loads((cap / "code.json").read_text())["code"] if type(r[2]) is int and r[2] > 0)
    waves = [json.loads(f.read_text())["wave"]["instructions"] for f in sorted(cap.glob("se*_sm*_sl*_wv*.json"))]
    longest = max(len(w) for w in waves)
    per_pc: dict = {}
    for w in waves:
        if len(w) < 0.05 * longest or len(w) < 0.02 * static:
            continue
        for row in w:
            acc = per_pc.setdefault(row[4], [0, 0])
            acc[0] += row[2]
            acc[1] += row[3]
    return per_pc


def code_rows(cap):
    """pc -> (asm, latency = column 7, stall = column 8) of code.json."""
    return {r[2]: (r[0], r[7], r[8]) for r in json.loads((cap / "code.json").read_text())["code"]
            if type(r[2]) is int and r[2] > 0}


# ---------------------------------------------------------------- problem 3: "of their total cycles"

def test_pa_loads_between_mfmas_stall_a_share_of_their_total_cycles_not_issue_cycles(primaries, sweep):
    """pa's 16 loads between the MFMAs of loop pc 350-934: their stall over their cycles (latency, the
    wave rows' duration), on the working waves the plan ranks on: 81.5 %. Not "issue cycles"."""
    (f,) = detect(primaries, "pa", "loads_interleaved_with_mfma")
    rows = working_rows(sweep / PA)
    loads = f.evidence["premise_pcs"]
    assert len(loads) == 16
    stall, cycles = sum(rows[p][0] for p in loads), sum(rows[p][1] for p in loads)
    assert f.evidence["load_stall_rate"] == pytest.approx(stall / cycles) and f"{stall / cycles:.1%}" == "81.5%"
    for m in (f.messages["summary"], f.premise):
        text = wording.plain("en", m)
        assert "81.5% of their total cycles" in text and "issue" not in text, text
        assert "总周期" in wording.plain("zh", m) and "发射" not in wording.plain("zh", m)
    assert "stall 81.5% of their total cycles" in f.evidence["summary"]


def test_pa_back_to_back_loads_in_the_plan_say_total_cycles(primaries, sweep):
    """The plan's back_to_back_loads on pa: 12 loads, 4,380 stall of 4,784 cycles on the working waves = 91.6 %."""
    a, b = primaries["pa"]
    (f,) = [f for f in advice.advise(a, advice.AdviceContext(bundle=b)) if f.detector == "back_to_back_loads"]
    rows = working_rows(sweep / PA)
    loads = f.evidence["premise_pcs"]
    stall, cycles = sum(rows[p][0] for p in loads), sum(rows[p][1] for p in loads)
    assert (len(loads), stall, cycles) == (12, 4380, 4784)
    text = wording.plain("en", f.messages["summary"])
    assert "stall 91.6% of their total cycles" in text and "issue" not in text
    assert "stall 91.6% of their total cycles" in f.evidence["summary"]


# ---------------------------------------------------------------- problem 4: "of the stall cycles"

def test_vec_add_exposed_vmem_waits_hold_a_share_of_the_stall_cycles(primaries, sweep):
    """vec_add's vmcnt wait at pc 18: 1,728,428 of 2,101,364 stall cycles (82.3 %); of all cycles it
    would be 46.3 %, so the sentence must say stall cycles."""
    (f,) = detect(primaries, "vec_add", "vmem_latency_exposed")
    code = code_rows(sweep / VEC_ADD)
    total_stall, total = sum(r[2] for r in code.values()), sum(r[1] for r in code.values())
    assert f.evidence["premise_pcs"] == [18] and code[18][2] == 1728428 and total_stall == 2101364
    assert f"{code[18][2] / total_stall:.1%}" == "82.3%" and f"{code[18][2] / total:.1%}" == "46.3%"
    text = wording.plain("en", f.messages["summary"])
    # one wait: "1 vmcnt wait ... holds" (it read "hold" before fix12)
    assert "holds 82.3% of the stall cycles" in text and "of the cycles" not in text
    assert "holds 82.3% of the stall cycles" in f.evidence["summary"]


@pytest.mark.full_sweep
def test_rmsnorm_exposed_vmem_waits_hold_41_percent_of_the_stall_cycles(primaries, sweep):
    """rmsnorm: 98,432 of 239,392 stall cycles (41.1 %); 29.7 % of all cycles."""
    (f,) = detect(primaries, "rmsnorm", "vmem_latency_exposed")
    cap = next((sweep / "examples/rmsnorm/att_viewer").glob(f"*/{primaries['rmsnorm'][0].path.rsplit('/', 1)[-1]}"))
    code = code_rows(cap)
    stall = sum(code[p][2] for p in f.evidence["premise_pcs"])
    total_stall, total = sum(r[2] for r in code.values()), sum(r[1] for r in code.values())
    assert (stall, total_stall) == (98432, 239392)
    assert (f"{stall / total_stall:.1%}", f"{stall / total:.1%}") == ("41.1%", "29.7%")
    assert "hold 41.1% of the stall cycles" in wording.plain("en", f.messages["summary"])


# ---------------------------------------------------------------- problem 5: which VGPR reading is larger

def isa_arch_vgprs(cap) -> int:
    """The ISA scan (DOMAIN §1.3): the highest vN / upper bound of v[N:M] in code.json's asm, + 1."""
    top = -1
    for r in json.loads((cap / "code.json").read_text())["code"]:
        if type(r[2]) is int and r[2] > 0:
            for m in re.finditer(r"\bv\[(\d+):(\d+)\]|\bv(\d+)\b", r[0]):
                top = max(top, int(m.group(2) or m.group(3)))
    return top + 1


def csv_vgprs(sweep, kernel: str, name: str) -> set:
    """VGPR_Count of the kernel trace CSV's rows for ``name`` (the JIT name, with its _0 suffix)."""
    path = sweep / "examples" / kernel / "compute_viewer" / "discover_kernel_trace.csv"
    return {r["VGPR_Count"] for r in csv.DictReader(path.open()) if r["Kernel_Name"] == name}


@pytest.mark.parametrize("kernel,jit,isa,csv_count,key", [
    # hgemm_splitk: ISA v119 is the highest register (120), the CSV 132: the CSV is the larger
    ("hgemm_splitk", "hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0", 120, 132, "occ.disagree.csv_high"),
    # pa: ISA 176, the CSV 96: the CSV under-reports
    ("pa", "pa_decode_ps_kernel_0", 176, 96, "occ.disagree"),
])
def test_the_vgpr_disagreement_gives_the_reason_of_the_larger_side(primaries, sweep, kernel, jit, isa, csv_count, key):
    a, _ = primaries[kernel]
    cap = sweep / a.path
    assert isa_arch_vgprs(cap) == isa and csv_vgprs(sweep, kernel, jit) == {str(csv_count)}
    o = a.occupancy
    assert (o.arch_vgpr_isa, o.arch_vgpr_csv) == (isa, csv_count)
    view = captures.occupancy_view(a)
    assert view.disagreement == i18n.en(key, isa=isa, csv=str(csv_count))
    if csv_count > isa:
        assert "the CSV's larger count is used" in view.disagreement and "under-reports" not in view.disagreement
    else:
        assert "the ISA's larger count is used (rocprofv3 1.1 under-reports on gfx950)" in view.disagreement
    assert str(view.disagreement_zh)


# ---------------------------------------------------------------- problem 7: a median of the grid's dispatches

def trace_durations(sweep, kernel: str, name: str, dispatch: int) -> tuple[list, float]:
    """(durations in us of the trace rows of ``name`` with the captured row's grid, the captured row's own)."""
    path = sweep / "examples" / kernel / "compute_viewer" / "discover_kernel_trace.csv"
    rows = [r for r in csv.DictReader(path.open()) if r["Kernel_Name"] == name]
    keys = [f"{k}_Size_{d}" for k in ("Grid", "Workgroup") for d in "XYZ"]
    own = next(r for r in rows if int(r["Dispatch_Id"]) == dispatch)
    dur = lambda r: (int(r["End_Timestamp"]) - int(r["Start_Timestamp"])) / 1000.0  # noqa: E731
    return [dur(r) for r in rows if [r[k] for k in keys] == [own[k] for k in keys]], dur(own)


@pytest.mark.parametrize("slug,name,dispatch,n,median,own", [
    # vec_add: 24 vecAddKernel_0 dispatches of the captured grid, median 18.42 us; Dispatch_Id 25 took 19.24 us
    ("vec_add", "vecAddKernel_0", 25, 24, "18.42", "19.24"),
    # layernorm (whole sweep only): 112 layernorm_kernel_0 dispatches, median 4.74 us; Dispatch_Id 23 took 5.20 us
    # (rmsnorm's capture matches no timed shape: no timed_gap there, tests/test_capture_shape.py)
    pytest.param("layernorm", "layernorm_kernel_0", 23, 112, "4.74", "5.20", marks=pytest.mark.full_sweep),
])
def test_timed_gap_says_the_capture_time_is_a_median_of_the_grids_dispatches(kernel, sweep, slug, name, dispatch,
                                                                             n, median, own):
    durations, own_us = trace_durations(sweep, slug, name, dispatch)
    durations.sort()
    mid = durations[len(durations) // 2] if len(durations) % 2 else sum(durations[len(durations) // 2 - 1:][:2]) / 2
    assert (len(durations), f"{mid:.2f}", f"{own_us:.2f}") == (n, median, own)
    k, _ = kernel(slug)
    f = next(f for f in k.primary.findings if f["detector"] == "timed_gap")
    key, kw = f["premise"]
    assert key == "finding.timed_gap.premise.grid"
    assert (kw["n"], kw["id"], kw["capture"], kw["own"]) == (n, str(dispatch), median, own)
    premise = i18n.en(key, **kw)
    assert premise.startswith(f"the kernel trace's {n} dispatches of the profiled grid take a median {median} us "
                              f"(the profiled dispatch, Dispatch_Id {dispatch}, took {own} us)")
    assert f["title"].startswith("The profiled grid's dispatches ran")
    assert f["evidence"]["bandwidth"]["grid_source"].endswith(f"time: median of the {n} dispatches of that grid")


def test_softmax_dispatch_13_is_not_the_first_call_the_pick_dispatch_docstring_says_so(sweep):
    """softmax_kernel_0's trace rows 6-13 are its first 8 dispatches; 9 (946.42 us) and 13 (962.87 us) are the
    slow ones: the captured dispatch 13 is the 8th, not a cold first call."""
    from generator.analyze.advice import context
    if not (sweep / "examples/softmax").exists():
        pytest.skip("softmax is not in the slice")
    path = sweep / "examples/softmax/compute_viewer/discover_kernel_trace.csv"
    rows = [r for r in csv.DictReader(path.open()) if r["Kernel_Name"] == "softmax_kernel_0"]
    first = [(int(r["Dispatch_Id"]), (int(r["End_Timestamp"]) - int(r["Start_Timestamp"])) / 1000.0) for r in rows[:8]]
    assert [d for d, _ in first] == list(range(6, 14))
    assert [(d, round(t, 2)) for d, t in first if t > 500] == [(9, 946.42), (13, 962.87)]
    doc = context.grid_timing.__doc__ + context._pick_dispatch.__doc__
    assert "cold first call" not in doc and "9 and 13" in doc


# ---------------------------------------------------------------- problem 1: the findings' basis, said once

def test_pa_capture_card_says_its_findings_share_out_the_working_waves(kernel, sweep):
    """pa: 48 of 56 waves exit early, so the advice ranks on the 8 working waves' 44,892 stall cycles while the
    card's tables share out all 56 waves' 70,036. scalar_load_waits's 16.6 % is pc 6 + pc 87 on the working
    waves (5,336 + 2,104 = 7,440 / 44,892); the top-instructions table's pc 6 is 20,880 / 70,036 = 29.81 %."""
    from generator.site.views.base import SiteContext
    rows = working_rows(sweep / PA)
    code = code_rows(sweep / PA)
    assert sum(v[0] for v in rows.values()) == 44892 and sum(r[2] for r in code.values()) == 70036
    assert (rows[6][0], rows[87][0]) == (5336, 2104) and f"{7440 / 44892:.1%}" == "16.6%"
    assert f"{code[6][2] / 70036:.2%}" == "29.81%"
    k, row = kernel("pa")
    ci, c = next((i, c) for i, c in enumerate(k.captures) if c.is_primary)
    f = next(f for f in c.findings if f["detector"] == "scalar_load_waits")
    assert f["stall_cycles"] == 7440 and f["stall_share"] == pytest.approx(7440 / 44892)
    view = captures.capture_view(ci, c, SiteContext())
    assert view.findings_basis == (
        "The shares in these findings are of the 8 working waves' 44,892 stall cycles, as in the working-waves "
        "tables above (the advice is ranked on them); the capture's other tables (stall by type, top lines, top "
        "instructions, stall by opcode) and its source and ISA pages share out all 56 sampled waves' 70,036.")
    assert i18n.message_of(view.findings_basis) is not None
    top = view.top_instructions[0]
    assert (top.pc, top.share) == (6, "29.81%")


def test_a_capture_without_early_exits_has_no_basis_note(kernel):
    """vec_add's waves all work (DOMAIN §1.5: every capture but pa and moe_gemm has no early exit)."""
    from generator.site.views.base import SiteContext
    k, _ = kernel("vec_add")
    ci, c = next((i, c) for i, c in enumerate(k.captures) if c.is_primary)
    assert c.analysis.working is None and c.findings
    assert captures.capture_view(ci, c, SiteContext()).findings_basis == ""
