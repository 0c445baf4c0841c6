"""VERDICTS rules 10, 15 and 16 on the real sweep: graph-capture failures, where a kernel loses (its
configurations and the loss split), and a graph replay that misses work. Expected numbers are worked from
the raw rows here or in tests/verdict_oracle.py, apart from the code under test."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from generator.analyze.verdicts import loses
from generator.analyze.verdicts.sweep import score_sweep, sweep_floor
from conftest import in_slice  # the same test folder
from verdict_oracle import verdict_ratios


@pytest.fixture(scope="module")
def scores(sweep):
    return score_sweep(sweep)


def _rows(sweep, op):
    return [json.loads(x) for x in (sweep / "benchmarks" / "examples" / op / "benchmark_results.jsonl").read_text().splitlines() if x.strip()]


def _geomean(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs))


def test_configuration_read_from_real_details():
    """The key=value pairs of real provider_detail texts: a kwargs dict's entries, a parenthesized value whole,
    a value with brackets inside it, the call's closing bracket not part of the last value."""
    gemm = ("hgemm_splitk_(M=1,N=128,K=4096,bf16); split-K MFMA; kwargs={'TILE_M': 128, 'TILE_N': 128, 'TILE_K': 64, "
            "'STAGES': 4, 'SPLIT_K': 1, 'BLOCK_M_WARPS': 4, 'BLOCK_N_WARPS': 4, 'BLOCK_K_WARPS': 1}")
    assert loses.parse_config(gemm) == {"M": "1", "N": "128", "K": "4096", "TILE_M": "128", "TILE_N": "128",
                                        "TILE_K": "64", "STAGES": "4", "SPLIT_K": "1", "BLOCK_M_WARPS": "4",
                                        "BLOCK_N_WARPS": "4", "BLOCK_K_WARPS": "1"}
    assert loses.workgroups(loses.parse_config(gemm), {"M": 1, "N": 128, "K": 4096}) == 1
    pre = ("compile_preshuffle_gemm_a8(M=16,N=5120,K=8192,in=fp8,out=bf16, tile_m=16,tile_n=64,tile_k=512, "
           "lds_stage=2); MFMA a8w8, per-token scales; B preshuffle (shuffle_weight layout=(16,16)) done once")
    cfg = loses.parse_config(pre)
    assert cfg["layout"] == "(16,16)" and cfg["lds_stage"] == "2" and cfg["tile_n"] == "64"
    assert loses.workgroups(cfg, {"M": 4096, "N": 8192, "K": 8192}) == 256 * 128
    fa = "build_flash_attn_func_module(num_heads=64,head_dim=128,causal=True,bf16,sm_scale=1/sqrt(128),daz=True); x"
    assert loses.parse_config(fa) == {"num_heads": "64", "head_dim": "128", "causal": "True",
                                      "sm_scale": "1/sqrt(128)", "daz": "True"}
    assert loses.parse_config("pa; quant=per_token, heads=(8, 1), ctx=1027;")["heads"] == "(8, 1)"
    assert loses.parse_config("kernel(tile=(64x128x32))")["tile N"] == "128"


@pytest.mark.full_sweep  # layernorm, fp8_gemm_rowscale, gemm, preshuffle_gemm: not in the slice
def test_stale_details_and_configurations(sweep, scores):
    """layernorm's row at M=1 N=4096 says M=4096,N=4095 (stale: its configuration is unknown); the real cases of
    rule 15's by_config: rmsnorm and layernorm by their path, preshuffle_gemm by its tile."""
    ledger = {json.loads(x)["shape_id"]: json.loads(x)["args"] for x in
              (sweep / "benchmarks/examples/layernorm/shape_ledger.jsonl").read_text().splitlines() if x.strip()}
    stale = [r for r in _rows(sweep, "layernorm") if r["provider"] == "flydsl"
             and "M=4096,N=4095" in (r.get("provider_detail") or "")]
    wrong = {json.dumps(ledger[r["shape_id"]], sort_keys=True) for r in stale if ledger[r["shape_id"]]["N"] != 4095}
    assert wrong == {'{"M": 1, "N": 4096, "eps": 1e-05}'}
    norm = scores["layernorm"]
    assert norm.where.stale_detail == 1
    assert {k: [round(g, 3), n] for k, (g, n) in norm.where.by_config.items()} == {
        "": [pytest.approx(0.767, abs=1e-3), 1], "path=fast-vectorized": [1.009, 6], "path=generic-scalar": [0.834, 48]}
    rms = scores["rmsnorm"]
    assert rms.where.stale_detail == 8
    assert [rms.where.by_config[k][1] for k in ("", "path=fast-vectorized", "path=generic-scalar")] == [8, 14, 48]
    assert round(rms.where.by_config["path=generic-scalar"][0], 3) == 0.814
    pre = scores["preshuffle_gemm"].where.by_config
    tiles = {k.split("tile_m=")[1].split(",")[0] + "x" + k.split("tile_n=")[1]: [round(g, 3), n] for k, (g, n) in pre.items() if k}
    assert tiles == {"16x64": [0.609, 8], "64x256": [0.797, 3]}


