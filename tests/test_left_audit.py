"""The four claims an earlier audit left open, and the roofline panel, worked again from the raw files (audit6).

Each expected value below is recomputed here from the sweep's own files (code.json, the kernel trace and agent
info CSVs, source/hotspot_output.txt, the campaigns' benchmark_results.jsonl and shape_ledger.jsonl), not by the
generator's code:

1. moe_blockscale's bound. Its capture (dispatch 668) launches a 256x40x1 grid of 256x1x1 workgroups: 40
   workgroups of 4 waves on the agent's 256 CUs, so 216 CUs hold none; 77.6 % of its stall cycles are VMEM types
   (hotspot_output.txt: VMEM-wait 41.3 %, VMEM-load 36.3 %, VMEM-store 0.0 %). No byte count of that dispatch is
   in the files, and the campaign's candidate rows are no kernel evidence (a graph replay that misses work: 25.7
   us replayed against a 66.7 us traced dispatch), so nothing shows a saturated bandwidth: stalls on memory with
   most CUs idle read latency. Before: "memory-bound (capture stalls: 78% in VMEM types)". moe_gemm's 320
   workgroups give every CU one (70 % VMEM): it stays memory-bound.
2. moe_gemm's early exits: code.json pc 12 is ``s_cbranch_vccnz 1566``, whose target is ``s_endpgm``; 24 sampled
   waves reach it and 16 the next instruction: the 8 early exits the wave files count. The finding now names it as
   pa's names pc 11 (56 reach it, 8 go on: its 48).
3. The API's geomeans: a kernel row's ``kernel_vs_any`` (pa 0.764 over its 10 kernel-clock shapes) and the score's
   ``geomean_vs_best`` (pa 0.493 over its 12 measured shapes), no longer one name for both.
4. The diagnosis reads which candidate rows are evidence from the roofline's decision (``no_bound_why``); on the
   shared sweep only moe_gemm's and moe_blockscale's split of the left-out shapes changes (7 and 2 above a roof
   are said so, not as a partial replay), and no printed word does.
5. The roofline panel: every point's AI, fraction of the roof, bound and no-bound reason of all 13 campaigns.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import in_slice

HBM_TBS = 8.0
PEAK = {"bf16": 2300.0, "fp8": 4600.0}
#: dtype -> the precision whose roof applies (DOMAIN §5; int8, fp4 and mixed run on the fp8 roof)
PRECISION = {"bf16": "bf16", "fp16": "bf16", "f16": "bf16", "fp8": "fp8", "fp8_e4m3": "fp8", "int8": "fp8",
             "fp4": "fp8", "mixed_a8w4": "fp8"}
#: dtypes checked against 95 % of their dense peak (VERDICTS rule 9)
COMPUTE_FLAGGED = {"bf16": 2300.0, "fp16": 2300.0, "fp8": 4600.0, "fp8_e4m3": 4600.0}
MEMORY = ("VMEM-wait", "VMEM-load", "VMEM-store")


# ---------------------------------------------------------------- raw-file readers

def trace_row(sweep: Path, kernel: str, dispatch: int) -> dict:
    """The kernel trace's row of one dispatch."""
    for path in sorted((sweep / "examples" / kernel / "compute_viewer").glob("*kernel_trace.csv")):
        for r in csv.DictReader(path.open()):
            if int(r["Dispatch_Id"]) == dispatch:
                return r
    raise AssertionError(f"{kernel}: no trace row {dispatch}")


def gpu_cus(sweep: Path, kernel: str) -> set[int]:
    """The GPU agents' CU counts of a bundle's agent info files."""
    return {int(r["Cu_Count"]) for path in (sweep / "examples" / kernel / "compute_viewer").glob("*agent_info.csv")
            for r in csv.DictReader(path.open()) if r["Agent_Type"] == "GPU"}


