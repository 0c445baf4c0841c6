"""The NVIDIA profile summary: real H200 bundles, and hand-made rows for the table rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.analyze import analysis, ncu_summary
from generator.read import campaign, discover
from generator.analyze.ncu_summary import baseline_table, micros, pct, speed_class

REPO = Path(__file__).resolve().parent.parent
BUNDLES = REPO / "bundles"


def summary(kernel: str, as_dicts: bool = False) -> dict:
    sweep = discover.discover(BUNDLES)
    bundle = next(b for b in sweep.bundles if b.name == kernel)
    launches = [a for r in analysis.analyze_bundle(bundle) for a in r.analyses]
    folder = BUNDLES / "benchmarks" / "examples" / kernel
    if as_dicts:
        rows = [json.loads(x) for x in open(folder / "benchmark_results.jsonl")]
        ledger = [json.loads(x) for x in open(folder / "shape_ledger.jsonl")]
    else:
        c = campaign.read_campaign(folder)
        rows, ledger = c.rows, c.ledger
    return ncu_summary.ncu_summary(launches, rows, ledger, candidate="triton")


def test_gemm_summary_real_values():
    s = summary("gemm")
    assert s["kernel"] == "gemm" and s["label"] == "prefill" and s["launches"] == 1
    # provenance.json: candidate_commit c6b133931, captured_at 2026-12-01T13:46:12Z
    assert s["provenance"]["text"] == ("NVIDIA H200 (sm_90) · driver 580.159.04 · CUDA 13.0 · torch 2.11.0+cu130 · "
                                       "triton 3.6.0 · Nsight Compute 2025.3.1.0 · commit c6b133931 · "
                                       "captured 2026-12-01T13:46:12Z")
    params = {p["name"]: p["value"] for p in s["configuration"][0]["params"]}
    assert params == {"K": "4096", "M": "4096", "N": "4096", "dtype": "bf16", "model": "Llama3 8B",
                      "stage": "prefill", "grid": "(512, 1, 1)", "block": "(256, 1, 1)",
                      "registers/thread": "184", "shared memory/block": "147456 B"}
    (st,) = s["stages"]
    # details.csv: Duration 250.18 us, DRAM Throughput 17.86 %, Achieved Occupancy 12.47 %;
    # raw.csv: sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed 58.842186
    assert (st["duration"], st["tensor_core"], st["dram"], st["achieved_occupancy"], st["bottleneck"]) == (
        "250.18 us", "58.8 %", "17.9 %", "12.5 %", "latency-bound")
    # source_sass.csv: stall_barrier (Not Issued) sums to 16029 of 20881 not-issued samples, of which
    # 13911 sit on WARPGROUP.DEPBAR (wgmma waits, DOMAIN §4) and 2118 elsewhere (CTA-barrier waits after
    # BAR.SYNC): 13911 / 20881 = 66.6 % -> "67 %"
    assert st["key_issue"].startswith("67 % of stalled samples wait for asynchronous warpgroup MMA (wgmma)")
    b = s["bottleneck"]
    assert b["title"] == "Latency-bound"
    assert b["root_cause"].startswith("Neither DRAM (17.9 %) nor the tensor pipe (58.8 %) reaches 60 % of peak")
    # details.csv: Block Limit Registers 1 = Block Limit Shared Mem 1: both bind (a tie)
    assert b["root_cause"].count(". ") == 1 and "limited by registers and shared memory" in b["root_cause"]
    assert b["locality"].startswith("L2 hit rate is 67.2 %")  # details.csv: L2 Hit Rate 67.19 %
    opp = [(o["rule"], o["gain_pct"], o["speedup_type"], o["metric"]) for o in s["opportunities"]]
    # details.csv rule rows: CPIStall, TheoreticalOccupancy OPT global 41.16, LaunchConfiguration OPT global 25
    assert opp == [("CPIStall", 41.16, "global", "warp-stall sampling: stall_barrier on WARPGROUP.DEPBAR"),
                   ("TheoreticalOccupancy", 41.16, "global", "Theoretical Occupancy"),
                   ("LaunchConfiguration", 25.0, "global", "Waves Per SM")]
    assert s["opportunities"][1]["metric_value"] == "12.50 %, limited by registers and shared memory"
    assert s["opportunities"][2]["metric_value"] == "3.88"


def test_gemm_baseline_table_follows_the_csv():
    s = summary("gemm")
    table = s["baseline"]
    assert table["providers"] == ["pytorch", "torch_compile"]
    assert len(table["rows"]) == 10
    csv_rows = [json.loads(x) for x in open(BUNDLES / "benchmarks/examples/gemm/benchmark_results.jsonl")]
    for row in table["rows"]:
        mine = {r["provider"]: r for r in csv_rows if r["shape_id"] == row["shape_id"]}
        assert row["candidate_us"] == mine["triton"]["median_us"]
        best = min(("pytorch", "torch_compile"), key=lambda p: mine[p]["median_us"])
        assert row["best_us"] == mine[best]["median_us"] and row["best_baseline"] == best
        assert row["speedup_value"] == pytest.approx(mine[best]["median_us"] / mine["triton"]["median_us"])
        assert row["baselines"]["torch_compile"]["us"] == mine["torch_compile"]["median_us"]
        assert row["baselines"]["torch_compile"]["status"] == "ok"
    # benchmark_results.jsonl: torch.compile (max-autotune) is the faster baseline on 8 of the
    # 10 shapes, cuBLAS (torch.matmul) on K=4096 M=16 N=6144 (23.09 us against 23.44 us) and
    # K=8192 M=4096 N=10240 (953.06 us against 956.64 us)
    assert [r["shape"] for r in table["rows"] if r["best_baseline"] == "pytorch"] == [
        "K=4096 M=16 N=6144", "K=8192 M=4096 N=10240"]
    profiled = [r for r in table["rows"] if r["profiled"]]
    assert [r["shape"] for r in profiled] == ["K=4096 M=4096 N=4096"]
    assert all(r["class"] == "headroom" for r in table["rows"] if r["speedup_value"] < 0.95)


def test_rows_as_dicts_or_campaign_objects_give_the_same_summary():
    def drop_names(s):  # the ledger's shape name is a JSONL key that LedgerShape does not keep
        for row in s["baseline"]["rows"]:
            row.pop("name")
        return s

    assert drop_names(summary("softmax", as_dicts=True)) == drop_names(summary("softmax", as_dicts=False))


def test_two_launch_summary_uses_the_captures_primary_launch():
    s = summary("vec_add")
    # launch 0 is the capture's primary launch (the overview and the diagnosis read it), not the longest
    assert s["launches"] == 2 and s["primary_launch"] == 0
    # details.csv: Duration 13.25 us (ID 0), 90.62 us (ID 1)
    assert [st["duration"] for st in s["stages"]] == ["13.25 us", "90.62 us"]
    assert [st["kernel"] for st in s["stages"]] == ["add_kernel (launch 0)", "add_kernel (launch 1)"]
    assert [c["shape"] for c in s["configuration"]] == ["llama3-8b-prefill-2k", "llama3-70b-prefill-8k"]
    # launch 0: details.csv DRAM Throughput 57.76 % and tensor pipe 1.0 %, both below 60 % -> latency-bound
    assert s["bottleneck"]["kind"] == "latency-bound"
    assert s["bottleneck"]["root_cause"].startswith("Neither DRAM (57.8 %) nor the tensor pipe (1.0 %)")
    assert s["bottleneck"]["title"].startswith("Latency-bound (launch 0, the capture's primary launch")
    assert sorted(r["shape"] for r in s["baseline"]["rows"] if r["profiled"]) == ["M=2048 N=4096", "M=8192 N=8192"]


def test_not_actionable_rules_stay_out_of_the_top_three():
    s = summary("silu_and_mul")
    assert "MemoryL2Compression" not in [o["rule"] for o in s["opportunities"]]
    assert [o["rule"] for o in s["opportunities"]] == ["CPIStall", "AchievedOccupancy", "FPInstructions"]
    assert s["opportunities"][2]["metric_value"] == "0 / 8257536"


# ---------------------------------------------------------------- hand-made rows

def make_handmade_row(shape, provider, status="ok", median=None, correct=True):
    return {"shape_id": shape, "provider": provider, "benchmark_status": status, "correct": correct,
            "median_us": median}


def test_handmade_table_rules():
    ledger = [{"shape_id": "a", "args": {"M": 1}, "model": "m", "stage": "decode", "dtype": "bf16"},
              {"shape_id": "b", "args": {"M": 2}, "model": "m", "stage": "prefill", "dtype": "bf16"},
              {"shape_id": "c", "args": {"M": 3}, "model": "m", "stage": "prefill", "dtype": "bf16"}]
    rows = [
        make_handmade_row("a", "triton", median=10.0),
        make_handmade_row("a", "pytorch", median=10.5),
        make_handmade_row("a", "eager", median=10.5),           # tie: first in file order wins
        make_handmade_row("b", "triton", median=8.0),
        make_handmade_row("b", "triton", status="failed"),      # a placeholder never hides a measurement
        make_handmade_row("b", "pytorch", median=7.6, correct=False),
        make_handmade_row("b", "eager", median=7.6),
        make_handmade_row("c", "triton", status="failed"),
        make_handmade_row("c", "pytorch", median=5.0),
    ]
    t = baseline_table(rows, ledger, "triton", {"b"})
    a, b, c = t["rows"]
    assert t["providers"] == ["pytorch", "eager"]
    assert (a["best_baseline"], a["speedup"], a["class"]) == ("pytorch", "1.05x", "win")
    assert (b["candidate_us"], b["best_baseline"], b["speedup_value"], b["class"]) == (8.0, "eager", 0.95, "parity")
    assert b["baselines"]["pytorch"] == {"text": "incorrect", "us": None, "status": "incorrect"}
    assert b["profiled"] is True and a["profiled"] is False
    assert (c["candidate"], c["speedup"], c["class"]) == ("failed", "—", "none")


def test_speed_class_thresholds_are_unrounded():
    assert speed_class(1.05, 1.05, 0.95) == "win"
    assert speed_class(1.0499, 1.05, 0.95) == "parity"
    assert speed_class(0.95, 1.05, 0.95) == "parity"
    assert speed_class(0.9499, 1.05, 0.95) == "headroom"
    assert speed_class(None, 1.05, 0.95) == "none"


def test_formatting():
    assert pct(None) == "—" and pct(85.851) == "85.9 %"
    assert micros(12.8) == "12.80 us" and micros(2185.86) == "2.19 ms" and micros(None) == "—"
    assert ncu_summary.short_loc("/a/b/softmax.py:21") == "softmax.py:21"
    assert ncu_summary.args_text('{"N":2,"M":1}') == "M=1 N=2"


def test_summary_needs_a_launch():
    with pytest.raises(ValueError):
        ncu_summary.ncu_summary([])


def test_gemm_barrier_samples_read_as_wgmma_waits():
    """DOMAIN §4: stall_barrier on WARPGROUP.DEPBAR waits for wgmma results, not a CTA barrier.
    source_sass.csv: 13,911 of gemm's 16,029 not-issued stall_barrier samples sit on the
    WARPGROUP.DEPBAR.LE gsb0 rows (checked by summing the column over those rows)."""
    from generator.analyze import analysis, ncu_summary
    from generator.read import discover

    a = analysis.analyze_sweep(discover.discover(BUNDLES / "examples" / "gemm"))[0].analyses[0]
    depbar = sum(i.extra.get("stall_reasons_not_issued", {}).get("stall_barrier", 0)
                 for i in a.instructions if i.asm.startswith("WARPGROUP.DEPBAR"))
    total = sum(i.extra.get("stall_reasons_not_issued", {}).get("stall_barrier", 0) for i in a.instructions)
    assert (depbar, total) == (13911, 16029)
    issue = ncu_summary.key_issue(a)
    # only the DEPBAR samples are wgmma waits: 13911 of the 20881 not-issued samples = 66.6 % -> "67 %"
    # (the other 2118 stall_barrier samples are CTA-barrier waits and stay stall_barrier)
    assert issue.startswith("67 % of stalled samples wait for asynchronous warpgroup MMA (wgmma) results on "
                            "WARPGROUP.DEPBAR")
    assert "no CTA barrier" in issue and issue.endswith("at gemm.py:37")
