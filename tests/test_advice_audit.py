"""The advice audit: claims the raw files contradicted, recomputed here from the files themselves.

Every expected number below is read in this file from the capture's ``code.json`` rows
(``[asm, _, pc_index, source, codeobj, vaddr, hit, latency, stall, idle]``), the kernel trace CSV and
``expected/occupancy.json``, with the arithmetic written out; the generator's findings must agree.

* s_nop padding names the instruction whose result the padded one reads: pa's ``s_nop 5`` at pc 927
  sits after ``v_fma_f32 v59`` (pc 926) but pads ``v_accvgpr_read_b32 v14, a2`` (pc 928), which reads
  the ``a[0:3]`` the ``v_mfma_f32_16x16x32_fp8_fp8`` at pc 924 writes.
* VMEM loads interleaved with MFMA: "N waits in the same loop" counts only waits inside the loop
  (moe_gemm: 11 of the 16 waits on its loads sit in pc 239-470; 476-526 are the epilogue).
* Back-to-back runs: the runs hold every load; the rate and widths are of the loads that stall
  (pa: runs 202-206, 298-312, 325-329 hold 4 + 6 + 4 = 14 loads, 12 of them stall).
* The DMA-to-LDS drain: each vmcnt(0) waits for a DMA load issued a few instructions before it
  (flash_attn_func 1-9, hgemm_splitk 3-17); nothing in the ISA shows a tile "not needed yet".
* Exposed-latency advice and the why-not-winning limiter: the waves that run are the fewer of the
  resource cap and what the grid gives the busiest CU (fused_rope_cache 1 of 8, layernorm 1 of 7,
  rmsnorm 4 of 8, pa_mqa_logits_fp4 2 of 5; quant and vec_add really run 8).
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest

from conftest import one_finding as finding, primary_findings as plan

FULL = pytest.mark.full_sweep
CUS, SIMDS = 256, 4  # MI350X (DOMAIN §5): 256 CUs of 4 SIMDs


def rows_of(sweep: Path, kernel: str, capture: str) -> list[dict]:
    """code.json rows of one capture, by name."""
    (folder,) = (sweep / "examples" / kernel / "att_viewer").glob(f"*/{capture}")
    raw = json.loads((folder / "code.json").read_text())["code"]
    return [{"asm": r[0], "pc": r[2], "hit": r[6], "lat": r[7], "stall": r[8]} for r in raw]


def by_pc(rows: list[dict]) -> dict[int, dict]:
    return {r["pc"]: r for r in rows}


def said(f, part):
    """(key, parameters) of a finding's message ``part`` ("summary", "suggestion")."""
    key, params = f["i18n"][part]
    return key, params


# ---------------------------------------------------------------- s_nop: the pair it pads

def test_pa_snop_pads_the_mfma_result_read_not_the_fma(kernel, sweep):
    found, cap = plan(kernel, "pa")
    row = by_pc(rows_of(sweep, "pa", cap))
    assert row[927]["asm"].strip() == "s_nop 5" and row[927]["stall"] == 192
    assert row[926]["asm"].startswith("v_fma_f32 v59,")  # writes v59, which pc 928 does not read
    assert row[928]["asm"].startswith("v_accvgpr_read_b32 v14, a2")
    assert row[924]["asm"].startswith("v_mfma_f32_16x16x32_fp8_fp8 a[0:3],")  # writes a0..a3: a2
    padded = finding(found, "snop_hazard")["evidence"]["padded"]
    assert {"before": "v_mfma_f32_16x16x32_fp8_fp8", "after": "v_accvgpr_read_b32", "s_nops": 1,
            "stall_cycles": 192} in padded
    assert all(d["before"] != "v_fma_f32" for d in padded)
    # the top pair is unchanged: each v_mov_b32_e32 writes the register the v_mov_b32_dpp after it reads
    assert padded[0] == {"before": "v_mov_b32_e32", "after": "v_mov_b32_dpp", "s_nops": 4,
                         "stall_cycles": 4 * 64}  # pc 227, 233, 239, 243: s_nop 1, 64 cycles each


def test_flash_attn_snop_pairs_stay_the_vcc_pairs(kernel, sweep):
    found, cap = plan(kernel, "flash_attn_func")
    rows = rows_of(sweep, "flash_attn_func", cap)
    nops = [r for r in rows if r["asm"].startswith("s_nop") and r["stall"]]
    assert len(nops) == 185  # of 186 s_nop rows, one never stalls
    top = finding(found, "snop_hazard")["evidence"]["padded"][:2]
    assert [(d["before"], d["after"], d["s_nops"]) for d in top] == [
        ("v_cmp_gt_f32_e32", "v_cndmask_b32_e32", 35), ("v_cmp_gt_f32_e64", "v_cndmask_b32_e64", 31)]