@pytest.mark.full_sweep  # layernorm, fp8_gemm_rowscale, gemm, preshuffle_gemm: not in the slice
def test_fp8_gemm_loses_where_m_is_small(sweep, scores):
    """fp8_gemm_rowscale: the split at M <= 256 from the raw rows (its verdict shapes' ratios): 0.337 over 4
    against 0.943 over 9; the permutation and leave-one-out tests hold."""
    ratios, _, _ = verdict_ratios(sweep / "benchmarks" / "examples" / "fp8_gemm_rowscale", floor=sweep_floor(sweep))
    args = {json.loads(x)["shape_id"]: json.loads(x)["args"] for x in
            (sweep / "benchmarks/examples/fp8_gemm_rowscale/shape_ledger.jsonl").read_text().splitlines() if x.strip()}
    small = [r for sid, r in ratios.items() if args[sid]["M"] <= 256]
    large = [r for sid, r in ratios.items() if args[sid]["M"] > 256]
    split = scores["fp8_gemm_rowscale"].where.loss_split
    assert (split.feature, split.op, split.value, split.loses) == ("M", "<=", 256, "inside")
    assert split.inside == [pytest.approx(_geomean(small)), len(small)] and len(small) == 4
    assert split.outside == [pytest.approx(_geomean(large)), 9]
    assert (round(split.inside[0], 3), round(split.outside[0], 3)) == (0.337, 0.943)
    assert sorted(split.shapes) == sorted(sid for sid in ratios if args[sid]["M"] <= 256)


@pytest.mark.full_sweep  # layernorm, fp8_gemm_rowscale, gemm, preshuffle_gemm: not in the slice
def test_gemm_loses_by_workgroups_and_preshuffle_has_no_split(sweep, scores):
    """gemm: its 12 shapes of at most 4 workgroups (ceil(M/tile M) x ceil(N/tile N) x split-K, tile and split-K
    from each row's kwargs) at 0.365; preshuffle_gemm: no split (a stale row leaves one shape without workgroups)."""
    split = scores["gemm"].where.loss_split
    assert (split.feature, split.op, split.value, split.inside[1], split.outside[1]) == ("workgroups", "<=", 4, 12, 16)
    details = {r["shape_id"]: (r["args"], r["provider_detail"]) for r in _rows(sweep, "gemm")
               if r["provider"] == "flydsl" and r["benchmark_status"] == "ok"}
    for sid in split.shapes:
        a, d = details[sid]
        kw = eval(d.split("kwargs=")[1])  # the harness's own dict literal
        assert math.ceil(a["M"] / kw["TILE_M"]) * math.ceil(a["N"] / kw["TILE_N"]) * kw["SPLIT_K"] <= 4
    pre = scores["preshuffle_gemm"]
    assert pre.where.loss_split is None and pre.where.stale_detail == 1


def test_pa_decode_graph_capture_failures(sweep, scores):
    """pa_decode's two sliding-window shapes: flydsl fell back to eager events (its graph capture needs
    preallocated buffers); they leave the verdict (0.764 over 10), their calls 437 / 431 us sit +181 / +174
    over its median call of 256.8 us on the other shapes; gluon's rows there are above the roof (no ratio)."""
    last = {r["shape_id"]: r for r in _rows(sweep, "pa_decode") if r["provider"] == "flydsl" and r["benchmark_status"] == "ok"}
    eager = [r for r in last.values() if r["timing_method"] == "eager_event"]
    usual = statistics.median(r["eager_median_us"] for r in last.values() if r["timing_method"] == "cudagraph")
    assert round(usual, 1) == 256.8  # VERDICTS rule 10 says 256.9: the median of the 10 is 256.842
    s = scores["pa_decode"]
    assert s.graph_capture_failed == [2, None] and s.verdict_geomean[1] == 10
    assert [(f.shape_id, round(f.call_us, 1), round(f.excess_us, 1)) for f in s.capture_failures] == \
        [(r["shape_id"], round(r["median_us"], 1), round(r["median_us"] - usual, 1)) for r in eager]
    assert [round(f.excess_us) for f in s.capture_failures] == [181, 174]
    assert s.capture_failures[0].error.startswith("ValueError: CUDA graph capture requires preallocated `exp_sums`")


@pytest.mark.parametrize("op,calls,graphs", [in_slice("benchmarks/examples/moe_gemm", "moe_gemm", (61.0, 2826.1), (44.3, 318.0)),
                                             ("moe_blockscale", (122.3, 369.5), (25.2, 22.6))])
def test_graph_replay_that_misses_work(sweep, scores, op, calls, graphs):
    """Rule 16: the candidate's calls of least and largest call time (raw rows), their graph times; the call
    grows by far more than 3x the graph and 4x the floor, and rows above the roof agree: no verdict shape."""
    rows = [r for r in _rows(sweep, op) if r["provider"] == "flydsl" and r["timing_method"] == "cudagraph"
            and r["benchmark_status"] == "ok" and r.get("correct") is not False and r.get("eager_median_us")]
    lo, hi = min(rows, key=lambda r: r["eager_median_us"]), max(rows, key=lambda r: r["eager_median_us"])
    assert (round(lo["eager_median_us"], 1), round(hi["eager_median_us"], 1)) == calls
    assert (round(lo["median_us"], 1), round(hi["median_us"], 1)) == graphs
    s = scores[op]
    assert s.graph_partial and s.partial_replay.call_us == (lo["eager_median_us"], hi["eager_median_us"])
    assert s.verdict_geomean is None and s.verdict_basis == "pair" and s.where is None
    assert not any(sh.is_verdict_shape for sh in s.shapes)


def test_no_other_campaign_misses_work_and_no_fixed_cost_claim(sweep, scores):
    """Rule 16's real cases are the two MoE campaigns alone; no campaign makes a fixed-cost claim."""
    for folder in sorted((sweep / "benchmarks" / "examples").iterdir()):
        if (folder / "benchmark_results.jsonl").exists():
            s = scores[folder.name]
            assert s.graph_partial == (folder.name in ("moe_gemm", "moe_blockscale")), folder.name
            assert "fixed" not in " ".join(s.flags) + " ".join(s.flag_keys)
