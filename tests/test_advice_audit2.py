"""The second advice audit: each claim recomputed here from the raw files, not by the generator's code.

Raw files: a capture's ``code.json`` rows (``[asm, _, pc_index, source, codeobj, vaddr, hit, latency, stall,
idle]``), its wave files, the bundle's kernel trace and agent info CSVs, ``expected/occupancy.json`` and the
campaign's ``benchmark_results.csv``. Fixed here:

* a catch-all line that is not the kernel's entry (moe_blockscale's line 196: 422 of 885 instructions, the
  first instruction is line 214) is no longer said to be "attributed to the kernel's entry": the flag says
  what code.json shows, the count and the opcodes its stall sits on (s_barrier 59.5 %);
* "LDS reads consumed at once": the MFMA sits right after the wait, but moe_gemm's reads were issued 2-73
  instructions before it: the title now says the former;
* the scalar-load advice no longer claims "too little work" (no reading shows it);
* a thin grid is advice only where a tenth of the SIMDs or more get one wave (pa_mqa_logits_fp4: 20 of 1,024);
* the VGPR advice no longer offers AGPRs (one 512-register pool on gfx950);
* softmax, at 8 of 8 resident waves per SIMD, is no longer told "more resident threads";
* the launcher's summary counts the fastest baseline at each launch shape (softmax: triton 33, pytorch 17);
* the framework-line flag calls the lines it names "the nearest kernel lines", not "the call site";
* the early-exit title says "sampled waves".
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from conftest import one_finding as finding, primary_findings as plan

FULL = pytest.mark.full_sweep
CUS, SIMDS = 256, 4  # MI350X (DOMAIN §5)
HBM_PEAK_TBS = 8.0  # MI350X (DOMAIN §5)


def capture_dir(sweep: Path, kernel: str, capture: str) -> Path:
    (folder,) = (sweep / "examples" / kernel / "att_viewer").glob(f"*/{capture}")
    return folder


def instructions(sweep: Path, kernel: str, capture: str) -> list[dict]:
    """code.json rows that are instructions (pc_index > 0)."""
    raw = json.loads((capture_dir(sweep, kernel, capture) / "code.json").read_text())["code"]
    return [{"asm": r[0], "pc": r[2], "src": r[3], "stall": r[8]} for r in raw if r[2] > 0]


def op(asm: str) -> str:
    return asm.split()[0]


def vregs(text: str) -> set[int]:
    out: set[int] = set()
    for m in re.finditer(r"\bv\[(\d+):(\d+)\]|\bv(\d+)\b", text):
        out |= set(range(int(m.group(1)), int(m.group(2)) + 1)) if m.group(1) else {int(m.group(3))}
    return out


def trace_row(sweep: Path, kernel: str, dispatch: str) -> dict:
    with open(sweep / "examples" / kernel / "compute_viewer" / "discover_kernel_trace.csv") as fh:
        return next(r for r in csv.DictReader(fh) if r["Dispatch_Id"] == dispatch)


def waves_of(row: dict) -> int:
    wgs = 1
    for ax in "XYZ":
        wgs *= int(row[f"Grid_Size_{ax}"]) // int(row[f"Workgroup_Size_{ax}"])
    per_wg = -(-int(row["Workgroup_Size_X"]) * int(row["Workgroup_Size_Y"]) * int(row["Workgroup_Size_Z"]) // 64)
    return wgs * per_wg


# ---------------------------------------------------------------- 1a: the catch-all line

def catch_all(ins: list[dict]) -> tuple[str, int, list[str]]:
    """(the line most instructions map to, how many, its top three stalled opcodes with their share)."""
    loc, n = Counter(i["src"] for i in ins).most_common(1)[0]
    stall: Counter = Counter()
    for i in ins:
        if i["src"] == loc:
            stall[op(i["asm"])] += i["stall"]
    total = sum(stall.values())
    return loc, n, [f"{o} {100 * c / total:.1f}%" for o, c in stall.most_common(3)]


@FULL
def test_moe_blockscale_catch_all_line_is_read_as_what_code_json_shows(kernel, sweep):
    found, cap = plan(kernel, "moe_blockscale")
    ins = instructions(sweep, "moe_blockscale", cap)
    loc, n, ops = catch_all(ins)
    assert loc.endswith("moe_blockscale_2stage.py:196") and (n, len(ins)) == (422, 885)
    assert ins[0]["src"].endswith("moe_blockscale_2stage.py:214")  # the first instruction is another line
    assert ops == ["s_barrier 59.5%", "s_waitcnt 20.0%", "v_fma_f32 7.1%"]  # 54,216 + 18,204 + 6,464 of 91,056
    f = finding(found, "decorator_line")
    assert f["title"] == "Line moe_blockscale_2stage.py:196 holds 422 of 885 instructions: a catch-all, not one operation"
    assert "entry" not in f["title"] + f["suggestion"]
    assert "the compiler maps 422 of the 885 instructions to it, and its stalls sit on " + ", ".join(ops) in f["suggestion"]


def test_flash_attn_func_catch_all_line_is_not_called_the_entry(kernel, sweep):
    found, cap = plan(kernel, "flash_attn_func")
    ins = instructions(sweep, "flash_attn_func", cap)
    loc, n, ops = catch_all(ins)
    assert ins[0]["src"] != loc and ins[0]["src"].endswith("numeric.py:872")
    f = finding(found, "decorator_line")
    assert f["title"].startswith(f"Line {loc.rsplit('/', 1)[1]} holds {n} of {len(ins)} instructions")
    assert "kernel's entry" not in f["suggestion"] and ", ".join(ops) in f["suggestion"]


@FULL
def test_an_entry_line_keeps_the_entry_reading(kernel, sweep):
    found, cap = plan(kernel, "moe_gemm")
    ins = instructions(sweep, "moe_gemm", cap)
    loc, _, _ = catch_all(ins)
    assert ins[0]["src"] == loc  # moe_gemm_2stage.py:280 holds the first instruction
    f = finding(found, "decorator_line")
    assert f["title"].startswith("Entry/decorator line") and "to the kernel's entry" in f["suggestion"]


# ---------------------------------------------------------------- 1b: scalar-load waits

@pytest.mark.parametrize("slug", ["pa", "fused_rope_cache", "vec_add", "hgemm_splitk"])
def test_scalar_load_advice_claims_no_amount_of_work(kernel, sweep, slug):
    """Every s_load the waits drain reads the kernel-argument segment (base s[0:1]); nothing in the files
    measures how much work a wave has, so the advice says only what to do with the loads."""
    found, cap = plan(kernel, slug)
    f = finding(found, "scalar_load_waits")
    rows = {i["pc"]: i for i in instructions(sweep, slug, cap)}
    assert all(re.match(r"s_load_dword\S* s[\[\d][^,]*, s\[0:1\],", rows[p]["asm"])
               for p in f["evidence"]["scalar_load_pcs"])
    assert f["suggestion"].startswith(SCALAR_STEP[slug])


#: audit12: where a later wait drains s_loads issued after the first wait off the same registers (s[0:1]), the
#: suggestion names them (pa: pc 40-51 after the wait at pc 6 on the load at pc 1), else the general one.
SCALAR_STEP = {
    "pa": "Issue the 12 s_loads at pc 40-51 before the wait at pc 6, with the ones it waits on",
    "fused_rope_cache": "Issue the 19 s_loads at pc 15, 37, 38, 39, 40, 53 (+13 more) before the wait at pc 10,",
    "hgemm_splitk": "Issue the 3 s_loads at pc 67, 105, 431 before the wait at pc 26,",
    "vec_add": "Issue all s_loads together before the first wait (or preload kernel arguments into SGPRs).",
}


# ---------------------------------------------------------------- 1c: LDS read -> MFMA

def read_to_mfma(ins: list[dict], wait_pc: int) -> tuple[int, int] | None:
    """(the MFMA within 5 instructions after the wait, instructions from the nearest earlier ds_read that
    writes one of its source VGPRs to it), straight-line; None where no such read precedes it."""
    at = next(k for k, i in enumerate(ins) if i["pc"] == wait_pc)
    for j in range(at + 1, at + 6):
        if op(ins[j]["asm"]).startswith("v_mfma"):
            srcs = set().union(*(vregs(x) for x in ins[j]["asm"].split(None, 1)[1].split(",")[1:]))
            for q in range(at - 1, -1, -1):
                if op(ins[q]["asm"]).startswith("ds_read") and vregs(ins[q]["asm"].split(None, 1)[1].split(",")[0]) & srcs:
                    return ins[j]["pc"], j - q
            return None
    return None


@FULL
def test_moe_gemm_lds_reads_are_not_consumed_at_once(kernel, sweep):
    """The MFMA sits right after each wait (the detector's window), but the reads it waits for were issued up to
    73 instructions before it (the wait at pc 685: MFMA at 686, ds_read at 613); the words say the former."""
    found, cap = plan(kernel, "moe_gemm")
    ins = instructions(sweep, "moe_gemm", cap)
    f = finding(found, "lds_read_into_mfma")
    pcs = f["evidence"]["premise_pcs"]
    gaps = {p: read_to_mfma(ins, p) for p in pcs if p != 239}  # 239: the loop head, its read is the loop's tail
    assert all(g is not None for g in gaps.values())
    assert (min(g[1] for g in gaps.values()), max(g[1] for g in gaps.values())) == (2, 73)
    assert gaps[685] == (686, 73)  # the MFMA at pc 686 reads v[146:147], which the ds_read_b128 at pc 613 loads
    assert "at once" not in f["title"] and f["title"] == "MFMA right after an lgkmcnt wait on its LDS reads (lgkmcnt stalls)"
    assert "2-73 instructions after its issue" in f["evidence"]["summary"]
    assert "loaded several instructions earlier" not in f["suggestion"]


@FULL
@pytest.mark.parametrize("slug, lo, hi", [("preshuffle_gemm", 2, 15), ("moe_blockscale", 2, 4)])
def test_lds_read_gaps_of_the_other_captures(kernel, sweep, slug, lo, hi):
    found, cap = plan(kernel, slug)
    ins = instructions(sweep, slug, cap)
    f = finding(found, "lds_read_into_mfma")
    gaps = [read_to_mfma(ins, p) for p in f["evidence"]["premise_pcs"]]
    assert (min(g[1] for g in gaps), max(g[1] for g in gaps)) == (lo, hi)
    assert f"{lo}-{hi} instructions after its issue" in f["evidence"]["summary"]


# ---------------------------------------------------------------- limits

@FULL
def test_thin_grid_only_where_simds_get_one_wave(kernel, sweep):
    """pa_mqa_logits_fp4: 129792/256 = 507 workgroups x 4 waves = 2,028 waves on 1,024 SIMDs: 1,004 SIMDs hold
    two, 20 (2 %) one: no thin-grid advice. moe_gemm: 1,280 waves: 768 SIMDs (75 %) hold one: advice."""
    for slug, dispatch, want_waves, short in (("pa_mqa_logits_fp4", "426", 2028, 20), ("moe_gemm", "87", 1280, 768)):
        waves = waves_of(trace_row(sweep, slug, dispatch))
        assert waves == want_waves and 2 * CUS * SIMDS - waves == short
    found, _ = plan(kernel, "pa_mqa_logits_fp4")
    assert not [f for f in found if f["detector"] == "small_grid"]
    found, _ = plan(kernel, "moe_gemm")
    assert finding(found, "small_grid")["title"] == "Grid fills only 1.25 waves per SIMD (occupancy allows 3)"


@FULL
@pytest.mark.parametrize("slug, dispatch, total, need, high", [("pa", "10886_dispatch_209", 192, 168, 23),
                                                               ("preshuffle_gemm", "58177_dispatch_135", 168, 128, 51)])
def test_vgpr_advice_numbers_and_no_agpr_remedy(kernel, sweep, slug, dispatch, total, need, high):
    """Combined pool (gfx950): round8(arch + accum) VGPRs; one more wave needs 512 // (waves + 1) rounded down
    to 8; the instructions that write at or above need - accum are the ones to move. AGPRs are in the same 512
    registers, so moving accumulators there frees nothing: the advice no longer says so."""
    occ = json.loads((sweep / "expected/occupancy.json").read_text())
    (o,) = [v for k, v in occ.items() if k.endswith(dispatch)]
    assert -(-(o["isa_vgpr"] + o["accum"]) // 8) * 8 == total == o["total"]
    assert 512 // (o["waves"] + 1) // 8 * 8 == need
    floor = need - o["accum"]
    found, cap = plan(kernel, slug)
    ins = instructions(sweep, slug, cap)
    writes = [i for i in ins if not op(i["asm"]).startswith(("s_", "buffer_store", "global_store", "ds_write", "v_cmp"))
              and len(i["asm"].split(None, 1)) > 1 and vregs(i["asm"].split(None, 1)[1].split(",")[0])
              and max(vregs(i["asm"].split(None, 1)[1].split(",")[0])) >= floor]
    assert len(writes) == high
    f = finding(found, "vgpr_occupancy")
    assert f"free {total - need}" in f["title"] and f"({high} instructions write v{floor} or above)" in f["evidence"]["summary"]
    assert "AGPR" not in f["suggestion"]


@FULL
def test_early_exit_title_counts_sampled_waves(kernel, sweep):
    """moe_gemm's wave files: 8 of 24 run 13 instructions (under 5 % of the longest, 3,192), 16 run 3,192."""
    found, cap = plan(kernel, "moe_gemm")
    counts = sorted(json.loads(p.read_text())["num_insts"] for p in capture_dir(sweep, "moe_gemm", cap).glob("se*_wv*.json"))
    early = [c for c in counts if c < 0.05 * max(counts)]
    assert (len(early), len(counts), max(counts)) == (8, 24, 3192)
    assert finding(found, "early_exit_waves")["title"] == "33.3% of the sampled waves exit without work"


# ---------------------------------------------------------------- streaming (softmax)

@FULL
def test_softmax_bandwidth_and_no_resident_thread_advice(kernel, sweep):
    """M=32768 N=8192 bf16: read + write 2 B each = 1,073,741,824 B; the campaign's flydsl row takes 217.40 us:
    4.94 TB/s, 61.7 % of the 8.0 TB/s peak. It already runs 8 resident waves per SIMD (expected/occupancy.json),
    the agent's Max_Waves_Per_Simd: no more resident threads; its loads are buffer_load_ushort (2 B a lane)."""
    with open(sweep / "benchmarks/examples/softmax/benchmark_results.csv") as fh:
        (row,) = [r for r in csv.DictReader(fh) if r["provider"] == "flydsl" and r["args"] == '{"M":32768,"N":8192}']
    nbytes = 32768 * 8192 * 2 * 2
    tbs = nbytes / float(row["median_us"]) / 1e6
    assert round(tbs, 2) == 4.94 and f"{100 * tbs / HBM_PEAK_TBS:.1f}%" == "61.7%"
    occ = json.loads((sweep / "expected/occupancy.json").read_text())
    (o,) = [v for k, v in occ.items() if k.startswith("examples/softmax/")]
    with open(sweep / "examples/softmax/compute_viewer/big_agent_info.csv") as fh:
        gpu = next(r for r in csv.DictReader(fh) if r["Agent_Type"] == "GPU")
    assert o["waves"] == int(gpu["Max_Waves_Per_Simd"]) == 8
    found, cap = plan(kernel, "softmax")
    loads = Counter(op(i["asm"]) for i in instructions(sweep, "softmax", cap) if op(i["asm"]).startswith("buffer_load"))
    assert loads == {"buffer_load_ushort": 32}
    f = finding(found, "streaming_roofline")
    assert f["title"] == "Memory waits dominate at 61.7% of HBM peak on the profiled shape"
    assert "resident threads" not in f["suggestion"] and "wider loads" in f["suggestion"]


# ---------------------------------------------------------------- launcher

@FULL
@pytest.mark.parametrize("op_, slug, want", [("softmax", "softmax", {"triton": 33, "pytorch": 17}),
                                             ("quant", "quant", {"aiter_triton": 5, "aiter": 3})])
def test_launcher_names_the_fastest_baseline_at_each_launch_shape(kernel, sweep, op_, slug, want):
    from test_launch_claims import _raw_launch

    raw = _raw_launch(sweep, op_)
    launch = [v for v in raw.values() if v["launch"]]
    assert dict(Counter(v["base"] for v in launch)) == want
    gap = statistics.median(v["gap"] for v in launch)
    found, _ = plan(kernel, slug)
    f = finding(found, "launch_overhead")
    assert f["evidence"]["launch_overhead_us"] == pytest.approx(gap)
    named = ", ".join(f"{b} {n}" for b, n in sorted(want.items(), key=lambda kv: -kv[1]))
    assert f"the fastest baseline's call at each shape (shapes where each is the fastest: {named})" in f["evidence"]["summary"]
    # the title and the verdict line name the gap for what it is: against the fastest baseline at each shape
    top, k = max(want.items(), key=lambda kv: kv[1])
    assert f["title"] == f"Launch path: at least {gap:+.1f} us a call over the fastest baseline at each shape"
    from generator.site import wording

    line = wording.plain("en", kernel(slug)[0].score.launch_msg)
    assert line == f"launch at least {gap:+.1f} us a call vs the fastest baseline at each of {len(launch)} launch shapes ({top} at {k})"


# ---------------------------------------------------------------- framework line

@FULL
def test_framework_line_names_nearest_lines_not_a_call_site(kernel, sweep):
    """layernorm's universal.py:144 stalls on s_waitcnt lgkmcnt(0) at pc 6 and 245, which drain s_loads the
    catch-all line 50 holds (pc 1-2, 239-242); line 151 is only the nearest other kernel line before pc 6."""
    found, cap = plan(kernel, "layernorm")
    rows = {i["pc"]: i for i in instructions(sweep, "layernorm", cap)}
    assert [rows[p]["asm"].strip() for p in (6, 245)] == ["s_waitcnt lgkmcnt(0)"] * 2
    assert all(rows[p]["src"].endswith("universal.py:144") for p in (6, 245))
    assert all(op(rows[p]["asm"]).startswith("s_load") and rows[p]["src"].endswith("layernorm_kernel.py:50")
               for p in (1, 2, 239, 240, 241, 242))
    assert rows[3]["src"].endswith("layernorm_kernel.py:151")
    f = finding(found, "framework_line")
    assert "call site" not in f["suggestion"]
    assert "the nearest kernel lines before its hot instructions: layernorm_kernel.py:151" in f["suggestion"]