# ---------------------------------------------------------------- loads interleaved with MFMA

@FULL
def test_moe_gemm_counts_only_the_waits_inside_the_loop(kernel, sweep):
    found, cap = plan(kernel, "moe_gemm")
    rows = rows_of(sweep, "moe_gemm", cap)
    row = by_pc(rows)
    assert row[470]["asm"] == "s_cbranch_scc1 65109"  # the loop's back edge (a negative 16-bit offset)
    total = sum(r["stall"] for r in rows)
    assert total == 2024908
    inside = [242, 245, 260, 274, 277, 309, 328, 330, 363, 367, 369]
    after = [476, 481, 507, 523, 526]  # vmcnt waits on the loop's last loads, in the epilogue
    assert all(row[p]["asm"].startswith("s_waitcnt vmcnt(") for p in inside + after)
    f = finding(found, "loads_interleaved_with_mfma")
    assert f["evidence"]["wait_pcs"] == inside
    loads = [p for p in f["evidence"]["premise_pcs"]]
    assert len(loads) == 34 and all(239 < p < 470 for p in loads)
    share = (sum(row[p]["stall"] for p in loads) + sum(row[p]["stall"] for p in inside)) / total
    assert round(100 * share, 1) == 61.3 and f["stall_share"] == pytest.approx(share)
    assert sum(row[p]["stall"] for p in after) == 8468 + 14952 + 120 + 64 + 724  # 1.2 % no longer claimed
    assert said(f, "summary")[1]["waits"] == 11


# ---------------------------------------------------------------- back-to-back runs

def test_pa_back_to_back_runs_hold_14_loads_12_stall(kernel, sweep):
    found, cap = plan(kernel, "pa")
    row = by_pc(rows_of(sweep, "pa", cap))
    runs = {(202, 206): [202, 204, 205, 206], (298, 312): [298, 299, 304, 305, 310, 312],
            (325, 329): [325, 326, 328, 329]}
    loads = [p for r in runs.values() for p in r]
    assert all(re.match(r"(buffer|global)_load_", row[p]["asm"]) for p in loads)
    stalled = [p for p in loads if row[p]["stall"]]
    assert (len(loads), len(stalled)) == (14, 12)  # pc 205 and 206 never stall
    f = finding(found, "back_to_back_loads")
    assert [(r["first_pc"], r["last_pc"], r["loads"]) for r in f["evidence"]["runs"]] == \
        [(a_, b_, len(v)) for (a_, b_), v in runs.items()]
    kw = said(f, "summary")[1]
    assert (kw["total"], kw["n"]) == (14, 12)
    assert f["evidence"]["summary"].startswith(
        "3 runs of back-to-back loads (14 loads, longest 6 at pc 298-312); the 12 that stall")


# ---------------------------------------------------------------- the DMA-to-LDS drain

def _drain_gaps(rows: list[dict], waits: list[int]) -> list[int]:
    """Instructions from each vmcnt(0) back to the youngest buffer_load...lds before it (straight line)."""
    pos = {r["pc"]: i for i, r in enumerate(rows)}
    out = []
    for w in waits:
        i = pos[w] - 1
        while not (rows[i]["asm"].startswith("buffer_load") and rows[i]["asm"].rstrip().endswith(" lds")):
            i -= 1
        out.append(pos[w] - i)
    return out


def test_flash_attn_drain_waits_for_loads_issued_1_to_9_before(kernel, sweep):
    found, cap = plan(kernel, "flash_attn_func")
    rows = rows_of(sweep, "flash_attn_func", cap)
    f = finding(found, "lds_dma_drain")
    assert f["evidence"]["wait_pcs"] == [973, 1011, 1709, 1742]
    assert _drain_gaps(rows, f["evidence"]["wait_pcs"]) == [1, 9, 1, 9]  # after pc 972, 1002, 1708, 1733
    assert said(f, "suggestion")[1] == {"gaps": "1-9"}
    assert "not needed yet" not in f["suggestion"] and "issued 1-9 instructions before it" in f["suggestion"]


