"""The NCU summary says what the demo bundle's CSVs support, no more (audit of the demo site).

Every expected value below is worked from bundles/examples/<kernel>/ncu/prefill/*.csv.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.analyze import analysis, ncu_summary
from generator.analyze.ncu_metrics import occupancy_limiters
from generator.read import discover

BUNDLES = Path(__file__).resolve().parent.parent / "bundles"


def launches(kernel: str):
    return [a for r in analysis.analyze_sweep(discover.discover(BUNDLES / "examples" / kernel)) for a in r.analyses]


# ---------------------------------------------------------------- 1. occupancy limiter

@pytest.mark.parametrize("kernel", ["softmax", "silu_and_mul", "rmsnorm", "vec_add"])
def test_no_resource_binds_at_full_theoretical_occupancy(kernel):
    # details.csv Occupancy section, Theoretical Occupancy 100 % in all four:
    # softmax:      Registers 16 = Warps 16 (Shared Mem 28, SM 32, Barriers 32)
    # silu_and_mul: Registers 16 = Warps 16 (Shared Mem 32, SM 32, Barriers 32)
    # rmsnorm:      Registers 4  = Warps 4  (Shared Mem 14, SM 32, Barriers 32)
    # vec_add:      Warps 16 < Registers 21 (both launches)
    for a in launches(kernel):
        occ = a.extra["ncu"]["occupancy"]
        assert occ["theoretical_pct"] == 100.0
        assert (occ["limiter"], occ["limiters"], occ["at_hardware_max"]) == (None, [], True)


def test_gemm_registers_and_shared_memory_tie():
    # details.csv: Block Limit Registers 1 = Block Limit Shared Mem 1 (Warps 8, SM 32, Barriers 32),
    # Theoretical Occupancy 12.50 %: both resources bind at one block per SM
    (a,) = launches("gemm")
    occ = a.extra["ncu"]["occupancy"]
    assert occ["limiters"] == ["registers", "shared memory"] and occ["at_hardware_max"] is False
    assert occ["limiter"] == "registers and shared memory"
    s = ncu_summary.ncu_summary([a])
    assert "limited by registers and shared memory" in s["bottleneck"]["root_cause"]
    from generator.site import i18n
    assert "受 寄存器 和 共享内存 限制" in i18n.zh_said_text(s["bottleneck"]["root_cause"])  # worded, not English data


def test_limiter_rule_on_hand_made_limits():
    lim = {"registers": 2.0, "shared memory": 3.0, "warps": 8.0, "blocks per SM": 32.0, "barriers": 32.0}
    assert occupancy_limiters(lim, 25.0) == {"limiter": "registers", "limiters": ["registers"],
                                             "at_hardware_max": False}
    # the SM's own warp limit binds below 100 % (e.g. 20-warp blocks: 3 blocks = 60 of 64 warps): no resource
    lim = {"registers": 3.0, "shared memory": 5.0, "warps": 3.0, "blocks per SM": 32.0, "barriers": 32.0}
    assert occupancy_limiters(lim, 93.75)["limiters"] == []
    assert occupancy_limiters({"registers": None}, None) == {"limiter": None, "limiters": [],
                                                             "at_hardware_max": False}


def test_full_occupancy_root_cause_names_no_limiter():
    # rmsnorm: latency-bound (DRAM 55.3 %, tensor 0.4 %), achieved 85.97 %, theoretical 100 %
    (a,) = launches("rmsnorm")
    cause, _ = ncu_summary.root_cause(a)
    assert "theoretical 100.0 %: no resource limits it below the hardware maximum" in cause
    assert "limited by" not in cause


# ---------------------------------------------------------------- 2. wgmma waits vs CTA-barrier waits

def test_gemm_barrier_samples_split_by_opcode():
    # source_sass.csv: stall_barrier (Not Issued) = 16029; on WARPGROUP.DEPBAR rows 13911, the other 2118 on
    # rows after BAR.SYNC (1240 + 841 + 26 + 4 + 4 + 3); not-issued samples in all 20881
    (a,) = launches("gemm")
    reasons = ncu_summary.reasons_read(a)
    assert reasons[ncu_summary.WGMMA_REASON] == 13911 and reasons["stall_barrier"] == 2118
    assert sum(reasons.values()) == 20881
    reason, share = ncu_summary.top_reason(a)
    assert reason == ncu_summary.WGMMA_REASON and share == pytest.approx(13911 / 20881)  # 66.6 %
    assert ncu_summary.key_issue(a).startswith("67 % of stalled samples wait for asynchronous warpgroup MMA")


# ---------------------------------------------------------------- 3. one primary launch

def test_vec_add_headline_is_launch_0_like_the_overview():
    # details.csv ID 0: DRAM Throughput 57.76 %, Achieved Occupancy 78.23 %, L2 Hit Rate 35.0 %;
    # ID 1 (DRAM 88.20 %) stays in the Stages table, labelled launch 1
    s = ncu_summary.ncu_summary(launches("vec_add"))
    assert s["primary_launch"] == 0 and s["bottleneck"]["kind"] == "latency-bound"
    assert "achieved occupancy is 78.2 %" in s["bottleneck"]["root_cause"]
    assert s["bottleneck"]["locality"].startswith("L2 hit rate is 35.0 %")
    assert [(st["kernel"], st["dram"]) for st in s["stages"]] == [("add_kernel (launch 0)", "57.8 %"),
                                                                   ("add_kernel (launch 1)", "88.2 %")]
    assert s["bottleneck"]["title"] == "Latency-bound (launch 0, the capture's primary launch; the Stages table lists all 2)"


# ---------------------------------------------------------------- 5. locality wording

def test_locality_sentence_states_the_misses_without_a_cause():
    # gemm details.csv: L2 Hit Rate 67.19 %, reads and writes together; raw.csv splits it (reads 63.14 %,
    # writes 99.99 %): 36.9 % of the reads miss (test_nvidia_audit works the split out)
    (a,) = launches("gemm")
    _, locality = ncu_summary.root_cause(a)
    assert locality.startswith("L2 hit rate is 67.2 % (< 80 %), reads and writes together: read sectors hit 63.1 %")
    assert "expected for pure streaming" not in locality and "the counters do not tell which" in locality


def test_overview_diagnosis_and_text_report_read_the_tie_and_the_hardware_max():
    """The consumers of the limiter: the overview cells, the diagnosis clause (its api record) and the
    text report say the tie (gemm) and the hardware maximum (softmax) as ncu_metrics found them."""
    from generator.site import text_report
    from generator.site.views import cells, diagnosis
    from generator.site.views.base import CaptureData

    (gemm,) = launches("gemm")
    soft = launches("softmax")[0]
    row = cells.occupancy_cells(gemm)
    assert (row["limiter_text"], row["limiters"]) == ("registers and shared memory", ["registers", "shared memory"])
    row = cells.occupancy_cells(soft)
    assert (row["limiter"], row["limiter_text"], row["limiters"]) == (None, "hardware max", [])
    said, rec = diagnosis.occupancy_clause(CaptureData(label="prefill", name="g", rel="g", status="ok", is_primary=True, analysis=gemm), "#c0")
    assert rec["limiters"] == ["registers", "shared memory"]
    assert said.text == f"{gemm.extra['ncu']['occupancy']['achieved_pct']:.0f}% achieved occupancy " \
                        "(registers and shared memory bind together)"
    said, rec = diagnosis.occupancy_clause(CaptureData(label="prefill", name="s", rel="s", status="ok", is_primary=True, analysis=soft), "#c0")
    assert rec["limiters"] == [] and said.text.endswith("(no resource limits it below the hardware max)")
    assert "(limited by registers and shared memory)" in text_report.ncu_occupancy_lines(gemm)[-1]
    assert text_report.ncu_occupancy_lines(soft)[-1].endswith("(limited by nothing below the hardware maximum)")