def workgroups(row: dict) -> tuple[int, int]:
    """(workgroups, waves per workgroup) of a trace row: ceil(grid / workgroup) per axis, 64-lane waves."""
    n, threads = 1, 1
    for axis in "XYZ":
        g, b = int(row[f"Grid_Size_{axis}"]), int(row[f"Workgroup_Size_{axis}"])
        n *= -(-g // b)
        threads *= b
    return n, -(-threads // 64)


def stall_shares(sweep: Path, kernel: str) -> dict[str, float]:
    """The reference analyzer's stall breakdown (percent by type) of source/hotspot_output.txt."""
    text = (sweep / "examples" / kernel / "source" / "hotspot_output.txt").read_text()
    block = text.split("Stall Breakdown by Type", 1)[1].split("Top-15", 1)[0]
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s+(\S+)\s+[\d.]+[KM]?\s+\[.*\]\s+([\d.]+)%", block, re.M)}


def code_rows(sweep: Path, kernel: str) -> list[list]:
    (path,) = (sweep / "examples" / kernel / "att_viewer").glob("*/ui_output_agent_*/code.json")
    return json.loads(path.read_text())["code"]


def endpgm_branches(code: list[list]) -> list[tuple[int, str, int, int]]:
    """(pc, asm, waves at it, waves at the next instruction) of each branch whose target is s_endpgm
    (code.json columns: ISA, _, LineNumber = pc, Source, Codeobj, Vaddr, Hit, ...; target = Vaddr + 4 + 4 x offset)."""
    by_addr = {r[5]: r for r in code if r[2] > 0}
    out = []
    for i, r in enumerate(code):
        m = re.match(r"s_cbranch_\w+ (-?\d+)$", r[0])
        target = by_addr.get(r[5] + 4 + 4 * int(m.group(1))) if m else None
        if target is not None and target[0].startswith("s_endpgm"):
            out.append((r[2], r[0], r[6], code[i + 1][6]))
    return out


def results(sweep: Path, op: str) -> tuple[list[dict], list[str]]:
    folder = sweep / "benchmarks" / "examples" / op
    rows = [json.loads(ln) for ln in (folder / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    ledger = [json.loads(ln)["shape_id"] for ln in (folder / "shape_ledger.jsonl").read_text().splitlines() if ln.strip()]
    return rows, ledger


def usable(r: dict) -> bool:
    return r.get("benchmark_status") == "ok" and (r.get("median_us") or 0) > 0 and r.get("correct") is not False


def timing_floor(sweep: Path) -> float:
    """VERDICTS rule 11: the lowest usable median of any row of the sweep's campaigns."""
    return min(r["median_us"] for f in (sweep / "benchmarks" / "examples").glob("*/benchmark_results.jsonl")
               for r in results(sweep, f.parent.name)[0] if usable(r))


def above_roof(r: dict) -> bool:
    peak = COMPUTE_FLAGGED.get(r["dtype"])
    return r["effective_gbps"] > 1.10 * HBM_TBS * 1000 or (peak is not None and r["effective_tflops"] > 0.95 * peak)


def no_bound_why(r: dict, floor_us: float, partial: str | None) -> str | None:
    """Why a placed row carries no bound, the first that holds: above a roof (rule 9), call clock (13), the
    candidate's on a partial replay (16), below 1.25 x the floor (11); None when it carries one."""
    return ("above_roof" if above_roof(r) else "call_clock" if r.get("timing_method") == "eager_event"
            else "partial_replay" if r["provider"] == partial else "at_floor" if r["median_us"] < 1.25 * floor_us
            else None)


def place(r: dict) -> tuple[float, float, str]:
    """(AI, fraction of the roof, bound) of a row: AI = TFLOP/s / GB/s x 1000, roof = min(peak, AI x 8.0)."""
    ai = r["effective_tflops"] * 1e12 / (r["effective_gbps"] * 1e9)
    peak = PEAK[PRECISION.get(r["dtype"], "bf16")]
    frac = r["effective_tflops"] / min(peak, ai * HBM_TBS)
    return ai, frac, "latency-bound" if frac < 0.25 else "memory-bound" if ai < peak / HBM_TBS else "compute-bound"


def chosen_rows(rows: list[dict], ledger: list[str]) -> dict[tuple[str, str], dict]:
    """The last usable row (else the last row) of each (ledger shape, provider) (VERDICTS rule 1)."""
    out = {}
    for key in dict.fromkeys((r["shape_id"], r["provider"]) for r in rows if r["shape_id"] in ledger):
        mine = [r for r in rows if (r["shape_id"], r["provider"]) == key]
        out[key] = ([r for r in mine if usable(r)] or mine)[-1]
    return out


def measured(chosen: dict, candidate: str = "flydsl") -> list[str]:
    """Shapes where the candidate and some baseline ran usable (rule 5)."""
    return [s for s in dict.fromkeys(s for s, _ in chosen) if (s, candidate) in chosen and usable(chosen[s, candidate])
            and any(usable(r) for (s2, p), r in chosen.items() if s2 == s and p != candidate)]


# ---------------------------------------------------------------- 1. moe_blockscale's bound

@pytest.mark.parametrize("slug, dispatch, grid, wgs, vmem, bound, said", [
    in_slice("examples/moe_blockscale", "moe_blockscale", 668, ("256", "40", "1"), 40, 77.6, "latency-bound",
             "latency-bound (capture stalls: 78% in VMEM types, with 40 workgroups for 256 CUs: 216 CUs idle), "),
    in_slice("examples/moe_gemm", "moe_gemm", 87, ("8192", "10", "1"), 320, 70.0, "memory-bound",
             "memory-bound (capture stalls: 70% in VMEM types), ")])
def test_vmem_stalls_with_idle_cus_read_latency_bound(sweep, kernel, slug, dispatch, grid, wgs, vmem, bound, said):
    row = trace_row(sweep, slug, dispatch)
    assert tuple(row[f"Grid_Size_{a}"] for a in "XYZ") == grid and workgroups(row) == (wgs, 4)
    assert gpu_cus(sweep, slug) == {256}
    shares = stall_shares(sweep, slug)
    assert sum(shares[t] for t in MEMORY if t in shares) == pytest.approx(vmem, abs=0.05)
    k, r = kernel(slug)
    assert k.score.graph_partial  # rule 16: no candidate row is kernel evidence, the capture names the bound
    d = r.diagnosis
    assert (d["bound"], d["bound_source"], d["roof_fraction"]) == (bound, "capture stalls", None)
    assert d["text"].startswith(said)
    if wgs < 256:
        assert "216 个计算单元空闲" in d["zh"] and d["zh"].startswith("延迟受限")


@pytest.mark.full_sweep
def test_no_other_kernel_reads_its_bound_from_a_capture_with_idle_cus(sweep, kernel):
    """Of the 10 primary captures, only moe_blockscale's (40) and hgemm_splitk's (84: 1536/256 x 14) grids give
    fewer workgroups than CUs; hgemm_splitk's bound is the roofline's (27 of 28 shapes), so its words keep."""
    k, r = kernel("hgemm_splitk")
    assert workgroups(trace_row(sweep, "hgemm_splitk", 319)) == (84, 4)
    assert r.diagnosis["bound_source"] == "roofline" and r.diagnosis["text"].startswith("latency-bound (27 of 28 shapes")
    k, r = kernel("pa_mqa_logits_fp4")  # 41 % VMEM: below the 50 % of the rule either way
    assert r.diagnosis["text"].startswith("latency-bound (capture stalls: 41% in VMEM types), ")


# ---------------------------------------------------------------- 2. the early exit's branch

@pytest.mark.parametrize("slug, pc, asm, reach, on", [
    in_slice("examples/moe_gemm", "moe_gemm", 12, "s_cbranch_vccnz 1566", 24, 16),
    in_slice("examples/pa", "pa", 11, "s_cbranch_vccnz 1445", 56, 8)])
def test_the_early_exit_finding_names_its_branch(sweep, kernel, slug, pc, asm, reach, on):
    branches = endpgm_branches(code_rows(sweep, slug))
    assert (pc, asm, reach, on) in branches
    k, _ = kernel(slug)
    (f,) = [f for f in k.primary.findings if f["detector"] == "early_exit_waves"]
    ev = f["evidence"]
    assert (ev["waves_sampled"], ev["waves_exiting"]) == (reach, reach - on)  # the wave files' count, the branch's
    assert ev["branch_pc"] == pc and ev["summary"].endswith(f"; they branch at pc {pc} to s_endpgm")


# ---------------------------------------------------------------- 3. one name, one number

def vs_any(rows: list[dict], ledger: list[str], candidate: str = "flydsl") -> tuple[float, int]:
    """Best baseline / candidate over the measured shapes where both rows are graph-replayed and below every roof."""
    ch = chosen_rows(rows, ledger)
    logs = []
    for s in measured(ch, candidate):
        c = ch[s, candidate]
        b = min((r for (s2, p), r in ch.items() if s2 == s and p != candidate and usable(r)), key=lambda r: r["median_us"])
        if "eager_event" not in (c.get("timing_method"), b.get("timing_method")) and not above_roof(c) and not above_roof(b):
            logs.append(math.log(b["median_us"] / c["median_us"]))
    return math.exp(sum(logs) / len(logs)), len(logs)


def best_of_all(rows: list[dict], ledger: list[str], candidate: str = "flydsl") -> tuple[float, int]:
    """VERDICTS' per-kernel geomean_vs_best: over every measured shape, against its fastest usable baseline."""
    ch = chosen_rows(rows, ledger)
    logs = [math.log(min(r["median_us"] for (s2, p), r in ch.items() if s2 == s and p != candidate and usable(r))
                     / ch[s, candidate]["median_us"]) for s in measured(ch, candidate)]
    return math.exp(sum(logs) / len(logs)), len(logs)


@pytest.mark.parametrize("slug, op", [in_slice("benchmarks/examples/pa_decode", "pa", "pa_decode")])
def test_each_geomean_field_means_one_thing(sweep, kernel, slug, op):
    from generator.site import api

    rows, ledger = results(sweep, op)
    g_row, n_row = vs_any(rows, ledger)
    g_all, n_all = best_of_all(rows, ledger)
    assert (round(g_row, 3), n_row, round(g_all, 3), n_all) == (0.764, 10, 0.493, 12)
    assert json.loads((sweep / "expected" / "verdicts.json").read_text())[op]["geomean_vs_best"] == pytest.approx(g_all)
    k, r = kernel(slug)
    doc = api.kernel_doc(k, r)
    assert doc["format_version"] == 3
    assert doc["kernel"]["kernel_vs_any"] == pytest.approx(g_row) and doc["kernel"]["kernel_shapes"] == n_row
    assert "geomean_vs_best" not in doc["kernel"]
    assert doc["score"]["geomean_vs_best"] == pytest.approx(g_all) == doc["state"]["geomean_vs_best"]
    assert doc["score"]["kernel_vs_any"] == [pytest.approx(g_row), n_row]


def test_a_snapshot_reads_the_row_geomean_of_every_api_format():
    from generator.sweeps.snapshot_sources import kernel_from_api

    for row in ({"slug": "x", "kernel_vs_any": 0.764}, {"slug": "x", "geomean_vs_best": 0.764}):
        assert kernel_from_api(row, {"score": {"geomean_vs_best": 0.493}}, "x").kernel_vs_any == 0.764
    assert kernel_from_api({"slug": "x", "kernel_vs_any": None}, {"score": {"geomean_vs_best": 0.493}},
                           "x").kernel_vs_any is None  # a partial replay: no "vs any", not the score's


# ---------------------------------------------------------------- 4 and 5. the roofline decides, the panel shows it

#: slug -> campaign, each with a roofline; the candidate's graph replay misses work in moe_gemm and moe_blockscale
CAMPAIGNS = {"flash_attn_func": "flash_attn", "fp8_gemm_rowscale": "fp8_gemm_rowscale",
             "fused_rope_cache": "fused_rope_cache", "hgemm_splitk": "gemm", "layernorm": "layernorm",
             "moe_blockscale": "moe_blockscale", "moe_gemm": "moe_gemm", "pa": "pa_decode",
             "preshuffle_gemm": "preshuffle_gemm", "quant": "quant", "rmsnorm": "rmsnorm", "softmax": "softmax",
             "vec_add": "vec_add"}
PARTIAL = {"moe_gemm", "moe_blockscale"}


@pytest.mark.parametrize("slug, op", [in_slice(f"benchmarks/examples/{o}", s, o) for s, o in CAMPAIGNS.items()])
def test_every_roofline_point_recomputed(sweep, kernel, slug, op):
    floor_us = timing_floor(sweep)
    rows, _ = results(sweep, op)
    placed = [r for r in rows if r.get("benchmark_status") == "ok" and r.get("effective_tflops") and r.get("effective_gbps")]
    k, _ = kernel(slug)
    pts = k.roofline["points"]
    assert [(p["shape_id"], p["provider"]) for p in pts] == [(r["shape_id"], r["provider"]) for r in placed]
    partial = "flydsl" if slug in PARTIAL else None
    bounds, left = Counter(), Counter()
    for p, r in zip(pts, placed):
        ai, frac, bound = place(r)
        why = no_bound_why(r, floor_us, partial)
        assert (p["ai"], p["fraction_of_roof"], p["bound"], p["no_bound_why"]) == \
            (pytest.approx(ai, rel=1e-12), pytest.approx(frac, rel=1e-12), bound, why), (r["args"], r["provider"])
        if why:
            left[why] += 1
        else:
            bounds[bound] += 1
    assert {b: n for b, n in k.roofline["counts"].items() if n} == dict(bounds)
    assert {w: n for w, n in k.roofline["left_out"].items() if n} == dict(left)
    ridges = k.roofline["ridges"]
    assert ridges == {"bf16": 2300.0 / 8.0, "fp8": 4600.0 / 8.0} == {"bf16": 287.5, "fp8": 575.0}
    # the chart: one marker per point at (AI, TFLOP/s), a roof per precision used: AI x 8.0 up to its peak
    from generator.site import charts

    fig = charts.roofline(k.roofline)
    marks = [t for t in fig["data"] if t["mode"] == "markers"]
    drawn = sorted((x, y) for t in marks for x, y in zip(t["x"], t["y"]))
    assert drawn == sorted((place(r)[0], r["effective_tflops"]) for r in placed)
    roofs = [t for t in fig["data"] if t["mode"] == "lines"]
    used = sorted({PRECISION.get(r["dtype"], "bf16") for r in placed})
    assert [t["y"][1] for t in roofs] == [PEAK[q] for q in used] and all(
        t["x"][1] == PEAK[q] / 8.0 and t["y"][0] == pytest.approx(t["x"][0] * 8.0) for t, q in zip(roofs, used))


def test_a_call_clock_campaign_carries_no_bound():
    """VERDICTS rule 13: a campaign timed on the call clock only (its score's clock "call") marks every point so,
    and the diagnosis, which reads the roofline's decision, takes none of them as evidence."""
    from generator.analyze import device_peaks, roofline

    peaks = device_peaks.load_peaks()
    dev = device_peaks.select_device(peaks, device="MI350X")
    row = {"shape_id": "s", "provider": "flydsl", "dtype": "bf16", "median_us": 100.0, "effective_tflops": 1.0,
           "effective_gbps": 4000.0, "benchmark_status": "ok", "timing_method": "cudagraph"}
    r = roofline.build_roofline([row], dev, peaks)
    assert r.to_json()["points"][0]["no_bound_why"] is None and r.counts()["memory-bound"] == 1  # 4.0 of 8.0 TB/s
    r.mark_call_clock()
    assert r.to_json()["points"][0]["no_bound_why"] == "call_clock" and sum(r.counts().values()) == 0


@pytest.mark.parametrize("slug, op", [in_slice(f"benchmarks/examples/{o}", s, o) for s, o in CAMPAIGNS.items()])
def test_the_diagnosis_reads_the_roofline_decision(sweep, kernel, slug, op):
    """The candidate's measured shapes: evidence, or left out for the roofline's reason. Before, the diagnosis
    applied its own order (a partial replay first): moe_gemm {partial_replay: 9}, moe_blockscale {partial_replay: 4};
    now {above_roof: 7, partial_replay: 2} and {above_roof: 2, partial_replay: 2}, as the panel's column says."""
    from generator.site.views import diagnosis

    floor_us = timing_floor(sweep)
    rows, ledger = results(sweep, op)
    ch = chosen_rows(rows, ledger)
    partial = "flydsl" if slug in PARTIAL else None
    whys = Counter(no_bound_why(ch[s, "flydsl"], floor_us, partial) or "ok" for s in measured(ch))
    k, r = kernel(slug)
    ok, left = diagnosis.evidence(k)
    assert Counter({"ok": len(ok), **left}) + Counter() == whys  # (+ drops the zero counts)
    if slug == "moe_gemm":
        assert whys == Counter(above_roof=7, partial_replay=2)
    if slug == "moe_blockscale":
        assert whys == Counter(above_roof=2, partial_replay=2)
    if slug in PARTIAL and k.primary is not None:  # no reading from the roofline, none of its left-out counts printed
        assert r.diagnosis["bound_source"] == "capture stalls" and "left out" not in r.diagnosis["text"]