def test_hgemm_drain_waits_for_loads_issued_3_to_17_before(kernel, sweep):
    found, cap = plan(kernel, "hgemm_splitk")
    rows = rows_of(sweep, "hgemm_splitk", cap)
    f = finding(found, "lds_dma_drain")
    assert f["evidence"]["wait_pcs"] == [209, 330]
    assert _drain_gaps(rows, [209, 330]) == [17, 3]  # after pc 192 and 327
    assert said(f, "suggestion")[1] == {"size": "2 x 48 KiB", "gaps": "3-17"}
    assert "the next stage's tile included" not in f["suggestion"]


# ---------------------------------------------------------------- the waves that run

def grid_waves(sweep: Path, kernel: str, capture: str) -> int:
    """Waves per SIMD the traced dispatch gives its busiest CU: ceil(ceil(WGs / CUs) x waves per WG / SIMDs)."""
    dispatch = int(re.search(r"dispatch_(\d+)", capture).group(1))
    trace = sweep / "examples" / kernel / "compute_viewer" / "discover_kernel_trace.csv"
    (r,) = [r for r in csv.DictReader(trace.open()) if int(r["Dispatch_Id"]) == dispatch]
    grid = [int(r[f"Grid_Size_{d}"]) for d in "XYZ"]
    wg = [int(r[f"Workgroup_Size_{d}"]) for d in "XYZ"]
    wgs = math.prod(g // w for g, w in zip(grid, wg))
    return math.ceil(math.ceil(wgs / CUS) * math.ceil(math.prod(wg) / 64) / SIMDS)


def cap_waves(sweep: Path, kernel: str, capture: str) -> int:
    occ = json.loads((sweep / "expected" / "occupancy.json").read_text())
    (v,) = [v for k, v in occ.items() if k.startswith(f"examples/{kernel}/") and k.endswith(capture)]
    return v["waves"]


GRID_BOUND = [("fused_rope_cache", 1, 8), pytest.param("layernorm", 1, 7, marks=FULL),
              pytest.param("rmsnorm", 4, 8, marks=FULL), pytest.param("pa_mqa_logits_fp4", 2, 5, marks=FULL)]


@pytest.mark.parametrize("slug, grid, cap", GRID_BOUND)
def test_latency_advice_reads_the_waves_the_grid_gives(kernel, sweep, slug, grid, cap):
    """fused_rope_cache: 256 workgroups of 64 lanes (1 wave) on 256 CUs: 1 per CU, 1 per SIMD at most;
    layernorm 256 x 4 waves: 1; rmsnorm 1024 x 4 waves: 4 per CU's SIMD; pa_mqa_logits_fp4 507 x 4: 2."""
    found, name = plan(kernel, slug)
    assert (grid_waves(sweep, slug, name), cap_waves(sweep, slug, name)) == (grid, cap)
    f = finding(found, "vmem_latency_exposed")
    assert waves_said(f) == ("finding.vmem_latency_exposed.waves.grid", {"waves": grid, "cap": cap, "max": 8})
    assert "already runs the hardware maximum" not in f["suggestion"]
    assert f"(now {cap} of the hardware's" not in f["suggestion"]


@pytest.mark.parametrize("slug, grid", [("vec_add", 40), pytest.param("quant", 16, marks=FULL)])
def test_at_the_maximum_when_the_grid_asks_more(kernel, sweep, slug, grid):
    """vec_add 10000 workgroups x 4 waves: 40 per SIMD asked; quant 4096 x 4: 16; both capped at 8."""
    found, name = plan(kernel, slug)
    assert (grid_waves(sweep, slug, name), cap_waves(sweep, slug, name)) == (grid, 8)
    assert waves_said(finding(found, "vmem_latency_exposed"))[0] == "finding.vmem_latency_exposed.waves.at_max"


def waves_said(f: dict) -> tuple[str, dict]:
    """The occupancy sentence of an exposed-latency suggestion: its own message in loop-free code (audit12: the
    suggestion is then ``try.parts``, a head and this tail), else the whole suggestion (``try.grid``, ...)."""
    key, params = said(f, "suggestion")
    if key == "finding.vmem_latency_exposed.try.parts":
        key, params = params["tail"]
    return key.replace(".try.", ".waves."), params


def test_pa_runs_its_vgpr_cap(kernel, sweep):
    """pa: 1024 workgroups x 4 waves: 4 per SIMD asked, the VGPRs allow 2: 2 run, more would help."""
    found, cap = plan(kernel, "pa")
    assert (grid_waves(sweep, "pa", cap), cap_waves(sweep, "pa", cap)) == (4, 2)
    f = finding(found, "vmem_latency_exposed")
    # rank13: pa's waits sit in loops each working wave runs once, so the suggestion is the loop-free one and
    # the waves reading is a sentence of its own
    assert f["suggestion"].endswith("More resident waves also hide it (now 2 of the hardware's 8 per SIMD).")


@FULL
def test_rmsnorm_why_not_winning_names_the_waves_that_run(kernel, sweep):
    found, cap = plan(kernel, "rmsnorm")
    assert grid_waves(sweep, "rmsnorm", cap) == 4
    text = kernel("rmsnorm")[0].why_not["text"]
    assert text.startswith("Limiter: stall cycles at 4 waves/SIMD, the largest share VMEM-wait (41%).")


# ---------------------------------------------------------------- the sweep reading's "profile" group

@FULL
def test_the_profile_group_does_not_claim_rmsnorm_was_not_profiled_where_it_loses(sweep):
    """rmsnorm's capture runs 262144 / 256 = 1024 workgroups, one per row: M=1024. Every M=1024 shape of its
    ledger is a decode or prefill shape, the side where it loses ("stage is not synthetic"); its N is not in
    the capture. So nothing shows it was not profiled there: the group says "no capture shown there"."""
    from generator.analyze.advice.sweep import PROFILE, _unread
    from generator.site import wording

    trace = sweep / "examples" / "rmsnorm" / "compute_viewer" / "discover_kernel_trace.csv"
    (r,) = [r for r in csv.DictReader(trace.open()) if r["Dispatch_Id"] == "18"]
    assert int(r["Grid_Size_X"]) // int(r["Workgroup_Size_X"]) == 1024
    ledger = sweep / "benchmarks" / "examples" / "rmsnorm" / "shape_ledger.jsonl"
    stages = {json.loads(x)["stage"] for x in ledger.open() if json.loads(x)["args"].get("M") == 1024}
    assert stages == {"decode", "prefill"}
    g = _unread(PROFILE, ["rmsnorm"], {"rmsnorm": (None, "HEADROOM", 0.814)}, {"rmsnorm": 0.2}, 1.0)
    assert g.title == "Where it loses, no capture shown there"
    assert "not profiled" not in wording.plain("en", g.messages["title"])


# ---------------------------------------------------------------- back-to-back: "this tile's MFMAs"

def _back_edges(rows_raw: list[list]) -> list[tuple[int, int]]:
    """(target pc, branch pc) of each backward branch: target = vaddr + 4 + 4 x signed 16-bit offset."""
    pc_at = {r[5]: r[2] for r in rows_raw}
    out = []
    for r in rows_raw:
        parts = r[0].split()
        if len(parts) == 2 and "branch" in parts[0] and parts[1].isdigit():
            off = int(parts[1]) - (65536 if int(parts[1]) >= 32768 else 0)
            if off < 0:
                out.append((pc_at[r[5] + 4 + 4 * off], r[2]))
    return out


@pytest.mark.parametrize("slug, key", [pytest.param("moe_gemm", "finding.back_to_back_loads.try", marks=FULL),
                                       pytest.param("preshuffle_gemm", "finding.back_to_back_loads.try", marks=FULL),
                                       ("pa", "finding.back_to_back_loads.try")])
def test_double_buffering_advice_only_for_runs_inside_an_mfma_loop(kernel, sweep, slug, key):
    """moe_gemm's runs (142-157, 545-550, 573-578) and preshuffle_gemm's (64-71, 447-452) sit outside their
    only loops (239-470, 206-346): no MFMA to prefetch under. pa's (202-329) sit in its outer loop 141-935,
    which each working wave runs once (rank13: exec 8 at pc 141 for 8 at pc 285 and 56 at pc 936): no next tile."""
    found, cap = plan(kernel, slug)
    (folder,) = (sweep / "examples" / slug / "att_viewer").glob(f"*/{cap}")
    raw = json.loads((folder / "code.json").read_text())["code"]
    mfma = {r[2] for r in raw if r[0].startswith("v_mfma")}
    hit = {r[2]: r[6] for r in raw}
    loops = [(a, b) for a, b in _back_edges(raw) if any(a <= p <= b for p in mfma)
             and not 0 < hit[a] <= hit.get(b + 1, 0)]  # a loop each wave runs once has no next tile
    f = finding(found, "back_to_back_loads")
    inside = any(a <= r["first_pc"] <= b for r in f["evidence"]["runs"] for a, b in loops)
    assert inside == (key.endswith(".mfma"))
    assert said(f, "suggestion")[0] == key
