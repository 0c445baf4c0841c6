"""The profiled kernel is the timed one (DOMAIN §1.7, issue 31 point 2) and a class is not a finding (point 3).

Worked by hand from the raw files: hgemm_splitk's capture ``code.json`` opens with the row
``; hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0`` (tile 32x64x256, 2 stages, split-K 14) and its
kernel trace gives that kernel ``LDS_Block_Size`` 98304 = 2 x 48 KiB; the gemm campaign's 30 usable flydsl rows
(``benchmark_status`` ok, ``correct`` true, a median) carry ``kwargs={'TILE_M': 128, 'TILE_N': 128, 'TILE_K': 64,
'STAGES': 4, 'SPLIT_K': 1, ...}`` (25 rows) or ``{'TILE_M': 16, 'TILE_N': 64, 'TILE_K': 128, 'STAGES': 4,
'SPLIT_K': 1, ...}`` (5 rows). moe_blockscale's capture ``mfma_moe1_bs_fp8_f16_cshuffle_t16x256x128_wpe2_abi8``
and its campaign's ``tile_m=16 tile_n=256 tile_k=128``: the same tile.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from collections import Counter

import pytest

from generator.analyze import config_match as cm
from generator.site.views import base as base_views
from generator.site.views import why as why_views

HGEMM = "hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0"


def capture_name(capture_dir) -> str:
    """The kernel name on the first (comment) row of a capture's code.json."""
    first = json.loads((capture_dir / "code.json").read_text())["code"][0][0]
    return first.lstrip("; ").strip()


def hgemm_capture(sweep):
    return next((sweep / "examples" / "hgemm_splitk" / "att_viewer" / "big").iterdir())


def usable_details(results) -> list[str]:
    """provider_detail of the flydsl rows that were timed: status ok, not failed verification, a median."""
    out = []
    for line in results.read_text().splitlines():
        r = json.loads(line)
        if r["provider"] == "flydsl" and r["benchmark_status"] == "ok" and r.get("correct") is not False \
                and (r.get("median_us") or 0) > 0:
            out.append(r["provider_detail"])
    return out


def kwargs_of(detail: str) -> dict:
    """The kwargs dict of a detail, read by a few independent lines."""
    return ast.literal_eval(re.search(r"kwargs=(\{.*?\})", detail)[1])


# ---------------------------------------------------------------- the pure function

def test_the_capture_name_carries_tile_stages_and_split_k(sweep):
    name = capture_name(hgemm_capture(sweep))
    assert name == HGEMM
    assert cm.capture_config(name) == {"tile": "32x64x256", "stages": 2, "split_k": 14}
    assert cm.capture_config("mfma_moe1_bs_fp8_f16_cshuffle_t16x256x128_wpe2_abi8") == {"tile": "16x256x128"}
    for plain in ("kernel_gemm_0", "pa_decode_ps_kernel_0", "fused_qk_rope_reshape_and_cache_0", "", None):
        assert cm.capture_config(plain) is None


def test_a_detail_carries_its_kwargs_or_its_pairs():
    d = ("hgemm_splitk_(M=1,N=128,K=4096,bf16); split-K MFMA; kwargs={'TILE_M': 128, 'TILE_N': 128, 'TILE_K': 64, "
         "'STAGES': 4, 'SPLIT_K': 1, 'BLOCK_M_WARPS': 4, 'BLOCK_N_WARPS': 4, 'BLOCK_K_WARPS': 1}")
    assert cm.detail_config(d) == {"tile": "128x128x64", "stages": 4, "split_k": 1}  # M=1 is the shape, not the tile
    assert cm.detail_config("compose moe_blockscale_gemm1 (tile_m=16 tile_n=256 tile_k=128, doweight)") == \
        {"tile": "16x256x128"}
    assert cm.detail_config("build_rmsnorm_module(M=256,N=2560,bf16); path=generic-scalar") is None
    assert cm.detail_config("") is None and cm.detail_config(None) is None


def test_handmade_checks_match_differ_or_cannot_say():
    two = "kwargs={'TILE_M': 32, 'TILE_N': 64, 'TILE_K': 256, 'STAGES': 2, 'SPLIT_K': 14}"
    four = "kwargs={'TILE_M': 32, 'TILE_N': 64, 'TILE_K': 256, 'STAGES': 4, 'SPLIT_K': 14}"
    same = cm.check(HGEMM, [two, four, None])
    assert same["matches"] is True and same["differs"] == [] and same["unread"] == 1  # one timed config is the capture's
    other = cm.check(HGEMM, [four, four])
    assert (other["matches"], other["differs"], other["timed"]) == \
        (False, ["stages"], [{"config": {"tile": "32x64x256", "stages": 4, "split_k": 14}, "rows": 2}])
    assert cm.differs_by(other) and not cm.differs_by(same)
    mute = cm.check(HGEMM, ["path=generic-scalar", None])
    assert mute["matches"] is None and mute["unread"] == 2 and not cm.differs_by(mute)
    assert cm.check("kernel_gemm_0", [two]) is None


# ---------------------------------------------------------------- the real hgemm_splitk bundle and gemm campaign

@pytest.mark.full_sweep  # the gemm campaign is not in the slice
def test_hgemm_splitk_capture_is_another_configuration_than_every_timed_row(kernel, sweep):
    details = usable_details(sweep / "benchmarks" / "examples" / "gemm" / "benchmark_results.jsonl")
    tiles = Counter(f"{kw['TILE_M']}x{kw['TILE_N']}x{kw['TILE_K']}" for kw in map(kwargs_of, details))
    assert len(details) == 30 and tiles == Counter({"128x128x64": 25, "16x64x128": 5})
    assert {(kw["STAGES"], kw["SPLIT_K"]) for kw in map(kwargs_of, details)} == {(4, 1)}
    k, row = kernel("hgemm_splitk")
    c = k.capture_config
    assert c == {"capture": {"tile": "32x64x256", "stages": 2, "split_k": 14},
                 "timed": [{"config": {"tile": "128x128x64", "stages": 4, "split_k": 1}, "rows": 25},
                           {"config": {"tile": "16x64x128", "stages": 4, "split_k": 1}, "rows": 5}],
                 "unread": 0, "matches": False, "differs": ["tile", "stages", "split_k"]}
    keys = [cl["key"] for cl in row.diagnosis["clauses"]]
    # the timed readings, then the note, then the capture's: never one kernel
    assert keys == ["bound", "roof", "config", "stall", "occupancy"]
    note = row.diagnosis["clauses"][2]
    assert note["text"] == ("the capture (tile 32x64x256, 2 stages, split-K 14) is another configuration than the 30 "
                            "timed rows (tile 128x128x64 or 16x64x128, 4 stages, split-K 1)")
    assert note["zh"] == "采集（分块 32x64x256、2 级流水、split-K 14）与 30 个计时行（分块 128x128x64 或 16x64x128、4 级流水、split-K 1）不是同一配置"
    # DOMAIN §1.7: the first step names the cheaper fix (the captured configuration's pair reads 1.66x, the timed
    # rows 0.48x): time the captured configuration, or capture the timed one
    assert row.first_step["kind"] == "config" and row.first_step["text"] == (
        "Time the captured configuration (tile 32x64x256, 2 stages, split-K 14) in the campaign: its profiled pair "
        "reads 1.66x while the timed rows (tile 128x128x64 or 16x64x128, 4 stages, split-K 1) read 0.48x; or "
        "capture the timed one")
    assert row.severity["level"] == "rewrite" and row.severity["config_note"].startswith("from the timed rows alone")
    assert row.api()["diagnosis"]["capture_config"] == c
    why = why_views._why_panel(k, row, base_views.SiteContext())  # the limiter that follows is the capture's
    assert why.lines[1].en == note["text"] and why.lines[2].en.startswith(
        "Limiter: Grid too small for the GPU: 84 workgroups")  # its LDS cap of 1 wave/SIMD: 1 asked, not binding


@pytest.mark.full_sweep
def test_the_page_and_api_say_it(built_full_site):
    site = built_full_site
    doc = json.loads((site / "api" / "kernels" / "hgemm_splitk.json").read_text())
    assert doc["capture_config"]["matches"] is False and doc["capture_config"]["differs"] == ["tile", "stages", "split_k"]
    page = (site / "kernels" / "hgemm_splitk" / "index.html").read_text()
    assert page.count('class="config-note"') == 1  # beside the severity (the first step says it in its own words)
    assert "Time the captured configuration (tile 32x64x256, 2 stages, split-K 14)" in page
    assert 'class="config"' in page and 'plan-config' in page  # the diagnosis's note, the plan's
    index = (site / "index.html").read_text()
    assert 'class="clause config"' in index and "another configuration than the 30 timed rows" in index
    assert json.loads((site / "api" / "kernels" / "vec_add.json").read_text())["capture_config"] is None


@pytest.fixture(scope="module")
def built_full_site(tmp_path_factory, sweep):
    from generator.site import build

    out = tmp_path_factory.mktemp("site")
    build.build_site(str(sweep), str(out), progress=False, jobs=2)
    return out


@pytest.mark.full_sweep  # moe_blockscale's bundle is not in the slice
def test_moe_blockscale_capture_is_the_timed_tile(kernel):
    k, row = kernel("moe_blockscale")
    assert k.capture_config["capture"] == {"tile": "16x256x128"} and k.capture_config["matches"] is True
    assert "config" not in [cl["key"] for cl in row.diagnosis["clauses"]]
    assert "config_note" not in (row.first_step or {}) and "config_note" not in (row.severity or {})


# ---------------------------------------------------------------- the advice does not ask for what is done

def test_the_drain_advice_knows_the_lds_is_already_double_buffered(kernel, sweep):
    """2 stages in 98304 bytes of LDS (the kernel trace's LDS_Block_Size): 2 x 48 KiB. Slice and sweep alike."""
    trace = sweep / "examples" / "hgemm_splitk" / "compute_viewer" / "discover_kernel_trace.csv"
    lds = next(int(r["LDS_Block_Size"]) for r in csv.DictReader(trace.open()) if r["Kernel_Name"] == HGEMM)
    assert lds == 98304 and lds // 2 // 1024 == 48
    k, row = kernel("hgemm_splitk")
    drain = next(f for f in k.primary.findings if f["detector"] == "lds_dma_drain")
    assert drain["suggestion"].startswith("The LDS is already multi-buffered (2 x 48 KiB)")
    assert "double-buffer" not in drain["suggestion"]
    assert drain["i18n"]["suggestion"] == ["finding.lds_dma_drain.try.staged", {"size": "2 x 48 KiB", "gaps": "3-17"}]
    if row.op is None:  # the slice: no timed rows, the capture's finding is the first step
        assert row.first_step["text"].startswith("Issue the next stage's buffer_load...lds before waiting for this one")
    else:  # the whole sweep: another configuration than the timed rows (DOMAIN §1.7)
        assert row.first_step["kind"] == "config"


# ---------------------------------------------------------------- point 3: a class is not a finding

def test_no_diagnosis_restates_the_latency_class(kernel, site_env):
    """Below 25 % of the roof is what latency-bound means: no roof clause says "best latency-bound shape at X %";
    beside a latency-bound reading it is the best of all measured shapes, whatever their bound."""
    _, plans = site_env
    seen = 0
    for slug in plans:
        _, row = kernel(slug)
        d = row.diagnosis
        if not d:
            continue
        assert not any(re.search(r"latency-bound shape at", c["text"]) for c in d["clauses"]), slug
        assert not any("延迟受限形状达到" in c["zh"] for c in d["clauses"]), slug
        if d.get("roofline_bound") == "latency-bound" and d.get("roof_source", "").startswith("roofline"):
            assert d["roof_source"] == "roofline, best of all measured shapes", slug
            seen += 1
    assert seen >= 1  # pa in the slice too (moe_blockscale's graph replay misses work: no roofline reading, rule 16)


def test_pa_roof_clause_is_the_best_of_its_ten_kernel_clock_shapes(kernel, sweep):
    """pa_decode's flydsl rows below every roof (8 TB/s; rule 9 drops the ones above 8.8 TB/s) and on the kernel
    clock (rule 13: the two sliding-window rows are eager call time): the best is the one memory-bound shape, 38 % of
    its roof (9 of 10 are latency-bound, the best of those 9 %)."""
    rows = [json.loads(x) for x in (sweep / "benchmarks" / "examples" / "pa_decode" / "benchmark_results.jsonl")
            .read_text().splitlines()]
    fracs = []
    for r in rows:
        if r["provider"] != "flydsl" or r["benchmark_status"] != "ok" or r.get("correct") is False \
                or not r.get("median_us") or not r.get("effective_gbps") or r["effective_gbps"] > 1.10 * 8000 \
                or r.get("timing_method") == "eager_event":  # call time (VERDICTS rule 13): no kernel evidence
            continue
        tf, gb, peak = r["effective_tflops"], r["effective_gbps"], {"fp8": 4600}.get(r["dtype"], 2300)
        ai = tf * 1e12 / (gb * 1e9)
        fracs.append(tf / min(peak, ai * 8.0))
    assert len(fracs) == 10 and sum(f < 0.25 for f in fracs) == 9
    _, row = kernel("pa")
    d = row.diagnosis
    assert d["roof_bound"] == "memory-bound" and d["roof_fraction"] == pytest.approx(max(fracs), rel=1e-9)
    roof = [c for c in d["clauses"] if c["key"] == "roof"][0]
    assert roof["text"] == "best of 10 shapes at 38% of the roof (memory-bound)"
    assert roof["zh"] == "10 个形状中最佳者达到屋顶的 38%（内存受限）"


def test_nothing_timed_nothing_to_compare(kernel, sweep):
    """Without the candidate's timed rows there is no check: the slice holds hgemm_splitk's bundle without the
    gemm campaign (and moe_blockscale's campaign without its bundle). On the whole sweep the check holds."""
    k, row = kernel("hgemm_splitk")
    if (sweep / "benchmarks" / "examples" / "gemm" / "benchmark_results.jsonl").is_file():
        assert k.capture_config["matches"] is False
    else:
        assert k.capture_config is None and "config" not in [c["key"] for c in row.diagnosis["clauses"]]
        assert "config_note" not in row.first_step
    k, _ = kernel("vec_add")  # "vecAddKernel_0" carries no configuration
    assert k.capture_config is None
